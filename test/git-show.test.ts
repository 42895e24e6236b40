import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createToolbox,
  type GitShowData,
  type PatchWindow,
  type ShowCommitData,
  type ShowFileData,
  type ShowObjectData,
  type ToolResult,
} from "../src/index.js";
import type { DiffFileSummary } from "../src/git/parse/diff.js";
import { commitAs, makeRepo, mergeAt, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const GRACE = { name: "Grace Hopper", email: "grace@example.org" };
const WEIRD = 'sp ace "q" \u00fc.txt';

/**
 * c1 (root): a.txt, bin.dat (binary), link -> a.txt, dir/x.txt, run.sh (executable)
 * c2: edits a.txt, renames dir/x.txt to dir/y.txt, adds a file with spaces, quotes and non-ASCII in its name
 * c3 (branch side): adds side.txt
 * c4: changes bin.dat, makes a.txt executable
 * c5: merges side
 */
interface ShowRepo {
  repo: TestRepo;
  c1: string;
  c2: string;
  c3: string;
  c4: string;
  c5: string;
}

function buildShowRepo(): ShowRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\ntwo\nthree\n");
  repo.write("bin.dat", Buffer.from([0, 1, 2, 0, 255]));
  repo.symlink("link", "a.txt");
  repo.write("dir/x.txt", "x\n");
  repo.write("run.sh", "#!/bin/sh\necho hi\n", 0o755);
  const c1 = commitAs(repo, "Initial import", { date: "2024-01-01T10:00:00+00:00" });
  repo.write("a.txt", "one\n2\nthree\nfour\n");
  repo.git(["mv", "dir/x.txt", "dir/y.txt"]);
  repo.write(WEIRD, "hello\n");
  const c2 = commitAs(repo, "Edit a, rename x\n\nWhy: because.", {
    date: "2024-01-02T10:00:00+01:00",
    committerDate: "2024-01-02T11:00:00+00:00",
    author: GRACE,
  });
  repo.git(["checkout", "-q", "-b", "side"]);
  repo.write("side.txt", "side\n");
  const c3 = commitAs(repo, "Side work", { date: "2024-01-03T10:00:00+00:00" });
  repo.git(["checkout", "-q", "main"]);
  repo.write("bin.dat", Buffer.from([0, 9, 9, 0, 255]));
  repo.write("a.txt", "one\n2\nthree\nfour\n", 0o755);
  const c4 = commitAs(repo, "Binary and mode", { date: "2024-01-04T10:00:00+00:00" });
  const c5 = mergeAt(repo, "side", "Merge branch 'side'", "2024-01-05T10:00:00+00:00");
  return { repo, c1, c2, c3, c4, c5 };
}

async function show(root: string, input: Record<string, unknown>): Promise<ToolResult<GitShowData>> {
  return (await createToolbox({ root }).execute("git_show", input)) as ToolResult<GitShowData>;
}

function commitData(result: ToolResult<GitShowData>): ShowCommitData {
  if (!result.ok) expect.fail(`git_show failed: ${JSON.stringify(result.error)}`);
  if (result.data.kind !== "commit") expect.fail(`expected a commit, got ${result.data.kind}`);
  return result.data;
}

function fileData(result: ToolResult<GitShowData>): ShowFileData {
  if (!result.ok) expect.fail(`git_show failed: ${JSON.stringify(result.error)}`);
  if (result.data.kind !== "file") expect.fail(`expected a file, got ${result.data.kind}`);
  return result.data;
}

function objectData(result: ToolResult<GitShowData>): ShowObjectData {
  if (!result.ok) expect.fail(`git_show failed: ${JSON.stringify(result.error)}`);
  if (result.data.kind !== "object") expect.fail(`expected a tree or blob, got ${result.data.kind}`);
  return result.data;
}

function errorOf(result: ToolResult<GitShowData>) {
  if (result.ok) expect.fail(`expected an error, got ${result.text}`);
  return result.error;
}

/** A summary row with every flag derived from the status, as git_diff and git_show report it. */
const UNCOUNTED = { additions: null, deletions: null, hunks: null, binary: null } as const;

function row(status: DiffFileSummary["status"], path: string, fields: Partial<DiffFileSummary>): DiffFileSummary {
  return {
    path,
    oldPath: null,
    status,
    additions: 0,
    deletions: 0,
    hunks: 0,
    binary: false,
    created: status === "added",
    deleted: status === "deleted",
    renamed: status === "renamed",
    copied: status === "copied",
    oldMode: status === "added" ? null : "100644",
    newMode: status === "deleted" ? null : "100644",
    ...fields,
  };
}

const C2_PATCH = [
  "diff --git a/a.txt b/a.txt",
  "index 4cb29ea..ea14db2 100644",
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -1,3 +1,4 @@",
  " one",
  "-two",
  "+2",
  " three",
  "+four",
  "diff --git a/dir/x.txt b/dir/y.txt",
  "similarity index 100%",
  "rename from dir/x.txt",
  "rename to dir/y.txt",
  'diff --git "a/sp ace \\"q\\" \u00fc.txt" "b/sp ace \\"q\\" \u00fc.txt"',
  "new file mode 100644",
  "index 0000000..ce01362",
  "--- /dev/null",
  // git ends a name containing a space with a tab on the ---/+++ lines, for patch(1).
  '+++ "b/sp ace \\"q\\" \u00fc.txt"\t',
  "@@ -0,0 +1 @@",
  "+hello",
  "",
].join("\n");

describe("git_show of a commit", () => {
  let r: ShowRepo;
  let c2Commit: ShowCommitData["commit"];
  beforeAll(() => {
    r = buildShowRepo();
    c2Commit = {
      hash: r.c2,
      shortHash: r.c2.slice(0, 7),
      parents: [r.c1],
      author: { ...GRACE, date: "2024-01-02T10:00:00+01:00" },
      committer: { name: "Ada Lovelace", email: "ada@example.com", date: "2024-01-02T11:00:00+00:00" },
      subject: "Edit a, rename x",
      body: "Why: because.",
    };
  });

  const c2Header = () => [
    `commit ${r.c2}`,
    "Author: Grace Hopper <grace@example.org> 2024-01-02T10:00:00+01:00",
    "Commit: Ada Lovelace <ada@example.com> 2024-01-02T11:00:00+00:00",
    "",
    "    Edit a, rename x",
    "",
    "    Why: because.",
  ];
  const c2Summary = (hunks: boolean) => [
    "3 files changed, +3 -1",
    `M a.txt (+2 -1${hunks ? ", 1 hunk" : ""})`,
    "R dir/x.txt -> dir/y.txt (+0 -0)",
    `A "sp ace \\"q\\" \u00fc.txt" (+1 -0${hunks ? ", 1 hunk" : ""})`,
  ];

  it("patch (the default): message, every file's summary and the whole patch", async () => {
    const result = await show(r.repo.dir, { commit: "HEAD~2" });
    expect(result).toEqual({
      ok: true,
      tool: "git_show",
      data: {
        kind: "commit",
        shallowBoundary: false,
        tags: [],
        format: "patch",
        commit: c2Commit,
        diff: {
          files: [
            row("modified", "a.txt", { additions: 2, deletions: 1, hunks: 1 }),
            row("renamed", "dir/y.txt", { oldPath: "dir/x.txt" }),
            row("added", WEIRD, { additions: 1, hunks: 1 }),
          ],
          totals: { files: 3, additions: 3, deletions: 1, binary: 0, uncounted: 0 },
          fileOffset: 0,
          nextFileOffset: null,
          patch: C2_PATCH,
          offset: 0,
          bytes: Buffer.byteLength(C2_PATCH),
          returnedBytes: Buffer.byteLength(C2_PATCH),
          truncated: false,
          nextOffset: null,
          renames: { copies: false, limitExceeded: false, skipped: null },
        },
      },
      text: [...c2Header(), "", ...c2Summary(true), "", C2_PATCH.replace(/\n$/, "")].join("\n"),
    });
  });

  it("format stat: the summary of every file without the patch", async () => {
    const result = await show(r.repo.dir, { commit: r.c2, format: "stat" });
    expect(result).toEqual({
      ok: true,
      tool: "git_show",
      data: {
        kind: "commit",
        shallowBoundary: false,
        tags: [],
        format: "stat",
        commit: c2Commit,
        diff: {
          // Without a patch nothing counts hunks: unknown, not zero.
          files: [
            row("modified", "a.txt", { additions: 2, deletions: 1, hunks: null }),
            row("renamed", "dir/y.txt", { oldPath: "dir/x.txt", hunks: null }),
            row("added", WEIRD, { additions: 1, hunks: null }),
          ],
          totals: { files: 3, additions: 3, deletions: 1, binary: 0, uncounted: 0 },
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
      },
      text: [...c2Header(), "", ...c2Summary(false)].join("\n"),
    });
  });

  it("format metadata: the commit alone", async () => {
    expect(await show(r.repo.dir, { commit: r.c2, format: "metadata" })).toEqual({
      ok: true,
      tool: "git_show",
      data: { kind: "commit", format: "metadata", commit: c2Commit, diff: null, shallowBoundary: false, tags: [] },
      text: c2Header().join("\n"),
    });
  });

  it("the legacy stat flag means format stat; with another format it is a contradiction, refused", async () => {
    const legacy = commitData(await show(r.repo.dir, { commit: r.c2, stat: true }));
    expect(legacy.format).toBe("stat");
    expect(legacy.diff?.patch).toBeNull();
    expect(commitData(await show(r.repo.dir, { commit: r.c2, stat: true, format: "stat" })).format).toBe("stat");
    for (const format of ["patch", "metadata"]) {
      expect(errorOf(await show(r.repo.dir, { commit: r.c2, stat: true, format }))).toEqual({
        code: "invalid_input",
        message: `stat=true asks for format "stat", which contradicts format "${format}".`,
        hint: 'Pass only format (format="stat" is what stat=true means), or drop format.',
      });
    }
    const patch = commitData(await show(r.repo.dir, { commit: r.c2, stat: false, format: "patch" }));
    expect(patch.diff?.patch).toBe(C2_PATCH);
    expect(commitData(await show(r.repo.dir, { commit: r.c2, stat: false })).format).toBe("patch");
  });

  it("an unknown format is invalid_input", async () => {
    const error = errorOf(await show(r.repo.dir, { commit: r.c2, format: "json" }));
    expect(error.code).toBe("invalid_input");
    expect(error.message).toMatch(/^Invalid input for git_show: format: /);
  });

  it("a root commit diffs against the empty tree", async () => {
    const result = await show(r.repo.dir, { commit: r.c1, format: "stat" });
    expect(result).toEqual({
      ok: true,
      tool: "git_show",
      data: {
        kind: "commit",
        shallowBoundary: false,
        tags: [],
        format: "stat",
        commit: {
          hash: r.c1,
          shortHash: r.c1.slice(0, 7),
          parents: [],
          author: { name: "Ada Lovelace", email: "ada@example.com", date: "2024-01-01T10:00:00+00:00" },
          committer: { name: "Ada Lovelace", email: "ada@example.com", date: "2024-01-01T10:00:00+00:00" },
          subject: "Initial import",
          body: "",
        },
        diff: {
          files: [
            row("added", "a.txt", { additions: 3, hunks: null }),
            row("added", "bin.dat", { additions: null, deletions: null, binary: true, hunks: null }),
            row("added", "dir/x.txt", { additions: 1, hunks: null }),
            row("added", "link", { additions: 1, hunks: null, newMode: "120000" }),
            row("added", "run.sh", { additions: 2, hunks: null, newMode: "100755" }),
          ],
          totals: { files: 5, additions: 7, deletions: 0, binary: 1, uncounted: 0 },
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
      },
      text: [
        `commit ${r.c1}`,
        "Author: Ada Lovelace <ada@example.com> 2024-01-01T10:00:00+00:00",
        "",
        "    Initial import",
        "",
        "5 files changed, +7 -0, 1 binary",
        "A a.txt (+3 -0)",
        "A bin.dat (binary)",
        "A dir/x.txt (+1 -0)",
        "A link (symlink, +1 -0)",
        "A run.sh (+2 -0)",
      ].join("\n"),
    });
    const patch = commitData(await show(r.repo.dir, { commit: r.c1 })).diff!.patch!;
    expect(patch).toContain(
      "diff --git a/bin.dat b/bin.dat\nnew file mode 100644\nindex 0000000..5086790\nBinary files /dev/null and b/bin.dat differ\n",
    );
    expect(patch).toContain(
      "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..8d14cbf\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+a.txt\n\\ No newline at end of file\n",
    );
  });

  it("a merge commit shows its diff against the first parent", async () => {
    const patch =
      "diff --git a/side.txt b/side.txt\nnew file mode 100644\nindex 0000000..2299c37\n--- /dev/null\n+++ b/side.txt\n@@ -0,0 +1 @@\n+side\n";
    expect(await show(r.repo.dir, { commit: "main" })).toEqual({
      ok: true,
      tool: "git_show",
      data: {
        kind: "commit",
        shallowBoundary: false,
        tags: [],
        format: "patch",
        commit: {
          hash: r.c5,
          shortHash: r.c5.slice(0, 7),
          parents: [r.c4, r.c3],
          author: { name: "Ada Lovelace", email: "ada@example.com", date: "2024-01-05T10:00:00+00:00" },
          committer: { name: "Ada Lovelace", email: "ada@example.com", date: "2024-01-05T10:00:00+00:00" },
          subject: "Merge branch 'side'",
          body: "",
        },
        diff: {
          files: [row("added", "side.txt", { additions: 1, hunks: 1 })],
          totals: { files: 1, additions: 1, deletions: 0, binary: 0, uncounted: 0 },
          fileOffset: 0,
          nextFileOffset: null,
          patch,
          offset: 0,
          bytes: patch.length,
          returnedBytes: patch.length,
          truncated: false,
          nextOffset: null,
          renames: { copies: false, limitExceeded: false, skipped: null },
        },
      },
      text: [
        `commit ${r.c5}`,
        `Merge: ${r.c4} ${r.c3} (diff shown against the first parent)`,
        "Author: Ada Lovelace <ada@example.com> 2024-01-05T10:00:00+00:00",
        "",
        "    Merge branch 'side'",
        "",
        "1 file changed, +1 -0",
        "A side.txt (+1 -0, 1 hunk)",
        "",
        patch.replace(/\n$/, ""),
      ].join("\n"),
    });
  });

  it("binary changes and mode changes appear in the summary", async () => {
    const data = commitData(await show(r.repo.dir, { commit: r.c4 }));
    expect(data.diff?.files).toEqual([
      row("modified", "a.txt", { oldMode: "100644", newMode: "100755" }),
      row("modified", "bin.dat", { additions: null, deletions: null, binary: true }),
    ]);
    expect(data.diff?.patch).toBe(
      "diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 100755\n" +
        "diff --git a/bin.dat b/bin.dat\nindex 5086790..1f892c3 100644\nBinary files a/bin.dat and b/bin.dat differ\n",
    );
  });

  it("a patch over maxBytes is cut, says how to continue, and the windows add up to the whole patch", async () => {
    const first = await show(r.repo.dir, { commit: r.c2, maxBytes: 100 });
    const head = C2_PATCH.slice(0, 100);
    expect(commitData(first).diff).toEqual({
      files: [
        // Lines and hunks are counted only for files whose section is wholly inside the window.
        row("modified", "a.txt", { ...UNCOUNTED }),
        row("renamed", "dir/y.txt", { oldPath: "dir/x.txt", ...UNCOUNTED }),
        row("added", WEIRD, { ...UNCOUNTED }),
      ],
      totals: { files: 3, additions: 0, deletions: 0, binary: 0, uncounted: 3 },
      fileOffset: 0,
      nextFileOffset: null,
      patch: head,
      offset: 0,
      bytes: null,
      returnedBytes: 100,
      truncated: true,
      nextOffset: 100,
      renames: { copies: false, limitExceeded: false, skipped: null },
    });
    expect(first.ok && first.text).toBe(
      [
        ...c2Header(),
        "",
        "3 files changed (lines not counted: outside this part of the patch; stat=true counts every file)",
        "M a.txt (not counted)",
        "R dir/x.txt -> dir/y.txt (not counted)",
        `A "sp ace \\"q\\" \u00fc.txt" (not counted)`,
        "",
        head,
        `[patch truncated: showed bytes 0-100 (more follows). Call git_show with commit=${r.c2.slice(0, 7)}, maxBytes=100 and offset=100 ` +
          `for the next part, or git_diff with commit=${r.c1.slice(0, 7)}..${r.c2.slice(0, 7)} and path for one file.]`,
      ].join("\n"),
    );

    let offset: number | null = 0;
    let whole = "";
    let calls = 0;
    while (offset !== null) {
      const window: PatchWindow = commitData(await show(r.repo.dir, { commit: r.c2, maxBytes: 100, offset })).diff!;
      expect(window.offset).toBe(offset);
      whole += window.patch;
      offset = window.nextOffset;
      calls++;
    }
    expect(whole).toBe(C2_PATCH);
    expect(calls).toBe(Math.ceil(Buffer.byteLength(C2_PATCH) / 100));
  });

  it("the last window of a patch says where it ends; an offset past the end is an empty window", async () => {
    const bytes = Buffer.from(C2_PATCH);
    const last = await show(r.repo.dir, { commit: r.c2, offset: 300 });
    const rest = bytes.subarray(300).toString();
    expect(commitData(last).diff).toMatchObject({ patch: rest, offset: 300, bytes: bytes.length, truncated: false, nextOffset: null });
    expect(last.ok && last.text.endsWith(`\n\n${rest.replace(/\n$/, "")}\n[end of patch: bytes 300-${bytes.length} of ${bytes.length}]`)).toBe(true);
    const past = commitData(await show(r.repo.dir, { commit: r.c2, offset: 100_000 })).diff!;
    expect(past).toMatchObject({ patch: "", bytes: bytes.length, returnedBytes: 0, truncated: false, nextOffset: null });
  });

  it("an annotated tag, a branch and an abbreviated hash all name the commit", async () => {
    r.repo.git(["tag", "-a", "v1", "-m", "release", r.c2], { env: { GIT_COMMITTER_DATE: "1704200000 +0000" } });
    for (const commit of ["v1", "HEAD~2", "HEAD^2~1", r.c2.slice(0, 10), "side~1"]) {
      expect(commitData(await show(r.repo.dir, { commit, format: "metadata" })).commit.hash, commit).toBe(r.c2);
    }
  });

  it("bad_revision for something that names no object", async () => {
    expect(errorOf(await show(r.repo.dir, { commit: "no-such-thing" }))).toEqual({
      code: "bad_revision",
      message: 'commit "no-such-thing" does not name a commit in this repository.',
      hint: "Use git_log to list commits, or give a branch, tag or hash that exists (e.g. HEAD, HEAD~1, main).",
    });
    expect(errorOf(await show(r.repo.dir, { commit: `${r.c1}:no-such-file` })).code).toBe("bad_revision");
  });

  it("a tree or blob that commit names, directly or through tags (of tags), is what git show prints", async () => {
    const env = { GIT_COMMITTER_DATE: "1704300000 +0000" };
    const blob = r.repo.git(["rev-parse", `${r.c1}:a.txt`]).trim();
    r.repo.git(["tag", "-a", "tree-tag", "-m", "a tree", `${r.c1}^{tree}`], { env });
    r.repo.git(["tag", "-a", "blob-tag", "-m", "a blob", `${r.c1}:a.txt`], { env });
    r.repo.git(["-c", "advice.nestedTag=false", "tag", "-a", "outer-tag", "-m", "a tag of a tag", "tree-tag"], { env });
    const tagged = (name: string) => plainGit(r.repo.dir, ["cat-file", "tag", name]).stdout;
    const tree = r.repo.git(["rev-parse", `${r.c1}^{tree}`]).trim();
    const dir = r.repo.git(["rev-parse", `${r.c1}:dir`]).trim();
    for (const [commit, type, oid, tags] of [
      [blob, "blob", blob, []],
      [`${r.c1}:a.txt`, "blob", blob, []],
      ["blob-tag", "blob", blob, ["blob-tag"]],
      [`${r.c1}^{tree}`, "tree", tree, []],
      [`${r.c1}:dir`, "tree", dir, []],
      ["tree-tag", "tree", tree, ["tree-tag"]],
      ["outer-tag", "tree", tree, ["outer-tag", "tree-tag"]],
    ] as const) {
      const data = objectData(await show(r.repo.dir, { commit }));
      const plain = plainGit(r.repo.dir, ["show", commit]).stdout;
      expect(data.type, commit).toBe(type);
      expect(data.oid, commit).toBe(oid);
      expect(
        data.tags.map((tag) => tag.name),
        commit,
      ).toEqual(tags);
      for (const tag of data.tags) expect(tagged(tag.oid).endsWith(`\n\n${tag.message}`), tag.name).toBe(true);
      if (type === "blob") {
        // git show prints the blob's bytes after the tags' blocks.
        expect(plain.endsWith(data.content!), commit).toBe(true);
        expect(data.content, commit).toBe(plainGit(r.repo.dir, ["cat-file", "blob", data.oid]).stdout);
        expect(data).toMatchObject({ size: data.content!.length, binary: false, entries: null, truncated: false, nextOffset: null });
      } else {
        // git show prints "tree <name>", a blank line, then the names (subtrees with a slash).
        expect(plain.endsWith(`tree ${commit}\n\n${data.entries!.join("\n")}\n`), commit).toBe(true);
        expect(data).toMatchObject({ content: null, entryCount: data.entries!.length, nextFileOffset: null });
      }
    }
    const root = objectData(await show(r.repo.dir, { commit: "outer-tag" }));
    expect(root.entries).toEqual(["a.txt", "bin.dat", "dir/", "link", "run.sh"]);
    const text = (await show(r.repo.dir, { commit: "outer-tag" })) as { text: string };
    expect(text.text).toBe(
      [
        "tag outer-tag",
        "Tagger: Ada Lovelace <ada@example.com> 2024-01-03T16:40:00+00:00",
        "",
        "    a tag of a tag",
        "",
        "tag tree-tag",
        "Tagger: Ada Lovelace <ada@example.com> 2024-01-03T16:40:00+00:00",
        "",
        "    a tree",
        "",
        `Tree outer-tag (tree ${root.oid.slice(0, 12)}, tagged outer-tag -> tree-tag), 5 entries:`,
        "a.txt",
        "bin.dat",
        "dir/",
        "link",
        "run.sh",
      ].join("\n"),
    );
    // Paged like a directory and windowed like a file.
    const page = objectData(await show(r.repo.dir, { commit: "tree-tag", fileOffset: 1, fileLimit: 2 }));
    expect(page).toMatchObject({ entries: ["bin.dat", "dir/"], entryCount: 5, fileOffset: 1, nextFileOffset: 3 });
    const part = objectData(await show(r.repo.dir, { commit: "blob-tag", maxBytes: 4 }));
    expect(part).toMatchObject({ content: "one\n", offset: 0, returnedBytes: 4, truncated: true, nextOffset: 4 });
    // A workspace below the top level reads no tree or blob, which could lie outside it.
    for (const commit of ["tree-tag", `${r.c1}:a.txt`, `${r.c1}:dir`]) {
      expect(errorOf(await show(join(r.repo.dir, "dir"), { commit })).code, commit).toBe("bad_revision");
    }
    r.repo.git(["tag", "-d", "tree-tag", "blob-tag", "outer-tag"]);
  });

  it("commit is required and option-like values are refused before git sees them", async () => {
    expect(errorOf(await show(r.repo.dir, {})).code).toBe("invalid_input");
    const outside = join(tempDir(), "written-by-git");
    for (const commit of [`--output=${outside}`, "-p", ""]) {
      expect(errorOf(await show(r.repo.dir, { commit })).code, commit).toBe("invalid_input");
    }
    expect(existsSync(outside)).toBe(false);
  });
});

describe("git_show of a path at a commit", () => {
  let r: ShowRepo;
  beforeAll(() => {
    r = buildShowRepo();
  });

  const fileBase = (commit: string, path: string) => ({
    kind: "file" as const,
    commit,
    path,
    size: null,
    binary: false,
    content: null,
    entries: null,
    entryCount: null,
    fileOffset: 0,
    nextFileOffset: null,
    submoduleCommit: null,
    offset: 0,
    returnedBytes: 0,
    truncated: false,
    nextOffset: null,
  });

  it("a file: its content, size and mode as it was at that commit", async () => {
    expect(await show(r.repo.dir, { commit: r.c1, path: "a.txt" })).toEqual({
      ok: true,
      tool: "git_show",
      data: { ...fileBase(r.c1, "a.txt"), type: "file", mode: "100644", size: 14, content: "one\ntwo\nthree\n", returnedBytes: 14 },
      text: `File a.txt at ${r.c1} (${r.c1.slice(0, 12)}), 14 bytes:\n│ one\n│ two\n│ three\n[end of file]`,
    });
    expect(fileData(await show(r.repo.dir, { commit: "HEAD", path: "a.txt" })).content).toBe("one\n2\nthree\nfour\n");
  });

  it("format patch or stat does not change what a path shows", async () => {
    for (const format of ["patch", "stat"]) {
      expect(fileData(await show(r.repo.dir, { commit: r.c1, path: "a.txt", format })).content).toBe("one\ntwo\nthree\n");
    }
  });

  it("metadata with path is refused with a clear invalid_input", async () => {
    expect(errorOf(await show(r.repo.dir, { commit: r.c1, path: "a.txt", format: "metadata" }))).toEqual({
      code: "invalid_input",
      message: 'format "metadata" describes a commit, not a file, so it cannot be combined with path.',
      hint: "Omit path to see the commit's metadata, or omit format to read the file at that commit.",
    });
  });

  it("an executable file says so", async () => {
    const result = await show(r.repo.dir, { commit: "HEAD", path: "run.sh" });
    expect(result.ok && result.text).toBe(`File run.sh at HEAD (${r.c5.slice(0, 12)}), 18 bytes, executable:\n│ #!/bin/sh\n│ echo hi\n[end of file]`);
  });

  it("a binary file: size and binary, no content", async () => {
    expect(await show(r.repo.dir, { commit: r.c1, path: "bin.dat" })).toEqual({
      ok: true,
      tool: "git_show",
      data: { ...fileBase(r.c1, "bin.dat"), type: "file", mode: "100644", size: 5, binary: true },
      text: `Binary file bin.dat at ${r.c1} (${r.c1.slice(0, 12)}), 5 bytes: content not shown.`,
    });
  });

  it("a symlink is reported as a symlink with its target text", async () => {
    expect(await show(r.repo.dir, { commit: "HEAD", path: "link" })).toEqual({
      ok: true,
      tool: "git_show",
      data: { ...fileBase(r.c5, "link"), type: "symlink", mode: "120000", size: 5, content: "a.txt", returnedBytes: 5 },
      text: `Symlink link at HEAD (${r.c5.slice(0, 12)}) -> a.txt`,
    });
    // The target is never cut, whatever maxBytes says.
    expect(fileData(await show(r.repo.dir, { commit: "HEAD", path: "link", maxBytes: 2 })).content).toBe("a.txt");
  });

  it("a directory lists its entries, subdirectories with a slash", async () => {
    expect(await show(r.repo.dir, { commit: r.c1, path: "dir" })).toEqual({
      ok: true,
      tool: "git_show",
      data: { ...fileBase(r.c1, "dir"), type: "directory", mode: "040000", entries: ["x.txt"], entryCount: 1 },
      text: `Directory dir at ${r.c1} (${r.c1.slice(0, 12)}), 1 entry:\nx.txt`,
    });
    expect(await show(r.repo.dir, { commit: r.c2, path: "." })).toEqual({
      ok: true,
      tool: "git_show",
      data: {
        ...fileBase(r.c2, "."),
        type: "directory",
        mode: "040000",
        entries: ["a.txt", "bin.dat", "dir/", "link", "run.sh", WEIRD],
        entryCount: 6,
      },
      text: `Directory . at ${r.c2} (${r.c2.slice(0, 12)}), 6 entries:\na.txt\nbin.dat\ndir/\nlink\nrun.sh\n"sp ace \\"q\\" \u00fc.txt"`,
    });
  });

  it("a path missing at that commit is path_not_found, even if it exists now", async () => {
    expect(errorOf(await show(r.repo.dir, { commit: r.c1, path: WEIRD }))).toEqual({
      code: "path_not_found",
      message: `"sp ace \\"q\\" \u00fc.txt" does not exist at commit ${r.c1.slice(0, 12)}.`,
      hint: "Check the path with git_show on a directory, or find when it existed with git_log and path.",
    });
    expect(errorOf(await show(r.repo.dir, { commit: r.c2, path: "dir/x.txt" })).code).toBe("path_not_found");
    expect(errorOf(await show(r.repo.dir, { commit: r.c1, path: "a.txt/below-a-file" })).code).toBe("path_not_found");
  });

  it("a path gone from the working tree can still be read at an older commit", async () => {
    expect(fileData(await show(r.repo.dir, { commit: r.c1, path: "dir/x.txt" })).content).toBe("x\n");
  });

  it("file content over maxBytes is cut with the same continuation as patches", async () => {
    const first = await show(r.repo.dir, { commit: "HEAD", path: "run.sh", maxBytes: 5 });
    expect(first).toEqual({
      ok: true,
      tool: "git_show",
      data: {
        ...fileBase(r.c5, "run.sh"),
        type: "file",
        mode: "100755",
        size: 18,
        content: "#!/bi",
        returnedBytes: 5,
        truncated: true,
        nextOffset: 5,
      },
      text:
        `File run.sh at HEAD (${r.c5.slice(0, 12)}), 18 bytes, executable:\n│ #!/bi\n` +
        "[content truncated: showed bytes 0-5 of 18. Call git_show with the same commit and path and maxBytes=5 and offset=5 for the rest.]",
    });
    let offset: number | null = 0;
    let whole = "";
    while (offset !== null) {
      const window: ShowFileData = fileData(await show(r.repo.dir, { commit: "HEAD", path: "run.sh", maxBytes: 5, offset }));
      whole += window.content;
      offset = window.nextOffset;
    }
    expect(whole).toBe("#!/bin/sh\necho hi\n");
    const last = await show(r.repo.dir, { commit: "HEAD", path: "run.sh", maxBytes: 5, offset: 15 });
    expect(last.ok && last.text).toBe(`File run.sh at HEAD (${r.c5.slice(0, 12)}), 18 bytes, executable:\n│ hi\n[end of file: bytes 15-18 of 18]`);
    const past = await show(r.repo.dir, { commit: "HEAD", path: "run.sh", offset: 50 });
    expect(past.ok && past.text).toBe(
      `File run.sh at HEAD (${r.c5.slice(0, 12)}), 18 bytes, executable: nothing more to show, the offset is at or past its end.`,
    );
  });

  it("bad_revision, path_outside_workspace and option-like paths", async () => {
    expect(errorOf(await show(r.repo.dir, { commit: "nope", path: "a.txt" })).code).toBe("bad_revision");
    expect(errorOf(await show(r.repo.dir, { commit: "HEAD", path: "../outside.txt" })).code).toBe("path_outside_workspace");
    expect(errorOf(await show(r.repo.dir, { commit: "HEAD", path: "/etc/passwd" })).code).toBe("path_outside_workspace");
    expect(errorOf(await show(r.repo.dir, { commit: "HEAD", path: "--output=x" })).code).toBe("path_not_found");
    expect(errorOf(await show(r.repo.dir, { commit: "HEAD", path: "" })).code).toBe("invalid_input");
  });
});

describe("git_show edge cases", () => {
  it("a submodule gitlink reports the commit it points to", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n");
    repo.commit("first");
    const pointed = "1234567890abcdef1234567890abcdef12345678";
    repo.git(["update-index", "--add", "--cacheinfo", `160000,${pointed},vendor/lib`]);
    const commit = repo.commit("add submodule", { all: false });
    const result = await show(repo.dir, { commit: "HEAD", path: "vendor/lib" });
    expect(result).toEqual({
      ok: true,
      tool: "git_show",
      data: {
        kind: "file",
        commit,
        path: "vendor/lib",
        type: "submodule",
        mode: "160000",
        size: null,
        binary: false,
        content: null,
        entries: null,
        entryCount: null,
        fileOffset: 0,
        nextFileOffset: null,
        submoduleCommit: pointed,
        offset: 0,
        returnedBytes: 0,
        truncated: false,
        nextOffset: null,
      },
      text: `Submodule vendor/lib at HEAD (${commit.slice(0, 12)}) points to commit ${pointed}.`,
    });
    expect(fileData(await show(repo.dir, { commit: "HEAD", path: "vendor" })).entries).toEqual(["lib"]);
    expect(commitData(await show(repo.dir, { commit: "HEAD", format: "stat" })).diff?.files).toEqual([
      row("added", "vendor/lib", { additions: 1, hunks: null, newMode: "160000" }),
    ]);
  });

  it("a root that is a subdirectory: paths relative to it, and the commit's diff limited to it", async () => {
    const repo = makeRepo();
    repo.write("top.txt", "top\n");
    repo.write("pkg/src/main.ts", "main\n");
    repo.write("pkg/README.md", "readme\n");
    const commit = repo.commit("layout");
    const root = join(repo.dir, "pkg");
    expect(fileData(await show(root, { commit: "HEAD", path: "src/main.ts" })).content).toBe("main\n");
    expect(fileData(await show(root, { commit: "HEAD", path: "." })).entries).toEqual(["README.md", "src/"]);
    expect(errorOf(await show(root, { commit: "HEAD", path: "../top.txt" })).code).toBe("path_outside_workspace");
    const result = await show(root, { commit: "HEAD", format: "stat" });
    const data = commitData(result);
    expect(data.commit.hash).toBe(commit);
    expect(data.diff?.files.map((file) => file.path)).toEqual(["README.md", "src/main.ts"]);
    expect(result.ok && result.text.split("\n").slice(-4)).toEqual([
      "2 files changed, +2 -0",
      "A README.md (+1 -0)",
      "A src/main.ts (+1 -0)",
      "(only files under the workspace root pkg are shown)",
    ]);
  });

  it("file names with newlines, quotes and non-ASCII survive both ways", async () => {
    const repo = makeRepo();
    const name = 'new\nline "\u65e5\u672c" \\ back.txt';
    repo.write(name, "content\n");
    repo.commit("weird");
    const data = commitData(await show(repo.dir, { commit: "HEAD" }));
    expect(data.diff?.files).toEqual([row("added", name, { additions: 1, hunks: 1 })]);
    const file = await show(repo.dir, { commit: "HEAD", path: name });
    expect(fileData(file).content).toBe("content\n");
    expect(file.ok && file.text).toBe(
      `File "new\\nline \\"\u65e5\u672c\\" \\\\ back.txt" at HEAD (${repo.head().slice(0, 12)}), 8 bytes:\n│ content\n[end of file]`,
    );
  });

  it("content that is not UTF-8 does not crash: invalid bytes become U+FFFD", async () => {
    const repo = makeRepo();
    repo.write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    repo.commit("latin-1");
    expect(fileData(await show(repo.dir, { commit: "HEAD", path: "latin1.txt" }))).toMatchObject({
      size: 5,
      binary: false,
      content: "caf\ufffd\n",
      returnedBytes: 5,
    });
    expect(commitData(await show(repo.dir, { commit: "HEAD" })).diff?.patch).toContain("\n+caf\ufffd\n");
  });

  it("a cut never splits a UTF-8 character, and a tiny maxBytes still makes progress", async () => {
    const repo = makeRepo();
    repo.write("accents.txt", "\u00e9\u00e9\u00e9\u00e9"); // 8 bytes, 2 per character
    repo.commit("accents");
    const first = fileData(await show(repo.dir, { commit: "HEAD", path: "accents.txt", maxBytes: 3 }));
    expect(first).toMatchObject({ content: "\u00e9", offset: 0, returnedBytes: 2, truncated: true, nextOffset: 2 });
    // maxBytes smaller than one character still returns whole characters (at most 4 bytes) and moves on.
    const tiny = fileData(await show(repo.dir, { commit: "HEAD", path: "accents.txt", maxBytes: 1, offset: 2 }));
    expect(tiny).toMatchObject({ content: "\u00e9\u00e9", offset: 2, returnedBytes: 4, truncated: true, nextOffset: 6 });
    // An offset inside a character moves forward to the next whole one.
    const inside = fileData(await show(repo.dir, { commit: "HEAD", path: "accents.txt", offset: 1 }));
    expect(inside).toMatchObject({ content: "\u00e9\u00e9\u00e9", offset: 2, returnedBytes: 6, truncated: false, nextOffset: null });
  });

  it("an empty file and an empty commit are answers", async () => {
    const repo = makeRepo();
    repo.write("empty.txt", "");
    repo.commit("empty file");
    const empty = await show(repo.dir, { commit: "HEAD", path: "empty.txt" });
    expect(fileData(empty)).toMatchObject({ size: 0, content: "", binary: false, truncated: false });
    expect(empty.ok && empty.text).toBe(`File empty.txt at HEAD (${repo.head().slice(0, 12)}), 0 bytes, empty.`);
    const commit = repo.commit("nothing", { allowEmpty: true });
    const result = await show(repo.dir, { commit: "HEAD" });
    expect(commitData(result).diff).toEqual({
      files: [],
      totals: { files: 0, additions: 0, deletions: 0, binary: 0, uncounted: 0 },
      fileOffset: 0,
      nextFileOffset: null,
      patch: "",
      offset: 0,
      bytes: 0,
      returnedBytes: 0,
      truncated: false,
      nextOffset: null,
      renames: { copies: false, limitExceeded: false, skipped: null },
    });
    expect(result.ok && result.text).toBe(
      [`commit ${commit}`, "Author: Ada Lovelace <ada@example.com> 2024-01-01T00:01:00+00:00", "", "    nothing", "", "0 files changed, +0 -0"].join(
        "\n",
      ),
    );
  });

  it("an empty repository has no commit to show: bad_revision", async () => {
    const repo = makeRepo();
    expect(errorOf(await show(repo.dir, { commit: "HEAD" })).code).toBe("bad_revision");
  });
});

describe("a path through a directory that is now a symbolic link", () => {
  // `old/f` was committed; `old` is now a link to `new` (not committed). git names `old/f` as written: in history it
  // is the committed file, in the work tree it is deleted. Resolved through today's link it would be `new/f`.
  it("names the path as written, as plain git does, in history and in the work tree", async () => {
    const repo = makeRepo();
    repo.write("old/f", "OLD\n").write("new/f", "NEW\n").commit("one");
    repo.remove("old").symlink("old", "new");
    expect(plainGit(repo.dir, ["show", "HEAD:old/f"]).stdout).toBe("OLD\n");
    expect(plainGit(repo.dir, ["status", "--porcelain", "--", "old/f"]).stdout).toBe(" D old/f\n");

    const file = fileData(await show(repo.dir, { commit: "HEAD", path: "old/f" }));
    expect({ path: file.path, content: file.content }).toEqual({ path: "old/f", content: "OLD\n" });
    const toolbox = createToolbox({ root: repo.dir });
    try {
      const log = await toolbox.execute("git_log", { path: "old/f" });
      expect(log.ok && log.data.limitedTo).toBe("old/f");
      const status = await toolbox.execute("git_status", { path: "old/f" });
      expect(status.ok && status.data.entries.map((entry) => [entry.path, entry.worktree])).toEqual([["old/f", "D"]]);
    } finally {
      await toolbox.close();
    }
  });
});

describe("an annotated tag", () => {
  it("is shown before its commit, as plain git show prints it; a lightweight tag and a commit have none", async () => {
    const repo = makeRepo();
    const commit = repo.write("a.txt", "a\n").commit("one");
    const env = { GIT_COMMITTER_NAME: "Rel Eng", GIT_COMMITTER_EMAIL: "rel@example.com", GIT_COMMITTER_DATE: "2024-01-01T10:00:00+02:00" };
    repo.git(["tag", "-a", "v1", "-m", "Release one\n\nNotes here."], { env });
    repo.git(["tag", "light"]);
    const plain = plainGit(repo.dir, ["show", "-s", "v1"]).stdout;
    expect(plain).toMatch(
      /^tag v1\nTagger: Rel Eng <rel@example.com>\nDate: {3}Mon Jan 1 10:00:00 2024 \+0200\n\nRelease one\n\nNotes here.\n\ncommit /,
    );
    const tagObject = repo.git(["rev-parse", "v1"]).trim();

    for (const format of ["patch", "metadata"] as const) {
      const data = commitData(await show(repo.dir, { commit: "v1", format }));
      expect(data.commit.hash).toBe(commit);
      expect(data.tags).toEqual([
        {
          name: "v1",
          oid: tagObject,
          tagger: { name: "Rel Eng", email: "rel@example.com", date: "2024-01-01T10:00:00+02:00" },
          message: "Release one\n\nNotes here.\n",
          truncated: false,
        },
      ]);
    }
    const text = (await show(repo.dir, { commit: "v1" })) as { text: string };
    expect(
      text.text.startsWith("tag v1\nTagger: Rel Eng <rel@example.com> 2024-01-01T10:00:00+02:00\n\n    Release one\n\n    Notes here.\n\ncommit "),
    ).toBe(true);
    for (const revision of ["light", commit, "v1^{}", "HEAD"]) expect(commitData(await show(repo.dir, { commit: revision })).tags).toEqual([]);
  });

  it("a tag of a tag is shown with both, outermost first, as plain git show prints them", async () => {
    const repo = makeRepo();
    const commit = repo.write("a.txt", "a\n").commit("one");
    const env = { GIT_COMMITTER_NAME: "Rel Eng", GIT_COMMITTER_EMAIL: "rel@example.com", GIT_COMMITTER_DATE: "2024-01-01T10:00:00+02:00" };
    repo.git(["tag", "-a", "inner", "-m", "Inner notes"], { env });
    repo.git(["-c", "advice.nestedTag=false", "tag", "-a", "outer", "-m", "Outer notes", "inner"], { env });
    const plain = plainGit(repo.dir, ["show", "-s", "outer"]).stdout;
    expect(plain).toMatch(/^tag outer\n[\s\S]*\nOuter notes\n\ntag inner\n[\s\S]*\nInner notes\n\ncommit /);
    for (const format of ["patch", "metadata"] as const) {
      const answer = await show(repo.dir, { commit: "outer", format });
      const data = commitData(answer);
      expect(data.commit.hash).toBe(commit);
      expect(data.tags.map((tag) => [tag.name, tag.message])).toEqual([
        ["outer", "Outer notes\n"],
        ["inner", "Inner notes\n"],
      ]);
      const text = (answer as { text: string }).text;
      expect(text.indexOf("tag outer")).toBe(0);
      expect(text.indexOf("tag outer") < text.indexOf("tag inner") && text.indexOf("tag inner") < text.indexOf(`commit ${commit}`)).toBe(true);
    }
    expect(commitData(await show(repo.dir, { commit: "inner", format: "metadata" })).tags.map((tag) => tag.name)).toEqual(["inner"]);
  });

  it("a tag whose name looks like an abbreviated id (2024) is the tag, loose or packed, as for git; a short id is the commit", async () => {
    for (const pack of [false, true]) {
      const repo = makeRepo();
      const commit = repo.write("a.txt", "a\n").commit("one");
      repo.git(["tag", "-a", "2024", "-m", "year release"]);
      if (pack) repo.git(["pack-refs", "--all"]);
      expect(plainGit(repo.dir, ["show", "-s", "2024"]).stdout).toMatch(/^tag 2024\n/);
      expect(commitData(await show(repo.dir, { commit: "2024", format: "metadata" })).tags).toMatchObject([
        { name: "2024", message: "year release\n" },
      ]);
      expect(commitData(await show(repo.dir, { commit: commit.slice(0, 7), format: "metadata" })).tags).toEqual([]);
    }
  });
});

describe("a show stopped by the caller", () => {
  it("leaves no failure unhandled: the tag lookup beside the commit is stopped too", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("one");
    repo.git(["tag", "-a", "v1", "-m", "one"]);
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", record);
    const toolbox = createToolbox({ root: repo.dir });
    try {
      for (let i = 0; i < 20; i++) {
        const stop = new AbortController();
        const call = toolbox.execute("git_show", { commit: "v1" }, { signal: stop.signal });
        setTimeout(() => stop.abort(new Error("stopped")), i * 0.5);
        // The caller's own reason comes back (as for every call its signal stops), or the answer when it was first.
        const result = await call.catch((error: Error) => error.message);
        expect(result === "stopped" || (typeof result === "object" && result.ok)).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
      await toolbox.close();
    }
  });
});
