import { describe, expect, it } from "vitest";
import { countStatus, parseStatusV2, type StatusEntry } from "../src/git/parse/status.js";

const OID_A = "a".repeat(40);
const OID_B = "b".repeat(40);
const ZERO = "0".repeat(40);

/** One `1` record of `git status --porcelain=v2 -z`. */
function changed(xy: string, path: string, sub = "N..."): string {
  return `1 ${xy} ${sub} 100644 100644 100644 ${OID_A} ${OID_B} ${path}`;
}

function entry(fields: Partial<StatusEntry> & Pick<StatusEntry, "path" | "index" | "worktree" | "kind">): StatusEntry {
  return {
    origPath: null,
    staged: fields.index !== "." && fields.index !== "?" && fields.kind !== "conflicted",
    unstaged: fields.worktree !== "." && fields.worktree !== "?",
    ...fields,
  };
}

describe("parseStatusV2: branch headers", () => {
  it("reads the branch, its commit and its upstream with ahead/behind", () => {
    const output = [`# branch.oid ${OID_A}`, "# branch.head main", "# branch.upstream origin/main", "# branch.ab +2 -5", ""].join("\0");
    expect(parseStatusV2(output)).toEqual({
      branch: { head: "main", oid: OID_A, upstream: "origin/main", ahead: 2, behind: 5, detached: false },
      entries: [],
    });
  });

  it("reads an unborn branch: no commit yet", () => {
    expect(parseStatusV2("# branch.oid (initial)\0# branch.head trunk\0").branch).toEqual({
      head: "trunk",
      oid: null,
      upstream: null,
      ahead: null,
      behind: null,
      detached: false,
    });
  });

  it("reads a detached HEAD", () => {
    expect(parseStatusV2(`# branch.oid ${OID_B}\0# branch.head (detached)\0`).branch).toEqual({
      head: null,
      oid: OID_B,
      upstream: null,
      ahead: null,
      behind: null,
      detached: true,
    });
  });

  it("leaves ahead/behind null when the upstream is gone (git prints no branch.ab)", () => {
    const output = `# branch.oid ${OID_A}\0# branch.head topic\0# branch.upstream origin/topic\0`;
    expect(parseStatusV2(output).branch).toEqual({
      head: "topic",
      oid: OID_A,
      upstream: "origin/topic",
      ahead: null,
      behind: null,
      detached: false,
    });
  });
});

describe("parseStatusV2: entries", () => {
  it("maps every ordinary change to a kind, with staged and unstaged flags", () => {
    const records = [
      changed(".M", "worktree-modified"),
      changed("M.", "index-modified"),
      changed("MM", "both-modified"),
      changed("A.", "added"),
      changed("AM", "added-then-modified"),
      changed("AD", "added-then-deleted"),
      changed(".A", "intent-to-add"),
      changed("D.", "index-deleted"),
      changed(".D", "worktree-deleted"),
      changed("MD", "modified-then-deleted"),
      changed(".T", "worktree-typechange"),
      changed("T.", "index-typechange"),
    ];
    const { entries } = parseStatusV2(`${records.join("\0")}\0`);
    expect(entries).toEqual([
      entry({ path: "worktree-modified", index: ".", worktree: "M", kind: "modified" }),
      entry({ path: "index-modified", index: "M", worktree: ".", kind: "modified" }),
      entry({ path: "both-modified", index: "M", worktree: "M", kind: "modified" }),
      entry({ path: "added", index: "A", worktree: ".", kind: "added" }),
      entry({ path: "added-then-modified", index: "A", worktree: "M", kind: "added" }),
      // The index side says what the path is relative to HEAD: a new file, since deleted from the work tree.
      entry({ path: "added-then-deleted", index: "A", worktree: "D", kind: "added" }),
      // `git add -N`: not staged yet, but a new file all the same.
      entry({ path: "intent-to-add", index: ".", worktree: "A", kind: "added" }),
      entry({ path: "index-deleted", index: "D", worktree: ".", kind: "deleted" }),
      entry({ path: "worktree-deleted", index: ".", worktree: "D", kind: "deleted" }),
      entry({ path: "modified-then-deleted", index: "M", worktree: "D", kind: "modified" }),
      entry({ path: "worktree-typechange", index: ".", worktree: "T", kind: "type_changed" }),
      entry({ path: "index-typechange", index: "T", worktree: ".", kind: "type_changed" }),
    ]);
  });

  it("reads renames and copies with their source as the next NUL-separated field", () => {
    const output = [
      `2 R. N... 100644 100644 100644 ${OID_A} ${OID_A} R100 new name.txt`,
      "old name.txt",
      `2 C. N... 100644 100644 100644 ${OID_A} ${OID_A} C75 copy.txt`,
      "source.txt",
      `2 RM N... 100644 100644 100644 ${OID_A} ${OID_A} R90 moved.txt`,
      "line\nbreak.txt",
      "",
    ].join("\0");
    expect(parseStatusV2(output).entries).toEqual([
      entry({ path: "new name.txt", origPath: "old name.txt", index: "R", worktree: ".", kind: "renamed" }),
      entry({ path: "copy.txt", origPath: "source.txt", index: "C", worktree: ".", kind: "copied" }),
      entry({ path: "moved.txt", origPath: "line\nbreak.txt", index: "R", worktree: "M", kind: "renamed" }),
    ]);
  });

  it("reads conflicts as neither staged nor counted as ordinary changes", () => {
    const output = [
      `u UU N... 100644 100644 100644 100644 ${OID_A} ${OID_B} ${OID_A} both modified.txt`,
      `u AA N... 000000 100644 100644 100644 ${ZERO} ${OID_A} ${OID_B} both-added.txt`,
      `u DU N... 100644 000000 100644 100644 ${OID_A} ${ZERO} ${OID_B} deleted-by-us.txt`,
      "",
    ].join("\0");
    const { entries } = parseStatusV2(output);
    expect(entries).toEqual([
      { path: "both modified.txt", origPath: null, index: "U", worktree: "U", kind: "conflicted", staged: false, unstaged: true },
      { path: "both-added.txt", origPath: null, index: "A", worktree: "A", kind: "conflicted", staged: false, unstaged: true },
      { path: "deleted-by-us.txt", origPath: null, index: "D", worktree: "U", kind: "conflicted", staged: false, unstaged: true },
    ]);
    expect(countStatus(entries)).toEqual({ staged: 0, unstaged: 0, untracked: 0, conflicted: 3, total: 3 });
  });

  it("keeps every byte of untracked names, spaces, tabs and newlines included", () => {
    const output = ["? dir/", "? tab\there", "? new\nline", "?  leading space", "? ünïcödé ✓", ""].join("\0");
    expect(parseStatusV2(output).entries.map((e) => [e.path, e.kind, e.index, e.worktree, e.staged, e.unstaged])).toEqual([
      ["dir/", "untracked", "?", "?", false, false],
      ["tab\there", "untracked", "?", "?", false, false],
      ["new\nline", "untracked", "?", "?", false, false],
      [" leading space", "untracked", "?", "?", false, false],
      ["ünïcödé ✓", "untracked", "?", "?", false, false],
    ]);
  });

  it("reports submodule state from the sub field", () => {
    const { entries } = parseStatusV2(`${changed(".M", "vendor/lib", "S.MU")}\0${changed("M.", "other", "SC..")}\0`);
    expect(entries.map((e) => e.submodule)).toEqual([
      { commitChanged: false, modified: true, untracked: true },
      { commitChanged: true, modified: false, untracked: false },
    ]);
  });

  it("parses empty output as a clean tree with no branch information", () => {
    expect(parseStatusV2("")).toEqual({
      branch: { head: null, oid: null, upstream: null, ahead: null, behind: null, detached: false },
      entries: [],
    });
  });
});

describe("countStatus", () => {
  it("counts a path staged and unstaged in both columns, and the total once", () => {
    const { entries } = parseStatusV2([changed("MM", "a"), changed("A.", "b"), changed(".D", "c"), "? d", ""].join("\0"));
    expect(countStatus(entries)).toEqual({ staged: 2, unstaged: 2, untracked: 1, conflicted: 0, total: 4 });
  });
});
