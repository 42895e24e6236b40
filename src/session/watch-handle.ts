/**
 * What `session.watch()` hands out: a handle on the session's one watcher. Types only, so that the tool layer
 * can name them without importing the session.
 */
import type { WatchChanges, WatchEvent, WatcherOptions, WatcherStatus, WatchListener } from "../watch/index.js";

/**
 * How the session's watcher watches (stability threshold, watch cap, ring size...): everything but where it
 * looks, which instruction files it watches and the runner it asks git with, which are the session's.
 */
export type SessionWatchOptions = Omit<WatcherOptions, "location" | "instructionPaths" | "runner" | "ignoredDirectories">;

/**
 * A handle on the session's watcher. The first handle starts the watcher (for the session's current root, which
 * it then follows); the watcher stops when the last handle is closed, or with the session. Events reach a handle
 * once the caches they make stale are dropped.
 */
export interface SessionWatch extends AsyncIterable<WatchEvent> {
  /**
   * Settles once the watcher is watching. Rejects with a `GitctxError` when it cannot: the root is not in a git
   * repository (`not_a_repository`), the session is closed (`session_closed`). The handle is closed then.
   */
  readonly ready: Promise<void>;
  /** Whether opening this handle started the watcher (no event from before it is known). */
  readonly started: boolean;
  /** Whether this handle is closed (by `close()`, the session's close, or a failed start). */
  readonly closed: boolean;
  /** Calls `listener` for every event from now on; returns the function that stops it. */
  on(listener: WatchListener): () => void;
  /** The events after `since` still held, how many of them were dropped, and the newest sequence number. */
  events(since?: number): WatchChanges;
  /** The watcher's status; `null` before it started. */
  status(): WatcherStatus | null;
  /** Stops this handle: its listeners, and its iterators, which end. The last handle's close stops the watcher. */
  close(): Promise<void>;
}
