/**
 * What gitctx knows about the worktrees of a repository, read from the files git keeps for them: every linked
 * worktree has an administrative directory `<common>/worktrees/<id>` (its `gitdir` names the worktree's `.git`,
 * `locked` holds a lock's reason). gitctx writes one file of its own there, `gitctx.json`, for the worktrees it
 * creates: the branch it made and the links it created. It lives and dies with git's own record, so only
 * worktrees that have one are ever removed by gitctx, and a removal stopped halfway finds it again.
 */
import { hostname } from "node:os";
import { rename, stat, unlink, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { GitctxError } from "../errors.js";
import { exactUtf8, parseGitfile, parseWorktreeGitdir, MAX_GITFILE_BYTES } from "../git/parse/gitfile.js";
import { gitRelative } from "../git/discover.js";
import { readRegularFile } from "../git/read-file.js";
import { lstatQuietly, readdirQuietly, realpathOr } from "../git/stat-quietly.js";

export const RECORD_FILE = "gitctx.json";
const RECORD_VERSION = 1;
/** A record larger than this was not written by gitctx. */
const MAX_RECORD_BYTES = 1024 * 1024;

/** A symlink gitctx made inside a worktree, pointing at a directory of the main checkout. */
export interface WorktreeLink {
  /** Relative to the worktree, `/`-separated. */
  path: string;
  /** Absolute: what the link points at. */
  target: string;
}

/** A file gitctx copied into a worktree (selected by `.worktreeinclude`, or a settings file). */
export interface WorktreeCopy {
  path: string;
  size: number;
  mtimeMs: number;
}

/** gitctx's record of a worktree it created: `<common>/worktrees/<id>/gitctx.json`. */
export interface WorktreeRecord {
  version: number;
  name: string;
  /** The branch gitctx created for it (short name). */
  branch: string;
  /** The commit the branch started at. */
  base: string;
  /** The worktree's directory when it was created. */
  path: string;
  createdAt: string;
  /** The last time a session entered or left it. */
  lastUsedAt: string;
  links: WorktreeLink[];
  copies: WorktreeCopy[];
  /** Submodule paths gitctx checked out from the repository's own `.git/modules`. */
  submodules: string[];
}

/** One linked worktree as git records it, with gitctx's record when there is one. */
export interface AdminEntry {
  /** The worktree's id: the name of its directory under `<common>/worktrees`. */
  id: string;
  /** `<common>/worktrees/<id>`: the worktree's own git directory. */
  adminDir: string;
  /** The worktree's directory, from its `gitdir` file; `undefined` when that file cannot be read. */
  path: string | undefined;
  record: WorktreeRecord | undefined;
  /** The lock's reason (`""` for a lock without one), `undefined` when not locked. */
  lockReason: string | undefined;
}

export function newRecord(fields: Omit<WorktreeRecord, "version" | "createdAt" | "lastUsedAt">, now: Date): WorktreeRecord {
  const at = now.toISOString();
  return { version: RECORD_VERSION, ...fields, createdAt: at, lastUsedAt: at };
}

/** The record in `adminDir`, or `undefined` when there is none or it is not one gitctx wrote. */
export async function readRecord(adminDir: string): Promise<WorktreeRecord | undefined> {
  const bytes = await readRegularFile(join(adminDir, RECORD_FILE), MAX_RECORD_BYTES);
  if (bytes === undefined) return undefined;
  try {
    return validRecord(JSON.parse(bytes.toString("utf8")));
  } catch {
    return undefined;
  }
}

function validRecord(value: unknown): WorktreeRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const strings = ["name", "branch", "base", "path", "createdAt"] as const;
  if (r.version !== RECORD_VERSION || strings.some((key) => typeof r[key] !== "string")) return undefined;
  // A link gitctx made is inside the worktree: one whose path leaves it (`../`, absolute) is no link of gitctx's, and
  // the removal, which unlinks each, must not reach a link of the main checkout's through it.
  const links = Array.isArray(r.links)
    ? r.links.filter(
        (l): l is WorktreeLink =>
          typeof l?.path === "string" &&
          typeof l?.target === "string" &&
          l.path !== "" &&
          !isAbsolute(l.path) &&
          !l.path.split(/[/\\]/).includes(".."),
      )
    : [];
  const copies = Array.isArray(r.copies)
    ? r.copies.filter((c): c is WorktreeCopy => typeof c?.path === "string" && typeof c?.size === "number" && typeof c?.mtimeMs === "number")
    : [];
  const submodules = Array.isArray(r.submodules) ? r.submodules.filter((s): s is string => typeof s === "string") : [];
  return {
    version: RECORD_VERSION,
    name: r.name as string,
    branch: r.branch as string,
    base: r.base as string,
    path: r.path as string,
    createdAt: r.createdAt as string,
    lastUsedAt: typeof r.lastUsedAt === "string" ? r.lastUsedAt : (r.createdAt as string),
    links,
    copies,
    submodules,
  };
}

/** Writes the record whole or not at all (a new file renamed over the old), never through a symlink. */
export async function writeRecord(adminDir: string, record: WorktreeRecord): Promise<void> {
  const file = join(adminDir, RECORD_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { flag: "wx", mode: 0o644 });
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** Every linked worktree of the repository whose common directory is `commonDir`, in id order. */
export async function readAdminEntries(commonDir: string): Promise<AdminEntry[]> {
  const base = join(commonDir, "worktrees");
  // Synchronous, like discovery: a few entries of a few tiny files (see read-file.ts).
  const names = readdirQuietly(base).map((entry) => entry.name);
  const entries = await Promise.all(
    names.sort().map(async (id): Promise<AdminEntry | undefined> => {
      const adminDir = join(base, id);
      if (lstatQuietly(adminDir)?.isDirectory() !== true) return undefined;
      const [gitdir, record, locked] = await Promise.all([
        readRegularFile(join(adminDir, "gitdir"), 64 * 1024),
        readRecord(adminDir),
        readRegularFile(join(adminDir, "locked"), 64 * 1024),
      ]);
      const named = gitdir === undefined ? undefined : exactUtf8(parseWorktreeGitdir(gitdir));
      // git writes the worktree's `.git` path; the worktree is its directory.
      const dotGit = named === undefined || named === "" ? undefined : gitRelative(adminDir, named);
      const path = dotGit === undefined ? undefined : dotGit.endsWith("/.git") ? dotGit.slice(0, -"/.git".length) : dotGit;
      return { id, adminDir, path, record, lockReason: locked?.toString("utf8") };
    }),
  );
  return entries.filter((entry): entry is AdminEntry => entry !== undefined);
}

/** The administrative directory a worktree's `.git` file points at, or `undefined` when it has none git would use. */
export async function adminDirOf(worktree: string): Promise<string | undefined> {
  const bytes = await readRegularFile(join(worktree, ".git"), MAX_GITFILE_BYTES + 1);
  if (bytes === undefined) return undefined;
  const parsed = parseGitfile(bytes);
  const named = parsed.ok ? exactUtf8(parsed.path) : undefined;
  if (named === undefined) return undefined;
  const written = gitRelative(worktree, named);
  return realpathOr(written, written);
}

// ---------------------------------------------------------------------------------------------------------------
// Locks: `git worktree lock --reason` with a reason that names the session and its process

/** Who holds a lock gitctx took. */
export interface LockHolder {
  session: string;
  pid: number;
  host: string;
}

export function lockReason(session: string): string {
  return `gitctx session ${session} (pid ${process.pid} on ${hostname()})`;
}

export function parseLockReason(reason: string): LockHolder | undefined {
  const match = /^gitctx session (\S+) \(pid (\d+) on (.*)\)$/.exec(reason.trim());
  return match === null ? undefined : { session: match[1]!, pid: Number(match[2]), host: match[3]! };
}

/** Whether the process that took a gitctx lock is gone (on this machine only: another host's pid says nothing). */
export function holderDead(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

export type LockState =
  | { locked: false }
  /** `mine`: held with `owner`'s reason. `stale`: a gitctx lock whose process is dead. */
  | { locked: true; reason: string; holder: LockHolder | undefined; mine: boolean; stale: boolean };

export function lockState(entry: Pick<AdminEntry, "lockReason">, owner?: string): LockState {
  if (entry.lockReason === undefined) return { locked: false };
  const reason = entry.lockReason.trim();
  const holder = parseLockReason(reason);
  const mine = owner !== undefined && reason === owner.trim();
  return { locked: true, reason, holder, mine, stale: !mine && holder !== undefined && holderDead(holder) };
}

/**
 * Releases a lock only if it is `owner`'s (or a dead gitctx session's, when `stale` is allowed): the lock is the
 * file git reads, so releasing it needs no git process, which also lets a closing session do it.
 */
export async function releaseLock(adminDir: string, owner: string, options: { stale?: boolean } = {}): Promise<boolean> {
  const file = join(adminDir, "locked");
  const bytes = await readRegularFile(file, 64 * 1024);
  if (bytes === undefined) return false;
  const state = lockState({ lockReason: bytes.toString("utf8") }, owner);
  if (!state.locked || !(state.mine || (options.stale === true && state.stale))) return false;
  await unlink(file).catch(() => undefined);
  return true;
}

/** When the worktree was last used: its record's times and the times git last wrote its index or HEAD. */
export async function lastUsed(entry: AdminEntry): Promise<Date> {
  const times = [entry.record?.createdAt, entry.record?.lastUsedAt].filter((t): t is string => t !== undefined).map((t) => Date.parse(t));
  const stats = await Promise.all(["index", "HEAD", join("logs", "HEAD")].map((name) => stat(join(entry.adminDir, name)).catch(() => undefined)));
  for (const info of stats) if (info !== undefined) times.push(info.mtimeMs);
  const valid = times.filter((t) => Number.isFinite(t));
  return new Date(valid.length === 0 ? 0 : Math.max(...valid));
}

export function lockedError(name: string, path: string, reason: string): GitctxError {
  const gitctx = reason.startsWith("gitctx session ");
  return new GitctxError(
    "worktree_locked",
    `The worktree ${name} (${path}) is locked${reason === "" ? "" : `: ${reason}`}.`,
    gitctx
      ? "Another gitctx session is working in it: use another name, or wait until that session leaves it."
      : `Someone locked it with git worktree lock; if it is no longer in use, unlock it (git worktree unlock ${path}) and try again.`,
  );
}
