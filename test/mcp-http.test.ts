/**
 * `gitctx mcp --http`: Streamable HTTP at /mcp, in-process and spawned from the built CLI, driven by the SDK's
 * `Client` with `StreamableHTTPClientTransport` and by raw requests for what a client would never send.
 * Every server here listens on 127.0.0.1 with a free port; nothing else is ever bound or contacted.
 */
import { spawn } from "node:child_process";
import { request, type IncomingHttpHeaders } from "node:http";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createToolbox } from "../src/index.js";
import { bindingProblem, isLoopbackHost, startHttpServer, type HttpServeOptions, type RunningHttpServer } from "../src/mcp/http.js";
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
import { tempDir } from "./fixtures/repo.js";

const servers: RunningHttpServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
});

async function serve(options: Partial<HttpServeOptions> = {}): Promise<RunningHttpServer> {
  const server = await startHttpServer({ version: VERSION, port: 0, host: "127.0.0.1", ...options });
  servers.push(server);
  return server;
}

async function httpClient(url: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } },
  );
  const client = new Client({ name: "gitctx-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  await client.listTools();
  return { client, transport };
}

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request to 127.0.0.1 with exactly these headers (a Host header overrides the default). */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "POST", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body));
  });
}

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function rpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
}

describe("Streamable HTTP", () => {
  it("serves at /mcp on 127.0.0.1, lists every tool and answers every call exactly as the library does", async () => {
    const { repo, first } = sampleRepo();
    const calls = sampleCalls(first);
    const expected = await libraryResults(repo.dir, calls);
    const server = await serve({ root: repo.dir });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/mcp$/);
    const { client } = await httpClient(server.url);
    expect(client.getServerVersion()).toEqual({ name: "gitctx", title: "gitctx", version: VERSION });
    expect((await client.listTools()).tools).toEqual(createToolbox().tools.map(toMcpTool));
    for (const [i, call] of calls.entries()) expect(withoutClock(await client.callTool(call))).toEqual(expected[i]);
  });

  it("completes 200 concurrent calls in one session and leaves no git process behind", async () => {
    const { repo, first } = sampleRepo();
    // Not git_changes: its first answer says watching started, the others do not, and which is first is a race.
    const calls = sampleCalls(first).filter((call) => call.name !== "git_changes");
    const expected = await libraryResults(repo.dir, calls);
    const server = await serve({ root: repo.dir });
    const { client } = await httpClient(server.url);
    const indexes = Array.from({ length: 200 }, (_, i) => i % calls.length);
    const results = await Promise.all(indexes.map((index) => client.callTool(calls[index]!)));
    expect(results.map(withoutClock)).toEqual(indexes.map((index) => expected[index]));
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  });

  it("asks the client for its roots over the stream of the call when started without a root", async () => {
    const { repo } = sampleRepo();
    const log: string[] = [];
    const server = await serve({ cwd: tempDir(), log: (line) => log.push(line) });
    const client = new Client({ name: "gitctx-test", version: "1.0.0" }, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(repo.dir).href }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    clients.push(client);
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_status", {}));
    expect(await client.callTool({ name: "git_status", arguments: {} })).toEqual(expected);
    expect(log.filter((line) => !line.startsWith("session "))).toEqual([`the workspace is ${repo.dir} (the client's first local file:// root)`]);
  });

  it("keeps sessions apart and ends one on DELETE", async () => {
    const { repo } = sampleRepo();
    const server = await serve({ root: repo.dir });
    const one = await httpClient(server.url);
    const two = await httpClient(server.url);
    const ended = one.transport.sessionId!;
    expect(ended).not.toBe(two.transport.sessionId);
    await one.transport.terminateSession();
    const gone = await raw(server.url, {
      headers: { ...MCP_HEADERS, "mcp-session-id": ended },
      body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
    });
    expect(gone).toMatchObject({ status: 404, body: rpcError(-32001, "Session not found") });
    expect((await two.client.listTools()).tools.length).toBe(createToolbox().tools.length);
  });

  it("rejects a Host or Origin that does not name this machine (DNS rebinding), before any MCP handling", async () => {
    const server = await serve({ root: tempDir() });
    const port = new URL(server.url).port;
    expect(await raw(server.url, { headers: { ...MCP_HEADERS, Host: `evil.example:${port}` }, body: INITIALIZE })).toMatchObject({
      status: 403,
      body: rpcError(-32000, `Forbidden: Host header "evil.example:${port}" does not name this machine.`),
    });
    expect(await raw(server.url, { headers: { ...MCP_HEADERS, Origin: "http://evil.example" }, body: INITIALIZE })).toMatchObject({
      status: 403,
      body: rpcError(-32000, 'Forbidden: Origin "http://evil.example" is not allowed.'),
    });
    const local = await raw(server.url, {
      headers: { ...MCP_HEADERS, Host: `localhost:${port}`, Origin: "http://localhost:6274" },
      body: INITIALIZE,
    });
    expect(local.status).toBe(200);
    expect(local.headers["mcp-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers requests it cannot route with a JSON-RPC error and the right status", async () => {
    const server = await serve({ root: tempDir() });
    const other = server.url.replace(/\/mcp$/, "/other");
    expect(await raw(other, { headers: MCP_HEADERS, body: INITIALIZE })).toMatchObject({
      status: 404,
      body: rpcError(-32000, "Not found: the MCP endpoint is /mcp."),
    });
    const put = await raw(server.url, { method: "PUT", headers: MCP_HEADERS, body: INITIALIZE });
    expect(put).toMatchObject({ status: 405, body: rpcError(-32000, "Method not allowed.") });
    expect(put.headers.allow).toBe("GET, POST, DELETE");
    expect(await raw(server.url, { method: "GET", headers: { Accept: "text/event-stream" } })).toMatchObject({
      status: 400,
      body: rpcError(-32000, "Bad Request: Mcp-Session-Id header is required"),
    });
    expect(await raw(server.url, { headers: MCP_HEADERS, body: { jsonrpc: "2.0", id: 2, method: "tools/list" } })).toMatchObject({
      status: 400,
      body: rpcError(-32000, "Bad Request: no Mcp-Session-Id header; start with an initialize request."),
    });
    expect(await raw(server.url, { headers: { ...MCP_HEADERS, "mcp-session-id": "no-such-session" }, body: INITIALIZE })).toMatchObject({
      status: 404,
      body: rpcError(-32001, "Session not found"),
    });
    expect(await raw(server.url, { headers: MCP_HEADERS, body: '{"jsonrpc":"2.0","id":1,"meth' })).toMatchObject({
      status: 400,
      body: rpcError(-32700, "Parse error: Invalid JSON"),
    });
  });

  it("checks the bearer token on every request when one is set", async () => {
    const { repo } = sampleRepo();
    const server = await serve({ root: repo.dir, token: "s3cret" });
    const unauthorized = { status: 401, body: rpcError(-32000, "Unauthorized: send the server's token as Authorization: Bearer <token>.") };
    const missing = await raw(server.url, { headers: MCP_HEADERS, body: INITIALIZE });
    expect(missing).toMatchObject(unauthorized);
    expect(missing.headers["www-authenticate"]).toBe('Bearer realm="gitctx"');
    expect(await raw(server.url, { headers: { ...MCP_HEADERS, Authorization: "Bearer s3cre" }, body: INITIALIZE })).toMatchObject(unauthorized);
    expect(await raw(server.url, { headers: { ...MCP_HEADERS, Authorization: "Basic s3cret" }, body: INITIALIZE })).toMatchObject(unauthorized);

    const { client, transport } = await httpClient(server.url, "s3cret");
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_status", {}));
    expect(await client.callTool({ name: "git_status", arguments: {} })).toEqual(expected);
    // A request inside an established session still needs the token.
    const call = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "git_status", arguments: {} } };
    expect(await raw(server.url, { headers: { ...MCP_HEADERS, "mcp-session-id": transport.sessionId! }, body: call })).toMatchObject(unauthorized);
    expect(await raw(server.url, { method: "DELETE", headers: { "mcp-session-id": transport.sessionId! } })).toMatchObject(unauthorized);
  });

  it("kills the git process of a call whose HTTP client disconnects mid-call", async () => {
    const repo = committedRepo();
    const git = switchableGit();
    const server = await serve({ root: repo.dir, gitSearchPath: git.dir });
    const { client, transport } = await httpClient(server.url);
    expect((await client.callTool({ name: "git_status", arguments: {} })).isError).toBeUndefined();
    git.hang();
    const req = request(server.url, { method: "POST", headers: { ...MCP_HEADERS, "mcp-session-id": transport.sessionId! } });
    req.on("error", () => {}); // The socket is destroyed on purpose below.
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { name: "git_log", arguments: {} } }));
    await until(() => gitProcessesIn(repo.dir).length > 0);
    req.destroy();
    await until(() => gitProcessesIn(repo.dir).length === 0);
    // The session survives its client's dropped request.
    expect((await client.listTools()).tools.length).toBe(createToolbox().tools.length);
  });

  it("aborts calls in flight and kills their git processes when the server closes", async () => {
    const repo = committedRepo();
    const git = switchableGit();
    const server = await startHttpServer({ version: VERSION, port: 0, root: repo.dir, gitSearchPath: git.dir });
    const { client } = await httpClient(server.url);
    expect((await client.callTool({ name: "git_status", arguments: {} })).isError).toBeUndefined();
    git.hang();
    const call = client.callTool({ name: "git_status", arguments: {} });
    call.catch(() => {});
    await until(() => gitProcessesIn(repo.dir).length > 0);
    await server.close();
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  });
});

describe("idle sessions", () => {
  /** A session opened with raw requests (no event stream left open), returning its id. */
  async function rawSession(url: string): Promise<string> {
    const init = await raw(url, { headers: MCP_HEADERS, body: INITIALIZE });
    const id = init.headers["mcp-session-id"] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const headers = { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    expect((await raw(url, { headers, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    return id;
  }

  it("closes a session idle past idleTimeoutMs, and its server; the client's next request is 404", async () => {
    const repo = committedRepo();
    const log: string[] = [];
    const server = await serve({ root: repo.dir, idleTimeoutMs: 200, log: (line) => log.push(line) });
    const id = await rawSession(server.url);
    const headers = { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "git_status", arguments: {} } };
    expect((await raw(server.url, { headers, body: call })).status).toBe(200);
    await until(() => log.includes(`session ${id} ended`));
    expect(log).toContain(`session ${id} idle for 200 ms: closed`);
    expect(await raw(server.url, { headers, body: { ...call, id: 3 } })).toMatchObject({ status: 404 });
  });

  it("never closes a session while it is answering, and 0 never closes one", async () => {
    const repo = committedRepo();
    const git = switchableGit();
    const log: string[] = [];
    const server = await serve({ root: repo.dir, gitSearchPath: git.dir, idleTimeoutMs: 100, log: (line) => log.push(line) });
    const id = await rawSession(server.url);
    const headers = { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    git.hang();
    const pending = raw(server.url, { headers, body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "git_log", arguments: {} } } });
    pending.catch(() => {});
    await until(() => gitProcessesIn(repo.dir).length > 0);
    // Ten idle periods with the call in flight: the session stays.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(log.filter((line) => line.includes("idle"))).toEqual([]);
    // Ending the session ends its call: the toolbox is closed and its git killed.
    expect((await raw(server.url, { method: "DELETE", headers })).status).toBe(200);
    await until(() => gitProcessesIn(repo.dir).length === 0);

    const forever = await serve({ root: repo.dir, idleTimeoutMs: 0, log: (line) => log.push(line) });
    const kept = await rawSession(forever.url);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const list = { jsonrpc: "2.0", id: 5, method: "tools/list" };
    expect(
      (await raw(forever.url, { headers: { ...MCP_HEADERS, "mcp-session-id": kept, "mcp-protocol-version": "2025-06-18" }, body: list })).status,
    ).toBe(200);
  });
});

describe("binding", () => {
  it("tells loopback addresses from others", () => {
    const hosts = ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "0.0.0.0", "::", "192.0.2.1", "example.com", "128.0.0.1"];
    expect(hosts.map((host) => [host, isLoopbackHost(host)])).toEqual([
      ["127.0.0.1", true],
      ["127.1.2.3", true],
      ["localhost", true],
      ["::1", true],
      ["[::1]", true],
      ["0.0.0.0", false],
      ["::", false],
      ["192.0.2.1", false],
      ["example.com", false],
      ["128.0.0.1", false],
    ]);
  });

  it("refuses a non-loopback address without --allow-remote and a token, and never binds it", async () => {
    expect(bindingProblem("127.0.0.1", false, undefined)).toBeUndefined();
    expect(bindingProblem("0.0.0.0", true, "t")).toBeUndefined();
    const refused =
      "refusing to listen on 0.0.0.0, which is not a loopback address: anyone who can reach it could read the " +
      "repository. Pass --allow-remote together with a token (--token or GITCTX_MCP_TOKEN) to allow it.";
    expect(bindingProblem("0.0.0.0", false, "t")).toBe(refused);
    await expect(startHttpServer({ version: VERSION, port: 0, host: "0.0.0.0" })).rejects.toThrow(refused);
    await expect(startHttpServer({ version: VERSION, port: 0, host: "0.0.0.0", allowRemote: true })).rejects.toThrow(
      "--allow-remote needs a bearer token to listen on 0.0.0.0: pass --token <secret> or set GITCTX_MCP_TOKEN.",
    );
  });
});

describe("gitctx mcp --http (spawned)", () => {
  function start(args: string[]) {
    const child = spawn(process.execPath, [MAIN, "mcp", ...args], {
      cwd: tempDir(),
      env: { PATH: process.env.PATH ?? "", HOME: tempDir("gitctx-mcp-home-"), LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("close", (code, signal) => resolve({ code, signal })),
    );
    const listening = async (): Promise<string> => {
      await until(() => /listening on (\S+)/.test(stderr));
      return /listening on (\S+)/.exec(stderr)![1]!;
    };
    return { child, exited, listening, output: () => ({ stdout, stderr }) };
  }

  it("serves a client, then exits 0 on SIGTERM with nothing on stdout", async () => {
    const { repo } = sampleRepo();
    const server = start(["--http", "0", "--root", repo.dir]);
    const url = await server.listening();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/mcp$/);
    const { client, transport } = await httpClient(url);
    const session = transport.sessionId!;
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_log", {}));
    expect(await client.callTool({ name: "git_log", arguments: {} })).toEqual(expected);
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const { stdout, stderr } = server.output();
    expect(stdout).toBe("");
    expect(stderr.split("\n")).toEqual([
      `gitctx mcp: listening on ${url} (read-only mode, workspace: ${repo.dir})`,
      `gitctx mcp: session ${session} started`,
      "gitctx mcp: SIGTERM: shutting down",
      `gitctx mcp: session ${session} ended`,
      "gitctx mcp: stopped",
      "",
    ]);
  });

  it("exits 1 when the port is taken", async () => {
    const taken = await serve({ root: tempDir() });
    const port = new URL(taken.url).port;
    const server = start(["--http", port]);
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.output()).toEqual({
      stdout: "",
      stderr: `gitctx mcp: cannot listen on 127.0.0.1 port ${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
    });
  });
});
