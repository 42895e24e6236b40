/**
 * The CLI, tested by spawning the built binary (`npm test` builds first; after editing src/, run
 * `npm run build` before `npx vitest run test/cli.test.ts`). Every test asserts exact stdout, stderr and exit code.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, listTools } from "../src/index.js";
import { cliEnv, MAIN, PACKAGE_ROOT, requireBuiltCli, runCli } from "./fixtures/cli.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;

requireBuiltCli();

/** Spawns `node dist/bin/gitctx.js ...args` with a minimal environment (no colour or git variables inherited). */
const gitctx = runCli;

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Two commits (a.txt at the top, sub/b.txt below), then an unstaged change to sub/b.txt. */
function sampleRepo(): { repo: TestRepo; first: string; second: string } {
  const repo = makeRepo();
  repo.write("a.txt", "alpha\n");
  const first = repo.commit("Add a");
  repo.write("sub/b.txt", "beta\n");
  const second = repo.commit("Add sub/b");
  repo.write("sub/b.txt", "beta\nmore\n");
  return { repo, first, second };
}

const TOOL_LINES = [
  "git_status         read-only        Show the working tree status: current branch, upstream ahead/behind, and every staged, unstaged, untracked and conflicted file, as structured data (a page of entries that fits the answer, with counts of all of them and nextOffset to continue).",
  "git_diff           read-only        Show what changed: unstaged (default), staged, against a commit, or between two commits (three-dot).",
  "git_log            read-only        List commit history with hash, parents, author, committer, dates and full message, newest first.",
  "git_show           read-only        Show one commit (message, author, dates and its diff against the first parent: the file list paged with fileOffset, the patch capped with an offset to continue; an annotated tag's tagger and message first), or a file or directory exactly as it was at a commit (path).",
  "git_blame          read-only        Show which commit, author and date last changed each line of a file, optionally for a line range or as of a commit (without end_line: a window of lines from start_line, with nextStartLine to continue).",
  "git_context        read-only        Summarise the repository in one compact block: branch, HEAD, operation in progress and conflicts, index.lock, base branch with ahead/behind, changes, untracked files, recent commits, stashes, remotes, worktrees and submodules.",
  "load_instructions  read-only        Load the project's instruction files (CLAUDE.md, AGENTS.md, rules...) that apply to the files you are about to read or edit, as one text within a token budget: from the repository's top level down to each file's directory, imports expanded, rules matched to those paths.",
  "git_changes        read-only        What changed in the workspace while you worked: files the user or their tools created, edited, deleted or renamed, and git events (branch switched, commit, reset, stash, merge or rebase started or finished, staged), numbered.",
  "enter_worktree     workspace-write  Create an isolated git worktree on a new branch worktree-<name> (from HEAD, or base) and move this session into it: every later tool call works there until exit_worktree.",
  "exit_worktree      workspace-write  Leave the worktree enter_worktree moved this session into, and return to the original workspace.",
];

const ROOT_HELP = `Usage: gitctx [options] [command]

Safe, structured git for AI coding agents and scripts.

Options:
  -V, --version           print the version of gitctx
  -h, --help              show help

Commands:
  tools [options]         list the tools: name, permission, description, input
                          schema
  tool [options] <name>   run one tool and print its result
  mcp [options]           serve the tools to MCP clients (stdio or --http)
  snapshot [options]      print the repository context for a system prompt,
                          within a token budget
  instructions [options]  print the instruction files (CLAUDE.md, AGENTS.md,
                          rules) that apply to the given paths
  watch [options]         print what changes in the workspace and its
                          repository, one event per line, until interrupted
  check [options] <cmd>   classify a shell command line that runs git: allow,
                          ask or deny
  hook                    permission hooks for coding agents
  demo [options] <task>   run an agent on a task in the repository and show each
                          step (offline unless ANTHROPIC_API_KEY is set)
  worktree                create, list and remove isolated git worktrees
                          (hardened: no hook, filter or fsmonitor runs)
  help [command]          show help for a command

Exit codes:
  0  success
  1  the tool answered with an error: {"ok": false, ...} on stdout
     (in text format, the message and hint on stderr)
  2  usage error: unknown command or option, invalid --input JSON,
     bad --mode, --format or --timeout
`;

const TOOLS_HELP = `Usage: gitctx tools [options]

list the tools: name, permission, description, input schema

Options:
  --search <query>   only tools matching the query, best match first
  --format <format>  output format (default: text at a terminal, json otherwise)
                     (choices: "json", "text")
  -h, --help         show help

Examples:
  gitctx tools --format text
  gitctx tools --search blame

Exit codes:
  0  success (also when no tool matches --search)
  2  usage error: unknown option, bad --format
`;

const TOOL_HELP = `Usage: gitctx tool [options] <name>

run one tool and print its result

Arguments:
  name                the tool to run, e.g. git_status (see "gitctx tools")

Options:
  --input <json>      the tool's input as a JSON object, or "-" to read it from
                      stdin (default: {})
  --root <dir>        the workspace: the repository containing it is used, and
                      paths are relative to it (default: the current directory)
  --mode <mode>       the highest permission a tool may need (default:
                      read-only) (choices: "read-only", "workspace-write",
                      "danger-full-access")
  --format <format>   output format (default: text at a terminal, json
                      otherwise) (choices: "json", "text")
  --timeout <ms>      stop any git process running longer than this (default:
                      60000)
  --trust-repository  use a repository owned by another user (its config could
                      name that user's programs)
  -h, --help          show help

Examples:
  gitctx tool git_status
  gitctx tool git_log --input '{"count": 5, "path": "src"}' --format text
  echo '{"commit": "HEAD"}' | gitctx tool git_show --input -
  gitctx tool git_diff --root packages/api --input '{"staged": true}'

Exit codes:
  0  success
  1  the tool answered with an error: {"ok": false, ...} on stdout
     (in text format, the message and hint on stderr)
  2  usage error: unknown command or option, invalid --input JSON,
     bad --mode, --format or --timeout
`;

const TOOL_USAGE_HINT = '(run "gitctx tool --help" for usage)\n';

describe("gitctx --version and --help", () => {
  it("prints the package.json version with --version and -V", () => {
    expect(gitctx(["--version"])).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: "" });
    expect(gitctx(["-V"])).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("reads the version at run time from the package.json two levels above the built file", () => {
    const pkg = tempDir("gitctx-cli-pkg-");
    cpSync(join(PACKAGE_ROOT, "dist"), join(pkg, "dist"), { recursive: true });
    symlinkSync(join(PACKAGE_ROOT, "node_modules"), join(pkg, "node_modules"));
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "gitctx", version: "9.8.7-cli-test", type: "module" }));
    expect(gitctx(["--version"], { main: join(pkg, "dist", "bin", "gitctx.js") })).toEqual({
      status: 0,
      stdout: "9.8.7-cli-test\n",
      stderr: "",
    });
  });

  it("prints help for the program, for tools and for tool", () => {
    expect(gitctx(["--help"])).toEqual({ status: 0, stdout: ROOT_HELP, stderr: "" });
    expect(gitctx(["-h"])).toEqual({ status: 0, stdout: ROOT_HELP, stderr: "" });
    expect(gitctx(["tools", "--help"])).toEqual({ status: 0, stdout: TOOLS_HELP, stderr: "" });
    expect(gitctx(["tool", "--help"])).toEqual({ status: 0, stdout: TOOL_HELP, stderr: "" });
    expect(gitctx(["help", "tool"])).toEqual({ status: 0, stdout: TOOL_HELP, stderr: "" });
    expect(gitctx(["help", "tools"])).toEqual({ status: 0, stdout: TOOLS_HELP, stderr: "" });
  });

  it("shows the help on stderr and exits 2 when no command is given", () => {
    expect(gitctx([])).toEqual({ status: 2, stdout: "", stderr: ROOT_HELP });
  });

  it("exits 2 on an unknown command, suggesting the closest one", () => {
    expect(gitctx(["tol"])).toEqual({
      status: 2,
      stdout: "",
      stderr: "error: unknown command 'tol'\n(Did you mean tool?)\n(run \"gitctx --help\" for usage)\n",
    });
  });
});

describe("gitctx tools", () => {
  it("prints the ToolInfo array of the library as JSON: every tool, with the permission each needs", () => {
    const expected = listTools();
    expect(expected.map((tool) => tool.name)).toEqual([
      "git_status",
      "git_diff",
      "git_log",
      "git_show",
      "git_blame",
      "git_context",
      "load_instructions",
      "git_changes",
      "enter_worktree",
      "exit_worktree",
    ]);
    expect(gitctx(["tools", "--format", "json"])).toEqual({ status: 0, stdout: json(expected), stderr: "" });
    // A read-only toolbox offers only the tools it may run.
    expect(createToolbox().tools.map((tool) => tool.name)).toEqual(
      expected.filter((tool) => tool.permission === "read-only").map((tool) => tool.name),
    );
  });

  it("defaults to JSON when stdout is not a terminal", () => {
    expect(gitctx(["tools"])).toEqual({ status: 0, stdout: json(listTools()), stderr: "" });
  });

  it("prints one line per tool in text format: name, permission, first sentence", () => {
    expect(gitctx(["tools", "--format", "text"])).toEqual({ status: 0, stdout: `${TOOL_LINES.join("\n")}\n`, stderr: "" });
  });

  it("ranks tools by --search, best first, leaving out the rest", () => {
    const tools = createToolbox().tools;
    const byName = (name: string) => tools.find((tool) => tool.name === name);
    expect(gitctx(["tools", "--search", "blame"])).toEqual({
      status: 0,
      stdout: json([byName("git_blame"), byName("git_log")]),
      stderr: "",
    });
    expect(gitctx(["tools", "--search", "diff", "--format", "text"])).toEqual({
      status: 0,
      // Columns are as wide as the longest name shown.
      stdout:
        "git_diff  read-only  Show what changed: unstaged (default), staged, against a commit, or between two commits (three-dot).\n" +
        "git_show  read-only  Show one commit (message, author, dates and its diff against the first parent: the file list paged with fileOffset, the patch capped with an offset to continue; an annotated tag's tagger and message first), or a file or directory exactly as it was at a commit (path).\n",
      stderr: "",
    });
  });

  it("prints an empty list (JSON) or nothing (text, with a note on stderr) when no tool matches, and exits 0", () => {
    expect(gitctx(["tools", "--search", "zebra"])).toEqual({ status: 0, stdout: "[]\n", stderr: "" });
    expect(gitctx(["tools", "--search", "zebra", "--format", "text"])).toEqual({
      status: 0,
      stdout: "",
      stderr: 'No tool matches "zebra". Run "gitctx tools" to list them all.\n',
    });
  });

  it("exits 2 on a bad --format or an unknown option", () => {
    const hint = '(run "gitctx tools --help" for usage)\n';
    expect(gitctx(["tools", "--format", "yaml"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: option '--format <format>' argument 'yaml' is invalid. Allowed choices are json, text.\n${hint}`,
    });
    expect(gitctx(["tools", "--serch", "x"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: unknown option '--serch'\n(Did you mean --search?)\n${hint}`,
    });
    expect(gitctx(["tools", "extra"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: too many arguments for 'tools'. Expected 0 arguments but got 1.\n${hint}`,
    });
  });
});

describe("gitctx tool", () => {
  function statusResult(_repo: TestRepo, second: string) {
    return {
      ok: true,
      tool: "git_status",
      data: {
        branch: { head: "main", oid: second, upstream: null, ahead: null, behind: null, detached: false },
        clean: false,
        entries: [{ path: "sub/b.txt", origPath: null, index: ".", worktree: "M", kind: "modified", staged: false, unstaged: true }],
        counts: { staged: 0, unstaged: 1, untracked: 0, conflicted: 0, total: 1 },
        offset: 0,
        nextOffset: null,
        path: null,
        neutralised: [],
      },
      text: "On branch main\n1 path changed (1 unstaged):\n M sub/b.txt",
    };
  }

  it("prints the ToolResult as JSON, by default when stdout is not a terminal, and exits 0", () => {
    const { repo, second } = sampleRepo();
    const expected = { status: 0, stdout: json(statusResult(repo, second)), stderr: "" };
    expect(gitctx(["tool", "git_status"], { cwd: repo.dir })).toEqual(expected);
    expect(gitctx(["tool", "git_status", "--format", "json"], { cwd: repo.dir })).toEqual(expected);
    expect(gitctx(["tool", "git_status", "--root", repo.dir])).toEqual(expected);
  });

  it("prints only the result's text in text format", () => {
    const { repo } = sampleRepo();
    expect(gitctx(["tool", "git_status", "--format", "text"], { cwd: repo.dir })).toEqual({
      status: 0,
      stdout: "On branch main\n1 path changed (1 unstaged):\n M sub/b.txt\n",
      stderr: "",
    });
  });

  it("defaults to text when stdout is a terminal", () => {
    const { repo } = sampleRepo();
    // util-linux `script` runs the command on a pseudo-terminal; the terminal turns "\n" into "\r\n".
    const command = `'${process.execPath}' '${MAIN}' tool git_status`;
    const result = spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd: repo.dir,
      env: cliEnv(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect({ status: result.status, stdout: result.stdout }).toEqual({
      status: 0,
      stdout: "On branch main\r\n1 path changed (1 unstaged):\r\n M sub/b.txt\r\n",
    });
  });

  it("passes --input to the tool", () => {
    const { repo, first, second } = sampleRepo();
    expect(gitctx(["tool", "git_log", "--input", '{"oneline": true}', "--format", "text"], { cwd: repo.dir })).toEqual({
      status: 0,
      stdout: `2 commits, newest first:\n${second.slice(0, 7)} Add sub/b\n${first.slice(0, 7)} Add a\n`,
      stderr: "",
    });
    const person = { name: "Ada Lovelace", email: "ada@example.com", date: "2024-01-01T00:01:00+00:00" };
    expect(gitctx(["tool", "git_log", "--input", '{"count": 1}'], { cwd: repo.dir })).toEqual({
      status: 0,
      stdout: json({
        ok: true,
        tool: "git_log",
        data: {
          commits: [
            {
              hash: second,
              shortHash: second.slice(0, 7),
              parents: [first],
              author: person,
              committer: person,
              subject: "Add sub/b",
              body: "",
            },
          ],
          hasMore: true,
          nextSkip: 1,
          ref: second,
          range: null,
          limitedTo: null,
          shallowBoundary: [],
        },
        text: `1 commit, newest first:\n${second.slice(0, 7)} 2024-01-01T00:01:00+00:00 Ada Lovelace <ada@example.com>\n    Add sub/b\n[more commits match: call git_log with skip=1 and the same other arguments for the next page]`,
      }),
      stderr: "",
    });
  });

  it("reads --input - from stdin", () => {
    const { repo, first, second } = sampleRepo();
    const fromArgument = gitctx(["tool", "git_log", "--input", '{"oneline":true}', "--format", "text"], { cwd: repo.dir });
    const fromStdin = gitctx(["tool", "git_log", "--input", "-", "--format", "text"], {
      cwd: repo.dir,
      stdin: '{"oneline":true}\n',
    });
    expect(fromStdin).toEqual({
      status: 0,
      stdout: `2 commits, newest first:\n${second.slice(0, 7)} Add sub/b\n${first.slice(0, 7)} Add a\n`,
      stderr: "",
    });
    expect(fromStdin).toEqual(fromArgument);
  });

  it("exits 2 when --input - finds nothing on stdin", () => {
    const { repo } = sampleRepo();
    expect(gitctx(["tool", "git_status", "--input", "-"], { cwd: repo.dir, stdin: "  \n" })).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "error: --input - read nothing from stdin. Pipe the tool's input into gitctx as a JSON object, " +
        `e.g. echo '{"path":"src"}' | gitctx tool git_status --input -.\n${TOOL_USAGE_HINT}`,
    });
  });

  it("exits 2 on --input that is not JSON, naming the problem", () => {
    const { repo } = sampleRepo();
    const reason = (() => {
      try {
        JSON.parse("{oops}");
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error("unreachable");
    })();
    const advice = `Pass the tool's input as a JSON object, e.g. --input '{"path":"src"}', or --input - to read it from stdin.`;
    expect(gitctx(["tool", "git_status", "--input", "{oops}"], { cwd: repo.dir })).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: --input is not valid JSON: ${reason}. ${advice}\n${TOOL_USAGE_HINT}`,
    });
    expect(gitctx(["tool", "git_status", "--input", "-"], { cwd: repo.dir, stdin: "{oops}" })).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: the JSON read from stdin (--input -) is not valid JSON: ${reason}. ${advice}\n${TOOL_USAGE_HINT}`,
    });
  });

  it("leaves valid JSON the tool rejects to the tool: invalid_input, exit 1", () => {
    const { repo } = sampleRepo();
    expect(gitctx(["tool", "git_status", "--input", '{"bogus": 1}'], { cwd: repo.dir })).toEqual({
      status: 1,
      stdout: json({
        ok: false,
        tool: "git_status",
        error: {
          code: "invalid_input",
          message: 'Invalid input for git_status: unknown field "bogus".',
          hint: "git_status accepts: short, path, untracked, limit, offset.",
        },
      }),
      stderr: "",
    });
    expect(gitctx(["tool", "git_log", "--input", "42", "--format", "text"], { cwd: repo.dir })).toEqual({
      status: 1,
      stdout: "",
      stderr:
        "error (invalid_input): Invalid input for git_log: input: Invalid input: expected object, received number.\n" +
        "hint: git_log accepts: count, oneline, author, since, until, path, ref, skip, grep.\n",
    });
  });

  it("uses a subdirectory given as --root (relative to the current directory) as the workspace", () => {
    const { repo, second } = sampleRepo();
    // Paths in the input are relative to the root: "b.txt" is sub/b.txt; a.txt (at the top) is not in sub/.
    expect(
      gitctx(["tool", "git_log", "--root", "sub", "--input", '{"path": "b.txt", "oneline": true}', "--format", "text"], { cwd: repo.dir }),
    ).toEqual({
      status: 0,
      stdout: `1 commit matching path="b.txt", newest first:\n${second.slice(0, 7)} Add sub/b\n`,
      stderr: "",
    });
    expect(gitctx(["tool", "git_status", "--root", join(repo.dir, "sub"), "--input", '{"path": "b.txt"}', "--format", "text"])).toEqual({
      status: 0,
      stdout: "On branch main\n1 path changed under b.txt (1 unstaged):\n M b.txt\n",
      stderr: "",
    });
  });

  it("exits 1 with unknown_tool for a tool that does not exist", () => {
    const { repo } = sampleRepo();
    const error = {
      code: "unknown_tool",
      message: 'There is no tool named "git_frobnicate".',
      hint: "Available tools: git_status, git_diff, git_log, git_show, git_blame, git_context, load_instructions, git_changes.",
    };
    expect(gitctx(["tool", "git_frobnicate"], { cwd: repo.dir })).toEqual({
      status: 1,
      stdout: json({ ok: false, tool: "git_frobnicate", error }),
      stderr: "",
    });
    expect(gitctx(["tool", "git_frobnicate", "--format", "text"], { cwd: repo.dir })).toEqual({
      status: 1,
      stdout: "",
      stderr: `error (unknown_tool): ${error.message}\nhint: ${error.hint}\n`,
    });
  });

  it("exits 1 with the tool's error for a bad revision", () => {
    const { repo } = sampleRepo();
    expect(gitctx(["tool", "git_show", "--input", '{"commit": "nope"}', "--format", "text"], { cwd: repo.dir })).toEqual({
      status: 1,
      stdout: "",
      stderr:
        'error (bad_revision): commit "nope" does not name a commit in this repository.\n' +
        "hint: Use git_log to list commits, or give a branch, tag or hash that exists (e.g. HEAD, HEAD~1, main).\n",
    });
  });

  it("exits 1 with not_a_repository outside a repository", () => {
    const dir = realpathSync(tempDir("gitctx-cli-norepo-"));
    const error = {
      code: "not_a_repository",
      message: `${dir} is not inside a git repository.`,
      hint: "Point --root at a directory inside a git working tree, or run `git init` there first.",
    };
    expect(gitctx(["tool", "git_status"], { cwd: dir })).toEqual({
      status: 1,
      stdout: json({ ok: false, tool: "git_status", error }),
      stderr: "",
    });
    expect(gitctx(["tool", "git_status", "--root", dir, "--format", "text"])).toEqual({
      status: 1,
      stdout: "",
      stderr: `error (not_a_repository): ${error.message}\nhint: ${error.hint}\n`,
    });
  });

  it("exits 1 with git_not_found when git is not on PATH", () => {
    const { repo } = sampleRepo();
    const emptyBin = tempDir("gitctx-cli-empty-path-");
    mkdirSync(emptyBin, { recursive: true });
    expect(gitctx(["tool", "git_status"], { cwd: repo.dir, env: cliEnv({ PATH: emptyBin }) })).toEqual({
      status: 1,
      stdout: json({
        ok: false,
        tool: "git_status",
        error: {
          code: "git_not_found",
          message: "git was not found on PATH.",
          hint: "Install git (https://git-scm.com/downloads) and make sure the `git` command is on the PATH of this process.",
        },
      }),
      stderr: "",
    });
  });

  it("accepts every permission mode and exits 2 on an unknown one", () => {
    const { repo, second } = sampleRepo();
    const expected = { status: 0, stdout: json(statusResult(repo, second)), stderr: "" };
    for (const mode of ["read-only", "workspace-write", "danger-full-access"]) {
      expect(gitctx(["tool", "git_status", "--mode", mode], { cwd: repo.dir })).toEqual(expected);
    }
    expect(gitctx(["tool", "git_status", "--mode", "admin"], { cwd: repo.dir })).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "error: option '--mode <mode>' argument 'admin' is invalid. Allowed choices are read-only, workspace-write, danger-full-access.\n" +
        TOOL_USAGE_HINT,
    });
  });

  it("accepts --timeout in milliseconds and --trust-repository, and exits 2 on a bad timeout", () => {
    const { repo, second } = sampleRepo();
    const expected = { status: 0, stdout: json(statusResult(repo, second)), stderr: "" };
    expect(gitctx(["tool", "git_status", "--timeout", "30000", "--trust-repository"], { cwd: repo.dir })).toEqual(expected);
    for (const value of ["0", "1.5", "-5", "abc", "2147483648"]) {
      expect(gitctx(["tool", "git_status", `--timeout=${value}`], { cwd: repo.dir })).toEqual({
        status: 2,
        stdout: "",
        stderr:
          `error: option '--timeout <ms>' argument '${value}' is invalid. ` +
          `Expected a whole number of milliseconds from 1 to 2147483647, e.g. --timeout 30000.\n${TOOL_USAGE_HINT}`,
      });
    }
  });

  it("exits 2 on an unknown option, a bad --format, a missing tool name or extra arguments", () => {
    const { repo } = sampleRepo();
    const usage = (message: string) => ({ status: 2, stdout: "", stderr: `error: ${message}\n${TOOL_USAGE_HINT}` });
    expect(gitctx(["tool", "git_status", "--frob"], { cwd: repo.dir })).toEqual(usage("unknown option '--frob'"));
    expect(gitctx(["tool", "git_status", "--format", "yaml"], { cwd: repo.dir })).toEqual(
      usage("option '--format <format>' argument 'yaml' is invalid. Allowed choices are json, text."),
    );
    expect(gitctx(["tool"], { cwd: repo.dir })).toEqual(usage("missing required argument 'name'"));
    expect(gitctx(["tool", "git_status", "git_log"], { cwd: repo.dir })).toEqual(
      usage("too many arguments for 'tool'. Expected 1 argument but got 2."),
    );
    expect(gitctx(["tool", "git_status", "--input"], { cwd: repo.dir })).toEqual(usage("option '--input <json>' argument missing"));
  });
});
