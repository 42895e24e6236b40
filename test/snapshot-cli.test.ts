import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, type GitContextData, type ToolResult } from "../src/index.js";
import { type CliRun, PACKAGE_ROOT, requireBuiltCli, runCli } from "./fixtures/cli.js";
import { cloneRepo, makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

requireBuiltCli();

function gitctx(args: string[], cwd: string = PACKAGE_ROOT): CliRun {
  return runCli(args, { cwd });
}

/** A clone on `feature` one commit ahead of origin/main, with an unstaged edit and an untracked file. */
function sample(): { repo: TestRepo; origin: TestRepo } {
  const seed = makeRepo();
  seed.write("a.txt", "a\n").commit("initial");
  const origin = makeRepo({ bare: true });
  seed.git(["push", "-q", origin.dir, "main"]);
  const repo = cloneRepo(origin.dir);
  repo.git(["checkout", "-q", "-b", "feature"]);
  repo.write("f.txt", "f\n").commit("feature work");
  repo.write("a.txt", "edited\n").write("new.txt", "new\n");
  return { repo, origin };
}

function expectedText(repo: TestRepo, origin: TestRepo): string {
  const short = (rev: string): string => repo.git(["rev-parse", "--short", rev]).trim();
  const base = repo.git(["rev-parse", "origin/main"]).trim();
  return [
    `Git repository: ${realpathSync(repo.dir)}`,
    "Branch: feature",
    `HEAD: ${short("HEAD")} feature work (Ada Lovelace, 2024-01-01)`,
    `Base branch: origin/main (default branch of origin, per refs/remotes/origin/HEAD): 1 ahead, 0 behind, merge-base ${base.slice(0, 12)}.`,
    '  Whole change of this branch: git_diff {"commit":"@{base}"} (with uncommitted work) or {"commit":"@{base}..HEAD"} (commits only).',
    "Changes (1 unstaged):",
    "   M a.txt",
    "Untracked files (1):",
    "  new.txt",
    "Recent commits (newest first):",
    `  ${short("HEAD")} 2024-01-01 Ada Lovelace: feature work`,
    `  ${short("HEAD~1")} 2024-01-01 Ada Lovelace: initial`,
    "Remotes (1):",
    `  origin ${origin.dir}`,
    "",
  ].join("\n");
}

describe("gitctx snapshot", () => {
  it("prints the context of the repository it runs in, as text by default", () => {
    const { repo, origin } = sample();
    expect(gitctx(["snapshot"], repo.dir)).toEqual({ status: 0, stdout: expectedText(repo, origin), stderr: "" });
  });

  it("takes --root, also below the top level", () => {
    const { repo, origin } = sample();
    expect(gitctx(["snapshot", "--root", repo.dir])).toEqual({ status: 0, stdout: expectedText(repo, origin), stderr: "" });
    repo.write("pkg/inner.txt", "inner\n");
    const inner = gitctx(["snapshot", "--root", join(repo.dir, "pkg"), "--sections", "untracked"]);
    expect(inner).toEqual({
      status: 0,
      stdout: `Git repository: ${realpathSync(repo.dir)}\nWorkspace: pkg (file paths below are relative to it)\nUntracked files (1):\n  inner.txt\n`,
      stderr: "",
    });
  });

  it("keeps within --budget and says what it left out", () => {
    const { repo } = sample();
    const result = gitctx(["snapshot", "--budget", "60", "--sections", "branch,base,commits"], repo.dir);
    expect(result).toEqual({
      status: 0,
      stdout: [
        `Git repository: ${realpathSync(repo.dir)}`,
        "Branch: feature",
        'Left out to fit 60 tokens: base branch: git_context {"sections":["base"]}; recent commits: git_log {"count":20,"oneline":true}.',
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("--format json prints the git_context result envelope", async () => {
    const { repo } = sample();
    const result = gitctx(["snapshot", "--format", "json", "--budget", "500"], repo.dir);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe("");
    const printed = JSON.parse(result.stdout) as ToolResult<GitContextData>;
    const library = (await createToolbox({ root: repo.dir }).execute("git_context", { budget: 500 })) as ToolResult<GitContextData>;
    if (!printed.ok || !library.ok) return expect.fail("git_context failed");
    // Only the moment the snapshot was taken differs.
    printed.data.snapshot.takenAt = library.data.snapshot.takenAt;
    expect(printed).toEqual(library);
    expect(result.stdout).toBe(`${JSON.stringify(JSON.parse(result.stdout), null, 2)}\n`);
  });

  it("exits 1 outside a repository: the error on stderr, or the envelope on stdout with --format json", () => {
    const dir = tempDir();
    const real = realpathSync(dir);
    expect(gitctx(["snapshot", "--root", dir])).toEqual({
      status: 1,
      stdout: "",
      stderr: `error (not_a_repository): ${real} is not inside a git repository.\nhint: Point --root at a directory inside a git working tree, or run \`git init\` there first.\n`,
    });
    const json = gitctx(["snapshot", "--root", dir, "--format", "json"]);
    expect(json.status).toBe(1);
    expect(json.stderr).toBe("");
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      tool: "git_context",
      error: {
        code: "not_a_repository",
        message: `${real} is not inside a git repository.`,
        hint: "Point --root at a directory inside a git working tree, or run `git init` there first.",
      },
    });
  });

  it("exits 2 on a bad --budget, --sections or --format", () => {
    const usage = '(run "gitctx snapshot --help" for usage)\n';
    expect(gitctx(["snapshot", "--budget", "0"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: option '--budget <tokens>' argument '0' is invalid. Expected a whole number of tokens from 1 to 200000, e.g. --budget 2000.\n${usage}`,
    });
    expect(gitctx(["snapshot", "--budget", "12k"]).status).toBe(2);
    expect(gitctx(["snapshot", "--sections", "nope,branch"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: option '--sections <list>' argument 'nope,branch' is invalid. Unknown section nope. Choose from branch, head, operation, indexLock, base, status, untracked, commits, stashes, remotes, worktrees, submodules, comma-separated.\n${usage}`,
    });
    expect(gitctx(["snapshot", "--format", "xml"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: option '--format <format>' argument 'xml' is invalid. Allowed choices are text, json.\n${usage}`,
    });
    expect(gitctx(["snapshot", "extra"]).status).toBe(2);
  });

  it("has help with the sections, examples and exit codes", () => {
    const help = gitctx(["snapshot", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout.split("\n").slice(0, 3)).toEqual([
      "Usage: gitctx snapshot [options]",
      "",
      "print the repository context for a system prompt, within a token budget",
    ]);
    expect(help.stdout).toContain("  gitctx snapshot --root ~/src/project --budget 800\n");
    expect(help.stdout).toContain("  2  usage error: unknown option, bad --budget, --sections or --format\n");
  });
});
