/**
 * Which directory the tools work in, and the session (toolbox) that serves it: `--root` when given; otherwise
 * the client's first `file://` root when it offers MCP roots; otherwise the current directory. One session per
 * connection: when the client's roots change, the next call gets a new session and the old one is closed as
 * soon as the calls it is serving have answered.
 */
import { fileURLToPath } from "node:url";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { createToolbox, type Toolbox, type ToolboxOptions } from "../index.js";

/** How long to wait for the client to list its roots before falling back to the current directory. */
const ROOTS_TIMEOUT_MS = 10_000;

export interface WorkspaceOptions {
  /** Toolbox options; with a `root`, the client's roots are never asked for. */
  toolbox: ToolboxOptions;
  /** The fallback when there is no `root` and the client offers no roots. */
  cwd: string;
  log: (line: string) => void;
}

interface Lease {
  toolbox: Toolbox;
  /** Calls using it right now. */
  users: number;
  /** Replaced by a newer session: closed once its last user is done. */
  retired: boolean;
}

export class Workspace {
  private current: Promise<Lease> | undefined;
  private readonly all = new Set<Promise<Lease>>();
  private closed = false;
  private readonly openListeners = new Set<(toolbox: Toolbox) => void | Promise<void>>();

  constructor(
    private readonly server: Server,
    private readonly options: WorkspaceOptions,
  ) {}

  /**
   * Runs `use` with the session for a call. Without a fixed root the client is asked for its roots on the first
   * call (`requestId` routes the question over that call's stream on HTTP), and again after it says they changed.
   */
  async with<T>(requestId: RequestId, use: (toolbox: Toolbox) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error("the MCP connection is closed");
    if (this.current === undefined) {
      const opening = this.open(requestId);
      this.current = opening;
      this.all.add(opening);
    }
    const lease = await this.current;
    lease.users++;
    try {
      return await use(lease.toolbox);
    } finally {
      lease.users--;
      if (lease.retired && lease.users === 0) await lease.toolbox.close();
    }
  }

  /**
   * Calls `listener` with every session opened for this connection from now on; the session serves its first
   * call once the listener is done (a subscription is watching by then, so nothing after that call is missed).
   */
  onOpen(listener: (toolbox: Toolbox) => void | Promise<void>): () => void {
    this.openListeners.add(listener);
    return () => this.openListeners.delete(listener);
  }

  /** The client's roots changed: later calls get a new session; the old one closes when its calls are done. */
  rootsChanged(): void {
    if (this.options.toolbox.root !== undefined || this.current === undefined) return;
    const old = this.current;
    this.current = undefined;
    void old.then((lease) => {
      lease.retired = true;
      if (lease.users === 0) return lease.toolbox.close();
      return undefined;
    });
  }

  /** Closes every session of this connection (their calls in flight are stopped). */
  async close(): Promise<void> {
    this.closed = true;
    this.current = undefined;
    const leases = await Promise.allSettled([...this.all]);
    await Promise.all(leases.map((lease) => (lease.status === "fulfilled" ? lease.value.toolbox.close() : undefined)));
  }

  private async open(requestId: RequestId): Promise<Lease> {
    const root = this.options.toolbox.root ?? (await this.locate(requestId));
    const toolbox = createToolbox({ ...this.options.toolbox, root });
    for (const listener of this.openListeners) await listener(toolbox);
    return { toolbox, users: 0, retired: false };
  }

  private async locate(requestId: RequestId): Promise<string> {
    const { cwd, log } = this.options;
    if (this.server.getClientCapabilities()?.roots === undefined) {
      log(`the client offers no roots: the workspace is the current directory ${cwd}`);
      return cwd;
    }
    let roots: Array<{ uri: string }>;
    try {
      roots = (await this.server.listRoots(undefined, { relatedRequestId: requestId, timeout: ROOTS_TIMEOUT_MS })).roots;
    } catch (error) {
      log(
        `could not read the client's roots (${error instanceof Error ? error.message : String(error)}): the workspace is the current directory ${cwd}`,
      );
      return cwd;
    }
    for (const root of roots) {
      const path = localPath(root.uri);
      if (path !== undefined) {
        log(`the workspace is ${path} (the client's first local file:// root)`);
        return path;
      }
    }
    log(`the client lists no local file:// root: the workspace is the current directory ${cwd}`);
    return cwd;
  }
}

function localPath(uri: string): string | undefined {
  if (!uri.startsWith("file://")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    // A file URL with a remote host, or otherwise not a local path.
    return undefined;
  }
}
