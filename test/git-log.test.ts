import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createToolbox, type GitLogData, type ToolResult } from "../src/index.js";
import type { CommitInfo } from "../src/git/parse/log.js";
import { commitAs, fixtureEnv, makeRepo, mergeAt, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const ADA = { name: "Ada Lovelace", email: "ada@example.com" };
const GRACE = { name: "Grace Hopper", email: "grace@example.org" };
const LINUS = { name: "Linus Torvalds", email: "linus@example.net" };
const BOT = { name: "Merge Bot", email: "bot@example.net" };

/**
 * main:    c1 - c2 - c3 ------- c5 - c6 (merge)
 *                      \             /
 * feature:              c4 ---------
 */
interface History {
  repo: TestRepo;
  c1: string;
  c2: string;
  c3: string;
  c4: string;
  c5: string;
  c6: string;
}

function buildHistory(): History {
  const repo = makeRepo();
  repo.write("README.md", "# demo\n");
  const c1 = commitAs(repo, "Initial commit", { date: "2024-01-01T09:00:00+00:00" });
  repo.write("src/parser.ts", "export const parse = 1;\n");
  const c2 = commitAs(repo, "Add parser\n\nThe parser reads NUL-separated fields.\n\nIt is small.", {
    date: "2024-02-10T12:00:00+02:00",
    committerDate: "2024-02-11T08:30:00-05:00",
    author: GRACE,
    committer: BOT,
  });
  repo.write("src/parser.ts", "export const parse = 2;\n");
  const c3 = commitAs(repo, "fix: handle empty input", { date: "2024-03-05T12:00:00+00:00" });
  repo.git(["checkout", "-q", "-b", "feature"]);
  repo.write("docs/guide.md", "guide\n");
  const c4 = commitAs(repo, "Write the guide", { date: "2024-03-10T12:00:00+00:00", author: LINUS, committer: LINUS });
  repo.git(["checkout", "-q", "main"]);
  repo.write("README.md", "# demo\n\nMore.\n");
  const c5 = commitAs(repo, "Update README", { date: "2024-03-12T12:00:00+00:00" });
  const c6 = mergeAt(repo, "feature", "Merge branch 'feature'", "2024-03-15T12:00:00+00:00");
  return { repo, c1, c2, c3, c4, c5, c6 };
}

/** The expected record of each commit, written out by hand rather than read back from git. */
function expectedCommits(h: History): Record<"c1" | "c2" | "c3" | "c4" | "c5" | "c6", CommitInfo> {
  const person = (who: { name: string; email: string }, date: string) => ({ ...who, date });
  const commit = (
    hash: string,
    parents: string[],
    author: CommitInfo["author"],
    committer: CommitInfo["committer"],
    subject: string,
    body = "",
  ): CommitInfo => ({
    hash,
    shortHash: hash.slice(0, 7),
    parents,
    author,
    committer,
    subject,
    body,
  });
  const ada = (date: string) => person(ADA, date);
  return {
    c1: commit(h.c1, [], ada("2024-01-01T09:00:00+00:00"), ada("2024-01-01T09:00:00+00:00"), "Initial commit"),
    c2: commit(
      h.c2,
      [h.c1],
      person(GRACE, "2024-02-10T12:00:00+02:00"),
      person(BOT, "2024-02-11T08:30:00-05:00"),
      "Add parser",
      "The parser reads NUL-separated fields.\n\nIt is small.",
    ),
    c3: commit(h.c3, [h.c2], ada("2024-03-05T12:00:00+00:00"), ada("2024-03-05T12:00:00+00:00"), "fix: handle empty input"),
    c4: commit(h.c4, [h.c3], person(LINUS, "2024-03-10T12:00:00+00:00"), person(LINUS, "2024-03-10T12:00:00+00:00"), "Write the guide"),
    c5: commit(h.c5, [h.c3], ada("2024-03-12T12:00:00+00:00"), ada("2024-03-12T12:00:00+00:00"), "Update README"),
    c6: commit(h.c6, [h.c5, h.c4], ada("2024-03-15T12:00:00+00:00"), ada("2024-03-15T12:00:00+00:00"), "Merge branch 'feature'"),
  };
}

async function log(root: string, input: Record<string, unknown>): Promise<ToolResult<GitLogData>> {
  return (await createToolbox({ root }).execute("git_log", input)) as ToolResult<GitLogData>;
}

/** The data of a successful call, or a failed expectation showing the error. */
function dataOf(result: ToolResult<GitLogData>): GitLogData {
  if (!result.ok) expect.fail(`git_log failed: ${JSON.stringify(result.error)}`);
  return result.data;
}

function hashes(result: ToolResult<GitLogData>): string[] {
  return dataOf(result).commits.map((commit) => commit.hash);
}

const s = (hash: string) => hash.slice(0, 7);

describe("git_log on a small history", () => {
  let h: History;
  let all: ReturnType<typeof expectedCommits>;
  beforeAll(() => {
    h = buildHistory();
    all = expectedCommits(h);
  });

  it("lists every commit newest first with full author, committer, parents and message", async () => {
    const result = await log(h.repo.dir, {});
    expect(result).toEqual({
      ok: true,
      tool: "git_log",
      data: {
        commits: [all.c6, all.c5, all.c4, all.c3, all.c2, all.c1],
        hasMore: false,
        nextSkip: null,
        ref: h.c6,
        range: null,
        limitedTo: null,
        shallowBoundary: [],
      },
      text: [
        "6 commits, newest first:",
        `${s(h.c6)} 2024-03-15T12:00:00+00:00 Ada Lovelace <ada@example.com> (merge of ${s(h.c5)} ${s(h.c4)})`,
        "    Merge branch 'feature'",
        "",
        `${s(h.c5)} 2024-03-12T12:00:00+00:00 Ada Lovelace <ada@example.com>`,
        "    Update README",
        "",
        `${s(h.c4)} 2024-03-10T12:00:00+00:00 Linus Torvalds <linus@example.net>`,
        "    Write the guide",
        "",
        `${s(h.c3)} 2024-03-05T12:00:00+00:00 Ada Lovelace <ada@example.com>`,
        "    fix: handle empty input",
        "",
        `${s(h.c2)} 2024-02-10T12:00:00+02:00 Grace Hopper <grace@example.org> (committed by Merge Bot <bot@example.net> 2024-02-11T08:30:00-05:00)`,
        "    Add parser",
        "",
        "    The parser reads NUL-separated fields.",
        "",
        "    It is small.",
        "",
        `${s(h.c1)} 2024-01-01T09:00:00+00:00 Ada Lovelace <ada@example.com>`,
        "    Initial commit",
      ].join("\n"),
    });
  });

  it("oneline shows one short line per commit (the data stays complete)", async () => {
    const result = await log(h.repo.dir, { oneline: true, count: 3 });
    expect(result).toEqual({
      ok: true,
      tool: "git_log",
      data: { commits: [all.c6, all.c5, all.c4], hasMore: true, nextSkip: 3, ref: h.c6, range: null, limitedTo: null, shallowBoundary: [] },
      text: [
        "3 commits, newest first:",
        `${s(h.c6)} Merge branch 'feature'`,
        `${s(h.c5)} Update README`,
        `${s(h.c4)} Write the guide`,
        "[more commits match: call git_log with skip=3 and the same other arguments for the next page]",
      ].join("\n"),
    });
  });

  it("count limits the result and hasMore says whether more commits match", async () => {
    expect(hashes(await log(h.repo.dir, { count: 1 }))).toEqual([h.c6]);
    expect(dataOf(await log(h.repo.dir, { count: 5 })).hasMore).toBe(true);
    // Exactly as many commits as exist: nothing more to fetch.
    expect(dataOf(await log(h.repo.dir, { count: 6 })).hasMore).toBe(false);
    expect(dataOf(await log(h.repo.dir, { count: 1000 })).commits).toHaveLength(6);
  });

  it("skip pages through the history without gap or overlap", async () => {
    const first = dataOf(await log(h.repo.dir, { count: 4 }));
    const second = await log(h.repo.dir, { count: 4, skip: 4 });
    expect(first.commits.map((c) => c.hash)).toEqual([h.c6, h.c5, h.c4, h.c3]);
    expect(first.hasMore).toBe(true);
    expect(second).toEqual({
      ok: true,
      tool: "git_log",
      data: { commits: [all.c2, all.c1], hasMore: false, nextSkip: null, ref: h.c6, range: null, limitedTo: null, shallowBoundary: [] },
      text: expect.stringMatching(/^2 commits matching skip=4, newest first:\n/) as unknown as string,
    });
  });

  it("skip past the end is an empty answer that names the filters", async () => {
    expect(await log(h.repo.dir, { skip: 10 })).toEqual({
      ok: true,
      tool: "git_log",
      data: { commits: [], hasMore: false, nextSkip: null, ref: h.c6, range: null, limitedTo: null, shallowBoundary: [] },
      text: "No commits match skip=10.",
    });
  });

  it("author matches name or email, as an extended regular expression, ignoring case", async () => {
    expect(hashes(await log(h.repo.dir, { author: "grace" }))).toEqual([h.c2]);
    expect(hashes(await log(h.repo.dir, { author: "linus@example\\.net" }))).toEqual([h.c4]);
    expect(hashes(await log(h.repo.dir, { author: "^(Grace|Linus) " }))).toEqual([h.c4, h.c2]);
    // The committer of c2 is the bot, but author filters on the author only.
    expect(hashes(await log(h.repo.dir, { author: "bot@" }))).toEqual([]);
  });

  it("grep searches subject and body, as an extended regular expression, ignoring case", async () => {
    expect(hashes(await log(h.repo.dir, { grep: "NUL-separated" }))).toEqual([h.c2]);
    expect(hashes(await log(h.repo.dir, { grep: "FIX" }))).toEqual([h.c3]);
    expect(hashes(await log(h.repo.dir, { grep: "^fix|guide" }))).toEqual([h.c4, h.c3]);
    expect(hashes(await log(h.repo.dir, { grep: "README" }))).toEqual([h.c5]);
  });

  it("author and grep must both match", async () => {
    expect(hashes(await log(h.repo.dir, { author: "ada", grep: "readme|initial" }))).toEqual([h.c5, h.c1]);
    expect(hashes(await log(h.repo.dir, { author: "linus", grep: "readme" }))).toEqual([]);
  });

  it("since and until filter on the commit date (the committer's)", async () => {
    expect(hashes(await log(h.repo.dir, { since: "2024-03-01" }))).toEqual([h.c6, h.c5, h.c4, h.c3]);
    expect(hashes(await log(h.repo.dir, { until: "2024-02-28" }))).toEqual([h.c2, h.c1]);
    expect(hashes(await log(h.repo.dir, { since: "2024-03-06", until: "2024-03-13" }))).toEqual([h.c5, h.c4]);
    // c2 was authored on 02-10 but committed on 02-11 (13:30 UTC).
    expect(hashes(await log(h.repo.dir, { since: "2024-02-11 13:00 +0000", until: "2024-02-11 14:00 +0000" }))).toEqual([h.c2]);
  });

  it("since and until accept git's relative dates", async () => {
    // The history is from 2024, so it is older than a year and younger than ten years for a long while.
    expect(hashes(await log(h.repo.dir, { since: "10 years ago" }))).toHaveLength(6);
    expect(hashes(await log(h.repo.dir, { until: "1 year ago", count: 2 }))).toEqual([h.c6, h.c5]);
    expect(hashes(await log(h.repo.dir, { since: "1 year ago" }))).toEqual([]);
  });

  it("a date git cannot read is invalid_input, not a silent 'now'", async () => {
    expect(await log(h.repo.dir, { since: "whenever" })).toEqual({
      ok: false,
      tool: "git_log",
      error: {
        code: "invalid_input",
        message: 'since "whenever" is not a date git understands.',
        hint: 'Use a date such as "2024-01-31", "2024-01-31 14:00" or "2 weeks ago".',
      },
    });
    const until = await log(h.repo.dir, { until: "--all" });
    expect(until.ok ? null : until.error.code).toBe("invalid_input");
  });

  it("path limits to commits touching a file or directory", async () => {
    expect(hashes(await log(h.repo.dir, { path: "src/parser.ts" }))).toEqual([h.c3, h.c2]);
    expect(hashes(await log(h.repo.dir, { path: "docs" }))).toEqual([h.c4]);
    expect(hashes(await log(h.repo.dir, { path: "docs/" }))).toEqual([h.c4]);
    expect(hashes(await log(h.repo.dir, { path: "README.md", count: 1 }))).toEqual([h.c5]);
  });

  it("ref starts the walk elsewhere: branch, expression or hash", async () => {
    expect(await log(h.repo.dir, { ref: "feature", oneline: true })).toEqual({
      ok: true,
      tool: "git_log",
      data: {
        commits: [all.c4, all.c3, all.c2, all.c1],
        hasMore: false,
        nextSkip: null,
        ref: h.c4,
        range: null,
        limitedTo: null,
        shallowBoundary: [],
      },
      text: [
        '4 commits matching ref="feature", newest first:',
        `${s(h.c4)} Write the guide`,
        `${s(h.c3)} fix: handle empty input`,
        `${s(h.c2)} Add parser`,
        `${s(h.c1)} Initial commit`,
      ].join("\n"),
    });
    expect(hashes(await log(h.repo.dir, { ref: "HEAD^2" }))).toEqual([h.c4, h.c3, h.c2, h.c1]);
    expect(hashes(await log(h.repo.dir, { ref: h.c2 }))).toEqual([h.c2, h.c1]);
  });

  it("an empty result repeats every filter that produced it", async () => {
    const result = await log(h.repo.dir, {
      author: "nobody",
      since: "2024-01-01",
      until: "2024-12-31",
      grep: 'say "hi"',
      path: "src",
      ref: "feature",
      skip: 1,
      count: 3,
    });
    expect(result).toEqual({
      ok: true,
      tool: "git_log",
      data: { commits: [], hasMore: false, nextSkip: null, ref: h.c4, range: null, limitedTo: "src", shallowBoundary: [] },
      text: 'No commits match ref="feature", author="nobody", since="2024-01-01", until="2024-12-31", grep="say \\"hi\\"", path="src", skip=1.',
    });
  });

  it("an invalid regular expression is invalid_input naming the field", async () => {
    expect(await log(h.repo.dir, { grep: "fix(" })).toEqual({
      ok: false,
      tool: "git_log",
      error: {
        code: "invalid_input",
        message: 'grep "fix(" is not a valid regular expression: Unmatched ( or \\(.',
        hint: "Patterns are extended regular expressions: escape special characters such as ( [ { * + ? | with a backslash.",
      },
    });
    expect(await log(h.repo.dir, { author: "[ada" })).toEqual({
      ok: false,
      tool: "git_log",
      error: {
        code: "invalid_input",
        message: 'author "[ada" is not a valid regular expression: Unmatched [, [^, [:, [., or [=.',
        hint: "Patterns are extended regular expressions: escape special characters such as ( [ { * + ? | with a backslash.",
      },
    });
  });

  it("option-like values are data, never options", async () => {
    const outside = join(tempDir(), "written-by-git");
    expect(hashes(await log(h.repo.dir, { author: "--all" }))).toEqual([]);
    expect(hashes(await log(h.repo.dir, { grep: `--output=${outside}` }))).toEqual([]);
    expect(hashes(await log(h.repo.dir, { path: `--output=${outside}` }))).toEqual([]);
    const ref = await log(h.repo.dir, { ref: `--output=${outside}` });
    expect(ref.ok ? null : ref.error.code).toBe("invalid_input");
    expect(existsSync(outside)).toBe(false);
  });

  it("bad_revision for a ref that names no commit", async () => {
    expect(await log(h.repo.dir, { ref: "no-such-branch" })).toEqual({
      ok: false,
      tool: "git_log",
      error: {
        code: "bad_revision",
        message: 'ref "no-such-branch" does not name a commit in this repository.',
        hint: "Use git_log to list commits, or give a branch, tag or hash that exists (e.g. HEAD, HEAD~1, main).",
      },
    });
  });

  it("path_outside_workspace for a path leaving the workspace", async () => {
    const result = await log(h.repo.dir, { path: "../elsewhere" });
    expect(result.ok ? null : result.error.code).toBe("path_outside_workspace");
  });

  it("rejects bad counts, negative skips and unknown fields as invalid_input", async () => {
    for (const input of [{ count: 0 }, { count: 1.5 }, { count: 1001 }, { skip: -1 }, { oneline: "yes" }, { author: "" }]) {
      const result = await log(h.repo.dir, input);
      expect(result.ok ? null : result.error.code, JSON.stringify(input)).toBe("invalid_input");
    }
    const unknown = await log(h.repo.dir, { limit: 5 });
    expect(unknown.ok ? null : unknown.error.message).toBe('Invalid input for git_log: unknown field "limit".');
  });

  it("a root that is a subdirectory takes paths relative to it", async () => {
    const root = join(h.repo.dir, "src");
    expect(hashes(await log(root, { path: "parser.ts" }))).toEqual([h.c3, h.c2]);
    expect(hashes(await log(root, { path: "." }))).toEqual([h.c3, h.c2]);
    // Without path the workspace's own history, as git_status and git_diff see only the workspace's files.
    expect(hashes(await log(root, {}))).toEqual([h.c3, h.c2]);
    expect(hashes(await log(join(h.repo.dir, "docs"), { oneline: true }))).toEqual([h.c4]);
    const escape = await log(root, { path: "../README.md" });
    expect(escape.ok ? null : escape.error.code).toBe("path_outside_workspace");
  });
});

describe("git_log edge cases", () => {
  it("an empty repository has no commits, which is an answer, not an error", async () => {
    const repo = makeRepo();
    expect(await log(repo.dir, {})).toEqual({
      ok: true,
      tool: "git_log",
      data: { commits: [], hasMore: false, nextSkip: null, ref: null, range: null, limitedTo: null, shallowBoundary: [] },
      text: "No commits yet: the current branch has no history.",
    });
    // Filters do not turn it into an error either.
    const filtered = await log(repo.dir, { author: "ada", path: "a.txt" });
    expect(filtered.ok && filtered.data.commits).toEqual([]);
  });

  it("an unborn branch next to other branches has no commits", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n");
    repo.commit("first");
    repo.git(["checkout", "-q", "--orphan", "fresh"]);
    expect(dataOf(await log(repo.dir, {}))).toEqual({
      commits: [],
      hasMore: false,
      nextSkip: null,
      ref: null,
      range: null,
      limitedTo: null,
      shallowBoundary: [],
    });
    expect(hashes(await log(repo.dir, { ref: "main" }))).toHaveLength(1);
  });

  it("a detached HEAD logs from the detached commit", async () => {
    const repo = makeRepo();
    const first = repo.commit("first", { allowEmpty: true });
    repo.commit("second", { allowEmpty: true });
    repo.git(["checkout", "-q", "--detach", first]);
    expect(hashes(await log(repo.dir, {}))).toEqual([first]);
  });

  it("a subdirectory root with nothing committed in it has no history yet", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n");
    const head = repo.commit("first");
    repo.write("fresh/new.txt", "new\n");
    expect(await log(join(repo.dir, "fresh"), {})).toEqual({
      ok: true,
      tool: "git_log",
      data: { commits: [], hasMore: false, nextSkip: null, ref: head, range: null, limitedTo: "fresh", shallowBoundary: [] },
      text: "No commits touching the workspace fresh/.",
    });
  });

  it("count defaults to 20", async () => {
    const repo = makeRepo();
    for (let i = 1; i <= 21; i++) repo.commit(`commit ${i}`, { allowEmpty: true });
    const data = dataOf(await log(repo.dir, {}));
    expect(data.commits.map((c) => c.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `commit ${21 - i}`));
    expect(data.hasMore).toBe(true);
    expect(dataOf(await log(repo.dir, { skip: 20 })).commits.map((c) => c.subject)).toEqual(["commit 1"]);
  });

  it("date-only bounds cover whole days (git alone would use the current time of day)", async () => {
    const repo = makeRepo();
    // Midnight at the start of 2024-06-15 in the local time zone, as git itself computes it.
    const midnight = Number(/--max-age=(\d+)/.exec(repo.git(["rev-parse", "--since=2024-06-15 00:00:00"]))![1]);
    const before = repo.commit("just before midnight", { allowEmpty: true, date: midnight - 60 });
    const after = repo.commit("just after midnight", { allowEmpty: true, date: midnight + 60 });
    expect(hashes(await log(repo.dir, { since: "2024-06-15" }))).toEqual([after]);
    expect(hashes(await log(repo.dir, { until: "2024-06-14" }))).toEqual([before]);
    expect(hashes(await log(repo.dir, { since: "2024-06-14", until: "2024-06-15" }))).toEqual([after, before]);
  });

  it("multi-line subjects, bodies with blank lines and trailing newlines are kept exactly", async () => {
    const repo = makeRepo();
    repo.commit("first line\nsecond line\n\nbody one\n\n\nbody two\n\n", { allowEmpty: true });
    const [commit] = dataOf(await log(repo.dir, {})).commits;
    // git joins the lines of the first paragraph into the subject and collapses runs of blank lines.
    expect(commit?.subject).toBe("first line second line");
    expect(commit?.body).toBe("body one\n\nbody two");
  });

  it("file names with spaces, quotes, newlines and non-ASCII work as paths", async () => {
    const repo = makeRepo();
    const name = 'dir with space/"quoted" \u00fc\nnewline [x]*.txt';
    repo.write("other.txt", "other\n");
    const first = repo.commit("other");
    repo.write(name, "content\n");
    const second = repo.commit("weird name");
    expect(hashes(await log(repo.dir, { path: name }))).toEqual([second]);
    expect(hashes(await log(repo.dir, { path: "dir with space" }))).toEqual([second]);
    // Literal pathspecs: the glob characters do not match other files.
    expect(hashes(await log(repo.dir, { path: "dir with space/*" }))).toEqual([]);
    expect(hashes(await log(repo.dir, {}))).toEqual([second, first]);
  });

  it("a message stored in another encoding comes back as UTF-8", async () => {
    const repo = makeRepo();
    repo.write("msg", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café" in Latin-1
    repo.git(["-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "--allow-empty", "-F", "msg"], {
      env: { GIT_AUTHOR_DATE: "1704067200 +0000", GIT_COMMITTER_DATE: "1704067200 +0000" },
    });
    expect(repo.git(["cat-file", "commit", "HEAD"])).toContain("encoding ISO-8859-1");
    const [commit] = dataOf(await log(repo.dir, {})).commits;
    expect(commit?.subject).toBe("caf\u00e9");
  });
});

describe("the work tree's .mailmap", () => {
  it("maps names and emails as plain git log and git show print them, and --author matches the mapped name", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n");
    const first = commitAs(repo, "one", { author: { name: "old name", email: "old@example.com" }, date: "2024-01-01T00:00:00Z" });
    repo.write(".mailmap", "New Name <new@example.com> old name <old@example.com>\n");
    commitAs(repo, "map", { author: ADA, date: "2024-01-02T00:00:00Z" });
    const plain = plainGit(repo.dir, ["log", "--date=iso"]).stdout;
    expect(plain).toContain("Author: New Name <new@example.com>");
    expect(plainGit(repo.dir, ["log", "--format=%H", "--author=New Name"]).stdout.trim()).toBe(first);

    const toolbox = createToolbox({ root: repo.dir });
    try {
      const log = await toolbox.execute("git_log", {});
      expect(log.ok && log.data.commits.map((commit) => commit.author.name)).toEqual(["Ada Lovelace", "New Name"]);
      expect(log.ok && log.data.commits[1]!.author.email).toBe("new@example.com");
      const byAuthor = await toolbox.execute("git_log", { author: "New Name" });
      expect(byAuthor.ok && byAuthor.data.commits.map((commit) => commit.hash)).toEqual([first]);
      const show = await toolbox.execute("git_show", { commit: first });
      expect(show.ok && show.data.kind === "commit" && show.data.commit.author.name).toBe("New Name");
    } finally {
      await toolbox.close();
    }
  });
});

describe("as the user's git reads them: time zone, characters, the mailmaps git reads by default", () => {
  it("a date without a zone is in the caller's TZ", async () => {
    const repo = makeRepo();
    for (const [message, date] of [
      ["c1", "2024-01-31T08:00:00+00:00"],
      ["c2", "2024-01-31T10:00:00+00:00"],
    ]) {
      repo.write("a.txt", `${message}\n`);
      commitAs(repo, message!, { date: date! });
    }
    const since = "2024-01-31 18:00";
    // 18:00 in Tokyo is 09:00 UTC: only c2 is later. In UTC both are earlier.
    const plain = plainGit(repo.dir, ["log", "--format=%s", `--since=${since}`], { ...fixtureEnv(), TZ: "Asia/Tokyo" }).stdout;
    expect(plain).toBe("c2\n");
    const saved = process.env.TZ;
    process.env.TZ = "Asia/Tokyo";
    const toolbox = createToolbox({ root: repo.dir });
    try {
      const result = await toolbox.execute("git_log", { since });
      expect(result.ok && result.data.commits.map((commit) => commit.subject)).toEqual(["c2"]);
    } finally {
      await toolbox.close();
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it("grep and author match letters beyond ASCII case-insensitively, as in a UTF-8 locale", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n");
    commitAs(repo, "Café au lait", { date: "2024-01-01T00:00:00Z" });
    repo.write("a.txt", "b\n");
    commitAs(repo, "other", { author: { name: "José Ñúñez", email: "jose@example.com" }, date: "2024-01-02T00:00:00Z" });
    const utf8 = { ...fixtureEnv(), LC_ALL: "C.UTF-8" };
    expect(plainGit(repo.dir, ["log", "-E", "-i", "--format=%s", "--grep=CAFÉ"], utf8).stdout).toBe("Café au lait\n");
    const toolbox = createToolbox({ root: repo.dir });
    try {
      for (const [input, subject] of [
        [{ grep: "CAFÉ" }, "Café au lait"],
        [{ grep: "^caf. au" }, "Café au lait"],
        [{ author: "JOSÉ ÑÚ" }, "other"],
      ] as const) {
        const result = await toolbox.execute("git_log", input);
        expect(result.ok && result.data.commits.map((commit) => commit.subject)).toEqual([subject]);
      }
    } finally {
      await toolbox.close();
    }
  });

  it("a bare repository's committed .mailmap, and a mailmap file of the user's own config, map names", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").write(".mailmap", "Real Name <real@example.com> Tester <tester@example.com>\n");
    commitAs(repo, "one", { author: { name: "Tester", email: "tester@example.com" }, date: "2024-01-01T00:00:00Z" });
    const bare = join(tempDir(), "bare.git");
    plainGit(repo.dir, ["clone", "-q", "--bare", repo.dir, bare]);
    expect(plainGit(bare, ["log", "-1", "--format=%aN"]).stdout).toBe("Real Name\n");
    const bareBox = createToolbox({ root: bare });
    try {
      const result = await bareBox.execute("git_log", {});
      expect(result.ok && result.data.commits[0]!.author.name).toBe("Real Name");
    } finally {
      await bareBox.close();
    }

    const plainRepo = makeRepo();
    plainRepo.write("b.txt", "b\n");
    commitAs(plainRepo, "two", { author: { name: "Tester", email: "tester@example.com" }, date: "2024-01-01T00:00:00Z" });
    const home = tempDir("gitctx-user-home-");
    writeFileSync(join(home, "people"), "Global Mapped <g@example.com> <tester@example.com>\n");
    writeFileSync(join(home, ".gitconfig"), "[mailmap]\n\tfile = ~/people\n");
    const userEnv: NodeJS.ProcessEnv = { ...fixtureEnv(), HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    delete userEnv.GIT_CONFIG_GLOBAL;
    expect(plainGit(plainRepo.dir, ["log", "-1", "--format=%aN"], userEnv).stdout).toBe("Global Mapped\n");
    const toolbox = createToolbox({ root: plainRepo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    try {
      const result = await toolbox.execute("git_log", {});
      expect(result.ok && result.data.commits[0]!.author.name).toBe("Global Mapped");
    } finally {
      await toolbox.close();
    }
  });
});

describe("git notes", () => {
  it("git_log and git_show give each commit's note as plain git prints it, whatever bytes it holds", async () => {
    const repo = makeRepo();
    const first = repo.write("a.txt", "a\n").commit("first");
    const second = repo.write("a.txt", "b\n").commit("second");
    repo.git(["notes", "add", "-m", "reviewed by Ada", first]);
    // A note may hold any byte: NUL and what looks like another commit's record must not be taken for one.
    const forged = `line one\0${"f".repeat(40)}\0forged\n`;
    repo.git(["notes", "add", "-F", "-", second], { input: forged });
    expect(plainGit(repo.dir, ["log", "-1", first]).stdout).toContain("\nNotes:\n    reviewed by Ada\n");
    const toolbox = createToolbox({ root: repo.dir });
    try {
      const log = await toolbox.execute("git_log", {});
      if (!log.ok) throw new Error(log.error.message);
      expect(log.data.commits.map((commit) => [commit.hash, commit.notes])).toEqual([
        [second, plainGit(repo.dir, ["notes", "show", second]).stdout],
        [first, "reviewed by Ada\n"],
      ]);
      expect(log.text).toContain("Notes:\n    reviewed by Ada");
      const show = await toolbox.execute("git_show", { commit: first });
      if (!show.ok || show.data.kind !== "commit") throw new Error("expected a commit");
      expect(show.data.commit.notes).toBe("reviewed by Ada\n");
      expect(show.text).toContain("Notes:\n    reviewed by Ada");
      // core.notesRef names another notes ref: its notes are the ones shown, as by git.
      repo.git(["notes", "--ref=review", "add", "-m", "other ref", first]);
      repo.git(["config", "core.notesRef", "refs/notes/review"]);
      expect(plainGit(repo.dir, ["log", "-1", first]).stdout).toContain("\n    other ref\n");
      const other = await toolbox.execute("git_show", { commit: first, format: "metadata" });
      expect(other.ok && other.data.kind === "commit" ? other.data.commit.notes : undefined).toBe("other ref\n");
    } finally {
      await toolbox.close();
    }
  });

  it("without a notes ref no process is spent on notes, and commits carry no notes field", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    const toolbox = createToolbox({ root: repo.dir });
    const log = await toolbox.execute("git_log", {});
    await toolbox.close();
    expect(log.ok && log.data.commits[0]).not.toHaveProperty("notes");
  });
});

describe("a path's log with the user's log.follow", () => {
  it("pages through the commits plain git log --follow lists, none twice, none left out", async () => {
    const repo = makeRepo();
    let text = `${Array.from({ length: 20 }, (_, i) => i).join("\n")}\n`;
    repo.write("a.txt", text).commit("c1");
    for (const i of [2, 3]) {
      text += `${i}\n`;
      repo.write("a.txt", text).commit(`c${i}`);
      repo.write(`other${i}.txt`, "x\n").commit(`other${i}`);
    }
    repo.git(["mv", "a.txt", "b.txt"]);
    repo.commit("move");
    for (const i of [5, 6]) {
      text += `${i}\n`;
      repo.write("b.txt", text).commit(`c${i}`);
      repo.write(`other${i}.txt`, "x\n").commit(`other${i}`);
    }
    const home = tempDir("gitctx-log-home-");
    writeFileSync(join(home, ".gitconfig"), "[log]\n\tfollow = true\n");
    const expected = plainGit(
      repo.dir,
      ["log", "--format=%s", "--", "b.txt"],
      fixtureEnv({ HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") }),
    )
      .stdout.trim()
      .split("\n");
    expect(expected).toEqual(["c6", "c5", "move", "c3", "c2", "c1"]);
    // git's own --skip counts the commits it walks, not those it shows: its pages overlap.
    expect(plainGit(repo.dir, ["log", "--follow", "--format=%s", "--skip=2", "-n2", "--", "b.txt"]).stdout.trim().split("\n")).not.toEqual([
      "move",
      "c3",
    ]);
    const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    const subjects: string[] = [];
    let skip: number | null = 0;
    while (skip !== null) {
      const data = dataOf(await toolbox.execute("git_log", { path: "b.txt", count: 2, skip }));
      subjects.push(...data.commits.map((commit) => commit.subject));
      skip = data.nextSkip;
    }
    await toolbox.close();
    expect(subjects).toEqual(expected);
  });
});
