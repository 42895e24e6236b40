import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createToolbox, type BlameCommit, type GitBlameData, type ToolResult, type UserConfigEnvironment } from "../src/index.js";
import { commitAs, fixtureEnv, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const ADA = { name: "Ada Lovelace", email: "ada@example.com" };
const GRACE = { name: "Grace Hopper", email: "grace@example.org" };
const ZERO = "0".repeat(40);

/**
 * c1 (Ada): f.txt with lines l1..l5, old.txt, empty.txt
 * c2 (Grace, +02:00): changes line 3 of f.txt and adds line 6; renames old.txt to new.txt and changes its line 2
 */
interface BlameRepo {
  repo: TestRepo;
  c1: string;
  c2: string;
}

function buildBlameRepo(): BlameRepo {
  const repo = makeRepo();
  repo.write("f.txt", "l1\nl2\nl3\nl4\nl5\n");
  repo.write("old.txt", "alpha\nbeta\ngamma\n");
  repo.write("empty.txt", "");
  const c1 = commitAs(repo, "Initial", { date: "2024-01-01T10:00:00+00:00" });
  repo.write("f.txt", "l1\nl2\nL3 changed\nl4\nl5\nl6\n");
  repo.git(["mv", "old.txt", "new.txt"]);
  repo.write("new.txt", "alpha\nBETA\ngamma\n");
  const c2 = commitAs(repo, "Change line 3, rename old", { date: "2024-02-01T12:00:00+02:00", author: GRACE });
  return { repo, c1, c2 };
}

async function blame(root: string, input: Record<string, unknown>): Promise<ToolResult<GitBlameData>> {
  return (await createToolbox({ root }).execute("git_blame", input)) as ToolResult<GitBlameData>;
}

function dataOf(result: ToolResult<GitBlameData>): GitBlameData {
  if (!result.ok) expect.fail(`git_blame failed: ${JSON.stringify(result.error)}`);
  return result.data;
}

function errorOf(result: ToolResult<GitBlameData>) {
  if (result.ok) expect.fail(`expected an error, got ${result.text}`);
  return result.error;
}

/** line numbers -> hashes, the shape most assertions care about. */
function owners(result: ToolResult<GitBlameData>): Array<[number, string]> {
  return dataOf(result).lines.map((line) => [line.line, line.hash]);
}

const short = (hash: string) => hash.slice(0, 8);

describe("git_blame", () => {
  let b: BlameRepo;
  let c1Info: BlameCommit;
  let c2Info: BlameCommit;
  beforeAll(() => {
    b = buildBlameRepo();
    c1Info = {
      hash: b.c1,
      author: "Ada Lovelace",
      authorEmail: "ada@example.com",
      authorTime: "2024-01-01T10:00:00+00:00",
      committer: "Ada Lovelace",
      committerEmail: "ada@example.com",
      committerTime: "2024-01-01T10:00:00+00:00",
      summary: "Initial",
      filename: "f.txt",
      // The root commit: blame cannot look further back.
      boundary: true,
      uncommitted: false,
    };
    c2Info = {
      hash: b.c2,
      author: "Grace Hopper",
      authorEmail: "grace@example.org",
      authorTime: "2024-02-01T12:00:00+02:00",
      committer: "Ada Lovelace",
      committerEmail: "ada@example.com",
      committerTime: "2024-02-01T12:00:00+02:00",
      summary: "Change line 3, rename old",
      filename: "f.txt",
      boundary: false,
      uncommitted: false,
    };
  });

  it("one entry per line plus a table of commits, each once", async () => {
    const line = (n: number, hash: string, content: string) => ({ line: n, hash, originalLine: n, content });
    expect(await blame(b.repo.dir, { path: "f.txt" })).toEqual({
      ok: true,
      tool: "git_blame",
      data: {
        path: "f.txt",
        ref: null,
        startLine: 1,
        endLine: 6,
        nextStartLine: null,
        shallowBoundary: [],
        lines: [line(1, b.c1, "l1"), line(2, b.c1, "l2"), line(3, b.c2, "L3 changed"), line(4, b.c1, "l4"), line(5, b.c1, "l5"), line(6, b.c2, "l6")],
        commits: { [b.c1]: c1Info, [b.c2]: c2Info },
      },
      text: [
        "Blame of f.txt (working tree), lines 1-6, 2 commits:",
        `${short(b.c1)} 2024-01-01 Ada Lovelace: Initial`,
        `${short(b.c2)} 2024-02-01 Grace Hopper: Change line 3, rename old`,
        "",
        `${short(b.c1)} 1| l1`,
        `${short(b.c1)} 2| l2`,
        `${short(b.c2)} 3| L3 changed`,
        `${short(b.c1)} 4| l4`,
        `${short(b.c1)} 5| l5`,
        `${short(b.c2)} 6| l6`,
      ].join("\n"),
    });
  });

  it("start_line and end_line together select an inclusive range; only its commits are listed", async () => {
    expect(await blame(b.repo.dir, { path: "f.txt", start_line: 3, end_line: 3 })).toEqual({
      ok: true,
      tool: "git_blame",
      data: {
        path: "f.txt",
        ref: null,
        startLine: 3,
        endLine: 3,
        nextStartLine: null,
        shallowBoundary: [],
        lines: [{ line: 3, hash: b.c2, originalLine: 3, content: "L3 changed" }],
        commits: { [b.c2]: c2Info },
      },
      text: [
        "Blame of f.txt (working tree), lines 3-3, 1 commit:",
        `${short(b.c2)} 2024-02-01 Grace Hopper: Change line 3, rename old`,
        "",
        `${short(b.c2)} 3| L3 changed`,
      ].join("\n"),
    });
    expect(owners(await blame(b.repo.dir, { path: "f.txt", start_line: 2, end_line: 4 }))).toEqual([
      [2, b.c1],
      [3, b.c2],
      [4, b.c1],
    ]);
  });

  it("a lone start_line means from there to the end of the file", async () => {
    const data = dataOf(await blame(b.repo.dir, { path: "f.txt", start_line: 5 }));
    expect(data).toMatchObject({ startLine: 5, endLine: 6 });
    expect(data.lines.map((line) => [line.line, line.content])).toEqual([
      [5, "l5"],
      [6, "l6"],
    ]);
    expect(Object.keys(data.commits)).toEqual([b.c1, b.c2]);
    expect(owners(await blame(b.repo.dir, { path: "f.txt", start_line: 6 }))).toEqual([[6, b.c2]]);
  });

  it("a lone end_line means from line 1 to there", async () => {
    const data = dataOf(await blame(b.repo.dir, { path: "f.txt", end_line: 2 }));
    expect(data).toMatchObject({ startLine: 1, endLine: 2 });
    expect(owners(await blame(b.repo.dir, { path: "f.txt", end_line: 2 }))).toEqual([
      [1, b.c1],
      [2, b.c1],
    ]);
    expect(data.commits).toEqual({ [b.c1]: c1Info });
  });

  it("start_line after end_line is a clear invalid_input", async () => {
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", start_line: 4, end_line: 2 }))).toEqual({
      code: "invalid_input",
      message: "start_line (4) is after end_line (2).",
      hint: "Give start_line <= end_line between 1 and 6 (f.txt has 6 lines), or only start_line for a window from there.",
    });
  });

  it("a line past the end is a clear invalid_input, whichever bound it is", async () => {
    const past = {
      code: "invalid_input",
      message: "f.txt has only 6 lines; the requested range goes past its end.",
      hint: "Use line numbers between 1 and 6.",
    };
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", start_line: 7 }))).toEqual(past);
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", end_line: 7 }))).toEqual(past);
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", start_line: 2, end_line: 99 }))).toEqual(past);
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", start_line: 7, end_line: 9 }))).toEqual(past);
  });

  it("line numbers must be whole and at least 1", async () => {
    for (const input of [{ start_line: 0 }, { end_line: 0 }, { start_line: -1 }, { start_line: 1.5 }, { end_line: "2" }]) {
      expect(errorOf(await blame(b.repo.dir, { path: "f.txt", ...input })).code, JSON.stringify(input)).toBe("invalid_input");
    }
    expect(errorOf(await blame(b.repo.dir, {})).code).toBe("invalid_input");
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", line: 1 })).message).toBe('Invalid input for git_blame: unknown field "line".');
  });

  it("ref blames the file as it was at that commit", async () => {
    const data = dataOf(await blame(b.repo.dir, { path: "f.txt", ref: "HEAD~1" }));
    expect(data.ref).toBe(b.c1);
    expect(data.lines.map((line) => [line.line, line.hash, line.content])).toEqual([
      [1, b.c1, "l1"],
      [2, b.c1, "l2"],
      [3, b.c1, "l3"],
      [4, b.c1, "l4"],
      [5, b.c1, "l5"],
    ]);
    const text = (await blame(b.repo.dir, { path: "f.txt", ref: b.c1, end_line: 1 })) as { text: string };
    expect(text.text).toBe(
      [
        `Blame of f.txt (${b.c1.slice(0, 12)}), lines 1-1, 1 commit:`,
        `${short(b.c1)} 2024-01-01 Ada Lovelace: Initial`,
        "",
        `${short(b.c1)} 1| l1`,
      ].join("\n"),
    );
    // The old name of a renamed file, at a commit where it existed.
    expect(dataOf(await blame(b.repo.dir, { path: "old.txt", ref: b.c1 })).lines.map((line) => line.content)).toEqual(["alpha", "beta", "gamma"]);
  });

  it("ref: bad_revision for an unknown commit, invalid_input for an option-like one", async () => {
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", ref: "nope" }))).toEqual({
      code: "bad_revision",
      message: 'ref "nope" does not name a commit in this repository.',
      hint: "Use git_log to list commits, or give a branch, tag or hash that exists (e.g. HEAD, HEAD~1, main).",
    });
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", ref: "--contents=/etc/passwd" })).code).toBe("invalid_input");
    expect(errorOf(await blame(b.repo.dir, { path: "f.txt", ref: "-L1,2" })).code).toBe("invalid_input");
  });

  it("lines from before a rename keep the old file name", async () => {
    const result = await blame(b.repo.dir, { path: "new.txt" });
    expect(dataOf(result)).toEqual({
      path: "new.txt",
      ref: null,
      startLine: 1,
      endLine: 3,
      nextStartLine: null,
      shallowBoundary: [],
      lines: [
        { line: 1, hash: b.c1, originalLine: 1, content: "alpha" },
        { line: 2, hash: b.c2, originalLine: 2, content: "BETA" },
        { line: 3, hash: b.c1, originalLine: 3, content: "gamma" },
      ],
      commits: { [b.c1]: { ...c1Info, filename: "old.txt" }, [b.c2]: { ...c2Info, filename: "new.txt" } },
    });
    expect(result.ok && result.text.split("\n").slice(0, 3)).toEqual([
      "Blame of new.txt (working tree), lines 1-3, 2 commits:",
      `${short(b.c1)} 2024-01-01 Ada Lovelace: Initial (as old.txt)`,
      `${short(b.c2)} 2024-02-01 Grace Hopper: Change line 3, rename old`,
    ]);
  });

  it("an empty file is an empty answer; any line of it is past its end", async () => {
    expect(await blame(b.repo.dir, { path: "empty.txt" })).toEqual({
      ok: true,
      tool: "git_blame",
      data: { path: "empty.txt", ref: null, startLine: 1, endLine: 0, nextStartLine: null, lines: [], commits: {}, shallowBoundary: [] },
      text: "empty.txt (working tree) is empty: nothing to blame.",
    });
    expect(errorOf(await blame(b.repo.dir, { path: "empty.txt", start_line: 1 }))).toEqual({
      code: "invalid_input",
      message: "empty.txt has only 0 lines; the requested range goes past its end.",
      hint: "The file is empty: there is nothing to blame.",
    });
  });

  it("paths that are not tracked files: path_not_found, directories and escapes refused", async () => {
    expect(errorOf(await blame(b.repo.dir, { path: "no-such-file.txt" }))).toEqual({
      code: "path_not_found",
      message: "no-such-file.txt is not a file git tracks.",
      hint: "Check the path with git_status or git_show on its directory; blame needs a file git tracks.",
    });
    expect(errorOf(await blame(b.repo.dir, { path: "new.txt", ref: b.c1 }))).toEqual({
      code: "path_not_found",
      message: `new.txt does not exist at ${b.c1}.`,
      hint: "Check the path with git_status or git_show on its directory; blame needs a file git tracks.",
    });
    expect(errorOf(await blame(b.repo.dir, { path: "../f.txt" })).code).toBe("path_outside_workspace");
    expect(errorOf(await blame(b.repo.dir, { path: "/etc/passwd" })).code).toBe("path_outside_workspace");
  });
});

describe("git_blame with a changing working tree", () => {
  it("uncommitted lines are attributed to no commit, with no made-up time", async () => {
    const { repo, c1, c2 } = buildBlameRepo();
    repo.write("f.txt", "l1\nchanged\nL3 changed\nl4\nl5\nl6\nadded\n");
    const result = await blame(repo.dir, { path: "f.txt", start_line: 1, end_line: 3 });
    expect(dataOf(result).lines).toEqual([
      { line: 1, hash: c1, originalLine: 1, content: "l1" },
      { line: 2, hash: ZERO, originalLine: 2, content: "changed" },
      { line: 3, hash: c2, originalLine: 3, content: "L3 changed" },
    ]);
    expect(dataOf(result).commits[ZERO]).toEqual({
      hash: ZERO,
      author: "Not Committed Yet",
      authorEmail: "not.committed.yet",
      authorTime: null,
      committer: "Not Committed Yet",
      committerEmail: "not.committed.yet",
      committerTime: null,
      summary: "Version of f.txt from f.txt",
      filename: "f.txt",
      boundary: false,
      uncommitted: true,
    });
    expect(result.ok && result.text).toBe(
      [
        "Blame of f.txt (working tree), lines 1-3, 3 commits:",
        `${short(c1)} 2024-01-01 Ada Lovelace: Initial`,
        "00000000 not committed yet (changes in the working tree)",
        `${short(c2)} 2024-02-01 Grace Hopper: Change line 3, rename old`,
        "",
        `${short(c1)} 1| l1`,
        "00000000 2| changed",
        `${short(c2)} 3| L3 changed`,
      ].join("\n"),
    );
    expect(owners(await blame(repo.dir, { path: "f.txt", start_line: 7 }))).toEqual([[7, ZERO]]);
    // ref ignores the working tree.
    expect(dataOf(await blame(repo.dir, { path: "f.txt", ref: "HEAD" })).lines.map((line) => line.content)).toEqual([
      "l1",
      "l2",
      "L3 changed",
      "l4",
      "l5",
      "l6",
    ]);
  });

  it("a staged new file is all uncommitted; a file deleted from the working tree points to ref", async () => {
    const { repo, c1 } = buildBlameRepo();
    repo.write("staged.txt", "s1\ns2\n");
    repo.git(["add", "staged.txt"]);
    expect(owners(await blame(repo.dir, { path: "staged.txt" }))).toEqual([
      [1, ZERO],
      [2, ZERO],
    ]);
    repo.write("untracked.txt", "u\n");
    expect(errorOf(await blame(repo.dir, { path: "untracked.txt" })).code).toBe("path_not_found");
    repo.remove("f.txt");
    expect(errorOf(await blame(repo.dir, { path: "f.txt" }))).toEqual({
      code: "path_not_found",
      message: "f.txt does not exist in the working tree.",
      hint: 'To blame the last committed version, pass ref="HEAD"; git_log with path shows when it changed.',
    });
    expect(owners(await blame(repo.dir, { path: "f.txt", ref: "HEAD", end_line: 1 }))).toEqual([[1, c1]]);
  });

  it("a symlink is blamed as git tracks it: its target text, even when dangling", async () => {
    const repo = makeRepo();
    repo.write("dir/a.txt", "a\n");
    repo.symlink("to-dir", "dir");
    repo.symlink("dangling", "nowhere/x");
    const commit = repo.commit("links");
    expect(dataOf(await blame(repo.dir, { path: "to-dir" })).lines).toEqual([{ line: 1, hash: commit, originalLine: 1, content: "dir" }]);
    expect(dataOf(await blame(repo.dir, { path: "dangling" })).lines).toEqual([{ line: 1, hash: commit, originalLine: 1, content: "nowhere/x" }]);
  });

  it("a directory is not something to blame", async () => {
    const repo = makeRepo();
    repo.write("src/a.txt", "a\n");
    repo.commit("first");
    expect(errorOf(await blame(repo.dir, { path: "src" }))).toEqual({
      code: "invalid_input",
      message: "src is a directory; blame needs a file.",
      hint: "Pass a file inside it.",
    });
  });
});

describe("git_blame edge cases", () => {
  it("an empty repository: a staged file is all uncommitted lines, an unstaged one is not found", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "one\ntwo\nthree");
    repo.git(["add", "a.txt"]);
    const line = (n: number, content: string) => ({ line: n, hash: ZERO, originalLine: n, content });
    expect(await blame(repo.dir, { path: "a.txt" })).toEqual({
      ok: true,
      tool: "git_blame",
      data: {
        path: "a.txt",
        ref: null,
        startLine: 1,
        endLine: 3,
        nextStartLine: null,
        shallowBoundary: [],
        lines: [line(1, "one"), line(2, "two"), line(3, "three")],
        commits: {
          [ZERO]: {
            hash: ZERO,
            author: "Not Committed Yet",
            authorEmail: "not.committed.yet",
            authorTime: null,
            committer: "Not Committed Yet",
            committerEmail: "not.committed.yet",
            committerTime: null,
            summary: "Version of a.txt from a.txt",
            filename: "a.txt",
            boundary: false,
            uncommitted: true,
          },
        },
      },
      text: [
        "Blame of a.txt (working tree), lines 1-3, 1 commit:",
        "00000000 not committed yet (changes in the working tree)",
        "",
        "00000000 1| one",
        "00000000 2| two",
        "00000000 3| three",
      ].join("\n"),
    });
    expect(owners(await blame(repo.dir, { path: "a.txt", start_line: 2 }))).toEqual([
      [2, ZERO],
      [3, ZERO],
    ]);
    expect(errorOf(await blame(repo.dir, { path: "a.txt", end_line: 4 })).message).toBe(
      "a.txt has only 3 lines; the requested range goes past its end.",
    );
    repo.write("loose.txt", "x\n");
    expect(errorOf(await blame(repo.dir, { path: "loose.txt" }))).toEqual({
      code: "path_not_found",
      message: "loose.txt is not a file git tracks: the repository has no commits yet and it is not staged.",
      hint: "Stage it (git add) to blame it, or check the path with git_status.",
    });
    expect(errorOf(await blame(repo.dir, { path: "a.txt", ref: "HEAD" })).code).toBe("bad_revision");
  });

  it("file names with spaces, quotes, newlines and non-ASCII, before and after a rename", async () => {
    const repo = makeRepo();
    const oldName = 'old "q"\n\u00fc \\ name.txt';
    const newName = "now plain \u65e5\u672c.txt";
    const body = "first\nsecond\nthird\nfourth\n";
    repo.write(oldName, body);
    const c1 = repo.commit("weird name");
    repo.git(["mv", oldName, newName]);
    repo.write(newName, `${body}fifth\n`);
    const c2 = repo.commit("renamed");
    const data = dataOf(await blame(repo.dir, { path: newName }));
    expect(data.lines.map((line) => [line.hash, line.content])).toEqual([
      [c1, "first"],
      [c1, "second"],
      [c1, "third"],
      [c1, "fourth"],
      [c2, "fifth"],
    ]);
    expect(data.commits[c1]?.filename).toBe(oldName);
    expect(data.commits[c2]?.filename).toBe(newName);
    expect(dataOf(await blame(repo.dir, { path: oldName, ref: c1 })).commits[c1]?.filename).toBe(oldName);
  });

  it("content keeps tabs, carriage returns and porcelain-like text; non-UTF-8 bytes do not crash", async () => {
    const repo = makeRepo();
    const content = Buffer.concat([
      Buffer.from("\tindented  \r\nauthor Mallory\n0000000000000000000000000000000000000000 1 1 1\ncaf"),
      Buffer.from([0xe9, 0x0a]),
    ]);
    repo.write("odd.txt", content);
    const commit = repo.commit("odd");
    const data = dataOf(await blame(repo.dir, { path: "odd.txt" }));
    expect(data.lines.map((line) => [line.hash, line.content])).toEqual([
      [commit, "\tindented  \r"],
      [commit, "author Mallory"],
      [commit, "0000000000000000000000000000000000000000 1 1 1"],
      [commit, "caf\ufffd"],
    ]);
    expect(Object.keys(data.commits)).toEqual([commit]);
    expect(data.commits[commit]?.author).toBe("Ada Lovelace");
  });

  it("a root that is a subdirectory: paths and file names relative to it", async () => {
    const repo = makeRepo();
    repo.write("moved.txt", "from the top\n");
    const c1 = repo.commit("top level file");
    repo.write("pkg/own.txt", "own\n");
    repo.git(["mv", "moved.txt", "pkg/moved.txt"]);
    const c2 = repo.commit("move into pkg");
    const root = join(repo.dir, "pkg");
    const moved = await blame(root, { path: "moved.txt" });
    expect(dataOf(moved)).toMatchObject({ path: "moved.txt", lines: [{ line: 1, hash: c1, content: "from the top" }] });
    expect(dataOf(moved).commits[c1]?.filename).toBe("../moved.txt");
    expect(moved.ok && moved.text.split("\n")[1]).toBe(`${short(c1)} 2024-01-01 Ada Lovelace: top level file (as ../moved.txt)`);
    expect(dataOf(await blame(root, { path: "own.txt" })).commits[c2]?.filename).toBe("own.txt");
    expect(errorOf(await blame(root, { path: "../moved.txt", ref: c1 })).code).toBe("path_outside_workspace");
  });

  it("author identities come from the commit, with time zones as git_log gives them", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n");
    const commit = commitAs(repo, "west", {
      date: "2024-03-01T08:00:00-07:30",
      committerDate: "2024-03-02T09:00:00+05:45",
      author: ADA,
      committer: GRACE,
    });
    expect(dataOf(await blame(repo.dir, { path: "a.txt" })).commits[commit]).toMatchObject({
      author: "Ada Lovelace",
      authorTime: "2024-03-01T08:00:00-07:30",
      committer: "Grace Hopper",
      committerEmail: "grace@example.org",
      committerTime: "2024-03-02T09:00:00+05:45",
    });
  });

  it("dates as git writes them where a JavaScript Date cannot: years past 9999 and past Date's range, a -0000 zone", async () => {
    for (const stamp of [
      "253402300800 +0000",
      "9999999999999 +0000",
      "1714557600 -0000",
      "86399 -0001",
      "1714557600 +0060",
      "1714557600 -1260",
      "1714557600 +9999",
      "1714557600 +10000",
      "1714557600 -130",
    ]) {
      const repo = makeRepo();
      repo.write("a.txt", "a\n").git(["add", "a.txt"]);
      const tree = repo.git(["write-tree"]).trim();
      const made = `tree ${tree}\nauthor A <a@example.com> ${stamp}\ncommitter C <c@example.com> ${stamp}\n\nfar\n`;
      const commit = repo.git(["hash-object", "-t", "commit", "-w", "--stdin"], { input: made }).trim();
      repo.git(["update-ref", "HEAD", commit]);
      const [author, committer] = repo.git(["log", "-1", "--format=%aI%n%cI", commit]).trim().split("\n");
      // The class: a Date of 9999999999999 s is past Date's range, and a year of five digits past toISOString's form.
      expect(author).toMatch(/^\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d+:\d\d$/);
      expect(dataOf(await blame(repo.dir, { path: "a.txt" })).commits[commit]).toMatchObject({ authorTime: author, committerTime: committer });
    }
  });
});

describe("blame.ignoreRevsFile", () => {
  /** c1 writes three lines, c2 only re-cases the first (a formatting commit), listed in .git-blame-ignore-revs. */
  function formatted(): { repo: TestRepo; c1: string; c2: string } {
    const repo = makeRepo();
    const c1 = repo.write("f", "l1\nl2\nl3\n").commit("c1");
    const c2 = repo.write("f", "L1\nl2\nl3\n").commit("reformat");
    repo.write(".git-blame-ignore-revs", `# formatting\n${c2}\n`).commit("ignore it");
    return { repo, c1, c2 };
  }
  const firstLine = async (repo: TestRepo, options: { userConfig?: UserConfigEnvironment | false } = {}): Promise<{ hash: string; text: string }> => {
    const toolbox = createToolbox({ root: repo.dir, ...options });
    const result = await toolbox.execute("git_blame", { path: "f" });
    await toolbox.close();
    const data = dataOf(result as ToolResult<GitBlameData>);
    return { hash: data.lines[0]!.hash, text: (result as { text: string }).text };
  };

  it("the user's setting and the repository's skip the revisions the file lists, as plain git blame does", async () => {
    const { repo, c1, c2 } = formatted();
    const home = tempDir("gitctx-blame-home-");
    writeFileSync(join(home, ".gitconfig"), "[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n");
    const users = plainGit(repo.dir, ["blame", "--porcelain", "-L1,1", "f"], {
      ...fixtureEnv(),
      HOME: home,
      GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    });
    expect(users.stdout.startsWith(c1)).toBe(true);
    // The class: without the setting, the line is the formatting commit's.
    expect(plainGit(repo.dir, ["blame", "--porcelain", "-L1,1", "f"]).stdout.startsWith(c2)).toBe(true);
    expect((await firstLine(repo, { userConfig: false })).hash).toBe(c2);
    expect((await firstLine(repo, { userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } })).hash).toBe(c1);
    repo.git(["config", "blame.ignoreRevsFile", ".git-blame-ignore-revs"]);
    expect((await firstLine(repo)).hash).toBe(c1);
  });

  it("a file reached through a symlink or outside the work tree is not read: plain git prints its first line", async () => {
    const { repo, c2 } = formatted();
    const secret = join(tempDir("gitctx-outside-"), "secret.txt");
    writeFileSync(secret, "SECRET-TOKEN-1234\n");
    symlinkSync(secret, join(repo.dir, "revs-link"));
    for (const named of ["revs-link", secret]) {
      repo.git(["config", "blame.ignoreRevsFile", named]);
      // The attack: plain git reads the file and shows the line it cannot take as a revision.
      expect(plainGit(repo.dir, ["blame", "f"]).stderr).toContain("SECRET-TOKEN-1234");
      const { hash, text } = await firstLine(repo);
      expect(hash).toBe(c2);
      expect(text).toContain(named === secret ? "outside the work tree" : "reached through a symlink");
      expect(text).not.toContain("SECRET-TOKEN");
    }
  });

  it("as git 2.39 lists them: a file named twice is read once, an empty value clears nothing; a huge one is refused", async () => {
    const { repo, c1, c2 } = formatted();
    for (const value of [".git-blame-ignore-revs", ".git-blame-ignore-revs", ""]) repo.git(["config", "--add", "blame.ignoreRevsFile", value]);
    expect(plainGit(repo.dir, ["blame", "--porcelain", "-L1,1", "f"]).stdout.startsWith(c1)).toBe(true);
    expect((await firstLine(repo)).hash).toBe(c1);
    // A comment line of 17 MiB is a valid list for git; gitctx reads no more than 16 MiB of such files.
    repo.write("huge-revs", `#${"x".repeat(17 * 1024 * 1024)}\n`);
    repo.git(["config", "--replace-all", "blame.ignoreRevsFile", "huge-revs"]);
    const { hash, text } = await firstLine(repo);
    expect(hash).toBe(c2);
    expect(text).toContain("huge-revs was not read: it is larger than");
  });

  it("a missing file stops plain git blame; gitctx blames without it and says so", async () => {
    const { repo, c2 } = formatted();
    repo.git(["config", "blame.ignoreRevsFile", "no-such-file"]);
    expect(plainGit(repo.dir, ["blame", "f"]).stderr).toContain("could not open object name list");
    const { hash, text } = await firstLine(repo);
    expect(hash).toBe(c2);
    expect(text).toContain("no-such-file was not read: it is missing");
  });
});
