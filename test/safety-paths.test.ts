/** `.git` write protection (`isGitInternalPath`) and the index lock check, on real repositories. */
import { realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkIndexLock, isGitInternalPath } from "../src/index.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

/** The paths for which `check` answers `unwanted`. */
async function rejected(paths: string[], check: (path: string) => Promise<boolean>, unwanted: boolean): Promise<string[]> {
  const answers = await Promise.all(paths.map(check));
  return paths.filter((_, i) => answers[i] === unwanted);
}

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("src/a.ts", "a\n");
  repo.commit("first");
  return repo;
}

describe("isGitInternalPath", () => {
  it("is true inside .git and for .git itself, false for the work tree and .git* files", async () => {
    const repo = committedRepo();
    const inside = [
      ".git",
      ".git/config",
      ".git/hooks/pre-commit",
      "./.git/HEAD",
      "src/../.git/index",
      "src/sub/.git/x",
      join(repo.dir, ".git", "refs"),
    ];
    const outside = [
      "src/a.ts",
      ".gitignore",
      ".gitattributes",
      ".gitmodules",
      "git/config",
      ".git-blame-ignore-revs",
      "src/.github/x",
      "../elsewhere/.gitx",
    ];
    expect(await rejected(inside, (p) => isGitInternalPath(p, repo.dir), false)).toEqual([]);
    expect(await rejected(outside, (p) => isGitInternalPath(p, repo.dir), true)).toEqual([]);
  });

  it("follows symlinks, including dangling ones a write would create the target of", async () => {
    const repo = committedRepo();
    repo.symlink("link", ".git");
    repo.symlink("hooklink", ".git/hooks/post-checkout"); // does not exist yet
    repo.symlink("abs", join(realpathSync(repo.dir), ".git", "hooks"));
    repo.symlink("chain", "link");
    repo.symlink("fine", "src");
    expect(await isGitInternalPath("link/config", repo.dir)).toBe(true);
    expect(await isGitInternalPath("link", repo.dir)).toBe(true);
    expect(await isGitInternalPath("hooklink", repo.dir)).toBe(true);
    expect(await isGitInternalPath("abs/pre-push", repo.dir)).toBe(true);
    expect(await isGitInternalPath("chain/HEAD", repo.dir)).toBe(true);
    expect(await isGitInternalPath("fine/a.ts", repo.dir)).toBe(false);
  });

  it("covers a git directory outside the work tree (--separate-git-dir) and the common dir of a linked worktree", async () => {
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

    expect(await isGitInternalPath(".git", tree)).toBe(true); // the gitdir: file
    expect(await isGitInternalPath(join(gitDir, "config"), tree)).toBe(true);
    expect(await isGitInternalPath("store/hooks/pre-commit", tree)).toBe(true);
    expect(await isGitInternalPath("a.txt", tree)).toBe(false);
    // From the linked worktree: its own git directory and the common directory it shares.
    expect(await isGitInternalPath(".git", wt)).toBe(true);
    expect(await isGitInternalPath(join(gitDir, "worktrees", "wt", "HEAD"), wt)).toBe(true);
    expect(await isGitInternalPath(join(gitDir, "config"), wt)).toBe(true);
    expect(await isGitInternalPath(join(gitDir, "hooks", "pre-commit"), wt)).toBe(true);
    expect(await isGitInternalPath("a.txt", wt)).toBe(false);
    expect(await isGitInternalPath(join(store, "notes.txt"), wt)).toBe(false);
  });

  it("treats case and other name variants as .git on a case-insensitive file system only", async () => {
    const repo = committedRepo();
    const variants = [".GIT/config", ".Git/hooks/x", ".git./config", ".git /config", "GIT~1/config", ".g\u200cit/config", ".gi\ufefft"];
    expect(await rejected(variants, (p) => isGitInternalPath(p, repo.dir, { caseInsensitive: true }), false)).toEqual([]);
    expect(await rejected(variants, (p) => isGitInternalPath(p, repo.dir, { caseInsensitive: false }), true)).toEqual([]);
    // This machine's file system is case-sensitive, which the default detects.
    expect(await isGitInternalPath(".GIT/config", repo.dir)).toBe(false);
  });

  it("works for paths that do not exist and roots outside any repository", async () => {
    const dir = tempDir();
    expect(await isGitInternalPath("new/dir/file.txt", dir)).toBe(false);
    expect(await isGitInternalPath("vendor/x/.git/config", dir)).toBe(true);
  });
});

describe("checkIndexLock", () => {
  it("reports no lock, a fresh lock and a stale one", async () => {
    const repo = committedRepo();
    const lock = join(realpathSync(repo.dir), ".git", "index.lock");
    expect(await checkIndexLock(repo.dir)).toBeNull();
    writeFileSync(lock, "");
    const mtime = Date.UTC(2024, 0, 1) / 1000;
    utimesSync(lock, mtime, mtime);
    const at = (ms: number): Date => new Date(mtime * 1000 + ms);
    const modifiedAt = "2024-01-01T00:00:00.000Z";
    expect(await checkIndexLock(repo.dir, { now: at(1_000) })).toEqual({ path: lock, modifiedAt, ageSeconds: 1, stale: false });
    expect(await checkIndexLock(repo.dir, { now: at(30_001) })).toEqual({ path: lock, modifiedAt, ageSeconds: 30, stale: true });
    expect(await checkIndexLock(join(repo.dir, "src"), { now: at(5_000), staleAfterMs: 2_000 })).toEqual({
      path: lock,
      modifiedAt,
      ageSeconds: 5,
      stale: true,
    });
  });

  it("looks in a linked worktree's own git directory", async () => {
    const repo = committedRepo();
    const wt = join(tempDir(), "wt");
    repo.git(["worktree", "add", "-q", wt]);
    const own = join(realpathSync(repo.dir), ".git", "worktrees", "wt", "index.lock");
    writeFileSync(join(repo.dir, ".git", "index.lock"), "");
    expect(await checkIndexLock(wt)).toBeNull();
    writeFileSync(own, "");
    expect((await checkIndexLock(wt))?.path).toBe(own);
  });

  it("is unlocked outside a repository", async () => {
    expect(await checkIndexLock(tempDir())).toBeNull();
  });
});
