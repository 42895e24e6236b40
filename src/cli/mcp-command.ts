/**
 * `gitctx mcp`: serves every tool to MCP clients, over stdio (default) or Streamable HTTP (`--http PORT`). The
 * command translates options into `src/mcp/` calls and turns SIGINT/SIGTERM into a clean shutdown.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { RunningHttpServer } from "../mcp/http.js";
import type { McpServerOptions } from "../mcp/server.js";
import { PERMISSION_MODES, type PermissionMode } from "../types.js";
import { EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE, MAX_TIMEOUT_MS, parseTimeout, type CliIO, type SetExitCode } from "./common.js";
import { packageVersion } from "./version.js";

/** The MCP server's default address (src/mcp/http.ts `DEFAULT_HOST`), here so the help needs no import of the server. */
const DEFAULT_HOST = "127.0.0.1";
/** The idle timeout of HTTP sessions (src/mcp/http.ts `DEFAULT_IDLE_TIMEOUT_MS`), for the same reason. */
const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
const TOKEN_ENV = "GITCTX_MCP_TOKEN";

const HELP_AFTER = `
Without --root, the workspace is the first file:// root the client offers
(MCP roots), else the current directory. stdout carries nothing but the
protocol; diagnostics go to stderr.

Instruction files (load_instructions, gitctx://instructions, the prompt
system_context) come from the workspace and its repository: the user's own
~/.claude/CLAUDE.md, ~/.claude/rules/ and ~/.codex/AGENTS.md are read only
with --home.

Examples:
  gitctx mcp
  gitctx mcp --root ~/src/project
  gitctx mcp --home ~
  gitctx mcp --http 8808
  ${TOKEN_ENV}=secret gitctx mcp --http 8808 --host 0.0.0.0 --allow-remote

Exit codes:
  0  the client closed the connection, or SIGINT/SIGTERM stopped the server
  1  the HTTP server could not listen (e.g. the port is in use)
  2  usage error: unknown option, bad --mode, --timeout or --http, --root or
     --home not a directory, or a non-loopback --host without --allow-remote
     and a token`;

interface McpCommandOptions {
  root?: string;
  mode?: PermissionMode;
  timeout?: number;
  trustRepository?: boolean;
  http?: number;
  host?: string;
  allowRemote?: boolean;
  token?: string;
  idleTimeout?: number;
  home?: string;
}

/** Adds `gitctx mcp` to the program. */
export function registerMcpCommand(program: Command, io: CliIO, setExitCode: SetExitCode): void {
  program
    .command("mcp")
    .description("serve the tools to MCP clients (stdio or --http)")
    .option("--root <dir>", "the workspace: the repository containing it is used, and paths are relative to it")
    .addOption(new Option("--mode <mode>", "the highest permission a tool may need (default: read-only)").choices(PERMISSION_MODES))
    .option("--timeout <ms>", "stop any git process running longer than this (default: 60000)", parseTimeout)
    .option("--trust-repository", "use a repository owned by another user (its config could name that user's programs)")
    .option("--home <dir>", "also read the user's instruction files under this home directory (default: none are read)")
    .option("--http <port>", "serve Streamable HTTP at http://<host>:<port>/mcp instead of stdio (0: a free port)", parsePort)
    .option("--host <host>", `the address to listen on with --http (default: ${DEFAULT_HOST})`)
    .option("--allow-remote", "with --http, allow a --host that is not a loopback address (needs a token)")
    .addOption(new Option("--token <token>", "with --http, require Authorization: Bearer <token> on every request").env(TOKEN_ENV))
    .option(
      "--idle-timeout <ms>",
      `with --http, close a session idle this long, and its toolbox (default: ${DEFAULT_IDLE_TIMEOUT_MS}, 30 minutes; 0: never)`,
      parseIdleTimeout,
    )
    .showHelpAfterError('(run "gitctx mcp --help" for usage)')
    .addHelpText("after", HELP_AFTER)
    .action(async (options: McpCommandOptions, command: Command) => {
      const usage = (message: string): never => command.error(`error: ${message}`, { exitCode: EXIT_USAGE, code: "gitctx.invalidMcpOptions" });
      // A token from the environment is meant for HTTP; a stdio server ignores it rather than refusing to start.
      const tokenFromCommandLine = options.token !== undefined && command.getOptionValueSource("token") !== "env";
      if (
        options.http === undefined &&
        (options.host !== undefined || options.allowRemote === true || tokenFromCommandLine || options.idleTimeout !== undefined)
      ) {
        usage("--host, --allow-remote, --token and --idle-timeout only apply with --http <port>.");
      }
      const root = options.root === undefined ? undefined : resolve(options.root);
      if (root !== undefined && !isDirectory(root)) usage(`--root ${options.root} is not a directory.`);
      // The server (and with it the MCP SDK) is loaded only now, when the command really runs.
      const [{ bindingProblem, startHttpServer }, { serveStdio }] = await Promise.all([import("../mcp/http.js"), import("../mcp/stdio.js")]);
      const home = options.home === undefined ? undefined : resolve(options.home);
      if (home !== undefined && !isDirectory(home)) usage(`--home ${options.home} is not a directory.`);
      const host = options.host ?? DEFAULT_HOST;
      const token = options.token === "" ? undefined : options.token;
      if (options.http !== undefined) {
        const problem = bindingProblem(host, options.allowRemote === true, token);
        if (problem !== undefined) usage(problem);
      }

      const log = (line: string): void => {
        io.stderr.write(`gitctx mcp: ${line}\n`);
      };
      const serverOptions: McpServerOptions = { version: packageVersion(), log };
      if (root !== undefined) serverOptions.root = root;
      if (options.mode !== undefined) serverOptions.mode = options.mode;
      if (options.timeout !== undefined) serverOptions.timeoutMs = options.timeout;
      if (options.trustRepository === true) serverOptions.trustRepository = true;
      if (home !== undefined) serverOptions.home = home;
      const summary = `${options.mode ?? "read-only"} mode, workspace: ${
        root ?? `the client's first file:// root, else ${process.cwd()}`
      }${home === undefined ? "" : `, user instruction files from ${home}`}`;

      const shutdown = new AbortController();
      const onSignal = (signal: NodeJS.Signals): void => {
        if (shutdown.signal.aborted) {
          log(`${signal} again: exiting at once`);
          process.exit(128 + (signal === "SIGINT" ? 2 : 15));
        }
        log(`${signal}: shutting down`);
        shutdown.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      try {
        if (options.http === undefined) {
          log(`serving over stdio (${summary})`);
          if ((io.stdin as NodeJS.ReadStream).isTTY === true) {
            log("stdin is a terminal: this command speaks MCP (JSON-RPC) to the client that starts it; Ctrl-C stops it");
          }
          await serveStdio({
            ...serverOptions,
            stdin: io.stdin as NodeJS.ReadStream,
            stdout: io.stdout as NodeJS.WriteStream,
            signal: shutdown.signal,
          });
        } else {
          let running: RunningHttpServer;
          try {
            running = await startHttpServer({
              ...serverOptions,
              port: options.http,
              host,
              allowRemote: options.allowRemote === true,
              ...(token !== undefined ? { token } : {}),
              ...(options.idleTimeout !== undefined ? { idleTimeoutMs: options.idleTimeout } : {}),
            });
          } catch (error) {
            log(`cannot listen on ${host} port ${options.http}: ${error instanceof Error ? error.message : String(error)}`);
            setExitCode(EXIT_TOOL_ERROR);
            return;
          }
          log(`listening on ${running.url} (${summary}${token === undefined ? "" : ", bearer token required"})`);
          if (!shutdown.signal.aborted) await new Promise((done) => shutdown.signal.addEventListener("abort", done, { once: true }));
          await running.close();
        }
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
      log("stopped");
      setExitCode(EXIT_OK);
    });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function parsePort(value: string): number {
  const port = /^[0-9]{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) throw new InvalidArgumentError("Expected a port number from 0 to 65535, e.g. --http 8808.");
  return port;
}

function parseIdleTimeout(value: string): number {
  const ms = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 0 && ms <= MAX_TIMEOUT_MS)) {
    throw new InvalidArgumentError(`Expected a whole number of milliseconds from 0 (never) to ${MAX_TIMEOUT_MS}, e.g. --idle-timeout 600000.`);
  }
  return ms;
}
