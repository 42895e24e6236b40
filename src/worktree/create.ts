/**
 * Creating a worktree (or reopening one gitctx made): `git worktree add` run hardened, then the worktree gets its
 * links, copies, settings, sparse paths and submodules. Until it is handed over, a failure takes back everything
 * this call made (the worktree and its branch; nothing of the user's is there yet) and says what it could not.
 */
import { dirname, join } from "node:path";
import { GitctxError } from "../errors.js";
import { resolveCommit } from "../git/args.js";
import { discoverRepository, type RepositoryPaths } from "../git/discover.js";
import { firstLine } from "../git/failures.js";
import type { NeutralisedSetting } from "../git/config-scan.js";
import type { Repository } from "../git/repository.js";
import { lstatQuietly } from "../git/stat-quietly.js";
import type { PermissionMode } from "../types.js";
import {
  CHECKOUT_TIMEOUT_MS,
  checkoutFilters,
  checkoutSubmodules,
  describeFilter,
  describeHook,
  describeSubmodule,
  reportFilters,
  shellQuote,
  skippedPostCheckout,
  type FilterReport,
  type SkippedHook,
  type SubmoduleCheckout,
} from "./checkout.js";
import {
  checkWritable,
  excludeDirectory,
  excludeLinks,
  prepareDirectory,
  resolveLayout,
  type WorktreeLayout,
  type WorktreeSettings,
} from "./layout.js";
import { checkWorktreeName, generateWorktreeName } from "./names.js";
import { copyIncluded, copySettings, createLinks, planLinks, unlinkLinks } from "./populate.js";
import { branchTip, checkedOutAt } from "./refs.js";
import {
  adminDirOf,
  lockedError,
  lockState,
  newRecord,
  readAdminEntries,
  releaseLock,
  writeRecord,
  type AdminEntry,
  type WorktreeCopy,
  type WorktreeLink,
  type WorktreeRecord,
} from "./record.js";

export interface CreateWorktreeRequest {
  /** Validated like a branch name; generated when absent. */
  name?: string;
  /** The revision the new branch starts at. Default: HEAD of the repository `repo` was opened in. */
  base?: string;
  settings?: WorktreeSettings;
  mode: PermissionMode;
  /** Lock the worktree with this reason (a session that works in it); released by `releaseLock`. */
  lockReason?: string;
  now?: Date;
}

export interface CreatedWorktree {
  name: string;
  /** The worktree's directory (its top level). */
  path: string;
  branch: string;
  /** The commit the branch started at. */
  base: string;
  /** `false`: it existed (gitctx made it earlier) and was reopened. */
  created: boolean;
  locked: boolean;
  links: WorktreeLink[];
  /** Files copied in (`.worktreeinclude`, settings), relative to the worktree. */
  copied: string[];
  sparsePaths: string[];
  submodules: SubmoduleCheckout[];
  /** Files checked out without a filter the repository defines. */
  filters: FilterReport[];
  skippedHooks: SkippedHook[];
  /** Program-naming settings of the repository's config that were neutralised (none ran). */
  neutralised: NeutralisedSetting[];
  /** What a person should know, one sentence each. */
  notes: string[];
}

export async function createWorktreeIn(repo: Repository, request: CreateWorktreeRequest): Promise<CreatedWorktree> {
  const now = request.now ?? new Date();
  const layout = await resolveLayout(repo.paths, request.settings);
  checkWritable(layout, request.mode, "Creating a worktree");
  const name = request.name ?? generateWorktreeName(now);
  checkWorktreeName(name);
  const branch = `${layout.settings.branchPrefix}${name}`;
  const target = join(layout.directory, name);

  const entries = await readAdminEntries(layout.commonDir);
  const known = entries.find((entry) => entry.record?.name === name) ?? entries.find((entry) => entry.path === target);
  if (known !== undefined) return reopen(repo, layout, known, name, request);

  await prepareDirectory(layout);
  const existing = lstatQuietly(target);
  if (existing !== undefined) {
    if (existing.isSymbolicLink()) {
      throw new GitctxError(
        "unsafe_repository",
        `${target} is a symbolic link: gitctx will not make a worktree where a link leads.`,
        "Remove the link, or choose another name.",
      );
    }
    throw new GitctxError(
      "invalid_input",
      `${target} already exists and is not a worktree gitctx made.`,
      "Choose another name, or move that directory away.",
    );
  }
  const holder = await checkedOutAt(layout, entries, branch);
  if (holder !== undefined) {
    throw new GitctxError(
      "invalid_input",
      `The branch ${branch} is already checked out at ${holder}.`,
      "Choose another name (the branch is worktree-<name>), or work in that checkout.",
    );
  }
  if ((await branchTip(layout.commonDir, branch)) !== undefined) {
    throw new GitctxError(
      "invalid_input",
      `A branch named ${branch} already exists (gitctx did not make it for a worktree it knows).`,
      `Choose another name, or delete the branch if it is not needed (git branch -d ${branch}).`,
    );
  }
  const base = request.base === undefined ? undefined : await resolveCommit(repo, request.base, "base");

  const notes: string[] = [];
  const excludeNote = await excludeDirectory(layout);
  if (excludeNote !== undefined) notes.push(excludeNote);
  const sparse = layout.settings.sparsePaths;
  // `git worktree add` checks out in a child git whose context is the new worktree's: its git directory
  // `.git/worktrees/<name>`, its branch, and with `extensions.worktreeConfig` a `config.worktree` copied from this
  // one, whose relative includes now name other files. Without that extension the child reads this repository's
  // own config file with the same includes, and this scan has every setting they hold, conditions aside (an include
  // that only holds on the new branch included), so the hardening it gave this process holds for the child: one
  // process, as the user's own. With the extension, config only the new worktree's scan could see applies there:
  // the worktree is made empty, opened as its own repository (its git directory, its branch, its config), and
  // checked out through that, hardened with what it defines. Sparse paths take that way too, so the files outside
  // them are never written.
  const direct = sparse.length === 0 && !repo.settings.some((setting) => setting.key === "extensions.worktreeconfig");
  const args = ["add", "--quiet"];
  if (request.lockReason !== undefined) args.push("--lock", "--reason", request.lockReason);
  if (!direct) args.push("--no-checkout");
  args.push("-b", branch, "--", target, base ?? "HEAD");
  const added = await repo.git("worktree", args, { minTimeoutMs: CHECKOUT_TIMEOUT_MS });
  if (added.exitCode !== 0) {
    const left = await rollback(repo, layout, target, branch, undefined);
    if (base === undefined && /invalid reference: HEAD|not a valid object name: 'HEAD'/.test(added.stderr)) {
      throw new GitctxError(
        "bad_revision",
        "The repository has no commits yet, so there is nothing to start a worktree from.",
        "Make a first commit, then create the worktree.",
      );
    }
    throw new GitctxError("git_failed", `git worktree add failed: ${firstLine(added.stderr)}${left}`);
  }

  let record: WorktreeRecord | undefined;
  let adminDir: string | undefined;
  let worktree: Repository | undefined;
  try {
    adminDir = await adminDirOf(target);
    if (adminDir === undefined || dirname(adminDir) !== join(layout.commonDir, "worktrees")) {
      throw new GitctxError("git_failed", `git worktree add made ${target}, but its .git does not lead to ${join(layout.commonDir, "worktrees")}.`);
    }
    const start = base ?? (await branchTip(layout.commonDir, branch));
    if (start === undefined) throw new GitctxError("git_failed", `git worktree add did not create the branch ${branch}.`);
    // Recorded before anything is linked: a stop from here on leaves a worktree the next removal knows to clean.
    const planned = await planLinks(layout.mainTop, target, layout.settings.symlinkDirectories, notes);
    record = newRecord({ name, branch, base: start, path: target, links: planned, copies: [], submodules: [] }, now);
    await writeRecord(adminDir, record);

    const paths: RepositoryPaths = { root: target, topLevel: target, gitDir: adminDir, commonDir: layout.commonDir, prefix: "", layout: "worktree" };
    // Discovered once: the checkout cannot change what leads to the git directory (git refuses a tracked `.git`).
    let discovered: RepositoryPaths | undefined;
    const open = async (): Promise<Repository> => (worktree ??= await repo.openOther((discovered ??= await verified(paths, repo.trustRepository))));
    if (!direct) {
      const empty = await open();
      if (sparse.length > 0) {
        const set = await empty.git("sparse-checkout", ["set", "--cone", "--", ...sparse], { minTimeoutMs: CHECKOUT_TIMEOUT_MS });
        if (set.exitCode !== 0) throw new GitctxError("git_failed", `git sparse-checkout set failed: ${firstLine(set.stderr)}`);
      }
      // What `git worktree add` itself runs to check out.
      const checkout = await empty.git("reset", ["--hard", "--quiet", "--no-recurse-submodules"], { minTimeoutMs: CHECKOUT_TIMEOUT_MS });
      if (checkout.exitCode !== 0) throw new GitctxError("git_failed", `the checkout (git reset --hard) failed: ${firstLine(checkout.stderr)}`);
      if (sparse.length > 0) notes.push(`Checked out only ${sparse.join(", ")} (sparse, cone mode; git keeps this in the worktree's own config).`);
      // Opened again for what follows: a checked-out file can be one an include names, and the scan must see it.
      await empty.dispose();
      worktree = undefined;
    }

    const links = await createLinks(target, planned, notes);
    const copies: WorktreeCopy[] = [];
    let main: Repository | undefined;
    const openMain = async (): Promise<Repository> =>
      (main ??= repo.paths.topLevel === layout.mainTop ? repo : await repo.openOther(await discoverRepository(layout.mainTop, repo.trustRepository)));
    try {
      const note = await excludeLinks(layout, links, openMain);
      if (note !== undefined) notes.push(note);
      if (layout.settings.copyIncluded) {
        copies.push(
          ...(await copyIncluded(await openMain(), target, { worktreesDirectory: layout.directory, linked: links.map((link) => link.path) }, notes)),
        );
      }
    } finally {
      if (main !== undefined && main !== repo) await main.dispose();
    }
    if (layout.settings.copySettings) copies.push(...(await copySettings(layout.mainTop, target, notes)));

    const hasSubmodules = layout.settings.initSubmodules && lstatQuietly(join(target, ".gitmodules"))?.isFile() === true;
    const submodules = hasSubmodules ? await checkoutSubmodules(await open(), layout.commonDir) : [];
    for (const submodule of submodules) notes.push(describeSubmodule(submodule));
    // The filters the user's own `git worktree add` would have run are those the new worktree's config defines
    // (this repository's, when it reads the same there); its post-checkout hook is the one of the process that adds
    // the worktree, in this repository's context.
    const drivers = checkoutFilters(direct && repo.sameConfigInEveryWorktree ? repo : await open());
    const filters = drivers.length === 0 ? [] : await reportFilters(await open(), drivers);
    for (const filter of filters) notes.push(describeFilter(filter));
    const hook = await skippedPostCheckout(repo, target, start);
    if (hook !== undefined) notes.push(describeHook(hook));

    const checkedOut = submodules.filter((s) => s.state === "checked-out").map((s) => s.path);
    // Written again only when it changed: a link not made, a file copied, a submodule checked out.
    if (links.length !== planned.length || copies.length > 0 || checkedOut.length > 0) {
      record = { ...record, links, copies, submodules: checkedOut };
      await writeRecord(adminDir, record);
    }
    return {
      name,
      path: target,
      branch,
      base: start,
      created: true,
      locked: request.lockReason !== undefined,
      links,
      copied: copies.map((copy) => copy.path),
      sparsePaths: [...sparse],
      submodules,
      filters,
      skippedHooks: hook === undefined ? [] : [hook],
      neutralised: neutralisedIn(worktree, repo),
      notes,
    };
  } catch (error) {
    const left = await rollback(repo, layout, target, branch, record);
    if (error instanceof GitctxError)
      throw new GitctxError(error.code, `${error.message}${left === "" ? " The new worktree and its branch were removed again." : left}`, error.hint);
    throw error;
  } finally {
    await worktree?.dispose();
  }
}

/**
 * What was neutralised where git ran: the new worktree's settings (its checkout, when it was opened for one), then
 * those of this repository (where `git worktree add` ran) that the worktree's list does not name.
 */
function neutralisedIn(worktree: Repository | undefined, repo: Repository): NeutralisedSetting[] {
  const found = [...(worktree?.neutralised ?? [])];
  for (const setting of repo.neutralised) if (!found.some((known) => known.key === setting.key)) found.push(setting);
  return found;
}

/** The worktree's paths as discovery finds them, which must agree with what git recorded. */
async function verified(paths: RepositoryPaths, trust: boolean): Promise<RepositoryPaths> {
  const found = await discoverRepository(paths.topLevel, trust);
  if (found.gitDir !== paths.gitDir) throw new GitctxError("git_failed", `${paths.topLevel} does not lead to its git directory ${paths.gitDir}.`);
  return found;
}

/** Opens a worktree gitctx made earlier: it must still be there, and not be held by another live session. */
async function reopen(
  repo: Repository,
  layout: WorktreeLayout,
  entry: AdminEntry,
  name: string,
  request: CreateWorktreeRequest,
): Promise<CreatedWorktree> {
  const record = entry.record;
  const path = entry.path ?? join(layout.directory, name);
  if (record === undefined) {
    throw new GitctxError(
      "invalid_input",
      `The name ${name} is taken by a worktree gitctx did not make (${path}).`,
      "Choose another name; gitctx only enters and removes worktrees it created.",
    );
  }
  if (lstatQuietly(join(path, ".git")) === undefined) {
    throw new GitctxError(
      "path_not_found",
      `The worktree ${name} was made by gitctx, but its directory ${path} is gone.`,
      `Remove what is left of it (gitctx worktree remove ${name}, or exit_worktree after entering another), then create it again.`,
    );
  }
  checkWritable(layout, request.mode, "Entering a worktree");
  // Before anything is taken or moved: the worktree must still be one git and gitctx read as this repository's (its
  // .git file, commondir and gitdir as git resolves them), else the session would be handed a layout it refuses.
  await verified(
    { root: path, topLevel: path, gitDir: entry.adminDir, commonDir: layout.commonDir, prefix: "", layout: "worktree" },
    repo.trustRepository,
  );
  const notes = [`Reopened the existing worktree ${name} (gitctx made it on ${record.createdAt.slice(0, 10)}).`];
  if (request.base !== undefined) notes.push(`Did not use base ${request.base}: the worktree exists, on its branch ${record.branch}.`);
  let locked = false;
  if (request.lockReason !== undefined) {
    const state = lockState(entry, request.lockReason);
    if (state.locked && !state.mine && !state.stale) throw lockedError(name, path, state.reason);
    if (state.locked && state.stale) {
      await releaseLock(entry.adminDir, request.lockReason, { stale: true });
      notes.push(`Took over the lock of a session that is gone (${state.reason}).`);
    }
    if (!state.locked || !state.mine) {
      const lock = await repo.git("worktree", ["lock", "--reason", request.lockReason, "--", path]);
      if (lock.exitCode !== 0) throw new GitctxError("git_failed", `git worktree lock failed: ${firstLine(lock.stderr)}`);
    }
    locked = true;
  }
  await writeRecord(entry.adminDir, { ...record, lastUsedAt: (request.now ?? new Date()).toISOString() }).catch(() => undefined);
  return {
    name,
    path,
    branch: record.branch,
    base: record.base,
    created: false,
    locked,
    links: record.links,
    copied: record.copies.map((copy) => copy.path),
    sparsePaths: [],
    submodules: [],
    filters: [],
    skippedHooks: [],
    neutralised: [...repo.neutralised],
    notes,
  };
}

/**
 * Takes back a worktree this call made and the branch it created. Returns `""` when nothing is left, else a
 * sentence naming what is (so the error can say it).
 */
async function rollback(
  repo: Repository,
  layout: WorktreeLayout,
  target: string,
  branch: string,
  record: WorktreeRecord | undefined,
): Promise<string> {
  const left: string[] = [];
  if (record !== undefined) await unlinkLinks(target, record.links).catch(() => undefined);
  if (lstatQuietly(target) !== undefined || (await readAdminEntries(layout.commonDir)).some((entry) => entry.path === target)) {
    const removed = await repo
      .git("worktree", ["remove", "--force", "--force", "--", target], { minTimeoutMs: CHECKOUT_TIMEOUT_MS })
      .catch(() => undefined);
    if (removed?.exitCode !== 0) left.push(`the worktree ${target} (git worktree remove --force ${shellQuote(target)})`);
  }
  if ((await branchTip(layout.commonDir, branch)) !== undefined) {
    const deleted = await repo.git("branch", ["-D", "--", branch]).catch(() => undefined);
    if (deleted?.exitCode !== 0) left.push(`the branch ${branch} (git branch -D ${shellQuote(branch)})`);
  }
  return left.length === 0 ? "" : ` Taking back what it made failed, and it left ${left.join(" and ")}.`;
}
