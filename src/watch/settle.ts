/**
 * Waiting for writes to settle, for files seen through their directory's watch: the rule of chokidar's
 * `awaitWriteFinish` (a file is reported once its size, and here its modification time too, stayed the same for
 * `threshold` ms, checked every `interval` ms), with one timer for every pending file instead of one each, so a
 * 10,000-file checkout costs one stat round per interval, not 10,000 timers.
 */
import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";

interface Pending {
  lastChange: number;
  /** `size:mtime:ctime` at the last check; `undefined` before the first, `missing` when the path was gone. */
  seen: string | undefined;
}

/** Stats run this many at a time: enough to keep the thread pool busy, few enough not to flood it. */
const STAT_BATCH = 256;

export class Settler {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private closed = false;

  constructor(
    private readonly threshold: number,
    private readonly interval: number,
    /** The file's stat once settled, `null` when it is gone. */
    private readonly onSettled: (path: string, stats: Stats | null) => void,
  ) {}

  /** Something happened to `path`: it is reported once it has been quiet for the threshold. */
  note(path: string, now: number): void {
    if (this.closed) return;
    const known = this.pending.get(path);
    if (known !== undefined) known.lastChange = now;
    else this.pending.set(path, { lastChange: now, seen: undefined });
    this.schedule();
  }

  get size(): number {
    return this.pending.size;
  }

  /** Forgets every pending file (the tree they belong to is no longer watched). */
  clear(): void {
    this.pending.clear();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  /**
   * Checks again after `interval`, or sooner when a file's quiet time runs out before that: the rule is the
   * same (the stat must not have changed for `threshold`), the report just does not wait for the next round.
   */
  private schedule(): void {
    if (this.timer !== undefined || this.ticking || this.closed) return;
    const now = Date.now();
    let delay = this.interval;
    for (const entry of this.pending.values()) {
      if (entry.seen === undefined) continue; // never checked yet: the first check is a full interval away
      delay = Math.min(delay, entry.lastChange + this.threshold - now);
    }
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.tick();
      },
      Math.max(1, delay),
    );
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    try {
      const paths = [...this.pending.keys()];
      for (let i = 0; i < paths.length && !this.closed; i += STAT_BATCH) {
        const batch = paths.slice(i, i + STAT_BATCH);
        const stats = await Promise.all(batch.map((path) => lstat(path).catch(() => null)));
        const now = Date.now();
        batch.forEach((path, index) => {
          const entry = this.pending.get(path);
          if (entry === undefined || this.closed) return;
          const info = stats[index] ?? null;
          const seen = info === null ? "missing" : `${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
          if (entry.seen !== undefined && entry.seen !== seen) entry.lastChange = now;
          entry.seen = seen;
          if (now - entry.lastChange >= this.threshold) {
            this.pending.delete(path);
            this.onSettled(path, info);
          }
        });
      }
    } finally {
      this.ticking = false;
      if (this.pending.size > 0) this.schedule();
    }
  }
}
