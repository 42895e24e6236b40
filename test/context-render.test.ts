/**
 * The snapshot as text for a system prompt: exact text on a real repository, the budget (a property: the text
 * never has more o200k tokens than the budget, whatever the content), what is left out and how to get it.
 */
import { realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { redactUrl } from "../src/context/redact.js";
import { CONTEXT_SECTIONS, countTokens, renderSnapshot, snapshot, type ContextSection, type RepositorySnapshot } from "../src/index.js";
import { cloneRepo, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const LOCK_TIME = new Date(Date.UTC(2024, 5, 1));

/**
 * A clone on `feature/login` two commits ahead of origin/main: one staged and one unstaged change, an untracked
 * file and an `.env`, a stash, a second remote with credentials in its URL, and an index.lock 95 s old.
 */
function richRepo(): { repo: TestRepo; origin: TestRepo } {
  const seed = makeRepo();
  seed.write("README.md", "# demo\n").write("src/app.ts", "export const app = 1;\n").commit("Initial commit");
  const origin = makeRepo({ bare: true });
  seed.git(["push", "-q", origin.dir, "main"]);
  const repo = cloneRepo(origin.dir);
  repo.git(["checkout", "-q", "-b", "feature/login"]);
  repo.write("src/login.ts", "export const login = 1;\n").commit("Add login form");
  repo.write("src/app.ts", "export const app = 2;\n").commit("Wire login into the app");
  repo.write("src/app.ts", "export const app = 3;\n");
  repo.git(["stash", "push", "-q", "-m", "try another layout"]);
  repo.write("src/login.ts", "export const login = 2;\n");
  repo.git(["add", "src/login.ts"]);
  repo.write("README.md", "# demo\nmore\n");
  repo.write("notes.md", "todo\n").write(".env", "KEY=1\n");
  repo.git(["remote", "add", "fork", "https://ada:s3cret@git.example.com/ada/demo.git"]);
  const lock = join(repo.dir, ".git", "index.lock");
  writeFileSync(lock, "");
  utimesSync(lock, LOCK_TIME, LOCK_TIME);
  return { repo, origin };
}

const short = (repo: TestRepo, rev: string): string => repo.git(["rev-parse", "--short", rev]).trim();

describe("renderSnapshot: the text", () => {
  let rich: { repo: TestRepo; origin: TestRepo; snap: RepositorySnapshot };
  beforeAll(async () => {
    const made = richRepo();
    rich = { ...made, snap: await snapshot({ root: made.repo.dir, now: new Date(LOCK_TIME.getTime() + 95_000) }) };
  });

  it("renders every section in priority order, within the default budget of 2,000 tokens", async () => {
    const { repo, origin, snap } = rich;
    const top = realpathSync(repo.dir);
    const base = repo.git(["rev-parse", "origin/main"]).trim();
    const expected = [
      `Git repository: ${top}`,
      "Branch: feature/login",
      `HEAD: ${short(repo, "HEAD")} Wire login into the app (Ada Lovelace, 2024-01-01)`,
      "Index lock: .git/index.lock is 95 s old, probably stale (over 30 s: a git process died?).",
      "  If no git command is running, delete it; git commands that write fail until then.",
      `Base branch: origin/main (default branch of origin, per refs/remotes/origin/HEAD): 2 ahead, 0 behind, merge-base ${base.slice(0, 12)}.`,
      '  Whole change of this branch: git_diff {"commit":"@{base}"} (with uncommitted work) or {"commit":"@{base}..HEAD"} (commits only).',
      "Changes (1 staged, 1 unstaged):",
      "   M README.md",
      "  M  src/login.ts",
      "Untracked files (2):",
      "  notes.md",
      "  Not named: 1 with a sensitive-looking name (environment file: .env*).",
      "Recent commits (newest first):",
      `  ${short(repo, "HEAD")} 2024-01-01 Ada Lovelace: Wire login into the app`,
      `  ${short(repo, "HEAD~1")} 2024-01-01 Ada Lovelace: Add login form`,
      `  ${short(repo, "HEAD~2")} 2024-01-01 Ada Lovelace: Initial commit`,
      "Stashes (1):",
      "  stash@{0}: On feature/login: try another layout",
      "Remotes (2):",
      "  fork https://***@git.example.com/ada/demo.git",
      `  origin ${origin.dir}`,
    ].join("\n");
    const rendered = await renderSnapshot(snap);
    expect(rendered).toEqual({
      text: expected,
      tokens: await countTokens(expected),
      budget: 2000,
      shown: ["branch", "head", "indexLock", "base", "status", "untracked", "commits", "stashes", "remotes"],
      omitted: [],
    });
    expect(rendered.text).not.toContain("s3cret");
  });

  it("leaves out what does not fit, names it with the call that gets it, and stays within the budget", async () => {
    const rendered = await renderSnapshot(rich.snap, { budget: 150 });
    expect(rendered.tokens).toBeLessThanOrEqual(150);
    expect(rendered.tokens).toBe(await countTokens(rendered.text));
    const lines = rendered.text.split("\n");
    // The most important sections come first; the footer names every section left out.
    expect(lines.slice(0, 3)).toEqual([
      `Git repository: ${realpathSync(rich.repo.dir)}`,
      "Branch: feature/login",
      `HEAD: ${short(rich.repo, "HEAD")} Wire login into the app (Ada Lovelace, 2024-01-01)`,
    ]);
    const footer = lines.at(-1)!;
    expect(footer.startsWith("Left out to fit 150 tokens: ")).toBe(true);
    expect(rendered.omitted.length).toBeGreaterThan(0);
    for (const entry of rendered.omitted) expect(entry.whole).toBe(true);
    expect(rendered.shown.length + rendered.omitted.length).toBe(9);
    const labels: Partial<Record<ContextSection, string>> = {
      status: "changes",
      base: "base branch",
      untracked: "untracked files",
      commits: "recent commits",
      stashes: "stashes",
      remotes: "remotes",
    };
    for (const entry of rendered.omitted) expect(footer).toContain(labels[entry.section] ?? entry.section);
  });

  it("the footer groups the calls: one git_context call for every section only it returns", async () => {
    const rendered = await renderSnapshot(rich.snap, { budget: 220 });
    expect(rendered.tokens).toBeLessThanOrEqual(220);
    expect(rendered.text.split("\n").at(-1)).toBe(
      'Left out to fit 220 tokens: recent commits: git_log {"count":20,"oneline":true}; stashes, remotes: git_context {"sections":["stashes","remotes"]}.',
    );
    expect(rendered.omitted).toEqual([
      { section: "commits", whole: true, get: 'git_log {"count":20,"oneline":true}' },
      { section: "stashes", whole: true, get: 'git_context {"sections":["stashes"]}' },
      { section: "remotes", whole: true, get: 'git_context {"sections":["remotes"]}' },
    ]);
    expect(rendered.shown).toEqual(["branch", "head", "indexLock", "base", "status", "untracked"]);
  });

  it("cuts a long list to what fits and says how many more, and where", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    // At the top level, where no directory line can stand for them.
    for (let i = 0; i < 150; i++) repo.write(`file-${String(i).padStart(3, "0")}.txt`, "x\n");
    const snap = await snapshot({ root: repo.dir, sections: ["branch", "untracked"] });
    const rendered = await renderSnapshot(snap, { budget: 200 });
    const lines = rendered.text.split("\n");
    const listed = lines.filter((line) => line.startsWith("  file-"));
    expect(listed.length).toBeGreaterThan(5);
    expect(listed).toEqual(Array.from({ length: listed.length }, (_, i) => `  file-${String(i).padStart(3, "0")}.txt`));
    expect(lines.slice(0, 3)).toEqual([`Git repository: ${realpathSync(repo.dir)}`, "Branch: main", "Untracked files (150):"]);
    // 150 untracked files: 100 in the data, of which some fit; the rest are "more".
    expect(lines.at(-1)).toBe(`  ... and ${150 - listed.length} more (git_status {})`);
    expect(rendered.omitted).toEqual([{ section: "untracked", whole: false, get: "git_status {}" }]);
    // With room for all 100 listed, the cap of the data still shows as "more".
    const roomy = await renderSnapshot(snap, { budget: 5000 });
    expect(roomy.text.split("\n").at(-1)).toBe("  ... and 50 more (git_status {})");
    expect(roomy.omitted).toEqual([]);
  });

  it("an untracked directory of 150 files is one line with a count, narrowed to where they are", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").write("build/README", "tracked\n").commit("initial");
    for (let i = 0; i < 150; i++) repo.write(`build/output/object-${String(i).padStart(3, "0")}.o`, "x\n");
    repo.write("notes.txt", "n\n").write("src/new.ts", "n\n").write("build/output/.env", "SECRET=1\n");
    const snap = await snapshot({ root: repo.dir, sections: ["untracked"] });
    const part = snap.untracked!;
    expect(part.ok && part.value).toEqual({
      total: 153,
      files: ["notes.txt", "src/new.ts"],
      directories: [{ path: "build/output/", files: 150 }],
      hidden: [{ reason: "with a sensitive-looking name (environment file: .env*)", count: 1 }],
      more: 0,
    });
    const rendered = await renderSnapshot(snap);
    expect(rendered.text.split("\n").slice(1)).toEqual([
      "Untracked files (153):",
      "  build/output/ (150 untracked files)",
      "  notes.txt",
      "  src/new.ts",
      "  Not named: 1 with a sensitive-looking name (environment file: .env*).",
    ]);
    // Before, the 150 names took half of the default budget.
    expect(await countTokens(rendered.text)).toBeLessThan(80);
    // The total is git's own count of untracked files.
    expect(
      plainGit(repo.dir, ["status", "--porcelain", "--untracked-files=all"])
        .stdout.split("\n")
        .filter((line) => line.startsWith("??")),
    ).toHaveLength(153);
  });

  it("renders only the sections asked for", async () => {
    const rendered = await renderSnapshot(rich.snap, { sections: ["base", "branch"] });
    expect(rendered.shown).toEqual(["branch", "base"]);
    expect(rendered.text.split("\n").map((line) => line.split(":")[0])).toEqual([
      "Git repository",
      "Branch",
      "Base branch",
      "  Whole change of this branch",
    ]);
  });

  it("says nothing of an empty operation, lock, stash, worktree or submodule section, unless it is asked for by name", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    const quiet = ["operation", "indexLock", "stashes", "worktrees", "submodules"] as const;
    const all = await snapshot({ root: repo.dir });
    expect((await renderSnapshot(all)).shown.filter((section) => (quiet as readonly string[]).includes(section))).toEqual([]);
    for (const rendered of [
      await renderSnapshot(all, { sections: quiet }),
      await renderSnapshot(await snapshot({ root: repo.dir, sections: quiet })),
    ]) {
      expect(rendered.text.split("\n").slice(1)).toEqual([
        "In progress: nothing (no merge, rebase, cherry-pick, revert, am or bisect; no conflicts)",
        "Index lock: none",
        "Stashes: none",
        "Worktrees: no linked worktree",
        "Submodules: none",
      ]);
    }
  });

  it("says plainly when a section is unavailable, and why", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    writeFileSync(join(repo.dir, ".git", "refs", "stash"), `${"1234567890".repeat(4)}\n`);
    const rendered = await renderSnapshot(await snapshot({ root: repo.dir, sections: ["branch", "stashes"] }));
    expect(rendered.text.split("\n").slice(1)).toEqual([
      "Branch: main",
      "Stashes: unavailable (git stash list failed: fatal: bad object refs/stash)",
    ]);
  });

  it("describes an operation in progress with its conflicts and the commands that end it", async () => {
    const repo = makeRepo();
    repo.write("c.txt", "base\n").commit("base");
    repo.git(["checkout", "-q", "-b", "feature"]);
    repo.write("c.txt", "feature\n").write("d.txt", "feature\n").commit("feature");
    repo.git(["checkout", "-q", "main"]);
    const main = repo.write("c.txt", "main\n").write("d.txt", "main\n").commit("main");
    repo.git(["checkout", "-q", "feature"]);
    expect(() => repo.git(["rebase", "main"])).toThrow();
    const rendered = await renderSnapshot(await snapshot({ root: repo.dir, sections: ["operation", "status"] }));
    expect(rendered.text.split("\n").slice(1)).toEqual([
      `In progress: rebase of feature onto ${main.slice(0, 12)}, step 1 of 1. Resolve conflicts, git add, git rebase --continue; or git rebase --abort.`,
      "Conflicted files (2):",
      "  c.txt",
      "  d.txt",
      "Changes (2 conflicted):",
      "  UU c.txt",
      "  AA d.txt",
    ]);
  });

  it("describes a repository without commits, a detached HEAD, no base and no remote", async () => {
    const empty = makeRepo();
    const text = (await renderSnapshot(await snapshot({ root: empty.dir }))).text;
    expect(text.split("\n").slice(1)).toEqual([
      "Branch: main",
      "HEAD: no commits yet",
      "Base branch: none found (no upstream, no refs/remotes/<remote>/HEAD, none of main, master, develop, trunk).",
      "Changes: none (index and working tree match HEAD)",
      "Untracked files: none",
      "Recent commits: none yet",
      "Remotes: none",
    ]);
    const repo = makeRepo();
    const first = repo.write("a.txt", "a\n").commit("first");
    repo.git(["checkout", "-q", "--detach"]);
    const detached = (await renderSnapshot(await snapshot({ root: repo.dir, sections: ["branch", "base"] }))).text;
    expect(detached.split("\n").slice(1)).toEqual([
      "Branch: none (detached HEAD)",
      `Base branch: main (first of main, master, develop, trunk among local branches): 0 ahead, 0 behind, merge-base ${first.slice(0, 12)}.`,
      '  Whole change of this branch: git_diff {"commit":"@{base}"} (with uncommitted work) or {"commit":"@{base}..HEAD"} (commits only).',
    ]);
  });

  it("cuts very long lines, and counts special-token text as ordinary text", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit(`${"x".repeat(1000)} <|endoftext|>`);
    const rendered = await renderSnapshot(await snapshot({ root: repo.dir, sections: ["head"] }));
    const line = rendered.text.split("\n")[1]!;
    expect(line).toBe(`HEAD: ${short(repo, "HEAD")} ${"x".repeat(400 - "HEAD: 1234567 ".length)}...`);
    expect(await countTokens("<|endoftext|>")).toBeGreaterThan(1);
  });

  it("a budget too small for anything says so, and 0 gives the empty string", async () => {
    expect((await renderSnapshot(rich.snap, { budget: 30 })).text).toBe(
      'Repository context left out: 30 tokens is too small. Call git_context {"budget":2000}.',
    );
    expect(await renderSnapshot(rich.snap, { budget: 0 })).toMatchObject({ text: "", tokens: 0, shown: [] });
    await expect(renderSnapshot(rich.snap, { budget: -1 })).rejects.toThrow(RangeError);
  });

  it("property: the text never exceeds the budget, and its token count is exact (real repository)", async () => {
    const sections = fc.subarray([...CONTEXT_SECTIONS], { minLength: 1 });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 600 }), sections, async (budget, chosen) => {
        const rendered = await renderSnapshot(rich.snap, { budget, sections: chosen });
        expect(rendered.tokens).toBeLessThanOrEqual(budget);
        expect(await countTokens(rendered.text)).toBe(rendered.tokens);
        // Strict priority: what is shown is a prefix, in priority order, of what there is to show.
        const all = (await renderSnapshot(rich.snap, { budget: 100_000, sections: chosen })).shown;
        expect(rendered.shown).toEqual(all.slice(0, rendered.shown.length));
        // Everything else is accounted for, in the same order.
        expect(rendered.omitted.map((entry) => entry.section)).toEqual(
          all.slice(rendered.shown.length - (rendered.omitted[0]?.whole === false ? 1 : 0)),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("property: the text never exceeds the budget, whatever the repository's strings (synthetic snapshots)", async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: "binary", maxLength: 60 }),
      fc.constantFrom("<|endoftext|>", "\n\n\n", "  ", "😀".repeat(50), "a".repeat(2000), "/".repeat(300), ":\n/"),
    );
    const commit = fc.record({
      hash: fc.constant("a".repeat(40)),
      shortHash: fc.constant("aaaaaaa"),
      author: text,
      date: fc.constant("2024-01-01T00:00:00+00:00"),
      subject: text,
    });
    const snapshotArb = fc.record({
      branch: text,
      commits: fc.array(commit, { maxLength: 20 }),
      files: fc.array(text, { maxLength: 120 }),
      remotes: fc.array(fc.record({ name: text, url: text }), { maxLength: 5 }),
      reason: text,
    });
    await fc.assert(
      fc.asyncProperty(snapshotArb, fc.integer({ min: 0, max: 400 }), async (made, budget) => {
        const snap: RepositorySnapshot = {
          root: "/repo",
          topLevel: "/repo",
          gitDir: "/repo/.git",
          takenAt: "2024-01-01T00:00:00.000Z",
          neutralised: [],
          shallowBoundary: [],
          sections: [...CONTEXT_SECTIONS],
          branch: { ok: true, value: { name: made.branch, ref: `refs/heads/${made.branch}`, detached: false } },
          head: { ok: true, value: made.commits[0] ?? null },
          operation: { ok: true, value: { operations: [], conflicted: made.files.slice(0, 3) } },
          indexLock: { ok: true, value: null },
          base: { ok: false, reason: made.reason },
          status: {
            ok: true,
            value: {
              entries: made.files.map((path) => ({
                path,
                origPath: null,
                index: "M",
                worktree: ".",
                kind: "modified",
                staged: true,
                unstaged: false,
              })),
              counts: { staged: made.files.length, unstaged: 0, conflicted: 0, total: made.files.length },
              more: 0,
            },
          },
          untracked: {
            ok: true,
            value: {
              total: made.files.length + 3,
              files: made.files.slice(0, 100),
              directories: [],
              hidden: [{ reason: "larger than 1 MiB", count: 3 }],
              more: Math.max(0, made.files.length - 100),
            },
          },
          commits: { ok: true, value: made.commits },
          stashes: { ok: true, value: made.commits.map((c, i) => ({ ref: `stash@{${i}}`, hash: c.hash, message: c.subject })) },
          remotes: { ok: true, value: made.remotes.map((r) => ({ name: r.name, url: r.url, pushUrl: null, redacted: false })) },
          worktrees: { ok: false, reason: made.reason },
          submodules: { ok: true, value: [] },
        };
        const rendered = await renderSnapshot(snap, { budget });
        expect(rendered.tokens).toBeLessThanOrEqual(budget);
        expect(await countTokens(rendered.text)).toBe(rendered.tokens);
      }),
      { numRuns: 100 },
    );
  });
});

describe("redactUrl", () => {
  it("removes credentials from URLs and keeps everything else", () => {
    const cases: Array<[string, string, boolean]> = [
      ["https://user:token@host/x", "https://***@host/x", true],
      ["https://ghp_abc123@github.com/o/r.git", "https://***@github.com/o/r.git", true],
      ["http://u:p@h:8080/a?b=1", "http://***@h:8080/a?b=1", true],
      ["https://user:p@ss@host/x", "https://***@host/x", true],
      ["ssh://git@host/x", "ssh://git@host/x", false],
      ["ssh://git:pw@host/x", "ssh://***@host/x", true],
      ["git@github.com:o/r.git", "git@github.com:o/r.git", false],
      ["user:pw@host:path/r.git", "***@host:path/r.git", true],
      ["https://host/x.git?private_token=abc&ref=main#frag", "https://host/x.git?private_token=***&ref=main#frag", true],
      ["https://host/a@b", "https://host/a@b", false],
      ["file:///tmp/x", "file:///tmp/x", false],
      ["/srv/git/x.git", "/srv/git/x.git", false],
    ];
    for (const [url, expected, redacted] of cases) expect(redactUrl(url), url).toEqual({ url: expected, redacted });
  });
});

describe("snapshot in a temporary directory that is not a repository", () => {
  it("rejects with not_a_repository", async () => {
    await expect(snapshot({ root: tempDir() })).rejects.toMatchObject({ code: "not_a_repository" });
  });
});
