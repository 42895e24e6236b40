/**
 * What the git directory says, read from its files' content (never inferred from which file changed): HEAD,
 * the refs (loose and packed), HEAD's reflog, the operation in progress, the index's entries, the stash, the
 * remote-tracking refs, FETCH_HEAD and the config. Two readings are compared into git events by `diffGitStates`,
 * so `git pack-refs` (refs move between files, not values), a `git status` that rewrites the index with the same
 * entries, and lock files coming and going are not events.
 *
 * A linked worktree keeps HEAD, its reflog, the index and the operation files in its own git directory, and the
 * refs in the common one. Every file is read with `readRegularFile`: a symlink or a FIFO planted in a git
 * directory is neither followed nor waited on.
 */
import { lstat, readdir, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { MAX_INDEX_BYTES, MAX_PACKED_REFS_BYTES, MAX_REF_LINE_BYTES, MAX_STATE_FILE_BYTES } from "../git/file-limits.js";
import { forEachLine, openRegularFile, readAt, readRegularFile, readWholeRegularFile, streamRegularFile } from "../git/read-file.js";
import { changedIndexPaths, conflictedPaths, IndexFormatError, oidBytesFromConfig, parseIndex, type IndexEntry } from "./index-file.js";
import type { GitEventDetails, GitEventKind, OperationName, RefMove } from "./types.js";

export interface GitDirectories {
  gitDir: string;
  commonDir: string;
}

export interface HeadState {
  /** The ref HEAD points to (`refs/heads/main`), or `null` when detached (or unreadable). */
  ref: string | null;
  /** HEAD's commit, `null` on an unborn branch. */
  oid: string | null;
}

export interface ReflogEntry {
  from: string;
  to: string;
  message: string;
}

export interface IndexState {
  digest: string;
  entries: IndexEntry[] | undefined;
  /** Set when the entries could not be read: any rewrite then counts as a change. */
  unreadable: boolean;
}

export interface GitState {
  head: HeadState;
  /** HEAD's reflog size in bytes, to read only what was appended next time. */
  reflogSize: number;
  /** Entries appended to HEAD's reflog since the previous reading (the last one is the newest). */
  reflog: ReflogEntry[];
  operations: OperationName[];
  index: IndexState | null;
  stash: { oid: string | null; entries: number };
  /** `refs/remotes/**`, name → object id. */
  remotes: Map<string, string>;
  /** `refs/heads/**` and `refs/tags/**`. */
  locals: Map<string, string>;
  fetchHead: string | null;
  config: string | null;
  excludes: string | null;
  /** Names of the linked worktrees (directories of `<common>/worktrees/`), sorted. */
  worktrees: string[];
}

/** What a reading found that the previous one did not: a git event before it gets its sequence number. */
export interface GitChange {
  kind: GitEventKind;
  summary: string;
  /** Paths relative to the top level (index paths), `/`-separated. */
  paths: string[];
  details: GitEventDetails;
}

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const SMALL = 64 * 1024;
/** Reading this much of a long reflog's tail is enough for the entries one burst of git work appends. */
const REFLOG_TAIL = 256 * 1024;
const PER_WORKTREE_REFS = ["refs/bisect/", "refs/worktree/", "refs/rewritten/"];

async function readText(path: string, maxBytes = SMALL): Promise<string | undefined> {
  return (await readRegularFile(path, maxBytes))?.toString("utf8");
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

async function signature(path: string): Promise<string | null> {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch {
    return null;
  }
}

function contentHash(text: string | undefined): string | null {
  return text === undefined ? null : createHash("sha1").update(text).digest("hex");
}

/** packed-refs, parsed once per version of the file. */
const packedCache = new Map<string, { signature: string; refs: Map<string, string> }>();

async function packedRefs(commonDir: string): Promise<Map<string, string>> {
  const path = join(commonDir, "packed-refs");
  const sig = await signature(path);
  if (sig === null) return new Map();
  const cached = packedCache.get(path);
  if (cached !== undefined && cached.signature === sig) return cached.refs;
  // Line by line, never whole: a packed-refs of gigabytes (git maps it) would otherwise crash the host.
  const refs = new Map<string, string>();
  const read = await forEachLine(path, MAX_PACKED_REFS_BYTES, MAX_REF_LINE_BYTES, (bytes) => {
    const line = bytes.toString("utf8");
    if (line === "" || line.startsWith("#") || line.startsWith("^")) return;
    const space = line.indexOf(" ");
    const oid = line.slice(0, space);
    if (space > 0 && OID.test(oid)) refs.set(line.slice(space + 1), oid);
  });
  // Past the bound the refs cannot be told: the last reading stands (no event rather than a false one).
  if (read === "too_large") return cached?.refs ?? new Map();
  if (packedCache.size > 16) packedCache.clear();
  packedCache.set(path, { signature: sig, refs });
  return refs;
}

/** A ref's object id: the loose file first (following `ref:` a few levels), then packed-refs. */
export async function resolveRef(dirs: GitDirectories, name: string, depth = 0): Promise<string | null> {
  if (depth > 5 || name.includes("..") || !name.startsWith("refs/")) return null;
  const base = PER_WORKTREE_REFS.some((prefix) => name.startsWith(prefix)) ? dirs.gitDir : dirs.commonDir;
  const loose = (await readText(join(base, name), 4096))?.trim();
  if (loose !== undefined) {
    if (OID.test(loose)) return loose;
    if (loose.startsWith("ref: ")) return resolveRef(dirs, loose.slice(5).trim(), depth + 1);
  }
  return (await packedRefs(dirs.commonDir)).get(name) ?? null;
}

export async function readHead(dirs: GitDirectories): Promise<HeadState> {
  const text = (await readText(join(dirs.gitDir, "HEAD"), 4096))?.trim();
  if (text === undefined) return { ref: null, oid: null };
  if (text.startsWith("ref: ")) {
    const ref = text.slice(5).trim();
    return { ref, oid: await resolveRef(dirs, ref) };
  }
  return { ref: null, oid: OID.test(text) ? text : null };
}

/** Loose refs below `refs/<prefix>` (lock files and symbolic refs skipped), merged over the packed ones. */
async function listRefs(dirs: GitDirectories, prefixes: readonly string[]): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  for (const [name, oid] of await packedRefs(dirs.commonDir)) if (prefixes.some((prefix) => name.startsWith(prefix))) refs.set(name, oid);
  const walk = async (relative: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(dirs.commonDir, relative), { withFileTypes: true });
    } catch {
      return;
    }
    await Promise.all(
      entries.map(async (entry) => {
        const name = `${relative}/${entry.name}`;
        if (entry.isDirectory()) return walk(name);
        if (!entry.isFile() || entry.name.endsWith(".lock")) return;
        const text = (await readText(join(dirs.commonDir, name), 4096))?.trim();
        if (text === undefined) return;
        // A symbolic ref (`refs/remotes/origin/HEAD`) names another ref: that one's moves are the events.
        if (OID.test(text)) refs.set(name, text);
      }),
    );
  };
  await Promise.all(prefixes.map((prefix) => walk(prefix.replace(/\/$/, ""))));
  return refs;
}

/** The lines of a file (its newlines), counted a chunk at a time; `undefined` when it is not a regular file (or far too large). */
async function countLines(path: string): Promise<number | undefined> {
  let lines = 0;
  const read = await streamRegularFile(path, MAX_STATE_FILE_BYTES, (chunk) => {
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines++;
  });
  return read === undefined || read.cut ? undefined : lines;
}

function parseReflog(text: string): ReflogEntry[] {
  const entries: ReflogEntry[] = [];
  for (const line of text.split("\n")) {
    const match = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) ([0-9a-f]{40}(?:[0-9a-f]{24})?) [^\t]*\t?(.*)$/.exec(line);
    if (match !== null) entries.push({ from: match[1]!, to: match[2]!, message: match[3]! });
  }
  return entries;
}

/** The entries appended to HEAD's reflog since it was `previousSize` bytes long (its last entry if it shrank). */
async function readReflog(gitDir: string, previousSize: number): Promise<{ size: number; entries: ReflogEntry[] }> {
  const opened = await openRegularFile(join(gitDir, "logs", "HEAD"));
  if (opened === undefined) return { size: 0, entries: [] };
  const { handle, size } = opened;
  try {
    if (size === previousSize) return { size, entries: [] };
    const appended = size > previousSize;
    const start = appended ? Math.max(previousSize, size - REFLOG_TAIL) : Math.max(0, size - 4096);
    let text = (await readAt(handle, start, size - start)).toString("utf8");
    // Started mid-line (a truncated tail, or a rewritten log): drop the partial first line.
    if (start > 0 && !(appended && start === previousSize)) text = text.slice(text.indexOf("\n") + 1);
    const entries = parseReflog(text);
    return { size, entries: appended ? entries : entries.slice(-1) };
  } finally {
    await handle.close();
  }
}

async function readOperations(gitDir: string): Promise<OperationName[]> {
  const at = (name: string): string => join(gitDir, name);
  const [merge, cherryPick, revert, bisect, rebaseMerge, rebaseApply, applying] = await Promise.all([
    exists(at("MERGE_HEAD")),
    exists(at("CHERRY_PICK_HEAD")),
    exists(at("REVERT_HEAD")),
    exists(at("BISECT_LOG")),
    exists(at("rebase-merge")),
    exists(at("rebase-apply")),
    exists(at("rebase-apply/applying")),
  ]);
  const operations: OperationName[] = [];
  if (rebaseMerge || (rebaseApply && !applying)) operations.push("rebase");
  if (rebaseApply && applying) operations.push("am");
  if (merge) operations.push("merge");
  if (cherryPick) operations.push("cherry-pick");
  if (revert) operations.push("revert");
  if (bisect) operations.push("bisect");
  return operations;
}

/** The index's entries, re-read only when the file is a different one than last time. */
async function readIndexState(
  gitDir: string,
  oidBytes: number,
  previous: { signature: string | null; state: IndexState | null },
): Promise<{ signature: string | null; state: IndexState | null }> {
  const path = join(gitDir, "index");
  const sig = await signature(path);
  if (sig === null) return { signature: null, state: null };
  if (sig === previous.signature) return previous;
  const read = await readWholeRegularFile(path, MAX_INDEX_BYTES);
  if (read === undefined) return { signature: null, state: null };
  // An index past the bound (no real one gets there) is not read: any rewrite of it then counts as a change.
  if (read.kind === "too_large") return { signature: sig, state: { digest: sig, entries: undefined, unreadable: true } };
  const data = read.bytes;
  try {
    const parsed = parseIndex(data, oidBytes);
    if (parsed.split)
      return { signature: sig, state: { digest: createHash("sha1").update(data).digest("hex"), entries: undefined, unreadable: true } };
    return { signature: sig, state: { digest: parsed.digest, entries: parsed.entries, unreadable: false } };
  } catch (error) {
    if (!(error instanceof IndexFormatError)) throw error;
    return { signature: sig, state: { digest: createHash("sha1").update(data).digest("hex"), entries: undefined, unreadable: true } };
  }
}

/** Reads the git state of one worktree; keeps what it needs between readings (the index file's signature). */
export class GitStateReader {
  private indexCache: { signature: string | null; state: IndexState | null } = { signature: null, state: null };
  private reflogSize = -1;

  constructor(readonly dirs: GitDirectories) {}

  async read(): Promise<GitState> {
    const { gitDir, commonDir } = this.dirs;
    const configText = await readText(join(commonDir, "config"));
    const oidBytes = oidBytesFromConfig(configText);
    const [head, reflog, operations, index, stashOid, stashLog, remotes, locals, fetchHead, worktreeConfig, excludes] = await Promise.all([
      readHead(this.dirs),
      this.reflogSize < 0
        ? stat(join(gitDir, "logs", "HEAD")).then(
            (info) => ({ size: info.size, entries: [] as ReflogEntry[] }),
            () => ({ size: 0, entries: [] as ReflogEntry[] }),
          )
        : readReflog(gitDir, this.reflogSize),
      readOperations(gitDir),
      readIndexState(gitDir, oidBytes, this.indexCache),
      resolveRef(this.dirs, "refs/stash"),
      countLines(join(commonDir, "logs", "refs", "stash")),
      listRefs(this.dirs, ["refs/remotes/"]),
      listRefs(this.dirs, ["refs/heads/", "refs/tags/"]),
      signature(join(gitDir, "FETCH_HEAD")),
      readText(join(gitDir, "config.worktree")),
      readText(join(commonDir, "info", "exclude")),
    ]);
    const worktrees = await readdir(join(commonDir, "worktrees"), { withFileTypes: true }).then(
      (entries) =>
        entries
          .filter((entry) => entry.isDirectory())
          .map((entry) => entry.name)
          .sort(),
      () => [] as string[],
    );
    this.indexCache = index;
    this.reflogSize = reflog.size;
    const stashEntries = stashLog ?? 0;
    return {
      head,
      reflogSize: reflog.size,
      reflog: reflog.entries,
      operations,
      index: index.state,
      stash: { oid: stashOid, entries: stashOid === null ? 0 : Math.max(stashEntries, 1) },
      remotes,
      locals,
      fetchHead,
      config: contentHash(`${configText ?? ""}\0${worktreeConfig ?? ""}`),
      excludes: contentHash(excludes),
      worktrees,
    };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing two readings

const short = (oid: string | null | undefined): string => (oid === null || oid === undefined ? "(none)" : oid.slice(0, 7));
const branchName = (ref: string | null): string | null =>
  ref === null ? null : ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
const onBranch = (head: HeadState): string => (head.ref === null ? `detached HEAD ${short(head.oid)}` : (branchName(head.ref) ?? head.ref));
const KIND_OF: Record<OperationName, string> = {
  merge: "merge",
  rebase: "rebase",
  "cherry-pick": "cherry_pick",
  revert: "revert",
  am: "am",
  bisect: "bisect",
};

function operationKind(operation: OperationName, phase: "started" | "finished" | "aborted"): GitEventKind {
  return `${KIND_OF[operation]}_${phase}` as GitEventKind;
}

function refMoves(before: Map<string, string>, after: Map<string, string>, skip: ReadonlySet<string>): RefMove[] {
  const moves: RefMove[] = [];
  for (const [ref, oid] of after) if (!skip.has(ref) && before.get(ref) !== oid) moves.push({ ref, from: before.get(ref) ?? null, to: oid });
  for (const [ref, oid] of before) if (!skip.has(ref) && !after.has(ref)) moves.push({ ref, from: oid, to: null });
  return moves.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

function describeMoves(moves: readonly RefMove[], strip: string): string {
  const shown = moves.slice(0, 5).map((move) => {
    const name = move.ref.startsWith(strip) ? move.ref.slice(strip.length) : move.ref;
    if (move.from === null) return `${name} created at ${short(move.to)}`;
    if (move.to === null) return `${name} deleted (was ${short(move.from)})`;
    return `${name} ${short(move.from)} -> ${short(move.to)}`;
  });
  return shown.join(", ") + (moves.length > 5 ? `, and ${moves.length - 5} more` : "");
}

/** The subject a commit reflog entry carries: `commit (amend): Fix totals` → `Fix totals`. */
function reflogSubject(message: string): string {
  const colon = message.indexOf(": ");
  return colon === -1 ? message : message.slice(colon + 2);
}

/** Where an index change leaves its paths, decided by the caller (it needs git to compare with HEAD's tree). */
export interface IndexChange {
  paths: string[];
}

/**
 * Git events between two readings, most telling first. HEAD moves are named after the reflog's newest reason
 * (`commit`, `reset`, `merge`, ...); HEAD moves inside a rebase or a bisect are the operation's, not events of
 * their own; an index change that a HEAD move, an operation or a stash explains is part of that event.
 * `indexChange` is returned apart: whether the user staged or unstaged needs git (see `splitStaged`).
 */
export function diffGitStates(before: GitState, after: GitState): { changes: GitChange[]; indexChange: IndexChange | null } {
  const changes: GitChange[] = [];
  const ended = before.operations.filter((operation) => !after.operations.includes(operation));
  const started = after.operations.filter((operation) => !before.operations.includes(operation));
  const reasons = after.reflog.map((entry) => entry.message);
  const lastReason = reasons.at(-1);
  const headMoved = before.head.oid !== after.head.oid;
  const refChanged = before.head.ref !== after.head.ref;
  const head = { fromBranch: branchName(before.head.ref), toBranch: branchName(after.head.ref), fromOid: before.head.oid, toOid: after.head.oid };
  const conflicted = after.index?.entries === undefined ? [] : conflictedPaths(after.index.entries);
  // A rebase or a bisect moves HEAD (and detaches it) on every step: those moves are the operation itself.
  const headBusy = [...before.operations, ...after.operations].some(
    (operation) => operation === "rebase" || operation === "bisect" || operation === "am",
  );
  let headExplained = false;

  for (const operation of ended) {
    let finished: boolean;
    if (operation === "rebase" || operation === "am")
      finished = reasons.some((reason) => /\((finish)\)/.test(reason)) || (headMoved && !reasons.some((reason) => /\(abort\)/.test(reason)));
    else if (operation === "bisect") finished = true;
    else finished = headMoved;
    const phase = finished ? "finished" : "aborted";
    const where = onBranch(after.head);
    const summary =
      operation === "bisect"
        ? `bisect ended; HEAD back on ${where}`
        : finished
          ? `${operation} finished on ${where}: HEAD ${short(before.head.oid)} -> ${short(after.head.oid)}`
          : `${operation} aborted; HEAD on ${where} at ${short(after.head.oid)}`;
    changes.push({
      kind: operationKind(operation, phase),
      summary,
      paths: [],
      details: { operation, ...head, ...(lastReason !== undefined ? { reason: lastReason } : {}) },
    });
    headExplained = true;
  }

  if (!headExplained && !headBusy && (refChanged || headMoved)) {
    const reason = lastReason !== undefined ? { reason: lastReason } : {};
    if (refChanged && after.head.ref === null) {
      changes.push({
        kind: "detached",
        summary: `HEAD detached at ${short(after.head.oid)} (was on ${onBranch(before.head)})`,
        paths: [],
        details: { ...head, ...reason },
      });
    } else if (refChanged) {
      const from = before.head.ref === null ? `detached HEAD ${short(before.head.oid)}` : branchName(before.head.ref);
      changes.push({
        kind: "branch_switched",
        summary: `switched from ${from} to branch ${branchName(after.head.ref)} at ${short(after.head.oid)}`,
        paths: [],
        details: { ...head, ...reason },
      });
    } else if (lastReason === undefined || /^commit/.test(lastReason) || before.head.oid === null) {
      const amend = lastReason?.startsWith("commit (amend)") ? " (amended)" : "";
      const subject = lastReason === undefined ? "" : `: ${reflogSubject(lastReason)}`;
      changes.push({
        kind: "commit",
        summary: `commit ${short(after.head.oid)} on ${onBranch(after.head)}${amend}${subject}`,
        paths: [],
        details: { ...head, ...reason },
      });
    } else if (/^reset:/.test(lastReason)) {
      changes.push({
        kind: "reset",
        summary: `${onBranch(after.head)} reset from ${short(before.head.oid)} to ${short(after.head.oid)} (${lastReason})`,
        paths: [],
        details: { ...head, ...reason },
      });
    } else if (/^(merge|pull)\b/.test(lastReason)) {
      changes.push({
        kind: "merge_finished",
        summary: `merged into ${onBranch(after.head)}: HEAD ${short(before.head.oid)} -> ${short(after.head.oid)} (${lastReason})`,
        paths: [],
        details: { ...head, ...reason, operation: "merge" },
      });
    } else if (/^cherry-pick\b/.test(lastReason)) {
      changes.push({
        kind: "cherry_pick_finished",
        summary: `cherry-picked onto ${onBranch(after.head)}: ${short(after.head.oid)} ${reflogSubject(lastReason)}`,
        paths: [],
        details: { ...head, ...reason, operation: "cherry-pick" },
      });
    } else if (/^revert\b/.test(lastReason)) {
      changes.push({
        kind: "revert_finished",
        summary: `reverted on ${onBranch(after.head)}: ${short(after.head.oid)} ${reflogSubject(lastReason)}`,
        paths: [],
        details: { ...head, ...reason, operation: "revert" },
      });
    } else if (/^rebase/.test(lastReason)) {
      changes.push({
        kind: "rebase_finished",
        summary: `rebase finished on ${onBranch(after.head)}: HEAD ${short(before.head.oid)} -> ${short(after.head.oid)}`,
        paths: [],
        details: { ...head, ...reason, operation: "rebase" },
      });
    } else {
      changes.push({
        kind: "head_moved",
        summary: `HEAD of ${onBranch(after.head)} moved ${short(before.head.oid)} -> ${short(after.head.oid)} (${lastReason})`,
        paths: [],
        details: { ...head, ...reason },
      });
    }
    headExplained = true;
  }

  for (const operation of started) {
    const stop =
      conflicted.length > 0
        ? `: ${conflicted.length} conflicted (${conflicted.slice(0, 5).map(show).join(", ")}${conflicted.length > 5 ? ", ..." : ""})`
        : "";
    changes.push({
      kind: operationKind(operation, "started"),
      summary: `${operation} started on ${onBranch(before.head)}${stop}`,
      paths: conflicted.map(show),
      details: { operation, ...head, conflicted: conflicted.map(show) },
    });
  }

  const stashMoved = before.stash.oid !== after.stash.oid;
  if (stashMoved) {
    const action = after.stash.entries > before.stash.entries ? "push" : after.stash.entries < before.stash.entries ? "drop" : "changed";
    const what = action === "push" ? "stash pushed" : action === "drop" ? "stash entry removed (popped or dropped)" : "stash changed";
    changes.push({
      kind: "stash",
      summary: `${what}; ${after.stash.entries} ${after.stash.entries === 1 ? "entry" : "entries"} now`,
      paths: [],
      details: { stash: { action, entries: after.stash.entries }, refs: [{ ref: "refs/stash", from: before.stash.oid, to: after.stash.oid }] },
    });
  }

  let indexChange: IndexChange | null = null;
  const indexDigestChanged = (before.index?.digest ?? null) !== (after.index?.digest ?? null);
  if (indexDigestChanged && !headExplained && !headBusy && started.length === 0 && !stashMoved) {
    const paths =
      before.index?.entries !== undefined && after.index?.entries !== undefined ? changedIndexPaths(before.index.entries, after.index.entries) : [];
    // Entries that changed only in the stat data cannot differ here: the digest leaves stat data out.
    if (paths.length > 0 || after.index?.unreadable === true || before.index?.unreadable === true) indexChange = { paths: paths.map(show) };
  }

  const remoteMoves = refMoves(before.remotes, after.remotes, new Set());
  if (remoteMoves.length > 0) {
    changes.push({
      kind: "upstream_moved",
      summary: `remote-tracking refs moved: ${describeMoves(remoteMoves, "refs/remotes/")}`,
      paths: [],
      details: { refs: remoteMoves },
    });
  }
  const headRefs = new Set([before.head.ref, after.head.ref].filter((ref): ref is string => ref !== null));
  const localMoves = headBusy || ended.includes("rebase") ? [] : refMoves(before.locals, after.locals, headRefs);
  if (localMoves.length > 0) {
    changes.push({
      kind: "refs_updated",
      summary: `refs updated: ${describeMoves(localMoves, "refs/heads/")}`,
      paths: [],
      details: { refs: localMoves },
    });
  }
  if (before.fetchHead !== after.fetchHead && after.fetchHead !== null) {
    changes.push({
      kind: "fetch",
      summary:
        remoteMoves.length > 0
          ? `fetched: ${remoteMoves.length} remote-tracking ${remoteMoves.length === 1 ? "ref" : "refs"} moved`
          : "fetched (FETCH_HEAD rewritten)",
      paths: [],
      details: {},
    });
  }
  if (before.config !== after.config)
    changes.push({ kind: "config_changed", summary: "the repository's git config changed", paths: [], details: {} });
  if (before.excludes !== after.excludes)
    changes.push({ kind: "excludes_changed", summary: "the repository's .git/info/exclude changed", paths: [], details: {} });
  const added = after.worktrees.filter((name) => !before.worktrees.includes(name));
  const removed = before.worktrees.filter((name) => !after.worktrees.includes(name));
  if (added.length > 0 || removed.length > 0) {
    const parts = [added.length > 0 ? `added ${added.join(", ")}` : "", removed.length > 0 ? `removed ${removed.join(", ")}` : ""].filter(
      (part) => part !== "",
    );
    changes.push({
      kind: "worktrees_changed",
      summary: `linked worktrees ${parts.join("; ")}`,
      paths: [],
      details: { worktrees: { added, removed } },
    });
  }
  return { changes, indexChange };
}

/** An index path (latin1 bytes) as text. */
function show(path: string): string {
  return Buffer.from(path, "latin1").toString("utf8");
}
