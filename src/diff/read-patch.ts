/**
 * Reads a diff the way every gitctx tool shows one: every changed file plus one capped window of the patch,
 * continued by offset. One git process prints both (`--raw` records, then the patch), and stops when the window
 * is full, so the cost follows the window, not the size of the diff: line counts come from the patch itself, for
 * the files it shows whole. A stat-only read counts every file with `--numstat` instead.
 */
import { gitFailure, LimitError } from "../git/failures.js";
import {
  countPatch,
  diffTotals,
  parseRaw,
  parseRawNumstat,
  rawHeaderScanner,
  splitLeadingFields,
  type DiffFileSummary,
  type DiffTotals,
} from "../git/parse/diff.js";
import type { Repository } from "../git/repository.js";
import { NUL_FIELDS, type GitCallOptions, type ProcessResult } from "../git/run.js";

export const DEFAULT_MAX_BYTES = 20_000;
export const MAX_MAX_BYTES = 10 * 1024 * 1024;

export interface PatchRequest {
  /** What to compare, after `git diff` (or `git show`): e.g. `["--cached"]`, `[oid]`, `[oidA + "..." + oidB]`. */
  revisionArgs: string[];
  /** Literal pathspecs relative to the top level. */
  pathspecs: string[];
  /** Lines of context around each change; without it, `diff.context` as plain git reads it (Repository.diffContext). */
  contextLines?: number;
  maxBytes?: number;
  offset?: number;
  /** Summary only, every file counted: do not read the patch. */
  statOnly?: boolean;
  /**
   * `show`: what is compared is one commit against its first parent, named in `revisionArgs` with a `--format`
   * of `leadingFields` NUL-separated fields, which git prints first (see {@link readShownCommit}).
   */
  subcommand?: "diff" | "show";
  leadingFields?: number;
  /** Look for copies too, not only renames (`-C`): more than git shows by default, and slower. Default false. */
  findCopies?: boolean;
  /**
   * The workspace root relative to the top level (`/`-separated, no trailing slash), when they differ: only
   * changes below it are shown, named relative to it (`git diff --relative`). Pathspecs stay top-level relative.
   */
  relativeTo?: string;
  /**
   * Given the window as git printed it and every changed file, the number of its bytes to return (the rest is
   * left for the next window, exactly as if `maxBytes` had stopped there): for a caller that fits the answer to
   * a token budget. It must keep at least one character of a non-empty window.
   */
  fitPatch?: (patch: Buffer, files: readonly DiffFileSummary[], fields: readonly string[]) => Promise<number>;
}

/** How renames (and copies) were looked for, and whether git had to give up on some. */
export interface RenameDetection {
  /** Copies were looked for too, not only renames. */
  copies: boolean;
  /**
   * More files changed than git compares for renames (`diff.renameLimit`, 1000 unless set): git compared only what it could
   * and some renames may show as a deletion plus an addition.
   */
  limitExceeded: boolean;
  /** Why detection was switched off for this answer (files too large to compare within the memory limit); else `null`. */
  skipped: string | null;
}

export interface PatchWindow {
  /** One page of the changed files, in git's order: `totals.files` files in all, these from `fileOffset` on. */
  files: DiffFileSummary[];
  /** Every changed file, counted (lines only for the files counted: see `uncounted`), not only the page. */
  totals: DiffTotals;
  /** Index of the page's first file among all of them. */
  fileOffset: number;
  /** Pass as `fileOffset` for the next page of files; `null` when this page holds the last file. */
  nextFileOffset: number | null;
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
  renames: RenameDetection;
}

/** A commit's leading fields (its message, names) are cut like every field; a patch is paged instead. */
function leadFields(request: PatchRequest): GitCallOptions {
  return (request.leadingFields ?? 0) > 0 ? { fieldLimit: NUL_FIELDS } : {};
}

/**
 * Options shared by both passes so they describe the same diff. A submodule's change is shown as its commits
 * (`--submodule=short`, whatever `diff.submodule` says: a format); which changes are left out is the user's git's
 * answer (`submodule.<name>.ignore`, `diff.ignoreSubmodules`).
 */
const COMMON = ["--submodule=short"];

/** git's warnings when a diff has more files than its rename limit lets it compare. */
const RENAME_LIMIT_WARNING = /rename detection was skipped due to too many files|only found copies from modified paths due to too many files/;

export async function readPatch(repo: Repository, request: PatchRequest): Promise<PatchWindow> {
  return (await readWithLead(repo, request)).window;
}

/**
 * Rename detection loads both files of every candidate pair whole: two blobs of zeros that pack to a megabyte
 * can need a gigabyte and more. When that passes the memory limit, the diff is read again without detection,
 * and the answer says so.
 */
async function withRenameFallback(read: (detect: boolean) => Promise<ReadDiff>): Promise<ReadDiff> {
  try {
    return await read(true);
  } catch (error) {
    if (!(error instanceof LimitError) || error.limit !== "memory") throw error;
    const result = await read(false);
    result.window.renames.skipped = "comparing the files for renames needed more memory than gitctx allows git";
    return result;
  }
}

/** The `--format` fields git printed before the diff (none for `git diff`), and the diff. */
interface ReadDiff {
  fields: string[];
  window: PatchWindow;
}

/** A commit's `--format` fields (`request.leadingFields` of them) and its diff, from one `git show`. */
export async function readShownCommit(repo: Repository, request: PatchRequest): Promise<ReadDiff> {
  return readWithLead(repo, { ...request, subcommand: "show" });
}

function readWithLead(repo: Repository, request: PatchRequest): Promise<ReadDiff> {
  return withRenameFallback((detect) => readDetecting(repo, request, detect));
}

async function readDetecting(repo: Repository, request: PatchRequest, detect: boolean): Promise<ReadDiff> {
  const findCopies = detect && request.findCopies === true;
  if (request.statOnly) return readSummary(repo, request, detect, findCopies);
  const patch = await runPatch(repo, request, { detect, findCopies, withRaw: true });
  const { fields, rest } = splitLeadingFields(patch.header, request.leadingFields ?? 0);
  const files = parseRaw(rest);
  if (!files.some((file) => file.status === "unmerged")) {
    return { fields, window: patchWindow(await fitted(patch, files, fields, request), files, request.offset ?? 0, true, findCopies) };
  }
  // Mid-conflict, git 2.39 prints a combined record and no patch when --raw is asked for with one, and lets
  // unmerged index entries take part in copy detection (printing a corrupt record: an unmerged path reported as a
  // copy, under another file's name). So a conflict is read the older way: no copies, the summary and its line
  // counts from `--numstat`, the patch on its own (a combined patch has a column per parent, not counted here).
  const [summary, again] = await Promise.all([
    readSummary(repo, request, detect, false),
    runPatch(repo, request, { detect, findCopies: false, withRaw: false }),
  ]);
  const window = patchWindow(await fitted(again, summary.window.files, fields, request), summary.window.files, request.offset ?? 0, false, false);
  window.renames.limitExceeded ||= summary.window.renames.limitExceeded;
  return { fields, window };
}

/** The window cut where the caller's `fitPatch` says, as if git had been stopped there. */
async function fitted(
  patch: ProcessResult,
  files: readonly DiffFileSummary[],
  fields: readonly string[],
  request: PatchRequest,
): Promise<ProcessResult> {
  if (request.fitPatch === undefined || patch.returnedBytes === 0) return patch;
  const keep = Math.max(1, Math.min(patch.bytes.length, await request.fitPatch(patch.bytes, files, fields)));
  if (keep >= patch.bytes.length) return patch;
  const bytes = patch.bytes.subarray(0, keep);
  // The total stays known when git printed the whole patch: only the window is shorter.
  return { ...patch, bytes, stdout: bytes.toString("utf8"), returnedBytes: keep, truncated: true };
}

function diffArgs(request: PatchRequest, detect: boolean, findCopies: boolean): { options: string[]; tail: string[] } {
  const relative = request.relativeTo === undefined || request.relativeTo === "" ? [] : [`--relative=${request.relativeTo}/`];
  return {
    // git's own default (what a pull request page shows): renames; copies only when asked.
    options: [...COMMON, ...(!detect ? ["--no-renames"] : findCopies ? ["-C"] : ["-M"])],
    tail: [...relative, ...request.revisionArgs, "--", ...request.pathspecs],
  };
}

/** Every file with its line counts (`--numstat`), no patch. */
async function readSummary(repo: Repository, request: PatchRequest, detect: boolean, findCopies: boolean): Promise<ReadDiff> {
  const { options, tail } = diffArgs(request, detect, findCopies);
  const subcommand = request.subcommand ?? "diff";
  const summary = await repo.git(subcommand, ["--raw", "--numstat", "-z", ...options, ...tail], leadFields(request));
  if (summary.exitCode !== 0) throw gitFailure(`git ${subcommand}`, summary.stderr);
  const { fields, rest } = splitLeadingFields(summary.stdout, request.leadingFields ?? 0);
  const files = parseRawNumstat(rest);
  // No patch was read, so hunk counts are unknown rather than zero.
  const window: PatchWindow = {
    files,
    totals: diffTotals(files),
    fileOffset: 0,
    nextFileOffset: null,
    patch: null,
    offset: 0,
    bytes: null,
    returnedBytes: 0,
    truncated: false,
    nextOffset: null,
    renames: renameDetection(summary, findCopies),
  };
  return { fields, window };
}

/** The window of the patch; `withRaw`: preceded by every file's `--raw` record, returned as the header. */
async function runPatch(
  repo: Repository,
  request: PatchRequest,
  { detect, findCopies, withRaw }: { detect: boolean; findCopies: boolean; withRaw: boolean },
): Promise<ProcessResult> {
  const { options, tail } = diffArgs(request, detect, findCopies);
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const offset = request.offset ?? 0;
  const args = [
    ...(withRaw ? ["--raw", "-z"] : []),
    "--patch",
    // Without the caller's number, the repository's or the user's diff.context (git's 3 without one).
    `--unified=${request.contextLines ?? repo.diffContext}`,
    "--src-prefix=a/",
    "--dst-prefix=b/",
    ...options,
    ...tail,
  ];
  const subcommand = request.subcommand ?? "diff";
  // The header holds the commit's fields: they are cut like every field (the patch after them is paged instead).
  const header = () => (withRaw ? { header: rawHeaderScanner(request.leadingFields ?? 0), ...leadFields(request) } : {});
  let patch = await repo.git(subcommand, args, { maxBytes, skipBytes: offset, ...header() });
  if (patch.truncated && patch.returnedBytes === 0) {
    // maxBytes is smaller than the character at this offset: return that one character rather than an empty
    // window whose nextOffset repeats this offset forever. A UTF-8 character is at most 4 bytes.
    patch = await repo.git(subcommand, args, { maxBytes: 4, skipBytes: offset, ...header() });
  }
  if (!patch.truncated && patch.exitCode !== 0) throw gitFailure(`git ${subcommand}`, patch.stderr);
  return patch;
}

/**
 * The window, with what it shows of each file: hunks, and with `countLines` the line counts too, for the files
 * whose sections it holds whole.
 */
function patchWindow(patch: ProcessResult, files: DiffFileSummary[], offset: number, countLines: boolean, findCopies: boolean): PatchWindow {
  const wholePatch = offset === 0 && !patch.truncated;
  const { counts, unreadable } = countPatch(patch.stdout, !patch.truncated);
  const unchanged = { hunks: 0, additions: 0, deletions: 0, binary: false };
  // Two names that are not UTF-8 can read as the same text (each bad byte becomes U+FFFD): their sections cannot be
  // told apart, so neither is counted from the patch (stat=true counts each from git's own per-file numbers).
  const named = new Map<string, number>();
  for (const file of files) named.set(file.path, (named.get(file.path) ?? 0) + 1);
  for (const file of files) {
    if (named.get(file.path)! > 1) continue;
    // A type change has two sections (deletion, creation): only a whole patch is sure to hold both.
    const counted = file.status === "type_changed" && !wholePatch ? undefined : counts.get(file.path);
    // Absent from a whole patch: no section of its own (e.g. "* Unmerged path"). Otherwise its section is
    // outside this window, or could not be read: it stays uncounted.
    const shown = counted ?? (wholePatch && !unreadable ? unchanged : undefined);
    if (shown === undefined) continue;
    if (countLines) Object.assign(file, shown);
    else file.hunks = shown.hunks;
  }
  const start = patch.skippedBytes;
  return {
    files,
    totals: diffTotals(files),
    fileOffset: 0,
    nextFileOffset: null,
    patch: patch.stdout,
    offset: start,
    bytes: patch.totalBytes,
    returnedBytes: patch.returnedBytes,
    truncated: patch.truncated,
    nextOffset: patch.truncated ? start + patch.returnedBytes : null,
    renames: renameDetection(patch, findCopies),
  };
}

function renameDetection(result: ProcessResult, copies: boolean): RenameDetection {
  return { copies, limitExceeded: RENAME_LIMIT_WARNING.test(result.stderr), skipped: null };
}
