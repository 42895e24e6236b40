/**
 * `gitctx mcp` over stdio, spawned from the built CLI (`npm test` builds first; after editing src/, run
 * `npm run build` before `npx vitest run test/mcp`). The SDK's `Client` with `StdioClientTransport` drives it;
 * the robustness tests write raw bytes to its stdin and read its exit code.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createToolbox } from "../src/index.js";
import { toMcpTool } from "../src/mcp/tools.js";
import { MAIN, VERSION } from "./fixtures/cli.js";
import {
  committedRepo,
  expectedMcpResult,
  gitProcessesIn,
  libraryResults,
  switchableGit,
  sampleCalls,
  sampleRepo,
  until,
  withoutClock,
} from "./fixtures/mcp.js";
import { isAlive, tempDir } from "./fixtures/repo.js";

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} does not exist: run "npm run build" first (npm test does it for you).`);
});

function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: tempDir("gitctx-mcp-home-"), GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C", ...extra };
}

interface StdioConnection {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** Errors the client met, e.g. a stdout line that is not JSON-RPC. */
  clientErrors: Error[];
}

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function stdioClient(args: string[], options: { cwd?: string; roots?: string[]; env?: Record<string, string> } = {}): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp", ...args],
    cwd: options.cwd ?? tempDir(),
    env: options.env ?? serverEnv(),
    stderr: "pipe",
  });
  const stderr: string[] = [];
  transport.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")));
  const client = new Client({ name: "gitctx-test", version: "1.0.0" }, options.roots === undefined ? {} : { capabilities: { roots: {} } });
  if (options.roots !== undefined) {
    const roots = options.roots;
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
  }
  const clientErrors: Error[] = [];
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(transport);
  clients.push(client);
  await client.listTools();
  return { client, transport, stderr: () => stderr.join(""), clientErrors };
}

/** The server spawned by hand: raw bytes in, JSON-RPC lines and the exit status out. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  private stdout = "";
  private stderrText = "";
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], cwd = tempDir(), env = serverEnv()) {
    this.child = spawn(process.execPath, [MAIN, "mcp", ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.on("data", (chunk: Buffer) => (this.stdout += chunk.toString("utf8")));
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderrText += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => this.child.once("close", (code, signal) => resolve({ code, signal })));
  }

  write(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  send(message: object): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Every stdout line, parsed: the test fails if one is not JSON. */
  messages(): Array<Record<string, unknown>> {
    return this.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  async response(id: number): Promise<Record<string, unknown>> {
    const find = () => (this.stdout.endsWith("\n") ? this.messages().find((message) => message.id === id) : undefined);
    await until(() => find() !== undefined);
    return find()!;
  }

  async initialize(): Promise<void> {
    this.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    await this.response(1);
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  callTool(id: number, name: string, args: Record<string, unknown> = {}): void {
    this.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  }

  get stderr(): string {
    return this.stderrText;
  }

  async exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exited;
  }
}

describe("gitctx mcp over stdio", () => {
  it("lists every tool and answers every call exactly as the library does, with nothing but protocol on stdout", async () => {
    const { repo, first } = sampleRepo();
    const calls = sampleCalls(first);
    const expected = await libraryResults(repo.dir, calls);
    const { client, stderr, clientErrors } = await stdioClient(["--root", repo.dir]);
    expect(client.getServerVersion()).toEqual({ name: "gitctx", title: "gitctx", version: VERSION });
    expect((await client.listTools()).tools).toEqual(createToolbox().tools.map(toMcpTool));
    for (const [i, call] of calls.entries()) expect(withoutClock(await client.callTool(call))).toEqual(expected[i]);
    expect(clientErrors).toEqual([]);
    expect(stderr()).toBe(`gitctx mcp: serving over stdio (read-only mode, workspace: ${repo.dir})\n`);
  });

  it("completes 200 concurrent calls on one connection with the right answers and leaves no git process behind", async () => {
    const { repo, first } = sampleRepo();
    // Not git_changes: its first answer says watching started, the others do not, and which is first is a race.
    const calls = sampleCalls(first).filter((call) => call.name !== "git_changes");
    const expected = await libraryResults(repo.dir, calls);
    const { client, clientErrors } = await stdioClient(["--root", repo.dir]);
    const indexes = Array.from({ length: 200 }, (_, i) => i % calls.length);
    const results = await Promise.all(indexes.map((index) => client.callTool(calls[index]!)));
    expect(results.map(withoutClock)).toEqual(indexes.map((index) => expected[index]));
    expect(clientErrors).toEqual([]);
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  });

  it("uses the client's first local file:// root when started without --root", async () => {
    const { repo } = sampleRepo();
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_status", {}));
    const cwd = tempDir();
    const { client, stderr } = await stdioClient([], { cwd, roots: [pathToFileURL(repo.dir).href] });
    expect(await client.callTool({ name: "git_status", arguments: {} })).toEqual(expected);
    expect(stderr()).toBe(
      `gitctx mcp: serving over stdio (read-only mode, workspace: the client's first file:// root, else ${cwd})\n` +
        `gitctx mcp: the workspace is ${repo.dir} (the client's first local file:// root)\n`,
    );
  });

  it("skips garbage, truncated and non-JSON-RPC lines, keeps answering, and exits 0 when stdin ends", async () => {
    const { repo } = sampleRepo();
    const server = new RawServer(["--root", repo.dir]);
    await server.initialize();
    const garbage = [
      "this is not json\n",
      '{"jsonrpc":"2.0","id":5,"method":"tools/ca\n',
      Buffer.from([0x00, 0xff, 0xfe, 0x7b, 0x0a]),
      "[1,2,3]\n",
      '{"jsonrpc":"2.0","id":6}\n',
      "\n",
    ];
    for (const chunk of garbage) server.write(chunk);
    server.callTool(2, "git_status");
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_status", {}));
    expect(await server.response(2)).toEqual({ jsonrpc: "2.0", id: 2, result: expected });
    // A message cut off by the end of input is dropped with it.
    server.write('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"git_st');
    server.child.stdin.end();
    expect(await server.exit()).toEqual({ code: 0, signal: null });
    expect(server.messages().map((message) => message.id)).toEqual([1, 2]);
    const stderr = server.stderr.split("\n");
    expect(stderr.filter((line) => line.startsWith("gitctx mcp: ignored a message: ")).length).toBe(garbage.length);
    expect(stderr.at(-2)).toBe("gitctx mcp: stopped");
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`exits 0 on ${signal}, killing the git process of a call in flight first`, async () => {
      const repo = committedRepo();
      const git = switchableGit();
      const server = new RawServer(["--root", repo.dir], tempDir(), serverEnv({ PATH: `${git.dir}${delimiter}${process.env.PATH ?? ""}` }));
      await server.initialize();
      server.callTool(2, "git_status");
      await server.response(2);
      git.hang();
      server.callTool(3, "git_log");
      await until(() => gitProcessesIn(repo.dir).length > 0);
      server.child.kill(signal);
      expect(await server.exit()).toEqual({ code: 0, signal: null });
      expect(gitProcessesIn(repo.dir)).toEqual([]);
      expect(server.messages().map((message) => message.id)).toEqual([1, 2]);
      expect(server.stderr.split("\n").slice(-3)).toEqual([`gitctx mcp: ${signal}: shutting down`, "gitctx mcp: stopped", ""]);
    });
  }

  it("kills the git processes of a call in flight when the client closes stdin, then exits 0", async () => {
    const repo = committedRepo();
    const git = switchableGit();
    const server = new RawServer(["--root", repo.dir], tempDir(), serverEnv({ PATH: `${git.dir}${delimiter}${process.env.PATH ?? ""}` }));
    await server.initialize();
    server.callTool(2, "git_status");
    await server.response(2);
    git.hang();
    server.callTool(3, "git_status");
    server.callTool(4, "git_log");
    await until(() => gitProcessesIn(repo.dir).length === 2);
    server.child.stdin.end();
    expect(await server.exit()).toEqual({ code: 0, signal: null });
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  });

  it("kills the git processes of a call in flight when the SDK client disconnects", async () => {
    const repo = committedRepo();
    const git = switchableGit();
    const { client, transport } = await stdioClient(["--root", repo.dir], {
      env: serverEnv({ PATH: `${git.dir}${delimiter}${process.env.PATH ?? ""}` }),
    });
    expect((await client.callTool({ name: "git_status", arguments: {} })).isError).toBeUndefined();
    git.hang();
    const call = client.callTool({ name: "git_status", arguments: {} });
    await until(() => gitProcessesIn(repo.dir).length > 0);
    const pid = transport.pid!;
    await client.close();
    await expect(call).rejects.toThrow("Connection closed");
    await until(() => !isAlive(pid));
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  });

  it("ignores GITCTX_MCP_TOKEN on stdio rather than refusing to start", async () => {
    const server = new RawServer([], tempDir(), serverEnv({ GITCTX_MCP_TOKEN: "secret" }));
    await server.initialize();
    server.child.stdin.end();
    expect(await server.exit()).toEqual({ code: 0, signal: null });
  });
});

describe("gitctx mcp: usage", () => {
  function gitctx(args: string[], env: Record<string, string> = serverEnv()) {
    const result = spawnSync(process.execPath, [MAIN, ...args], { cwd: tempDir(), env, input: "", encoding: "utf8" });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }
  const hint = '(run "gitctx mcp --help" for usage)\n';

  it("prints its help", () => {
    expect(gitctx(["mcp", "--help"])).toEqual({ status: 0, stdout: MCP_HELP, stderr: "" });
  });

  it("refuses a non-loopback --host without --allow-remote and a token, before listening", () => {
    expect(gitctx(["mcp", "--http", "0", "--host", "0.0.0.0"])).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "error: refusing to listen on 0.0.0.0, which is not a loopback address: anyone who can reach it could read the " +
        `repository. Pass --allow-remote together with a token (--token or GITCTX_MCP_TOKEN) to allow it.\n${hint}`,
    });
    expect(gitctx(["mcp", "--http", "0", "--host", "192.0.2.1", "--allow-remote"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: --allow-remote needs a bearer token to listen on 192.0.2.1: pass --token <secret> or set GITCTX_MCP_TOKEN.\n${hint}`,
    });
    expect(gitctx(["mcp", "--http", "0", "--host", "192.0.2.1", "--allow-remote"], serverEnv({ GITCTX_MCP_TOKEN: "" }))).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: --allow-remote needs a bearer token to listen on 192.0.2.1: pass --token <secret> or set GITCTX_MCP_TOKEN.\n${hint}`,
    });
  });

  it("rejects HTTP options without --http, a bad port and a --root that is not a directory", () => {
    for (const args of [["--host", "127.0.0.1"], ["--allow-remote"], ["--token", "t"]]) {
      expect(gitctx(["mcp", ...args])).toEqual({
        status: 2,
        stdout: "",
        stderr: `error: --host, --allow-remote, --token and --idle-timeout only apply with --http <port>.\n${hint}`,
      });
    }
    expect(gitctx(["mcp", "--http", "65536"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: option '--http <port>' argument '65536' is invalid. Expected a port number from 0 to 65535, e.g. --http 8808.\n${hint}`,
    });
    expect(gitctx(["mcp", "--root", "/nonexistent/gitctx"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: --root /nonexistent/gitctx is not a directory.\n${hint}`,
    });
  });
});

const MCP_HELP = `Usage: gitctx mcp [options]

serve the tools to MCP clients (stdio or --http)

Options:
  --root <dir>         the workspace: the repository containing it is used, and
                       paths are relative to it
  --mode <mode>        the highest permission a tool may need (default:
                       read-only) (choices: "read-only", "workspace-write",
                       "danger-full-access")
  --timeout <ms>       stop any git process running longer than this (default:
                       60000)
  --trust-repository   use a repository owned by another user (its config could
                       name that user's programs)
  --home <dir>         also read the user's instruction files under this home
                       directory (default: none are read)
  --http <port>        serve Streamable HTTP at http://<host>:<port>/mcp instead
                       of stdio (0: a free port)
  --host <host>        the address to listen on with --http (default: 127.0.0.1)
  --allow-remote       with --http, allow a --host that is not a loopback
                       address (needs a token)
  --token <token>      with --http, require Authorization: Bearer <token> on
                       every request (env: GITCTX_MCP_TOKEN)
  --idle-timeout <ms>  with --http, close a session idle this long, and its
                       toolbox (default: 1800000, 30 minutes; 0: never)
  -h, --help           show help

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
  GITCTX_MCP_TOKEN=secret gitctx mcp --http 8808 --host 0.0.0.0 --allow-remote

Exit codes:
  0  the client closed the connection, or SIGINT/SIGTERM stopped the server
  1  the HTTP server could not listen (e.g. the port is in use)
  2  usage error: unknown option, bad --mode, --timeout or --http, --root or
     --home not a directory, or a non-loopback --host without --allow-remote
     and a token
`;
