/**
 * What a session tells its embedder while it works, as typed events: `session.on(name, listener)` returns the
 * function that unregisters the listener. One table (`SessionEvents`) names every event and its payload, so a
 * new source (the file watcher) adds a line there and emits through the same hub.
 */
import type { InstructionFile, InstructionsResult } from "../instructions/index.js";
import type { WatchEvent } from "../watch/index.js";

/** Instruction files were read (not answered from the session's cache): the list an embedder may log or show. */
export interface InstructionsLoadedEvent {
  /** The workspace root the files were loaded for (real path). */
  root: string;
  /** The paths the load was for (POSIX, relative to the root), as the loader normalised them. */
  paths: string[];
  /** Every file loaded, in prompt order; `included: false` for the ones the budget left out. */
  files: InstructionFile[];
  /** The whole result, for what the list does not say (refusals, tokens, what the text cut). */
  result: InstructionsResult;
}

/**
 * The session's watcher saw something change (a file edited, a branch switched, a commit...): sent once the
 * caches the change makes stale are dropped, so a listener that calls a tool at once gets fresh answers.
 */
export interface FileChangedEvent {
  /** What changed, as `session.watch()` hands it out. */
  event: WatchEvent;
  /** The root the event's relative paths are relative to (real path). */
  root: string;
  /** The names of the caches dropped for it (`CacheName`s: `configScan`, `privateIndex`, ...), in that order. */
  invalidated: string[];
  /** Instruction files whose loads were dropped (absolute), or `"all"`; empty when the event concerns none. */
  instructions: string[] | "all";
}

/** Every event a session emits, by name, with its payload. */
export interface SessionEvents {
  instructionsLoaded: InstructionsLoadedEvent;
  fileChanged: FileChangedEvent;
}

export type SessionEventName = keyof SessionEvents;
export type SessionListener<E extends SessionEventName> = (event: SessionEvents[E]) => void;

export class SessionEventHub {
  private readonly listeners = new Map<SessionEventName, Set<(event: never) => void>>();

  on<E extends SessionEventName>(name: E, listener: SessionListener<E>): () => void {
    let set = this.listeners.get(name);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(name, set);
    }
    // Wrapped, so that one function registered twice is two registrations, each removed by its own function.
    const entry = (event: never): void => listener(event);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /**
   * Calls every listener of `name` in registration order, synchronously. A listener that throws is skipped over:
   * an embedder's logging must not fail the agent's tool call (nor stop the listeners after it).
   */
  emit<E extends SessionEventName>(name: E, event: SessionEvents[E]): void {
    const set = this.listeners.get(name);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        (listener as SessionListener<E>)(event);
      } catch {
        // See above.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
