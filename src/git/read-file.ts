/**
 * Reading a file a repository controls (a work tree file, a state file in the git directory) without letting
 * it lead elsewhere or take the process down: the last component must not be a symlink (to /etc/passwd, say: its
 * text would end up in a result), it must be a regular file (a FIFO would block the call forever, beyond any git
 * timeout), and no read holds more than its caller's bound, read in chunks (see `file-limits.ts`: one read call
 * longer than 2^31-1 bytes aborts Node itself).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { MAX_HELD_BYTES, READ_CHUNK_BYTES } from "./file-limits.js";

const SAFE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const FOLLOWING_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

export interface FollowOptions {
  /** Follow a symlink at the last component, for a file that is read through symlinks on purpose (the type is still checked). */
  followSymlinks?: boolean;
}

/** A regular file opened for reading, with its size when opened. The caller closes it. */
export interface OpenedFile {
  handle: FileHandle;
  size: number;
}

function checkBound(maxBytes: number): void {
  if (!Number.isInteger(maxBytes) || maxBytes < 0 || maxBytes > MAX_HELD_BYTES) {
    throw new RangeError(`a file read needs a bound between 0 and ${MAX_HELD_BYTES} bytes, got ${maxBytes}`);
  }
}

/**
 * Opens `path` if it is a regular file and not a symlink; `undefined` when it is missing or anything else.
 * O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before fstat could refuse it.
 */
export async function openRegularFile(path: string, options: FollowOptions = {}): Promise<OpenedFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, options.followSymlinks === true ? FOLLOWING_FLAGS : SAFE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (info.isFile()) return { handle, size: info.size };
  } catch {
    // Treated as missing, like a file that cannot be opened.
  }
  await handle.close();
  return undefined;
}

/**
 * Up to `length` bytes from `position`, in chunks; fewer at the end of the file. `length` comes from the file's
 * size, so the chunks are read into one buffer of that length: chunks joined at the end held the file twice and
 * copied it once, and a gigabyte index (zeros, which an archive ships for a megabyte) took a call 17 s and 2 GB.
 */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  checkBound(length);
  const buffer = Buffer.allocUnsafe(length);
  let held = 0;
  while (held < length) {
    const want = Math.min(READ_CHUNK_BYTES, length - held);
    const { bytesRead } = await handle.read(buffer, held, want, position + held);
    if (bytesRead === 0) break;
    held += bytesRead;
  }
  return held === length ? buffer : buffer.subarray(0, held);
}

/**
 * Files up to this size are read synchronously: a ref, HEAD, a `.git` file or a worktree's record is a few bytes,
 * and a small repository's index (read again whenever a git beside the agent rewrites it) a few kilobytes, each
 * read in microseconds, where each of the four asynchronous steps (open, fstat, read, close) costs a trip through
 * Node's thread pool. Larger files are read asynchronously, so a long read never holds up other calls.
 */
const SYNC_READ_BYTES = 256 * 1024;

/** The file's first bytes (at most `maxBytes`), or `undefined` when it is missing, a symlink, or not a regular file. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer | undefined> {
  checkBound(maxBytes);
  // A bound that small is read at once whatever the file's size.
  const small = readSynchronously(path, maxBytes, maxBytes <= SYNC_READ_BYTES ? Number.POSITIVE_INFINITY : SYNC_READ_BYTES);
  if (small !== "large") return small?.bytes;
  const opened = await openRegularFile(path);
  if (opened === undefined) return undefined;
  try {
    // One byte past the size fstat gave: a file that grew since is read on up to the bound.
    return await readAt(opened.handle, 0, Math.min(opened.size + 1, maxBytes));
  } catch {
    return undefined;
  } finally {
    await opened.handle.close();
  }
}

/** A whole file, or how large it was when larger than the caller's bound. */
export type WholeFile = { kind: "read"; bytes: Buffer } | { kind: "too_large"; size: number };

/**
 * The whole file when it is at most `maxBytes` (one byte more is read, so a file that grew past the bound since
 * fstat is refused, not cut); `undefined` when it is missing, a symlink, or not a regular file.
 */
export async function readWholeRegularFile(path: string, maxBytes: number): Promise<WholeFile | undefined> {
  checkBound(maxBytes);
  const small = readSynchronously(path, maxBytes + 1, SYNC_READ_BYTES);
  if (small === undefined) return undefined;
  if (small !== "large")
    return small.bytes.length > maxBytes
      ? { kind: "too_large", size: Math.max(small.size, small.bytes.length) }
      : { kind: "read", bytes: small.bytes };
  const opened = await openRegularFile(path);
  if (opened === undefined) return undefined;
  try {
    if (opened.size > maxBytes) return { kind: "too_large", size: opened.size };
    const bytes = await readAt(opened.handle, 0, Math.min(opened.size + 1, MAX_HELD_BYTES));
    return bytes.length > maxBytes ? { kind: "too_large", size: bytes.length } : { kind: "read", bytes };
  } catch {
    return undefined;
  } finally {
    await opened.handle.close();
  }
}

/**
 * Feeds the file to `onChunk` a chunk at a time, holding one chunk at once: for what only counts, hashes or scans
 * lines. A file larger than `maxBytes` is not read at all (`cut`, nothing fed), one that grows past it while read is
 * cut there. `undefined` when it is missing, a symlink, or not a regular file.
 */
export async function streamRegularFile(
  path: string,
  maxBytes: number,
  onChunk: (chunk: Buffer) => void,
  options: FollowOptions = {},
): Promise<{ bytes: number; cut: boolean } | undefined> {
  if (!Number.isInteger(maxBytes) || maxBytes < 0) throw new RangeError(`a file read needs a bound, got ${maxBytes}`);
  // A small file is read whole at once; one byte past the bound tells a file larger than it. One that grew since
  // its fstat (more bytes than its size) is streamed below instead, to its end as the bound allows.
  const small = readSynchronously(path, maxBytes + 1, SYNC_READ_BYTES, options);
  if (small === undefined) return undefined;
  if (small !== "large" && small.bytes.length <= small.size) {
    if (small.bytes.length > maxBytes) return { bytes: 0, cut: true };
    if (small.bytes.length > 0) onChunk(small.bytes);
    return { bytes: small.bytes.length, cut: false };
  }
  const opened = await openRegularFile(path, options);
  if (opened === undefined) return undefined;
  try {
    if (opened.size > maxBytes) return { bytes: 0, cut: true };
    const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, opened.size + 1));
    let fed = 0;
    for (;;) {
      const want = Math.min(buffer.length, maxBytes + 1 - fed);
      if (want <= 0) return { bytes: fed, cut: true };
      const { bytesRead } = await opened.handle.read(buffer, 0, want, fed);
      if (bytesRead === 0) return { bytes: fed, cut: false };
      const usable = Math.min(bytesRead, maxBytes - fed);
      if (usable > 0) onChunk(buffer.subarray(0, usable));
      fed += usable;
      if (usable < bytesRead) return { bytes: fed, cut: true };
    }
  } catch {
    return undefined;
  } finally {
    await opened.handle.close();
  }
}

/**
 * Each line of the file (without its newline) to `onLine`, reading at most `maxBytes`; a line longer than
 * `maxLineBytes` is skipped whole (no line of the files read this way is that long). `onLine` returns `true` to stop (anything else goes on).
 * `undefined` when the file is missing, a symlink, or not a regular file; `too_large` when it goes on past `maxBytes`.
 */
export async function forEachLine(
  path: string,
  maxBytes: number,
  maxLineBytes: number,
  onLine: (line: Buffer) => unknown,
): Promise<"read" | "stopped" | "too_large" | undefined> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  let stopped = false;
  const streamed = await streamRegularFile(path, maxBytes, (chunk) => {
    if (stopped) return;
    let at = 0;
    while (at < chunk.length && !stopped) {
      const newline = chunk.indexOf(0x0a, at);
      const end = newline === -1 ? chunk.length : newline;
      if (!skipping) {
        if (pendingBytes + end - at > maxLineBytes) {
          skipping = true;
          pending = [];
          pendingBytes = 0;
        } else {
          pending.push(Buffer.from(chunk.subarray(at, end)));
          pendingBytes += end - at;
        }
      }
      if (newline === -1) break;
      if (!skipping) stopped = onLine(pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes)) === true;
      pending = [];
      pendingBytes = 0;
      skipping = false;
      at = newline + 1;
    }
  });
  if (streamed === undefined) return undefined;
  if (stopped) return "stopped";
  if (streamed.cut) return "too_large";
  if (!skipping && pendingBytes > 0) stopped = onLine(Buffer.concat(pending, pendingBytes)) === true;
  return stopped ? "stopped" : "read";
}

/**
 * The synchronous form of `readRegularFile`, for the few readers that must not wait: the file's first bytes (at most
 * `maxBytes`). `followSymlinks` for a file git itself opens through symlinks (a config include).
 */
export function readRegularFileSync(path: string | Buffer, maxBytes: number, options: FollowOptions = {}): Buffer | undefined {
  checkBound(maxBytes);
  const read = readSynchronously(path, maxBytes, Number.POSITIVE_INFINITY, options);
  return read === "large" ? undefined : read?.bytes;
}

/**
 * The file's first bytes (at most `maxBytes`) read synchronously, with its size when opened; `"large"` (nothing
 * read) when it holds more than `largestSize`.
 */
function readSynchronously(
  path: string | Buffer,
  maxBytes: number,
  largestSize: number,
  options: FollowOptions = {},
): { bytes: Buffer; size: number } | undefined | "large" {
  let fd: number;
  try {
    fd = openSync(path, options.followSymlinks === true ? FOLLOWING_FLAGS : SAFE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return undefined;
    if (info.size > largestSize) return "large";
    const length = Math.min(info.size + 1, maxBytes);
    const chunks: Buffer[] = [];
    let held = 0;
    while (held < length) {
      const want = Math.min(READ_CHUNK_BYTES, length - held);
      const buffer = Buffer.allocUnsafe(want);
      const bytesRead = readSync(fd, buffer, 0, want, held);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      held += bytesRead;
    }
    return { bytes: Buffer.concat(chunks, held), size: info.size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
