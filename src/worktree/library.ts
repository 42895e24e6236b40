/**
 * The worktree functions of the library: each call is a short session of its own (one runner, its caches and
 * private directory), closed when it returns. They throw a `GitctxError` for anything the caller can fix.
 */
import { GitCaches } from "../git/caches.js";
import { discoverRepository } from "../git/discover.js";
import { Repository } from "../git/repository.js";
import { GitRunner } from "../git/run.js";
import type { PermissionMode } from "../types.js";
import { createWorktreeIn, type CreatedWorktree } from "./create.js";
import type { WorktreeSettings } from "./layout.js";
import { cleanupWorktreesIn, listWorktreesIn, type CleanupReport, type WorktreeInfo } from "./list.js";
import { removeWorktreeIn, type RemovedWorktree } from "./remove.js";
import { userConfigFromEnvironment } from "../git/user-config.js";

export interface WorktreeOptions {
  /** A directory of the repository (its main checkout or any worktree). Default: the current directory. */
  root?: string;
  /**
   * `workspace-write` (default) writes only inside the repository (its worktrees directory included); a worktrees
   * directory elsewhere needs `danger-full-access`. `read-only` refuses every change.
   */
  mode?: PermissionMode;
  settings?: WorktreeSettings;
  /** Use a repository owned by another user. Default false. */
  trustRepository?: boolean;
  /** Per git process, in milliseconds. Default 60 000; a checkout or removal of a whole worktree gets at least 10 minutes. */
  timeoutMs?: number;
  /** Directories searched for `git`, `:`-separated. Default: this process's PATH. */
  gitSearchPath?: string;
  signal?: AbortSignal;
}

export interface CreateWorktreeOptions extends WorktreeOptions {
  /** Validated like a branch name (no spaces, no `/`); generated when absent. */
  name?: string;
  /** The revision the branch `worktree-<name>` starts at. Default: HEAD of `root`. */
  base?: string;
  /** Lock the worktree (`git worktree lock`) with this reason. */
  lock?: string;
}

export interface RemoveWorktreeOptions extends WorktreeOptions {
  name?: string;
  path?: string;
  /** Remove even with uncommitted files or unmerged commits, deleting them. Default false. */
  discardChanges?: boolean;
  dryRun?: boolean;
}

export interface ListWorktreesOptions extends WorktreeOptions {
  /** Days without use after which a gitctx worktree is stale. Default 7. */
  olderThanDays?: number;
  now?: Date;
}

export interface CleanupWorktreesOptions extends ListWorktreesOptions {
  dryRun?: boolean;
}

async function withRepository<T>(options: WorktreeOptions, work: (repo: Repository) => Promise<T>): Promise<T> {
  options.signal?.throwIfAborted();
  const trust = options.trustRepository === true;
  const runner = new GitRunner({
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.gitSearchPath !== undefined ? { searchPath: options.gitSearchPath } : {}),
  });
  const caches = new GitCaches(runner);
  const prepared = runner.prepareArea();
  try {
    const paths = await discoverRepository(options.root ?? process.cwd(), trust);
    const repo = await Repository.open(runner, caches, paths, {
      trustRepository: trust,
      userConfig: userConfigFromEnvironment(),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    try {
      return await work(repo);
    } finally {
      await repo.dispose();
    }
  } finally {
    caches.invalidate("privateIndex");
    await prepared;
    runner.close();
  }
}

/** Creates a worktree on a new branch `worktree-<name>`, hardened (no filter, hook or fsmonitor runs), or reopens one gitctx made. */
export function createWorktree(options: CreateWorktreeOptions = {}): Promise<CreatedWorktree> {
  return withRepository(options, (repo) =>
    createWorktreeIn(repo, {
      mode: options.mode ?? "workspace-write",
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.base !== undefined ? { base: options.base } : {}),
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
      ...(options.lock !== undefined ? { lockReason: options.lock } : {}),
    }),
  );
}

/** Removes a worktree gitctx made, refusing (`uncommitted_changes`) while that would lose work unless told to discard it. */
export function removeWorktree(options: RemoveWorktreeOptions): Promise<RemovedWorktree> {
  return withRepository(options, (repo) =>
    removeWorktreeIn(repo, {
      mode: options.mode ?? "workspace-write",
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
      ...(options.discardChanges !== undefined ? { discardChanges: options.discardChanges } : {}),
      ...(options.dryRun !== undefined ? { dryRun: options.dryRun } : {}),
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
    }),
  );
}

/** Every worktree of the repository, gitctx's and others', with dirty, locked, missing and stale flags. */
export function listWorktrees(options: ListWorktreesOptions = {}): Promise<WorktreeInfo[]> {
  return withRepository(options, (repo) =>
    listWorktreesIn(repo, {
      ...(options.olderThanDays !== undefined ? { olderThanDays: options.olderThanDays } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
    }),
  );
}

/** Removes stale gitctx worktrees (unused for `olderThanDays`, default 7) that are clean with nothing unmerged. */
export function cleanupWorktrees(options: CleanupWorktreesOptions = {}): Promise<CleanupReport> {
  return withRepository(options, (repo) =>
    cleanupWorktreesIn(repo, {
      mode: options.mode ?? "workspace-write",
      ...(options.olderThanDays !== undefined ? { olderThanDays: options.olderThanDays } : {}),
      ...(options.dryRun !== undefined ? { dryRun: options.dryRun } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
    }),
  );
}
