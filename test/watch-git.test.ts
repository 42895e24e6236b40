/**
 * Git events, read from the git directory's content: commit, switch, detach, reset, stash, a merge stopped on a
 * conflict and then finished, staging, and what must not be an event (a plain `git status`, `git pack-refs`).
 * A "nothing happened" claim is checked against a sentinel: an action that does produce an event, after which
 * anything the first action caused would already have been reported.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WatchEvent } from "../src/index.js";
import { cloneRepo, fixtureEnv, makeRepo, plainGit, TestRepo } from "./fixtures/repo.js";
import { locationOf, type Recorder, watch, worktreeLocation } from "./fixtures/watch.js";

function repoWithHistory(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\n").write("b.txt", "bee\n").commit("first");
  repo.write("a.txt", "two\n").commit("second");
  return repo;
}

const gitEvents = (events: WatchEvent[]): string[] => events.filter((event) => event.category === "git").map((event) => event.kind);

let sentinels = 0;
/** Creates a branch (a `refs_updated` event) and waits for it: whatever happened before has been reported by then. */
async function sentinel(repo: TestRepo, recorder: Recorder, seq: number): Promise<void> {
  const name = `sentinel-${++sentinels}`;
  repo.git(["branch", name]);
  await recorder.next((event) => event.kind === "refs_updated" && JSON.stringify(event.git?.refs ?? []).includes(name), seq, `the ${name} branch`);
}

describe("git events", () => {
  it("commit, switch, switch --detach and reset --soft", async () => {
    const repo = repoWithHistory();
    const { recorder } = await watch(repo);

    let seq = recorder.seq;
    repo.write("a.txt", "three\n").commit("third");
    const commit = await recorder.next((event) => event.kind === "commit", seq, "the commit");
    expect(commit).toMatchObject({ category: "git", git: { toBranch: "main", toOid: repo.head(), reason: "commit: third" } });
    expect(commit.summary).toBe(`commit ${repo.head().slice(0, 7)} on main: third`);

    seq = recorder.seq;
    repo.git(["switch", "-q", "-c", "feature"]);
    const switched = await recorder.next((event) => event.kind === "branch_switched", seq, "the switch");
    expect(switched.git).toMatchObject({ fromBranch: "main", toBranch: "feature" });

    seq = recorder.seq;
    repo.git(["switch", "-q", "--detach", "HEAD~1"]);
    const detached = await recorder.next((event) => event.kind === "detached", seq, "the detach");
    expect(detached.git).toMatchObject({ fromBranch: "feature", toBranch: null, toOid: repo.head() });

    seq = recorder.seq;
    repo.git(["switch", "-q", "feature"]);
    await recorder.next((event) => event.kind === "branch_switched", seq, "back on feature");

    seq = recorder.seq;
    const before = repo.head();
    repo.git(["reset", "-q", "--soft", "HEAD~1"]);
    const reset = await recorder.next((event) => event.kind === "reset", seq, "the reset");
    expect(reset.git).toMatchObject({ fromOid: before, toOid: repo.head(), reason: "reset: moving to HEAD~1" });
    await sentinel(repo, recorder, seq);
    // reset --soft leaves the index as it was: no staged event on top of the reset.
    expect(gitEvents(recorder.after(seq))).toEqual(["reset", "refs_updated"]);
  });

  it("git add is staged, git restore --staged is unstaged, and a plain git status is nothing", async () => {
    const repo = repoWithHistory();
    const { recorder } = await watch(repo);

    let seq = recorder.seq;
    repo.write("b.txt", "changed\n");
    repo.git(["add", "b.txt"]);
    const staged = await recorder.next((event) => event.kind === "staged", seq, "git add");
    expect(staged).toMatchObject({ paths: ["b.txt"], count: 1, summary: "staged 1 path: b.txt" });

    seq = recorder.seq;
    repo.git(["restore", "--staged", "b.txt"]);
    const unstaged = await recorder.next((event) => event.kind === "unstaged", seq, "git restore --staged");
    expect(unstaged).toMatchObject({ paths: ["b.txt"] });

    // git status refreshes the index's stat data and writes it back: the entries are the same, so no event.
    seq = recorder.seq;
    repo.write("a.txt", "two\n"); // same content, new mtime: status has something to refresh
    const index = join(repo.dir, ".git", "index");
    const inode = statSync(index).ino;
    expect(plainGit(repo.dir, ["status", "--porcelain"], fixtureEnv()).status).toBe(0);
    // The attack on a naive watcher is real: git did write a new index file.
    expect(statSync(index).ino).not.toBe(inode);
    await sentinel(repo, recorder, seq);
    expect(gitEvents(recorder.after(seq))).toEqual(["refs_updated"]);
  });

  it("git pack-refs --all moves refs between files and is no event", async () => {
    const repo = repoWithHistory();
    repo.git(["branch", "topic"]);
    repo.git(["tag", "v1"]);
    const { recorder } = await watch(repo);
    const seq = recorder.seq;
    expect(existsSync(join(repo.dir, ".git", "refs", "heads", "topic"))).toBe(true);
    repo.git(["pack-refs", "--all"]);
    // The loose ref files are gone, their values are in packed-refs now.
    expect(existsSync(join(repo.dir, ".git", "refs", "heads", "topic"))).toBe(false);
    await sentinel(repo, recorder, seq);
    expect(gitEvents(recorder.after(seq))).toEqual(["refs_updated"]);
  });

  it("git stash is one stash event, and popping it says the stash shrank", async () => {
    const repo = repoWithHistory();
    const { recorder } = await watch(repo);
    let seq = recorder.seq;
    repo.write("a.txt", "work in progress\n");
    await recorder.next((event) => event.paths.includes("a.txt"), seq, "the edit");

    seq = recorder.seq;
    repo.git(["stash", "-q"]);
    const stash = await recorder.next((event) => event.kind === "stash", seq, "the stash");
    expect(stash.git?.stash).toEqual({ action: "push", entries: 1 });
    // The stash put a.txt back: a file event caused by it.
    const restored = await recorder.next((event) => event.category === "source" && event.paths.includes("a.txt"), seq, "a.txt restored");
    expect(restored.cause).toEqual({ seq: stash.seq, kind: "stash" });
    await sentinel(repo, recorder, seq);
    // Not a reset (stash writes "reset: moving to HEAD" in HEAD's reflog) and not an unstaged change.
    expect(gitEvents(recorder.after(seq))).toEqual(["stash", "refs_updated"]);
    // An edit of the user's own a moment later is not the stash's doing.
    const later = recorder.seq;
    repo.write("b.txt", "the user's edit\n");
    const own = await recorder.next((event) => event.paths.includes("b.txt"), later, "the user's edit");
    expect(own.cause).toBeUndefined();

    seq = recorder.seq;
    repo.git(["stash", "pop", "-q"]);
    const pop = await recorder.next((event) => event.kind === "stash", seq, "the pop");
    expect(pop.git?.stash).toEqual({ action: "drop", entries: 0 });
  });

  it("a merge stopped on a conflict is merge_started with the conflicted files, then merge_finished", async () => {
    const repo = repoWithHistory();
    repo.git(["switch", "-q", "-c", "other"]);
    repo.write("a.txt", "theirs\n").commit("theirs");
    repo.git(["switch", "-q", "main"]);
    repo.write("a.txt", "ours\n").commit("ours");
    const { recorder } = await watch(repo);

    let seq = recorder.seq;
    const merge = plainGit(repo.dir, ["merge", "--no-edit", "other"], fixtureEnv());
    expect(merge.status).toBe(1);
    const started = await recorder.next((event) => event.kind === "merge_started", seq, "merge_started");
    expect(started).toMatchObject({ paths: ["a.txt"], git: { operation: "merge", conflicted: ["a.txt"] } });
    expect(started.summary).toBe("merge started on main: 1 conflicted (a.txt)");

    seq = recorder.seq;
    repo.write("a.txt", "resolved\n");
    repo.git(["add", "a.txt"]);
    await recorder.next((event) => event.kind === "staged", seq, "the resolution staged");
    repo.git(["commit", "-q", "--no-edit"]);
    const finished = await recorder.next((event) => event.kind === "merge_finished", seq, "merge_finished");
    expect(finished.git).toMatchObject({ operation: "merge", toOid: repo.head() });
    await sentinel(repo, recorder, finished.seq);
    expect(gitEvents(recorder.after(finished.seq))).toEqual(["refs_updated"]);
  });

  it("a rebase and a cherry-pick stopped on conflicts are *_started, then *_finished once continued", async () => {
    const repo = repoWithHistory();
    repo.git(["switch", "-q", "-c", "feature"]);
    repo.write("a.txt", "feature\n").commit("feature edit");
    repo.git(["switch", "-q", "main"]);
    repo.write("a.txt", "main\n").commit("main edit");
    repo.git(["switch", "-q", "feature"]);
    const { recorder } = await watch(repo);
    const editor = { env: { GIT_EDITOR: "true" } };

    let seq = recorder.seq;
    expect(plainGit(repo.dir, ["rebase", "main"], fixtureEnv()).status).not.toBe(0);
    const started = await recorder.next((event) => event.kind === "rebase_started", seq, "rebase_started");
    expect(started).toMatchObject({ paths: ["a.txt"], git: { operation: "rebase", fromBranch: "feature" } });
    repo.write("a.txt", "both\n");
    repo.git(["add", "a.txt"]);
    repo.git(["rebase", "--continue"], editor);
    const finished = await recorder.next((event) => event.kind === "rebase_finished", seq, "rebase_finished");
    expect(finished.git).toMatchObject({ operation: "rebase", toBranch: "feature", toOid: repo.head() });
    await sentinel(repo, recorder, seq);
    // The rebase's own moves of HEAD (detached, picks) are not events of their own.
    expect(gitEvents(recorder.after(seq))).toEqual(["rebase_started", "rebase_finished", "refs_updated"]);

    repo.git(["switch", "-q", "-c", "pick", "main~1"]);
    repo.write("a.txt", "pick base\n").commit("pick base");
    seq = recorder.seq;
    expect(plainGit(repo.dir, ["cherry-pick", "main"], fixtureEnv()).status).not.toBe(0);
    const picking = await recorder.next((event) => event.kind === "cherry_pick_started", seq, "cherry_pick_started");
    expect(picking.git?.conflicted).toEqual(["a.txt"]);
    repo.write("a.txt", "picked\n");
    repo.git(["add", "a.txt"]);
    repo.git(["cherry-pick", "--continue"], editor);
    const picked = await recorder.next((event) => event.kind === "cherry_pick_finished", seq, "cherry_pick_finished");
    expect(picked.git).toMatchObject({ operation: "cherry-pick", toOid: repo.head() });
  });

  it("a merge abort, a fetch that moves the upstream, and a config change", async () => {
    const seed = repoWithHistory();
    const origin = makeRepo({ bare: true });
    seed.git(["push", "-q", origin.dir, "main"]);
    const repo = cloneRepo(origin.dir);
    repo.git(["switch", "-q", "-c", "side"]);
    repo.write("a.txt", "side\n").commit("side");
    repo.git(["switch", "-q", "main"]);
    repo.write("a.txt", "main\n").commit("main");
    const { recorder } = await watch(repo);

    let seq = recorder.seq;
    expect(plainGit(repo.dir, ["merge", "--no-edit", "side"], fixtureEnv()).status).toBe(1);
    await recorder.next((event) => event.kind === "merge_started", seq, "merge_started");
    seq = recorder.seq;
    repo.git(["merge", "--abort"]);
    const aborted = await recorder.next((event) => event.kind === "merge_aborted", seq, "merge_aborted");
    expect(aborted.git?.operation).toBe("merge");

    seq = recorder.seq;
    seed.write("c.txt", "upstream\n").commit("upstream work");
    seed.git(["push", "-q", origin.dir, "main"]);
    repo.git(["fetch", "-q", "origin"]);
    const moved = await recorder.next((event) => event.kind === "upstream_moved", seq, "upstream_moved");
    expect(moved.git?.refs).toEqual([{ ref: "refs/remotes/origin/main", from: expect.any(String), to: seed.head() }]);
    await recorder.next((event) => event.kind === "fetch", seq, "fetch");

    seq = recorder.seq;
    repo.git(["config", "core.autocrlf", "false"]);
    await recorder.next((event) => event.kind === "config_changed", seq, "config_changed");
  });

  it("follows the root into a linked worktree: its HEAD and index are its own, refs are shared", async () => {
    const repo = repoWithHistory();
    const { watcher, recorder } = await watch(repo);
    const worktree = join(repo.dir, ".claude", "worktrees", "w1");
    let seq = recorder.seq;
    repo.git(["worktree", "add", "-q", "-b", "worktree-w1", worktree]);
    const added = await recorder.next((event) => event.kind === "worktrees_changed", seq, "the new worktree");
    expect(added.git?.worktrees).toEqual({ added: ["w1"], removed: [] });
    // The main tree's watch leaves the worktrees directory out: the checkout there is no event of the main tree.
    await sentinel(repo, recorder, seq);
    expect(recorder.after(seq).filter((event) => event.category === "source")).toEqual([]);

    const main = locationOf(repo.dir);
    const location = worktreeLocation(worktree);
    await watcher.setRoot(location);
    // HEAD and the index in the worktree's own git directory, refs in the main one.
    expect(watcher.status().location).toEqual({ ...location, commonDir: main.gitDir });
    expect(location.gitDir).toBe(join(main.gitDir, "worktrees", "w1"));
    const moved = recorder.events.find((event) => event.kind === "root_changed");
    expect(moved?.category).toBe("watcher");

    const tree = new TestRepo(worktree);
    seq = recorder.seq;
    tree.write("a.txt", "in the worktree\n");
    const edit = await recorder.next((event) => event.category === "source", seq, "the worktree edit");
    expect(edit.paths).toEqual(["a.txt"]);

    seq = recorder.seq;
    tree.git(["add", "a.txt"]);
    await recorder.next((event) => event.kind === "staged", seq, "staged in the worktree");
    tree.git(["commit", "-q", "-m", "worktree commit"]);
    const commit = await recorder.next((event) => event.kind === "commit", seq, "the worktree commit");
    expect(commit.git).toMatchObject({ toBranch: "worktree-w1", toOid: tree.head() });

    // The main tree is no longer watched, but its branches are shared refs.
    seq = recorder.seq;
    repo.write("b.txt", "main tree edit\n");
    repo.git(["branch", "from-main"]);
    const refs = await recorder.next((event) => event.kind === "refs_updated", seq, "a branch made in the main tree");
    expect(JSON.stringify(refs.git?.refs)).toContain("refs/heads/from-main");
    expect(recorder.after(seq).filter((event) => event.category === "source")).toEqual([]);

    // And back.
    await watcher.setRoot(main);
    seq = recorder.seq;
    repo.write("b.txt", "main tree again\n");
    const back = await recorder.next((event) => event.category === "source", seq, "the main tree edit");
    expect(back.paths).toEqual(["b.txt"]);
  });
});
