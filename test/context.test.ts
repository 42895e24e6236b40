/**
 * The repository snapshot, section by section, on real repositories. Remotes are local bare repositories, so
 * clones get real remote-tracking refs (and `refs/remotes/origin/HEAD`) without any network.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, snapshot, type Part, type RepositorySnapshot, type SnapshotOptions, type StatusSection } from "../src/index.js";
import { parseRemotes } from "../src/git/parse/snapshot.js";
import { cloneRepo, fixtureEnv, makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

async function snap(repo: TestRepo | string, options: Omit<SnapshotOptions, "root"> = {}): Promise<RepositorySnapshot> {
  return snapshot({ root: typeof repo === "string" ? repo : repo.dir, ...options });
}

/** The value of a section, or a failed assertion showing why it is missing. */
function value<T>(part: Part<T> | undefined): T {
  if (part === undefined) return expect.fail("section not in the snapshot");
  if (!part.ok) return expect.fail(`section unavailable: ${part.reason}`);
  return part.value;
}

function shortOf(repo: TestRepo, rev: string): string {
  return repo.git(["rev-parse", "--short", rev]).trim();
}

function oid(repo: TestRepo, rev: string): string {
  return repo.git(["rev-parse", rev]).trim();
}

/** A bare repository holding `main` with one commit (a.txt), and a clone of it that tracks origin/main. */
function cloned(): { origin: TestRepo; seed: TestRepo; clone: TestRepo } {
  const seed = makeRepo();
  seed.write("a.txt", "a\n").commit("initial");
  const origin = makeRepo({ bare: true });
  seed.git(["push", "-q", origin.dir, "main"]);
  const clone = cloneRepo(origin.dir);
  return { origin, seed, clone };
}

const EMPTY_STATUS: StatusSection = { entries: [], counts: { staged: 0, unstaged: 0, conflicted: 0, total: 0 }, more: 0 };

describe("snapshot: every section of a plain repository", () => {
  it("reports branch, HEAD, clean status, commits and the absence of everything else", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n");
    const first = repo.commit("first");
    repo.write("b.txt", "b\n");
    const second = repo.commit("second");
    const top = realpathSync(repo.dir);
    const now = new Date(Date.UTC(2025, 0, 1));
    expect(await snap(repo, { now })).toEqual({
      root: top,
      topLevel: top,
      gitDir: join(top, ".git"),
      takenAt: "2025-01-01T00:00:00.000Z",
      sections: [
        "branch",
        "head",
        "operation",
        "indexLock",
        "base",
        "status",
        "untracked",
        "commits",
        "stashes",
        "remotes",
        "worktrees",
        "submodules",
      ],
      neutralised: [],
      shallowBoundary: [],
      commitsLimitedTo: null,
      branch: { ok: true, value: { name: "main", ref: "refs/heads/main", detached: false } },
      head: {
        ok: true,
        value: { hash: second, shortHash: shortOf(repo, second), author: "Ada Lovelace", date: "2024-01-01T00:01:00+00:00", subject: "second" },
      },
      operation: { ok: true, value: { operations: [], conflicted: [] } },
      indexLock: { ok: true, value: null },
      base: { ok: true, value: null },
      status: { ok: true, value: EMPTY_STATUS },
      untracked: { ok: true, value: { total: 0, files: [], directories: [], hidden: [], more: 0 } },
      commits: {
        ok: true,
        value: [
          { hash: second, shortHash: shortOf(repo, second), author: "Ada Lovelace", date: "2024-01-01T00:01:00+00:00", subject: "second" },
          { hash: first, shortHash: shortOf(repo, first), author: "Ada Lovelace", date: "2024-01-01T00:00:00+00:00", subject: "first" },
        ],
      },
      stashes: { ok: true, value: [] },
      remotes: { ok: true, value: [] },
      worktrees: {
        ok: true,
        value: [
          {
            path: top,
            head: second,
            branch: "main",
            detached: false,
            bare: false,
            locked: false,
            prunable: false,
            main: true,
            current: true,
            gitctx: false,
            stale: false,
          },
        ],
      },
      submodules: { ok: true, value: [] },
    });
  });

  it("reads only the sections asked for, in priority order whatever the order asked", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    const result = await snap(repo, { sections: ["remotes", "branch"] });
    expect(result.sections).toEqual(["branch", "remotes"]);
    expect(
      Object.keys(result).filter((key) => !["root", "topLevel", "gitDir", "takenAt", "sections", "neutralised", "shallowBoundary"].includes(key)),
    ).toEqual(["branch", "remotes"]);
  });

  it("lists the last 20 commits, newest first, and takes HEAD from the same log", async () => {
    const repo = makeRepo();
    const hashes: string[] = [];
    for (let i = 1; i <= 25; i++) hashes.push(repo.write("n.txt", `${i}\n`).commit(`commit ${i}`));
    const result = await snap(repo, { sections: ["head", "commits"] });
    const commits = value(result.commits);
    expect(commits.map((commit) => commit.hash)).toEqual(hashes.slice(5).reverse());
    expect(commits.map((commit) => commit.subject)).toEqual(
      hashes
        .slice(5)
        .map((_, i) => `commit ${i + 6}`)
        .reverse(),
    );
    expect(value(result.head)).toEqual(commits[0]);
    // HEAD alone still reads one commit.
    expect(value((await snap(repo, { sections: ["head"] })).head)!.hash).toBe(hashes[24]);
  });

  it("treats a repository without commits as an answer: no HEAD commit, no history, no base", async () => {
    const repo = makeRepo();
    repo.write("new.txt", "new\n");
    repo.git(["add", "new.txt"]);
    const result = await snap(repo);
    expect(value(result.branch)).toEqual({ name: "main", ref: "refs/heads/main", detached: false });
    expect(value(result.head)).toBeNull();
    expect(value(result.commits)).toEqual([]);
    expect(value(result.base)).toBeNull();
    expect(value(result.status)).toEqual({
      entries: [{ path: "new.txt", origPath: null, index: "A", worktree: ".", kind: "added", staged: true, unstaged: false }],
      counts: { staged: 1, unstaged: 0, conflicted: 0, total: 1 },
      more: 0,
    });
    expect(value(result.worktrees)[0]!.head).toBeNull();
  });

  it("says when HEAD is detached", async () => {
    const repo = makeRepo();
    const first = repo.write("a.txt", "a\n").commit("first");
    repo.write("a.txt", "b\n").commit("second");
    repo.git(["checkout", "-q", "--detach", first]);
    const result = await snap(repo, { sections: ["branch", "head", "worktrees"] });
    expect(value(result.branch)).toEqual({ name: null, ref: null, detached: true, tags: [] });
    expect(value(result.head)!.hash).toBe(first);
    expect(value(result.worktrees)[0]).toMatchObject({ branch: null, detached: true, head: first });
  });
});

describe("snapshot: status and untracked files", () => {
  it("lists staged, unstaged, renamed and deleted tracked files, leaving untracked ones to their own section", async () => {
    const repo = makeRepo();
    repo.write("keep.txt", "keep\n").write("edit.txt", "one\n").write("gone.txt", "gone\n");
    repo.write("old.txt", "a file that will be renamed\nwith enough lines\nto be detected\n");
    repo.commit("initial");
    repo.write("edit.txt", "two\n");
    repo.remove("gone.txt");
    repo.git(["mv", "old.txt", "new.txt"]);
    repo.write("added.txt", "added\n");
    repo.git(["add", "added.txt"]);
    repo.write("scratch.txt", "untracked\n");
    const result = await snap(repo, { sections: ["status", "untracked"] });
    expect(value(result.status)).toEqual({
      entries: [
        { path: "added.txt", origPath: null, index: "A", worktree: ".", kind: "added", staged: true, unstaged: false },
        { path: "edit.txt", origPath: null, index: ".", worktree: "M", kind: "modified", staged: false, unstaged: true },
        { path: "gone.txt", origPath: null, index: ".", worktree: "D", kind: "deleted", staged: false, unstaged: true },
        { path: "new.txt", origPath: "old.txt", index: "R", worktree: ".", kind: "renamed", staged: true, unstaged: false },
      ],
      counts: { staged: 2, unstaged: 2, conflicted: 0, total: 4 },
      more: 0,
    });
    expect(value(result.untracked)).toEqual({ total: 1, files: ["scratch.txt"], directories: [], hidden: [], more: 0 });
  });

  it("keeps at most 500 status entries and counts the rest", async () => {
    const repo = makeRepo();
    for (let i = 0; i < 510; i++) repo.write(`f${String(i).padStart(3, "0")}.txt`, "a\n");
    repo.commit("many");
    for (let i = 0; i < 510; i++) repo.write(`f${String(i).padStart(3, "0")}.txt`, "b\n");
    const status = value((await snap(repo, { sections: ["status"] })).status);
    expect(status.entries.length).toBe(500);
    expect(status.entries.at(-1)!.path).toBe("f499.txt");
    expect(status.counts).toEqual({ staged: 0, unstaged: 510, conflicted: 0, total: 510 });
    expect(status.more).toBe(10);
  });

  it("names at most 100 untracked files; sensitive-looking and large files are counted with the reason, not named", async () => {
    const repo = makeRepo();
    repo.write("tracked.txt", "t\n").commit("initial");
    for (let i = 0; i < 105; i++) repo.write(`f${String(i).padStart(3, "0")}.txt`, "x\n");
    repo.write(".env", "SECRET=1\n").write(".env.local", "SECRET=2\n");
    repo.write("config/id_rsa", "key\n").write("server.pem", "pem\n");
    repo.write("credentials.json", "{}\n").write("api-token.txt", "t\n");
    repo.write("src/tokens.ts", "export const tokens = 1;\n");
    repo.write("big.bin", Buffer.alloc(1024 * 1024 + 1));
    repo.write("exactly-1mib.bin", Buffer.alloc(1024 * 1024));
    repo.write(".gitignore", "ignored.log\n").write("ignored.log", "ignored\n");
    const untracked = value((await snap(repo, { sections: ["untracked"] })).untracked);
    // git's order: .env, .env.local, .gitignore, api-token.txt, big.bin, config/id_rsa, credentials.json,
    // exactly-1mib.bin, f000.txt ... f104.txt, server.pem, src/tokens.ts.
    expect(untracked).toEqual({
      total: 115,
      files: [".gitignore", "exactly-1mib.bin", ...Array.from({ length: 98 }, (_, i) => `f${String(i).padStart(3, "0")}.txt`)],
      directories: [],
      hidden: [
        { reason: "with a sensitive-looking name (environment file: .env*)", count: 2 },
        { reason: "with a sensitive-looking name (private key or certificate: *.pem, *.key, id_rsa...)", count: 2 },
        { reason: "with a sensitive-looking name (credentials, secret, token or password file)", count: 2 },
        { reason: "larger than 1 MiB", count: 1 },
      ],
      // f098 ... f104 and src/tokens.ts: the list was full.
      more: 8,
    });
    expect(untracked.files.join("\n")).not.toMatch(/\.env|id_rsa|server\.pem|credentials\.json|api-token|big\.bin/);
  });

  it("in a workspace below the top level, keeps to the workspace and names paths relative to it", async () => {
    const repo = makeRepo();
    repo.write("pkg/a.txt", "a\n").write("other/b.txt", "b\n").commit("initial");
    repo.write("pkg/a.txt", "changed\n").write("other/b.txt", "changed\n");
    repo.write("pkg/new.txt", "new\n").write("other/new.txt", "new\n");
    const root = join(repo.dir, "pkg");
    const result = await snap(root, { sections: ["status", "untracked"] });
    expect(result.root).toBe(realpathSync(root));
    expect(result.topLevel).toBe(realpathSync(repo.dir));
    expect(value(result.status).entries.map((entry) => entry.path)).toEqual(["a.txt"]);
    expect(value(result.untracked).files).toEqual(["new.txt"]);
  });
});

describe("snapshot: remotes", () => {
  /** What git remote -v says, in the snapshot's shape (no credentials in these URLs). */
  const asGitListsThem = (repo: TestRepo) =>
    parseRemotes(repo.git(["remote", "-v"])).map((remote) => ({
      name: remote.name,
      url: remote.fetchUrl,
      pushUrl: remote.pushUrl === remote.fetchUrl ? null : remote.pushUrl,
      redacted: false,
    }));

  it("agrees with git remote -v: order, several URLs, push URLs, a remote without URL, insteadOf rewriting", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    repo.git(["remote", "add", "zeta", "https://example.com/zeta.git"]);
    repo.git(["remote", "add", "Alpha", "https://example.com/alpha.git"]);
    repo.git(["remote", "set-url", "--add", "Alpha", "https://example.com/alpha-2.git"]);
    repo.git(["remote", "add", "beta", "https://example.com/beta.git"]);
    repo.git(["remote", "set-url", "--push", "beta", "ssh://example.com/beta.git"]);
    repo.git(["config", "remote.nourl.fetch", "+refs/heads/*:refs/remotes/nourl/*"]);
    const plain = value((await snap(repo, { sections: ["remotes"] })).remotes);
    expect(plain.map((remote) => remote.name)).toEqual(["Alpha", "beta", "zeta"]);
    expect(plain).toEqual(asGitListsThem(repo));

    repo.git(["config", "url.https://mirror.example/.insteadOf", "https://example.com/"]);
    repo.git(["config", "url.ssh://push.example/.pushInsteadOf", "https://mirror.example/"]);
    const rewritten = value((await snap(repo, { sections: ["remotes"] })).remotes);
    expect(rewritten.find((remote) => remote.name === "zeta")).toEqual({
      name: "zeta",
      url: "https://mirror.example/zeta.git",
      pushUrl: null,
      redacted: false,
    });
    expect(rewritten).toEqual(asGitListsThem(repo));
  });

  it("lists remotes with credentials redacted, the push URL when it differs", async () => {
    const { clone } = cloned();
    clone.git(["remote", "add", "fork", "https://user:token@host.example/x"]);
    clone.git(["remote", "add", "mirror", "git@github.com:owner/repo.git"]);
    clone.git(["remote", "set-url", "--push", "mirror", "https://ghp_secret@github.com/owner/repo.git?private_token=abc&ref=main"]);
    const result = await snap(clone, { sections: ["remotes"] });
    const originUrl = clone.git(["remote", "get-url", "origin"]).trim();
    expect(value(result.remotes)).toEqual([
      { name: "fork", url: "https://***@host.example/x", pushUrl: null, redacted: true },
      {
        name: "mirror",
        url: "git@github.com:owner/repo.git",
        pushUrl: "https://***@github.com/owner/repo.git?private_token=***&ref=main",
        redacted: true,
      },
      { name: "origin", url: originUrl, pushUrl: null, redacted: false },
    ]);
    expect(JSON.stringify(result)).not.toMatch(/token@|ghp_secret|abc&/);
  });
});

describe("snapshot: base branch, one test per rule", () => {
  it("rule upstream: the branch's upstream, with merge-base and ahead/behind", async () => {
    const { seed, origin, clone } = cloned();
    const base = oid(clone, "HEAD");
    clone.git(["checkout", "-q", "-b", "feature", "--track", "origin/main"]);
    clone.write("f.txt", "1\n").commit("feature 1");
    clone.write("f.txt", "2\n").commit("feature 2");
    seed.write("a.txt", "upstream moved\n").commit("upstream work");
    seed.git(["push", "-q", origin.dir, "main"]);
    clone.git(["fetch", "-q", "origin"]);
    expect(value((await snap(clone, { sections: ["base"] })).base)).toEqual({
      name: "origin/main",
      ref: "refs/remotes/origin/main",
      commit: oid(seed, "HEAD"),
      rule: "upstream",
      reason: "upstream of feature",
      mergeBase: base,
      ahead: 2,
      behind: 1,
      upstream: null,
    });
  });

  it("rule upstream: an upstream named like neither the branch nor a usual base branch", async () => {
    const { seed, origin, clone } = cloned();
    seed.git(["push", "-q", origin.dir, "main:release-2"]);
    clone.git(["fetch", "-q", "origin"]);
    clone.git(["checkout", "-q", "-b", "feature", "--track", "origin/release-2"]);
    clone.write("f.txt", "1\n").commit("feature 1");
    expect(value((await snap(clone, { sections: ["base"] })).base)).toEqual({
      name: "origin/release-2",
      ref: "refs/remotes/origin/release-2",
      commit: oid(seed, "HEAD"),
      rule: "upstream",
      reason: "upstream of feature",
      mergeBase: oid(seed, "HEAD"),
      ahead: 1,
      behind: 0,
      upstream: null,
    });
  });

  it("rule remote-head: without an upstream, the default branch recorded in refs/remotes/<remote>/HEAD", async () => {
    const { clone } = cloned();
    clone.git(["checkout", "-q", "-b", "feature"]);
    clone.write("f.txt", "1\n").commit("feature 1");
    expect(value((await snap(clone, { sections: ["base"] })).base)).toEqual({
      name: "origin/main",
      ref: "refs/remotes/origin/main",
      commit: oid(clone, "origin/main"),
      rule: "remote-head",
      reason: "default branch of origin, per refs/remotes/origin/HEAD",
      mergeBase: oid(clone, "origin/main"),
      ahead: 1,
      behind: 0,
      upstream: null,
    });
  });

  it("rule remote-head follows a default branch that is not called main", async () => {
    const seed = makeRepo();
    seed.write("a.txt", "a\n").commit("initial");
    seed.git(["branch", "-m", "main", "production"]);
    const origin = makeRepo({ bare: true });
    seed.git(["push", "-q", origin.dir, "production"]);
    origin.git(["symbolic-ref", "HEAD", "refs/heads/production"]);
    const clone = cloneRepo(origin.dir);
    clone.git(["checkout", "-q", "-b", "feature"]);
    expect(value((await snap(clone, { sections: ["base"] })).base)).toMatchObject({
      name: "origin/production",
      ref: "refs/remotes/origin/production",
      rule: "remote-head",
      ahead: 0,
      behind: 0,
      upstream: null,
    });
  });

  it("rule remote-branch: without a recorded default, the first of main, master, develop, trunk on the remote; origin first", async () => {
    const { clone } = cloned();
    const head = oid(clone, "HEAD");
    clone.git(["remote", "set-head", "origin", "-d"]);
    clone.git(["checkout", "-q", "-b", "feature"]);
    clone.git(["branch", "--unset-upstream", "main"]);
    // origin has develop and trunk (main removed); another remote, listed before origin, has main.
    clone.git(["update-ref", "-d", "refs/remotes/origin/main"]);
    clone.git(["update-ref", "refs/remotes/origin/trunk", head]);
    clone.git(["update-ref", "refs/remotes/origin/develop", head]);
    clone.git(["remote", "add", "aaa", "/nonexistent/aaa"]);
    clone.git(["update-ref", "refs/remotes/aaa/main", head]);
    expect(value((await snap(clone, { sections: ["base"] })).base)).toEqual({
      name: "origin/develop",
      ref: "refs/remotes/origin/develop",
      commit: head,
      rule: "remote-branch",
      reason: "first of main, master, develop, trunk on origin",
      mergeBase: head,
      ahead: 0,
      behind: 0,
      upstream: null,
    });
  });

  it("after git push -u the branch's own copy is not its base: the default branch is, and the upstream is reported apart", async () => {
    const { seed, origin, clone } = cloned();
    clone.git(["checkout", "-q", "-b", "feature"]);
    const forks = oid(clone, "HEAD");
    for (const n of [1, 2, 3]) clone.write(`f${n}.txt`, `${n}\n`).commit(`feature ${n}`);
    clone.git(["push", "-q", "-u", "origin", "feature"]);
    // The default branch moves on by 30 commits meanwhile.
    for (let n = 0; n < 30; n++) seed.write("a.txt", `main ${n}\n`).commit(`main ${n}`);
    seed.git(["push", "-q", origin.dir, "main"]);
    clone.git(["fetch", "-q", "origin"]);
    clone.write("f1.txt", "local, not pushed\n").commit("feature 4");
    const result = await snap(clone, { sections: ["base"] });
    expect(value(result.base)).toEqual({
      name: "origin/main",
      ref: "refs/remotes/origin/main",
      commit: oid(seed, "HEAD"),
      rule: "remote-head",
      reason: "default branch of origin, per refs/remotes/origin/HEAD",
      mergeBase: forks,
      ahead: 4,
      behind: 30,
      upstream: { name: "origin/feature", ref: "refs/remotes/origin/feature", ahead: 1, behind: 0, gone: false },
    });
    const toolbox = createToolbox({ root: clone.dir });
    const context = await toolbox.execute("git_context", { sections: ["base"] });
    const text = context.ok ? context.text : "";
    // The change a pull request shows: the three files of the branch, not the one commit not yet pushed.
    const change = await toolbox.execute("git_diff", { commit: "@{base}..HEAD", stat: true });
    await toolbox.close();
    expect(text).toContain("Base branch: origin/main (default branch of origin, per refs/remotes/origin/HEAD): 4 ahead, 30 behind");
    expect(text).toContain("Upstream: origin/feature: 1 ahead, 0 behind.");
    expect(change.ok && change.data.files.map((file) => file.path)).toEqual(["f1.txt", "f2.txt", "f3.txt"]);
  });

  it("rule upstream is skipped when the upstream is gone; the next rule answers", async () => {
    const { clone } = cloned();
    clone.git(["checkout", "-q", "-b", "feature", "--track", "origin/main"]);
    clone.git(["update-ref", "refs/remotes/origin/keep", "HEAD"]);
    clone.git(["remote", "set-head", "origin", "keep"]);
    clone.git(["update-ref", "-d", "refs/remotes/origin/main"]);
    expect(value((await snap(clone, { sections: ["base"] })).base)).toMatchObject({ name: "origin/keep", rule: "remote-head" });
  });

  it("rule local-branch: no remote at all, the first of main, master, develop, trunk among local branches other than the current one", async () => {
    const repo = makeRepo();
    const base = repo.write("a.txt", "a\n").commit("initial");
    repo.git(["branch", "develop"]);
    repo.git(["checkout", "-q", "-b", "feature"]);
    repo.write("f.txt", "f\n").commit("feature");
    expect(value((await snap(repo, { sections: ["base"] })).base)).toEqual({
      name: "main",
      ref: "refs/heads/main",
      commit: base,
      rule: "local-branch",
      reason: "first of main, master, develop, trunk among local branches",
      mergeBase: base,
      ahead: 1,
      behind: 0,
      upstream: null,
    });
    // On main itself, main is not its own base: develop is.
    repo.git(["checkout", "-q", "main"]);
    expect(value((await snap(repo, { sections: ["base"] })).base)).toMatchObject({ name: "develop", rule: "local-branch" });
  });

  it("no rule applies: base is null, not an error", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    expect(value((await snap(repo, { sections: ["base"] })).base)).toBeNull();
    repo.git(["branch", "-m", "main", "work"]);
    expect(value((await snap(repo, { sections: ["base"] })).base)).toBeNull();
  });

  it("reports no merge-base for unrelated histories, with the counts", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    repo.git(["checkout", "-q", "--orphan", "island"]);
    repo.write("b.txt", "b\n").commit("island");
    expect(value((await snap(repo, { sections: ["base"] })).base)).toMatchObject({ name: "main", mergeBase: null, ahead: 1, behind: 1 });
  });

  it("never touches the network: a remote whose URL would run a program stays untouched", async () => {
    const { clone } = cloned();
    const marker = join(tempDir(), "network-was-used");
    clone.git(["remote", "set-url", "origin", `ext::sh -c touch% ${marker}`]);
    clone.git(["checkout", "-q", "-b", "feature"]);
    const result = await snap(clone);
    expect(value(result.base)).toMatchObject({ name: "origin/main", rule: "remote-head" });
    expect(value(result.remotes)).toEqual([{ name: "origin", url: `ext::sh -c touch% ${marker}`, pushUrl: null, redacted: false }]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("snapshot: operations in progress and conflicts", () => {
  /** main and feature both change c.txt; returns the tip of each. */
  function diverged(): { repo: TestRepo; main: string; feature: string; base: string } {
    const repo = makeRepo();
    const base = repo.write("c.txt", "base\n").commit("base");
    repo.git(["checkout", "-q", "-b", "feature"]);
    const feature = repo.write("c.txt", "feature\n").commit("feature");
    repo.git(["checkout", "-q", "main"]);
    const main = repo.write("c.txt", "main\n").commit("main");
    return { repo, main, feature, base };
  }
  const none = { commit: null, branch: null, onto: null, step: null, steps: null };

  it("merge: the commit being merged and the conflicted files; status counts the conflict", async () => {
    const { repo, feature } = diverged();
    expect(() => repo.git(["merge", "-q", "feature"])).toThrow();
    const result = await snap(repo, { sections: ["operation", "status"] });
    expect(value(result.operation)).toEqual({ operations: [{ ...none, kind: "merge", commit: feature, branch: "feature" }], conflicted: ["c.txt"] });
    expect(value(result.status).counts).toEqual({ staged: 0, unstaged: 0, conflicted: 1, total: 1 });
  });

  it("rebase: the branch, what it is rebased onto, and the step", async () => {
    const { repo, main } = diverged();
    repo.git(["checkout", "-q", "feature"]);
    expect(() => repo.git(["rebase", "main"])).toThrow();
    expect(value((await snap(repo, { sections: ["operation"] })).operation)).toEqual({
      operations: [{ ...none, kind: "rebase", branch: "feature", onto: main, step: 1, steps: 1 }],
      conflicted: ["c.txt"],
    });
  });

  it("cherry-pick and revert: the commit being applied", async () => {
    const { repo, feature, main } = diverged();
    expect(() => repo.git(["cherry-pick", "feature"])).toThrow();
    expect(value((await snap(repo, { sections: ["operation"] })).operation)).toEqual({
      operations: [{ ...none, kind: "cherry-pick", commit: feature }],
      conflicted: ["c.txt"],
    });
    repo.git(["cherry-pick", "--abort"]);
    repo.write("c.txt", "after main\n").commit("after main");
    expect(() => repo.git(["revert", "--no-edit", main])).toThrow();
    expect(value((await snap(repo, { sections: ["operation"] })).operation)).toEqual({
      operations: [{ ...none, kind: "revert", commit: main }],
      conflicted: ["c.txt"],
    });
  });

  it("a cherry-pick or revert of several commits is in progress between two of them, as git status says", async () => {
    for (const command of ["cherry-pick", "revert"] as const) {
      const repo = makeRepo();
      repo.write("f", "base\n").write("g", "g\n").commit("base");
      repo.git(["checkout", "-q", "-b", "side"]);
      repo.write("f", "side\n").commit("s1");
      repo.write("g", "g\ng2\n").commit("s2");
      repo.git(["checkout", "-q", "main"]);
      if (command === "revert") repo.git(["merge", "-q", "--ff-only", "side"]);
      repo.write("f", "main\n").commit("m1");
      // The first commit conflicts; resolved and committed, the second is still to come.
      expect(() => repo.git(command === "cherry-pick" ? [command, "side~1", "side"] : [command, "--no-edit", "side~1", "side"])).toThrow();
      repo.write("f", "resolved\n").git(["add", "f"]);
      repo.git(["-c", "core.editor=true", "commit", "-q", "--no-edit"]);
      expect(repo.git(["status"])).toContain(command === "cherry-pick" ? "Cherry-pick currently in progress" : "Revert currently in progress");
      expect(value((await snap(repo, { sections: ["operation"] })).operation).operations).toEqual([{ ...none, kind: command, commit: null }]);
    }
  });

  it("bisect: where it started", async () => {
    const { repo, base } = diverged();
    repo.git(["bisect", "start"]);
    repo.git(["bisect", "bad"]);
    repo.git(["bisect", "good", base]);
    expect(value((await snap(repo, { sections: ["operation"] })).operation)).toEqual({
      operations: [{ ...none, kind: "bisect", branch: "main" }],
      conflicted: [],
    });
  });

  it("am: the patch being applied", async () => {
    const { repo } = diverged();
    const patch = repo.git(["format-patch", "-1", "--stdout", "feature"]);
    expect(() => repo.git(["am", "-q"], { input: patch })).toThrow();
    expect(value((await snap(repo, { sections: ["operation"] })).operation)).toEqual({
      operations: [{ ...none, kind: "am", step: 1, steps: 1 }],
      conflicted: [],
    });
  });

  it("conflicts without an operation (a stash that did not apply cleanly)", async () => {
    const repo = makeRepo();
    repo.write("c.txt", "base\n").commit("base");
    repo.write("c.txt", "stashed\n");
    repo.git(["stash", "-q"]);
    repo.write("c.txt", "committed\n").commit("committed");
    expect(() => repo.git(["stash", "pop", "-q"])).toThrow();
    expect(value((await snap(repo, { sections: ["operation"] })).operation)).toEqual({ operations: [], conflicted: ["c.txt"] });
  });
});

describe("snapshot: index.lock", () => {
  const LOCK_TIME = new Date(Date.UTC(2024, 5, 1, 12, 0, 0));
  function locked(): { repo: TestRepo; lock: string } {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    const lock = join(realpathSync(repo.dir), ".git", "index.lock");
    writeFileSync(lock, "");
    utimesSync(lock, LOCK_TIME, LOCK_TIME);
    return { repo, lock };
  }
  const at = (seconds: number): Date => new Date(LOCK_TIME.getTime() + seconds * 1000);

  it("reports a lock 10 s old as fresh and one 31 s old as stale; 30 s exactly is not yet stale", async () => {
    const { repo, lock } = locked();
    const modifiedAt = LOCK_TIME.toISOString();
    expect(value((await snap(repo, { sections: ["indexLock"], now: at(10) })).indexLock)).toEqual({
      path: lock,
      modifiedAt,
      ageSeconds: 10,
      stale: false,
    });
    expect(value((await snap(repo, { sections: ["indexLock"], now: at(30) })).indexLock)).toEqual({
      path: lock,
      modifiedAt,
      ageSeconds: 30,
      stale: false,
    });
    expect(value((await snap(repo, { sections: ["indexLock"], now: at(31) })).indexLock)).toEqual({
      path: lock,
      modifiedAt,
      ageSeconds: 31,
      stale: true,
    });
  });

  it("measures against the clock by default: a lock from 2024 is stale; the other sections still read the repository", async () => {
    const { repo } = locked();
    const result = await snap(repo);
    expect(value(result.indexLock)!.stale).toBe(true);
    expect(value(result.status)).toEqual(EMPTY_STATUS);
    expect(value(result.branch).name).toBe("main");
  });

  it("reads the lock of the worktree it runs in", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    const linked = join(tempDir(), "linked");
    repo.git(["worktree", "add", "-q", "-b", "side", linked]);
    const lock = join(realpathSync(repo.dir), ".git", "worktrees", "linked", "index.lock");
    writeFileSync(lock, "");
    utimesSync(lock, LOCK_TIME, LOCK_TIME);
    expect(value((await snap(linked, { sections: ["indexLock"], now: at(1) })).indexLock)).toEqual({
      path: lock,
      modifiedAt: LOCK_TIME.toISOString(),
      ageSeconds: 1,
      stale: false,
    });
    expect(value((await snap(repo, { sections: ["indexLock"] })).indexLock)).toBeNull();
  });
});

describe("snapshot: stashes, worktrees, submodules", () => {
  it("lists stashes newest first", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    repo.write("a.txt", "one\n");
    repo.git(["stash", "push", "-q", "-m", "first try"]);
    repo.write("a.txt", "two\n");
    repo.git(["stash", "push", "-q"]);
    const stashes = value((await snap(repo, { sections: ["stashes"] })).stashes);
    const short = shortOf(repo, "HEAD");
    expect(stashes).toEqual([
      { ref: "stash@{0}", hash: oid(repo, "stash@{0}"), message: `WIP on main: ${short} initial` },
      { ref: "stash@{1}", hash: oid(repo, "stash@{1}"), message: "On main: first try" },
    ]);
  });

  it("lists linked worktrees and knows which one it runs in", async () => {
    const repo = makeRepo();
    const head = repo.write("a.txt", "a\n").commit("initial");
    const dir = tempDir();
    const linked = join(dir, "linked");
    const parked = join(dir, "parked");
    repo.git(["worktree", "add", "-q", "-b", "side", linked]);
    repo.git(["worktree", "add", "-q", "--detach", parked]);
    repo.git(["worktree", "lock", parked]);
    const top = realpathSync(repo.dir);
    const expected = [
      {
        path: top,
        head,
        branch: "main",
        detached: false,
        bare: false,
        locked: false,
        prunable: false,
        main: true,
        current: false,
        gitctx: false,
        stale: false,
      },
      {
        path: realpathSync(linked),
        head,
        branch: "side",
        detached: false,
        bare: false,
        locked: false,
        prunable: false,
        main: false,
        current: true,
        gitctx: false,
        stale: false,
      },
      {
        path: realpathSync(parked),
        head,
        branch: null,
        detached: true,
        bare: false,
        locked: true,
        prunable: false,
        main: false,
        current: false,
        gitctx: false,
        stale: false,
      },
    ];
    expect(value((await snap(linked, { sections: ["worktrees"] })).worktrees)).toEqual(expected);
    const fromMain = value((await snap(repo, { sections: ["worktrees"] })).worktrees);
    expect(fromMain.map((worktree) => worktree.current)).toEqual([true, false, false]);
  });

  it("lists submodules with the recorded commit, the URL redacted, and whether each is checked out", async () => {
    const library = makeRepo();
    const libraryHead = library.write("lib.txt", "lib\n").commit("library");
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", library.dir, "vendor/lib"]);
    repo.git(["config", "--file", ".gitmodules", "submodule.vendor/lib.url", "https://user:pw@example.com/lib.git"]);
    repo.commit("add submodule");
    expect(value((await snap(repo, { sections: ["submodules"] })).submodules)).toEqual([
      {
        name: "vendor/lib",
        path: "vendor/lib",
        url: "https://***@example.com/lib.git",
        commit: libraryHead,
        initialized: true,
        commitChanged: false,
      },
    ]);
    const origin = makeRepo({ bare: true });
    repo.git(["push", "-q", origin.dir, "main"]);
    const clone = cloneRepo(origin.dir);
    expect(value((await snap(clone, { sections: ["submodules"] })).submodules)).toEqual([
      { name: "vendor/lib", path: "vendor/lib", url: "https://***@example.com/lib.git", commit: libraryHead, initialized: false },
    ]);
  });
});

describe("snapshot: a section fails on its own", () => {
  it("a corrupt stash ref makes stashes unavailable, with git's reason; every other section still arrives", async () => {
    const { clone } = cloned();
    clone.git(["checkout", "-q", "-b", "feature"]);
    clone.write("f.txt", "f\n");
    writeFileSync(join(clone.dir, ".git", "refs", "stash"), `${"1234567890".repeat(4)}\n`);
    const result = await snap(clone);
    expect(result.stashes).toEqual({ ok: false, reason: "git stash list failed: fatal: bad object refs/stash" });
    const failed = result.sections.filter((section) => !(result[section] as Part<unknown>).ok);
    expect(failed).toEqual(["stashes"]);
    expect(value(result.branch).name).toBe("feature");
    expect(value(result.base)).toMatchObject({ name: "origin/main", rule: "remote-head" });
    expect(value(result.untracked).files).toEqual(["f.txt"]);
  });

  it("a stash ref that is not even an object id is reported, not read as 'no stash'", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    writeFileSync(join(repo.dir, ".git", "refs", "stash"), "garbage\n");
    const result = await snap(repo, { sections: ["branch", "stashes"] });
    expect(result.stashes).toEqual({ ok: false, reason: "git stash list failed: warning: ignoring broken ref refs/stash" });
    expect(value(result.branch).name).toBe("main");
  });

  it("a symlinked .gitmodules makes submodules unavailable and nothing else", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    const elsewhere = join(tempDir(), "modules");
    writeFileSync(elsewhere, '[submodule "x"]\n\tpath = x\n\turl = /x\n');
    symlinkSync(elsewhere, join(repo.dir, ".gitmodules"));
    const result = await snap(repo);
    expect(result.submodules).toEqual({ ok: false, reason: ".gitmodules is not a regular file (a symlink?); git ignores it too." });
    expect(result.sections.filter((section) => !(result[section] as Part<unknown>).ok)).toEqual(["submodules"]);
  });

  it("rejects as a whole only when there is no repository to describe", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "plain"));
    await expect(snapshot({ root: join(dir, "plain") })).rejects.toMatchObject({ code: "not_a_repository" });
  });
});

describe("snapshot: a shallow clone", () => {
  it("says history stops at the boundary, and HEAD~5 beyond it is a bad revision that says why", async () => {
    const seed = makeRepo();
    for (let n = 0; n < 8; n++) seed.write("a.txt", `${n}\n`).commit(`commit ${n}`);
    const clone = cloneRepo(`file://${seed.dir}`, ["-c", "protocol.file.allow=always"]);
    execFileSync("git", ["-c", "protocol.file.allow=always", "fetch", "-q", "--depth=3", "origin"], { cwd: clone.dir, env: fixtureEnv() });
    clone.git(["reset", "-q", "--hard", "origin/main"]);
    clone.git(["reflog", "expire", "--expire=now", "--all"]);
    clone.git(["gc", "-q", "--prune=now"]);
    const boundary = clone.git(["rev-parse", "HEAD~2"]).trim();
    expect(readFileSync(join(clone.dir, ".git", "shallow"), "utf8").trim()).toBe(boundary);
    // Plain git: the log just ends after three commits; HEAD~5 is merely unknown.
    expect(clone.git(["log", "--oneline"]).trim().split("\n")).toHaveLength(3);
    const result = await snap(clone, { sections: ["head"] });
    expect(result.shallowBoundary).toEqual([boundary]);
    const toolbox = createToolbox({ root: clone.dir });
    const context = await toolbox.execute("git_context", {});
    const beyond = await toolbox.execute("git_show", { commit: "HEAD~5" });
    await toolbox.close();
    expect(context.ok && context.text).toContain(`Shallow clone: history stops at the boundary commit ${boundary.slice(0, 12)}`);
    expect(beyond.ok ? "ok" : beyond.error.message).toContain("It is a shallow clone: history stops at the boundary commit");
  });

  it("git_log, git_blame and git_show say where history stops, as git's ^ marks in blame do", async () => {
    const seed = makeRepo();
    for (let n = 0; n < 6; n++) seed.write("a.txt", `${Array.from({ length: n + 1 }, (_, i) => `line ${i}`).join("\n")}\n`).commit(`commit ${n}`);
    const dir = join(tempDir(), "shallow");
    execFileSync("git", ["clone", "-q", "--depth", "2", `file://${seed.dir}`, dir], { env: fixtureEnv() });
    const boundary = execFileSync("git", ["rev-parse", "HEAD~1"], { cwd: dir, env: fixtureEnv(), encoding: "utf8" }).trim();
    // Plain git: blame marks the lines it could not follow back with ^ (the boundary), the log just ends.
    const plainBlame = execFileSync("git", ["blame", "-s", "a.txt"], { cwd: dir, env: fixtureEnv(), encoding: "utf8" }).trim().split("\n");
    expect(plainBlame.filter((line) => line.startsWith("^"))).toHaveLength(5);

    const toolbox = createToolbox({ root: dir });
    const [log, blame, show, head] = await Promise.all([
      toolbox.execute("git_log", {}),
      toolbox.execute("git_blame", { path: "a.txt" }),
      toolbox.execute("git_show", { commit: boundary }),
      toolbox.execute("git_show", { commit: "HEAD" }),
    ]);
    await toolbox.close();
    if (!log.ok || !blame.ok || !show.ok || !head.ok) expect.fail("a call failed");
    expect(log.data.shallowBoundary).toEqual([boundary]);
    expect(log.data.commits.map((commit) => commit.hash).at(-1)).toBe(boundary);
    expect(log.text).toContain(`${boundary.slice(0, 7)} `);
    expect(log.text).toContain("(shallow boundary: its parents are not in this clone)");
    expect(log.text.split("\n").at(-1)).toBe(
      `[history stops at the shallow boundary ${boundary.slice(0, 7)}: this clone has no older commits. The user can run git fetch --deepen=<n> (or --unshallow) to get more.]`,
    );
    expect(blame.data.shallowBoundary).toEqual([boundary]);
    // The same lines marked as git marks them.
    const marked = blame.text
      .split("\n")
      .filter((line) => /^\^[0-9a-f]{7} /.test(line))
      .map((line) => line.slice(0, 8));
    expect(marked).toEqual(plainBlame.filter((line) => line.startsWith("^")).map((line) => line.slice(0, 8)));
    expect(blame.text).toContain("(shallow boundary: history stops here, so its lines marked ^ may be older)");
    expect(show.data.kind === "commit" && show.data.shallowBoundary).toBe(true);
    expect(show.text).toContain("Shallow boundary: this clone has none of its parents");
    expect(head.data.kind === "commit" && head.data.shallowBoundary).toBe(false);
    expect(head.text).not.toContain("Shallow boundary");
  });
});

describe("a workspace below the top level", () => {
  it("lists the same commits in the snapshot and in git_log: those touching it, as every text says", async () => {
    const repo = makeRepo();
    repo.write("app/a.txt", "1\n").commit("app: first");
    repo.write("lib/b.txt", "1\n").commit("lib: first");
    repo.write("app/a.txt", "2\n").commit("app: second");
    repo.write("lib/b.txt", "2\n").commit("lib: second");
    const root = join(repo.dir, "app");
    // Plain git in app/ with the path: the commits touching it.
    const plain = execFileSync("git", ["log", "--format=%H", "--", "."], { cwd: root, env: fixtureEnv(), encoding: "utf8" }).trim().split("\n");
    expect(plain).toHaveLength(2);

    const toolbox = createToolbox({ root });
    const [context, log] = await Promise.all([toolbox.execute("git_context", { sections: ["head", "commits"] }), toolbox.execute("git_log", {})]);
    await toolbox.close();
    if (!context.ok || !log.ok) expect.fail("a call failed");
    const commits = context.data.snapshot.commits;
    expect(commits?.ok && commits.value.map((commit) => commit.hash)).toEqual(plain);
    expect(log.data.commits.map((commit) => commit.hash)).toEqual(plain);
    expect(context.data.snapshot.commitsLimitedTo).toBe("app");
    expect(log.data.limitedTo).toBe("app");
    expect(context.text).toContain("Recent commits touching the workspace app/ (newest first):");
    expect(log.text.split("\n")[0]).toBe("2 commits touching the workspace app/, newest first:");
    // HEAD is the repository's, whatever the workspace: the newest commit touches lib/.
    const head = context.data.snapshot.head;
    expect(head?.ok && head.value?.subject).toBe("lib: second");
  });
});
