/**
 * Serving Streamable HTTP at `/mcp`: one MCP session (server and transport) per client, loopback only unless
 * told otherwise. Every request is checked before the SDK sees it: the path, the Host and Origin headers (a web
 * page that rebinds its DNS name to 127.0.0.1 must not reach the repository), and the bearer token when one is set.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { isIP, type AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer, type GitctxMcpServer, type McpServerOptions } from "./server.js";

export const MCP_PATH = "/mcp";
export const DEFAULT_HOST = "127.0.0.1";
/** MCP requests are small; this only stops a client from making the server hold an unbounded body. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

export interface HttpServeOptions extends McpServerOptions {
  /** 0 picks a free port (see `url` on the result). */
  port: number;
  /** Default 127.0.0.1. Anything but a loopback address needs `allowRemote` and a `token`. */
  host?: string;
  allowRemote?: boolean;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * A session with no request in flight and no stream open for this long is closed (its toolbox too); the
   * client's next request gets 404 and, as the transport says it must, starts a new session. Default 30
   * minutes; 0 never closes one.
   */
  idleTimeoutMs?: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

export interface RunningHttpServer {
  /** Where clients connect, e.g. `http://127.0.0.1:8808/mcp`. */
  readonly url: string;
  /** Stops listening, ends every session (aborting its calls) and resolves once their git processes are gone. */
  close(): Promise<void>;
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1";
}

/** Why a binding is refused, or `undefined` when it is allowed. */
export function bindingProblem(host: string, allowRemote: boolean, token: string | undefined): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  if (!allowRemote) {
    return (
      `refusing to listen on ${host}, which is not a loopback address: anyone who can reach it could read the ` +
      "repository. Pass --allow-remote together with a token (--token or GITCTX_MCP_TOKEN) to allow it."
    );
  }
  if (token === undefined || token === "") {
    return `--allow-remote needs a bearer token to listen on ${host}: pass --token <secret> or set GITCTX_MCP_TOKEN.`;
  }
  return undefined;
}

interface Session {
  mcp: GitctxMcpServer;
  transport: StreamableHTTPServerTransport;
  /** Requests being answered and streams open: the session is idle only at 0. */
  active: number;
  idle?: NodeJS.Timeout;
}

export async function startHttpServer(options: HttpServeOptions): Promise<RunningHttpServer> {
  const { port, host = DEFAULT_HOST, allowRemote = false, token, idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS, ...serverOptions } = options;
  if (!(idleTimeoutMs >= 0)) throw new RangeError(`idleTimeoutMs must be 0 or more, got ${idleTimeoutMs}`);
  const problem = bindingProblem(host, allowRemote, token);
  if (problem !== undefined) throw new Error(problem);
  const log = serverOptions.log ?? (() => {});
  const loopback = isLoopbackHost(host);
  const hostName = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const allowedNames = new Set([...LOOPBACK_NAMES, hostName]);
  const expectedToken = token === undefined || token === "" ? undefined : digest(token);
  const sessions = new Map<string, Session>();
  const pending = new Set<Session>();
  let closing = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closing) return reply(res, 503, -32000, "The server is shutting down.");
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_PATH) return reply(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    // A remote server is reached under names nobody can list in advance; its token does what the checks do here.
    if (loopback) {
      const refused = checkHost(req, allowedNames);
      if (refused !== undefined) return reply(res, 403, -32000, refused);
    }
    if (expectedToken !== undefined && !hasToken(req, expectedToken)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="gitctx"');
      return reply(res, 401, -32000, "Unauthorized: send the server's token as Authorization: Bearer <token>.");
    }
    const sessionId = header(req, "mcp-session-id");

    if (req.method === "POST") {
      const body = await readJson(req, res);
      if (body === undefined) return;
      if (sessionId === undefined) {
        const initializes = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
        if (!initializes) return reply(res, 400, -32000, "Bad Request: no Mcp-Session-Id header; start with an initialize request.");
        return startSession(req, res, body);
      }
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(res, 404, -32001, "Session not found");
      busy(session, res);
      cancelOnDisconnect(session, res, body);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method === "GET" || req.method === "DELETE") {
      if (sessionId === undefined) return reply(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(res, 404, -32001, "Session not found");
      busy(session, res);
      return session.transport.handleRequest(req, res);
    }
    res.setHeader("Allow", "GET, POST, DELETE");
    return reply(res, 405, -32000, "Method not allowed.");
  }

  /** The session is in use until `res` is done (an answer sent, a stream closed); then its idle clock starts again. */
  function busy(session: Session, res: ServerResponse): void {
    session.active++;
    clearTimeout(session.idle);
    session.idle = undefined;
    res.once("close", () => {
      session.active--;
      if (session.active === 0) watchIdle(session);
    });
  }

  function watchIdle(session: Session): void {
    if (idleTimeoutMs === 0 || closing) return;
    clearTimeout(session.idle);
    session.idle = setTimeout(() => {
      const id = session.transport.sessionId;
      if (session.active > 0 || id === undefined || !sessions.has(id)) return;
      log(`session ${id} idle for ${idleTimeoutMs} ms: closed`);
      // The transport's onclose removes the session and closes its server and toolbox.
      session.transport.close().catch((error: unknown) => log(`error closing an idle session: ${String(error)}`));
    }, idleTimeoutMs);
    session.idle.unref();
  }

  async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const mcp = createMcpServer(serverOptions);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        log(`session ${id} started`);
      },
    });
    const session: Session = { mcp, transport, active: 0 };
    busy(session, res);
    transport.onclose = () => {
      clearTimeout(session.idle);
      if (transport.sessionId !== undefined && sessions.delete(transport.sessionId)) log(`session ${transport.sessionId} ended`);
      // The client ended the session (DELETE) or it was closed: its toolbox goes with it.
      mcp.close().catch((error: unknown) => log(`error closing a session: ${String(error)}`));
    };
    pending.add(session);
    try {
      await mcp.server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      pending.delete(session);
      // An initialize the transport refused leaves a server no one can reach.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await mcp.close();
    }
  }

  const server: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`internal error serving ${req.method} ${req.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) reply(res, 500, -32603, "Internal error");
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => log(`HTTP server error: ${error.message}`));
  const address = server.address() as AddressInfo;

  return {
    url: `http://${hostName}:${address.port}${MCP_PATH}`,
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...sessions.values(), ...pending].map((session) => session.mcp.close()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * A client that goes away while its POST is still open has abandoned the calls in it: they are cancelled
 * exactly as if it had sent `notifications/cancelled`, which aborts their signals and kills their git processes.
 */
function cancelOnDisconnect(session: Session, res: ServerResponse, body: unknown): void {
  const ids: RequestId[] = (Array.isArray(body) ? body : [body]).filter(isJSONRPCRequest).map((message) => message.id);
  if (ids.length === 0) return;
  res.once("close", () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      session.transport.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "The HTTP client disconnected." },
      });
    }
  });
}

/** DNS rebinding: the Host (and a browser's Origin) must name this machine, whatever the name resolved to. */
function checkHost(req: IncomingMessage, allowed: ReadonlySet<string>): string | undefined {
  const host = req.headers.host;
  if (host === undefined || !allowed.has(hostnameOf(`http://${host}`) ?? ""))
    return `Forbidden: Host header ${JSON.stringify(host ?? "")} does not name this machine.`;
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.has(hostnameOf(origin) ?? "")) return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed.`;
  return undefined;
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function hasToken(req: IncomingMessage, expected: Buffer): boolean {
  const match = /^Bearer +(.+)$/i.exec(req.headers.authorization ?? "");
  // Digests have one length, so the comparison takes the same time whatever was sent.
  return match !== null && timingSafeEqual(digest(match[1]!.trim()), expected);
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The parsed JSON body, or `undefined` once an error reply has been sent. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the limit the rest is read and dropped, so the reply reaches a client still sending.
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) {
    reply(res, 413, -32000, `Payload too large: the body may be at most ${MAX_BODY_BYTES} bytes.`);
    return undefined;
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    reply(res, 400, -32700, "Parse error: Invalid JSON");
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
