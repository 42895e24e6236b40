/**
 * The watcher: what changed under an agent's feet, as few classified events as describe it.
 *
 * Three kinds of watch groups (see group.ts): the work tree (chokidar, `awaitWriteFinish` 500/100 ms, ignored
 * directories filtered before any watch is placed), each git directory (the worktree's own and the common one;
 * no write settling, git writes by rename), and the instruction files the tree does not cover (outside it, or in
 * an ignored directory). File notifications are collected per path into a burst and flushed as events once
 * nothing is settling any more; git notifications only say "read the git directory again": the events come from
 * comparing what its files say now with what they said before (git-state.ts).
 *
 * Timing (documented in the README): a file event is emitted `stabilityThreshold` (500 ms) after the last write
 * to the file (at `file` granularity chokidar checks every `pollInterval`, so up to 100 ms more), plus
 * `debounceMs` (10 ms) during which more notifications join the same burst. A burst is held back while chokidar still waits for any
 * of its files to settle, while git holds `index.lock`, and for `gitSettleMs` after the git directory last
 * changed, so a checkout's files come out as one event after the git event that caused them.
 */
import type { Stats } from "node:fs";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { gitRelative } from "../git/discover.js";
import { runChecked } from "../git/failures.js";
import { readRegularFileSync } from "../git/read-file.js";
import { GitRunner, type GitLocation } from "../git/run.js";
import { classifyPath } from "./classify.js";
import { ChangeBatch, fileEvents, type FileChangeKind, type UnnumberedEvent } from "./coalesce.js";
import { diffGitStates, GitStateReader, type GitState, type IndexChange } from "./git-state.js";
import { WatchGroup, type GroupEvent, type GroupSpec } from "./group.js";
import { EventFanout } from "./fanout.js";
import { NewDirectories } from "./new-directories.js";
import { Settler } from "./settle.js";
import {
  absoluteDirectory,
  DEFAULT_WORKTREES_DIR,
  gitDirIgnorePredicate,
  gitIgnoredDirectories,
  treeIgnorePredicate,
  type IgnoredDirectories,
} from "./ignored.js";
import { EventRing } from "./ring.js";
import type { DegradedState, WatchChanges, WatchEvent, WatchEventKind, WatcherStatus, WatchLocation } from "./types.js";
import { formatCount } from "../text.js";

export interface WatcherOptions {
  location: WatchLocation;
  /** Every file the instruction loader used (imports included); absolute or relative to the root. */
  instructionPaths?: Iterable<string>;
  /** The directories to leave out besides `.git`, `node_modules` and the worktrees directory. Default: asked of git. */
  ignoredDirectories?: IgnoredDirectories;
  /** The runner for the default `ignoredDirectories` and for telling staged from unstaged. Default: a new one. */
  runner?: GitRunner;
  /** Relative to the top level. Default `.claude/worktrees`. */
  worktreesDir?: string;
  /**
   * `directory` (default): one native watch per directory of the work tree; a file's changes are seen through its
   * directory's watch and reported once settled by the same rule as chokidar's `awaitWriteFinish`. `file`:
   * chokidar's own watch on every file and directory, and its `awaitWriteFinish` (a watch per file: about 15
   * times as many on a typical tree).
   */
  granularity?: "directory" | "file";
  /** Most native watches (files and directories) before falling back to polling. Default: half the system's inotify limit on Linux, else 8,192. */
  maxWatches?: number;
  /** chokidar's `awaitWriteFinish`: a file must keep its size this long before its event. Default 500 ms. */
  stabilityThreshold?: number;
  /** How often chokidar checks a settling file. Default 100 ms. */
  pollInterval?: number;
  /** Quiet time that ends a burst once nothing is settling. Default 10 ms. */
  debounceMs?: number;
  /** Quiet time after the git directory last changed before a burst of files is flushed. Default 150 ms. */
  gitSettleMs?: number;
  /** More files than this of one category in one burst make one `bulk` event. Default 20. */
  bulkThreshold?: number;
  /** Paths named by a `bulk` event. Default 20. */
  sampleSize?: number;
  /** Events kept for `events(since)`. Default 1,000. */
  ringSize?: number;
  /** Stat interval once degraded to polling. Default 1,000 ms. */
  pollingIntervalMs?: number;
}

export type WatchListener = (event: WatchEvent) => void;

export interface Watcher extends AsyncIterable<WatchEvent> {
  /** Settles when every watch is in place and the git state is read; rejects only for a location that is not there. */
  readonly ready: Promise<void>;
  /** Calls `listener` for every event from now on; returns the function that stops it. */
  on(listener: WatchListener): () => void;
  /** The events after `since` (default 0: all still held), how many of them the ring dropped, and the newest seq. */
  events(since?: number): WatchChanges;
  status(): WatcherStatus;
  /** Moves the watch to another root (a worktree, or back); only watches that differ are replaced. */
  setRoot(location: WatchLocation): Promise<void>;
  /** Adds instruction files (a new `CLAUDE.md`, an import): their changes become `instructions` events. */
  addPaths(paths: Iterable<string>): Promise<void>;
  /** Replaces the whole set of instruction files (after the loader reloaded them). */
  setInstructionPaths(paths: Iterable<string>): Promise<void>;
  /** Stops every watch and timer; pending iterators end. Safe to call more than once. */
  close(): Promise<void>;
}

const DEFAULTS = {
  stabilityThreshold: 500,
  pollInterval: 100,
  debounceMs: 10,
  gitSettleMs: 150,
  bulkThreshold: 20,
  sampleSize: 20,
  ringSize: 1000,
  pollingIntervalMs: 1000,
};
/** A lock older than this is stale (a git that crashed): the watcher stops waiting for it. */
const STALE_LOCK_MS = 10_000;
/**
 * A burst of files is attributed to a git event emitted after its first write (or at most this long before it):
 * git writes the files before it lets go of the index, so its event comes after the files started changing.
 */
const CAUSE_SLACK_MS = 250;
const RECHECK_MS = 50;
const IGNORE_REFRESH_MS = 500;
const IGNORE_RECHECK_MS = 10_000;
const EDITOR_TEMPORARY = /\..*\.(sw[px])$|~$|\.subl.*\.tmp/;
/** Paths given to one `git diff-index` when telling staged from unstaged; beyond that, "staged". */
const STAGE_CHECK_LIMIT = 500;
/** Git events after which the work tree's files may have changed in bulk: the files' event names them as its cause. */
const TREE_CHANGING = new Set<WatchEventKind>([
  "branch_switched",
  "detached",
  "reset",
  "stash",
  "merge_started",
  "merge_finished",
  "merge_aborted",
  "rebase_started",
  "rebase_finished",
  "rebase_aborted",
  "cherry_pick_started",
  "cherry_pick_finished",
  "cherry_pick_aborted",
  "revert_started",
  "revert_finished",
  "revert_aborted",
  "am_started",
  "am_finished",
  "am_aborted",
  "bisect_started",
  "bisect_finished",
  "head_moved",
]);

/** Half the per-user inotify watch limit (the rest stays for the user's editor and tools); 8,192 elsewhere. */
export function defaultMaxWatches(): number {
  try {
    const limit = Number(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8").trim());
    if (Number.isInteger(limit) && limit > 0) return Math.max(1024, Math.floor(limit / 2));
  } catch {
    // Not Linux: kqueue and ReadDirectoryChangesW have other limits; a moderate cap then polling is safe.
  }
  return 8192;
}

/** The common directory of a git directory: `commondir` (relative to it) for a linked worktree, itself otherwise. */
export function commonDirOf(gitDir: string): string {
  try {
    // Never a plain read: a FIFO planted there would block the host, a sparse file of gigabytes crash it.
    const pointer = (readRegularFileSync(join(gitDir, "commondir"), 64 * 1024)?.toString("utf8") ?? "").trim();
    // As git resolves it (see gitRelative): appended, then real, each symlink followed before the `..` after it.
    if (pointer !== "") return realpathSync.native(gitRelative(gitDir, pointer));
  } catch {
    // No commondir: the git directory is its own common directory.
  }
  return gitDir;
}

function completeLocation(location: WatchLocation): Required<WatchLocation> {
  for (const field of ["root", "topLevel", "gitDir"] as const) {
    const value = location[field];
    if (typeof value !== "string" || !isAbsolute(value)) {
      throw new GitctxError(
        "invalid_input",
        `The watch location's ${field} must be an absolute path, got ${JSON.stringify(value)}.`,
        "Pass the session's repository paths (root, topLevel, gitDir, commonDir).",
      );
    }
  }
  return { root: location.root, topLevel: location.topLevel, gitDir: location.gitDir, commonDir: location.commonDir ?? commonDirOf(location.gitDir) };
}

function checkDirectory(path: string, field: string): void {
  let info;
  try {
    info = statSync(path);
  } catch {
    throw new GitctxError(
      "path_not_found",
      `The watch location's ${field} ${path} does not exist.`,
      "Pass the paths of an existing repository; after a worktree is removed, move the watch first (setRoot).",
    );
  }
  if (!info.isDirectory()) throw new GitctxError("invalid_input", `The watch location's ${field} ${path} is not a directory.`);
}

/** What was known of the work tree before its watches were rebuilt, and what the rules then left out. */
interface KnownTree {
  files: ReadonlyMap<string, FileInfo>;
  leftOut: (path: string) => boolean;
}

const toPosix = (path: string): string => (sep === "/" ? path : path.split(sep).join("/"));
/** chokidar keys its watches by the platform's own separators. */
const fromPosix = (path: string): string => (sep === "/" ? path : path.split("/").join(sep));

function isInsideDir(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

/** What is known of a file seen through its directory. The ctime catches a write whose mtime was put back. */
interface FileInfo {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

function infoOf(stats: Stats): FileInfo {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

export function createWatcher(options: WatcherOptions): Watcher {
  return new FileWatcher(options);
}

class FileWatcher implements Watcher {
  readonly ready: Promise<void>;
  private location: Required<WatchLocation>;
  private readonly settings: typeof DEFAULTS & { maxWatches: number; worktreesDir: string; granularity: "directory" | "file" };
  private readonly runner: GitRunner;
  private readonly ignoredDirectoriesOf: IgnoredDirectories;
  private readonly ring: EventRing;
  private seq = 0;
  private state: "starting" | "watching" | "closed" = "starting";
  private readonly fanout = new EventFanout<WatchEvent>();
  private readonly warnings: string[] = [];

  private tree: WatchGroup | undefined;
  private extra: WatchGroup | undefined;
  private readonly gitGroups = new Map<string, WatchGroup>();
  private ignoredSet = new Set<string>();
  private ignoredList: string[] = [];
  private treeIgnored: (path: string) => boolean = () => false;
  private readonly instructionPaths = new Set<string>();
  /** Directories of the work tree admitted (each has a watch), and what is known of its files, by directory. */
  private readonly dirs = new Set<string>();
  private readonly files = new Map<string, FileInfo>();
  private readonly children = new Map<string, Set<string>>();
  /** Files seen through their directory's watch, until their writes settle. */
  private readonly settler: Settler;
  /** Directories created since the walk, until they are listed again behind their own watch. */
  private readonly newDirectories: NewDirectories;
  private degradedState: DegradedState | null = null;

  private readonly batch = new ChangeBatch();
  private flushTimer: NodeJS.Timeout | undefined;
  private lastFileEvent = 0;

  private reader: GitStateReader | undefined;
  private gitState: GitState | undefined;
  private gitTimer: NodeJS.Timeout | undefined;
  private gitRunning: Promise<void> | undefined;
  private gitDirty = false;
  private lastGitActivity = 0;
  private indexLockedAt: number | undefined;
  private lastGitEvent: { seq: number; kind: WatchEventKind; at: number } | undefined;
  private ignoreRefreshTimer: NodeJS.Timeout | undefined;
  private lastIgnoreRefresh = 0;
  private serial: Promise<void> = Promise.resolve();
  private closePromise: Promise<void> | undefined;

  constructor(options: WatcherOptions) {
    this.location = completeLocation(options.location);
    const pick = <K extends keyof typeof DEFAULTS>(key: K): number => {
      const value = options[key] ?? DEFAULTS[key];
      if (!(typeof value === "number" && value >= 0 && Number.isFinite(value)))
        throw new GitctxError("invalid_input", `${key} must be a non-negative number, got ${String(value)}.`);
      return value;
    };
    this.settings = {
      stabilityThreshold: pick("stabilityThreshold"),
      pollInterval: Math.max(1, pick("pollInterval")),
      debounceMs: pick("debounceMs"),
      gitSettleMs: pick("gitSettleMs"),
      bulkThreshold: pick("bulkThreshold"),
      sampleSize: Math.max(1, pick("sampleSize")),
      ringSize: Math.max(1, pick("ringSize")),
      pollingIntervalMs: Math.max(10, pick("pollingIntervalMs")),
      maxWatches: options.maxWatches ?? defaultMaxWatches(),
      worktreesDir: options.worktreesDir ?? DEFAULT_WORKTREES_DIR,
      granularity: options.granularity ?? "directory",
    };
    if (this.settings.granularity !== "directory" && this.settings.granularity !== "file") {
      throw new GitctxError("invalid_input", `granularity must be "directory" or "file", got ${JSON.stringify(options.granularity)}.`);
    }
    this.settler = new Settler(this.settings.stabilityThreshold, this.settings.pollInterval, (path, stats) => this.onSettled(path, stats));
    this.newDirectories = new NewDirectories({
      isWatched: (directory) => this.tree?.fsw._closers.has(fromPosix(directory)) ?? false,
      // Handed to chokidar as its own walk hands what it finds after the start: reported as new (`_internal`).
      onMissed: (paths) => {
        if (this.tree !== undefined && !this.tree.closing) this.tree.fsw.add(paths, undefined, true);
      },
      leaveOut: (path) => EDITOR_TEMPORARY.test(path.slice(path.lastIndexOf("/") + 1)) || this.underIgnored(path),
    });
    if (!(Number.isInteger(this.settings.maxWatches) && this.settings.maxWatches > 0)) {
      throw new GitctxError("invalid_input", `maxWatches must be a positive integer, got ${String(options.maxWatches)}.`);
    }
    this.runner = options.runner ?? new GitRunner();
    this.ignoredDirectoriesOf = options.ignoredDirectories ?? gitIgnoredDirectories(this.runner);
    this.ring = new EventRing(this.settings.ringSize);
    for (const path of options.instructionPaths ?? []) this.instructionPaths.add(this.absolute(path));
    this.ready = this.run(() => this.start());
    // `ready` is the caller's to await; an unobserved rejection must not take the process down.
    this.ready.catch(() => undefined);
  }

  // ---- public API ----

  on(listener: WatchListener): () => void {
    return this.fanout.on(listener);
  }

  events(since = 0): WatchChanges {
    const from = Number.isFinite(since) ? Math.max(0, Math.floor(since)) : 0;
    const { events, dropped } = this.ring.since(from, this.seq);
    return { seq: this.seq, since: from, events, dropped, degraded: this.degradedState };
  }

  status(): WatcherStatus {
    let watches = 0;
    let polled = 0;
    for (const group of this.groups()) {
      if (group.mode === "native") watches += group.handles;
      else polled += group.handles;
    }
    return {
      state: this.state,
      location: { ...this.location },
      watches,
      polled,
      maxWatches: this.settings.maxWatches,
      degraded: this.degradedState,
      ignoredDirectories: [...this.ignoredList],
      instructionPaths: [...this.instructionPaths].sort(),
      seq: this.seq,
      warnings: [...this.warnings],
    };
  }

  setRoot(location: WatchLocation): Promise<void> {
    const next = completeLocation(location);
    return this.run(() => this.moveTo(next));
  }

  addPaths(paths: Iterable<string>): Promise<void> {
    const added = [...paths].map((path) => this.absolute(path)).filter((path) => !this.instructionPaths.has(path));
    for (const path of added) this.instructionPaths.add(path);
    return this.run(() => this.syncExtra());
  }

  setInstructionPaths(paths: Iterable<string>): Promise<void> {
    this.instructionPaths.clear();
    for (const path of paths) this.instructionPaths.add(this.absolute(path));
    return this.run(() => this.syncExtra());
  }

  close(): Promise<void> {
    this.closePromise ??= (async () => {
      this.state = "closed";
      for (const timer of [this.flushTimer, this.gitTimer, this.ignoreRefreshTimer]) if (timer !== undefined) clearTimeout(timer);
      this.settler.close();
      this.newDirectories.close();
      await Promise.allSettled([...this.groups()].map((group) => group.close()));
      // A degradation under way closes the group it replaces once its replacement (closed above) settles.
      await this.settleReplacements();
      this.gitGroups.clear();
      this.tree = undefined;
      this.extra = undefined;
      await this.gitRunning?.catch(() => undefined);
      this.fanout.end();
    })();
    return this.closePromise;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return this.fanout.iterator();
  }

  // ---- start, move, close ----

  /** Root changes, path updates and the start run one after another: each sees the state the previous left. */
  private run(task: () => Promise<void>): Promise<void> {
    const result = this.serial.then(() => (this.state === "closed" ? undefined : task()));
    this.serial = result.catch(() => undefined);
    return result;
  }

  private async start(): Promise<void> {
    checkDirectory(this.location.topLevel, "topLevel");
    checkDirectory(this.location.gitDir, "gitDir");
    await this.loadIgnored();
    this.reader = new GitStateReader({ gitDir: this.location.gitDir, commonDir: this.location.commonDir });
    this.gitState = await this.reader.read();
    // Closed while reading: place no watch at all.
    if (this.isClosed) return;
    this.syncGitGroups();
    this.installTree("native");
    this.extra = new WatchGroup(this.extraSpec(this.extraRoots()), "native").start();
    await Promise.all([...this.groups()].map((group) => group.ready));
    // A degradation asked for during the walk (the cap reached) replaces the group; wait for the replacement.
    await this.settleReplacements();
    if (!this.isClosed) this.state = "watching";
  }

  /** A getter, so that a check after an `await` is not narrowed away by one before it. */
  private get isClosed(): boolean {
    return this.state === "closed";
  }

  private async moveTo(next: Required<WatchLocation>): Promise<void> {
    checkDirectory(next.topLevel, "topLevel");
    checkDirectory(next.gitDir, "gitDir");
    // Whatever the old root saw is told in the old root's terms before the paths change meaning.
    this.flushNow();
    const previous = this.location;
    this.location = next;
    const replaced: WatchGroup[] = [];
    if (next.gitDir !== previous.gitDir || next.commonDir !== previous.commonDir) {
      const reader = new GitStateReader({ gitDir: next.gitDir, commonDir: next.commonDir });
      const state = await reader.read();
      this.reader = reader;
      this.gitState = state;
    }
    if (next.topLevel !== previous.topLevel) await this.loadIgnored();
    if (this.state === "closed") return;
    if (next.topLevel !== previous.topLevel) {
      const old = this.tree;
      this.forgetTree();
      // What was settling belongs to the old tree; the new one starts from what it finds.
      this.settler.clear();
      this.installTree("native");
      if (old !== undefined) replaced.push(old);
    }
    if (next.gitDir !== previous.gitDir || next.commonDir !== previous.commonDir) replaced.push(...this.syncGitGroups());
    await this.syncExtra();
    await Promise.all([...this.groups()].map((group) => group.ready));
    await Promise.allSettled(replaced.map((group) => group.close()));
    await this.settleReplacements();
    if (![...this.groups()].some((group) => group.mode === "polling")) this.degradedState = null;
    this.emit({
      category: "watcher",
      kind: "root_changed",
      paths: [],
      count: 0,
      summary: `watching ${next.root} now (was ${previous.root})${next.topLevel !== previous.topLevel ? `; work tree ${next.topLevel}` : ""}`,
    });
  }

  private *groups(): Generator<WatchGroup> {
    if (this.tree !== undefined) yield this.tree;
    if (this.extra !== undefined) yield this.extra;
    yield* this.gitGroups.values();
  }

  private async settleReplacements(): Promise<void> {
    for (let round = 0; round < 5 && this.replacing.size > 0; round++) await Promise.allSettled([...this.replacing]);
  }

  // ---- ignored directories ----

  private async loadIgnored(): Promise<void> {
    let listed: string[] = [];
    try {
      listed = await this.ignoredDirectoriesOf(this.location);
    } catch (error) {
      this.warn(
        `the ignored directories could not be listed (${error instanceof Error ? error.message : String(error)}); only .git, node_modules and the worktrees directory are left out`,
      );
    }
    const topLevel = this.location.topLevel;
    this.ignoredSet = new Set(listed.map((path) => toPosix(absoluteDirectory(topLevel, path))));
    this.ignoredList = [...this.ignoredSet].map((path) => toPosix(relative(topLevel, path))).sort();
    this.treeIgnored = treeIgnorePredicate(toPosix(topLevel), this.settings.worktreesDir, this.ignoredSet);
  }

  /**
   * Asks git for the ignored directories again: soon after a `.gitignore` or `info/exclude` change, and at most
   * every `IGNORE_RECHECK_MS` for new directories (a build that keeps making them must not keep git busy). A
   * different list rebuilds the tree's watches.
   */
  private scheduleIgnoreRefresh(reason: "rules" | "directory"): void {
    if (this.state === "closed") return;
    if (this.ignoreRefreshTimer !== undefined) {
      // New rules do not wait behind a rate-limited check for new directories.
      if (reason === "directory") return;
      clearTimeout(this.ignoreRefreshTimer);
    }
    const delay = reason === "rules" ? IGNORE_REFRESH_MS : Math.max(IGNORE_REFRESH_MS, this.lastIgnoreRefresh + IGNORE_RECHECK_MS - Date.now());
    this.ignoreRefreshTimer = setTimeout(() => {
      this.ignoreRefreshTimer = undefined;
      this.lastIgnoreRefresh = Date.now();
      void this.run(async () => {
        const before = [...this.ignoredSet].sort().join("\0");
        const previousRules = this.treeIgnored;
        await this.loadIgnored();
        if ([...this.ignoredSet].sort().join("\0") === before || this.tree === undefined || this.state === "closed") return;
        const old = this.tree;
        const known = this.knownTree(previousRules);
        this.forgetTree();
        await this.installTree(old.mode, true).ready;
        await old.close();
        this.noteChangesDuringRebuild(known);
        await this.syncExtra();
      });
    }, delay);
  }

  /** What is known of the tree before its watches are rebuilt, and which paths `rules` (the rules then) left out. */
  private knownTree(rules: (path: string) => boolean): KnownTree {
    return { files: new Map(this.files), leftOut: (path) => this.underIgnored(path, rules) };
  }

  /**
   * The new tree's walk took every file as it found it, and the old tree's events stopped counting when the new
   * one became current: a file written, created or deleted while the watches were rebuilt would go unreported.
   * So what the walk found is compared with what was known before it: a file that differs, is new (outside what
   * the old rules left out: one in a directory no longer ignored was there all along), or is gone (outside what is
   * ignored now) is settled and reported as usual.
   */
  private noteChangesDuringRebuild(known: KnownTree): void {
    const now = Date.now();
    const changed = new Set<string>();
    for (const [path, info] of this.files) {
      const was = known.files.get(path);
      if (was !== undefined) {
        if (was.ino === info.ino && was.size === info.size && was.mtimeMs === info.mtimeMs && was.ctimeMs === info.ctimeMs) continue;
        // Known as it was, so that settling it reports a change.
        this.files.set(path, was);
      } else if (!known.leftOut(path)) {
        this.forget(path);
      } else {
        continue;
      }
      changed.add(path);
    }
    for (const [path, was] of known.files) {
      if (this.files.has(path) || changed.has(path) || this.underIgnored(path)) continue;
      this.keep(path, was);
      changed.add(path);
    }
    for (const path of changed) this.settler.note(path, now);
    if (changed.size > 0) this.touchFlush(now);
  }

  /** Whether a path of the work tree lies in a directory left out (checked for events too: a list can grow). */
  private underIgnored(path: string, rules = this.treeIgnored): boolean {
    const topLevel = toPosix(this.location.topLevel);
    let current = path;
    while (current.length > topLevel.length) {
      if (rules(current)) return true;
      const slash = current.lastIndexOf("/");
      if (slash <= 0) break;
      current = current.slice(0, slash);
    }
    return false;
  }

  // ---- groups ----

  /** A new group for the work tree, current before its walk starts (its `ignored` answers only for the current one). */
  private installTree(mode: "native" | "polling", replacesWalked = false): WatchGroup {
    const group = new WatchGroup(this.treeSpec(), mode);
    group.replacesWalked = replacesWalked;
    this.tree = group;
    return group.start();
  }

  private forgetTree(): void {
    this.dirs.clear();
    this.files.clear();
    this.children.clear();
    this.newDirectories.clear();
  }

  /**
   * The work tree's group. Directories always get a watch (counted against the cap); files get one only at
   * `file` granularity or when polling. At `directory` granularity a file is only remembered (inode, size, time):
   * its directory's watch reports it, and what the walk finds after the start is new.
   */
  private treeSpec(): GroupSpec {
    const topLevel = toPosix(this.location.topLevel);
    const isIgnored = this.treeIgnored;
    const perDirectory = this.settings.granularity === "directory";
    return {
      label: "work tree",
      roots: [topLevel],
      ignored: (path, stats, group) => {
        // A group being replaced (moved root, degraded) stops walking: what it would find is the new one's.
        if (group !== this.tree) return true;
        const watchingForNew = group.isReady || group.replacesWalked;
        if (stats !== undefined && watchingForNew) this.newDirectories.passed(path);
        if (path !== topLevel && isIgnored(path)) return true;
        if (stats === undefined) return false;
        const native = group.mode !== "polling";
        if (stats.isDirectory()) {
          if (this.dirs.has(path)) return false;
          if (native && this.nativeAdmitted() >= this.settings.maxWatches) {
            this.degrade(group, "watch_limit");
            return true;
          }
          this.dirs.add(path);
          if (watchingForNew) this.newDirectories.add(path, Date.now());
          return false;
        }
        const known = this.files.has(path);
        if (native && perDirectory) {
          if (!known && group.isReady) this.settler.note(path, Date.now());
          else if (!known) this.remember(path, stats);
          return true;
        }
        if (!known) {
          if (native && this.nativeAdmitted() >= this.settings.maxWatches) {
            this.degrade(group, "watch_limit");
            return true;
          }
          if (!group.isReady) this.remember(path, stats);
        }
        return false;
      },
      awaitWriteFinish: { stabilityThreshold: this.settings.stabilityThreshold, pollInterval: this.settings.pollInterval },
      pollingIntervalMs: this.settings.pollingIntervalMs,
      onEvent: (group, event, path, stats) => this.onFileEvent(group, event, path, stats),
      onRaw: perDirectory ? (group, name, directory) => this.onRaw(group, name, directory) : undefined,
      onError: (group, error) => this.onGroupError(group, error),
    };
  }

  private remember(path: string, stats: Stats): void {
    this.keep(path, infoOf(stats));
  }

  private keep(path: string, info: FileInfo): void {
    this.files.set(path, info);
    const parent = path.slice(0, path.lastIndexOf("/"));
    let siblings = this.children.get(parent);
    if (siblings === undefined) this.children.set(parent, (siblings = new Set()));
    siblings.add(path);
  }

  private forget(path: string): void {
    this.files.delete(path);
    this.children.get(path.slice(0, path.lastIndexOf("/")))?.delete(path);
  }

  /** The instruction files the work tree's group does not see: outside the tree, or in a directory it leaves out. */
  private extraRoots(): string[] {
    const topLevel = toPosix(this.location.topLevel);
    return [...this.instructionPaths].filter((path) => !isInsideDir(topLevel, path) || this.underIgnored(path)).sort();
  }

  private async syncExtra(): Promise<void> {
    const extra = this.extra;
    if (extra === undefined) return;
    const wanted = this.extraRoots();
    const removed = extra.spec.roots.filter((path) => !wanted.includes(path));
    const added = wanted.filter((path) => !extra.spec.roots.includes(path));
    extra.unwatch(removed);
    await extra.add(added);
  }

  /** Instruction files outside the tree (or in a directory it leaves out): a few files, each watched by chokidar. */
  private extraSpec(roots: string[]): GroupSpec {
    return {
      label: "instruction files",
      roots,
      ignored: () => false,
      awaitWriteFinish: { stabilityThreshold: this.settings.stabilityThreshold, pollInterval: this.settings.pollInterval },
      pollingIntervalMs: this.settings.pollingIntervalMs,
      onEvent: (group, event, path, stats) => this.onFileEvent(group, event, path, stats),
      onError: (group, error) => this.onGroupError(group, error),
    };
  }

  /** Watches admitted so far by the native groups, the git directories' and the instruction files' included. */
  private nativeAdmitted(): number {
    let others = 0;
    for (const group of this.gitGroups.values()) if (group.mode === "native") others += group.handles;
    if (this.extra?.mode === "native") others += this.extra.handles;
    if (this.tree?.mode === "polling") return others;
    return this.dirs.size + (this.settings.granularity === "file" ? this.files.size : 0) + others;
  }

  /** The git directories' groups for the current location; returns the groups no longer needed (to close). */
  private syncGitGroups(): WatchGroup[] {
    const wanted = new Map<string, "local" | "common">([[toPosix(this.location.commonDir), "common"]]);
    if (this.location.gitDir !== this.location.commonDir) wanted.set(toPosix(this.location.gitDir), "local");
    const removed: WatchGroup[] = [];
    for (const [key, group] of this.gitGroups) {
      const [dir, role] = key.split("\0") as [string, "local" | "common"];
      if (wanted.get(dir) !== role) {
        removed.push(group);
        this.gitGroups.delete(key);
      }
    }
    for (const [dir, role] of wanted) {
      const key = `${dir}\0${role}`;
      if (!this.gitGroups.has(key)) this.gitGroups.set(key, new WatchGroup(this.gitSpec(dir, role), "native").start());
    }
    return removed;
  }

  private gitSpec(dir: string, role: "local" | "common"): GroupSpec {
    const leaveOut = gitDirIgnorePredicate(dir, role);
    return {
      label: role === "local" ? "git directory" : "common git directory",
      roots: [dir],
      ignored: (path, _stats, group) => group.closing || leaveOut(path),
      awaitWriteFinish: false,
      pollingIntervalMs: this.settings.pollingIntervalMs,
      onEvent: (_group, event, path) => this.onGitEvent(event, path),
      onError: (group, error) => this.onGroupError(group, error),
    };
  }

  // ---- degrading ----

  private readonly replacing = new Set<Promise<void>>();
  private readonly reportedErrors = new Set<string>();

  private onGroupError(group: WatchGroup, error: NodeJS.ErrnoException): void {
    if (error.code === "ENOSPC" || error.code === "EMFILE") {
      this.degrade(group, error.code);
      return;
    }
    this.warn(`${group.spec.label}: ${error.code ?? "error"} ${error.message}`);
    // One event per kind of error and group: an unreadable directory is re-read on every change near it.
    const key = `${group.spec.label}\0${error.code ?? error.message}`;
    if (this.reportedErrors.has(key)) return;
    this.reportedErrors.add(key);
    this.emit({
      category: "watcher",
      kind: "error",
      paths: [],
      count: 0,
      summary: `the watcher of the ${group.spec.label} reported ${error.code ?? "an error"} and goes on: ${error.message}`,
    });
  }

  /** Replaces a native group by a polling one (asked once per group); the event says so. Never throws. */
  private degrade(group: WatchGroup, reason: DegradedState["reason"]): void {
    if (group.mode === "polling" || group.degrading || group.closing || this.state === "closed") return;
    group.degrading = true;
    const watches = this.nativeAdmitted();
    const task = (async () => {
      const replacement = new WatchGroup({ ...group.spec, roots: [...group.spec.roots] }, "polling");
      // A tree replaced after its first walk: what changes while the polling walk runs is found by comparison,
      // as when the ignore rules change (a file created in the directory that reached the cap, above all).
      const known = this.tree === group && group.isReady ? this.knownTree(this.treeIgnored) : undefined;
      if (this.tree === group) {
        if (known !== undefined) this.forgetTree();
        replacement.replacesWalked = known !== undefined;
        this.tree = replacement;
      } else if (this.extra === group) this.extra = replacement;
      else for (const [key, value] of this.gitGroups) if (value === group) this.gitGroups.set(key, replacement);
      replacement.start();
      await replacement.ready;
      await group.close();
      if (this.state === "closed") return;
      if (known !== undefined && this.tree === replacement) this.noteChangesDuringRebuild(known);
      const intervalMs = this.settings.pollingIntervalMs;
      const why =
        reason === "watch_limit"
          ? `the watch cap (${formatCount(this.settings.maxWatches)} watches) was reached`
          : reason === "ENOSPC"
            ? "the system's limit on file watches (inotify max_user_watches) was reached"
            : "the process ran out of file descriptors (EMFILE)";
      this.degradedState = {
        reason,
        mode: "polling",
        intervalMs,
        since: new Date().toISOString(),
        watches,
        maxWatches: this.settings.maxWatches,
        message: `Watching the ${group.spec.label} by polling every ${intervalMs} ms: ${why}. Changes still arrive, up to ${intervalMs} ms later.`,
        hint:
          reason === "ENOSPC"
            ? "Raise the limit (sudo sysctl fs.inotify.max_user_watches=524288), or have the repository ignore large generated directories."
            : reason === "EMFILE"
              ? "Raise the open-file limit (ulimit -n), or have the repository ignore large generated directories."
              : "Raise maxWatches, or have the repository ignore large generated directories.",
      };
      this.emit({ category: "watcher", kind: "degraded", paths: [], count: 0, summary: this.degradedState.message });
    })().catch((error: unknown) => this.warn(`degrading the ${group.spec.label} failed: ${error instanceof Error ? error.message : String(error)}`));
    this.replacing.add(task);
    void task.finally(() => this.replacing.delete(task));
  }

  // ---- file events ----

  private onFileEvent(group: WatchGroup, event: GroupEvent, path: string, stats: Stats | undefined): void {
    if (group !== this.tree && group !== this.extra) return;
    if (event === "addDir" || event === "unlinkDir") {
      if (group !== this.tree) return;
      if (event === "unlinkDir") {
        this.dirs.delete(path);
        // Moved away whole, a directory's files send no notification of their own: each is checked, and the
        // ones that are gone are reported as deleted (chokidar reports each nested directory in turn).
        const now = Date.now();
        for (const file of this.children.get(path) ?? []) this.settler.note(file, now);
        this.touchFlush(now);
      }
      // A new directory may be one the repository ignores (a build's output): ask git again, soon.
      if (event === "addDir") this.scheduleIgnoreRefresh("directory");
      return;
    }
    if (group === this.tree && this.underIgnored(path)) return;
    if (group === this.extra && !this.instructionPaths.has(path)) return;
    if (group === this.tree) {
      if (event === "unlink") {
        // Forgotten when the burst is flushed: a rename is paired by the inode it had.
      } else if (stats !== undefined) {
        this.forget(path);
        this.remember(path, stats);
      }
    }
    this.note(path, event as FileChangeKind, stats?.ino);
  }

  /** A file seen through its directory's watch (`directory` granularity). */
  private onRaw(group: WatchGroup, name: string, directory: string): void {
    if (group !== this.tree) return;
    // Editors' swap and backup files, as chokidar leaves them out: vim's `.x.swp`, `x~`, Sublime's temporaries.
    if (EDITOR_TEMPORARY.test(name)) return;
    const path = toPosix(join(directory, name));
    if (this.dirs.has(path) || this.underIgnored(path)) return;
    const now = Date.now();
    this.settler.note(path, now);
    this.touchFlush(now);
  }

  /** A file seen through its directory's watch has settled: compare it with what was known of it. */
  private onSettled(path: string, stats: Stats | null): void {
    if (this.state === "closed" || stats?.isDirectory() === true) return;
    const known = this.files.get(path);
    if (stats === null) {
      if (known !== undefined) this.note(path, "unlink", undefined);
      return;
    }
    const now = infoOf(stats);
    if (known !== undefined && known.ino === now.ino && known.size === now.size && known.mtimeMs === now.mtimeMs && known.ctimeMs === now.ctimeMs)
      return;
    this.forget(path);
    this.remember(path, stats);
    this.note(path, known === undefined ? "add" : "change", now.ino);
  }

  private note(path: string, kind: FileChangeKind, ino: number | undefined): void {
    if (path.endsWith("/.gitignore")) this.scheduleIgnoreRefresh("rules");
    const now = Date.now();
    this.batch.note(path, kind, ino, now);
    this.touchFlush(now);
  }

  /** Something of the burst moved: its flush waits for a quiet `debounceMs` again. */
  private touchFlush(now: number): void {
    this.lastFileEvent = now;
    this.scheduleFlush(this.settings.debounceMs);
  }

  private scheduleFlush(delay: number): void {
    if (this.flushTimer !== undefined || this.state === "closed") return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.tryFlush();
    }, delay);
  }

  /** Flushes the burst unless more of it is still on its way. */
  private tryFlush(): void {
    if (this.batch.size === 0) return;
    const now = Date.now();
    const wait = this.holdFor(now);
    if (wait > 0) {
      this.scheduleFlush(wait);
      return;
    }
    this.flushNow();
  }

  private holdFor(now: number): number {
    const quiet = this.lastFileEvent + this.settings.debounceMs - now;
    if (quiet > 0) return quiet;
    if ((this.tree?.unsettled ?? 0) + (this.extra?.unsettled ?? 0) + this.settler.size + this.newDirectories.size > 0) return RECHECK_MS;
    const locked = this.indexLockedAt !== undefined && now - this.indexLockedAt < STALE_LOCK_MS;
    if (locked || this.gitTimer !== undefined || this.gitRunning !== undefined) return RECHECK_MS;
    const settle = this.lastGitActivity + this.settings.gitSettleMs - now;
    return Math.max(settle, 0);
  }

  private flushNow(): void {
    if (this.flushTimer !== undefined) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    if (this.batch.size === 0) return;
    const startedAt = this.batch.startedAt;
    const taken = this.batch.take();
    // A change is noted once it has settled, so the burst's first write was at least the threshold earlier.
    const firstWrite = startedAt - this.settings.stabilityThreshold;
    const cause =
      this.lastGitEvent !== undefined && this.lastGitEvent.at >= firstWrite - CAUSE_SLACK_MS
        ? { seq: this.lastGitEvent.seq, kind: this.lastGitEvent.kind }
        : undefined;
    const events = fileEvents(taken, {
      classify: (path) => classifyPath(this.classifiable(path), this.instructionPaths.has(path)),
      display: (path) => this.display(path),
      inodeBefore: (path) => this.files.get(path)?.ino,
      bulkThreshold: this.settings.bulkThreshold,
      sampleSize: this.settings.sampleSize,
      ...(cause === undefined ? {} : { cause }),
    });
    for (const [path, change] of taken) if (change.kind === "unlink") this.forget(path);
    for (const event of events) this.emit(event);
  }

  // ---- git events ----

  private onGitEvent(event: GroupEvent, path: string): void {
    const now = Date.now();
    this.lastGitActivity = now;
    if (path.endsWith("/index.lock")) {
      if (event === "add" || event === "change") this.indexLockedAt = now;
      else if (event === "unlink") this.indexLockedAt = undefined;
    }
    this.gitDirty = true;
    if (this.gitTimer !== undefined) clearTimeout(this.gitTimer);
    this.gitTimer = setTimeout(() => {
      this.gitTimer = undefined;
      this.analyseGit();
    }, RECHECK_MS);
  }

  private analyseGit(): void {
    if (this.state === "closed") return;
    const now = Date.now();
    if (this.indexLockedAt !== undefined && now - this.indexLockedAt < STALE_LOCK_MS) {
      // git is still writing: read its directory when it lets go of the index.
      this.gitTimer = setTimeout(() => {
        this.gitTimer = undefined;
        this.analyseGit();
      }, RECHECK_MS);
      return;
    }
    if (this.gitRunning !== undefined) return; // it reads again when done (gitDirty)
    this.gitDirty = false;
    const run = this.readGit()
      .catch((error: unknown) => this.warn(`reading the git directory failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.gitRunning = undefined;
        if (this.gitDirty && this.state !== "closed") this.analyseGit();
      });
    this.gitRunning = run;
  }

  private async readGit(): Promise<void> {
    const reader = this.reader;
    const before = this.gitState;
    if (reader === undefined || before === undefined) return;
    const after = await reader.read();
    // The root moved while reading: the new reader's baseline stands, this reading is of the old directory.
    if (reader !== this.reader || this.state === "closed") return;
    this.gitState = after;
    const { changes, indexChange } = diffGitStates(before, after);
    const topLevel = this.location.topLevel;
    for (const change of changes) {
      const event = this.emit({
        category: "git",
        kind: change.kind,
        paths: change.paths.map((path) => this.display(toPosix(join(topLevel, path)))),
        count: change.paths.length,
        summary: change.summary,
        git:
          change.details.conflicted === undefined
            ? change.details
            : { ...change.details, conflicted: change.details.conflicted.map((path) => this.display(toPosix(join(topLevel, path)))) },
      });
      if (TREE_CHANGING.has(change.kind)) this.lastGitEvent = { seq: event.seq, kind: change.kind, at: Date.now() };
      if (change.kind === "excludes_changed") this.scheduleIgnoreRefresh("rules");
    }
    if (indexChange !== null) await this.emitIndexChange(indexChange, after);
  }

  /** Staged (the index now differs from HEAD there) or unstaged (it matches HEAD again), asked of git. */
  private async emitIndexChange(change: IndexChange, state: GitState): Promise<void> {
    const paths = change.paths;
    let staged = paths;
    let unstaged: string[] = [];
    if (paths.length > 0 && paths.length <= STAGE_CHECK_LIMIT && state.head.oid !== null) {
      const location: GitLocation = {
        gitDir: this.location.gitDir,
        workTree: this.location.topLevel,
        cwd: this.location.topLevel,
        filterDrivers: [],
      };
      try {
        const result = await runChecked(
          this.runner,
          location,
          "diff-index",
          ["--cached", "--name-only", "--no-renames", "-z", state.head.oid, "--", ...paths],
          {},
        );
        if (result.exitCode === 0) {
          const differing = new Set(result.stdout.split("\0").filter((path) => path !== ""));
          staged = paths.filter((path) => differing.has(path));
          unstaged = paths.filter((path) => !differing.has(path));
        }
      } catch (error) {
        this.warn(`telling staged from unstaged failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (this.state === "closed") return;
    const topLevel = this.location.topLevel;
    const show = (list: string[]): string[] => list.map((path) => this.display(toPosix(join(topLevel, path))));
    const sample = (list: string[]): string => {
      const shown = show(list.slice(0, 5));
      return shown.join(", ") + (list.length > 5 ? `, and ${list.length - 5} more` : "");
    };
    if (paths.length === 0) {
      this.emit({ category: "git", kind: "staged", paths: [], count: 0, summary: "the index changed (its entries could not be compared)", git: {} });
      return;
    }
    if (staged.length > 0) {
      this.emit({
        category: "git",
        kind: "staged",
        paths: show(staged.slice(0, this.settings.sampleSize)),
        count: staged.length,
        summary: `staged ${staged.length} ${staged.length === 1 ? "path" : "paths"}: ${sample(staged)}`,
        git: {},
      });
    }
    if (unstaged.length > 0) {
      this.emit({
        category: "git",
        kind: "unstaged",
        paths: show(unstaged.slice(0, this.settings.sampleSize)),
        count: unstaged.length,
        summary: `unstaged ${unstaged.length} ${unstaged.length === 1 ? "path" : "paths"} (back to HEAD): ${sample(unstaged)}`,
        git: {},
      });
    }
  }

  // ---- paths and emitting ----

  private absolute(path: string): string {
    const full = resolve(this.location.root, path);
    try {
      return toPosix(realpathSync(full));
    } catch {
      return toPosix(full);
    }
  }

  /** Relative to the root when inside it, absolute otherwise. */
  private display(path: string): string {
    const root = toPosix(this.location.root);
    if (path === root) return ".";
    return isInsideDir(root, path) ? path.slice(root.length + (root.endsWith("/") ? 0 : 1)) : path;
  }

  /** Relative to the top level when inside it (what the classification rules are written against). */
  private classifiable(path: string): string {
    const topLevel = toPosix(this.location.topLevel);
    return isInsideDir(topLevel, path) && path !== topLevel ? path.slice(topLevel.length + (topLevel.endsWith("/") ? 0 : 1)) : path;
  }

  private warn(message: string): void {
    if (this.warnings.length >= 50) this.warnings.shift();
    this.warnings.push(message);
  }

  private emit(event: UnnumberedEvent): WatchEvent {
    const numbered: WatchEvent = {
      seq: ++this.seq,
      time: new Date().toISOString(),
      ...event,
      ...(this.degradedState !== null ? { degraded: this.degradedState } : {}),
    };
    this.ring.push(numbered);
    this.fanout.deliver(numbered);
    return numbered;
  }
}
