/**
 * `resources/subscribe` for `gitctx://context` and `gitctx://instructions` (with or without a query): the first
 * subscription starts the connection's session watcher; every event that makes a subscribed resource stale
 * sends `notifications/resources/updated` for it, at most once per `RESOURCE_UPDATE_DEBOUNCE_MS` (a checkout is
 * many events, the client needs one nudge). The last unsubscription lets the watcher go. What is stale is read
 * from the event's category: anything in the work tree or the repository stales the context; instruction files,
 * rules and a move of the root stale the instructions.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { GitctxError, type SessionWatch, type Toolbox, type WatchEvent } from "../index.js";
import { CONTEXT_URI, resourceBase, toolFailure } from "./resources.js";
import type { Workspace } from "./workspace.js";

/** Quiet time that gathers a burst of events into one notification per resource. */
export const RESOURCE_UPDATE_DEBOUNCE_MS = 200;

/** Whether `event` makes the resource at `base` (its URI without the query) stale. */
export function stales(base: string, event: WatchEvent): boolean {
  if (event.category === "watcher") return event.kind === "root_changed";
  if (base === CONTEXT_URI) return true;
  return event.category === "instructions" || event.category === "rules";
}

export class ResourceSubscriptions {
  /** Subscribed URIs (as the client wrote them) by their base. */
  private readonly uris = new Map<string, string>();
  private watching: { toolbox: Toolbox; handle: SessionWatch } | undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly server: Server,
    private readonly workspace: Workspace,
    private readonly log: (line: string) => void,
  ) {
    // A new session for the connection (the client's roots changed): subscriptions carry over to it, watching
    // before the session answers its first call.
    workspace.onOpen(async (toolbox) => {
      if (this.uris.size === 0) return;
      await this.attach(toolbox).catch((error: unknown) => this.log(`cannot watch the new workspace: ${message(error)}`));
    });
  }

  async subscribe(uri: string, requestId: RequestId): Promise<void> {
    // Refuses an unknown resource or a bad query as a read of it would.
    resourceBase(uri);
    await this.workspace.with(requestId, (toolbox) => this.attach(toolbox));
    this.uris.set(uri, resourceBase(uri));
  }

  async unsubscribe(uri: string): Promise<void> {
    this.uris.delete(uri);
    const timer = this.timers.get(uri);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(uri);
    if (this.uris.size === 0) await this.detach();
  }

  /** The client's roots changed: every subscribed resource is about another workspace now. */
  rootsChanged(): void {
    for (const uri of this.uris.keys()) this.schedule(uri);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.uris.clear();
    await this.detach();
  }

  /** Watches `toolbox` (once): resolves when watching, rejects with the MCP error a read would answer. */
  private async attach(toolbox: Toolbox): Promise<void> {
    if (this.watching?.toolbox !== toolbox || this.watching.handle.closed) {
      await this.detach();
      const handle = toolbox.watch();
      handle.on((event) => this.changed(event));
      this.watching = { toolbox, handle };
    }
    const { handle } = this.watching;
    try {
      await handle.ready;
    } catch (error) {
      if (this.watching?.handle === handle) this.watching = undefined;
      if (error instanceof GitctxError) throw toolFailure(error.toInfo());
      throw error;
    }
  }

  private async detach(): Promise<void> {
    const watching = this.watching;
    this.watching = undefined;
    await watching?.handle.close();
  }

  private changed(event: WatchEvent): void {
    for (const [uri, base] of this.uris) if (stales(base, event)) this.schedule(uri);
  }

  private schedule(uri: string): void {
    if (this.closed || this.timers.has(uri)) return;
    const timer = setTimeout(() => {
      this.timers.delete(uri);
      if (!this.uris.has(uri)) return;
      this.server.sendResourceUpdated({ uri }).catch((error: unknown) => this.log(`could not send resources/updated for ${uri}: ${message(error)}`));
    }, RESOURCE_UPDATE_DEBOUNCE_MS);
    // A pending nudge must not keep a server that is done from exiting.
    timer.unref();
    this.timers.set(uri, timer);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
