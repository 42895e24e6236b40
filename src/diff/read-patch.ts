/**
 * Reads a diff the way every gitctx tool shows one: a summary of every changed file (cheap, from
 * `--raw --numstat`, whatever the size of the patch) plus one capped window of the patch, continued by offset.
 */
import { gitFailure } from "../git/failures.js";
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
  /**
   * The workspace root relative to the top level (`/`-separated, no trailing slash), when they differ: only
   * changes below it are shown, named relative to it (`git diff --relative`). Pathspecs stay top-level relative.
   */
  relativeTo?: string;
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
const COMMON = ["-M", "--submodule=short", "--ignore-submodules=none"];
const FIND_COPIES = "-C";

export async function readPatch(repo: Repository, request: PatchRequest): Promise<PatchWindow> {
  const first = await readOnce(repo, request, true);
  // git 2.39 lets unmerged index entries take part in copy detection and prints a corrupt record for them
  // (an unmerged path reported as a copy, under another file's name). Copies are meaningless mid-conflict,
  // so a diff that shows unmerged paths is read again without looking for them.
  if (!first.files.some((file) => file.status === "unmerged")) return first;
  return readOnce(repo, request, false);
}

async function readOnce(repo: Repository, request: PatchRequest, findCopies: boolean): Promise<PatchWindow> {
  const relative = request.relativeTo === undefined || request.relativeTo === "" ? [] : [`--relative=${request.relativeTo}/`];
  const options = [...COMMON, ...(findCopies ? [FIND_COPIES] : [])];
  const tail = [...relative, ...request.revisionArgs, "--", ...request.pathspecs];
  const summaryRun = repo.git("diff", ["--raw", "--numstat", "-z", "--no-abbrev", ...options, ...tail]);
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const offset = request.offset ?? 0;
  const patchArgs = [
    "--patch",
    `--unified=${request.contextLines ?? DEFAULT_CONTEXT_LINES}`,
    "--src-prefix=a/",
    "--dst-prefix=b/",
    ...options,
    ...tail,
  ];
  const patchRun = request.statOnly ? undefined : repo.git("diff", patchArgs, { maxBytes, skipBytes: offset });

  const [summary, firstPatch] = await Promise.all([summaryRun, patchRun]);
  if (summary.exitCode !== 0) throw gitFailure("git diff", summary.stderr);
  const files = parseRawNumstat(summary.stdout);

  if (firstPatch === undefined) {
    // No patch was read, so hunk counts are unknown rather than zero.
    for (const file of files) file.hunks = null;
    return { files, totals: diffTotals(files), patch: null, offset: 0, bytes: null, returnedBytes: 0, truncated: false, nextOffset: null };
  }
  let patch = firstPatch;
  if (patch.truncated && patch.returnedBytes === 0) {
    // maxBytes is smaller than the character at this offset: return that one character rather than an empty
    // window whose nextOffset repeats this offset forever. A UTF-8 character is at most 4 bytes.
    patch = await repo.git("diff", patchArgs, { maxBytes: 4, skipBytes: offset });
  }
  if (!patch.truncated && patch.exitCode !== 0) throw gitFailure("git diff", patch.stderr);

  const wholePatch = offset === 0 && !patch.truncated;
  const hunks = countHunks(patch.stdout, !patch.truncated);
  for (const file of files) {
    // Absent from the counts: no section of its own in a whole patch (e.g. "* Unmerged path"), so no hunks;
    // otherwise its section is outside this window, or could not be read, and the count is unknown.
    file.hunks = hunks.counts.get(file.path) ?? (wholePatch && !hunks.unreadable ? 0 : null);
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
