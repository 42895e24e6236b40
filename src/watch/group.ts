/**
 * One chokidar instance and what the watcher needs to know of it: its mode (native or polling), how many watches
 * it holds, whether it still waits for writes to settle, and its errors as data. The work tree, a git directory
 * and the instruction files outside the tree are separate groups, so that each can be replaced (moved to
 * another root, or degraded to polling) without touching the others.
 */
import { existsSync, type Stats } from "node:fs";
import { FSWatcher } from "chokidar";

export type GroupMode = "native" | "polling";
export type GroupEvent = "add" | "change" | "unlink" | "addDir" | "unlinkDir";

export interface GroupSpec {
  /** What the group is, for messages: `work tree`, `git directory`, `instruction files`. */
  label: string;
  roots: string[];
  /** Called before any watch is placed; `true` leaves the path (and, for a directory, everything below) out. */
  ignored: (path: string, stats: Stats | undefined, group: WatchGroup) => boolean;
  /** Wait for writes to settle (the work tree); git writes its files whole, by rename. */
  awaitWriteFinish: { stabilityThreshold: number; pollInterval: number } | false;
  pollingIntervalMs: number;
  onEvent: (group: WatchGroup, event: GroupEvent, path: string, stats: Stats | undefined) => void;
  /** Every native notification, before chokidar's own handling: `name` changed in the watched directory `directory`. */
  onRaw?: (group: WatchGroup, name: string, directory: string) => void;
  onError: (group: WatchGroup, error: NodeJS.ErrnoException) => void;
}

/** Longest an `add` waits for chokidar to place its watches. */
const ADD_SETTLE_MS = 2_000;

export class WatchGroup {
  readonly fsw: FSWatcher;
  readonly ready: Promise<void>;
  closing = false;
  /** Set once a replacement by polling has been asked for, so it is asked for once. */
  degrading = false;
  /** Set when chokidar finished its first walk: what it finds from then on is new. */
  isReady = false;
  /**
   * Set for a group that replaces one whose walk was done (new ignore rules, polling): what its walk finds is
   * compared with what was known, so nothing created during it may be missed either.
   */
  replacesWalked = false;

  constructor(
    readonly spec: GroupSpec,
    readonly mode: GroupMode,
  ) {
    this.fsw = new FSWatcher({
      persistent: true,
      ignoreInitial: true,
      followSymlinks: false,
      // Editors that save by deleting and re-creating (or renaming over) a file: one `change`, not unlink + add.
      atomic: true,
      awaitWriteFinish: spec.awaitWriteFinish,
      usePolling: mode === "polling",
      interval: spec.pollingIntervalMs,
      binaryInterval: spec.pollingIntervalMs,
      ignored: (path: string, stats?: Stats) => spec.ignored(path, stats, this),
    });
    this.fsw.on("all", (event, path, stats) => {
      if (this.closing) return;
      spec.onEvent(this, event as GroupEvent, path, stats);
    });
    // An FSWatcher without an error listener would throw: every error is data for the watcher.
    this.fsw.on("error", (error) => {
      if (!this.closing) spec.onError(this, error as NodeJS.ErrnoException);
    });
    // Closing settles it too: whoever waits for a group that is closed before its walk ends is not left hanging.
    this.ready = new Promise<void>((resolve) => {
      this.settle = resolve;
      this.fsw.once("ready", () => {
        this.isReady = true;
        resolve();
      });
    });
    const onRaw = spec.onRaw;
    if (onRaw !== undefined && mode === "native") {
      this.fsw.on("raw", (_event, name, details) => {
        const directory = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
        if (!this.closing && typeof name === "string" && name !== "" && typeof directory === "string") onRaw(this, name, directory);
      });
    }
  }

  /**
   * Starts the walk. Apart from the constructor so that the owner can record the group first: chokidar asks
   * `ignored` about the roots before `add` returns, and the answer depends on which group is current.
   */
  start(): this {
    if (this.spec.roots.length > 0) this.fsw.add(this.spec.roots);
    else this.settle();
    return this;
  }

  private settle: () => void = () => undefined;

  /** Native watches (or stat pollers, in polling mode) in place: one per directory and per file. */
  get handles(): number {
    return this.fsw._closers.size;
  }

  /** Writes chokidar still waits to settle, and deletions it holds back to see whether a re-creation follows. */
  get unsettled(): number {
    return (this.fsw._pendingWrites?.size ?? 0) + (this.fsw._pendingUnlinks?.size ?? 0);
  }

  async add(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    this.spec.roots.push(...paths.filter((path) => !this.spec.roots.includes(path)));
    // chokidar emits `ready` once per instance; a later add places its watches after a stat of its own and does
    // not announce it. The paths given here are single files (instruction files): wait, briefly, until each one
    // that exists has its watch, so that a write made once this resolves is seen.
    this.fsw.add(paths);
    const deadline = Date.now() + ADD_SETTLE_MS;
    const unwatched = (): boolean => paths.some((path) => !this.closing && !this.fsw._closers.has(path) && existsSync(path));
    while (unwatched() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  unwatch(paths: string[]): void {
    if (paths.length === 0) return;
    this.spec.roots = this.spec.roots.filter((path) => !paths.includes(path));
    this.fsw.unwatch(paths);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.settle();
    await this.fsw.close();
  }
}
