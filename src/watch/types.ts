/** The data a watcher produces: plain, serialisable events, its status, and the answer to "what changed since". */

/** Where a watcher looks: the same four paths the session's `RepositoryPaths` carries. All absolute and real. */
export interface WatchLocation {
  /** The workspace root: event paths inside it are relative to it. */
  root: string;
  /** The top level of the work tree containing `root`: the tree that is watched. */
  topLevel: string;
  /** The work tree's own git directory (HEAD, the index, the operation files; for a linked worktree its own one). */
  gitDir: string;
  /** The directory shared by every worktree (refs, packed-refs, config). Default: read from `gitDir/commondir`. */
  commonDir?: string;
}

export const WATCH_CATEGORIES = ["instructions", "rules", "settings", "source", "git", "watcher"] as const;
/**
 * `instructions`: a file the instruction loader used (or one with an instruction file's name, e.g. a new
 * `CLAUDE.md`); `rules`: under `.claude/rules/`, `.cursor/rules/`, `.github/instructions/`; `settings`: agent
 * and MCP settings; `source`: any other file of the work tree; `git`: what happened in the repository, read from
 * the git directory's content; `watcher`: the watcher itself (degraded, root changed, an error it survived).
 */
export type WatchCategory = (typeof WATCH_CATEGORIES)[number];

/** Kinds of file events (`instructions`, `rules`, `settings`, `source`). `bulk` is one event for many files. */
export type FileEventKind = "add" | "change" | "unlink" | "rename" | "bulk";

export type OperationName = "merge" | "rebase" | "cherry-pick" | "revert" | "am" | "bisect";

export type GitEventKind =
  | "branch_switched"
  | "detached"
  | "commit"
  | "reset"
  | "head_moved"
  | "stash"
  | `${"merge" | "rebase" | "cherry_pick" | "revert" | "am" | "bisect"}_${"started" | "finished" | "aborted"}`
  | "staged"
  | "unstaged"
  | "upstream_moved"
  | "refs_updated"
  | "fetch"
  | "config_changed"
  | "excludes_changed"
  | "worktrees_changed";

export type WatcherEventKind = "degraded" | "root_changed" | "error";

export type WatchEventKind = FileEventKind | GitEventKind | WatcherEventKind;

/** A ref that moved: `from`/`to` are object ids, `null` when the ref did not exist on that side. */
export interface RefMove {
  ref: string;
  from: string | null;
  to: string | null;
}

/** What a git event knows beyond its kind. Fields that do not apply are absent. */
export interface GitEventDetails {
  /** The branch HEAD was on before and after (`null`: detached or unborn). */
  fromBranch?: string | null;
  toBranch?: string | null;
  /** HEAD's commit before and after. */
  fromOid?: string | null;
  toOid?: string | null;
  /** The reason git wrote in HEAD's reflog for the last move (`commit (amend): Fix`, `reset: moving to HEAD~1`). */
  reason?: string;
  /** The operation a `*_started`/`*_finished`/`*_aborted` event is about. */
  operation?: OperationName;
  /** Paths with conflicts (unmerged index entries), relative like `paths`. */
  conflicted?: string[];
  /** Refs that moved (`upstream_moved`, `refs_updated`, `stash`). */
  refs?: RefMove[];
  /** `worktrees_changed`: linked worktrees added and removed (their names in `.git/worktrees/`). */
  worktrees?: { added: string[]; removed: string[] };
  /** `stash`: what happened to the stash (`push`, or `drop` for a pop or a drop), and how many entries it has now. */
  stash?: { action: "push" | "drop" | "changed"; entries: number };
}

/** Counts of a `bulk` event by what happened to the files. */
export interface BulkCounts {
  added: number;
  changed: number;
  deleted: number;
  renamed: number;
}

/** Why the watcher stopped using native watches for part of what it watches, and what it does instead. */
export interface DegradedState {
  /** `watch_limit`: the watcher's own cap (`maxWatches`) was reached; `ENOSPC`: the system's inotify watch limit; `EMFILE`: too many open files. */
  reason: "watch_limit" | "ENOSPC" | "EMFILE";
  /** Always `polling`: every file is stat-checked every `intervalMs`. */
  mode: "polling";
  intervalMs: number;
  /** When the watcher degraded (ISO time). */
  since: string;
  /** Native watches in place when it degraded, and the cap. */
  watches: number;
  maxWatches: number;
  /** One line for a person or a model. */
  message: string;
  hint: string;
}

/** One thing that changed. Plain data: it survives `JSON.stringify` unchanged. */
export interface WatchEvent {
  /** Increases by one per event, from 1, for the life of the watcher. */
  seq: number;
  /** When the event was emitted (ISO 8601). */
  time: string;
  category: WatchCategory;
  kind: WatchEventKind;
  /**
   * The files concerned, `/`-separated, relative to the root when inside it and absolute otherwise. For `rename`:
   * `[from, to]`. For `bulk` and large git events: a sample (`count` says how many there are in all).
   */
  paths: string[];
  /** How many paths the event covers (at least `paths.length`). */
  count: number;
  /** One line for a model. */
  summary: string;
  /** `bulk`: how many files were added, changed, deleted, renamed. */
  counts?: BulkCounts;
  /** Git events: what the git directory says happened. */
  git?: GitEventDetails;
  /** A file event that arrived with a git event (a checkout's files): that event's `seq` and kind. */
  cause?: { seq: number; kind: WatchEventKind };
  /** Set on every event emitted while the watcher is degraded. */
  degraded?: DegradedState;
}

/** What `events(since)` answers: the `git_changes` tool's data. */
export interface WatchChanges {
  /** The newest sequence number so far (0 before the first event): pass it as `since` next time. */
  seq: number;
  /** The `since` this answers. */
  since: number;
  /** Events with `seq > since` still held, oldest first. */
  events: WatchEvent[];
  /** Events after `since` that the bounded ring no longer holds. */
  dropped: number;
  /** The watcher's current degraded state, `null` while it watches natively. */
  degraded: DegradedState | null;
}

export type WatcherState = "starting" | "watching" | "closed";

export interface WatcherStatus {
  state: WatcherState;
  location: Required<WatchLocation>;
  /** Native watches in place (one per directory and file chokidar watches natively). */
  watches: number;
  /** Files and directories checked by polling instead. */
  polled: number;
  maxWatches: number;
  degraded: DegradedState | null;
  /** Directories left out because the repository ignores them (from git), relative to the top level. */
  ignoredDirectories: string[];
  /** Instruction files watched (absolute). */
  instructionPaths: string[];
  seq: number;
  /** Problems the watcher worked around (e.g. git could not list the ignored directories). */
  warnings: string[];
}
