/**
 * Removing a worktree gitctx made, losing nothing the caller did not agree to lose. It refuses while the worktree
 * has uncommitted or untracked files, or commits on no other branch, tag or upstream, unless told to discard them.
 * Then, each step safe to repeat, so a removal stopped halfway is finished by the next call (the record in git's
 * directory for the worktree stays until the last step): detach the worktree's HEAD and delete the branch gitctx
 * made in one ref transaction (prepared while the checks ran), unlink the links gitctx made (never following
 * them), `git worktree remove --force`, and if that fails delete the directory (links unlinked, never followed)
 * and let git drop its record.
 */
import { realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { GitctxError } from "../errors.js";
import { commonDirOf, discoverRepository, type RepositoryPaths } from "../git/discover.js";
import { firstLine, gitFailure } from "../git/failures.js";
import { parseStatusV2 } from "../git/parse/status.js";
import { readRegularFile } from "../git/read-file.js";
import { prepareRefTransaction, type PreparedRefTransaction } from "../git/ref-transaction.js";
import type { Repository } from "../git/repository.js";
import { lstatQuietly, realpathOr, statQuietly } from "../git/stat-quietly.js";
import type { PermissionMode } from "../types.js";
import { CHECKOUT_TIMEOUT_MS } from "./checkout.js";
import { unlinkLinks } from "./populate.js";
import { atAnotherRef, branchTip, checkedOutAt } from "./refs.js";
import { checkWritable, resolveLayout, type WorktreeLayout, type WorktreeSettings } from "./layout.js";
import { adminDirOf, lockedError, lockState, readAdminEntries, type AdminEntry, type WorktreeRecord } from "./record.js";
import { checkWorktreeName } from "./names.js";

/** Paths and commits named in a refusal or a result; the counts are always whole. */
export const LOSS_LIST_LIMIT = 20;
/** Commits counted at most; more is reported as this many. */
const MAX_COUNTED_COMMITS = 10_000;

export interface RemoveWorktreeRequest {
  /** The worktree's name (as gitctx made it), or its `path`. */
  name?: string;
  path?: string;
  /** Remove it even with uncommitted files or commits on no other branch: they are deleted. Default false. */
  discardChanges?: boolean;
  /** Check and say what would be removed, change nothing. */
  dryRun?: boolean;
  settings?: WorktreeSettings;
  mode: PermissionMode;
  /** The lock reason of the session asking: its own lock does not stop it. */
  lockOwner?: string;
  /** Called once the checks have passed, before anything is changed (a session moves its root out first). */
  beforeChanges?: () => Promise<void>;
}

export interface LostCommit {
  hash: string;
  subject: string;
}

/** What a removal deletes besides the checkout itself. */
export interface WorktreeLosses {
  /** Uncommitted and untracked paths, `XY path` as git status shows them, at most 20. */
  files: string[];
  fileCount: number;
  /** Commits reachable only from the worktree's branch or HEAD, newest first, at most 20. */
  commits: LostCommit[];
  commitCount: number;
}

export interface RemovedWorktree {
  name: string;
  path: string;
  branch: string;
  /** `false` for a dry run. */
  removed: boolean;
  dryRun: boolean;
  /** What was (or, for a dry run, would be) discarded. */
  discarded: WorktreeLosses;
  branchDeleted: boolean;
  /** `git worktree remove` failed and gitctx deleted the directory itself. */
  fellBack: boolean;
  notes: string[];
}

/** A gitctx worktree found by name or path, with its record. */
export interface FoundWorktree {
  entry: AdminEntry;
  record: WorktreeRecord;
  path: string;
}

export async function findWorktree(layout: WorktreeLayout, request: { name?: string; path?: string }): Promise<FoundWorktree> {
  const entries = await readAdminEntries(layout.commonDir);
  const wanted = request.path === undefined ? undefined : resolve(request.path);
  const entry =
    request.name !== undefined
      ? (entries.find((candidate) => candidate.record?.name === request.name) ??
        entries.find((candidate) => candidate.path === join(layout.directory, request.name!)))
      : entries.find((candidate) => candidate.path === wanted || candidate.adminDir === wanted);
  const label = request.name ?? request.path ?? "";
  if (entry === undefined) {
    const names = entries.flatMap((candidate) => (candidate.record === undefined ? [] : [candidate.record.name]));
    throw new GitctxError(
      "path_not_found",
      `No worktree ${request.name !== undefined ? "named" : "at"} ${label} is known to this repository.`,
      names.length === 0
        ? "gitctx has made no worktree here (gitctx worktree list shows every worktree)."
        : `gitctx's worktrees here: ${names.join(", ")}.`,
    );
  }
  if (entry.record === undefined) {
    throw new GitctxError(
      "invalid_input",
      `The worktree ${entry.path ?? label} was not made by gitctx, so gitctx will not remove it.`,
      `If you are sure, remove it yourself: git worktree remove ${entry.path ?? label}.`,
    );
  }
  return { entry, record: entry.record, path: entry.path ?? entry.record.path };
}

export async function removeWorktreeIn(repo: Repository, request: RemoveWorktreeRequest): Promise<RemovedWorktree> {
  const layout = await resolveLayout(repo.paths, request.settings);
  const found = await findWorktree(layout, request);
  return removeFound(repo, layout, found, request);
}

/** Removes a worktree already found (the sweep finds them itself). */
export async function removeFound(
  repo: Repository,
  layout: WorktreeLayout,
  found: FoundWorktree,
  request: RemoveWorktreeRequest,
): Promise<RemovedWorktree> {
  const { entry, record, path } = found;
  checkWritable({ ...layout, directory: dirname(path) }, request.mode, "Removing a worktree");
  checkNotLinked(path);
  await checkWorktreeDirectory(found, layout);
  const lock = lockState(entry, request.lockOwner);
  if (lock.locked && !lock.mine && !lock.stale) throw lockedError(record.name, path, lock.reason);

  const main = repo.paths.topLevel === layout.mainTop ? repo : await repo.openOther(await discoverRepository(layout.mainTop, repo.trustRepository));
  let refs: Promise<BranchDeletion> | undefined;
  try {
    // The branch's deletion is prepared while the checks run: git locks the refs, so nothing moves them between
    // the checks and the deletion, and its process has started by the time the checks are done. It starts once the
    // status has: the status is the longer, and starting a process holds this thread for a while.
    const prepare = (): void => {
      if (request.dryRun === true || refs !== undefined) return;
      refs = prepareBranchDeletion(main, layout, found);
      refs.catch(() => undefined); // Awaited below; a failure before then is the call's, not an unhandled one.
    };
    const losses = await findLosses(main, found, {
      // Removing the worktree the call runs in (exit_worktree): it is open already, checked and scanned.
      opened: repo.paths.gitDir === entry.adminDir && repo.paths.topLevel === path ? repo : undefined,
      layout,
      started: prepare,
    });
    prepare();
    if ((losses.fileCount > 0 || losses.commitCount > 0) && request.discardChanges !== true) throw refusal(found, losses);
    const result: RemovedWorktree = {
      name: record.name,
      path,
      branch: record.branch,
      removed: false,
      dryRun: request.dryRun === true,
      discarded: losses,
      branchDeleted: false,
      fellBack: false,
      notes: [],
    };
    if (request.dryRun === true) {
      result.notes.push(
        `Would remove ${path} and delete the branch ${record.branch}${losses.fileCount + losses.commitCount > 0 ? `, discarding ${describeLosses(losses)}` : ""}.`,
      );
      return result;
    }
    await request.beforeChanges?.();
    await destroy(main, found, lock.locked, await refs!, result);
    result.removed = true;
    return result;
  } finally {
    // Every path that did not commit it (a refusal, a failed check) leaves the refs as they were.
    await (await refs?.catch(() => undefined))?.transaction?.abort();
    if (main !== repo) await main.dispose();
  }
}

/** The ref changes that go with a removal, prepared (see prepareRefTransaction) when there are any. */
interface BranchDeletion {
  /** The branch's commit; `undefined` when an earlier call deleted it. */
  tip: string | undefined;
  /** Why the branch is kept (a clause), when it is. */
  kept: string | undefined;
  transaction: PreparedRefTransaction | undefined;
}

/**
 * Detaching the worktree from the branch and deleting the branch, in one transaction: nothing is lost by it (the
 * checks passed or the caller discarded), and the worktree's own record stays for a later call if the rest fails.
 */
async function prepareBranchDeletion(main: Repository, layout: WorktreeLayout, found: FoundWorktree): Promise<BranchDeletion> {
  const { entry, record } = found;
  const tip = await branchTip(layout.commonDir, record.branch);
  const head = (await readRegularFile(join(entry.adminDir, "HEAD"), 4096))?.toString("utf8").trim();
  const kept = tip === undefined ? undefined : await keptBecause(layout, found);
  const commands: string[] = [];
  if (tip !== undefined && head === `ref: refs/heads/${record.branch}`)
    commands.push("option no-deref", `update worktrees/${entry.id}/HEAD`, tip, "");
  if (tip !== undefined && kept === undefined) commands.push(`delete refs/heads/${record.branch}`, tip);
  const transaction = commands.length === 0 ? undefined : prepareRefTransaction(main, commands, { minTimeoutMs: CHECKOUT_TIMEOUT_MS });
  return { tip, kept, transaction };
}

/**
 * Why the branch the record names must outlive the worktree, if it must: another worktree has it checked out, or
 * it is not the branch gitctx makes for a worktree of that name. The record is a file in the git directory, which
 * an unpacked archive can ship naming any branch (`release`, say): only a branch of gitctx's own naming is deleted.
 */
async function keptBecause(layout: WorktreeLayout, found: FoundWorktree): Promise<string | undefined> {
  const { entry, record } = found;
  const ours = `${layout.settings.branchPrefix}${record.name}`;
  if (record.branch !== ours) {
    return `gitctx names the branch of the worktree ${record.name} ${ours}, so this one is not of its making (or the branch prefix changed since)`;
  }
  const elsewhere = await checkedOutAt(layout, await readAdminEntries(layout.commonDir), record.branch, entry);
  return elsewhere === undefined ? undefined : `it is checked out at ${elsewhere}`;
}

/** The steps that change something, each one skipped when an earlier call already did it. */
async function destroy(main: Repository, found: FoundWorktree, locked: boolean, refs: BranchDeletion, result: RemovedWorktree): Promise<void> {
  const { entry, record, path } = found;
  const done: string[] = [];
  const stop = (step: string, why: string): GitctxError =>
    new GitctxError(
      "git_failed",
      `Removing the worktree ${record.name} stopped while ${step}: ${why}. ${done.length === 0 ? "Nothing was changed yet" : `Done so far: ${done.join("; ")}`}. ` +
        `Left: ${describeLeft(path, record)}.`,
      `Call the removal again (exit_worktree with action "remove", or gitctx worktree remove ${record.name}): it finishes what is left.`,
    );

  // 1. The prepared ref transaction: the worktree detached from the branch, the branch deleted.
  if (refs.kept !== undefined) result.notes.push(`Kept the branch ${record.branch}: ${refs.kept}.`);
  if (refs.transaction !== undefined) {
    const committed = await refs.transaction.commit();
    if (committed.exitCode !== 0) throw stop(`deleting the branch ${record.branch}`, firstLine(committed.stderr));
    if (refs.kept === undefined) {
      result.branchDeleted = true;
      done.push(`deleted the branch ${record.branch} (it was at ${refs.tip!.slice(0, 12)})`);
    }
  } else if (refs.tip === undefined) {
    result.branchDeleted = true; // An earlier call deleted it.
  }

  // 2. The links gitctx made, so nothing below can reach through them into the main checkout.
  const targets = await Promise.all(record.links.map(async (link) => ({ link, before: statQuietly(link.target) })));
  const kept = await unlinkLinks(path, record.links).catch((error: Error) => {
    throw stop("unlinking the links gitctx made", error.message);
  });
  for (const link of kept) result.notes.push(`Left ${link.path} in place: it is no longer the link gitctx made.`);
  if (record.links.length > 0) done.push(`unlinked ${record.links.map((link) => link.path).join(", ")}`);

  // 3. git removes the worktree; a directory it cannot remove is deleted here, links unlinked and never followed.
  const force = locked ? ["--force", "--force"] : ["--force"];
  const removed = await main.git("worktree", ["remove", ...force, "--", path], { minTimeoutMs: CHECKOUT_TIMEOUT_MS });
  if (removed.exitCode !== 0) {
    result.fellBack = true;
    result.notes.push(`git worktree remove failed (${firstLine(removed.stderr)}); gitctx deleted the directory itself, following no link.`);
    try {
      await rm(path, { recursive: true, force: true, maxRetries: 2 });
    } catch (error) {
      throw stop(`deleting the directory ${path}`, (error as Error).message);
    }
    done.push(`deleted the directory ${path}`);
    // The directory is gone: git now drops its record of this worktree, and only this one (`git worktree prune`
    // would also drop every other worktree whose directory is missing, gitctx's or not).
    const pruned = await main.git("worktree", ["remove", "--force", "--force", "--", path]);
    if (pruned.exitCode !== 0 && lstatQuietly(entry.adminDir) !== undefined) {
      throw stop(`dropping git's record of the worktree (${entry.adminDir})`, firstLine(pruned.stderr));
    }
  }

  for (const { link, before } of targets) {
    const after = statQuietly(link.target);
    if (before !== undefined && (after === undefined || after.ino !== before.ino || !after.isDirectory())) {
      result.notes.push(`WARNING: ${link.target} (linked as ${link.path}) is no longer the directory it was before the removal.`);
    }
  }
}

/**
 * The worktree's directory must still be the one gitctx made, reached through no symbolic link: one put in its
 * place (or in place of a directory above it) since would lead every step of the removal, `git worktree remove`
 * first, into the directory it names, which they would empty. Missing is fine: git's record is dropped then.
 */
function checkNotLinked(path: string): void {
  const info = lstatQuietly(path);
  if (info === undefined) return;
  let real: string | undefined;
  try {
    real = realpathSync(path);
  } catch {
    real = undefined;
  }
  if (!info.isSymbolicLink() && info.isDirectory() && real === path) return;
  throw new GitctxError(
    "unsafe_repository",
    `The worktree ${path} is no longer the directory gitctx made: ${info.isSymbolicLink() ? "it is a symbolic link" : info.isDirectory() ? `it is reached through a symbolic link (it leads to ${real ?? "nowhere"})` : "it is not a directory"}. gitctx removes nothing through it.`,
    `Check what is there; remove the link yourself (rm, never rm -r) and call again: gitctx then finds the worktree gone and drops git's record of it.`,
  );
}

/**
 * A directory is the worktree of an entry of `<common>/worktrees` only when its `.git` file leads back to that entry,
 * as git checks before `git worktree remove` touches it: the entry's `gitdir` and gitctx's record in it are files a
 * repository can ship (an unpacked archive's `.git/worktrees/<id>/`), naming any directory, such as a folder of
 * ignored files in the checkout or, with `danger-full-access`, one outside it. Reading such a directory as the
 * worktree would list files the repository has no business seeing, and removing it would delete them. A missing
 * directory passes (there is nothing to read or delete), and so does one at the very place gitctx made the worktree
 * (`<worktrees directory>/<name>`, reached through no link) whose `.git` file is broken rather than leading elsewhere:
 * gitctx's own worktree, which git can no longer validate.
 */
export async function checkWorktreeDirectory(
  found: Pick<FoundWorktree, "entry" | "path"> & { record?: WorktreeRecord },
  layout?: WorktreeLayout,
): Promise<void> {
  const { entry, path } = found;
  if (lstatQuietly(path) === undefined) return;
  const leadsTo = await adminDirOf(path);
  if (leadsTo !== undefined && leadsTo === realpathOr(entry.adminDir, entry.adminDir)) return;
  const dotGit = lstatQuietly(join(path, ".git"));
  const record = found.record;
  const ownPlace =
    record !== undefined &&
    layout !== undefined &&
    validName(record.name) &&
    path === join(layout.directory, record.name) &&
    realpathOr(path, "") === path &&
    leadsTo === undefined &&
    dotGit?.isDirectory() !== true;
  if (ownPlace) return;
  throw new GitctxError(
    "unsafe_repository",
    `${path} is not the worktree git's record ${entry.adminDir} names: ${dotGit === undefined ? "it has no .git file" : leadsTo === undefined ? "its .git is not a file leading to a git directory" : `its .git file leads to ${leadsTo}`}. ` +
      "A repository can ship such a record (or gitctx's own in it) naming any directory; gitctx reads and removes nothing there.",
    `Inspect ${entry.adminDir}; if the worktree is not yours, drop the record (git worktree prune, once the directory is gone, or delete ${entry.adminDir}).`,
  );
}

function validName(name: string): boolean {
  try {
    checkWorktreeName(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The worktree as a repository, even when its `.git` file is broken (git's record still names both halves), once
 * checkWorktreeDirectory passes: `layout` lets a gitctx worktree at its own place through with a broken `.git` file.
 */
export async function openWorktree(
  main: Repository,
  found: Pick<FoundWorktree, "entry" | "path"> & { record?: WorktreeRecord },
  layout?: WorktreeLayout,
): Promise<Repository> {
  const discovered = await discoverRepository(found.path, main.trustRepository).catch(() => undefined);
  if (discovered !== undefined && discovered.gitDir === found.entry.adminDir && discovered.topLevel === found.path) return main.openOther(discovered);
  await checkWorktreeDirectory(found, layout);
  // git reads the git directory's own commondir: it must lead back here, or git would read another repository.
  const common = await commonDirOf(found.entry.adminDir);
  if (common !== main.paths.commonDir) {
    throw new GitctxError(
      "unsafe_repository",
      `The worktree ${found.path} is not one gitctx can read: its git directory ${found.entry.adminDir} names ${common} as its common directory, not ${main.paths.commonDir}.`,
      "If the repository is yours, repair the worktree (git worktree repair) or remove it with plain git once you have checked it.",
    );
  }
  const paths: RepositoryPaths = {
    root: found.path,
    topLevel: found.path,
    gitDir: found.entry.adminDir,
    commonDir: main.paths.commonDir,
    prefix: "",
    layout: "worktree",
  };
  return main.openOther(paths);
}

export interface LossCheck {
  /** The worktree as a repository already open (the caller's), else it is opened here. */
  opened?: Repository | undefined;
  layout?: WorktreeLayout;
  /** Called once the worktree's status has started (at once when there is no directory to check). */
  started?: () => void;
}

/** Uncommitted and untracked files of the worktree (the links and unchanged copies gitctx made aside), and its commits on no other ref. */
export async function findLosses(main: Repository, found: FoundWorktree, check: LossCheck = {}): Promise<WorktreeLosses> {
  const { path } = found;
  const present = lstatQuietly(path)?.isDirectory() === true;
  if (!present) check.started?.();
  // The files and the commits are read at the same time: they do not depend on each other.
  const [files, commits] = await Promise.all([present ? changedFiles(main, found, check) : Promise.resolve([]), unmergedCommits(main, found)]);
  return { files: files.slice(0, LOSS_LIST_LIMIT), fileCount: files.length, commits: commits.slice(0, LOSS_LIST_LIMIT), commitCount: commits.length };
}

/** Commits reachable from the worktree's branch or detached HEAD and from no other branch, tag or remote-tracking ref. */
async function unmergedCommits(main: Repository, found: FoundWorktree): Promise<LostCommit[]> {
  const { entry, record } = found;
  const tips = new Set<string>();
  const tip = await branchTip(main.paths.commonDir, record.branch);
  if (tip !== undefined) tips.add(tip);
  const head = (await readRegularFile(join(entry.adminDir, "HEAD"), 4096))?.toString("utf8").trim();
  if (head !== undefined && /^[0-9a-f]{40,64}$/.test(head)) tips.add(head);
  let commits: LostCommit[] = [];
  // Tips that are exactly where another ref points lose nothing; git is asked about the others only.
  for (const oid of [...tips]) if ((await atAnotherRef(main.paths.commonDir, oid, `refs/heads/${record.branch}`)) === true) tips.delete(oid);
  if (tips.size > 0) {
    const log = await main.git("log", [
      "-z",
      "--format=%H%x00%s",
      `-n${MAX_COUNTED_COMMITS}`,
      ...tips,
      "--not",
      // Relative to refs/heads/ for --branches; names gitctx makes have no glob characters.
      `--exclude=${record.branch}`,
      "--branches",
      "--tags",
      "--remotes",
      "--",
    ]);
    if (log.exitCode !== 0) throw gitFailure("git log (commits only this worktree has)", log.stderr);
    const fields = log.stdout.split("\0");
    for (let i = 0; i + 1 < fields.length; i += 2) commits.push({ hash: fields[i]!.replace(/^\n/, ""), subject: fields[i + 1]! });
    commits = commits.filter((commit) => commit.hash !== "");
  }
  return commits;
}

async function changedFiles(main: Repository, found: FoundWorktree, { opened, layout, started }: LossCheck): Promise<string[]> {
  const worktree = opened ?? (await openWorktree(main, found, layout));
  try {
    const running = worktree.git("status", ["--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none", "--no-renames"], {
      minTimeoutMs: CHECKOUT_TIMEOUT_MS,
    });
    started?.();
    const status = await running;
    if (status.exitCode !== 0) throw gitFailure(`git status in ${found.path}`, status.stderr);
    const links = new Set(found.record.links.map((link) => link.path));
    const copies = new Map(found.record.copies.map((copy) => [copy.path, copy]));
    const files: string[] = [];
    for (const item of parseStatusV2(status.stdout).entries) {
      if (item.kind === "untracked") {
        const path = item.path.replace(/\/$/, "");
        if (links.has(path)) continue;
        const copy = copies.get(path);
        if (copy !== undefined) {
          const info = lstatQuietly(join(found.path, path));
          if (info !== undefined && info.size === copy.size && info.mtimeMs === copy.mtimeMs) continue;
        }
        files.push(`?? ${item.path}`);
      } else {
        files.push(`${`${item.index}${item.worktree}`.replaceAll(".", " ")} ${item.path}`);
      }
    }
    return files;
  } finally {
    if (worktree !== opened) await worktree.dispose();
  }
}

export function describeLosses(losses: WorktreeLosses): string {
  const parts: string[] = [];
  if (losses.fileCount > 0) parts.push(`${losses.fileCount} uncommitted file${losses.fileCount === 1 ? "" : "s"}`);
  if (losses.commitCount > 0) parts.push(`${losses.commitCount} commit${losses.commitCount === 1 ? "" : "s"} on no other branch, tag or upstream`);
  return parts.join(" and ");
}

function refusal(found: FoundWorktree, losses: WorktreeLosses): GitctxError {
  const { record, path } = found;
  const more = (shown: number, total: number): string => (total > shown ? `, and ${total - shown} more` : "");
  const lists: string[] = [];
  if (losses.fileCount > 0) lists.push(`Files: ${losses.files.map((file) => file.trim()).join(", ")}${more(losses.files.length, losses.fileCount)}.`);
  if (losses.commitCount > 0) {
    lists.push(
      `Commits: ${losses.commits.map((commit) => `${commit.hash.slice(0, 12)} ${commit.subject}`).join("; ")}${more(losses.commits.length, losses.commitCount)}.`,
    );
  }
  return new GitctxError(
    "uncommitted_changes",
    `The worktree ${record.name} (${path}) has ${describeLosses(losses)}; removing it now would lose that work, so nothing was removed. ${lists.join(" ")}`,
    `Commit the files and merge or push the commits (e.g. git merge ${record.branch} in the main checkout); or remove again with discard_changes: true (CLI: --discard-changes) to delete them. exit_worktree with action "keep" leaves everything as it is.`,
  );
}

function describeLeft(path: string, record: WorktreeRecord): string {
  return `the worktree ${path} with git's record of it, which still names the branch ${record.branch} gitctx made`;
}
