/**
 * Every worktree of a repository, gitctx's and others', with what a person deciding about them needs: dirty,
 * locked (and by whom), missing, stale. A gitctx worktree is stale when it has not been used for `olderThanDays`
 * and no live session holds it; the sweep removes the stale ones that are also clean with nothing unmerged, and
 * says why it kept each other one.
 */
import { GitctxError } from "../errors.js";
import { gitFailure } from "../git/failures.js";
import { parseWorktrees } from "../git/parse/snapshot.js";
import { parseStatusV2 } from "../git/parse/status.js";
import type { Repository } from "../git/repository.js";
import { lstatQuietly, realpathOr } from "../git/stat-quietly.js";
import type { PermissionMode } from "../types.js";
import { resolveLayout, type WorktreeLayout, type WorktreeSettings } from "./layout.js";
import { lastUsed, lockState, readAdminEntries, type AdminEntry } from "./record.js";
import { findLosses, openWorktree, removeFound, type FoundWorktree } from "./remove.js";

export const DEFAULT_STALE_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface WorktreeInfo {
  path: string;
  /** Short branch name; `null` when detached (or bare). */
  branch: string | null;
  head: string | null;
  /** The repository's main checkout. */
  main: boolean;
  /** The worktree the listing was asked from. */
  current: boolean;
  /** Made by gitctx (it has gitctx's record); only these are ever removed by gitctx. */
  gitctx: boolean;
  /** The name gitctx made it under. */
  name: string | null;
  locked: boolean;
  lockReason: string | null;
  /** For a lock a gitctx session took: whether that session's process is alive (`null`: not gitctx's lock). */
  lockHolderAlive: boolean | null;
  /** The directory is gone (git calls such a worktree prunable). */
  missing: boolean;
  /** Uncommitted or untracked files (gitctx's links and copies aside); `null` when it could not be looked at. */
  dirty: boolean | null;
  changedFiles: number | null;
  /** gitctx worktrees: commits only its branch or HEAD has (on no other branch, tag or upstream). */
  unmergedCommits: number | null;
  /** gitctx worktrees: the last time it was used (entered, left, committed in). */
  lastUsedAt: string | null;
  /** A gitctx worktree unused for `olderThanDays` that no live session holds. */
  stale: boolean;
  /** Why something above could not be read. */
  problem: string | null;
}

export interface ListOptions {
  olderThanDays?: number;
  now?: Date;
  settings?: WorktreeSettings;
  /** Look at each worktree's files (git status in each). Default true. */
  checkFiles?: boolean;
}

function checkDays(days: number): void {
  if (!(days >= 0) || !Number.isFinite(days))
    throw new GitctxError("invalid_input", `olderThanDays must be a number of days of 0 or more, got ${days}.`, "Give e.g. 7.");
}

/** Whether a gitctx worktree is stale: unused for the given days and held by no live session. */
export function isStale(entry: AdminEntry, used: Date, now: Date, days: number): boolean {
  if (entry.record === undefined) return false;
  const lock = lockState(entry);
  return now.getTime() - used.getTime() >= days * DAY_MS && (!lock.locked || lock.stale);
}

export async function listWorktreesIn(repo: Repository, options: ListOptions = {}): Promise<WorktreeInfo[]> {
  const days = options.olderThanDays ?? DEFAULT_STALE_DAYS;
  checkDays(days);
  const now = options.now ?? new Date();
  const layout = await resolveLayout(repo.paths, options.settings);
  const listed = await repo.git("worktree", ["list", "--porcelain", "-z"]);
  if (listed.exitCode !== 0) throw gitFailure("git worktree list", listed.stderr);
  const entries = await readAdminEntries(layout.commonDir);
  const current = repo.paths.topLevel;
  return Promise.all(
    parseWorktrees(listed.stdout).map(async (worktree, index): Promise<WorktreeInfo> => {
      const path = realpathOr(worktree.path, worktree.path);
      const entry = index === 0 ? undefined : entries.find((candidate) => candidate.path === path || candidate.path === worktree.path);
      const record = entry?.record;
      const lock = entry === undefined ? ({ locked: false } as const) : lockState(entry);
      const used = entry === undefined || record === undefined ? undefined : await lastUsed(entry);
      // git does not call a locked worktree prunable, even when its directory is gone.
      const missing = worktree.prunable || (index > 0 && lstatQuietly(path) === undefined);
      const info: WorktreeInfo = {
        path,
        branch: worktree.branch === null ? null : worktree.branch.replace(/^refs\/heads\//, ""),
        head: worktree.head,
        main: index === 0,
        current: path === current,
        gitctx: record !== undefined,
        name: record?.name ?? null,
        locked: lock.locked || worktree.locked,
        lockReason: lock.locked ? lock.reason : null,
        lockHolderAlive: lock.locked && lock.holder !== undefined ? !lock.stale : null,
        missing,
        dirty: null,
        changedFiles: null,
        unmergedCommits: null,
        lastUsedAt: used?.toISOString() ?? null,
        stale: entry !== undefined && used !== undefined && isStale(entry, used, now, days),
        problem: null,
      };
      if (options.checkFiles === false || worktree.bare) return info;
      try {
        if (entry !== undefined && record !== undefined) {
          const losses = await findLosses(repo, { entry, record, path }, { layout });
          info.changedFiles = missing ? null : losses.fileCount;
          info.unmergedCommits = losses.commitCount;
        } else if (!missing) {
          info.changedFiles = await countChanged(repo, layout, entry, path);
        }
        info.dirty = info.changedFiles === null ? null : info.changedFiles > 0;
      } catch (error) {
        if (!(error instanceof GitctxError)) throw error;
        info.problem = error.message;
      }
      return info;
    }),
  );
}

async function countChanged(repo: Repository, layout: WorktreeLayout, entry: AdminEntry | undefined, path: string): Promise<number> {
  const worktree =
    entry === undefined
      ? path === repo.paths.topLevel
        ? repo
        : await repo.openOther({ ...repo.paths, root: path, topLevel: path, gitDir: layout.commonDir, prefix: "", layout: "main" })
      : await openWorktree(repo, { entry, path });
  try {
    const status = await worktree.git("status", ["--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none", "--no-renames"]);
    if (status.exitCode !== 0) throw gitFailure(`git status in ${path}`, status.stderr);
    return parseStatusV2(status.stdout).entries.length;
  } finally {
    if (worktree !== repo) await worktree.dispose();
  }
}

export interface CleanupOptions {
  olderThanDays?: number;
  dryRun?: boolean;
  now?: Date;
  settings?: WorktreeSettings;
  mode: PermissionMode;
  lockOwner?: string;
}

export interface CleanupReport {
  dryRun: boolean;
  olderThanDays: number;
  /** Removed (or, for a dry run, that would be). */
  removed: Array<{ name: string; path: string; branch: string }>;
  /** gitctx worktrees left in place, each with why. */
  kept: Array<{ name: string; path: string; reason: string }>;
}

/** Removes the stale gitctx worktrees that are clean and whose branch has nothing unmerged; never another one. */
export async function cleanupWorktreesIn(repo: Repository, options: CleanupOptions): Promise<CleanupReport> {
  const days = options.olderThanDays ?? DEFAULT_STALE_DAYS;
  checkDays(days);
  const now = options.now ?? new Date();
  const layout = await resolveLayout(repo.paths, options.settings);
  const report: CleanupReport = { dryRun: options.dryRun === true, olderThanDays: days, removed: [], kept: [] };
  for (const entry of await readAdminEntries(layout.commonDir)) {
    const record = entry.record;
    if (record === undefined) continue;
    const path = entry.path ?? record.path;
    const keep = (reason: string): void => void report.kept.push({ name: record.name, path, reason });
    const used = await lastUsed(entry);
    const lock = lockState(entry, options.lockOwner);
    if (lock.locked && !lock.stale) {
      keep(lock.holder === undefined ? `locked: ${lock.reason || "(no reason given)"}` : `in use by ${lock.reason}`);
      continue;
    }
    if (!isStale(entry, used, now, days)) {
      keep(`used ${Math.floor((now.getTime() - used.getTime()) / DAY_MS)} days ago (less than ${days})`);
      continue;
    }
    const found: FoundWorktree = { entry, record, path };
    let losses: Awaited<ReturnType<typeof findLosses>>;
    try {
      losses = await findLosses(repo, found, { layout });
    } catch (error) {
      // A record naming a directory that is not its worktree: kept, and said why; the sweep goes on.
      if (!(error instanceof GitctxError) || error.code !== "unsafe_repository") throw error;
      keep(error.message);
      continue;
    }
    if (losses.fileCount > 0) {
      keep(`${losses.fileCount} uncommitted file${losses.fileCount === 1 ? "" : "s"}`);
      continue;
    }
    if (losses.commitCount > 0) {
      keep(`${losses.commitCount} commit${losses.commitCount === 1 ? "" : "s"} on no other branch, tag or upstream`);
      continue;
    }
    await removeFound(repo, layout, found, {
      mode: options.mode,
      ...(options.dryRun === true ? { dryRun: true } : {}),
      ...(options.lockOwner !== undefined ? { lockOwner: options.lockOwner } : {}),
    });
    report.removed.push({ name: record.name, path, branch: record.branch });
  }
  return report;
}
