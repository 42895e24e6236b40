/**
 * Regular expressions that burn a core or gigabytes: a back-reference makes git's POSIX matching backtrack, a
 * long counted repetition makes compiling it grow with the square of the copies. Revisions carry them
 * (`:/<regex>`, `<rev>^{/<regex>}`: a search of commit messages) in every tool that takes one, and a repository's
 * own config carries them as a diff driver's hunk-header pattern. Each is first shown with plain git (it does not
 * finish within a generous timeout, or cannot compile the pattern within a memory limit that harmless patterns
 * stay far below), then gitctx is shown to refuse the revision or to neutralise the pattern, and say so.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createToolbox, type ToolResult } from "../src/index.js";
import { DEFAULT_HUNK_HEADER } from "../src/git/hardening.js";
import { hunkHeaderHazard, MAX_EXPANDED_ATOMS, messageSearches, regexHazard } from "../src/git/regex.js";
import { fixtureEnv, makeRepo, plainGit, plainGitWithin, type TestRepo } from "./fixtures/repo.js";

/** Long enough that plain git never finishes: matching backtracks exponentially in the 120 `a` of a message. */
const BACKTRACKING = "^(a*)*(a*)*(a*)*\\1\\2\\3c";
const BACKTRACKING_BRE = "^\\(a*\\)*\\(a*\\)*\\(a*\\)*\\1\\2\\3c";
/** Compiles to over 13 GB: a million copies of `a`. */
const EXPANDING = "(a{1,1000}){1,1000}";

/** Plain git, stopped after a timeout far beyond what the same command takes on a harmless pattern. */
function plainWithTimeout(cwd: string, args: string[]): { timedOut: boolean } {
  const result = spawnSync("git", args, { cwd, env: fixtureEnv(), timeout: 5_000 });
  return { timedOut: result.error?.message.includes("ETIMEDOUT") === true };
}

/** A commit whose message is 120 `a`: what the backtracking pattern is tried on. */
function repoWithLongMessage(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "alpha\n");
  repo.commit("a".repeat(120));
  repo.write("a.txt", "alpha 2\n");
  repo.commit("second");
  return repo;
}

function codeOf(result: ToolResult): string {
  return result.ok ? "ok" : result.error.code;
}

describe("regexHazard", () => {
  it("finds back-references outside bracket expressions, in both syntaxes", () => {
    expect(regexHazard(BACKTRACKING, "extended")).toMatch(/^has a back-reference \(\\1\)/);
    expect(regexHazard(BACKTRACKING_BRE, "basic")).toMatch(/^has a back-reference \(\\1\)/);
    expect(regexHazard("[\\1]x", "extended")).toBeUndefined();
    expect(regexHazard("a\\\\1", "extended")).toBeUndefined();
    expect(regexHazard("fix|bug", "extended")).toBeUndefined();
  });

  it("counts counted repetitions written out, nesting multiplied and repetitions added", () => {
    expect(regexHazard("a{1,2000}", "extended")).toBeUndefined();
    expect(regexHazard("a{1,2001}", "extended")).toMatch(/2,001 atoms long/);
    expect(regexHazard(EXPANDING, "extended")).toMatch(/repeats so much/);
    expect(regexHazard("((a{1,10}){1,10}){1,10}", "extended")).toBeUndefined();
    expect(regexHazard("((a{1,20}){1,20}){1,20}", "extended")).toMatch(/8,000 atoms long/);
    expect(regexHazard("a{1,1000}b{1,1000}c", "extended")).toMatch(/2,001 atoms long/);
    expect(regexHazard("a\\{1,5000\\}", "basic")).toMatch(/repeats so much/);
    // In ERE `\{` is a literal brace; in BRE `{` is.
    expect(regexHazard("a\\{1,5000\\}", "extended")).toBeUndefined();
    expect(regexHazard("a{1,5000}", "basic")).toBeUndefined();
    expect(regexHazard("^[0-9]{1,3}(\\.[0-9]{1,3}){3}$", "extended")).toBeUndefined();
    expect(MAX_EXPANDED_ATOMS).toBe(2000);
  });

  it("reads a hunk-header value as git does: one pattern a line, `!` negating", () => {
    expect(hunkHeaderHazard("!^static\n^[a-z].*\\1", "extended")).toMatch(/back-reference/);
    expect(hunkHeaderHazard(`!${BACKTRACKING}\n^x`, "extended")).toMatch(/back-reference/);
    expect(hunkHeaderHazard("^[[:alpha:]$_].*", "extended")).toBeUndefined();
  });

  it("finds the message searches of a revision", () => {
    expect(messageSearches(":/fix it")).toEqual(["fix it"]);
    expect(messageSearches("HEAD^{/fix}~2")).toEqual(["fix}~2"]);
    expect(messageSearches("main..:/x")).toEqual(["x"]);
    expect(messageSearches("HEAD~3")).toEqual([]);
  });
});

describe("revisions that search commit messages", () => {
  it("plain git burns a core on a back-reference in :/ and ^{/}; every gitctx revision refuses it with invalid_input", async () => {
    const repo = repoWithLongMessage();
    expect(plainWithTimeout(repo.dir, ["rev-parse", `:/${BACKTRACKING}`]).timedOut).toBe(true);
    expect(plainWithTimeout(repo.dir, ["log", "-1", "--oneline", `HEAD^{/${BACKTRACKING}}`]).timedOut).toBe(true);
    const search = `:/${BACKTRACKING}`;
    const peel = `HEAD^{/${BACKTRACKING}}`;
    const calls: Array<[string, Record<string, unknown>]> = [
      ["git_show", { commit: search }],
      ["git_show", { commit: peel, format: "metadata" }],
      ["git_show", { commit: search, path: "a.txt" }],
      ["git_log", { ref: search }],
      ["git_log", { ref: `${peel}..HEAD` }],
      ["git_log", { ref: `HEAD...${search}` }],
      ["git_diff", { commit: search }],
      ["git_diff", { commit: "HEAD", commit2: peel }],
      ["git_diff", { commit: `HEAD..${search}` }],
      ["git_blame", { path: "a.txt", ref: peel }],
      ["enter_worktree", { name: "try", base: search }],
    ];
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      for (const [tool, input] of calls) {
        const result = await toolbox.execute(tool, input);
        expect(`${tool} ${JSON.stringify(input)} ${codeOf(result)}`).toBe(`${tool} ${JSON.stringify(input)} invalid_input`);
        if (!result.ok) expect(result.error.message).toMatch(/searches commit messages with a regular expression that has a back-reference \(\\1\)/);
      }
    } finally {
      await toolbox.close();
    }
  });

  it("plain git cannot even compile a long counted repetition within 256 MiB; gitctx refuses it before git runs", async () => {
    const repo = repoWithLongMessage();
    const limited = (pattern: string) => plainGitWithin(256 * 1024 * 1024, repo.dir, ["rev-parse", "--verify", "-q", `:/${pattern}`]);
    // The same search, repeated 10 times instead of a million, finds the commit within the same limit.
    expect(limited("(a{1,10}){1,10}").status).toBe(0);
    expect(limited(EXPANDING).status).not.toBe(0);
    const toolbox = createToolbox({ root: repo.dir });
    const show = await toolbox.execute("git_show", { commit: `:/${EXPANDING}` });
    const log = await toolbox.execute("git_log", { grep: EXPANDING });
    const author = await toolbox.execute("git_log", { author: "(A{1,100}){1,100}" });
    const harmless = await toolbox.execute("git_show", { commit: ":/(a{1,10}){1,10}", format: "metadata" });
    await toolbox.close();
    expect([codeOf(show), codeOf(log), codeOf(author), codeOf(harmless)]).toEqual(["invalid_input", "invalid_input", "invalid_input", "ok"]);
    if (!show.ok) expect(show.error.message).toMatch(/atoms long once its counted repetitions/);
    if (!log.ok) expect(log.error.message).toMatch(/grep repeats so much/);
  });

  it("a repository's grep.patternType=perl does not change how git_log reads a pattern", async () => {
    const repo = repoWithLongMessage();
    repo.git(["config", "grep.patternType", "perl"]);
    // Plain git takes the repository's word for it: a Perl look-ahead matches.
    expect(plainGit(repo.dir, ["log", "--oneline", "--grep=a(?=a)"]).stdout).not.toBe("");
    const toolbox = createToolbox({ root: repo.dir });
    const result = await toolbox.execute("git_log", { grep: "a(?=a)" });
    await toolbox.close();
    // gitctx always passes --extended-regexp, which wins over the config: the look-ahead is not ERE.
    expect(codeOf(result)).toBe("invalid_input");
    if (!result.ok) expect(result.error.message).toMatch(/is not a valid regular expression/);
  });
});

describe("a diff driver's hunk-header pattern in the repository's config", () => {
  /** a.txt has a line of 120 `a` before a changed line: git tries the pattern on it for the hunk's header. */
  function hostile(variable: "xfuncname" | "funcname", pattern: string): TestRepo {
    const repo = makeRepo();
    repo.write(".gitattributes", "*.txt diff=evil\n");
    repo.write("a.txt", `${"a".repeat(120)}\n1\n2\n3\n4\n5\n6\n7\n`);
    repo.commit("first");
    repo.write("a.txt", `${"a".repeat(120)}\n1\n2\n3\n4\nfive\n6\n7\n`);
    repo.commit("second");
    repo.write("a.txt", `${"a".repeat(120)}\n1\n2\n3\n4\n5!\n6\n7\n`);
    repo.git(["config", `diff.evil.${variable}`, pattern]);
    return repo;
  }

  for (const [variable, pattern] of [
    ["xfuncname", BACKTRACKING],
    ["funcname", BACKTRACKING_BRE],
  ] as const) {
    it(`diff.<driver>.${variable} with a back-reference: plain git diff burns a core; gitctx replaces it with git's default rule and says so`, async () => {
      const repo = hostile(variable, pattern);
      expect(plainWithTimeout(repo.dir, ["diff"]).timedOut).toBe(true);
      expect(plainWithTimeout(repo.dir, ["show", "HEAD"]).timedOut).toBe(true);
      const toolbox = createToolbox({ root: repo.dir });
      const [diff, show, range, status, context] = await Promise.all([
        toolbox.execute("git_diff", {}),
        toolbox.execute("git_show", { commit: "HEAD" }),
        toolbox.execute("git_diff", { commit: "HEAD~1..HEAD" }),
        toolbox.execute("git_status", {}),
        toolbox.execute("git_context", {}),
      ]);
      await toolbox.close();
      expect([diff, show, range, status, context].map(codeOf)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
      // git's default rule: the nearest line before the hunk that starts with a letter, as without a driver.
      for (const result of [diff, show, range]) expect(result.ok && result.text).toMatch(/\n@@ -\d+,\d+ \+\d+,\d+ @@ a{80}\n/);
      const key = `diff.evil.${variable}`;
      expect(status.ok && (status.data as { neutralised: unknown }).neutralised).toEqual([{ key, scope: "local" }]);
      const warning = `Warning: this repository's config sets hunk-header patterns git could take minutes to match; gitctx replaced them with git's default rule: ${key}`;
      expect(status.ok && status.text).toContain(`${warning}.`);
      expect(context.ok && context.text).toContain(warning);
    });
  }

  it("the override is git's own default rule: the hunk header is the one git shows for a file without a driver", async () => {
    const repo = hostile("xfuncname", BACKTRACKING);
    const undriven = makeRepo();
    undriven.write("a.txt", `${"a".repeat(120)}\n1\n2\n3\n4\n5\n6\n7\n`);
    undriven.commit("first");
    undriven.write("a.txt", `${"a".repeat(120)}\n1\n2\n3\n4\n5!\n6\n7\n`);
    const header = (text: string) => text.split("\n").find((line) => line.startsWith("@@ "));
    const expected = header(plainGit(undriven.dir, ["diff"]).stdout);
    expect(expected).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@ a+$/);
    const toolbox = createToolbox({ root: repo.dir });
    const diff = await toolbox.execute("git_diff", {});
    await toolbox.close();
    expect(header(diff.ok ? diff.text : "")).toBe(expected);
    expect(DEFAULT_HUNK_HEADER).toBe("^[[:alpha:]_$].*");
  });

  it("a harmless pattern is left alone, and programs and patterns are told apart in the warning", async () => {
    const repo = hostile("xfuncname", "^(def|class) .*");
    repo.git(["config", "diff.other.xfuncname", BACKTRACKING]);
    repo.git(["config", "core.fsmonitor", "./monitor.sh"]);
    const toolbox = createToolbox({ root: repo.dir });
    const status = await toolbox.execute("git_status", {});
    await toolbox.close();
    expect(status.ok && (status.data as { neutralised: unknown }).neutralised).toEqual([
      { key: "core.fsmonitor", scope: "local" },
      { key: "diff.other.xfuncname", scope: "local" },
    ]);
    expect(status.ok && status.text).toContain(
      "Warning: this repository's config names programs git would run; gitctx neutralised them (none ran): core.fsmonitor. " +
        "It also sets hunk-header patterns git could take minutes to match; gitctx replaced them with git's default rule: diff.other.xfuncname.",
    );
  });
});
