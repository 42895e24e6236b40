/**
 * Telling whether a file changed since gitctx last read it, without reading it (and, for a file whose signature
 * changed, by its bytes: FileSnapshot): the results of work that depends only on a few files (the config scan,
 * the private index) are kept while those files stay the same.
 *
 * The stat calls are synchronous on purpose: they run on every tool call, a local stat takes microseconds, and a
 * trip through libuv's thread pool costs ten times that (measured in `npm run bench`, overhead section).
 */
import { statSync, type BigIntStats } from "node:fs";
import { readRegularFileSync } from "./read-file.js";

/**
 * Device, inode, size, mode and both timestamps (nanoseconds), or `missing`. git rewrites config, HEAD and the
 * index by renaming a new file over the old one, so the inode changes on every write it makes; an in-place edit
 * changes the ctime.
 */
export function fileSignature(path: string, stats?: StatOnce): string {
  return readSignature(path, stats).signature;
}

/**
 * The stats one opening of a repository takes, each path once: its checks and its caches' freshness tests ask
 * about the same few files (the config is looked at by the state-file check, the repository's scan and the
 * user's), and a stat was the costliest step left in a quick call. Made for one opening and dropped with it: a
 * memo kept longer would hide changes. A stat that fails for any reason is `undefined`, as if missing.
 */
export class StatOnce {
  private readonly taken = new Map<string, BigIntStats | undefined>();

  stat(path: string): BigIntStats | undefined {
    if (this.taken.has(path)) return this.taken.get(path);
    const info = statQuietly(path);
    this.taken.set(path, info);
    return info;
  }
}

function statQuietly(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined; // Not a directory on the way, a loop, no permission: as good as missing.
  }
}

/** Device, inode, size, mode and both timestamps in nanoseconds: the one form of a signature in gitctx. */
export function signatureOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mode}:${info.mtimeNs}:${info.ctimeNs}`;
}

function readSignature(path: string, stats?: StatOnce): { signature: string; mtimeNs?: bigint; ctimeNs?: bigint } {
  // As good as missing when the stat fails, and then never kept.
  const info = stats === undefined ? statQuietly(path) : stats.stat(path);
  if (info === undefined) return { signature: "missing" };
  return { signature: signatureOf(info), mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs };
}

/**
 * How long after its last change a file's signature can be trusted to change with its next change: git's
 * "racily clean" problem. Two writes within one tick of the file system's clock leave the same timestamps (and,
 * at the same size, the same signature). Linux stamps files from a coarse clock that lags real time by at most
 * one tick (4 ms at HZ=250, 10 ms at HZ=100, the coarsest in use; `npm run bench` measures this machine's):
 * a file last changed more than 20 ms ago gets a later stamp when it changes again. A file system that keeps
 * whole seconds (or FAT's two) is recognised by timestamps without a fraction, and gets two seconds.
 */
const FINE_SETTLE_NS = 20_000_000n;
const COARSE_SETTLE_NS = 2_000_000_000n;

/** Whether a file changed at `ctimeNs` (with mtime `mtimeNs`) can be trusted at `nowNs`: see the note above. */
export function settledAt(mtimeNs: bigint, ctimeNs: bigint, nowNs: bigint): boolean {
  const wholeSeconds = mtimeNs % 1_000_000_000n === 0n && ctimeNs % 1_000_000_000n === 0n;
  return nowNs - ctimeNs >= (wholeSeconds ? COARSE_SETTLE_NS : FINE_SETTLE_NS);
}

/** The signatures of `paths`, and whether every one of them was last changed long enough ago to be trusted. */
export function watchFiles(paths: Iterable<string>): { signatures: Map<string, string>; settled: boolean } {
  const startedNs = BigInt(Date.now()) * 1_000_000n;
  const signatures = new Map<string, string>();
  let settled = true;
  for (const path of new Set(paths)) {
    const { signature, mtimeNs, ctimeNs } = readSignature(path);
    signatures.set(path, signature);
    if (mtimeNs !== undefined && ctimeNs !== undefined && !settledAt(mtimeNs, ctimeNs, startedNs)) settled = false;
  }
  return { signatures, settled };
}

/** Whether every file still has the signature it had when watched. */
export function unchanged(signatures: ReadonlyMap<string, string>, stats?: StatOnce): boolean {
  for (const [path, signature] of signatures) if (fileSignature(path, stats) !== signature) return false;
  return true;
}

/** Files whose bytes a snapshot holds besides their signatures: a repository's config is a few kilobytes. */
const KEPT_BYTES = 64 * 1024;

/**
 * What a kept result was made from: each file's signature and, for a regular file of at most 64 KiB, its bytes. git
 * rewrites some files whole with the same bytes (a new file renamed over the old): `.git/config` on every
 * `git branch -D` or `git branch -m`, whatever it holds. Such a file is still the same, and a result made from it
 * still holds; a user's `git branch -D` beside the agent would otherwise cost the next call its config listing.
 */
export class FileSnapshot {
  private constructor(
    /** Each file's signature when last found to hold the bytes the result was made from. */
    readonly signatures: Map<string, string>,
    private readonly contents: ReadonlyMap<string, Buffer>,
  ) {}

  /**
   * Taken after the work that read the files: their bytes, then their signatures, so that a file changed since
   * that work read it (or since its bytes were read here) is recent, so not `settled`, so not to be kept.
   */
  static take(paths: Iterable<string>): { snapshot: FileSnapshot; settled: boolean } {
    const unique = [...new Set(paths)];
    const contents = new Map<string, Buffer>();
    for (const path of unique) {
      const bytes = readRegularFileSync(path, KEPT_BYTES + 1, { followSymlinks: true });
      if (bytes !== undefined && bytes.length <= KEPT_BYTES) contents.set(path, bytes);
    }
    const { signatures, settled } = watchFiles(unique);
    return { snapshot: new FileSnapshot(signatures, contents), settled };
  }

  /**
   * Whether every file is as it was: the same signature, or the same bytes under a new one, which is kept from
   * then on once settled (a write within the clock's tick after could leave it unchanged). `rewritten` is told of
   * each file found the same under a new signature, and may refuse it by throwing.
   */
  stillSame(stats?: StatOnce, rewritten?: (path: string) => void): boolean {
    const renewed: string[] = [];
    for (const [path, signature] of this.signatures) {
      if (fileSignature(path, stats) === signature) continue;
      const before = this.contents.get(path);
      const now = before === undefined ? undefined : readRegularFileSync(path, KEPT_BYTES + 1, { followSymlinks: true });
      if (now === undefined || !now.equals(before!)) return false;
      rewritten?.(path);
      renewed.push(path);
    }
    if (renewed.length > 0) {
      const { signatures, settled } = watchFiles(renewed);
      if (settled) for (const [path, signature] of signatures) this.signatures.set(path, signature);
    }
    return true;
  }
}
