/**
 * A session's copy of its instruction files. A load with the same options is answered from memory while every
 * file and directory the result was read from keeps its signature (one stat each, no reading); a load with
 * other options (new paths) reads again, but reuses every listing and parsed file whose signature is unchanged.
 * With a watcher feeding `invalidate`, `revalidate: false` skips even the stats.
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { createLoaderMemo, currentSignature } from "./files.js";
import type { InstructionsResult, LoadInstructionsOptions } from "./types.js";

export interface InstructionsCacheOptions {
  /**
   * A file changed less than this long before a load is not trusted to show its next change in its signature
   * (timestamps are coarse), so such a result is not reused. Default: the file system's own window, as for every
   * signature gitctx keeps (`settledAt` in src/git/file-signature.ts: 20 ms, 2 s where times are whole seconds).
   */
  settleMs?: number;
  /** Results kept, for different options; the least recently used goes first. Default 32. */
  maxResults?: number;
}

export interface CachedLoadOptions {
  /**
   * `false`: trust the cached result without checking signatures, because a watcher calls `invalidate` on every
   * change. Default `true`.
   */
  revalidate?: boolean;
}

export interface InstructionsCacheStats {
  /** Answered from memory. */
  hits: number;
  /** Loaded (partly from the memo of listings and parsed files). */
  loads: number;
}

export class InstructionsCache {
  private readonly memo = createLoaderMemo();
  private readonly results = new Map<string, InstructionsResult>();
  private readonly settleMs: number | undefined;
  private readonly maxResults: number;
  readonly stats: InstructionsCacheStats = { hits: 0, loads: 0 };

  constructor(options: InstructionsCacheOptions = {}) {
    this.settleMs = options.settleMs;
    this.maxResults = Math.max(1, options.maxResults ?? 32);
  }

  async load(options: LoadInstructionsOptions, how: CachedLoadOptions = {}): Promise<InstructionsResult> {
    const key = cacheKey(options);
    const cached = this.results.get(key);
    if (cached?.settled && (how.revalidate === false || isInstructionsResultCurrent(cached))) {
      this.results.delete(key);
      this.results.set(key, cached);
      this.stats.hits++;
      return cached;
    }
    this.stats.loads++;
    // Loaded on the first load: a session that never reads instruction files never loads their parsers.
    const { loadInstructionsWith } = await import("./load.js");
    const result = await loadInstructionsWith(options, { memo: this.memo, settleMs: this.settleMs });
    this.results.delete(key);
    this.results.set(key, result);
    while (this.results.size > this.maxResults) this.results.delete(this.results.keys().next().value as string);
    return result;
  }

  /**
   * Forgets the results that depend on `paths` (absolute paths a watcher saw change: a file, or a file created
   * or removed in a watched directory), or every result when none are given.
   */
  invalidate(paths?: Iterable<string>): void {
    if (paths === undefined) {
      this.results.clear();
      return;
    }
    const changed = [...paths];
    for (const [key, result] of this.results) {
      const hit = result.watched.some(({ path }) =>
        changed.some((change) => change === path || dirname(change) === path || path.startsWith(`${change}/`)),
      );
      if (hit) this.results.delete(key);
    }
  }

  /** Forgets everything, the memo of listings and parsed files included. */
  clear(): void {
    this.results.clear();
    this.memo.listings.clear();
    this.memo.files.clear();
  }
}

/** Whether every file and directory the result was read from still has the signature it had (one stat each). */
export function isInstructionsResultCurrent(result: InstructionsResult): boolean {
  let expected = parsedSignatures.get(result);
  if (expected === undefined) {
    expected = result.watched.map(({ path, signature }) => ({ path, signature, parts: parseSignature(signature) }));
    parsedSignatures.set(result, expected);
  }
  for (const { path, signature, parts } of expected) {
    if (parts === undefined) {
      if (currentSignature(path) !== signature) return false;
      continue;
    }
    // The signature's fields compared as numbers: no text made per path (a big tree has thousands).
    let info;
    try {
      info = statSync(path, { bigint: true, throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (
      info === undefined ||
      info.mtimeNs !== parts[4] ||
      info.ctimeNs !== parts[5] ||
      info.ino !== parts[1] ||
      info.size !== parts[2] ||
      info.dev !== parts[0] ||
      info.mode !== parts[3]
    ) {
      return false;
    }
  }
  return true;
}

const parsedSignatures = new WeakMap<InstructionsResult, Array<{ path: string; signature: string; parts: bigint[] | undefined }>>();

/** `dev:ino:size:mode:mtimeNs:ctimeNs` as numbers, or `undefined` for `missing` and the like. */
function parseSignature(signature: string): bigint[] | undefined {
  const parts = signature.split(":");
  if (parts.length !== 6 || !parts.every((part) => /^\d+$/.test(part))) return undefined;
  return parts.map(BigInt);
}

function cacheKey(options: LoadInstructionsOptions): string {
  return JSON.stringify([
    options.root,
    options.topLevel ?? null,
    options.paths ?? [],
    options.formats ?? null,
    // String: JSON would write Infinity as null, the same as no budget (the default).
    options.budget === undefined ? null : String(options.budget),
    options.explain === true,
    options.home ?? null,
    options.managedDir ?? null,
    options.excludes ?? [],
    options.allowedImportDirs ?? [],
    options.walkAboveTopLevel === true,
    options.maxImportDepth ?? null,
    options.maxFileBytes ?? null,
  ]);
}
