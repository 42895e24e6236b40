/**
 * Every tool's default answer fits 10,000 o200k tokens, on generated repositories in the states that used to
 * overflow a model's context: 3,256 modified files (as many as git/git's v2.20..v2.45), a 20,000-line file with a
 * history, commits with long messages, a dense file. Each is continued exactly (entries by offset, files by
 * fileOffset, the patch by offset, blame by start_line, log by skip) and the pages put together equal what plain
 * git prints; a size the caller gives is honoured whole.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { countTokens } from "../src/context/tokens.js";
import type { GitBlameData, GitDiffData, GitLogData, GitStatusData, ShowCommitData, ShowFileData } from "../src/index.js";
import { fixtureEnv, makeRepo, plainGit, type TestRepo } from "./fixtures/repo.js";
import { callOk, okOf } from "./fixtures/calls.js";

const BUDGET = 10_000;
const MANY = 3256;
const LONG = 20_000;

const _ok = okOf;

async function call<T>(root: string, tool: string, input: Record<string, unknown> = {}): Promise<{ data: T; text: string; tokens: number }> {
  const { data, text } = await callOk<T>(root, tool, input, { timeoutMs: 300_000 });
  return { data, text, tokens: await countTokens(text) };
}

/** Plain git whose output may be larger than spawnSync's default buffer. */
function bigGit(cwd: string, args: string[]): string {
  const result = spawnSync("git", args, { cwd, env: fixtureEnv(), encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

function writeFast(repo: TestRepo, path: string, text: string): void {
  const full = join(repo.dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
}

const manyPath = (i: number): string => `src/subsystem-${String(i % 40).padStart(2, "0")}/component-${i}/implementation-${i}.c`;

describe("3,256 modified files", () => {
  let repo: TestRepo;
  beforeAll(() => {
    repo = makeRepo();
    for (let i = 0; i < MANY; i++) writeFast(repo, manyPath(i), `/* file ${i} */\nint value_${i}(void) { return ${i}; }\n`);
    repo.commit("initial");
    for (let i = 0; i < MANY; i++) writeFast(repo, manyPath(i), `/* file ${i} */\nint value_${i}(void) { return ${i} + 1; }\n`);
    repo.commit("Touch every component");
    for (let i = 0; i < MANY; i++) writeFast(repo, manyPath(i), `/* file ${i} */\nint value_${i}(void) { return ${i} + 2; }\n`);
  }, 300_000);

  it("git_status: the default page fits the budget; pages by offset add up to git's own list", async () => {
    const first = await call<GitStatusData>(repo.dir, "git_status");
    expect(first.tokens).toBeLessThanOrEqual(BUDGET);
    expect(first.data.counts).toEqual({ staged: 0, unstaged: MANY, untracked: 0, conflicted: 0, total: MANY });
    expect(first.data.entries.length).toBeGreaterThan(100);
    expect(first.data.entries.length).toBeLessThan(MANY);
    expect(first.data.nextOffset).toBe(first.data.entries.length);
    expect(first.text.split("\n").at(-1)).toBe(
      `[entries 1-${first.data.entries.length} of ${MANY} shown. Call git_status with offset=${first.data.nextOffset} and the same other arguments for the next ones, or pass path to narrow it.]`,
    );
    const paths: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page: { data: GitStatusData; tokens: number } = await call<GitStatusData>(repo.dir, "git_status", { offset });
      expect(page.tokens).toBeLessThanOrEqual(BUDGET);
      expect(page.data.offset).toBe(offset);
      paths.push(...page.data.entries.map((entry) => entry.path));
      offset = page.data.nextOffset;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    const plain = plainGit(repo.dir, ["-c", "core.quotePath=false", "status", "--porcelain"]).stdout.trimEnd().split("\n");
    expect(paths).toEqual(plain.map((line) => line.slice(3)));
    // A caller can ask for more: every entry in one answer.
    expect((await call<GitStatusData>(repo.dir, "git_status", { limit: MANY })).data.entries).toHaveLength(MANY);
  });

  it("git_diff: the file list is paged within the budget; fileOffset and offset continue it exactly", async () => {
    const first = await call<GitDiffData>(repo.dir, "git_diff");
    expect(first.tokens).toBeLessThanOrEqual(BUDGET);
    expect(first.data.totals.files).toBe(MANY);
    expect(first.data.files.length).toBeLessThan(MANY);
    expect(first.data.nextFileOffset).toBe(first.data.files.length);
    expect(first.text).toContain(
      `[files 1-${first.data.files.length} of ${MANY} listed; the totals above count every file. Call git_diff with the same arguments and fileOffset=${first.data.files.length} for the next files, or pass path to narrow it.]`,
    );
    // Every file, page by page, as git names them.
    const files: string[] = [];
    for (let fileOffset: number | null = 0; fileOffset !== null; ) {
      const page: { data: GitDiffData; tokens: number } = await call<GitDiffData>(repo.dir, "git_diff", { fileOffset });
      expect(page.tokens).toBeLessThanOrEqual(BUDGET);
      files.push(...page.data.files.map((file) => `${file.status[0]!.toUpperCase()}\t${file.path}`));
      fileOffset = page.data.nextFileOffset;
    }
    expect(files).toEqual(plainGit(repo.dir, ["diff", "--name-status"]).stdout.trimEnd().split("\n"));
    // The patch, window after window, is git's patch byte for byte.
    const whole = bigGit(repo.dir, ["diff", "--src-prefix=a/", "--dst-prefix=b/"]);
    const firstWindow = Buffer.from(whole).subarray(0, first.data.returnedBytes).toString();
    expect(first.data.patch).toBe(firstWindow);
    const second = await call<GitDiffData>(repo.dir, "git_diff", { offset: first.data.nextOffset });
    expect(second.tokens).toBeLessThanOrEqual(BUDGET);
    expect(second.data.patch).toBe(Buffer.from(whole).subarray(first.data.nextOffset!, second.data.nextOffset!).toString());
  });

  it("git_diff stat=true counts every file, pages the list, and the counts equal git's --numstat", async () => {
    const counts: string[] = [];
    for (let fileOffset: number | null = 0; fileOffset !== null; ) {
      const page: { data: GitDiffData; tokens: number } = await call<GitDiffData>(repo.dir, "git_diff", { stat: true, fileOffset });
      expect(page.tokens).toBeLessThanOrEqual(BUDGET);
      expect(page.data.totals).toMatchObject({ files: MANY, additions: MANY, deletions: MANY, uncounted: 0 });
      counts.push(...page.data.files.map((file) => `${file.additions}\t${file.deletions}\t${file.path}`));
      fileOffset = page.data.nextFileOffset;
    }
    expect(counts).toEqual(plainGit(repo.dir, ["diff", "--numstat"]).stdout.trimEnd().split("\n"));
  });

  it("git_show of the commit touching every file fits the budget and pages its files the same way", async () => {
    const shown = await call<ShowCommitData>(repo.dir, "git_show", { commit: "HEAD" });
    expect(shown.tokens).toBeLessThanOrEqual(BUDGET);
    expect(shown.data.diff!.totals.files).toBe(MANY);
    const next = shown.data.diff!.nextFileOffset!;
    expect(shown.text).toContain(`Call git_show with commit=${shown.data.commit.shortHash} and fileOffset=${next} for the next files`);
    const page = await call<ShowCommitData>(repo.dir, "git_show", { commit: "HEAD", fileOffset: next, fileLimit: 5 });
    expect(page.data.diff!.files.map((file) => file.path)).toEqual(
      plainGit(repo.dir, ["show", "--format=", "--name-only", "HEAD"])
        .stdout.trimEnd()
        .split("\n")
        .slice(next, next + 5),
    );
  });
});

describe("a 20,000-line file with a history", () => {
  let repo: TestRepo;
  const line = (n: number, round: number): string => `static int line_${n}(struct context *ctx) { return ctx->values[${n}] + ${round}; }`;
  beforeAll(() => {
    repo = makeRepo();
    const lines = Array.from({ length: LONG }, (_, n) => line(n, 0));
    writeFast(repo, "long.c", `${lines.join("\n")}\n`);
    repo.commit("initial");
    for (let round = 1; round <= 4; round++) {
      for (let n = round; n < LONG; n += 5 * round) lines[n] = line(n, round);
      writeFast(repo, "long.c", `${lines.join("\n")}\n`);
      repo.commit(`Rework round ${round}`);
    }
  }, 300_000);

  it("git_blame defaults to a window that fits the budget, continued by nextStartLine exactly as git blames", async () => {
    const plain = bigGit(repo.dir, ["blame", "--porcelain", "HEAD", "--", "long.c"]);
    const hashes = [...plain.matchAll(/^([0-9a-f]{40}) \d+ (\d+)/gm)]
      .map((match) => [Number(match[2]), match[1]] as const)
      .sort((a, b) => a[0] - b[0]);
    expect(hashes).toHaveLength(LONG);
    let start: number | null = 1;
    for (let window = 0; window < 3; window++) {
      const blamed: { data: GitBlameData; tokens: number; text: string } = await call<GitBlameData>(repo.dir, "git_blame", {
        path: "long.c",
        ref: "HEAD",
        ...(start === 1 ? {} : { start_line: start }),
      });
      expect(blamed.tokens).toBeLessThanOrEqual(BUDGET);
      expect(blamed.data.startLine).toBe(start);
      expect(blamed.data.lines.map((entry) => [entry.line, entry.hash])).toEqual(hashes.slice(start! - 1, blamed.data.endLine));
      expect(blamed.data.nextStartLine).toBe(blamed.data.endLine + 1);
      expect(blamed.text.split("\n").at(-1)).toBe(
        `[lines ${start}-${blamed.data.endLine} shown; the file goes on. Call git_blame with start_line=${blamed.data.nextStartLine} and the same path and ref for the next lines, or give end_line for an exact range.]`,
      );
      start = blamed.data.nextStartLine;
    }
    // The last window ends with the file.
    const last = await call<GitBlameData>(repo.dir, "git_blame", { path: "long.c", ref: "HEAD", start_line: LONG - 10 });
    expect(last.data).toMatchObject({ startLine: LONG - 10, endLine: LONG, nextStartLine: null });
    // A caller can ask for more: the whole file with end_line.
    const whole = await call<GitBlameData>(repo.dir, "git_blame", { path: "long.c", ref: "HEAD", end_line: LONG });
    expect(whole.data.lines.map((entry) => [entry.line, entry.hash])).toEqual(hashes);
    expect(whole.tokens).toBeGreaterThan(BUDGET);
  });
});

describe("long messages and dense content", () => {
  let repo: TestRepo;
  const paragraph = (c: number, p: number): string =>
    `Paragraph ${p} of commit ${c}: the rationale, the measurements before and after, and the alternatives that were tried.`;
  beforeAll(() => {
    repo = makeRepo();
    for (let c = 1; c <= 30; c++) {
      repo.write(`notes/${c}.txt`, `${c}\n`);
      repo.git(["add", "-A"]);
      repo.git(["commit", "-q", "-m", `Note ${c}`, "-m", Array.from({ length: 40 }, (_, p) => paragraph(c, p)).join("\n\n")]);
    }
    // One commit whose message alone is over the budget, and a file of dense text (base64-like).
    repo.write("dense.txt", Array.from({ length: 400 }, (_, i) => Buffer.from(`${i}:`.repeat(40)).toString("base64")).join("\n"));
    // One line of 300,000 characters without a space (a minified bundle): tokenizing it whole would take minutes.
    repo.write("bundle.min.js", `${"x".repeat(300_000)}\n`);
    repo.git(["add", "-A"]);
    repo.git(["commit", "-q", "-F", "-"], { input: `Huge message\n\n${Array.from({ length: 2000 }, (_, p) => paragraph(0, p)).join("\n")}\n` });
  });

  it("git_log without count shows the commits that fit, and nextSkip continues where it stopped", async () => {
    const log = await call<GitLogData>(repo.dir, "git_log", { skip: 1 });
    expect(log.tokens).toBeLessThanOrEqual(BUDGET);
    expect(log.data.commits.length).toBeGreaterThan(1);
    expect(log.data.commits.length).toBeLessThan(20);
    expect(log.data.nextSkip).toBe(1 + log.data.commits.length);
    const next = await call<GitLogData>(repo.dir, "git_log", { skip: log.data.nextSkip });
    const plain = plainGit(repo.dir, ["log", "--format=%H", "--skip=1"]).stdout.trimEnd().split("\n");
    expect([...log.data.commits, ...next.data.commits].map((commit) => commit.hash)).toEqual(
      plain.slice(0, log.data.commits.length + next.data.commits.length),
    );
    // With count, exactly that many, whatever their size.
    expect((await call<GitLogData>(repo.dir, "git_log", { count: 20, skip: 1 })).data.commits).toHaveLength(20);
  });

  it("a message over the budget is cut in the text, whole in the data, in git_log and git_show", async () => {
    const body = plainGit(repo.dir, ["log", "-1", "--format=%b"]).stdout.replace(/\n+$/, "");
    const log = await call<GitLogData>(repo.dir, "git_log");
    expect(log.tokens).toBeLessThanOrEqual(BUDGET);
    expect(log.data.commits).toHaveLength(1);
    expect(log.data.commits[0]!.body).toBe(body);
    expect(log.text).toContain("[message cut to fit the answer;");
    for (const format of ["patch", "metadata"]) {
      const shown = await call<ShowCommitData>(repo.dir, "git_show", { commit: "HEAD", format });
      expect(shown.tokens).toBeLessThanOrEqual(BUDGET);
      expect(shown.data.commit.body).toBe(body);
      expect(shown.text).toMatch(/\[message cut to fit the answer: showed lines 1-\d+ of 2000;/);
    }
  });

  it("git_show of a dense file cuts its default window at the budget, and offsets continue it byte for byte", async () => {
    const blob = plainGit(repo.dir, ["show", "HEAD:dense.txt"]).stdout;
    let offset: number | null = 0;
    let content = "";
    let windows = 0;
    while (offset !== null) {
      const shown: { data: ShowFileData; tokens: number } = await call<ShowFileData>(repo.dir, "git_show", {
        commit: "HEAD",
        path: "dense.txt",
        offset,
      });
      expect(shown.tokens).toBeLessThanOrEqual(BUDGET);
      content += shown.data.content;
      offset = shown.data.nextOffset;
      windows++;
    }
    expect(content).toBe(blob);
    expect(windows).toBeGreaterThan(1);
  });

  it("one enormous line without spaces is cut within the budget in git_show and git_blame, and read on exactly", async () => {
    const shown = await call<ShowFileData>(repo.dir, "git_show", { commit: "HEAD", path: "bundle.min.js" });
    expect(shown.tokens).toBeLessThanOrEqual(BUDGET);
    expect(shown.data.content).toBe("x".repeat(shown.data.returnedBytes));
    const next = await call<ShowFileData>(repo.dir, "git_show", { commit: "HEAD", path: "bundle.min.js", offset: shown.data.nextOffset });
    expect(next.data.offset).toBe(shown.data.returnedBytes);
    const blamed = await call<GitBlameData>(repo.dir, "git_blame", { path: "bundle.min.js", ref: "HEAD" });
    expect(blamed.tokens).toBeLessThanOrEqual(BUDGET);
    expect(blamed.data.lines).toHaveLength(1);
  });
});
