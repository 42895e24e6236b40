/**
 * Looks at the file system that answer `undefined` where they would throw (missing, not a directory on the way, no
 * permission). Synchronous on purpose, like discovery and the checks every call makes: a local stat takes
 * microseconds, where an asynchronous one costs a trip through libuv's thread pool, ten times that.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";

/** The entry itself (a symlink not followed). */
export function lstatQuietly(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** What the path leads to (symlinks followed). */
export function statQuietly(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The real path, or `fallback` when it cannot be resolved. */
export function realpathOr<T extends string | undefined>(path: string, fallback: T): string | T {
  try {
    return realpathSync.native(path);
  } catch {
    return fallback;
  }
}

/** The entries of a directory, with their types; none when it cannot be listed. */
export function readdirQuietly(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
