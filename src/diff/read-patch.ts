/**
 * Reads a diff the way every gitctx tool shows one: a summary of every changed file (cheap, from
 * `--raw --numstat`, whatever the size of the patch) plus one capped window of the patch, continued by offset.
 */
import { gitFailure } from "../git/args.js";
import { countHunks, diffTotals, parseRawNumstat, type DiffFileSummary, type DiffTotals } from "../git/parse/diff.js";
import type { Repository } from "../git/repository.js";

export const DEFAULT_MAX_BYTES = 20_000;
export const MAX_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_CONTEXT_LINES = 3;

export interface PatchRequest {
  /** What to compare, after `git diff`: e.g. `["--cached"]`, `[oid]`, `[oidA + "..." + oidB]`. */
  revisionArgs: string[];
  /** Literal pathspecs relative to the top level. */
  pathspecs: string[];
  contextLines?: number;
  maxBytes?: number;
  offset?: number;
  /** Summary only: do not read the patch. */
  statOnly?: boolean;
}

export interface PatchWindow {
  files: DiffFileSummary[];
  totals: DiffTotals;
  /** The returned part of the unified patch; `null` when only the summary was asked for. */
  patch: string | null;
  /** Byte offset of `patch` within the whole patch (UTF-8). */
  offset: number;
  /** Total size of the whole patch in bytes; `null` when it was cut before its end (not cheaply knowable). */
  bytes: number | null;
  returnedBytes: number;
  truncated: boolean;
  /** Pass as `offset` to get the bytes right after this window; `null` when nothing follows. */
  nextOffset: number | null;
}

/** Options shared by both passes so they describe the same diff. */
const COMMON = ["-M", "-C", "--submodule=short", "--ignore-submodules=none"];

export async function readPatch(repo: Repository, request: PatchRequest): Promise<PatchWindow> {
  const tail = [...request.revisionArgs, "--", ...request.pathspecs];
  const summaryRun = repo.git("diff", ["--raw", "--numstat", "-z", "--no-abbrev", ...COMMON, ...tail]);
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const offset = request.offset ?? 0;
  const patchRun = request.statOnly
    ? undefined
    : repo.git(
        "diff",
        [
          "--patch",
          `--unified=${request.contextLines ?? DEFAULT_CONTEXT_LINES}`,
          "--src-prefix=a/",
          "--dst-prefix=b/",
          ...COMMON,
          ...tail,
        ],
        { maxBytes, skipBytes: offset },
      );

  const [summary, patch] = await Promise.all([summaryRun, patchRun]);
  if (summary.exitCode !== 0) throw gitFailure("git diff", summary.stderr);
  const files = parseRawNumstat(summary.stdout);

  if (patch === undefined) {
    return { files, totals: diffTotals(files), patch: null, offset: 0, bytes: null, returnedBytes: 0, truncated: false, nextOffset: null };
  }
  if (!patch.truncated && patch.exitCode !== 0) throw gitFailure("git diff", patch.stderr);

  const wholePatch = offset === 0 && !patch.truncated;
  let hunks: Map<string, number>;
  try {
    hunks = countHunks(patch.stdout, !patch.truncated);
  } catch {
    // An unparsable section leaves hunk counts unknown; the patch text itself is still returned as is.
    hunks = new Map();
  }
  for (const file of files) {
    const counted = hunks.get(file.path);
    file.hunks = counted ?? (wholePatch ? 0 : null);
  }
  const start = patch.skippedBytes;
  return {
    files,
    totals: diffTotals(files),
    patch: patch.stdout,
    offset: start,
    bytes: patch.totalBytes,
    returnedBytes: patch.returnedBytes,
    truncated: patch.truncated,
    nextOffset: patch.truncated ? start + patch.returnedBytes : null,
  };
}
