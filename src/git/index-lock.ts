/** Whether a git process holds (or died holding) the index lock of a worktree: `index.lock` in its git directory. */
import { lstat } from "node:fs/promises";
import { join } from "node:path";

/** An `index.lock` older than this was probably left by a git process that died (one threshold everywhere). */
export const DEFAULT_STALE_LOCK_MS = 30_000;

export interface IndexLock {
  /** Absolute path of the lock file. */
  path: string;
  /** Last modification of the lock file, ISO 8601 UTC. */
  modifiedAt: string;
  /** Whole seconds since then (0 for a time in the future). */
  ageSeconds: number;
  /** Older than the threshold (30 s by default): probably left by a git process that died. */
  stale: boolean;
}

export interface IndexLockOptions {
  /** The moment the age is measured against. Default: now. */
  now?: Date;
  /** Age from which a lock counts as stale. Default 30 s. */
  staleAfterMs?: number;
}

/** The lock of the worktree whose git directory is `gitDir`, or `null` when there is none. */
export async function readIndexLock(gitDir: string, options: IndexLockOptions = {}): Promise<IndexLock | null> {
  const path = join(gitDir, "index.lock");
  let modified: Date;
  try {
    modified = (await lstat(path)).mtime;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const ageMs = (options.now ?? new Date()).getTime() - modified.getTime();
  return {
    path,
    modifiedAt: modified.toISOString(),
    ageSeconds: Math.max(0, Math.floor(ageMs / 1000)),
    stale: ageMs > (options.staleAfterMs ?? DEFAULT_STALE_LOCK_MS),
  };
}
