/**
 * Worktrees: created and removed through the library and through a session's enter_worktree / exit_worktree,
 * with nothing lost on any path (uncommitted files, untracked files, unpushed commits, the main checkout's
 * node_modules), locks, names, the sweep, and failures halfway that the next call finishes. Real git, temp dirs.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanupWorktrees, createToolbox, createWorktree, listWorktrees, removeWorktree, type ToolResult } from "../src/index.js";
import { listing } from "./fixtures/hostile.js";
import { gitProcessesIn } from "./fixtures/mcp.js";
import { fixtureEnv, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

/** A repository with one commit, a gitignored `node_modules` and `.env`, in a directory whose path is real. */
function project(dir?: string): TestRepo {
  const repo = makeRepo(dir === undefined ? {} : { dir });
  repo.write("a.txt", "one\n");
  repo.write("src/app.ts", "export const app = 1;\n");
  repo.write(".gitignore", "node_modules/\n.env\n");
  repo.commit("first");
  repo.write("node_modules/pkg/index.js", "module.exports = 1;\n");
  return repo;
}

const top = (repo: TestRepo): string => realpathSync(repo.dir);
const worktreePath = (repo: TestRepo, name: string): string => join(top(repo), ".claude", "worktrees", name);
const branches = (repo: TestRepo): string[] => repo.git(["branch", "--format=%(refname:short)"]).trim().split("\n").filter(Boolean).sort();
const registered = (repo: TestRepo): string[] =>
  repo
    .git(["worktree", "list", "--porcelain"])
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
/** The main checkout's node_modules, byte for byte. */
const nodeModules = (repo: TestRepo): string => readFileSync(join(repo.dir, "node_modules", "pkg", "index.js"), "utf8");

function data<T>(result: ToolResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.data;
}

function errorOf(result: ToolResult): { code: string; message: string; hint?: string } {
  if (result.ok) throw new Error(`expected an error, got ${result.text}`);
  return result.error;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; hint?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; hint?: string };
  }
  throw new Error("expected a rejection");
}

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  return spawnSync("true").pid!;
}

describe("library round trip", () => {
  it("creates a worktree on worktree-<name>, ignored through info/exclude, with node_modules linked; removes it all", async () => {
    const repo = project();
    const gitignore = readFileSync(join(repo.dir, ".gitignore"), "utf8");
    const created = await createWorktree({ root: repo.dir, name: "fix" });
    expect(created).toMatchObject({ name: "fix", path: worktreePath(repo, "fix"), branch: "worktree-fix", base: repo.head(), created: true });
    expect(readFileSync(join(created.path, "a.txt"), "utf8")).toBe("one\n");
    expect(lstatSync(join(created.path, "node_modules")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(created.path, "node_modules"))).toBe(join(top(repo), "node_modules"));
    expect(readFileSync(join(created.path, "node_modules", "pkg", "index.js"), "utf8")).toBe("module.exports = 1;\n");
    expect(created.links).toEqual([{ path: "node_modules", target: join(top(repo), "node_modules") }]);
    // Ignored without touching the user's .gitignore: the main checkout stays clean.
    expect(readFileSync(join(repo.dir, ".gitignore"), "utf8")).toBe(gitignore);
    expect(readFileSync(join(repo.dir, ".git", "info", "exclude"), "utf8")).toContain("/.claude/worktrees/\n");
    expect(repo.git(["status", "--porcelain"])).toBe("");
    expect(registered(repo)).toEqual([top(repo), created.path]);

    const removed = await removeWorktree({ root: repo.dir, name: "fix" });
    expect(removed).toMatchObject({ removed: true, branchDeleted: true, fellBack: false, discarded: { fileCount: 0, commitCount: 0 } });
    expect(existsSync(created.path)).toBe(false);
    expect(registered(repo)).toEqual([top(repo)]);
    expect(branches(repo)).toEqual(["main"]);
    expect(nodeModules(repo)).toBe("module.exports = 1;\n");
  });

  it("starts the branch at a given base, resolved like every revision, and refuses one that is not a commit", async () => {
    const repo = project();
    const first = repo.head();
    repo.write("a.txt", "two\n");
    repo.commit("second");
    const created = await createWorktree({ root: repo.dir, name: "old", base: "HEAD~1" });
    expect(created.base).toBe(first);
    expect(readFileSync(join(created.path, "a.txt"), "utf8")).toBe("one\n");
    expect(await rejection(createWorktree({ root: repo.dir, name: "bad", base: "no-such-branch" }))).toMatchObject({ code: "bad_revision" });
    expect(await rejection(createWorktree({ root: repo.dir, name: "bad", base: "--output=/tmp/x" }))).toMatchObject({ code: "invalid_input" });
    expect(existsSync(worktreePath(repo, "bad"))).toBe(false);
    expect(branches(repo)).toEqual(["main", "worktree-old"]);
  });

  it("reopens a worktree it made (created: false) instead of making it twice", async () => {
    const repo = project();
    await createWorktree({ root: repo.dir, name: "again" });
    const reopened = await createWorktree({ root: repo.dir, name: "again" });
    expect(reopened).toMatchObject({ created: false, branch: "worktree-again", path: worktreePath(repo, "again") });
    expect(registered(repo)).toHaveLength(2);
  });

  it("generates a name when none is given", async () => {
    const repo = project();
    const created = await createWorktree({ root: repo.dir });
    expect(created.name).toMatch(/^\d{8}-[0-9a-f]{6}$/);
    expect(created.branch).toBe(`worktree-${created.name}`);
  });

  it("says there is nothing to start from in a repository without commits", async () => {
    const repo = makeRepo();
    expect(await rejection(createWorktree({ root: repo.dir, name: "x" }))).toMatchObject({ code: "bad_revision" });
    expect(branches(repo)).toEqual([]);
  });

  it("each call is a short session: its private directory is gone when it returns, also when it fails at once", async () => {
    const repo = project();
    const saved = process.env.TMPDIR;
    const tmp = tempDir("gitctx-worktree-tmp-");
    process.env.TMPDIR = tmp;
    const areas = (): string[] => readdirSync(tmp).filter((name) => name.startsWith("gitctx-private-"));
    try {
      await createWorktree({ root: repo.dir, name: "short" });
      expect(areas()).toEqual([]);
      await removeWorktree({ root: repo.dir, name: "short" });
      expect(areas()).toEqual([]);
      // Refused before any git runs (no repository there), while the private directory is still being made.
      expect(await rejection(removeWorktree({ root: tempDir("gitctx-not-a-repo-"), name: "short" }))).toMatchObject({ code: "not_a_repository" });
      expect(areas()).toEqual([]);
      expect(await rejection(removeWorktree({ root: repo.dir, name: "missing" }))).toMatchObject({ code: "path_not_found" });
      expect(areas()).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});

describe("remove loses nothing", () => {
  async function withWorktree(): Promise<{ repo: TestRepo; path: string }> {
    const repo = project();
    const { path } = await createWorktree({ root: repo.dir, name: "work" });
    return { repo, path };
  }

  async function expectRefusedUnchanged(repo: TestRepo, expected: RegExp): Promise<void> {
    const before = listing(repo.dir);
    const refs = repo.git(["for-each-ref"]);
    const error = await rejection(removeWorktree({ root: repo.dir, name: "work" }));
    expect(error.code).toBe("uncommitted_changes");
    expect(error.message).toMatch(expected);
    expect(error.hint).toContain("discard_changes");
    // The refusal changed nothing: every file (git's own included) and every ref is as it was.
    expect(listing(repo.dir)).toEqual(before);
    expect(repo.git(["for-each-ref"])).toBe(refs);
    // The ref transaction prepared while the checks ran was aborted, its process gone.
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  }

  it("refuses with a modified file, naming it", async () => {
    const { repo, path } = await withWorktree();
    writeFileSync(join(path, "a.txt"), "changed\n");
    await expectRefusedUnchanged(repo, /1 uncommitted file.*Files: M a\.txt/);
  });

  it("refuses with an untracked file, naming it", async () => {
    const { repo, path } = await withWorktree();
    writeFileSync(join(path, "notes.txt"), "mine\n");
    await expectRefusedUnchanged(repo, /1 uncommitted file.*\?\? notes\.txt/);
  });

  it("refuses with a commit that is on no other branch, naming it; allows it once merged", async () => {
    const { repo, path } = await withWorktree();
    writeFileSync(join(path, "a.txt"), "committed\n");
    plainGit(path, ["commit", "-qam", "Work in the worktree"]);
    const commit = plainGit(path, ["rev-parse", "HEAD"]).stdout.trim();
    await expectRefusedUnchanged(repo, new RegExp(`1 commit on no other branch.*${commit.slice(0, 12)} Work in the worktree`));
    repo.git(["merge", "-q", "--ff-only", "worktree-work"]);
    // Refs packed: the check reads packed-refs as well as loose refs.
    repo.git(["pack-refs", "--all"]);
    const removed = await removeWorktree({ root: repo.dir, name: "work" });
    expect(removed.discarded).toEqual({ files: [], fileCount: 0, commits: [], commitCount: 0 });
    expect(repo.head()).toBe(commit);
  });

  it("caps the paths it lists, never the counts", async () => {
    const { repo, path } = await withWorktree();
    for (let i = 0; i < 30; i++) writeFileSync(join(path, `new-${String(i).padStart(2, "0")}.txt`), "x\n");
    const error = await rejection(removeWorktree({ root: repo.dir, name: "work" }));
    expect(error.message).toMatch(/30 uncommitted files/);
    expect(error.message).toMatch(/and 10 more\./);
  });

  it("discards files and commits when told to, says what it discarded, and keeps the main node_modules", async () => {
    const { repo, path } = await withWorktree();
    writeFileSync(join(path, "a.txt"), "committed\n");
    plainGit(path, ["commit", "-qam", "Doomed"]);
    writeFileSync(join(path, "untracked.txt"), "x\n");
    const dry = await removeWorktree({ root: repo.dir, name: "work", discardChanges: true, dryRun: true });
    expect(dry).toMatchObject({ removed: false, dryRun: true, discarded: { fileCount: 1, commitCount: 1 } });
    expect(existsSync(path)).toBe(true);
    const removed = await removeWorktree({ root: repo.dir, name: "work", discardChanges: true });
    expect(removed).toMatchObject({ removed: true, discarded: { files: ["?? untracked.txt"], fileCount: 1, commitCount: 1 } });
    expect(removed.discarded.commits[0]!.subject).toBe("Doomed");
    expect(existsSync(path)).toBe(false);
    expect(branches(repo)).toEqual(["main"]);
    expect(nodeModules(repo)).toBe("module.exports = 1;\n");
  });

  it("falls back to deleting the directory when git cannot remove it, unlinking links and following none", async () => {
    const { repo, path } = await withWorktree();
    // A second link to the main node_modules that gitctx did not make: the fallback must unlink it, not empty it.
    symlinkSync(join(top(repo), "node_modules"), join(path, "deps"));
    writeFileSync(join(path, "scratch.txt"), "x\n");
    // A broken .git file: `git worktree remove` refuses to validate the worktree, even with --force.
    writeFileSync(join(path, ".git"), "not a gitdir file\n");
    expect(plainGit(repo.dir, ["worktree", "remove", "--force", path]).status).not.toBe(0);
    // Still checked for losses through git's own record of the worktree.
    const error = await rejection(removeWorktree({ root: repo.dir, name: "work" }));
    expect(error).toMatchObject({ code: "uncommitted_changes" });
    expect(error.message).toContain("?? deps");
    const removed = await removeWorktree({ root: repo.dir, name: "work", discardChanges: true });
    expect(removed.fellBack).toBe(true);
    expect(removed.notes.join("\n")).toContain("git worktree remove failed");
    expect(existsSync(path)).toBe(false);
    expect(registered(repo)).toEqual([top(repo)]);
    expect(branches(repo)).toEqual(["main"]);
    expect(readdirSync(join(repo.dir, "node_modules", "pkg"))).toEqual(["index.js"]);
    expect(nodeModules(repo)).toBe("module.exports = 1;\n");
  });

  it("removes only worktrees gitctx made", async () => {
    const repo = project();
    const theirs = join(tempDir(), "theirs");
    repo.git(["worktree", "add", "-q", "-b", "theirs", theirs]);
    const error = await rejection(removeWorktree({ root: repo.dir, path: theirs }));
    expect(error.code).toBe("invalid_input");
    expect(error.message).toContain("not made by gitctx");
    expect(existsSync(theirs)).toBe(true);
    expect(await rejection(removeWorktree({ root: repo.dir, name: "nothing" }))).toMatchObject({ code: "path_not_found" });
  });

  it("a removal that cannot take the branch's lock changes nothing, and says what it left", async () => {
    const { repo, path } = await withWorktree();
    const before = plainGit(repo.dir, ["for-each-ref", "--format=%(refname) %(objectname)"]).stdout;
    // Another git holds the branch's lock: the prepared ref transaction fails before any step has changed anything.
    const lock = join(repo.dir, ".git", "refs", "heads", "worktree-work.lock");
    writeFileSync(lock, "");
    const error = await rejection(removeWorktree({ root: repo.dir, name: "work" }));
    expect(error.code).toBe("git_failed");
    expect(error.message).toContain("stopped while deleting the branch worktree-work");
    expect(error.message).toContain("Nothing was changed yet");
    expect(error.message).toContain(`Left: the worktree ${path}`);
    expect(error.hint).toContain("finishes what is left");
    expect(lstatSync(join(path, "node_modules")).isSymbolicLink()).toBe(true);
    expect(plainGit(repo.dir, ["for-each-ref", "--format=%(refname) %(objectname)"]).stdout).toBe(before);
    rmSync(lock);
    const finished = await removeWorktree({ root: repo.dir, name: "work" });
    expect(finished.removed).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(branches(repo)).toEqual(["main"]);
    expect(nodeModules(repo)).toBe("module.exports = 1;\n");
  });

  it("finishes a removal that stopped halfway: branch deleted and links unlinked, the worktree still there", async () => {
    const { repo, path } = await withWorktree();
    // The state a removal leaves when it dies after its first two steps.
    const tip = plainGit(repo.dir, ["rev-parse", "worktree-work"]).stdout.trim();
    plainGit(path, ["update-ref", "--no-deref", "HEAD", tip]);
    plainGit(repo.dir, ["update-ref", "-d", "refs/heads/worktree-work", tip]);
    unlinkSync(join(path, "node_modules"));
    const finished = await removeWorktree({ root: repo.dir, name: "work" });
    expect(finished).toMatchObject({ removed: true, branchDeleted: true, fellBack: false });
    expect(finished.discarded).toMatchObject({ fileCount: 0, commitCount: 0 });
    expect(existsSync(path)).toBe(false);
    expect(registered(repo)).toEqual([top(repo)]);
    expect(branches(repo)).toEqual(["main"]);
    expect(nodeModules(repo)).toBe("module.exports = 1;\n");
  });
});

describe("locks", () => {
  it("a locked worktree whose directory was deleted: listed as missing with a dead holder, then removed", async () => {
    const repo = project();
    const deadReason = `gitctx session dead0000 (pid ${deadPid()} on ${hostname()})`;
    const { path } = await createWorktree({ root: repo.dir, name: "gone", lock: deadReason });
    expect(readFileSync(join(repo.dir, ".git", "worktrees", "gone", "locked"), "utf8").trim()).toBe(deadReason);
    rmSync(path, { recursive: true, force: true });
    const listed = (await listWorktrees({ root: repo.dir })).find((worktree) => worktree.name === "gone")!;
    expect(listed).toMatchObject({ gitctx: true, locked: true, lockHolderAlive: false, missing: true, dirty: null, unmergedCommits: 0 });
    // git itself will not prune a locked worktree.
    plainGit(repo.dir, ["worktree", "prune"]);
    expect(registered(repo)).toContain(path);
    const removed = await removeWorktree({ root: repo.dir, name: "gone" });
    expect(removed.removed).toBe(true);
    expect(registered(repo)).toEqual([top(repo)]);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("refuses a worktree another live session holds (worktree_locked), and one someone locked by hand", async () => {
    const repo = project();
    const live = `gitctx session other000 (pid ${process.pid} on ${hostname()})`;
    await createWorktree({ root: repo.dir, name: "busy", lock: live });
    const error = await rejection(removeWorktree({ root: repo.dir, name: "busy" }));
    expect(error).toMatchObject({ code: "worktree_locked" });
    expect(error.message).toContain(live);
    const { path } = await createWorktree({ root: repo.dir, name: "mine" });
    repo.git(["worktree", "lock", "--reason", "on a USB stick", path]);
    const manual = await rejection(removeWorktree({ root: repo.dir, name: "mine", discardChanges: true }));
    expect(manual).toMatchObject({ code: "worktree_locked" });
    expect(manual.hint).toContain("git worktree unlock");
    expect(existsSync(path)).toBe(true);
  });
});

describe("names", () => {
  it("accepts unicode names, in a repository whose path has spaces and unicode", async () => {
    const dir = join(tempDir(), "my projects", "café");
    mkdirSync(dir, { recursive: true });
    const repo = project(dir);
    for (const name of ["修复-登录", "naïve_fix.2"]) {
      const created = await createWorktree({ root: repo.dir, name });
      expect(created.path).toBe(worktreePath(repo, name));
      expect(readFileSync(join(created.path, "a.txt"), "utf8")).toBe("one\n");
      expect(branches(repo)).toContain(`worktree-${name}`);
      await removeWorktree({ root: repo.dir, name });
      expect(existsSync(created.path)).toBe(false);
    }
    expect(branches(repo)).toEqual(["main"]);
  });

  it("refuses names git cannot take as a branch or that are not one directory, saying what to use", async () => {
    const repo = project();
    const cases: Array<[string, RegExp]> = [
      ["my fix", /white space/],
      ["-x", /starts with "-"/],
      ["a/b", /path separator/],
      ["..", /\.\./],
      ["x..y", /\.\./],
      ["x.lock", /\.lock/],
      ["a:b", /":"/],
      ["tab\there", /control character|white space/],
    ];
    for (const [name, why] of cases) {
      const error = await rejection(createWorktree({ root: repo.dir, name }));
      expect(error.code, name).toBe("invalid_input");
      expect(error.message, name).toMatch(why);
    }
    const spaced = await rejection(createWorktree({ root: repo.dir, name: "my fix" }));
    expect(spaced.hint).toContain('"my-fix"');
    expect(existsSync(join(repo.dir, ".claude"))).toBe(false);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("refuses a name taken by a worktree gitctx did not make, or by a plain directory", async () => {
    const repo = project();
    mkdirSync(join(repo.dir, ".claude", "worktrees"), { recursive: true });
    repo.git(["worktree", "add", "-q", "-b", "by-hand", worktreePath(repo, "taken")]);
    const error = await rejection(createWorktree({ root: repo.dir, name: "taken" }));
    expect(error).toMatchObject({ code: "invalid_input" });
    expect(error.message).toContain("gitctx did not make");
    mkdirSync(worktreePath(repo, "plain"));
    expect((await rejection(createWorktree({ root: repo.dir, name: "plain" }))).message).toContain("already exists");
    expect(branches(repo)).toEqual(["by-hand", "main"]);
  });

  it("refuses a branch checked out elsewhere, saying where", async () => {
    const repo = project();
    repo.git(["checkout", "-q", "-b", "worktree-dup"]);
    const error = await rejection(createWorktree({ root: repo.dir, name: "dup" }));
    expect(error).toMatchObject({ code: "invalid_input" });
    expect(error.message).toBe(`The branch worktree-dup is already checked out at ${top(repo)}.`);
    expect(existsSync(worktreePath(repo, "dup"))).toBe(false);
  });

  it("refuses a worktrees directory reached through a symlink", async () => {
    const repo = project();
    const elsewhere = tempDir();
    mkdirSync(join(repo.dir, ".claude"));
    symlinkSync(elsewhere, join(repo.dir, ".claude", "worktrees"));
    expect(await rejection(createWorktree({ root: repo.dir, name: "x" }))).toMatchObject({ code: "unsafe_repository" });
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(branches(repo)).toEqual(["main"]);
  });
});

describe("permission", () => {
  it("workspace-write writes only inside the repository; elsewhere needs danger-full-access", async () => {
    const repo = project();
    const outside = join(tempDir(), "wts");
    const error = await rejection(createWorktree({ root: repo.dir, name: "x", settings: { directory: outside } }));
    expect(error.code).toBe("permission_denied");
    expect(error.hint).toContain("danger-full-access");
    expect(existsSync(outside)).toBe(false);
    expect(await rejection(createWorktree({ root: repo.dir, name: "x", mode: "read-only" }))).toMatchObject({ code: "permission_denied" });
    const created = await createWorktree({ root: repo.dir, name: "x", settings: { directory: outside }, mode: "danger-full-access" });
    expect(created.path).toBe(join(realpathSync(join(outside, "..")), "wts", "x"));
    expect((await rejection(removeWorktree({ root: repo.dir, name: "x", settings: { directory: outside } }))).code).toBe("permission_denied");
    await removeWorktree({ root: repo.dir, name: "x", settings: { directory: outside }, mode: "danger-full-access" });
    expect(existsSync(created.path)).toBe(false);
  });
});

describe("post-processing", () => {
  it("copies only gitignored files .worktreeinclude selects: never tracked ones, symlinks or over existing files", async () => {
    const repo = project();
    repo.write(".gitignore", "node_modules/\n.env\n*.local\nbuild/\n");
    repo.write(".worktreeinclude", ".env\n*.local\nbuild/\ntracked.txt\n");
    repo.write("tracked.txt", "tracked\n");
    repo.commit("include");
    repo.write(".env", "SECRET=1\n");
    repo.write("conf/app.local", "local\n");
    repo.write("other.local", "x\n");
    repo.write("build/out/bundle.js", "bundle\n");
    repo.write("not-selected.txt", "x\n");
    repo.write("tracked.txt", "changed in main\n");
    const secret = join(tempDir(), "secret");
    writeFileSync(secret, "not for the worktree\n");
    repo.symlink("link.local", secret);
    const created = await createWorktree({ root: repo.dir, name: "inc" });
    expect([...created.copied].sort()).toEqual([".env", "build/out/bundle.js", "conf/app.local", "other.local"]);
    expect(readFileSync(join(created.path, ".env"), "utf8")).toBe("SECRET=1\n");
    expect(readFileSync(join(created.path, "tracked.txt"), "utf8")).toBe("tracked\n");
    expect(existsSync(join(created.path, "link.local"))).toBe(false);
    expect(existsSync(join(created.path, "not-selected.txt"))).toBe(false);
    expect(created.notes.join("\n")).toContain("Did not copy 1 symbolic link");
    // The copies are gitctx's own: they do not stop the removal.
    expect((await removeWorktree({ root: repo.dir, name: "inc" })).removed).toBe(true);
    expect(readFileSync(join(repo.dir, ".env"), "utf8")).toBe("SECRET=1\n");
  });

  it("copies .claude/settings.local.json, links only directories the main checkout has, and leaves a tracked vendor alone", async () => {
    const repo = project();
    repo.write("vendor/lib.php", "<?php\n");
    repo.write(".claude/settings.json", '{"tracked": true}\n');
    repo.commit("vendor and settings");
    repo.write(".claude/settings.local.json", '{"local": true}\n');
    repo.write(".venv/bin/python", "#!/bin/sh\n");
    repo.write(".gitignore", "node_modules/\n.env\n.venv/\n.claude/settings.local.json\n");
    repo.commit("ignore");
    const created = await createWorktree({ root: repo.dir, name: "post" });
    expect(created.links.map((link) => link.path).sort()).toEqual([".venv", "node_modules"]);
    expect(lstatSync(join(created.path, "vendor")).isDirectory()).toBe(true);
    expect(created.notes.join("\n")).toContain("Did not link vendor");
    expect(created.copied).toEqual([".claude/settings.local.json"]);
    expect(readFileSync(join(created.path, ".claude", "settings.local.json"), "utf8")).toBe('{"local": true}\n');
  });

  it("checks out only the sparse paths, in cone mode", async () => {
    const repo = project();
    repo.write("packages/a/index.ts", "a\n");
    repo.write("packages/b/index.ts", "b\n");
    repo.write("docs/readme.md", "docs\n");
    repo.commit("packages");
    const created = await createWorktree({ root: repo.dir, name: "sparse", settings: { sparsePaths: ["packages/a"] } });
    expect(existsSync(join(created.path, "packages", "a", "index.ts"))).toBe(true);
    expect(existsSync(join(created.path, "packages", "b"))).toBe(false);
    expect(existsSync(join(created.path, "docs"))).toBe(false);
    expect(existsSync(join(created.path, "a.txt"))).toBe(true); // cone mode keeps the top-level files
    expect(plainGit(created.path, ["status", "--porcelain"], fixtureEnv()).stdout).toBe("");
    expect((await removeWorktree({ root: repo.dir, name: "sparse" })).removed).toBe(true);
  });

  it("reads links and sparse paths from .claude/settings.json only when allowed", async () => {
    const repo = project();
    repo.write("deps/x.txt", "x\n");
    repo.write(".claude/settings.json", JSON.stringify({ worktree: { symlinkDirectories: ["deps"] } }));
    repo.write(".gitignore", "node_modules/\n.env\ndeps/\n");
    repo.commit("settings");
    expect((await createWorktree({ root: repo.dir, name: "off" })).links.map((l) => l.path)).toEqual(["node_modules"]);
    expect((await createWorktree({ root: repo.dir, name: "on", settings: { projectSettings: true } })).links.map((l) => l.path)).toEqual(["deps"]);
  });

  it("checks out submodules from the repository's own .git/modules, never the network, or says it left them empty", async () => {
    const library = makeRepo();
    library.write("lib.txt", "library\n");
    library.commit("library");
    const repo = project();
    repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", library.dir, "libs/lib"]);
    repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", library.dir, "libs/unfetched"]);
    repo.commit("submodules");
    // Point both at a URL that cannot be reached, and drop the local copy of the second one.
    for (const name of ["libs/lib", "libs/unfetched"]) {
      repo.git(["config", `submodule.${name}.url`, "https://unreachable.invalid/lib.git"]);
    }
    repo.git(["-C", "libs/lib", "remote", "set-url", "origin", "https://unreachable.invalid/lib.git"]);
    repo.git(["submodule", "deinit", "-q", "-f", "libs/unfetched"]);
    rmSync(join(repo.dir, ".git", "modules", "libs", "unfetched"), { recursive: true, force: true });

    const created = await createWorktree({ root: repo.dir, name: "subs" });
    expect(created.submodules).toEqual([
      { name: "libs/lib", path: "libs/lib", state: "checked-out" },
      expect.objectContaining({
        name: "libs/unfetched",
        path: "libs/unfetched",
        state: "left-empty",
        command: `cd ${created.path} && git submodule update --init -- libs/unfetched`,
      }),
    ]);
    expect(readFileSync(join(created.path, "libs", "lib", "lib.txt"), "utf8")).toBe("library\n");
    expect(readdirSync(join(created.path, "libs", "unfetched"))).toEqual([]);
    expect(plainGit(join(created.path, "libs", "lib"), ["remote", "get-url", "origin"]).stdout.trim()).toBe("https://unreachable.invalid/lib.git");
    expect(created.notes.join("\n")).toContain("Left submodule libs/unfetched empty");
    // The main checkout's config is as it was.
    expect(repo.git(["config", "submodule.libs/lib.url"]).trim()).toBe("https://unreachable.invalid/lib.git");
    expect((await removeWorktree({ root: repo.dir, name: "subs" })).removed).toBe(true);
    expect(existsSync(created.path)).toBe(false);
    expect(readFileSync(join(repo.dir, "libs", "lib", "lib.txt"), "utf8")).toBe("library\n");
  });
});

describe("the sweep", () => {
  it("removes stale, clean, merged gitctx worktrees and keeps the others, saying why", async () => {
    const repo = project();
    const theirs = join(tempDir(), "theirs");
    repo.git(["worktree", "add", "-q", "-b", "theirs", theirs]);
    await createWorktree({ root: repo.dir, name: "old-clean" });
    const dirty = await createWorktree({ root: repo.dir, name: "old-dirty" });
    writeFileSync(join(dirty.path, "wip.txt"), "x\n");
    const ahead = await createWorktree({ root: repo.dir, name: "old-ahead" });
    writeFileSync(join(ahead.path, "a.txt"), "ahead\n");
    plainGit(ahead.path, ["commit", "-qam", "ahead"]);
    await createWorktree({ root: repo.dir, name: "old-held", lock: `gitctx session live0000 (pid ${process.pid} on ${hostname()})` });
    const later = new Date(Date.now() + 8 * 24 * 60 * 60 * 1000);

    expect((await cleanupWorktrees({ root: repo.dir })).removed).toEqual([]);
    const listed = await listWorktrees({ root: repo.dir, now: later });
    expect(Object.fromEntries(listed.filter((w) => w.gitctx).map((w) => [w.name, w.stale]))).toEqual({
      "old-ahead": true,
      "old-clean": true,
      "old-dirty": true,
      "old-held": false,
    });
    expect(listed.find((w) => w.path === theirs)).toMatchObject({ gitctx: false, stale: false, dirty: false });

    const dry = await cleanupWorktrees({ root: repo.dir, now: later, dryRun: true });
    expect(dry.removed.map((w) => w.name)).toEqual(["old-clean"]);
    expect(existsSync(worktreePath(repo, "old-clean"))).toBe(true);
    const report = await cleanupWorktrees({ root: repo.dir, now: later });
    expect(report.removed.map((w) => w.name)).toEqual(["old-clean"]);
    expect(Object.fromEntries(report.kept.map((k) => [k.name, k.reason]))).toEqual({
      "old-ahead": "1 commit on no other branch, tag or upstream",
      "old-dirty": "1 uncommitted file",
      "old-held": `in use by gitctx session live0000 (pid ${process.pid} on ${hostname()})`,
    });
    expect(existsSync(worktreePath(repo, "old-clean"))).toBe(false);
    expect(existsSync(theirs)).toBe(true);
    expect(branches(repo)).toEqual(["main", "theirs", "worktree-old-ahead", "worktree-old-dirty", "worktree-old-held"]);
  });
});

describe("the session: enter_worktree and exit_worktree", () => {
  let tmp: string;
  let savedTmp: string | undefined;
  beforeEach(() => {
    savedTmp = process.env.TMPDIR;
    tmp = tempDir("gitctx-worktree-tmp-");
    process.env.TMPDIR = tmp;
  });
  afterEach(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  });

  it("enter, work inside (status, diff, context), exit keep, re-enter, exit remove: a round trip", async () => {
    const repo = project();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      const entered = data(await toolbox.execute("enter_worktree", { name: "trip" }));
      expect(entered).toMatchObject({ name: "trip", worktreePath: worktreePath(repo, "trip"), branch: "worktree-trip", created: true });
      expect(toolbox.root).toBe(entered.worktreePath);
      expect(readFileSync(join(repo.dir, ".git", "worktrees", "trip", "locked"), "utf8")).toMatch(/^gitctx session [0-9a-f]{8} \(pid \d+ on /);

      writeFileSync(join(toolbox.root, "a.txt"), "inside\n");
      const status = data(await toolbox.execute("git_status", {}));
      expect(status.branch.head).toBe("worktree-trip");
      // The link to the main checkout's ignored node_modules is ignored too (info/exclude), so no one commits it.
      expect(status.entries.map((entry) => entry.path)).toEqual(["a.txt"]);
      expect(data(await toolbox.execute("git_diff", {})).files.map((file) => file.path)).toEqual(["a.txt"]);
      expect(data(await toolbox.execute("git_context", { sections: ["branch"] })).snapshot.topLevel).toBe(entered.worktreePath);
      // The main checkout did not change.
      expect(readFileSync(join(repo.dir, "a.txt"), "utf8")).toBe("one\n");

      const kept = data(await toolbox.execute("exit_worktree", { action: "keep" }));
      expect(kept).toMatchObject({ action: "keep", originalRoot: top(repo), worktreePath: entered.worktreePath, discardedFiles: 0 });
      expect(toolbox.root).toBe(top(repo));
      expect(existsSync(join(repo.dir, ".git", "worktrees", "trip", "locked"))).toBe(false);
      expect(data(await toolbox.execute("git_status", {})).branch.head).toBe("main");

      const again = data(await toolbox.execute("enter_worktree", { name: "trip" }));
      expect(again.created).toBe(false);
      expect(readFileSync(join(toolbox.root, "a.txt"), "utf8")).toBe("inside\n");
      const refused = errorOf(await toolbox.execute("exit_worktree", { action: "remove" }));
      expect(refused.code).toBe("uncommitted_changes");
      expect(toolbox.root).toBe(entered.worktreePath);
      const removed = data(await toolbox.execute("exit_worktree", { action: "remove", discard_changes: true }));
      expect(removed).toEqual({
        action: "remove",
        originalRoot: top(repo),
        worktreePath: entered.worktreePath,
        branch: "worktree-trip",
        discardedFiles: 1,
        discardedCommits: 0,
        notes: ["Discarded 1 uncommitted file."],
      });
      expect(toolbox.root).toBe(top(repo));
      expect(existsSync(entered.worktreePath)).toBe(false);
      expect(nodeModules(repo)).toBe("module.exports = 1;\n");
      expect(errorOf(await toolbox.execute("exit_worktree", { action: "keep" })).code).toBe("invalid_input");
    } finally {
      await toolbox.close();
    }
  });

  it("keeps the subdirectory the session started in", async () => {
    const repo = project();
    const toolbox = createToolbox({ root: join(repo.dir, "src"), mode: "workspace-write" });
    try {
      const entered = data(await toolbox.execute("enter_worktree", { name: "sub" }));
      expect(entered.root).toBe(join(entered.worktreePath, "src"));
      expect(toolbox.root).toBe(entered.root);
      expect(data(await toolbox.execute("exit_worktree", { action: "remove" })).originalRoot).toBe(join(top(repo), "src"));
    } finally {
      await toolbox.close();
    }
  });

  it("serialises two concurrent enter_worktree calls: the same name is made once and reopened", async () => {
    const repo = project();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      const [first, second] = await Promise.all([
        toolbox.execute("enter_worktree", { name: "race" }),
        toolbox.execute("enter_worktree", { name: "race" }),
      ]);
      expect([data(first).created, data(second).created]).toEqual([true, false]);
      expect(toolbox.root).toBe(worktreePath(repo, "race"));
      expect(registered(repo)).toHaveLength(2);
      // Two names: both made, the session ends in the second, the first is kept and no longer locked.
      const [a, b] = await Promise.all([toolbox.execute("enter_worktree", { name: "one" }), toolbox.execute("enter_worktree", { name: "two" })]);
      expect([data(a).created, data(b).created]).toEqual([true, true]);
      expect(toolbox.root).toBe(worktreePath(repo, "two"));
      expect(existsSync(join(repo.dir, ".git", "worktrees", "one", "locked"))).toBe(false);
      expect(existsSync(join(repo.dir, ".git", "worktrees", "race", "locked"))).toBe(false);
      expect(existsSync(join(repo.dir, ".git", "worktrees", "two", "locked"))).toBe(true);
    } finally {
      await toolbox.close();
    }
  });

  it("close() of a session in a worktree releases its lock and leaves no git process or temporary file", async () => {
    const repo = project();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    const entered = data(await toolbox.execute("enter_worktree", { name: "closing" }));
    expect(data(await toolbox.execute("git_diff", {})).files).toEqual([]);
    const lock = join(repo.dir, ".git", "worktrees", "closing", "locked");
    expect(existsSync(lock)).toBe(true);
    await toolbox.close();
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(tmp).filter((name) => name.startsWith("gitctx-private-"))).toEqual([]);
    expect(gitProcessesIn(repo.dir)).toEqual([]);
    expect(readdirSync(join(repo.dir, ".git", "worktrees", "closing")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    // The worktree itself is kept: closing a session loses nothing.
    expect(existsSync(join(entered.worktreePath, "a.txt"))).toBe(true);
    const listed = (await listWorktrees({ root: repo.dir })).find((w) => w.name === "closing")!;
    expect(listed.locked).toBe(false);
  });

  it("refuses a worktree another session holds, and takes over one whose session died", async () => {
    const repo = project();
    const one = createToolbox({ root: repo.dir, mode: "workspace-write" });
    const two = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      data(await one.execute("enter_worktree", { name: "shared" }));
      const refused = errorOf(await two.execute("enter_worktree", { name: "shared" }));
      expect(refused.code).toBe("worktree_locked");
      expect(two.root).toBe(top(repo));
      writeFileSync(join(repo.dir, ".git", "worktrees", "shared", "locked"), `gitctx session dead0000 (pid ${deadPid()} on ${hostname()})`);
      const taken = data(await two.execute("enter_worktree", { name: "shared" }));
      expect(taken.notes.join("\n")).toContain("Took over the lock of a session that is gone");
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("needs workspace-write, and writes nowhere outside the repository in that mode", async () => {
    const repo = project();
    const readOnly = createToolbox({ root: repo.dir });
    expect(errorOf(await readOnly.execute("enter_worktree", {})).code).toBe("permission_denied");
    await readOnly.close();
    const outside = join(tempDir(), "elsewhere");
    const confined = createToolbox({ root: repo.dir, mode: "workspace-write", worktrees: { directory: outside } });
    const error = errorOf(await confined.execute("enter_worktree", { name: "x" }));
    expect(error.code).toBe("permission_denied");
    expect(`${error.message} ${error.hint}`).toContain("danger-full-access");
    expect(existsSync(outside)).toBe(false);
    await confined.close();
    const full = createToolbox({ root: repo.dir, mode: "danger-full-access", worktrees: { directory: outside } });
    try {
      expect(data(await full.execute("enter_worktree", { name: "x" })).worktreePath).toBe(join(realpathSync(join(outside, "..")), "elsewhere", "x"));
      data(await full.execute("exit_worktree", { action: "remove" }));
    } finally {
      await full.close();
    }
  });

  it("finishes a removal that stopped after the session had left, on the next exit_worktree", async () => {
    const repo = project();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      const entered = data(await toolbox.execute("enter_worktree", { name: "half" }));
      const lock = join(repo.dir, ".git", "refs", "heads", "worktree-half.lock");
      writeFileSync(lock, "");
      const error = errorOf(await toolbox.execute("exit_worktree", { action: "remove" }));
      expect(error.code).toBe("git_failed");
      expect(error.hint).toContain('call exit_worktree with action "remove" again');
      expect(toolbox.root).toBe(top(repo));
      rmSync(lock);
      const finished = data(await toolbox.execute("exit_worktree", { action: "remove" }));
      expect(finished.worktreePath).toBe(entered.worktreePath);
      expect(existsSync(entered.worktreePath)).toBe(false);
      expect(branches(repo)).toEqual(["main"]);
    } finally {
      await toolbox.close();
    }
  });
});
