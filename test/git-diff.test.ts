import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, type DiffFileSummary, type GitDiffData, type ToolResult } from "../src/index.js";
import { splitRange } from "../src/tools/git-diff.js";
import { makeRepo, plainGit, tempDir, withSubmodules, type TestRepo } from "./fixtures/repo.js";

async function diff(root: string, input: Record<string, unknown> = {}): Promise<ToolResult<GitDiffData>> {
  return (await createToolbox({ root }).execute("git_diff", input)) as ToolResult<GitDiffData>;
}

/** The successful result, or a failed assertion showing the error. */
async function ok(root: string, input: Record<string, unknown> = {}): Promise<{ data: GitDiffData; text: string }> {
  const result = await diff(root, input);
  if (!result.ok) expect.fail(`git_diff failed: ${JSON.stringify(result.error)}`);
  return { data: result.data, text: result.text };
}

async function errorOf(root: string, input: Record<string, unknown>): Promise<{ code: string; message: string; hint?: string }> {
  const result = await diff(root, input);
  if (result.ok) expect.fail(`git_diff succeeded for ${JSON.stringify(input)}`);
  return result.error;
}

function file(fields: Partial<DiffFileSummary> & Pick<DiffFileSummary, "path" | "status">): DiffFileSummary {
  return {
    oldPath: null,
    additions: 0,
    deletions: 0,
    hunks: 0,
    binary: false,
    created: fields.status === "added",
    deleted: fields.status === "deleted",
    renamed: fields.status === "renamed",
    copied: fields.status === "copied",
    oldMode: fields.status === "added" ? null : "100644",
    newMode: fields.status === "deleted" ? null : "100644",
    ...fields,
  };
}

/** git's abbreviated object id of a blob with this content, as on a patch's `index` line. */
function blob(repo: TestRepo, content: string): string {
  return repo.git(["hash-object", "--stdin"], { input: content }).trim().slice(0, 7);
}

const bytesOf = (text: string): number => Buffer.byteLength(text, "utf8");

function lines(from: number, to: number, edit: (n: number) => string = (n) => `line ${n}`): string {
  let out = "";
  for (let n = from; n <= to; n++) out += `${edit(n)}\n`;
  return out;
}

const ORIGINAL = lines(1, 15);
const EDITED = lines(1, 15, (n) => (n === 2 || n === 12 ? `LINE ${n}` : `line ${n}`));

/** `a.txt` committed with 15 lines, then lines 2 and 12 edited in the work tree; `b.txt` edited and staged. */
function editedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", ORIGINAL).write("b.txt", "bee\n");
  repo.commit("initial");
  repo.write("b.txt", "bee staged\n");
  repo.git(["add", "b.txt"]);
  repo.write("a.txt", EDITED);
  return repo;
}

function editedPatch(repo: TestRepo): string {
  return [
    "diff --git a/a.txt b/a.txt",
    `index ${blob(repo, ORIGINAL)}..${blob(repo, EDITED)} 100644`,
    "--- a/a.txt",
    "+++ b/a.txt",
    "@@ -1,5 +1,5 @@",
    " line 1",
    "-line 2",
    "+LINE 2",
    " line 3",
    " line 4",
    " line 5",
    // git's default function-context heuristic names the last line starting with a letter before the hunk.
    "@@ -9,7 +9,7 @@ line 8",
    " line 9",
    " line 10",
    " line 11",
    "-line 12",
    "+LINE 12",
    " line 13",
    " line 14",
    " line 15",
    "",
  ].join("\n");
}

describe("git_diff: the private index copy", () => {
  it("follows the repository's index: staging, unstaging and editing between calls of one toolbox", async () => {
    const repo = editedRepo();
    const toolbox = createToolbox({ root: repo.dir });
    const unstaged = async () => {
      const result = (await toolbox.execute("git_diff", {})) as ToolResult<GitDiffData>;
      return result.ok ? result.data.files.map((file) => `${file.path} +${file.additions} -${file.deletions}`) : result.error;
    };
    expect(await unstaged()).toEqual(["a.txt +2 -2"]);
    repo.git(["add", "a.txt"]);
    expect(await unstaged()).toEqual([]);
    repo.write("b.txt", "bee staged\nand more\n");
    expect(await unstaged()).toEqual(["b.txt +1 -0"]);
    repo.git(["reset", "-q"]);
    expect(await unstaged()).toEqual(["a.txt +2 -2", "b.txt +2 -1"]);
  });
});

describe("git_diff: unstaged and staged", () => {
  it("shows unstaged changes: summary, whole patch and a golden text", async () => {
    const repo = editedRepo();
    const patch = editedPatch(repo);
    expect(await ok(repo.dir)).toEqual({
      data: {
        mode: "unstaged",
        comparison: "unstaged changes (working tree vs index)",
        base: null,
        target: null,
        path: null,
        files: [file({ path: "a.txt", status: "modified", additions: 2, deletions: 2, hunks: 2 })],
        totals: { files: 1, additions: 2, deletions: 2, binary: 0, uncounted: 0 },
        fileOffset: 0,
        nextFileOffset: null,
        patch,
        offset: 0,
        bytes: bytesOf(patch),
        returnedBytes: bytesOf(patch),
        truncated: false,
        nextOffset: null,
        renames: { copies: false, limitExceeded: false, skipped: null },
      },
      text: `Diff of unstaged changes (working tree vs index): 1 file changed, +2 -2\nM a.txt (+2 -2, 2 hunks)\n\n${patch.slice(0, -1)}`,
    });
  });

  it("shows staged changes only with staged=true", async () => {
    const repo = editedRepo();
    const { data, text } = await ok(repo.dir, { staged: true });
    expect(data.mode).toBe("staged");
    expect(data.base).toBe(repo.head());
    expect(data.files).toEqual([file({ path: "b.txt", status: "modified", additions: 1, deletions: 1, hunks: 1 })]);
    expect(text).toBe(
      [
        "Diff of staged changes (index vs HEAD): 1 file changed, +1 -1",
        "M b.txt (+1 -1, 1 hunk)",
        "",
        "diff --git a/b.txt b/b.txt",
        `index ${blob(repo, "bee\n")}..${blob(repo, "bee staged\n")} 100644`,
        "--- a/b.txt",
        "+++ b/b.txt",
        "@@ -1 +1 @@",
        "-bee",
        "+bee staged",
      ].join("\n"),
    );
  });

  it("says which diff is empty: unstaged or staged", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    const unstaged = await ok(repo.dir);
    expect(unstaged.data.files).toEqual([]);
    expect(unstaged.data.patch).toBe("");
    expect(unstaged.data.bytes).toBe(0);
    expect(unstaged.text).toBe("No unstaged changes: the working tree matches the index (staged changes, if any, need staged=true).");
    const staged = await ok(repo.dir, { staged: true });
    expect(staged.data.files).toEqual([]);
    expect(staged.text).toBe("No staged changes: the index matches HEAD (unstaged changes, if any, show without staged).");
    expect((await ok(repo.dir, { path: "a.txt" })).text).toBe(
      "No unstaged changes under a.txt: the working tree matches the index (staged changes, if any, need staged=true).",
    );
    // A path that is not on disk is not an error (it may exist in a commit), but the text says so.
    expect((await ok(repo.dir, { path: "missing.txt" })).text).toBe(
      "No unstaged changes under missing.txt: the working tree matches the index (staged changes, if any, need staged=true).\n" +
        "(Note: missing.txt does not exist in the working tree.)",
    );
  });

  it("context sets the lines around each change, which decides how hunks merge", async () => {
    const repo = editedRepo();
    const zero = await ok(repo.dir, { context: 0 });
    expect(zero.data.files[0]!.hunks).toBe(2);
    expect(zero.data.patch!.split("\n").filter((line) => line.startsWith("@@"))).toEqual(["@@ -2 +2 @@ line 1", "@@ -12 +12 @@ line 11"]);
    const five = await ok(repo.dir, { context: 5 });
    expect(five.data.files[0]!.hunks).toBe(1);
    expect(five.data.patch!.split("\n").filter((line) => line.startsWith("@@"))).toEqual(["@@ -1,15 +1,15 @@"]);
    expect((await ok(repo.dir, { context: 3 })).data).toEqual((await ok(repo.dir)).data);
  });

  it("stat=true returns the summary of every file and no patch", async () => {
    const repo = editedRepo();
    repo.write("b.txt", "bee staged\nand unstaged\n");
    expect(await ok(repo.dir, { stat: true })).toEqual({
      data: {
        mode: "unstaged",
        comparison: "unstaged changes (working tree vs index)",
        base: null,
        target: null,
        path: null,
        files: [
          file({ path: "a.txt", status: "modified", additions: 2, deletions: 2, hunks: null }),
          file({ path: "b.txt", status: "modified", additions: 1, deletions: 0, hunks: null }),
        ],
        totals: { files: 2, additions: 3, deletions: 2, binary: 0, uncounted: 0 },
        fileOffset: 0,
        nextFileOffset: null,
        patch: null,
        offset: 0,
        bytes: null,
        returnedBytes: 0,
        truncated: false,
        nextOffset: null,
        renames: { copies: false, limitExceeded: false, skipped: null },
      },
      text: "Diff of unstaged changes (working tree vs index): 2 files changed, +3 -2\nM a.txt (+2 -2)\nM b.txt (+1 -0)",
    });
  });
});

describe("git_diff: against commits", () => {
  /** main: base -> m1 (adds m.txt); feature (from base): f1 (adds f.txt, edits shared.txt). */
  function branchyRepo(): { repo: TestRepo; base: string; main: string; feature: string } {
    const repo = makeRepo();
    repo.write("shared.txt", "shared\n");
    const base = repo.commit("base");
    repo.git(["checkout", "-q", "-b", "feature"]);
    repo.write("f.txt", "feature\n").write("shared.txt", "shared\nfeature line\n");
    const feature = repo.commit("feature work");
    repo.git(["checkout", "-q", "main"]);
    repo.write("m.txt", "main\n");
    const main = repo.commit("main work");
    return { repo, base, main, feature };
  }

  it("commit alone compares the working tree with it; with staged, the index", async () => {
    const { repo, base } = branchyRepo();
    repo.write("m.txt", "main\nunstaged\n").write("staged.txt", "s\n");
    repo.git(["add", "staged.txt"]);
    const worktree = await ok(repo.dir, { commit: "HEAD~1" });
    expect(worktree.data).toMatchObject({ mode: "commit", comparison: "working tree vs HEAD~1", base, target: null });
    expect(worktree.data.files).toEqual([
      file({ path: "m.txt", status: "added", additions: 2, hunks: 1 }),
      file({ path: "staged.txt", status: "added", additions: 1, hunks: 1 }),
    ]);
    const index = await ok(repo.dir, { commit: "HEAD~1", staged: true });
    expect(index.data).toMatchObject({ mode: "commit", comparison: "staged changes vs HEAD~1", base, target: null });
    expect(index.data.files).toEqual([
      file({ path: "m.txt", status: "added", additions: 1, hunks: 1 }),
      file({ path: "staged.txt", status: "added", additions: 1, hunks: 1 }),
    ]);
    expect((await ok(repo.dir, { commit: "HEAD" })).text).toBe(
      "Diff of working tree vs HEAD: 2 files changed, +2 -0\nM m.txt (+1 -0, 1 hunk)\nA staged.txt (+1 -0, 1 hunk)\n\n" +
        `diff --git a/m.txt b/m.txt\nindex ${blob(repo, "main\n")}..${blob(repo, "main\nunstaged\n")} 100644\n--- a/m.txt\n+++ b/m.txt\n` +
        "@@ -1 +1,2 @@\n main\n+unstaged\n" +
        `diff --git a/staged.txt b/staged.txt\nnew file mode 100644\nindex 0000000..${blob(repo, "s\n")}\n--- /dev/null\n+++ b/staged.txt\n` +
        "@@ -0,0 +1 @@\n+s",
    );
  });

  it("commit + commit2 is three-dot: only commit2's side since the merge base", async () => {
    const { repo, base, main, feature } = branchyRepo();
    const { data, text } = await ok(repo.dir, { commit: "main", commit2: "feature", stat: true });
    expect(data).toMatchObject({ mode: "range", comparison: "changes on feature since its merge base with main", base: main, target: feature });
    expect(data.files).toEqual([
      file({ path: "f.txt", status: "added", additions: 1, hunks: null }),
      file({ path: "shared.txt", status: "modified", additions: 1, hunks: null }),
    ]);
    expect(text).toBe("Diff of changes on feature since its merge base with main: 2 files changed, +2 -0\nA f.txt (+1 -0)\nM shared.txt (+1 -0)");
    // The same written as a range, and compared with the merge base itself.
    expect((await ok(repo.dir, { commit: "main...feature", stat: true })).data.files).toEqual(data.files);
    expect((await ok(repo.dir, { commit: base, commit2: "feature", stat: true })).data.files).toEqual(data.files);
  });

  it("A..B inside commit compares the two snapshots; a missing side means HEAD", async () => {
    const { repo, main, feature } = branchyRepo();
    const twoDot = await ok(repo.dir, { commit: "main..feature", stat: true });
    expect(twoDot.data).toMatchObject({ mode: "range", comparison: "main vs feature", base: main, target: feature });
    const mainToFeature = [
      file({ path: "f.txt", status: "added", additions: 1, hunks: null }),
      file({ path: "m.txt", status: "deleted", deletions: 1, hunks: null }),
      file({ path: "shared.txt", status: "modified", additions: 1, hunks: null }),
    ];
    expect(twoDot.data.files).toEqual(mainToFeature);
    // HEAD is main here: `feature..` is feature..HEAD, `..feature` is HEAD..feature.
    const reverse = await ok(repo.dir, { commit: "feature..", stat: true });
    expect(reverse.data).toMatchObject({ comparison: "feature vs HEAD", base: feature, target: main });
    expect(reverse.data.files.map((f) => [f.path, f.status])).toEqual([
      ["f.txt", "deleted"],
      ["m.txt", "added"],
      ["shared.txt", "modified"],
    ]);
    expect((await ok(repo.dir, { commit: "..feature", stat: true })).data.files).toEqual(mainToFeature);
    expect((await ok(repo.dir, { commit: "feature...", stat: true })).data.files.map((f) => f.path)).toEqual(["m.txt"]);
    expect((await ok(repo.dir, { commit: "main..main" })).text).toBe("No differences: main vs main.");
  });

  it("a two-commit range reads the whole patch with hunks", async () => {
    const { repo, main, feature } = branchyRepo();
    const { data } = await ok(repo.dir, { commit: `${main}..${feature}`, path: "shared.txt" });
    expect(data.files).toEqual([file({ path: "shared.txt", status: "modified", additions: 1, hunks: 1 })]);
    expect(data.patch).toBe(
      `diff --git a/shared.txt b/shared.txt\nindex ${blob(repo, "shared\n")}..${blob(repo, "shared\nfeature line\n")} 100644\n` +
        "--- a/shared.txt\n+++ b/shared.txt\n@@ -1 +1,2 @@\n shared\n+feature line\n",
    );
  });

  it("a path that exists only in history still selects its changes", async () => {
    const repo = makeRepo();
    repo.write("old/notes.txt", "notes\n").write("keep.txt", "k\n");
    const before = repo.commit("with notes");
    repo.remove("old");
    const after = repo.commit("drop notes");
    const { data, text } = await ok(repo.dir, { commit: `${before}..${after}`, path: "old" });
    expect(data.files).toEqual([file({ path: "old/notes.txt", status: "deleted", deletions: 1, hunks: 1 })]);
    expect(text.split("\n").slice(0, 2)).toEqual([
      `Diff of ${before} vs ${after} under old: 1 file changed, +0 -1`,
      "D old/notes.txt (+0 -1, 1 hunk)",
    ]);
  });

  it("fails with bad_revision for an unknown commit, and for three-dot between unrelated histories", async () => {
    const { repo } = branchyRepo();
    expect(await errorOf(repo.dir, { commit: "no-such-branch" })).toEqual({
      code: "bad_revision",
      message: 'commit "no-such-branch" does not name a commit in this repository.',
      hint: "Use git_log to list commits, or give a branch, tag or hash that exists (e.g. HEAD, HEAD~1, main).",
    });
    expect((await errorOf(repo.dir, { commit: "main", commit2: "nope" })).message).toBe('commit2 "nope" does not name a commit in this repository.');
    expect((await errorOf(repo.dir, { commit: "main..nope" })).code).toBe("bad_revision");
    expect((await errorOf(repo.dir, { commit: "HEAD~9" })).code).toBe("bad_revision");

    repo.git(["checkout", "-q", "--orphan", "island"]);
    repo.git(["rm", "-rq", "--cached", "."]);
    repo.remove("shared.txt").remove("m.txt").write("island.txt", "alone\n");
    repo.commit("unrelated root");
    expect(await errorOf(repo.dir, { commit: "main", commit2: "island" })).toEqual({
      code: "bad_revision",
      message: "main and island have no common ancestor, so main...island is undefined.",
      hint: 'Use commit="main..island" to compare the two snapshots directly.',
    });
    expect((await errorOf(repo.dir, { commit: "main...island" })).code).toBe("bad_revision");
    expect((await ok(repo.dir, { commit: "main..island", stat: true })).data.files.map((f) => [f.path, f.status])).toEqual([
      ["island.txt", "added"],
      ["m.txt", "deleted"],
      ["shared.txt", "deleted"],
    ]);
  });
});

describe("splitRange", () => {
  it("splits two- and three-dot ranges, filling a missing side with HEAD as git does", () => {
    expect(splitRange("v1.0..v2.0")).toEqual({ left: "v1.0", right: "v2.0", threeDot: false });
    expect(splitRange("main...topic")).toEqual({ left: "main", right: "topic", threeDot: true });
    expect(splitRange("HEAD~2..")).toEqual({ left: "HEAD~2", right: "HEAD", threeDot: false });
    expect(splitRange("...topic")).toEqual({ left: "HEAD", right: "topic", threeDot: true });
    for (const single of ["HEAD", "v1.0", "HEAD@{1}", "main~3", "..", "..."]) expect(splitRange(single), single).toBeUndefined();
  });
});

describe("git_diff: invalid input", () => {
  it("rejects unknown fields, commit2 without commit, staged with a range, option-like commits", async () => {
    const repo = editedRepo();
    expect(await errorOf(repo.dir, { staged: true, cached: true })).toEqual({
      code: "invalid_input",
      message: 'Invalid input for git_diff: unknown field "cached".',
      hint: "git_diff accepts: staged, commit, commit2, path, maxBytes, offset, stat, context, copies, fileOffset, fileLimit.",
    });
    expect(await errorOf(repo.dir, { commit2: "HEAD", stat: true })).toEqual({
      code: "invalid_input",
      message: "commit2 needs commit.",
      hint: "Pass commit as well: the diff shows commit...commit2.",
    });
    const stagedRange = {
      code: "invalid_input",
      message: "staged cannot be combined with a diff between two commits.",
      hint: "Drop staged, or pass only commit to compare the index against it.",
    };
    expect(await errorOf(repo.dir, { staged: true, commit: "HEAD", commit2: "HEAD" })).toEqual(stagedRange);
    expect(await errorOf(repo.dir, { staged: true, commit: "HEAD..HEAD" })).toEqual(stagedRange);
    expect(await errorOf(repo.dir, { commit: "HEAD..HEAD", commit2: "HEAD" })).toEqual({
      code: "invalid_input",
      message: 'commit "HEAD..HEAD" is already a range, so commit2 cannot be added.',
      hint: "Pass either a range in commit, or commit and commit2.",
    });
    const invalid = [
      { maxBytes: 0 },
      { maxBytes: 10 * 1024 * 1024 + 1 },
      { maxBytes: 1.5 },
      { offset: -1 },
      { context: -1 },
      { context: 1001 },
      { stat: "yes" },
      { staged: 1 },
      { commit: "" },
      { commit: "HEAD\n" },
      { commit: "HEAD", commit2: "" },
      { path: "" },
    ];
    for (const input of invalid) {
      expect((await errorOf(repo.dir, input)).code, JSON.stringify(input)).toBe("invalid_input");
    }
  });

  it("refuses option-like revisions before git sees them, on either side of a range", async () => {
    const repo = editedRepo();
    const target = join(tempDir(), "written-by-git");
    for (const input of [
      { commit: `--output=${target}` },
      { commit: "HEAD", commit2: `--output=${target}` },
      { commit: `HEAD..--output=${target}` },
      { commit: `--output=${target}...HEAD` },
      { commit: "-p" },
    ]) {
      const error = await errorOf(repo.dir, input);
      expect(error.code, JSON.stringify(input)).toBe("invalid_input");
      expect(error.message).toMatch(/starts with "-": revisions cannot look like options\.$/);
    }
    expect(existsSync(target)).toBe(false);
  });
});

describe("git_diff: kinds of change", () => {
  it("reports renames, copies, mode changes, binary files, deletions, creations and type changes", async () => {
    const repo = makeRepo();
    const source = lines(1, 20);
    repo
      .write(
        "rename-me.txt",
        lines(1, 10, (n) => `rename ${n}`),
      )
      .write("source.txt", source)
      .write("run.sh", "echo hi\n")
      .write("image.bin", Buffer.from([0, 1, 2, 3, 4, 5]))
      .write("delete-me.txt", "bye\n")
      .write("becomes-link", "a file\n");
    const before = repo.commit("before");
    repo.git(["mv", "rename-me.txt", "renamed.txt"]);
    repo.write(
      "renamed.txt",
      lines(1, 10, (n) => (n === 10 ? "renamed ten" : `rename ${n}`)),
    );
    repo.write("source.txt", `${source}line 21\n`).write("copy.txt", source); // -C finds copies of modified files
    repo.write("run.sh", "echo hi\n", 0o755);
    repo.write("image.bin", Buffer.from([0, 1, 2, 3, 4, 6])).write("new.bin", Buffer.from([0, 0x7f]));
    repo.remove("delete-me.txt").write("created.txt", "hello\nworld\n");
    repo.remove("becomes-link").symlink("becomes-link", "run.sh");
    const after = repo.commit("after");

    // Like plain git diff, renames only by default: the copy is a plain addition.
    const plain = await ok(repo.dir, { commit: before, commit2: after });
    expect(plain.data.files.find((entry) => entry.path === "copy.txt")).toMatchObject({ status: "added", oldPath: null });
    expect(plain.data.renames).toEqual({ copies: false, limitExceeded: false, skipped: null });

    const { data, text } = await ok(repo.dir, { commit: before, commit2: after, copies: true });
    expect(data.renames).toEqual({ copies: true, limitExceeded: false, skipped: null });
    expect(data.files).toEqual([
      file({ path: "becomes-link", status: "type_changed", additions: 1, deletions: 1, hunks: 2, newMode: "120000" }),
      file({ path: "copy.txt", oldPath: "source.txt", status: "copied" }),
      file({ path: "created.txt", status: "added", additions: 2, hunks: 1 }),
      file({ path: "delete-me.txt", status: "deleted", deletions: 1, hunks: 1 }),
      file({ path: "image.bin", status: "modified", additions: null, deletions: null, binary: true }),
      file({ path: "new.bin", status: "added", additions: null, deletions: null, binary: true }),
      file({ path: "renamed.txt", oldPath: "rename-me.txt", status: "renamed", additions: 1, deletions: 1, hunks: 1 }),
      file({ path: "run.sh", status: "modified", newMode: "100755" }),
      file({ path: "source.txt", status: "modified", additions: 1, hunks: 1 }),
    ]);
    expect(data.totals).toEqual({ files: 9, additions: 5, deletions: 3, binary: 2, uncounted: 0 });
    expect(text.slice(0, text.indexOf("\n\n"))).toBe(
      [
        `Diff of changes on ${after} since its merge base with ${before}: 9 files changed, +5 -3, 2 binary`,
        "T becomes-link (now a symlink, +1 -1, 2 hunks, mode 100644 -> 120000)",
        "C source.txt -> copy.txt (+0 -0)",
        "A created.txt (+2 -0, 1 hunk)",
        "D delete-me.txt (+0 -1, 1 hunk)",
        "M image.bin (binary)",
        "A new.bin (binary)",
        "R rename-me.txt -> renamed.txt (+1 -1, 1 hunk)",
        "M run.sh (+0 -0, mode 100644 -> 100755)",
        "M source.txt (+1 -0, 1 hunk)",
      ].join("\n"),
    );
    expect(data.patch).toBe(
      [
        "diff --git a/becomes-link b/becomes-link",
        "deleted file mode 100644",
        `index ${blob(repo, "a file\n")}..0000000`,
        "--- a/becomes-link",
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
        "-a file",
        // A type change is two sections: the file goes, the link comes.
        "diff --git a/becomes-link b/becomes-link",
        "new file mode 120000",
        `index 0000000..${blob(repo, "run.sh")}`,
        "--- /dev/null",
        "+++ b/becomes-link",
        "@@ -0,0 +1 @@",
        "+run.sh",
        "\\ No newline at end of file",
        "diff --git a/source.txt b/copy.txt",
        "similarity index 100%",
        "copy from source.txt",
        "copy to copy.txt",
        "diff --git a/created.txt b/created.txt",
        "new file mode 100644",
        `index 0000000..${blob(repo, "hello\nworld\n")}`,
        "--- /dev/null",
        "+++ b/created.txt",
        "@@ -0,0 +1,2 @@",
        "+hello",
        "+world",
        "diff --git a/delete-me.txt b/delete-me.txt",
        "deleted file mode 100644",
        `index ${blob(repo, "bye\n")}..0000000`,
        "--- a/delete-me.txt",
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
        "-bye",
        "diff --git a/image.bin b/image.bin",
        `index ${blob(repo, "\0\x01\x02\x03\x04\x05")}..${blob(repo, "\0\x01\x02\x03\x04\x06")} 100644`,
        "Binary files a/image.bin and b/image.bin differ",
        "diff --git a/new.bin b/new.bin",
        "new file mode 100644",
        `index 0000000..${blob(repo, "\0\x7f")}`,
        "Binary files /dev/null and b/new.bin differ",
        "diff --git a/rename-me.txt b/renamed.txt",
        "similarity index 87%",
        "rename from rename-me.txt",
        "rename to renamed.txt",
        `index ${blob(
          repo,
          lines(1, 10, (n) => `rename ${n}`),
        )}..${blob(
          repo,
          lines(1, 10, (n) => (n === 10 ? "renamed ten" : `rename ${n}`)),
        )} 100644`,
        "--- a/rename-me.txt",
        "+++ b/renamed.txt",
        "@@ -7,4 +7,4 @@ rename 6",
        " rename 7",
        " rename 8",
        " rename 9",
        "-rename 10",
        "+renamed ten",
        "diff --git a/run.sh b/run.sh",
        "old mode 100644",
        "new mode 100755",
        "diff --git a/source.txt b/source.txt",
        `index ${blob(repo, source)}..${blob(repo, `${source}line 21\n`)} 100644`,
        "--- a/source.txt",
        "+++ b/source.txt",
        "@@ -18,3 +18,4 @@ line 17",
        " line 18",
        " line 19",
        " line 20",
        "+line 21",
        "",
      ].join("\n"),
    );
  });

  it("keeps exact names with spaces, quotes, tabs, newlines, backslashes, trailing spaces and non-ASCII", async () => {
    const repo = makeRepo();
    const names = [
      " lead.txt",
      "a -> b.txt",
      "back\\slash.txt",
      "héllo wörld ✓.txt",
      "new\nline.txt",
      'q"uote.txt',
      "tab\there.txt",
      "trail.txt ",
      "with space.txt",
    ];
    for (const name of names) repo.write(name, "x\n");
    repo.commit("names");
    for (const name of names) repo.write(name, "y\n");
    const full = await ok(repo.dir);
    expect(full.data.files).toEqual(names.map((path) => file({ path, status: "modified", additions: 1, deletions: 1, hunks: 1 })));
    expect(full.text.slice(0, full.text.indexOf("\n\n"))).toBe(
      [
        "Diff of unstaged changes (working tree vs index): 9 files changed, +9 -9",
        'M " lead.txt" (+1 -1, 1 hunk)',
        'M "a -> b.txt" (+1 -1, 1 hunk)',
        'M "back\\\\slash.txt" (+1 -1, 1 hunk)',
        "M héllo wörld ✓.txt (+1 -1, 1 hunk)",
        'M "new\\nline.txt" (+1 -1, 1 hunk)',
        'M "q\\"uote.txt" (+1 -1, 1 hunk)',
        'M "tab\\there.txt" (+1 -1, 1 hunk)',
        'M "trail.txt " (+1 -1, 1 hunk)',
        "M with space.txt (+1 -1, 1 hunk)",
      ].join("\n"),
    );
    expect(full.data.patch).toContain('diff --git "a/new\\nline.txt" "b/new\\nline.txt"\n');
    expect(full.data.patch).toContain("diff --git a/héllo wörld ✓.txt b/héllo wörld ✓.txt\n");

    // Hunks are read from the sections in a window too, so every name must be matched from the patch text.
    const patch = Buffer.from(full.data.patch!);
    const lastSection = patch.lastIndexOf("diff --git ");
    const cut = await ok(repo.dir, { maxBytes: lastSection + 5 });
    expect(cut.data.files.map((f) => f.hunks)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, null]);

    for (const name of names) {
      const one = await ok(repo.dir, { path: name });
      expect(one.data.files.map((f) => f.path)).toEqual([name]);
    }
  });

  it("shows a merge conflict as one unmerged row per path, with the combined diff's hunks", async () => {
    const repo = makeRepo();
    repo.write("shared.txt", "one\nbase\n").write("theirs-delete.txt", "base\n");
    repo.commit("base");
    repo.git(["checkout", "-q", "-b", "other"]);
    repo.write("shared.txt", "one\nother\n").remove("theirs-delete.txt");
    repo.commit("other");
    repo.git(["checkout", "-q", "main"]);
    repo.write("shared.txt", "one\nmain\n").write("theirs-delete.txt", "main\n");
    repo.commit("main");
    expect(() => repo.git(["merge", "-q", "other"])).toThrow();

    const { data, text } = await ok(repo.dir);
    expect(data.files).toEqual([
      file({ path: "shared.txt", status: "unmerged", additions: 4, hunks: 1, oldMode: null }),
      file({ path: "theirs-delete.txt", status: "unmerged", hunks: 0, oldMode: null }),
    ]);
    expect(text).toBe(
      [
        "Diff of unstaged changes (working tree vs index): 2 files changed, +4 -0",
        "U shared.txt (+4 -0, 1 hunk)",
        "U theirs-delete.txt (+0 -0)",
        "",
        "diff --cc shared.txt",
        `index ${blob(repo, "one\nmain\n")},${blob(repo, "one\nother\n")}..0000000`,
        "--- a/shared.txt",
        "+++ b/shared.txt",
        "@@@ -1,2 -1,2 +1,6 @@@",
        "  one",
        "++<<<<<<< HEAD",
        " +main",
        "++=======",
        "+ other",
        "++>>>>>>> other",
        "* Unmerged path theirs-delete.txt",
      ].join("\n"),
    );
  });
});

describe("git_diff: maxBytes and offset", () => {
  /** Three files whose sections are each a little over 100 bytes. */
  function threeFileRepo(): TestRepo {
    const repo = makeRepo();
    repo.write("one.txt", "1\n").write("two.txt", "2\n").write("three.txt", "3\n");
    repo.commit("initial");
    repo.write("one.txt", "one\n").write("two.txt", "two\n").write("three.txt", "three\n");
    return repo;
  }

  it("cuts the patch, keeps the summary of every file, and says how to continue", async () => {
    const repo = threeFileRepo();
    const whole = (await ok(repo.dir)).data.patch!;
    // git orders the sections one.txt, three.txt, two.txt (ASCII patch, so string indexes are byte offsets).
    const second = whole.indexOf("diff --git a/three.txt");
    expect(second).toBeGreaterThan(whole.indexOf("diff --git a/one.txt"));
    expect(whole.indexOf("diff --git a/two.txt")).toBeGreaterThan(second);
    // The first window ends inside the second section: one.txt is whole, the others are not.
    const maxBytes = second + 20;
    const first = await ok(repo.dir, { maxBytes });
    expect(first.data).toEqual({
      mode: "unstaged",
      comparison: "unstaged changes (working tree vs index)",
      base: null,
      target: null,
      path: null,
      files: [
        file({ path: "one.txt", status: "modified", additions: 1, deletions: 1, hunks: 1 }),
        // Lines are counted from the patch: only for the files whose section the window holds whole.
        file({ path: "three.txt", status: "modified", additions: null, deletions: null, hunks: null, binary: null }),
        file({ path: "two.txt", status: "modified", additions: null, deletions: null, hunks: null, binary: null }),
      ],
      totals: { files: 3, additions: 1, deletions: 1, binary: 0, uncounted: 2 },
      fileOffset: 0,
      nextFileOffset: null,
      patch: whole.slice(0, maxBytes),
      offset: 0,
      bytes: null,
      returnedBytes: maxBytes,
      truncated: true,
      nextOffset: maxBytes,
      renames: { copies: false, limitExceeded: false, skipped: null },
    });
    expect(first.text).toBe(
      [
        "Diff of unstaged changes (working tree vs index): 3 files changed, +1 -1 (2 not counted: outside this part of the patch; stat=true counts every file)",
        "M one.txt (+1 -1, 1 hunk)",
        "M three.txt (not counted)",
        "M two.txt (not counted)",
        "",
        whole.slice(0, maxBytes),
        `[patch truncated: showed bytes 0-${maxBytes} (more follows). Call git_diff with the same arguments and offset=${maxBytes} for the next part, or pass path to narrow it.]`,
      ].join("\n"),
    );

    // The rest holds the end of three.txt's section and all of two.txt's.
    const rest = await ok(repo.dir, { offset: maxBytes });
    expect(rest.data.files.map((f) => [f.path, f.hunks])).toEqual([
      ["one.txt", null],
      ["three.txt", null],
      ["two.txt", 1],
    ]);
    expect(rest.data).toMatchObject({
      patch: whole.slice(maxBytes),
      offset: maxBytes,
      bytes: bytesOf(whole),
      returnedBytes: bytesOf(whole) - maxBytes,
      truncated: false,
      nextOffset: null,
    });
    expect(rest.text).toBe(
      [
        "Diff of unstaged changes (working tree vs index): 3 files changed, +1 -1 (2 not counted: outside this part of the patch; stat=true counts every file)",
        "M one.txt (not counted)",
        "M three.txt (not counted)",
        "M two.txt (+1 -1, 1 hunk)",
        "",
        whole.slice(maxBytes, -1),
        `[end of patch: bytes ${maxBytes}-${bytesOf(whole)} of ${bytesOf(whole)}]`,
      ].join("\n"),
    );
  });

  it("reassembles the exact patch from windows, cuts inside multi-byte characters included", async () => {
    const repo = makeRepo();
    repo.write("accents.txt", "plain\n").write("emoji.txt", "plain\n");
    repo.commit("initial");
    repo.write("accents.txt", "é€ ü ñ ß\nçà€€€\n").write("emoji.txt", "😀🎉 mixed é 😀\n👍👍👍\n");
    const whole = (await ok(repo.dir)).data.patch!;
    expect(bytesOf(whole)).toBeGreaterThan(whole.length); // multi-byte characters are present

    for (const maxBytes of [3, 5, 7, 64]) {
      let offset = 0;
      let joined = "";
      let windows = 0;
      for (;;) {
        const { data } = await ok(repo.dir, { maxBytes, offset });
        expect(data.offset, `maxBytes ${maxBytes}`).toBe(offset);
        expect(bytesOf(data.patch!)).toBe(data.returnedBytes);
        // A window never splits a character; below 4 bytes it may hold one whole character rather than nothing.
        expect(data.returnedBytes).toBeLessThanOrEqual(Math.max(maxBytes, 4));
        expect(data.returnedBytes).toBeGreaterThan(0);
        expect(data.patch).not.toContain("\uFFFD");
        joined += data.patch;
        windows++;
        if (!data.truncated) {
          expect(data.nextOffset).toBeNull();
          expect(data.bytes).toBe(bytesOf(whole));
          break;
        }
        expect(data.nextOffset).toBe(offset + data.returnedBytes);
        offset = data.nextOffset!;
      }
      expect(joined, `maxBytes ${maxBytes}`).toBe(whole);
      expect(windows).toBeGreaterThan(1);
    }
  });

  it("a maxBytes smaller than the next character returns that whole character, so reading always moves on", async () => {
    const repo = makeRepo();
    repo.write("e.txt", "x\n").commit("initial");
    repo.write("e.txt", "x😀y\n");
    const whole = Buffer.from((await ok(repo.dir)).data.patch!);
    const emoji = whole.indexOf(Buffer.from("😀"));
    for (const maxBytes of [1, 2, 3]) {
      const { data, text } = await ok(repo.dir, { offset: emoji, maxBytes });
      expect(data).toMatchObject({ patch: "😀", offset: emoji, returnedBytes: 4, truncated: true, nextOffset: emoji + 4, bytes: null });
      expect(
        text.endsWith(
          `😀\n[patch truncated: showed bytes ${emoji}-${emoji + 4} (more follows). Call git_diff with the same arguments and offset=${emoji + 4} for the next part, or pass path to narrow it.]`,
        ),
      ).toBe(true);
    }
    // An ASCII byte fits: maxBytes is respected exactly.
    expect((await ok(repo.dir, { offset: emoji + 4, maxBytes: 1 })).data).toMatchObject({ patch: "y", returnedBytes: 1, nextOffset: emoji + 5 });
  });

  it("an offset inside a character starts at the next character and reports where", async () => {
    const repo = makeRepo();
    repo.write("e.txt", "x\n").commit("initial");
    repo.write("e.txt", "x😀y\n");
    const whole = (await ok(repo.dir)).data.patch!;
    const emoji = Buffer.from(whole).indexOf(Buffer.from("😀"));
    const { data } = await ok(repo.dir, { offset: emoji + 1 });
    expect(data.offset).toBe(emoji + 4);
    expect(data.patch).toBe("y\n");
    expect(data.files).toEqual([file({ path: "e.txt", status: "modified", additions: null, deletions: null, hunks: null, binary: null })]);
  });

  it("an offset at or past the end returns nothing more, and says so", async () => {
    const repo = editedRepo();
    const whole = (await ok(repo.dir)).data.patch!;
    for (const offset of [bytesOf(whole), bytesOf(whole) + 1000]) {
      const { data, text } = await ok(repo.dir, { offset });
      expect(data).toMatchObject({ patch: "", offset: bytesOf(whole), bytes: bytesOf(whole), returnedBytes: 0, truncated: false, nextOffset: null });
      expect(data.files.map((f) => f.hunks)).toEqual([null]);
      expect(text).toBe(
        "Diff of unstaged changes (working tree vs index): 1 file changed (lines not counted: outside this part of the patch; stat=true counts every file)\n" +
          "M a.txt (not counted)\n\n" +
          `(nothing more to show: the offset is at or past the end of the patch, ${bytesOf(whole)} bytes long)`,
      );
    }
  });

  it("caps the patch at 20 000 bytes by default", async () => {
    const repo = makeRepo();
    repo.write("big.txt", lines(1, 3000)).commit("initial");
    repo.write(
      "big.txt",
      lines(1, 3000, (n) => `changed ${n}`),
    );
    const { data, text } = await ok(repo.dir);
    expect(data).toMatchObject({ offset: 0, returnedBytes: 20_000, truncated: true, nextOffset: 20_000, bytes: null });
    expect(data.files).toEqual([file({ path: "big.txt", status: "modified", additions: null, deletions: null, hunks: null, binary: null })]);
    // stat=true counts it whatever its size.
    expect((await ok(repo.dir, { stat: true })).data.files).toEqual([
      file({ path: "big.txt", status: "modified", additions: 3000, deletions: 3000, hunks: null }),
    ]);
    expect(text.split("\n").at(-1)).toBe(
      "[patch truncated: showed bytes 0-20000 (more follows). Call git_diff with the same arguments and offset=20000 for the next part, or pass path to narrow it.]",
    );
  });

  it("a patch of exactly maxBytes is whole, not truncated", async () => {
    const repo = editedRepo();
    const whole = (await ok(repo.dir)).data.patch!;
    const { data } = await ok(repo.dir, { maxBytes: bytesOf(whole) });
    expect(data).toMatchObject({ patch: whole, truncated: false, nextOffset: null, bytes: bytesOf(whole) });
    expect(data.files[0]!.hunks).toBe(2);
  });
});

describe("git_diff: empty repository and unborn branch", () => {
  it("diffs staged files against nothing before the first commit", async () => {
    const repo = makeRepo();
    expect((await ok(repo.dir)).text).toBe("No unstaged changes: the working tree matches the index (staged changes, if any, need staged=true).");
    const nothing = await ok(repo.dir, { staged: true });
    expect(nothing.data).toMatchObject({ mode: "staged", base: null, files: [], patch: "" });
    expect(nothing.text).toBe("No staged changes: nothing has been added to the index yet (no commits yet).");

    repo.write("first.txt", "hello\n").write("second.txt", "not staged\n");
    repo.git(["add", "first.txt"]);
    const patch = `diff --git a/first.txt b/first.txt\nnew file mode 100644\nindex 0000000..${blob(repo, "hello\n")}\n--- /dev/null\n+++ b/first.txt\n@@ -0,0 +1 @@\n+hello\n`;
    expect(await ok(repo.dir, { staged: true })).toEqual({
      data: {
        mode: "staged",
        comparison: "staged changes (index vs empty tree: no commits yet)",
        base: null,
        target: null,
        path: null,
        files: [file({ path: "first.txt", status: "added", additions: 1, hunks: 1 })],
        totals: { files: 1, additions: 1, deletions: 0, binary: 0, uncounted: 0 },
        fileOffset: 0,
        nextFileOffset: null,
        patch,
        offset: 0,
        bytes: bytesOf(patch),
        returnedBytes: bytesOf(patch),
        truncated: false,
        nextOffset: null,
        renames: { copies: false, limitExceeded: false, skipped: null },
      },
      text: `Diff of staged changes (index vs empty tree: no commits yet): 1 file changed, +1 -0\nA first.txt (+1 -0, 1 hunk)\n\n${patch.slice(0, -1)}`,
    });
    repo.write("first.txt", "hello\nagain\n");
    expect((await ok(repo.dir)).data.files).toEqual([file({ path: "first.txt", status: "modified", additions: 1, hunks: 1 })]);
    expect((await errorOf(repo.dir, { commit: "HEAD" })).code).toBe("bad_revision");
  });
});

describe("git_diff: paths and the workspace", () => {
  function layeredRepo(): TestRepo {
    const repo = makeRepo();
    repo.write("pkg/a.txt", "a\n").write("pkg/deep/b.txt", "b\n").write("pkg/old.txt", "old\nlines\nhere\n").write("outside.txt", "o\n");
    repo.commit("initial");
    repo.write("pkg/a.txt", "a2\n").write("pkg/deep/b.txt", "b2\n").write("outside.txt", "o2\n");
    repo.git(["mv", "pkg/old.txt", "pkg/renamed.txt"]);
    return repo;
  }

  it("limits the diff to a file or a directory", async () => {
    const repo = layeredRepo();
    const dir = await ok(repo.dir, { path: "pkg" });
    expect(dir.data.path).toBe("pkg");
    expect(dir.data.files.map((f) => f.path)).toEqual(["pkg/a.txt", "pkg/deep/b.txt"]);
    expect(dir.text.split("\n")[0]).toBe("Diff of unstaged changes (working tree vs index) under pkg: 2 files changed, +2 -2");
    expect((await ok(repo.dir, { path: "pkg/deep/b.txt" })).data.files.map((f) => f.path)).toEqual(["pkg/deep/b.txt"]);
    expect((await ok(repo.dir, { path: join(repo.dir, "outside.txt") })).data.files.map((f) => f.path)).toEqual(["outside.txt"]);
  });

  it("in a workspace below the top level, shows only its files, named relative to it", async () => {
    const repo = layeredRepo();
    const root = join(repo.dir, "pkg");
    const { data, text } = await ok(root, { commit: "HEAD" });
    expect(data.files).toEqual([
      file({ path: "a.txt", status: "modified", additions: 1, deletions: 1, hunks: 1 }),
      file({ path: "deep/b.txt", status: "modified", additions: 1, deletions: 1, hunks: 1 }),
      file({ path: "renamed.txt", oldPath: "old.txt", status: "renamed" }),
    ]);
    expect(data.patch).toBe(
      `diff --git a/a.txt b/a.txt\nindex ${blob(repo, "a\n")}..${blob(repo, "a2\n")} 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+a2\n` +
        `diff --git a/deep/b.txt b/deep/b.txt\nindex ${blob(repo, "b\n")}..${blob(repo, "b2\n")} 100644\n--- a/deep/b.txt\n+++ b/deep/b.txt\n@@ -1 +1 @@\n-b\n+b2\n` +
        "diff --git a/old.txt b/renamed.txt\nsimilarity index 100%\nrename from old.txt\nrename to renamed.txt\n",
    );
    expect(text.split("\n").slice(0, 4)).toEqual([
      "Diff of working tree vs HEAD: 3 files changed, +2 -2",
      "M a.txt (+1 -1, 1 hunk)",
      "M deep/b.txt (+1 -1, 1 hunk)",
      "R old.txt -> renamed.txt (+0 -0)",
    ]);
    const deep = await ok(root, { path: "deep" });
    expect(deep.data.path).toBe("deep");
    expect(deep.data.files.map((f) => f.path)).toEqual(["deep/b.txt"]);
    expect((await ok(root, { staged: true })).data.files.map((f) => [f.oldPath, f.path])).toEqual([["old.txt", "renamed.txt"]]);
    expect((await errorOf(root, { path: "../outside.txt" })).code).toBe("path_outside_workspace");
  });

  it("refuses paths outside the workspace: ../, an absolute path elsewhere, a symlinked directory leading out", async () => {
    const repo = layeredRepo();
    const outside = tempDir();
    mkdirSync(join(outside, "secret"));
    symlinkSync(join(outside, "secret"), join(repo.dir, "escape"));
    for (const path of ["../", "../elsewhere.txt", "pkg/../../x", outside, join(outside, "secret"), "escape", "escape/file.txt"]) {
      const error = await errorOf(repo.dir, { path });
      expect(error.code, path).toBe("path_outside_workspace");
    }
    expect(await errorOf(repo.dir, { path: "../x" })).toEqual({
      code: "path_outside_workspace",
      message: `path "../x" is outside the workspace ${repo.dir}.`,
      hint: "Give a path relative to the workspace root that stays inside it (no ../, no absolute paths elsewhere, no symlinks leading out).",
    });
  });
});

describe("submodules in the work tree", () => {
  it("lists and counts them as plain git diff does: a new commit 1/1, modified content 0/0, untracked content not at all", async () => {
    const repo = withSubmodules(["moved", "modified", "untracked"], ["moved"]);
    repo.write("modified/s.txt", "changed\n").write("untracked/new.txt", "n\n");
    const numstat = plainGit(repo.dir, ["diff", "--numstat"]).stdout;
    const plain = numstat
      .trim()
      .split("\n")
      .map((line) => line.split("\t"))
      .map(([added, deleted, path]) => ({ path, additions: Number(added), deletions: Number(deleted) }));
    expect(plain).toEqual([
      { path: "modified", additions: 0, deletions: 0 },
      { path: "moved", additions: 1, deletions: 1 },
    ]);
    const toolbox = createToolbox({ root: repo.dir });
    try {
      for (const stat of [false, true]) {
        const result = await toolbox.execute("git_diff", { stat });
        expect(result.ok && result.data.files.map(({ path, additions, deletions }) => ({ path, additions, deletions }))).toEqual(plain);
      }
    } finally {
      await toolbox.close();
    }
  });
});

describe("names that are not UTF-8", () => {
  it("two that read as the same text are not given each other's counts; stat=true counts each as git does", async () => {
    const repo = makeRepo();
    const [e, f] = [Buffer.from([0x6c, 0xe9]), Buffer.from([0x6c, 0xe8])];
    writeFileSync(Buffer.concat([Buffer.from(`${repo.dir}/`), e]), "a\n");
    writeFileSync(Buffer.concat([Buffer.from(`${repo.dir}/`), f]), "a\n");
    repo.commit("first");
    writeFileSync(Buffer.concat([Buffer.from(`${repo.dir}/`), e]), "a\nb\n");
    writeFileSync(Buffer.concat([Buffer.from(`${repo.dir}/`), f]), "a\nb\nc\nd\n");
    const numstat = plainGit(repo.dir, ["diff", "--numstat"])
      .stdout.trim()
      .split("\n")
      .map((line) => Number(line.split("\t")[0]))
      .sort();
    expect(numstat).toEqual([1, 3]);
    const { data } = await ok(repo.dir);
    expect(data.files).toHaveLength(2);
    // Both read as "l\uFFFD": the patch's sections cannot say which is which, so neither is counted from them.
    for (const entry of data.files) expect(entry.additions).toBeNull();
    expect(data.totals.uncounted).toBe(2);
    const counted = (await ok(repo.dir, { stat: true })).data.files.map((entry) => entry.additions).sort();
    expect(counted).toEqual(numstat);
  });
});

describe("git_diff: a name that is not UTF-8", () => {
  it("its U+FFFD form, copied from git_status, is path_not_found and says why, not the false 'no changes' git gives for it", async () => {
    const repo = makeRepo();
    const file = Buffer.concat([Buffer.from(`${repo.dir}/`), Buffer.from("lat\xe9n.txt", "latin1")]);
    writeFileSync(file, "d\n");
    repo.git(["add", "-A"]);
    repo.commit("latin-1 name");
    writeFileSync(file, "d\nx\n");
    const toolbox = createToolbox({ root: repo.dir });
    const status = await toolbox.execute("git_status", {});
    const shown = status.ok ? status.data.entries[0]!.path : "";
    expect(shown).toBe("lat\ufffdn.txt");
    // The name as shown names no file: plain git answers as if nothing changed.
    expect(plainGit(repo.dir, ["diff", "--", shown]).stdout).toBe("");
    const diff = await toolbox.execute("git_diff", { path: shown });
    await toolbox.close();
    expect(diff.ok ? "ok" : diff.error.code).toBe("path_not_found");
    expect(diff.ok ? "" : diff.error.hint).toContain("Give the directory that holds the file");
  });
});
