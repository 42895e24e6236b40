/**
 * The loader's only way to the file system. It counts what it does, remembers the signature of every file and
 * directory it looked at (a cache or a watcher knows exactly what to watch), reuses what a previous load read
 * while signatures match, and reads a file only after it proved it is a regular file of a sane size: opened
 * with O_NOFOLLOW | O_NONBLOCK and checked with fstat (a FIFO would block, a device could do anything).
 */
import { close, constants, fstat, open, read, statSync, type BigIntStats, type Dirent } from "node:fs";
import { READ_CHUNK_BYTES } from "../git/file-limits.js";
import { settledAt, signatureOf } from "../git/file-signature.js";
import { readdir, realpath, stat } from "node:fs/promises";
import type { WatchedPath } from "./types.js";

export type EntryType = "file" | "directory" | "symlink" | "fifo" | "device" | "socket" | "unknown";

/** What a previous load learnt, kept by a cache and trusted only while the signature is the same. */
export interface LoaderMemo {
  listings: Map<string, { signature: string; entries: ReadonlyMap<string, EntryType> }>;
  files: Map<string, { signature: string; value: unknown }>;
}

export function createLoaderMemo(): LoaderMemo {
  return { listings: new Map(), files: new Map() };
}

export type ReadOutcome<T> =
  | { kind: "read"; value: T; bytes: number; identity: string }
  | { kind: "missing" }
  | { kind: "not_a_file"; what: string }
  | { kind: "too_large"; bytes: number }
  | { kind: "binary"; bytes: number }
  | { kind: "unreadable"; message: string };

/** The signature `path` has now (stat follows symlinks, as the load did), `missing` when nothing is there. */
export function currentSignature(path: string): string {
  try {
    const info = statSync(path, { bigint: true, throwIfNoEntry: false });
    return info === undefined ? "missing" : signatureOf(info);
  } catch {
    return "unreadable";
  }
}

export class FileAccess {
  readonly operations = { readdir: 0, stat: 0, realpath: 0, open: 0 };
  private readonly watched = new Map<string, WatchedPath>();
  private readonly startedNs = BigInt(Date.now()) * 1_000_000n;
  private readonly settleNs: bigint | undefined;
  private unsettled = false;

  /** `settleMs` replaces the file system's own trust window (see `settledAt`); tests use 0. */
  constructor(
    private readonly memo: LoaderMemo | undefined,
    settleMs?: number,
  ) {
    this.settleNs = settleMs === undefined ? undefined : BigInt(Math.max(0, Math.round(settleMs))) * 1_000_000n;
  }

  get settled(): boolean {
    return !this.unsettled;
  }

  watchList(): WatchedPath[] {
    return [...this.watched.values()];
  }

  /** The names in a directory with their types, or `undefined` when it is missing or not a directory. */
  async list(dir: string): Promise<ReadonlyMap<string, EntryType> | undefined> {
    this.operations.stat++;
    const known = this.memo?.listings.get(dir);
    // stat and readdir at once when there is nothing to reuse. A change between them can pair a new listing
    // with an old signature (a later revalidation sees the change), or an old listing with a new signature, and
    // then the signature is newer than the settle window: that result is never trusted.
    const listing = known === undefined ? readdir(dir, { withFileTypes: true }).catch(() => undefined) : undefined;
    if (listing !== undefined) this.operations.readdir++;
    let info: BigIntStats;
    try {
      info = await stat(dir, { bigint: true });
    } catch {
      this.watch(dir, "missing", "missing");
      await listing;
      return undefined;
    }
    const signature = signatureOf(info);
    const settled = this.note(dir, info.isDirectory() ? "directory" : "other", signature, info);
    if (!info.isDirectory()) {
      await listing;
      return undefined;
    }
    if (known !== undefined && known.signature === signature) return known.entries;
    let dirents: Dirent[] | undefined;
    if (listing !== undefined) {
      dirents = await listing;
    } else {
      this.operations.readdir++;
      dirents = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
    }
    if (dirents === undefined) return undefined;
    const entries = new Map<string, EntryType>();
    for (const dirent of dirents) entries.set(dirent.name, direntType(dirent));
    if (settled) this.memo?.listings.set(dir, { signature, entries });
    return entries;
  }

  /** The path with every symlink resolved, or `undefined` when some part of it is missing. */
  async realpath(path: string): Promise<string | undefined> {
    this.operations.realpath++;
    try {
      return await realpath(path);
    } catch {
      this.watch(path, "missing", "missing");
      return undefined;
    }
  }

  /** What is at `path` (following symlinks), or `undefined` when nothing is. */
  async typeOf(path: string): Promise<{ type: EntryType; size: number } | undefined> {
    this.operations.stat++;
    try {
      const info = await stat(path, { bigint: true });
      return { type: statType(info), size: Number(info.size) };
    } catch {
      this.watch(path, "missing", "missing");
      return undefined;
    }
  }

  /**
   * Reads a regular file of at most `maxBytes` and turns its text into a value with `make`; a file whose
   * signature matches the memo is not read again. `memoKind` separates values made differently from one file.
   */
  async read<T>(path: string, maxBytes: number, memoKind: string, make: (text: string) => T | Promise<T>): Promise<ReadOutcome<T>> {
    this.operations.open++;
    let fd: number;
    try {
      fd = await openFd(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        this.watch(path, "missing", "missing");
        return { kind: "missing" };
      }
      if (code === "ELOOP") return { kind: "not_a_file", what: "a symlink (it changed while being read)" };
      if (code === "ENXIO") return { kind: "not_a_file", what: "a socket" };
      return { kind: "unreadable", message: (error as Error).message };
    }
    let content: Buffer;
    let signature: string;
    let settled: boolean;
    let identity: string;
    const key = `${memoKind}\u0000${path}`;
    try {
      const info = await fstatFd(fd);
      signature = signatureOf(info);
      settled = this.note(path, info.isFile() ? "file" : "other", signature, info);
      if (!info.isFile()) return { kind: "not_a_file", what: describeType(statType(info)) };
      const bytes = Number(info.size);
      identity = `${info.dev}:${info.ino}`;
      if (bytes > maxBytes) return { kind: "too_large", bytes };
      const known = this.memo?.files.get(key);
      if (known !== undefined && known.signature === signature) return { kind: "read", value: known.value as T, bytes, identity };
      const buffer = Buffer.allocUnsafe(Math.min(bytes, maxBytes) + 1);
      let held = 0;
      // Read one byte more than fstat said: a file that grew past the limit since is refused, not cut.
      while (held < buffer.length) {
        // In chunks: one read longer than 2^31-1 bytes aborts Node itself.
        const bytesRead = await readFd(fd, buffer, held, Math.min(buffer.length - held, READ_CHUNK_BYTES), held);
        if (bytesRead === 0) break;
        held += bytesRead;
      }
      if (held > maxBytes) return { kind: "too_large", bytes: held };
      content = buffer.subarray(0, held);
    } catch (error) {
      return { kind: "unreadable", message: (error as Error).message };
    } finally {
      await closeFd(fd);
    }
    if (content.includes(0)) return { kind: "binary", bytes: content.length };
    const value = await make(content.toString("utf8"));
    if (settled) this.memo?.files.set(key, { signature, value });
    return { kind: "read", value, bytes: content.length, identity };
  }

  /** Records a path's signature; returns whether it is old enough to be trusted by a later comparison. */
  private note(path: string, kind: WatchedPath["kind"], signature: string, info: BigIntStats): boolean {
    this.watch(path, kind, signature);
    const settled =
      this.settleNs === undefined
        ? settledAt(info.mtimeNs, info.ctimeNs, this.startedNs)
        : this.startedNs - info.ctimeNs >= this.settleNs && this.startedNs - info.mtimeNs >= this.settleNs;
    if (!settled) this.unsettled = true;
    return settled;
  }

  private watch(path: string, kind: WatchedPath["kind"], signature: string): void {
    if (!this.watched.has(path)) this.watched.set(path, { path, kind, signature });
  }
}

// The callback API with plain descriptors: FileHandle's promise methods cost several times more per call, which
// shows on a tree with hundreds of instruction files.
function openFd(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))));
}

function fstatFd(fd: number): Promise<BigIntStats> {
  return new Promise((resolve, reject) => fstat(fd, { bigint: true }, (error, info) => (error ? reject(error) : resolve(info))));
}

function readFd(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
  );
}

function closeFd(fd: number): Promise<void> {
  return new Promise((resolve) => close(fd, () => resolve()));
}

function direntType(dirent: Dirent): EntryType {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
  if (dirent.isSymbolicLink()) return "symlink";
  if (dirent.isFIFO()) return "fifo";
  if (dirent.isCharacterDevice() || dirent.isBlockDevice()) return "device";
  if (dirent.isSocket()) return "socket";
  return "unknown";
}

function statType(info: BigIntStats): EntryType {
  if (info.isFile()) return "file";
  if (info.isDirectory()) return "directory";
  if (info.isFIFO()) return "fifo";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "device";
  if (info.isSocket()) return "socket";
  return "unknown";
}

export function describeType(type: EntryType): string {
  switch (type) {
    case "directory":
      return "a directory";
    case "fifo":
      return "a FIFO";
    case "device":
      return "a device";
    case "socket":
      return "a socket";
    case "symlink":
      return "a symlink";
    default:
      return "not a regular file";
  }
}
