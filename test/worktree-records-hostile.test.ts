/**
 * A worktree record a repository ships: `.git/worktrees/<id>/` (git's `gitdir`, `HEAD`, `commondir`) with gitctx's
 * own `gitctx.json` in it, as an unpacked archive can hold, naming a directory that is no worktree at all: a folder
 * of ignored files in the checkout, or a directory outside it. git takes the record for a worktree (`git worktree
 * list` shows it) but refuses to remove the directory (its `.git` does not lead back); gitctx used to trust the
 * record, read the directory as the worktree (its `config.worktree` ignoring every file there, so nothing looked
 * lost) and, when `git worktree remove` failed, delete it itself. Now the directory must lead back to the record.
 */
import { existsSync, mkdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanupWorktrees, createWorktree, listWorktrees, removeWorktree, type GitctxError } from "../src/index.js";
import { makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const OLD = new Date("2020-01-01T00:00:00Z");

/** Plants `.git/worktrees/<id>` naming `victim` as its worktree, with a gitctx record two years old. */
function plantRecord(repo: TestRepo, id: string, victim: string): void {
  const admin = join(repo.dir, ".git", "worktrees", id);
  mkdirSync(admin, { recursive: true });
  writeFileSync(join(admin, "gitdir"), `${join(victim, ".git")}\n`);
  writeFileSync(join(admin, "commondir"), "../..\n");
  writeFileSync(join(admin, "HEAD"), "ref: refs/heads/main\n");
  // Seen from the planted worktree alone, every file is ignored: its status is clean, so no loss stops the removal.
  repo.git(["config", "extensions.worktreeConfig", "true"]);
  writeFileSync(join(admin, "ignore-all"), "*\n");
  writeFileSync(join(admin, "config.worktree"), `[core]\n\texcludesFile = ${join(admin, "ignore-all")}\n`);
  const record = {
    version: 1,
    name: id,
    branch: `worktree-${id}`,
    base: repo.git(["rev-parse", "HEAD"]).trim(),
    path: victim,
    createdAt: OLD.toISOString(),
    lastUsedAt: OLD.toISOString(),
    links: [],
    copies: [],
    submodules: [],
  };
  writeFileSync(join(admin, "gitctx.json"), JSON.stringify(record));
  utimesSync(join(admin, "HEAD"), OLD, OLD);
}

function project(): { repo: TestRepo; top: string } {
  const repo = makeRepo();
  repo.write(".gitignore", "data/\n").write("a.txt", "one\n").commit("first");
  const top = realpathSync(repo.dir);
  mkdirSync(join(top, "data"));
  writeFileSync(join(top, "data", "unpushed.txt"), "work never committed\n");
  return { repo, top };
}

describe("a worktree record the repository ships, naming a directory that is not a worktree", () => {
  it("git lists it as a worktree but will not remove the directory; gitctx neither reads nor deletes it", async () => {
    const { repo, top } = project();
    plantRecord(repo, "evil", join(top, "data"));
    // git takes the record for a worktree, and refuses to remove a directory whose .git does not lead back.
    expect(repo.git(["worktree", "list", "--porcelain"])).toContain(`worktree ${join(top, "data")}`);
    expect(plainGit(top, ["worktree", "remove", "--force", join(top, "data")]).status).not.toBe(0);
    expect(readFileSync(join(top, "data", "unpushed.txt"), "utf8")).toBe("work never committed\n");

    const listed = await listWorktrees({ root: top });
    const planted = listed.find((worktree) => worktree.name === "evil");
    expect(planted).toMatchObject({ gitctx: true, changedFiles: null });
    expect(planted?.problem).toContain("is not the worktree git's record");

    const swept = await cleanupWorktrees({ root: top });
    expect(swept.removed).toEqual([]);
    expect(swept.kept).toMatchObject([{ name: "evil" }]);
    expect(swept.kept[0]!.reason).toContain("it has no .git file");

    for (const discardChanges of [false, true]) {
      const error = await removeWorktree({ root: top, name: "evil", discardChanges }).catch((thrown: unknown) => thrown as GitctxError);
      expect(error).toMatchObject({ code: "unsafe_repository" });
    }
    expect(readFileSync(join(top, "data", "unpushed.txt"), "utf8")).toBe("work never committed\n");
  });

  it("a directory outside the checkout is left whole even in danger-full-access mode", async () => {
    const { repo, top } = project();
    const outside = realpathSync(tempDir("gitctx-record-victim-"));
    writeFileSync(join(outside, "precious.txt"), "keep me\n");
    plantRecord(repo, "away", outside);
    const swept = await cleanupWorktrees({ root: top, mode: "danger-full-access" });
    expect(swept.removed).toEqual([]);
    const error = await removeWorktree({ root: top, name: "away", discardChanges: true, mode: "danger-full-access" }).catch(
      (thrown: unknown) => thrown as GitctxError,
    );
    expect(error).toMatchObject({ code: "unsafe_repository" });
    expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("keep me\n");
  });

  it("a directory whose .git leads to another worktree's record is not this one's either", async () => {
    const { repo, top } = project();
    const real = await createWorktree({ root: top, name: "real" });
    plantRecord(repo, "twin", real.path);
    const error = await removeWorktree({ root: top, name: "twin", discardChanges: true }).catch((thrown: unknown) => thrown as GitctxError);
    expect(error).toMatchObject({ code: "unsafe_repository" });
    expect((error as GitctxError).message).toContain(`its .git file leads to ${join(top, ".git", "worktrees", "real")}`);
    expect(existsSync(join(real.path, "a.txt"))).toBe(true);
  });

  it("a link the record lists outside its worktree is not unlinked", async () => {
    const { repo, top } = project();
    const created = await createWorktree({ root: top, name: "work" });
    const target = tempDir("gitctx-record-link-");
    symlinkSync(target, join(top, "mine"));
    const file = join(top, ".git", "worktrees", "work", "gitctx.json");
    const record = JSON.parse(readFileSync(file, "utf8")) as { links: Array<{ path: string; target: string }> };
    record.links.push({ path: "../../../mine", target }, { path: join(top, "mine"), target });
    writeFileSync(file, JSON.stringify(record));
    await removeWorktree({ root: top, name: "work" });
    expect(existsSync(created.path)).toBe(false);
    expect(readlinkSync(join(top, "mine"))).toBe(target);
    expect(repo.git(["worktree", "list", "--porcelain"])).not.toContain(created.path);
  });

  it("a branch the record names that gitctx would not have made outlives the removal and the sweep", async () => {
    const { repo, top } = project();
    // `release` has nothing of its own (it is where main is), so no loss check stops its deletion.
    repo.git(["branch", "release"]);
    for (const sweep of [false, true]) {
      const created = await createWorktree({ root: top, name: sweep ? "old" : "work" });
      const file = join(top, ".git", "worktrees", created.name, "gitctx.json");
      const record = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      writeFileSync(file, JSON.stringify({ ...record, branch: "release", createdAt: OLD.toISOString(), lastUsedAt: OLD.toISOString() }));
      if (sweep) {
        for (const name of ["index", "HEAD", join("logs", "HEAD")]) utimesSync(join(top, ".git", "worktrees", created.name, name), OLD, OLD);
        const swept = await cleanupWorktrees({ root: top, now: new Date() });
        expect(swept.kept).toEqual([]);
        expect(swept.removed.map((removed) => removed.name)).toEqual(["old"]);
      } else {
        const removed = await removeWorktree({ root: top, name: "work" });
        expect(removed).toMatchObject({ removed: true, branchDeleted: false });
        expect(removed.notes.join("\n")).toContain("Kept the branch release: gitctx names the branch of the worktree work worktree-work");
      }
      expect(existsSync(created.path)).toBe(false);
      expect(repo.git(["branch", "--list", "release"])).toContain("release");
    }
  });
});
