/**
 * The session's watcher: one per session, started by the first `session.watch()` (or `git_changes`, or an MCP
 * subscription) for the current root, moved with the root, told of every instruction file the session loads,
 * and stopped when the last handle closes or the session does.
 *
 * Its events drive the session's caches: each event drops what it makes stale (`invalidationFor`), before any
 * handle hears of it. The signature checks the caches make on every call stay the source of truth; the watcher
 * only makes invalidation earlier, and covers what a signature does not look at (a branch switch for the config
 * scan when no `includeIf.onbranch` names HEAD, a `git reset --soft` for the index copy).
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { GitctxError } from "../errors.js";
import type { RepositoryPaths } from "../git/discover.js";
import type { GitRunner } from "../git/run.js";
import { CACHE_NAMES, type CacheName } from "../tools/tool.js";
import type { ReadVersions, WatchChanges, Watcher, WatcherStatus, WatchEvent, WatchListener, WatchLocation } from "../watch/index.js";
import { EventFanout } from "../watch/fanout.js";
import type { FileChangedEvent } from "./events.js";
import type { SessionInstructionsCache } from "./instructions.js";
import type { SessionWatch, SessionWatchOptions } from "./watch-handle.js";

/** What one event makes stale: caches dropped whole, and instruction loads dropped (by file, or all of them). */
export interface Invalidation {
  caches: CacheName[];
  /** Absolute paths whose instruction loads are dropped and loaded again; `"all"` for every load. */
  instructions: string[] | "all";
}

/** Git events after which HEAD, the index or both may differ: the private index copy is made again. */
const INDEX_EVENTS = new Set<string>(["commit", "reset", "head_moved", "stash"]);
const OPERATION_EVENT = /^(merge|rebase|cherry_pick|revert|am|bisect)_(started|finished|aborted)$/;

/**
 * What an event makes stale, by kind:
 * - `config_changed`: the config scan and the user's config as judged for this repository;
 * - `branch_switched`, `detached`: both config readings (`includeIf.onbranch`), the index copy, every instruction
 *   load (another branch has other files);
 * - `commit`, `reset`, `head_moved`, `stash`, a merge, rebase, cherry-pick, revert, am or bisect started,
 *   finished or aborted: the index copy;
 * - `staged`, `unstaged`: the index copy, and the config scan when `.gitmodules` or a gitlink (a submodule's
 *   directory) is among the paths, or when the paths are only a sample;
 * - `instructions`, `rules` (and a `bulk` of them): the loads that read those files (all, for a bulk);
 * - the watcher's `root_changed`: everything.
 * Nothing else is cached: refs, remotes and the snapshot are read on every call. `isDirectory` tells a gitlink.
 */
export function invalidationFor(event: WatchEvent, root: string, isDirectory: (path: string) => boolean = directoryExists): Invalidation {
  const none: Invalidation = { caches: [], instructions: [] };
  if (event.category === "watcher") return event.kind === "root_changed" ? { caches: [...CACHE_NAMES], instructions: "all" } : none;
  if (event.category === "instructions" || event.category === "rules") {
    return { caches: [], instructions: event.kind === "bulk" ? "all" : event.paths.map((path) => absoluteOf(root, path)) };
  }
  if (event.category !== "git") return none;
  const kind = event.kind;
  // The user's config is judged for this repository too: `includeIf onbranch:` follows HEAD and
  // `hasconfig:remote.*.url:` reads the repository's remotes, so both changes stale it like the repository's own.
  if (kind === "config_changed") return { caches: ["configScan", "userConfig"], instructions: [] };
  if (kind === "branch_switched" || kind === "detached") return { caches: ["configScan", "userConfig", "privateIndex"], instructions: "all" };
  if (INDEX_EVENTS.has(kind) || OPERATION_EVENT.test(kind)) return { caches: ["privateIndex"], instructions: [] };
  if (kind === "staged" || kind === "unstaged") {
    const sampled = event.count > event.paths.length;
    const submodules = event.paths.some((path) => path === ".gitmodules" || path.endsWith("/.gitmodules") || isDirectory(absoluteOf(root, path)));
    return { caches: sampled || submodules ? ["privateIndex", "configScan"] : ["privateIndex"], instructions: [] };
  }
  return none;
}

function absoluteOf(root: string, path: string): string {
  if (isAbsolute(path)) return path;
  return path === "." ? root : join(root, path);
}

/** An index entry that is a directory in the work tree is a gitlink: files and symlinks are the only others. */
function directoryExists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** What the watching needs of its session, handed over as functions so the session keeps its runner to itself. */
export interface WatchingHost {
  paths(): Promise<RepositoryPaths>;
  /**
   * The checks a tool's call makes before its first git process (ownership, state files, the config scan): the
   * watcher reads the git directory and runs git there too. Rejects with `unsafe_repository` and the like.
   */
  check(): Promise<void>;
  readonly runner: GitRunner;
  readonly defaults: SessionWatchOptions;
  readonly instructions: SessionInstructionsCache;
  readonly reads: ReadVersions;
  invalidate(name: CacheName | "all"): Promise<void>;
  emit(event: FileChangedEvent): void;
}

export function watchLocation(paths: RepositoryPaths): WatchLocation {
  return { root: paths.root, topLevel: paths.topLevel, gitDir: paths.gitDir, commonDir: paths.commonDir };
}

export class SessionWatching {
  private watcher: Watcher | undefined;
  private starting: Promise<Watcher> | undefined;
  private readonly handles = new Set<WatchHandle>();
  /** The newest event whose invalidation is done: handles and `events()` see nothing later. */
  private processed = 0;
  private chain: Promise<void> = Promise.resolve();
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;
  private lastInstructionPaths = "";
  private moving: Promise<void> = Promise.resolve();
  /** Counts the watcher's stops: a start that began before the last stop installs nothing. */
  private generation = 0;
  private closed = false;

  constructor(private readonly host: WatchingHost) {}

  open(options: SessionWatchOptions): SessionWatch {
    if (this.closed) return new WatchHandle(this, Promise.reject(closedError()), false);
    const started = this.starting === undefined;
    if (this.starting === undefined) {
      const starting = this.start(options, this.generation);
      this.starting = starting;
      // A later watch() tries again (the caller may `git init` meanwhile).
      starting.catch(() => {
        if (this.starting === starting) this.starting = undefined;
      });
    }
    const handle = new WatchHandle(this, this.starting, started);
    this.handles.add(handle);
    return handle;
  }

  events(since = 0): WatchChanges {
    const watcher = this.watcher;
    const from = Number.isFinite(since) ? Math.max(0, Math.floor(since)) : 0;
    if (watcher === undefined) return { seq: 0, since: from, events: [], dropped: 0, degraded: null };
    const changes = watcher.events(from);
    const processed = this.processed;
    return { ...changes, seq: processed, events: changes.events.filter((event) => event.seq <= processed) };
  }

  status(): WatcherStatus | null {
    return this.watcher?.status() ?? null;
  }

  /** The session moved its root: the watcher follows (only what differs is watched anew). */
  followRoot(): Promise<void> {
    const starting = this.starting;
    if (starting === undefined) return Promise.resolve();
    const move = this.moving.then(async () => {
      const watcher = await starting.catch(() => undefined);
      if (watcher === undefined || watcher !== this.watcher) return;
      let paths: RepositoryPaths;
      try {
        paths = await this.host.paths();
      } catch {
        // The new root is not a repository gitctx may read: there is nothing to watch there; the old watch stays.
        return;
      }
      await watcher.setRoot(watchLocation(paths)).catch(() => undefined);
    });
    this.moving = move;
    return move;
  }

  /**
   * The session loaded instruction files: the watcher watches them (those outside the tree too). Resolves when
   * the watches are in place; never rejects (a file that cannot be watched is still checked by its signature).
   * A watcher still starting takes them once it is ready, without holding up the load that asked (a start on a
   * large tree takes seconds).
   */
  async syncInstructionPaths(): Promise<void> {
    const watcher = this.watcher;
    if (watcher === undefined) return;
    const files = this.host.instructions.files();
    const key = files.join("\0");
    if (key === this.lastInstructionPaths) return;
    this.lastInstructionPaths = key;
    const placed = watcher.setInstructionPaths(files).catch(() => undefined);
    if (watcher.status().state === "watching") await placed;
  }

  /** A handle was closed: the last one stops the watcher. */
  async release(handle: WatchHandle): Promise<void> {
    this.handles.delete(handle);
    if (this.handles.size > 0) return;
    await this.stop();
  }

  /** Stops the watcher and ends every handle. Resolves when no watch, timer or reload is left. */
  async close(): Promise<void> {
    this.closed = true;
    for (const handle of [...this.handles]) handle.end();
    this.handles.clear();
    await this.stop();
    await this.moving.catch(() => undefined);
  }

  private async start(options: SessionWatchOptions, generation: number): Promise<Watcher> {
    const paths = await this.host.paths();
    await this.host.check();
    if (this.closed) throw closedError();
    // Every handle was closed while the repository was looked for: nobody wants this watcher any more.
    if (generation !== this.generation) throw stoppedError();
    // The watcher (and chokidar) load when a session first watches: most sessions never do.
    const { createWatcher } = await import("../watch/watcher.js");
    const watcher = createWatcher({
      ...this.host.defaults,
      ...options,
      location: watchLocation(paths),
      instructionPaths: this.host.instructions.files(),
      runner: this.host.runner,
    });
    this.watcher = watcher;
    this.processed = 0;
    this.lastInstructionPaths = this.host.instructions.files().join("\0");
    // The root is read when the event is emitted: a later move must not change what its paths are relative to.
    watcher.on((event) => this.enqueue(watcher, event, watcher.status().location.root));
    try {
      await watcher.ready;
    } catch (error) {
      if (this.watcher === watcher) this.watcher = undefined;
      await watcher.close();
      throw error;
    }
    return watcher;
  }

  private async stop(): Promise<void> {
    this.generation++;
    const starting = this.starting;
    this.starting = undefined;
    // Closing a watcher that is still starting ends its start: `ready` settles and places no more watches.
    const watcher = this.watcher ?? (await starting?.catch(() => undefined));
    if (this.watcher === watcher) this.watcher = undefined;
    await watcher?.close();
    await this.chain;
    await this.reloading;
  }

  private enqueue(watcher: Watcher, event: WatchEvent, root: string): void {
    this.chain = this.chain.then(() => this.process(watcher, event, root)).catch(() => undefined);
  }

  private async process(watcher: Watcher, event: WatchEvent, root: string): Promise<void> {
    // An event of a watcher stopped since (its handles are gone; a new watcher numbers from 1 again).
    if (watcher !== this.watcher) return;
    const plan = invalidationFor(event, root);
    if (plan.caches.length === CACHE_NAMES.length) await this.host.invalidate("all");
    else for (const name of plan.caches) await this.host.invalidate(name);
    if (plan.instructions === "all") this.host.instructions.invalidate();
    else if (plan.instructions.length > 0) this.host.instructions.invalidate(plan.instructions);
    if (event.category !== "git" && event.category !== "watcher") {
      this.host.reads.noteEvent({ ...event, paths: event.paths.map((path) => absoluteOf(root, path)) });
    }
    if (watcher !== this.watcher) return;
    this.processed = event.seq;
    this.host.emit({ event, root, invalidated: [...plan.caches], instructions: plan.instructions });
    for (const handle of [...this.handles]) handle.deliver(event);
    if (plan.caches.includes("instructions")) void this.syncInstructionPaths();
    if (plan.instructions === "all" || plan.instructions.length > 0) this.reload();
  }

  /** Loads the session's recent instruction loads again (their `instructionsLoaded` follows); one at a time. */
  private reload(): void {
    if (this.reloading !== undefined) {
      this.reloadAgain = true;
      return;
    }
    this.reloading = (async () => {
      do {
        this.reloadAgain = false;
        await this.host.instructions.reload();
      } while (this.reloadAgain && !this.closed && this.watcher !== undefined);
    })()
      .catch(() => undefined)
      .finally(() => {
        this.reloading = undefined;
      });
  }
}

class WatchHandle implements SessionWatch {
  readonly ready: Promise<void>;
  private readonly fanout: EventFanout<WatchEvent>;

  constructor(
    private readonly owner: SessionWatching,
    starting: Promise<Watcher>,
    readonly started: boolean,
  ) {
    this.ready = starting.then(
      () => undefined,
      (error: unknown) => {
        this.end();
        void owner.release(this);
        throw error;
      },
    );
    // `ready` is the caller's to await; an unobserved rejection must not take the process down.
    this.ready.catch(() => undefined);
    // An iterator's first event waits for the start, and a failed start is its error.
    this.fanout = new EventFanout<WatchEvent>(this.ready);
  }

  get closed(): boolean {
    return this.fanout.isEnded;
  }

  on(listener: WatchListener): () => void {
    return this.fanout.on(listener);
  }

  events(since?: number): WatchChanges {
    return this.owner.events(since);
  }

  status(): WatcherStatus | null {
    return this.owner.status();
  }

  async close(): Promise<void> {
    if (this.fanout.isEnded) return;
    this.end();
    await this.owner.release(this);
  }

  deliver(event: WatchEvent): void {
    this.fanout.deliver(event);
  }

  /** No more events: listeners dropped, iterators end once they have handed out what they hold. */
  end(): void {
    this.fanout.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return this.fanout.iterator();
  }
}

function stoppedError(): GitctxError {
  return new GitctxError("session_closed", "Watching was stopped (every handle was closed) before it started.", "Call watch() again to watch.");
}

function closedError(): GitctxError {
  return new GitctxError(
    "session_closed",
    "This toolbox was closed; it watches nothing any more.",
    "Create a new toolbox (createToolbox) to watch again.",
  );
}

/** The real path of a directory, or the path itself when it cannot be resolved (gone, no permission). */
export function realDirectory(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
