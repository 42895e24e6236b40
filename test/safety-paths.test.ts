/** `.git` write protection (`isGitInternalPath`) and the index lock check, on real repositories. */
import { mkdirSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkIndexLock, isGitInternalPath } from "../src/index.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("src/a.ts", "a\n");
  repo.commit("first");
  return repo;
}

describe("isGitInternalPath", () => {
  it("is true inside .git and for .git itself, false for the work tree and .git* files", () => {
    const repo = committedRepo();
    const inside = [".git", ".git/config", ".git/hooks/pre-commit", "./.git/HEAD", "src/../.git/index", "src/sub/.git/x", join(repo.dir, ".git", "refs")];
    const outside = ["src/a.ts", ".gitignore", ".gitattributes", ".gitmodules", "git/config", ".git-blame-ignore-revs", "src/.github/x", "../elsewhere/.gitx"];
    expect(inside.filter((p) => !isGitInternalPath(p, repo.dir))).toEqual([]);
    expect(outside.filter((p) => isGitInternalPath(p, repo.dir))).toEqual([]);
  });

  it("follows symlinks, including dangling ones a write would create the target of", () => {
    const repo = committedRepo();
    repo.symlink("link", ".git");
    repo.symlink("hooklink", ".git/hooks/post-checkout"); // does not exist yet
    repo.symlink("abs", join(realpathSync(repo.dir), ".git", "hooks"));
    repo.symlink("chain", "link");
    repo.symlink("fine", "src");
    expect(isGitInternalPath("link/config", repo.dir)).toBe(true);
    expect(isGitInternalPath("link", repo.dir)).toBe(true);
    expect(isGitInternalPath("hooklink", repo.dir)).toBe(true);
    expect(isGitInternalPath("abs/pre-push", repo.dir)).toBe(true);
    expect(isGitInternalPath("chain/HEAD", repo.dir)).toBe(true);
    expect(isGitInternalPath("fine/a.ts", repo.dir)).toBe(false);
  });

  it("covers a git directory outside the work tree (--separate-git-dir) and the common dir of a linked worktree", () => {
    const store = tempDir("gitctx-safety-store-");
    const gitDir = join(store, "repo.git");
    const tree = join(tempDir(), "tree");
    const repo = makeRepo({ dir: tree });
    // Re-initialise with the git directory elsewhere: .git becomes a `gitdir:` file.
    repo.git(["init", "-q", "--separate-git-dir", gitDir]);
    repo.write("a.txt", "a\n");
    repo.commit("first");
    const wt = join(tempDir(), "wt");
    repo.git(["worktree", "add", "-q", wt]);
    symlinkSync(gitDir, join(tree, "store"));

    expect(isGitInternalPath(".git", tree)).toBe(true); // the gitdir: file
    expect(isGitInternalPath(join(gitDir, "config"), tree)).toBe(true);
    expect(isGitInternalPath("store/hooks/pre-commit", tree)).toBe(true);
    expect(isGitInternalPath("a.txt", tree)).toBe(false);
    // From the linked worktree: its own git directory and the common directory it shares.
    expect(isGitInternalPath(".git", wt)).toBe(true);
    expect(isGitInternalPath(join(gitDir, "worktrees", "wt", "HEAD"), wt)).toBe(true);
    expect(isGitInternalPath(join(gitDir, "config"), wt)).toBe(true);
    expect(isGitInternalPath(join(gitDir, "hooks", "pre-commit"), wt)).toBe(true);
    expect(isGitInternalPath("a.txt", wt)).toBe(false);
    expect(isGitInternalPath(join(store, "notes.txt"), wt)).toBe(false);
  });

  it("treats case and other name variants as .git on a case-insensitive file system only", () => {
    const repo = committedRepo();
    const variants = [".GIT/config", ".Git/hooks/x", ".git./config", ".git /config", "GIT~1/config", ".g\u200cit/config", ".gi\ufefft"];
    expect(variants.filter((p) => !isGitInternalPath(p, repo.dir, { caseInsensitive: true }))).toEqual([]);
    expect(variants.filter((p) => isGitInternalPath(p, repo.dir, { caseInsensitive: false }))).toEqual([]);
    // This machine's file system is case-sensitive, which the default detects.
    expect(isGitInternalPath(".GIT/config", repo.dir)).toBe(false);
  });

  it("works for paths that do not exist and roots outside any repository", () => {
    const dir = tempDir();
    expect(isGitInternalPath("new/dir/file.txt", dir)).toBe(false);
    expect(isGitInternalPath("vendor/x/.git/config", dir)).toBe(true);
  });
});

describe("checkIndexLock", () => {
  it("reports no lock, a fresh lock and a stale one", async () => {
    const repo = committedRepo();
    const lock = join(realpathSync(repo.dir), ".git", "index.lock");
    expect(await checkIndexLock(repo.dir)).toEqual({ locked: false, stale: false, ageMs: null, path: lock });
    writeFileSync(lock, "");
    const mtime = Date.UTC(2024, 0, 1) / 1000;
    utimesSync(lock, mtime, mtime);
    expect(await checkIndexLock(repo.dir, { now: mtime * 1000 + 1_000 })).toEqual({ locked: true, stale: false, ageMs: 1_000, path: lock });
    expect(await checkIndexLock(repo.dir, { now: mtime * 1000 + 30_001 })).toEqual({ locked: true, stale: true, ageMs: 30_001, path: lock });
    expect(await checkIndexLock(join(repo.dir, "src"), { now: mtime * 1000 + 5_000, staleAfterMs: 2_000 })).toEqual({
      locked: true,
      stale: true,
      ageMs: 5_000,
      path: lock,
    });
  });

  it("looks in a linked worktree's own git directory", async () => {
    const repo = committedRepo();
    const wt = join(tempDir(), "wt");
    repo.git(["worktree", "add", "-q", wt]);
    const own = join(realpathSync(repo.dir), ".git", "worktrees", "wt", "index.lock");
    expect((await checkIndexLock(wt)).path).toBe(own);
    writeFileSync(join(repo.dir, ".git", "index.lock"), "");
    expect((await checkIndexLock(wt)).locked).toBe(false);
    mkdirSync(join(repo.dir, ".git", "worktrees", "wt"), { recursive: true });
    writeFileSync(own, "");
    expect((await checkIndexLock(wt)).locked).toBe(true);
  });

  it("is unlocked outside a repository", async () => {
    expect(await checkIndexLock(tempDir())).toEqual({ locked: false, stale: false, ageMs: null, path: null });
  });
});
