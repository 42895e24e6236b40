/**
 * Odd repository states, each with exact expected data: empty, unborn with staged files, detached HEAD,
 * shallow clone, linked worktree, submodules (initialised and not), sparse checkout, merge and rebase stopped
 * on conflicts (all seven unmerged codes), index.lock, awkward file names, non-UTF-8 content, CRLF, binary and
 * large files, a symlink, an LFS pointer, a bare repository as root, and state files that are FIFOs or symlinks.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { outcome } from "./fixtures/hostile.js";
import { fixtureEnv, makeRepo, plainGit, tempDir, withSubmodules, type TestRepo } from "./fixtures/repo.js";
import { call, dataOf } from "./fixtures/calls.js";

const data = dataOf;
const run = call;
const codes = (entries: Array<{ path: string; index: string; worktree: string }>): string[] =>
  entries.map((e) => `${e.index}${e.worktree} ${e.path}`);

describe("empty repository", () => {
  it("answers every tool with an empty result or a clear error", async () => {
    const repo = makeRepo();
    const status = data(await run(repo.dir, "git_status"));
    expect(status).toMatchObject({ branch: { head: "main", oid: null, detached: false }, clean: true, entries: [] });
    expect(data(await run(repo.dir, "git_log"))).toEqual({
      commits: [],
      hasMore: false,
      nextSkip: null,
      ref: null,
      range: null,
      limitedTo: null,
      shallowBoundary: [],
    });
    expect(data(await run(repo.dir, "git_diff")).files).toEqual([]);
    expect(data(await run(repo.dir, "git_diff", { staged: true })).comparison).toBe("staged changes (index vs empty tree: no commits yet)");
    const show = await run(repo.dir, "git_show", { commit: "HEAD" });
    expect(show.ok ? "ok" : show.error).toEqual({
      code: "bad_revision",
      message: 'commit "HEAD" does not name a commit: there are no commits yet on the current branch.',
      hint: "Commit first; until then git_status, and git_diff with staged=true, show what is staged.",
    });
    expect(outcome(await run(repo.dir, "git_blame", { path: "a.txt" }))).toBe("path_not_found");
    const context = data(await run(repo.dir, "git_context"));
    expect(context.snapshot.head).toEqual({ ok: true, value: null });
    expect(context.snapshot.commits).toEqual({ ok: true, value: [] });
  });
});

describe("unborn branch with staged files", () => {
  it("shows the staged files against nothing, and blames them as not committed yet", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "one\ntwo\n").write("dir/b.txt", "bee\n");
    repo.git(["add", "."]);
    repo.write("u.txt", "untracked\n");
    expect(codes(data(await run(repo.dir, "git_status")).entries)).toEqual(["A. a.txt", "A. dir/b.txt", "?? u.txt"]);
    const staged = data(await run(repo.dir, "git_diff", { staged: true }));
    expect(staged.files.map((f: any) => [f.path, f.status, f.additions])).toEqual([
      ["a.txt", "added", 2],
      ["dir/b.txt", "added", 1],
    ]);
    const blame = data(await run(repo.dir, "git_blame", { path: "a.txt" }));
    expect(blame.lines.map((l: any) => [l.hash, l.content])).toEqual([
      ["0".repeat(40), "one"],
      ["0".repeat(40), "two"],
    ]);
    expect(outcome(await run(repo.dir, "git_blame", { path: "u.txt" }))).toBe("path_not_found");
  });
});

describe("detached HEAD", () => {
  it("reports detached with the commit, and every tool works from it", async () => {
    const repo = makeRepo();
    const first = repo.write("a.txt", "1\n").commit("first");
    repo.write("a.txt", "2\n").commit("second");
    repo.git(["checkout", "-q", "--detach", first]);
    const status = data(await run(repo.dir, "git_status"));
    expect(status.branch).toEqual({ head: null, oid: first, upstream: null, ahead: null, behind: null, detached: true, tags: [] });
    expect((await run(repo.dir, "git_status")).ok && ((await run(repo.dir, "git_status")) as any).text).toBe(
      `HEAD detached at ${first.slice(0, 12)}\nWorking tree clean: nothing staged, nothing modified, no untracked files.`,
    );
    expect(data(await run(repo.dir, "git_log")).commits.map((c: any) => c.subject)).toEqual(["first"]);
    expect(data(await run(repo.dir, "git_context", { sections: ["branch"] })).snapshot.branch).toEqual({
      ok: true,
      value: { name: null, ref: null, detached: true, tags: [] },
    });
  });
});

describe("shallow clone", () => {
  it("shows only the commits it has, the oldest as a root", async () => {
    const source = makeRepo();
    source.write("a.txt", "1\n").commit("first");
    source.write("a.txt", "2\n").commit("second");
    const third = source.write("a.txt", "3\n").commit("third");
    const dir = join(tempDir(), "shallow");
    execFileSync("git", ["clone", "-q", "--depth", "1", `file://${source.dir}`, dir], { env: fixtureEnv() });
    const log = data(await run(dir, "git_log"));
    expect(log.commits.map((c: any) => [c.hash, c.subject, c.parents])).toEqual([[third, "third", []]]);
    const show = data(await run(dir, "git_show", { commit: "HEAD" }));
    expect(show.diff.files.map((f: any) => [f.path, f.status])).toEqual([["a.txt", "added"]]);
    expect(outcome(await run(dir, "git_show", { commit: "HEAD~1" }))).toBe("bad_revision");
    expect(data(await run(dir, "git_blame", { path: "a.txt" })).lines.map((l: any) => [l.hash, l.content])).toEqual([[third, "3"]]);
  });
});

describe("linked worktree as root, and submodules initialised and not", () => {
  it("reads the worktree's own branch and index", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "1\n").commit("first");
    const worktree = join(tempDir(), "wt");
    repo.git(["worktree", "add", "-q", "-b", "side", worktree]);
    writeFileSync(join(worktree, "a.txt"), "changed\n");
    const status = data(await run(worktree, "git_status"));
    expect([status.branch.head, codes(status.entries)]).toEqual(["side", [".M a.txt"]]);
    expect(data(await run(repo.dir, "git_status")).clean).toBe(true);
    const worktrees = data(await run(worktree, "git_context", { sections: ["worktrees"] })).snapshot.worktrees.value;
    expect(worktrees.map((w: any) => [w.branch, w.main, w.current])).toEqual([
      ["main", true, false],
      ["side", false, true],
    ]);
  });

  it("lists an initialised and an uninitialised submodule", async () => {
    const source = makeRepo();
    const subCommit = source.write("s.txt", "s\n").commit("sub");
    const superRepo = makeRepo();
    superRepo.write("x.txt", "x\n").commit("x");
    superRepo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", source.dir, "one"]);
    superRepo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", source.dir, "two"]);
    superRepo.commit("subs");
    superRepo.git(["submodule", "deinit", "-q", "-f", "two"]);
    const modules = data(await run(superRepo.dir, "git_context", { sections: ["submodules"] })).snapshot.submodules.value;
    expect(modules.map((m: any) => [m.path, m.commit, m.initialized])).toEqual([
      ["one", subCommit, true],
      ["two", subCommit, false],
    ]);
    expect(data(await run(superRepo.dir, "git_status")).entries).toEqual([]);
    expect(data(await run(superRepo.dir, "git_show", { commit: "HEAD", path: "two" }))).toMatchObject({
      type: "submodule",
      submoduleCommit: subCommit,
    });
  });

  it("says which checked-out submodule is at another commit, with or without the status section", async () => {
    const superRepo = withSubmodules(["moved", "kept", "dirty"], ["moved"]);
    superRepo.write("dirty/s.txt", "changed\n");
    // git submodule status marks the one checked out at another commit with `+`, and only it.
    const marks = superRepo
      .git(["submodule", "status"])
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => [line.split(" ").at(-2) ?? "", line[0]]);
    expect(Object.fromEntries(marks.map(([path, mark]) => [path, mark === "+"]))).toEqual({ moved: true, kept: false, dirty: false });
    for (const sections of [["submodules"], ["submodules", "status"]]) {
      const modules = data(await run(superRepo.dir, "git_context", { sections })).snapshot.submodules.value;
      expect(Object.fromEntries(modules.map((m: any) => [m.path, m.commitChanged]))).toEqual({ moved: true, kept: false, dirty: false });
    }
  });
});

describe("sparse checkout", () => {
  it("does not report the files outside the cone as deleted", async () => {
    const repo = makeRepo();
    repo.write("in/a.txt", "a\n").write("out/b.txt", "b\n").write("top.txt", "t\n").commit("first");
    repo.git(["sparse-checkout", "set", "in"]);
    const status = data(await run(repo.dir, "git_status"));
    expect(status.entries).toEqual([]);
    expect(data(await run(repo.dir, "git_diff")).files).toEqual([]);
    expect(data(await run(repo.dir, "git_show", { commit: "HEAD", path: "out/b.txt" })).content).toBe("b\n");
    expect(data(await run(repo.dir, "git_blame", { path: "out/b.txt", ref: "HEAD" })).lines.map((l: any) => l.content)).toEqual(["b"]);
  });
});

/** A merge stopped on conflicts that produce all seven unmerged codes (rename/rename gives DD, AU and UA). */
function conflictedMerge(): TestRepo {
  const repo = makeRepo();
  for (const name of ["r", "uu", "ud", "du"]) repo.write(`${name}.txt`, `base-${name}\n`);
  repo.commit("base");
  repo.git(["checkout", "-q", "-b", "other"]);
  repo.git(["mv", "r.txt", "theirs.txt"]);
  repo.write("uu.txt", "other\n").remove("ud.txt").write("du.txt", "other-du\n").write("aa.txt", "aa-other\n");
  repo.commit("other");
  repo.git(["checkout", "-q", "main"]);
  repo.git(["mv", "r.txt", "ours.txt"]);
  repo.write("uu.txt", "main\n").write("ud.txt", "main-ud\n").remove("du.txt").write("aa.txt", "aa-main\n");
  repo.commit("main");
  try {
    repo.git(["merge", "-q", "other"]);
  } catch {
    // Conflicts: that is the state wanted.
  }
  return repo;
}

const ALL_UNMERGED = ["AA aa.txt", "DU du.txt", "AU ours.txt", "DD r.txt", "UA theirs.txt", "UD ud.txt", "UU uu.txt"];

describe("merge and rebase stopped on conflicts", () => {
  it("a merge: all seven unmerged codes, the operation and the conflicted files", async () => {
    const repo = conflictedMerge();
    const status = data(await run(repo.dir, "git_status"));
    expect(codes(status.entries)).toEqual(ALL_UNMERGED);
    expect(status.entries.every((e: any) => e.kind === "conflicted")).toBe(true);
    expect(status.counts).toEqual({ staged: 0, unstaged: 0, untracked: 0, conflicted: 7, total: 7 });
    const context = data(await run(repo.dir, "git_context", { sections: ["operation"] })).snapshot.operation.value;
    expect(context.operations.map((o: any) => o.kind)).toEqual(["merge"]);
    expect(context.conflicted).toEqual(ALL_UNMERGED.map((line) => line.slice(3)));
    const diff = data(await run(repo.dir, "git_diff"));
    expect(
      diff.files
        .filter((f: any) => f.status === "unmerged")
        .map((f: any) => f.path)
        .sort(),
    ).toEqual(["aa.txt", "du.txt", "ours.txt", "r.txt", "theirs.txt", "ud.txt", "uu.txt"]);
    expect(outcome(await run(repo.dir, "git_blame", { path: "uu.txt" }))).toBe("ok");
  });

  it("a rebase: the operation with its branch and step, and the conflicted file", async () => {
    const repo = makeRepo();
    repo.write("f.txt", "base\n").commit("base");
    repo.git(["checkout", "-q", "-b", "topic"]);
    repo.write("f.txt", "topic\n").commit("topic change");
    repo.git(["checkout", "-q", "main"]);
    const onto = repo.write("f.txt", "main\n").commit("main change");
    repo.git(["checkout", "-q", "topic"]);
    try {
      repo.git(["rebase", "-q", "main"]);
    } catch {
      // Stopped on the conflict.
    }
    const operation = data(await run(repo.dir, "git_context", { sections: ["operation"] })).snapshot.operation.value;
    expect(operation).toEqual({
      operations: [{ kind: "rebase", commit: null, branch: "topic", onto, step: 1, steps: 1 }],
      conflicted: ["f.txt"],
    });
    expect(codes(data(await run(repo.dir, "git_status")).entries)).toEqual(["UU f.txt"]);
  });
});

describe("index.lock present", () => {
  it("reads everything, never takes or removes the lock, and reports it", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "1\n").commit("first");
    repo.write("a.txt", "2\n");
    writeFileSync(join(repo.dir, ".git", "index.lock"), "");
    expect(codes(data(await run(repo.dir, "git_status")).entries)).toEqual([".M a.txt"]);
    expect(data(await run(repo.dir, "git_diff")).files.map((f: any) => f.path)).toEqual(["a.txt"]);
    const lock = data(await run(repo.dir, "git_context", { sections: ["indexLock"] })).snapshot.indexLock.value;
    expect(lock.path).toBe(join(repo.dir, ".git", "index.lock"));
    expect(readdirSync(join(repo.dir, ".git"))).toContain("index.lock");
  });
});

describe("awkward file names", () => {
  const NAMES = [
    "new\nline.txt",
    "tab\there.txt",
    'quote"d.txt',
    "single'quote.txt",
    "back\\slash.txt",
    "-dash.txt",
    "--output=x.txt",
    "sp ace.txt",
    "ünï.txt",
  ];

  it("come back exactly through every tool, and a non-UTF-8 name comes back with the replacement visible", async () => {
    const repo = makeRepo();
    for (const name of NAMES) repo.write(name, `${name}\n`);
    // A name with byte 0xFF, not UTF-8.
    writeFileSync(Buffer.concat([Buffer.from(`${repo.dir}/`), Buffer.from([0x62, 0xff, 0x2e, 0x74])]), "raw\n");
    const first = repo.commit("names");
    for (const name of NAMES) repo.write(name, `${name}\nchanged\n`);
    const sorted = [...NAMES].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const status = data(await run(repo.dir, "git_status"));
    expect(status.entries.map((e: any) => e.path)).toEqual(sorted);
    const diff = data(await run(repo.dir, "git_diff"));
    expect(diff.files.map((f: any) => f.path)).toEqual(sorted);
    const show = data(await run(repo.dir, "git_show", { commit: "HEAD" }));
    expect(show.diff.files.map((f: any) => f.path).sort()).toEqual([...NAMES, "b\ufffd.t"].sort());
    for (const name of NAMES) {
      expect(data(await run(repo.dir, "git_show", { commit: "HEAD", path: name })).content).toBe(`${name}\n`);
      expect(data(await run(repo.dir, "git_log", { path: name })).commits.map((c: any) => c.hash)).toEqual([first]);
      expect(data(await run(repo.dir, "git_blame", { path: name })).lines.map((l: any) => l.content)).toEqual(`${name}\nchanged`.split("\n"));
      expect(data(await run(repo.dir, "git_diff", { path: name })).files.map((f: any) => f.path)).toEqual([name]);
    }
    // The non-UTF-8 name cannot be given back (the replacement character names no file): a clear error.
    expect(outcome(await run(repo.dir, "git_show", { commit: "HEAD", path: "b\ufffd.t" }))).toBe("path_not_found");
  });
});

describe("file contents", () => {
  it("non-UTF-8 bytes: valid output with U+FFFD visible, no crash", async () => {
    const repo = makeRepo();
    repo.write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    repo.commit("latin1");
    repo.write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0xfe, 0x0a]));
    expect(data(await run(repo.dir, "git_show", { commit: "HEAD", path: "latin1.txt" })).content).toBe("caf\ufffd\n");
    expect(data(await run(repo.dir, "git_diff")).patch).toContain("+\ufffd\ufffd\n");
    expect(data(await run(repo.dir, "git_blame", { path: "latin1.txt", ref: "HEAD" })).lines.map((l: any) => l.content)).toEqual(["caf\ufffd"]);
    const whole = await run(repo.dir, "git_diff");
    expect(JSON.parse(JSON.stringify(whole))).toEqual(whole);
  });

  it("CRLF is kept as written", async () => {
    const repo = makeRepo();
    repo.write("crlf.txt", "a\r\nb\r\n").commit("crlf");
    repo.write("crlf.txt", "a\r\nB\r\n");
    expect(data(await run(repo.dir, "git_show", { commit: "HEAD", path: "crlf.txt" })).content).toBe("a\r\nb\r\n");
    expect(data(await run(repo.dir, "git_diff")).patch).toContain("-b\r\n+B\r\n");
    expect(data(await run(repo.dir, "git_blame", { path: "crlf.txt" })).lines.map((l: any) => l.content)).toEqual(["a\r", "B\r"]);
  });

  it("binary and large files: binary flagged, large content windowed", async () => {
    const repo = makeRepo();
    const large = "0123456789abcdef\n".repeat(200_000); // 3.4 MB
    repo
      .write("bin.dat", Buffer.from([0, 1, 2, 0, 255]))
      .write("large.txt", large)
      .commit("files");
    repo.write("bin.dat", Buffer.from([0, 1, 3]));
    const diff = data(await run(repo.dir, "git_diff"));
    expect(diff.files.map((f: any) => [f.path, f.binary, f.additions])).toEqual([["bin.dat", true, null]]);
    expect(data(await run(repo.dir, "git_show", { commit: "HEAD", path: "bin.dat" }))).toMatchObject({ binary: true, content: null, size: 5 });
    const window = data(await run(repo.dir, "git_show", { commit: "HEAD", path: "large.txt" }));
    expect([window.size, window.returnedBytes, window.truncated, window.nextOffset]).toEqual([large.length, 20_000, true, 20_000]);
    expect(window.content).toBe(large.slice(0, 20_000));
    const show = data(await run(repo.dir, "git_show", { commit: "HEAD" }));
    expect([show.diff.truncated, show.diff.returnedBytes <= 20_000]).toEqual([true, true]);
  });

  it("a symlink is shown as its target text, and an LFS pointer as the pointer", async () => {
    const repo = makeRepo();
    const pointer =
      "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";
    repo.write(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n").write("model.bin", pointer);
    repo.symlink("link", "/etc/passwd");
    repo.commit("lfs and link");
    const link = data(await run(repo.dir, "git_show", { commit: "HEAD", path: "link" }));
    expect([link.type, link.content]).toEqual(["symlink", "/etc/passwd"]);
    expect(data(await run(repo.dir, "git_show", { commit: "HEAD", path: "model.bin" })).content).toBe(pointer);
    expect(data(await run(repo.dir, "git_blame", { path: "model.bin" })).lines.map((l: any) => l.content)).toEqual(pointer.trimEnd().split("\n"));
    // The symlink in the work tree leads out of the workspace: refused as a path there.
    expect(outcome(await run(repo.dir, "git_blame", { path: "link" }))).toBe("path_outside_workspace");
  });
});

describe("a bare repository as root", () => {
  /** A bare clone of a two-commit repository: history, no working tree. */
  function bareClone(): { dir: string; first: string; second: string } {
    const work = makeRepo();
    const first = work.write("a.txt", "one\n").commit("first");
    const second = work.write("a.txt", "one\ntwo\n").commit("second");
    const dir = join(tempDir(), "repo.git");
    plainGit(work.dir, ["clone", "-q", "--bare", work.dir, dir]);
    return { dir: realpathSync(dir), first, second };
  }

  it("git_log, git_show and git_blame at a ref read its history; plain git agrees", async () => {
    const bare = bareClone();
    const log = data(await run(bare.dir, "git_log"));
    expect(log.commits.map((commit: { hash: string }) => commit.hash)).toEqual([bare.second, bare.first]);
    expect(plainGit(bare.dir, ["log", "--format=%H"]).stdout.trim().split("\n")).toEqual([bare.second, bare.first]);
    const show = data(await run(bare.dir, "git_show", { commit: "HEAD" }));
    expect(show.diff.patch).toBe(plainGit(bare.dir, ["show", "--format=", "--src-prefix=a/", "--dst-prefix=b/", "HEAD"]).stdout);
    expect(data(await run(bare.dir, "git_show", { commit: "HEAD~1", path: "a.txt" })).content).toBe("one\n");
    const blame = data(await run(bare.dir, "git_blame", { path: "a.txt", ref: "HEAD" }));
    expect(blame.lines.map((line: { hash: string }) => line.hash)).toEqual([bare.first, bare.second]);
    expect(data(await run(bare.dir, "git_diff", { commit: "HEAD~1..HEAD" })).totals.files).toBe(1);
    const context = await run(bare.dir, "git_context");
    expect(context.ok && context.text.split("\n").slice(0, 2)).toEqual([
      `Git repository: ${bare.dir} (bare: history only, no working tree)`,
      "Branch: main",
    ]);
  });

  it("what needs a working tree says so, and what to use instead", async () => {
    const bare = bareClone();
    const refusal = (what: string, instead: string) => ({
      code: "not_a_repository",
      message: `${bare.dir} is a bare repository: it has no working tree, which ${what} needs.`,
      hint: `${instead} Otherwise point root at a checked-out working tree, e.g. a clone of it.`,
    });
    const error = async (tool: string, input: Record<string, unknown> = {}) => {
      const result = await run(bare.dir, tool, input);
      return result.ok ? "ok" : result.error;
    };
    expect(await error("git_status")).toEqual(refusal("git_status", "git_log, git_show and git_blame with ref read its history."));
    const range = 'A diff between two commits needs none: pass commit="A..B" (or commit and commit2).';
    expect(await error("git_diff")).toEqual(refusal("git_diff of unstaged changes", range));
    expect(await error("git_diff", { staged: true })).toEqual(refusal("git_diff of staged changes", range));
    expect(await error("git_diff", { commit: "HEAD~1" })).toEqual(refusal("git_diff against HEAD~1 alone", range));
    expect(await error("git_blame", { path: "a.txt" })).toEqual(
      refusal("git_blame of the working tree's version", 'Pass ref (e.g. "HEAD") to blame the file as committed.'),
    );
  });

  it("a directory inside it, or a git directory that says it is not bare, is still refused", async () => {
    const bare = bareClone();
    const inside = await run(join(bare.dir, "refs"), "git_log");
    expect(inside.ok ? "ok" : inside.error.message).toBe(
      `${join(bare.dir, "refs")} is inside the bare repository ${bare.dir}: it has no working tree to inspect.`,
    );
    plainGit(bare.dir, ["config", "core.bare", "false"]);
    const notBare = await run(bare.dir, "git_log");
    expect(notBare.ok ? "ok" : notBare.error).toEqual({
      code: "not_a_repository",
      message: `${bare.dir} is a git directory whose config says it is not bare (core.bare=false): its working tree is elsewhere.`,
      hint: "Point root at its working tree.",
    });
  });
});

describe("state files and work-tree files that are FIFOs or symlinks", () => {
  it("a FIFO as MERGE_HEAD or rebase state is refused before any git runs, where plain git blocks on it", async () => {
    // Plain git blocks on each: `git status` reads the rebase state, `git commit` reads MERGE_HEAD.
    for (const [fifo, plain] of [
      [["MERGE_HEAD"], ["commit", "-q", "--allow-empty", "-m", "x"]],
      [["rebase-merge", "head-name"], ["status"]],
    ]) {
      const repo = makeRepo();
      repo.write("a.txt", "1\n").commit("first");
      mkdirSync(join(repo.dir, ".git", "rebase-merge"), { recursive: true });
      execFileSync("mkfifo", [join(repo.dir, ".git", ...fifo!)]);
      expect(spawnSync("git", plain!, { cwd: repo.dir, env: fixtureEnv(), timeout: 1_000 }).error?.message).toMatch(/ETIMEDOUT/);
      const result = await run(repo.dir, "git_context", { sections: ["operation"] });
      expect(result.ok ? "ok" : result.error.code).toBe("unsafe_repository");
      if (!result.ok) expect(result.error.message).toContain(`${join(realpathSync(repo.dir), ".git", ...fifo!)} is a FIFO`);
    }
  });

  it("a symlink as MERGE_HEAD is refused, and the target's text is never in the result", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "1\n").commit("first");
    const secret = join(tempDir(), "secret");
    writeFileSync(secret, "top secret text\n");
    symlinkSync(secret, join(repo.dir, ".git", "MERGE_HEAD"));
    const result = await run(repo.dir, "git_context", { sections: ["operation"] });
    expect(JSON.stringify(result)).not.toContain("secret text");
    expect(result.ok ? "ok" : result.error.code).toBe("unsafe_repository");
  });

  it("a FIFO where a staged file was (no commits yet) makes git_blame fail clearly instead of hanging", async () => {
    const repo = makeRepo();
    repo.write("s.txt", "staged\n");
    repo.git(["add", "s.txt"]);
    rmSync(join(repo.dir, "s.txt"));
    execFileSync("mkfifo", [join(repo.dir, "s.txt")]);
    const result = await run(repo.dir, "git_blame", { path: "s.txt" });
    expect(result.ok ? "ok" : result.error.code).toBe("invalid_input");
  });
});
