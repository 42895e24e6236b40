/**
 * The session's copy of its instruction files: an `InstructionsCache` that tells the session every time a load
 * really read files, so that the session can emit `instructionsLoaded` (a cache hit is no event: nothing new
 * was read, and an agent asking before every edit would otherwise flood the embedder's log).
 *
 * It also remembers the last few loads it was asked for, so that when the watcher reports an instruction file
 * changed the session can load them again at once (`reload`): the embedder hears `instructionsLoaded` with the
 * new files without waiting for the agent's next call, and the watcher learns the files to watch (`files`).
 */
import { InstructionsCache, type CachedLoadOptions } from "../instructions/cache.js";
import type { InstructionsResult, LoadInstructionsOptions } from "../instructions/types.js";

/** Loads remembered for `reload`: an agent asks for a handful of path sets; more are older than they are useful. */
const RECENT_LOADS = 8;

export class SessionInstructionsCache extends InstructionsCache {
  /** Results handed out so far: a hit returns one of these, a load a new object. */
  private readonly handedOut = new WeakSet<InstructionsResult>();
  /** The most recent loads by their options (JSON), oldest first, with their latest result. */
  private readonly recent = new Map<string, { options: LoadInstructionsOptions; result: InstructionsResult }>();

  /** `loaded` is awaited: a load answers once the session has done what it does with new files (watch them). */
  constructor(private readonly loaded: (result: InstructionsResult) => void | Promise<void>) {
    super();
  }

  override async load(options: LoadInstructionsOptions, how: CachedLoadOptions = {}): Promise<InstructionsResult> {
    const result = await super.load(options, how);
    const key = recentKey(options);
    this.recent.delete(key);
    this.recent.set(key, { options, result });
    while (this.recent.size > RECENT_LOADS) this.recent.delete(this.recent.keys().next().value as string);
    if (!this.handedOut.has(result)) {
      this.handedOut.add(result);
      await this.loaded(result);
    }
    return result;
  }

  /**
   * Loads every remembered set of options again: those whose files changed are read afresh (and announced), the
   * others are answered from memory. A load that fails now (its root is gone) is forgotten.
   */
  async reload(): Promise<void> {
    for (const [key, { options }] of [...this.recent]) {
      try {
        await this.load(options);
      } catch {
        this.recent.delete(key);
      }
    }
  }

  /** The instruction files the remembered loads read (imports included), absolute: what the watcher should watch. */
  files(): string[] {
    const files = new Set<string>();
    for (const { result } of this.recent.values()) {
      for (const file of result.files) files.add(file.absolutePath);
      for (const watched of result.watched) if (watched.kind === "file") files.add(watched.path);
    }
    return [...files].sort();
  }

  /** Forgets everything, the remembered loads included (after a root change they describe another workspace). */
  override clear(): void {
    super.clear();
    this.recent.clear();
  }
}

function recentKey(options: LoadInstructionsOptions): string {
  // String for numbers JSON cannot write (an Infinity budget would read as no budget).
  return JSON.stringify(options, (_key, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? String(value) : value));
}
