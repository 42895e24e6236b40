import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, type GitStatusData, type StatusEntry, type ToolResult } from "../src/index.js";
import { cloneRepo, fixtureEnv, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

async function status(root: string, input: Record<string, unknown> = {}): Promise<ToolResult<GitStatusData>> {
  return (await createToolbox({ root }).execute("git_status", input)) as ToolResult<GitStatusData>;
}

/** The successful result, or a failed assertion showing the error. */
async function ok(root: string, input: Record<string, unknown> = {}): Promise<{ data: GitStatusData; text: string }> {
  const result = await status(root, input);
  if (!result.ok) expect.fail(`git_status failed: ${JSON.stringify(result.error)}`);
  return { data: result.data, text: result.text };
}

function entry(path: string, index: string, worktree: string, kind: StatusEntry["kind"], origPath: string | null = null): StatusEntry {
  return {
    path,
    origPath,
    index,
    worktree,
    kind,
    staged: kind !== "conflicted" && kind !== "untracked" && index !== ".",
    unstaged: kind === "conflicted" || (kind !== "untracked" && worktree !== "."),
  };
}

const NO_UPSTREAM = { upstream: null, ahead: null, behind: null };

/** A repository with one commit holding a few files. */
function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo
    .write("keep.txt", "keep\n")
    .write("edit.txt", "one\ntwo\n")
    .write("both.txt", "both\n")
    .write("gone.txt", "gone\n")
    .write("staged-gone.txt", "staged gone\n")
    .write("old-name.txt", "a file that will be renamed\nwith enough lines\nto be detected\n")
    .write("link-me.txt", "becomes a symlink\n");
  repo.commit("initial");
  return repo;
}

describe("git_status: a clean tree", () => {
  it("says so plainly, with the branch", async () => {
    const repo = committedRepo();
    expect(await ok(repo.dir)).toEqual({
      data: {
        branch: { head: "main", oid: repo.head(), detached: false, ...NO_UPSTREAM },
        clean: true,
        entries: [],
        counts: { staged: 0, unstaged: 0, untracked: 0, conflicted: 0, total: 0 },
        offset: 0,
        nextOffset: null,
        path: null,
        neutralised: [],
      },
      text: "On branch main\nWorking tree clean: nothing staged, nothing modified, no untracked files.",
    });
  });

  it("does not claim there are no untracked files when untracked=no hid them", async () => {
    const repo = committedRepo();
    repo.write("scratch.txt", "not tracked\n");
    const { data, text } = await ok(repo.dir, { untracked: "no" });
    expect(data.clean).toBe(true);
    expect(data.entries).toEqual([]);
    expect(text).toBe("On branch main\nWorking tree clean: nothing staged, nothing modified, untracked files not checked (untracked=no).");
  });

  it("gives git's own long text with short=false", async () => {
    const repo = committedRepo();
    const { data, text } = await ok(repo.dir, { short: false });
    expect(data.clean).toBe(true);
    expect(text).toBe("On branch main\nnothing to commit, working tree clean");
  });
});

describe("git_status: independent of the repository's formatting config", () => {
  it("gives the same data and text whatever colour, prefix, hint and rename settings the repository has", async () => {
    const plain = committedRepo();
    const styled = committedRepo();
    styled.git(["config", "color.status", "always"]);
    styled.git(["config", "color.ui", "always"]);
    styled.git(["config", "status.displayCommentPrefix", "true"]);
    styled.git(["config", "advice.statusHints", "false"]);
    styled.git(["config", "status.relativePaths", "true"]);
    styled.git(["config", "status.renames", "false"]);
    styled.git(["config", "status.showUntrackedFiles", "no"]);
    for (const repo of [plain, styled]) {
      repo.write("edit.txt", "one\nchanged\n").write("new.txt", "new\n");
      repo.git(["mv", "old-name.txt", "renamed.txt"]);
    }
    for (const input of [{}, { short: false }]) {
      const expected = await ok(plain.dir, input);
      const actual = await ok(styled.dir, input);
      expect(actual.text).toBe(expected.text);
      expect({ ...actual.data, branch: null }).toEqual({ ...expected.data, branch: null });
    }
    expect((await ok(styled.dir, { short: false })).text).toBe(
      [
        "On branch main",
        "Changes to be committed:",
        '  (use "git restore --staged <file>..." to unstage)',
        "\trenamed:    old-name.txt -> renamed.txt",
        "",
        "Changes not staged for commit:",
        '  (use "git add <file>..." to update what will be committed)',
        '  (use "git restore <file>..." to discard changes in working directory)',
        "\tmodified:   edit.txt",
        "",
        "Untracked files:",
        '  (use "git add <file>..." to include in what will be committed)',
        "\tnew.txt",
      ].join("\n"),
    );
  });
});

describe("git_status: entries", () => {
  /** Every kind of change except conflicts, staged and unstaged. */
  function busyRepo(): TestRepo {
    const repo = committedRepo();
    repo.write("edit.txt", "one\nTWO\n"); // unstaged modification
    repo.write("both.txt", "both staged\n");
    repo.git(["add", "both.txt"]);
    repo.write("both.txt", "both staged\nthen edited\n"); // staged and unstaged
    repo.remove("gone.txt"); // unstaged deletion
    repo.git(["rm", "-q", "staged-gone.txt"]); // staged deletion
    repo.git(["mv", "old-name.txt", "new-name.txt"]); // staged rename
    repo.remove("link-me.txt").symlink("link-me.txt", "keep.txt"); // unstaged type change
    repo.write("added.txt", "new\n");
    repo.git(["add", "added.txt"]); // staged addition
    repo.write("intent.txt", "intent\n");
    repo.git(["add", "-N", "intent.txt"]); // intent to add
    repo.write("added-gone.txt", "short-lived\n");
    repo.git(["add", "added-gone.txt"]);
    repo.remove("added-gone.txt"); // added, then deleted from the work tree
    repo.write("untracked.txt", "?\n").write("newdir/one.txt", "1\n").write("newdir/two.txt", "2\n");
    return repo;
  }

  it("reports every kind with its index and work-tree codes, flags and counts", async () => {
    const repo = busyRepo();
    const { data, text } = await ok(repo.dir);
    expect(data).toEqual({
      branch: { head: "main", oid: repo.head(), detached: false, ...NO_UPSTREAM },
      clean: false,
      entries: [
        entry("added-gone.txt", "A", "D", "added"),
        entry("added.txt", "A", ".", "added"),
        entry("both.txt", "M", "M", "modified"),
        entry("edit.txt", ".", "M", "modified"),
        entry("gone.txt", ".", "D", "deleted"),
        entry("intent.txt", ".", "A", "added"),
        { ...entry("link-me.txt", ".", "T", "type_changed"), symlink: true },
        entry("new-name.txt", "R", ".", "renamed", "old-name.txt"),
        entry("staged-gone.txt", "D", ".", "deleted"),
        entry("newdir/one.txt", "?", "?", "untracked"),
        entry("newdir/two.txt", "?", "?", "untracked"),
        entry("untracked.txt", "?", "?", "untracked"),
      ],
      counts: { staged: 5, unstaged: 6, untracked: 3, conflicted: 0, total: 12 },
      offset: 0,
      nextOffset: null,
      path: null,
      neutralised: [],
    });
    expect(text).toBe(
      [
        "On branch main",
        "12 paths changed (5 staged, 6 unstaged, 3 untracked; 2 paths are both staged and unstaged):",
        "AD added-gone.txt",
        "A  added.txt",
        "MM both.txt",
        " M edit.txt",
        " D gone.txt",
        " A intent.txt",
        " T link-me.txt (symlink)",
        "R  old-name.txt -> new-name.txt",
        "D  staged-gone.txt",
        "?? newdir/one.txt",
        "?? newdir/two.txt",
        "?? untracked.txt",
      ].join("\n"),
    );
  });

  it("reports a staged type change", async () => {
    const repo = committedRepo();
    repo.remove("link-me.txt").symlink("link-me.txt", "keep.txt");
    repo.git(["add", "link-me.txt"]);
    expect((await ok(repo.dir)).data.entries).toEqual([{ ...entry("link-me.txt", "T", ".", "type_changed"), symlink: true }]);
  });

  it("untracked=normal collapses untracked directories, untracked=no hides untracked files", async () => {
    const repo = busyRepo();
    const normal = await ok(repo.dir, { untracked: "normal" });
    expect(normal.data.entries.filter((e) => e.kind === "untracked")).toEqual([
      entry("newdir/", "?", "?", "untracked"),
      entry("untracked.txt", "?", "?", "untracked"),
    ]);
    expect(normal.data.counts).toEqual({ staged: 5, unstaged: 6, untracked: 2, conflicted: 0, total: 11 });

    const none = await ok(repo.dir, { untracked: "no" });
    expect(none.data.entries.filter((e) => e.kind === "untracked")).toEqual([]);
    expect(none.data.counts).toEqual({ staged: 5, unstaged: 6, untracked: 0, conflicted: 0, total: 9 });
    // 5 + 6 is more than 9: two paths are both, and the text says so rather than look like a miscount.
    expect(none.text.split("\n")[1]).toBe("9 paths changed (5 staged, 6 unstaged; 2 paths are both staged and unstaged):");
  });

  it("short=false gives git's long human text in text, with the same data", async () => {
    const repo = busyRepo();
    const long = await ok(repo.dir, { short: false, untracked: "normal" });
    expect(long.data).toEqual((await ok(repo.dir, { untracked: "normal" })).data);
    expect(long.text).toBe(
      [
        "On branch main",
        "Changes to be committed:",
        '  (use "git restore --staged <file>..." to unstage)',
        "\tnew file:   added-gone.txt",
        "\tnew file:   added.txt",
        "\tmodified:   both.txt",
        "\trenamed:    old-name.txt -> new-name.txt",
        "\tdeleted:    staged-gone.txt",
        "",
        "Changes not staged for commit:",
        '  (use "git add/rm <file>..." to update what will be committed)',
        '  (use "git restore <file>..." to discard changes in working directory)',
        "\tdeleted:    added-gone.txt",
        "\tmodified:   both.txt",
        "\tmodified:   edit.txt",
        "\tdeleted:    gone.txt",
        "\tnew file:   intent.txt",
        "\ttypechange: link-me.txt",
        "",
        "Untracked files:",
        '  (use "git add <file>..." to include in what will be committed)',
        "\tnewdir/",
        "\tuntracked.txt",
      ].join("\n"),
    );
  });

  it("reports a real merge conflict: both modified, both added, deleted by them", async () => {
    const repo = makeRepo();
    repo.write("shared.txt", "base\n").write("theirs-delete.txt", "base\n");
    repo.commit("base");
    repo.git(["checkout", "-q", "-b", "other"]);
    repo.write("shared.txt", "other\n").write("new.txt", "other\n").remove("theirs-delete.txt");
    repo.commit("other side");
    repo.git(["checkout", "-q", "main"]);
    repo.write("shared.txt", "main\n").write("new.txt", "main\n").write("theirs-delete.txt", "main\n");
    repo.write("clean-edit.txt", "staged alongside the conflict\n");
    const head = repo.commit("main side");
    expect(() => repo.git(["merge", "-q", "other"])).toThrow();

    const { data, text } = await ok(repo.dir);
    expect(data).toEqual({
      branch: { head: "main", oid: head, detached: false, ...NO_UPSTREAM },
      clean: false,
      entries: [
        entry("new.txt", "A", "A", "conflicted"),
        entry("shared.txt", "U", "U", "conflicted"),
        entry("theirs-delete.txt", "U", "D", "conflicted"),
      ],
      counts: { staged: 0, unstaged: 0, untracked: 0, conflicted: 3, total: 3 },
      offset: 0,
      nextOffset: null,
      path: null,
      neutralised: [],
    });
    expect(text).toBe("On branch main\n3 paths changed (3 conflicted):\nAA new.txt\nUU shared.txt\nUD theirs-delete.txt");
  });

  it("keeps exact names with spaces, quotes, tabs, newlines, backslashes and non-ASCII; quotes them in text", async () => {
    const repo = makeRepo();
    repo.write("base.txt", "base\n");
    repo.commit("base");
    const names = [
      "with space.txt",
      'q"uote.txt',
      "tab\there.txt",
      "new\nline.txt",
      "back\\slash.txt",
      "héllo wörld ✓.txt",
      " lead.txt",
      "a -> b.txt",
    ];
    for (const name of names) repo.write(name, "x\n");
    const { data, text } = await ok(repo.dir);
    const sorted = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(data.entries).toEqual(sorted.map((name) => entry(name, "?", "?", "untracked")));
    expect(text).toBe(
      [
        "On branch main",
        "8 paths changed (8 untracked):",
        '?? " lead.txt"',
        '?? "a -> b.txt"',
        '?? "back\\\\slash.txt"',
        "?? héllo wörld ✓.txt",
        '?? "new\\nline.txt"',
        '?? "q\\"uote.txt"',
        '?? "tab\\there.txt"',
        "?? with space.txt",
      ].join("\n"),
    );
  });
});

describe("git_status: branch", () => {
  it("reports an unborn branch: no commit, staged files against nothing", async () => {
    const repo = makeRepo();
    expect(await ok(repo.dir)).toEqual({
      data: {
        branch: { head: "main", oid: null, detached: false, ...NO_UPSTREAM },
        clean: true,
        entries: [],
        counts: { staged: 0, unstaged: 0, untracked: 0, conflicted: 0, total: 0 },
        offset: 0,
        nextOffset: null,
        path: null,
        neutralised: [],
      },
      text: "On branch main (no commits yet)\nWorking tree clean: nothing staged, nothing modified, no untracked files.",
    });
    repo.write("first.txt", "1\n").write("later.txt", "2\n");
    repo.git(["add", "first.txt"]);
    const { data, text } = await ok(repo.dir);
    expect(data.entries).toEqual([entry("first.txt", "A", ".", "added"), entry("later.txt", "?", "?", "untracked")]);
    expect(text).toBe("On branch main (no commits yet)\n2 paths changed (1 staged, 1 untracked):\nA  first.txt\n?? later.txt");
    expect((await ok(repo.dir, { short: false })).text).toBe(
      [
        "On branch main",
        "",
        "No commits yet",
        "",
        "Changes to be committed:",
        '  (use "git rm --cached <file>..." to unstage)',
        "\tnew file:   first.txt",
        "",
        "Untracked files:",
        '  (use "git add <file>..." to include in what will be committed)',
        "\tlater.txt",
      ].join("\n"),
    );
  });

  it("reports a detached HEAD", async () => {
    const repo = committedRepo();
    const first = repo.head();
    repo.write("keep.txt", "changed\n").commit("second");
    repo.git(["checkout", "-q", "--detach", first]);
    const { data, text } = await ok(repo.dir);
    expect(data.branch).toEqual({ head: null, oid: first, detached: true, tags: [], ...NO_UPSTREAM });
    expect(text).toBe(`HEAD detached at ${first.slice(0, 12)}\nWorking tree clean: nothing staged, nothing modified, no untracked files.`);
    expect((await ok(repo.dir, { short: false })).text).toBe(`HEAD detached at ${first.slice(0, 7)}\nnothing to commit, working tree clean`);
  });

  it("reports the upstream of a clone of a bare repository, ahead and behind", async () => {
    const bare = makeRepo({ bare: true });
    const seed = makeRepo();
    seed.write("a.txt", "a\n").commit("one");
    seed.git(["push", "-q", bare.dir, "main"]);
    const clone = cloneRepo(bare.dir);
    const local = clone.write("local.txt", "mine\n").commit("local work");
    seed.write("b.txt", "b\n").commit("upstream work");
    seed.write("c.txt", "c\n").commit("more upstream work");
    seed.git(["push", "-q", bare.dir, "main"]);
    clone.git(["fetch", "-q", "origin"]);

    const { data, text } = await ok(clone.dir);
    expect(data.branch).toEqual({ head: "main", oid: local, upstream: "origin/main", ahead: 1, behind: 2, detached: false });
    expect(text).toBe(
      "On branch main, upstream origin/main: ahead 1, behind 2\nWorking tree clean: nothing staged, nothing modified, no untracked files.",
    );
    expect((await ok(clone.dir, { short: false })).text).toBe(
      [
        "On branch main",
        "Your branch and 'origin/main' have diverged,",
        "and have 1 and 2 different commits each, respectively.",
        '  (use "git pull" to merge the remote branch into yours)',
        "",
        "nothing to commit, working tree clean",
      ].join("\n"),
    );
  });

  it("reports a local upstream set with --set-upstream-to, and an upstream that is gone", async () => {
    const repo = committedRepo();
    repo.git(["branch", "-q", "topic"]);
    repo.git(["branch", "-q", "--set-upstream-to=main", "topic"]);
    repo.write("keep.txt", "main moves on\n").commit("main moves");
    repo.git(["checkout", "-q", "topic"]);
    const topic = repo.write("topic.txt", "t\n").commit("topic 1");
    repo.write("topic.txt", "t2\n").commit("topic 2");
    expect((await ok(repo.dir)).data.branch).toEqual({
      head: "topic",
      oid: repo.head(),
      upstream: "main",
      ahead: 2,
      behind: 1,
      detached: false,
    });
    expect(topic).not.toBe(repo.head());

    repo.git(["branch", "-q", "-D", "main"]);
    const { data, text } = await ok(repo.dir);
    expect(data.branch).toEqual({ head: "topic", oid: repo.head(), upstream: "main", ahead: null, behind: null, detached: false });
    expect(text).toBe("On branch topic, upstream main (gone)\nWorking tree clean: nothing staged, nothing modified, no untracked files.");
  });
});

describe("git_status: path", () => {
  function pathRepo(): TestRepo {
    const repo = makeRepo();
    repo.write("src/app.ts", "app\n").write("src/lib/util.ts", "util\n").write("docs/readme.md", "docs\n").write("gone.txt", "x\n");
    repo.commit("initial");
    repo.write("src/app.ts", "app 2\n").write("src/lib/util.ts", "util 2\n").write("src/new.ts", "new\n").write("docs/readme.md", "docs 2\n");
    repo.remove("gone.txt");
    return repo;
  }

  it("limits the status to a directory", async () => {
    const repo = pathRepo();
    const { data, text } = await ok(repo.dir, { path: "src" });
    expect(data.entries).toEqual([
      entry("src/app.ts", ".", "M", "modified"),
      entry("src/lib/util.ts", ".", "M", "modified"),
      entry("src/new.ts", "?", "?", "untracked"),
    ]);
    expect(data.counts).toEqual({ staged: 0, unstaged: 2, untracked: 1, conflicted: 0, total: 3 });
    expect(data.path).toBe("src");
    expect(text).toBe("On branch main\n3 paths changed under src (2 unstaged, 1 untracked):\n M src/app.ts\n M src/lib/util.ts\n?? src/new.ts");
  });

  it("limits the status to one file, including a deleted one, and an absolute path inside the workspace", async () => {
    const repo = pathRepo();
    expect((await ok(repo.dir, { path: "src/lib/util.ts" })).data.entries).toEqual([entry("src/lib/util.ts", ".", "M", "modified")]);
    expect((await ok(repo.dir, { path: "gone.txt" })).data.entries).toEqual([entry("gone.txt", ".", "D", "deleted")]);
    expect((await ok(repo.dir, { path: join(repo.dir, "docs") })).data.entries).toEqual([entry("docs/readme.md", ".", "M", "modified")]);
  });

  it("treats the path literally: no glob or pathspec magic", async () => {
    const repo = pathRepo();
    repo.write("star*.txt", "literal\n").write("starry.txt", "not matched\n");
    expect((await ok(repo.dir, { path: "star*.txt" })).data.entries).toEqual([entry("star*.txt", "?", "?", "untracked")]);
    const magic = await status(repo.dir, { path: ":(top)src" });
    expect(magic.ok ? "ok" : magic.error.code).toBe("path_not_found");
    repo.write(":(top)src", "a file with a pathspec-like name\n");
    expect((await ok(repo.dir, { path: ":(top)src" })).data.entries).toEqual([entry(":(top)src", "?", "?", "untracked")]);
  });

  it("says a clean path is clean, naming it", async () => {
    const repo = pathRepo();
    repo.write("clean/file.txt", "c\n");
    repo.git(["add", "clean"]);
    repo.commit("clean dir", { all: false });
    const { data, text } = await ok(repo.dir, { path: "clean" });
    expect(data.clean).toBe(true);
    expect(text).toBe("On branch main\nWorking tree clean under clean: nothing staged, nothing modified, no untracked files.");
  });

  it("refuses a path that matches nothing on disk or in the index", async () => {
    const repo = pathRepo();
    expect(await status(repo.dir, { path: "srcc" })).toEqual({
      ok: false,
      tool: "git_status",
      error: {
        code: "path_not_found",
        message: 'path "srcc" matches nothing in the working tree or the index.',
        hint: "Check the spelling (paths are relative to the workspace root), or call git_status without path.",
      },
    });
  });

  it("refuses paths outside the workspace: ../, an absolute path elsewhere, a symlinked directory leading out", async () => {
    const repo = pathRepo();
    const outside = tempDir();
    mkdirSync(join(outside, "secret"));
    symlinkSync(join(outside, "secret"), join(repo.dir, "escape"));
    for (const path of ["../", "../elsewhere", "src/../../x", outside, "escape", "escape/file.txt"]) {
      const result = await status(repo.dir, { path });
      expect(result.ok ? "ok" : result.error.code, path).toBe("path_outside_workspace");
    }
  });
});

describe("git_status: a workspace root below the top level", () => {
  it("shows only the workspace's files, named relative to it, and takes paths relative to it", async () => {
    const repo = makeRepo();
    repo.write("pkg/a.txt", "a\n").write("pkg/deep/b.txt", "b\n").write("pkg/old.txt", "old\nlines\nhere\n").write("outside.txt", "o\n");
    repo.commit("initial");
    repo.write("pkg/a.txt", "a2\n").write("pkg/deep/b.txt", "b2\n").write("pkg/new.txt", "n\n").write("outside.txt", "o2\n");
    repo.git(["mv", "pkg/old.txt", "pkg/renamed.txt"]);
    const root = join(repo.dir, "pkg");

    const { data, text } = await ok(root);
    expect(data.entries).toEqual([
      entry("a.txt", ".", "M", "modified"),
      entry("deep/b.txt", ".", "M", "modified"),
      entry("renamed.txt", "R", ".", "renamed", "old.txt"),
      entry("new.txt", "?", "?", "untracked"),
    ]);
    expect(data.branch.head).toBe("main");
    expect(text).toBe(
      "On branch main\n4 paths changed (1 staged, 2 unstaged, 1 untracked):\n M a.txt\n M deep/b.txt\nR  old.txt -> renamed.txt\n?? new.txt",
    );

    const deep = await ok(root, { path: "deep" });
    expect(deep.data.entries).toEqual([entry("deep/b.txt", ".", "M", "modified")]);
    expect(deep.data.path).toBe("deep");
    expect((await ok(root, { untracked: "normal", path: "new.txt" })).data.entries).toEqual([entry("new.txt", "?", "?", "untracked")]);
    expect((await status(root, { path: "../outside.txt" })).ok).toBe(false);
  });

  it("names a wholly untracked workspace `./` with untracked=normal", async () => {
    const repo = committedRepo();
    repo.write("fresh/one.txt", "1\n");
    expect((await ok(join(repo.dir, "fresh"), { untracked: "normal" })).data.entries).toEqual([entry("./", "?", "?", "untracked")]);
  });
});

describe("git_status: input", () => {
  it("rejects unknown fields and wrong types with invalid_input", async () => {
    const repo = committedRepo();
    expect(await status(repo.dir, { short: true, porcelain: 1 })).toEqual({
      ok: false,
      tool: "git_status",
      error: {
        code: "invalid_input",
        message: 'Invalid input for git_status: unknown field "porcelain".',
        hint: "git_status accepts: short, path, untracked, limit, offset.",
      },
    });
    for (const input of [{ untracked: "some" }, { short: "yes" }, { path: 3 }, { path: "" }]) {
      const result = await status(repo.dir, input);
      expect(result.ok ? "ok" : result.error.code, JSON.stringify(input)).toBe("invalid_input");
    }
  });

  it("fails with not_a_repository outside any repository", async () => {
    const result = await status(tempDir());
    expect(result.ok ? "ok" : result.error.code).toBe("not_a_repository");
  });
});

describe("git_status: a repository that goes away", () => {
  it("answers not_a_repository once it is deleted, and finds it again once it is back", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    const toolbox = createToolbox({ root: repo.dir });
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    rmSync(repo.dir, { recursive: true, force: true });
    const gone = await toolbox.execute("git_status", {});
    expect(gone.ok ? "ok" : gone.error.code).toBe("not_a_repository");
    const again = makeRepo({ dir: repo.dir });
    again.write("b.txt", "b\n");
    const back = (await toolbox.execute("git_status", {})) as ToolResult<GitStatusData>;
    expect(back.ok && back.data.entries.map((entry) => entry.path)).toEqual(["b.txt"]);
  });
});

describe("git_status and git_diff: settings that decide what the user's git leaves out", () => {
  /** A superproject whose submodule `m` is at a new commit, with its .gitmodules saying ignore = all. */
  function ignoredSubmodule(): TestRepo {
    const sub = makeRepo();
    sub.write("s.txt", "s\n").commit("sub");
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "m"]);
    repo.commit("submodule");
    repo.write("m/f.txt", "f\n");
    repo.git(["add", "f.txt"], { cwd: join(repo.dir, "m") });
    repo.git(["commit", "-qm", "f"], { cwd: join(repo.dir, "m") });
    repo.git(["config", "-f", ".gitmodules", "submodule.m.ignore", "all"]);
    repo.git(["commit", "-qm", "ignore m", "--", ".gitmodules"]);
    return repo;
  }

  it("submodule.<name>.ignore = all: plain git status and git diff show nothing, and neither does gitctx", async () => {
    const repo = ignoredSubmodule();
    expect(plainGit(repo.dir, ["status", "--porcelain=v2"]).stdout).toBe("");
    expect(plainGit(repo.dir, ["diff", "--name-only"]).stdout).toBe("");
    const toolbox = createToolbox({ root: repo.dir });
    const status = await toolbox.execute("git_status", {});
    const diff = await toolbox.execute("git_diff", {});
    await toolbox.close();
    expect(status.ok && status.data.entries).toEqual([]);
    expect(diff.ok && diff.data.files).toEqual([]);
    // Without the setting, both show the submodule's new commit.
    repo.git(["config", "-f", ".gitmodules", "--unset", "submodule.m.ignore"]);
    repo.git(["commit", "-qm", "m no longer ignored", "--", ".gitmodules"]);
    expect(plainGit(repo.dir, ["status", "--porcelain"]).stdout).toBe(" M m\n");
    const again = createToolbox({ root: repo.dir });
    const shown = await again.execute("git_status", {});
    await again.close();
    expect(shown.ok && shown.data.entries.map((entry) => entry.path)).toEqual(["m"]);
  });

  it("the user's diff.renameLimit: renames beyond git's default 1,000 files are found, as by the user's git", async () => {
    const repo = makeRepo();
    // Each file unlike every other, so that each rename has one source.
    const body = (i: number): string =>
      Array.from({ length: 6 }, (_, line) => `file ${i} line ${line} ${(i * 7919 + line * 104729) % 1000003}\n`).join("");
    for (let i = 0; i < 1100; i++) repo.write(`old/f${i}.txt`, body(i));
    repo.commit("files");
    // Moved under other names: git pairs files of the same name before it counts against the limit.
    rmSync(join(repo.dir, "old"), { recursive: true });
    for (let i = 0; i < 1100; i++) repo.write(`new/g${i}.txt`, `${body(i)}edited\n`);
    repo.git(["add", "-A"]);
    const home = tempDir("gitctx-status-home-");
    writeFileSync(join(home, ".gitconfig"), "[diff]\n\trenameLimit = 2000\n");
    const user = fixtureEnv({ HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") });
    const plainRenames = plainGit(repo.dir, ["status", "--porcelain"], user)
      .stdout.split("\n")
      .filter((line) => line.startsWith("R")).length;
    expect(plainRenames).toBe(1100);
    expect(
      plainGit(repo.dir, ["status", "--porcelain"])
        .stdout.split("\n")
        .filter((line) => line.startsWith("R")).length,
    ).toBe(0);
    const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    const status = await toolbox.execute("git_status", { limit: 5000 });
    const diff = await toolbox.execute("git_diff", { staged: true, stat: true, fileLimit: 5000 });
    await toolbox.close();
    expect(status.ok && status.data.entries.filter((entry) => entry.kind === "renamed").length).toBe(1100);
    expect(diff.ok && diff.data.files.filter((file) => file.status === "renamed").length).toBe(1100);
  });
});
