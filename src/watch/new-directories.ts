/**
 * Directories of the work tree listed before their watch was in place, until they are listed once more.
 *
 * chokidar lists a directory first and places its watch after the listing: whatever is created inside it
 * between the two sends no notification and is in no listing, so it was never reported (an agent's
 * `mkdir -p src/x` followed at once by its files, an unpacked archive, a checkout under load). So a directory
 * created while the tree is watched, and every directory of a walk that replaces one already done (new ignore
 * rules, polling), is listed once more as soon as its watch is in place; anything that listing holds and
 * chokidar's walk did not pass is handed back to chokidar as new. From then on the directory's own watch
 * reports what happens in it. (The first walk needs none of this: what exists before `ready` is not news.)
 */
import { readdir } from "node:fs/promises";

export interface NewDirectoriesOptions {
  /** Whether the directory's watch is in place. */
  isWatched: (directory: string) => boolean;
  /** Entries of a new directory that chokidar's walk did not pass (each `directory/name`). */
  onMissed: (paths: string[]) => void;
  /** Entries to leave out of the second listing (ignored directories, editors' temporaries). */
  leaveOut: (path: string) => boolean;
}

/** How often the directories waiting for their watch are checked. */
const CHECK_MS = 5;
/** A directory whose watch is not in place by then is given up on (it was removed, or the walk was replaced). */
const GIVE_UP_MS = 5_000;

export class NewDirectories {
  /** Directory → the paths in it that chokidar's walk passed, and when it was first seen. */
  private readonly waiting = new Map<string, { passed: Set<string>; since: number }>();
  /** Second listings under way: the watcher holds its burst until they are done. */
  private listing = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: NewDirectoriesOptions) {}

  /** `directory` (`/`-separated) is being walked: list it again once its watch is in place. */
  add(directory: string, now: number): void {
    if (this.closed || this.waiting.has(directory)) return;
    this.waiting.set(directory, { passed: new Set(), since: now });
    this.timer ??= setTimeout(() => this.check(), CHECK_MS);
  }

  /** chokidar's walk passed `path`: it is not missed. */
  passed(path: string): void {
    if (this.waiting.size === 0) return;
    this.waiting.get(path.slice(0, path.lastIndexOf("/")))?.passed.add(path);
  }

  /** Directories still to be listed again, or being listed. */
  get size(): number {
    return this.waiting.size + this.listing;
  }

  /** Forgets every directory (the tree they belong to is no longer watched). */
  clear(): void {
    this.waiting.clear();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }

  private check(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const [directory, entry] of this.waiting) {
      if (this.options.isWatched(directory)) {
        this.waiting.delete(directory);
        void this.listAgain(directory, entry.passed);
      } else if (now - entry.since > GIVE_UP_MS) {
        this.waiting.delete(directory);
      }
    }
    if (this.waiting.size > 0 && !this.closed) this.timer = setTimeout(() => this.check(), CHECK_MS);
  }

  private async listAgain(directory: string, passed: ReadonlySet<string>): Promise<void> {
    this.listing += 1;
    try {
      // Gone again (or unreadable): its removal is reported through its parent's watch.
      const names = await readdir(directory).catch(() => [] as string[]);
      const missed = names.map((name) => `${directory}/${name}`).filter((path) => !passed.has(path) && !this.options.leaveOut(path));
      if (missed.length > 0 && !this.closed) this.options.onMissed(missed);
    } finally {
      this.listing -= 1;
    }
  }
}
