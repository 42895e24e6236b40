/**
 * Which directory the tools work in: `--root` when given; otherwise the client's first `file://` root when it
 * offers MCP roots; otherwise the current directory. The toolbox resolves the repository from there.
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

export class Workspace {
  private fixed: Toolbox | undefined;
  private fromRoots: Promise<Toolbox> | undefined;

  constructor(
    private readonly server: Server,
    private readonly options: WorkspaceOptions,
  ) {
    if (options.toolbox.root !== undefined) this.fixed = createToolbox(options.toolbox);
  }

  /**
   * The toolbox for a call. Without a fixed root the client is asked for its roots once, on the first call
   * (`requestId` routes the question over that call's stream on HTTP), and again after it says they changed.
   */
  toolbox(requestId: RequestId): Promise<Toolbox> {
    if (this.fixed !== undefined) return Promise.resolve(this.fixed);
    this.fromRoots ??= this.locate(requestId).then((root) => createToolbox({ ...this.options.toolbox, root }));
    return this.fromRoots;
  }

  /** The client's roots changed: the next call asks again (calls already running keep their toolbox). */
  rootsChanged(): void {
    if (this.fixed === undefined) this.fromRoots = undefined;
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
      log(`could not read the client's roots (${error instanceof Error ? error.message : String(error)}): the workspace is the current directory ${cwd}`);
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
