/**
 * Git's index file as the watcher compares it: what it says about content only (path, mode, object id, stage,
 * intent-to-add), read by the one index reader (`src/git/parse/index-file.ts`). Stat data (times, inode, size) is
 * left out on purpose: `git status` rewrites the index to refresh it, and that is not a change anybody staged.
 */
import { createHash } from "node:crypto";
import { parseIndex as readIndexFile } from "../git/parse/index-file.js";

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

/** Why an index file could not be read; the watcher then treats any rewrite of it as a change. */
export class IndexFormatError extends Error {
  override readonly name = "IndexFormatError";
}

/** `oidBytes`: 20 for SHA-1 repositories, 32 for SHA-256 ones. Entries as git's one index reader gives them. */
export function parseIndex(data: Uint8Array, oidBytes = 20): ParsedIndex {
  const parsed = readIndexFile(Buffer.from(data.buffer, data.byteOffset, data.byteLength), oidBytes);
  if (!parsed.ok) throw new IndexFormatError(parsed.problem);
  const hash = createHash("sha1");
  const entries = parsed.entries.map((entry): IndexEntry => {
    hash.update(entry.path);
    hash.update(`\0${entry.mode.toString(8)} ${entry.stage}${entry.intentToAdd ? "i" : ""}`);
    hash.update(Buffer.from(entry.oid, "hex"));
    return { path: entry.path.toString("latin1"), mode: entry.mode, oid: entry.oid, stage: entry.stage, intentToAdd: entry.intentToAdd };
  });
  return { version: parsed.version, entries, split: parsed.split, digest: hash.digest("hex") };
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
