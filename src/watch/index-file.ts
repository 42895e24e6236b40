/**
 * Git's index file (`DIRC`, versions 2 to 4), read for what it says about content only: path, mode, object id,
 * stage and intent-to-add. Stat data (times, inode, size) is left out on purpose: `git status` rewrites the index
 * to refresh it, and that is not a change anybody staged. Pure: bytes in, entries out.
 */
import { createHash } from "node:crypto";

export interface IndexEntry {
  /** The path's bytes as a latin1 string (lossless); decode with `Buffer.from(path, "latin1")` to show it. */
  path: string;
  mode: number;
  oid: string;
  /** 0 for a normal entry, 1-3 for the sides of a conflict. */
  stage: number;
  intentToAdd: boolean;
}

export interface ParsedIndex {
  version: number;
  entries: IndexEntry[];
  /** A split index keeps most entries in a shared file: the entries here are not the whole index. */
  split: boolean;
  /** A digest of every entry's path, mode, object id, stage and intent-to-add, in order. */
  digest: string;
}

const SIGNATURE = 0x44495243; // "DIRC"
const STAT_BYTES = 40;
const FLAG_EXTENDED = 0x4000;
const FLAG_INTENT_TO_ADD = 0x2000; // in the extended flags (version 3+)

/** Why an index file could not be read; the watcher then treats any rewrite of it as a change. */
export class IndexFormatError extends Error {
  override readonly name = "IndexFormatError";
}

/** `oidBytes`: 20 for SHA-1 repositories, 32 for SHA-256 ones. */
export function parseIndex(data: Uint8Array, oidBytes = 20): ParsedIndex {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buffer.length < 12 || buffer.readUInt32BE(0) !== SIGNATURE) throw new IndexFormatError("not an index file (no DIRC signature)");
  const version = buffer.readUInt32BE(4);
  if (version < 2 || version > 4) throw new IndexFormatError(`index version ${version} is not supported`);
  const count = buffer.readUInt32BE(8);
  const hash = createHash("sha1");
  const entries: IndexEntry[] = [];
  let offset = 12;
  let previousPath: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const fixed = STAT_BYTES + oidBytes + 2;
    if (offset + fixed > buffer.length) throw new IndexFormatError("index ends inside an entry");
    const mode = buffer.readUInt32BE(offset + 24);
    const oidStart = offset + STAT_BYTES;
    const oid = buffer.subarray(oidStart, oidStart + oidBytes);
    const flags = buffer.readUInt16BE(oidStart + oidBytes);
    let cursor = oidStart + oidBytes + 2;
    let extended = 0;
    if (flags & FLAG_EXTENDED) {
      if (version < 3) throw new IndexFormatError("extended flags in a version 2 index");
      extended = buffer.readUInt16BE(cursor);
      cursor += 2;
    }
    const stage = (flags >> 12) & 0x3;
    let path: Buffer;
    if (version === 4) {
      // A prefix-compressed path: how many bytes of the previous path to drop, then the new suffix.
      let byte = buffer[cursor++]!;
      let drop = byte & 0x7f;
      while (byte & 0x80) {
        byte = buffer[cursor++]!;
        drop = ((drop + 1) << 7) + (byte & 0x7f);
      }
      const end = buffer.indexOf(0, cursor);
      if (end === -1 || drop > previousPath.length) throw new IndexFormatError("malformed version 4 path");
      path = Buffer.concat([previousPath.subarray(0, previousPath.length - drop), buffer.subarray(cursor, end)]);
      offset = end + 1;
    } else {
      const end = buffer.indexOf(0, cursor);
      if (end === -1) throw new IndexFormatError("index ends inside a path");
      path = buffer.subarray(cursor, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes from their start.
      const length = end - offset;
      offset += (length + 8) & ~7;
    }
    previousPath = path;
    const intentToAdd = (extended & FLAG_INTENT_TO_ADD) !== 0;
    hash.update(path);
    hash.update(`\0${mode.toString(8)} ${stage}${intentToAdd ? "i" : ""}`);
    hash.update(oid);
    entries.push({ path: path.toString("latin1"), mode, oid: oid.toString("hex"), stage, intentToAdd });
  }
  let split = false;
  // Extensions follow the entries: a 4-byte signature and a 4-byte size each, then the file's checksum.
  while (offset + 8 <= buffer.length - oidBytes) {
    const signature = buffer.toString("latin1", offset, offset + 4);
    const size = buffer.readUInt32BE(offset + 4);
    if (signature === "link") split = true;
    offset += 8 + size;
  }
  return { version, entries, split, digest: hash.digest("hex") };
}

/** The object id size of a repository, from its config text (`extensions.objectFormat = sha256`). */
export function oidBytesFromConfig(configText: string | undefined): number {
  return configText !== undefined && /^\s*objectformat\s*=\s*sha256\s*$/im.test(configText) ? 32 : 20;
}

/** What differs between two indexes, by path: added, removed or changed entries (any stage). */
export function changedIndexPaths(before: readonly IndexEntry[], after: readonly IndexEntry[]): string[] {
  const describe = (entries: readonly IndexEntry[]): Map<string, string> => {
    const map = new Map<string, string>();
    for (const entry of entries) {
      const value = `${entry.stage}:${entry.mode}:${entry.oid}:${entry.intentToAdd ? 1 : 0}`;
      const known = map.get(entry.path);
      map.set(entry.path, known === undefined ? value : `${known},${value}`);
    }
    return map;
  };
  const old = describe(before);
  const now = describe(after);
  const changed: string[] = [];
  for (const [path, value] of now) if (old.get(path) !== value) changed.push(path);
  for (const path of old.keys()) if (!now.has(path)) changed.push(path);
  return changed.sort();
}

/** Paths with conflict entries (stages 1-3), each once, sorted. */
export function conflictedPaths(entries: readonly IndexEntry[]): string[] {
  return [...new Set(entries.filter((entry) => entry.stage > 0).map((entry) => entry.path))].sort();
}
