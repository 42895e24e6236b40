/**
 * The prepared ref transaction (src/git/ref-transaction.ts) with real git: between prepare and commit the refs are
 * locked, so plain git cannot move them; an abort, or the end of the caller, changes nothing; and the process never
 * waits for a slot of the runner's concurrency limit that the caller's own calls hold.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitCaches } from "../src/git/caches.js";
import { discoverRepository } from "../src/git/discover.js";
import { prepareRefTransaction } from "../src/git/ref-transaction.js";
import { Repository } from "../src/git/repository.js";
import { GitRunner } from "../src/git/run.js";
import { makeRepo, plainGit, type TestRepo } from "./fixtures/repo.js";

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

async function open(repo: TestRepo, maxConcurrency?: number): Promise<Repository> {
  const runner = new GitRunner(maxConcurrency === undefined ? {} : { maxConcurrency });
  const caches = new GitCaches(runner);
  const main = await Repository.open(runner, caches, await discoverRepository(repo.dir, false), { trustRepository: false });
  opened.push(async () => {
    await main.dispose();
    caches.invalidate("privateIndex");
    runner.close();
  });
  return main;
}

function withBranch(): { repo: TestRepo; tip: string } {
  const repo = makeRepo();
  repo.write("a.txt", "a\n");
  repo.commit("First");
  repo.git(["branch", "topic"]);
  return { repo, tip: repo.head() };
}

const tipOf = (repo: TestRepo, ref: string): string => plainGit(repo.dir, ["rev-parse", "--verify", "-q", ref]).stdout.trim();

describe("a prepared ref transaction", () => {
  it("holds the refs' locks until it commits: plain git cannot move the branch meanwhile", async () => {
    const { repo, tip } = withBranch();
    const main = await open(repo);
    const transaction = prepareRefTransaction(main, ["delete refs/heads/topic", tip]);
    const lock = join(repo.dir, ".git", "refs", "heads", "topic.lock");
    for (let i = 0; i < 500 && !existsSync(lock); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(existsSync(lock)).toBe(true);
    repo.write("a.txt", "b\n");
    repo.commit("Second");
    const moved = plainGit(repo.dir, ["branch", "-f", "topic", "HEAD"]);
    expect(moved.status).not.toBe(0);
    expect(moved.stderr).toContain("topic.lock");
    const committed = await transaction.commit();
    expect(committed.exitCode).toBe(0);
    expect(tipOf(repo, "refs/heads/topic")).toBe("");
    expect(existsSync(lock)).toBe(false);
  });

  it("changes nothing when aborted, and fails whole when a ref is not at its old value", async () => {
    const { repo, tip } = withBranch();
    const main = await open(repo);
    const aborted = prepareRefTransaction(main, ["delete refs/heads/topic", tip]);
    await aborted.abort();
    await aborted.abort(); // A second abort, or one after a commit, is nothing.
    expect(tipOf(repo, "refs/heads/topic")).toBe(tip);
    expect(existsSync(join(repo.dir, ".git", "refs", "heads", "topic.lock"))).toBe(false);

    const wrong = "1".repeat(tip.length);
    const failed = await prepareRefTransaction(main, ["delete refs/heads/main", tip, "delete refs/heads/topic", wrong]).commit();
    expect(failed.exitCode).not.toBe(0);
    expect(tipOf(repo, "refs/heads/main")).toBe(tip);
    expect(tipOf(repo, "refs/heads/topic")).toBe(tip);
  });

  it("never waits for a slot: with one slot held by the caller's own call, both finish", async () => {
    const { repo, tip } = withBranch();
    const main = await open(repo, 1);
    const transaction = prepareRefTransaction(main, ["delete refs/heads/topic", tip]);
    // The caller's check runs while the transaction waits for its word; with the limit at one slot, a transaction
    // inside the limit would hold it and the check would never start.
    const check = await main.git("rev-parse", ["--verify", "-q", "refs/heads/topic"]);
    expect(check.stdout.trim()).toBe(tip);
    expect((await transaction.commit()).exitCode).toBe(0);
    expect(tipOf(repo, "refs/heads/topic")).toBe("");
  });
});
