import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliRun, requireBuiltCli, runCli } from "./fixtures/cli.js";
import { makeRepo, markerScript, tempDir, type TestRepo } from "./fixtures/repo.js";

requireBuiltCli();

function gitctx(args: string[], stdin = ""): CliRun {
  return runCli(args, { stdin });
}

function cleanRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "a\n");
  repo.commit("first");
  return repo;
}

function hostileRepo(): TestRepo {
  const repo = cleanRepo();
  const scripts = tempDir("gitctx-cli-scripts-");
  repo.git(["config", "core.fsmonitor", markerScript(scripts, "fsmonitor", join(scripts, "marker"))]);
  return repo;
}

describe("gitctx check", () => {
  it("exits 0 for allow and prints the classification as JSON when not at a terminal", () => {
    const run = gitctx(["check", "--", "git status"]);
    expect(run).toEqual({
      status: 0,
      stderr: "",
      stdout: `${JSON.stringify(
        {
          verdict: "allow",
          reasons: [],
          invocations: [
            {
              kind: "git",
              argv: ["git", "status"],
              subcommand: "status",
              verdict: "allow",
              reasons: [
                "git status only reads the repository: every option and argument is known, and none names a file, a program or an option of the caller's choosing",
              ],
              read: true,
              triggers: ["index", "index-write", "work-tree-content", "excludes", "attributes", "submodules", "work-tree", "objects", "pager"],
              source: "git status",
            },
          ],
          gitVerdict: "allow",
        },
        null,
        2,
      )}\n`,
    });
  });

  it("exits 3 for ask and 4 for deny, in text format", () => {
    expect(gitctx(["check", "--format", "text", "--", "git push --force"])).toEqual({
      status: 3,
      stderr: "",
      stdout: "ask\n  ask   git push --force\n        - git push pushes to a remote\n        - force-pushes, overwriting remote history (--force)\n",
    });
    expect(gitctx(["check", "--format", "text", "--", "git -c core.pager=sh log"])).toEqual({
      status: 4,
      stderr: "",
      stdout: "deny\n  deny  git -c core.pager=sh log\n        - sets core.pager=sh (-c): names the pager program\n",
    });
  });

  it("never allows a line with a non-git command, --ignore-non-git or not", () => {
    expect(gitctx(["check", "--format", "text", "--", "git log -1 | head"]).status).toBe(3);
    expect(gitctx(["check", "--ignore-non-git", "--format", "text", "--", "git status; rm -rf /"])).toEqual({
      status: 3,
      stderr: "",
      stdout: `ask\n  allow git status\n        - git status only reads the repository: every option and argument is known, and none names a file, a program or an option of the caller's choosing\n  ask   rm -rf /\n        - \`rm\` is not a git command: outside the classifier's scope\n  - not git, left to your own rules (a line with them is never allowed): \`rm\`\n`,
    });
  });

  it("checks the repository with --root", () => {
    const clean = cleanRepo();
    expect(gitctx(["check", "--root", clean.dir, "--format", "text", "--", "git status"])).toEqual({
      status: 0,
      stderr: "",
      stdout:
        "allow\n  allow git status\n        - git status only reads the repository: every option and argument is known, and none names a file, a program or an option of the caller's choosing; the repository has nothing it can make run or read outside\n",
    });
    // The directory given is where the line runs: cd into it and -C it stay in this repository.
    expect(gitctx(["check", "--root", clean.dir, "--", `cd ${clean.dir} && git -C ${clean.dir} log -1`]).status).toBe(0);
    const hostile = hostileRepo();
    expect(gitctx(["check", "--root", hostile.dir, "--format", "text", "--", "git status"])).toEqual({
      status: 3,
      stderr: "",
      stdout:
        "ask\n  ask   git status\n        - `git status` reads the index, and the repository's core.fsmonitor then runs a program on every read of the index (status, diff, ls-files, grep...)\n",
    });
    expect(gitctx(["check", "--root", hostile.dir, "--", "git log -1"]).status).toBe(0);
  });

  it("reads the command line from stdin with -", () => {
    expect(gitctx(["check", "--format", "text", "-"], "git log --output=/tmp/x\n")).toEqual({
      status: 4,
      stderr: "",
      stdout: "deny\n  deny  git log --output=/tmp/x\n        - writes git's output to a file of the caller's choosing: --output=/tmp/x\n",
    });
  });

  it("exits 2 for usage errors", () => {
    const none = gitctx(["check"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toBe("error: missing required argument 'cmd'\n(run \"gitctx check --help\" for usage)\n");
    expect(gitctx(["check", "--", "git", "status"]).status).toBe(2);
    expect(gitctx(["check", "--format", "xml", "--", "git status"]).status).toBe(2);
  });
});

describe("gitctx hook claude-code", () => {
  function hook(event: unknown): { status: number | null; stdout: string; stderr: string } {
    return gitctx(["hook", "claude-code"], typeof event === "string" ? event : JSON.stringify(event));
  }
  function decision(permissionDecision: string, permissionDecisionReason: string): string {
    return `${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision, permissionDecisionReason } })}\n`;
  }
  const bash = (command: string, cwd: string): unknown => ({
    session_id: "s",
    transcript_path: "/tmp/t.jsonl",
    cwd,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command, description: "d" },
  });

  it("allows a read in a clean repository", () => {
    const repo = cleanRepo();
    expect(hook(bash("git status && git log -3", repo.dir))).toEqual({
      status: 0,
      stderr: "",
      stdout: decision("allow", "gitctx: read-only git: git status; git log -3"),
    });
  });

  it("allows cd and -C to the work tree's top from a subdirectory (the repository check knows the top)", () => {
    const repo = cleanRepo();
    repo.write("sub/x.txt", "x\n");
    const top = realpathSync(repo.dir);
    expect(hook(bash(`cd ${top} && git -C ${top} status`, join(top, "sub")))).toEqual({
      status: 0,
      stderr: "",
      stdout: decision("allow", `gitctx: read-only git: cd ${top}; git -C ${top} status`),
    });
    expect(JSON.parse(hook(bash("cd .. && git status", join(top, "sub"))).stdout).hookSpecificOutput.permissionDecision).toBe("ask");
  });

  it("asks for a read in a repository whose config runs a program", () => {
    const repo = hostileRepo();
    expect(hook(bash("git status", repo.dir))).toEqual({
      status: 0,
      stderr: "",
      stdout: decision(
        "ask",
        "gitctx: git status: `git status` reads the index, and the repository's core.fsmonitor then runs a program on every read of the index (status, diff, ls-files, grep...)",
      ),
    });
  });

  it("asks for mutations and denies denied flags", () => {
    const repo = cleanRepo();
    expect(hook(bash("git reset --hard", repo.dir)).stdout).toBe(
      decision("ask", "gitctx: git reset --hard: git reset moves HEAD or unstages changes; git reset --hard: discards uncommitted changes (--hard)"),
    );
    expect(hook(bash("git status && git diff --no-index /etc/passwd x", repo.dir)).stdout).toBe(
      decision(
        "deny",
        "gitctx: git diff --no-index /etc/passwd x: compares files outside the repository (--no-index reads any path): --no-index; git diff --no-index /etc/passwd x: compares files that may lie outside the repository (/etc/passwd): git diff then acts as --no-index and reads any file",
      ),
    );
  });

  it("gives no decision for other tools, non-git commands, and allowed git next to other programs", () => {
    const repo = cleanRepo();
    const none = { status: 0, stdout: "", stderr: "" };
    expect(hook({ tool_name: "Write", tool_input: { file_path: ".git/config", content: "x" }, cwd: repo.dir })).toEqual(none);
    expect(hook(bash("npm test", repo.dir))).toEqual(none);
    expect(hook(bash("git log -1 | head", repo.dir))).toEqual(none);
    expect(hook(bash("git status; rm -rf /", repo.dir))).toEqual(none);
    expect(hook({ tool_name: "Bash", tool_input: {} })).toEqual(none);
  });

  it("asks when the directory is not a repository it can check", () => {
    const dir = tempDir();
    const run = hook(bash("git status", dir));
    expect(JSON.parse(run.stdout)).toEqual(
      JSON.parse(decision("ask", `gitctx: git status: the repository at ${dir} could not be checked: ${dir} is not inside a git repository.`)),
    );
  });

  it("exits 1 with a message for an event that is not JSON", () => {
    expect(hook("not json")).toEqual({
      status: 1,
      stdout: "",
      stderr: "gitctx hook claude-code: the event on stdin is not valid JSON: Unexpected token 'o', \"not json\" is not valid JSON\n",
    });
  });
});
