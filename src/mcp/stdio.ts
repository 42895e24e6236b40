/** Serving over stdio: JSON-RPC lines on stdin and stdout; diagnostics go to the `log` (stderr), never stdout. */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

export interface StdioServeOptions extends McpServerOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Aborting it (SIGINT, SIGTERM) stops the server like a client that went away. */
  signal?: AbortSignal;
}

/**
 * Serves until the client closes stdin or `signal` aborts. Either way the calls in flight are aborted (their
 * git processes killed), and the promise resolves once they have settled. A line that is not JSON-RPC is
 * logged and skipped; the server carries on with the next one.
 */
export async function serveStdio(options: StdioServeOptions): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, signal, ...serverOptions } = options;
  const mcp = createMcpServer(serverOptions);
  const closed = new Promise<void>((resolve) => {
    mcp.server.onclose = resolve;
  });
  const stop = (): void => {
    mcp.close().catch((error: unknown) => serverOptions.log?.(`error while closing: ${String(error)}`));
  };
  await mcp.server.connect(new StdioServerTransport(stdin, stdout));
  // The SDK transport does not watch for the end of its input: a client that closes stdin (or dies) has gone.
  stdin.once("end", stop);
  stdin.once("close", stop);
  stdin.once("error", stop);
  signal?.addEventListener("abort", stop, { once: true });
  if (signal?.aborted) stop();
  try {
    await closed;
    await mcp.close();
  } finally {
    stdin.off("end", stop);
    stdin.off("close", stop);
    stdin.off("error", stop);
    signal?.removeEventListener("abort", stop);
  }
}
