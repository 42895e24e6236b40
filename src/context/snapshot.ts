/**
 * The repository snapshot: one picture of a repository for an agent's system prompt, gathered in parallel.
 * Every section is read on its own and fails on its own: a failing one is reported unavailable with the
 * reason, and the rest still arrives. Every git process goes through the hardened `Repository`; nothing here
 * talks to a remote.
 */
import { lstat, readdir, realpath } from "node:fs/promises";
import { isAbsolute, join, posix } from "node:path";
import { GitctxError } from "../errors.js";
import type { RepositoryPaths } from "../git/discover.js";
import { gitFailure } from "../git/failures.js";
import type { NeutralisedSetting } from "../git/config-scan.js";
import type { LfsReading } from "../git/lfs.js";
import {
  commitSummaryFormat,
  parseCommitSummaries,
  parseGitmodules,
  parseRemotes,
  parseStagedEntries,
  parseStashes,
  parseUnmergedPaths,
  parseWorktrees,
  STASH_FORMAT,
  type CommitSummary,
  type RawRemote,
  type RawWorktree,
  type StashEntry,
} from "../git/parse/snapshot.js";
import { parseStatusV2, type StatusEntry } from "../git/parse/status.js";
import { readRegularFile } from "../git/read-file.js";
import type { Repository } from "../git/repository.js";
import { findBaseBranch, readCurrentBranch, type BaseBranch, type CurrentBranch } from "./base-branch.js";
import { readOperations, type Operation } from "./operation.js";
import { redactUrl } from "./redact.js";
import { summariseUntracked, type UntrackedFiles } from "./untracked.js";
import { readIndexLock, type IndexLock } from "../git/index-lock.js";
import { NUL_FIELDS } from "../git/run.js";
import { DEFAULT_STALE_DAYS, isStale } from "../worktree/list.js";
import { lastUsed, readAdminEntries } from "../worktree/record.js";

export type { BaseBranch, BaseRule, CurrentBranch, OwnUpstream } from "./base-branch.js";
export type { UntrackedDirectory } from "./untracked.js";
export type { CommitSummary, StashEntry } from "../git/parse/snapshot.js";
export type { Operation, OperationKind } from "./operation.js";
export type { IndexLock } from "../git/index-lock.js";
export type { HiddenFiles, UntrackedFiles } from "./untracked.js";

/** The sections of a snapshot, in the order a rendering gives them room: most important first. */
export const CONTEXT_SECTIONS = [
  "branch",
  "head",
  "operation",
  "indexLock",
  "base",
  "status",
  "untracked",
  "commits",
  "stashes",
  "remotes",
  "worktrees",
  "submodules",
] as const;
export type ContextSection = (typeof CONTEXT_SECTIONS)[number];

/** A section's outcome: its value, or why it could not be read. */
export type Part<T> = { ok: true; value: T } | { ok: false; reason: string };

export const RECENT_COMMITS = 20;
/** Status entries kept in the data; the counts always cover every entry. */
export const STATUS_ENTRY_LIMIT = 500;
export interface StatusSection {
  /** Staged, unstaged and conflicted tracked files (untracked ones are their own section), at most 500. */
  entries: StatusEntry[];
  counts: { staged: number; unstaged: number; conflicted: number; total: number };
  /** Entries beyond the 500 kept. */
  more: number;
}

export interface OperationSection {
  /** Operations waiting for the user, most pressing first; empty when none. */
  operations: Operation[];
  /** Paths with unmerged index entries (also possible without an operation, e.g. after `git stash pop`). */
  conflicted: string[];
}

export interface Remote {
  name: string;
  /** Fetch URL with any credentials redacted. */
  url: string | null;
  /** Push URL (redacted) when it differs from the fetch URL, else `null`. */
  pushUrl: string | null;
  /** Whether credentials were removed from either URL. */
  redacted: boolean;
}

export interface Worktree extends Omit<RawWorktree, "branch"> {
  /** Short branch name; `null` when detached. */
  branch: string | null;
  /** The main worktree (the repository's own). */
  main: boolean;
  /** The worktree this snapshot was taken in. */
  current: boolean;
  /** Made by gitctx (enter_worktree, gitctx worktree create): gitctx may remove it. */
  gitctx: boolean;
  /** A gitctx worktree unused for 7 days that no live session holds (`gitctx worktree cleanup` removes it if clean). */
  stale: boolean;
}

export interface Submodule {
  name: string;
  /** Whether its work tree is checked out at another commit than the one recorded (git status's "new commits"): present when it is checked out. */
  commitChanged?: boolean;
  /** Relative to the workspace root. */
  path: string;
  /** URL from `.gitmodules`, credentials redacted. */
  url: string | null;
  /** The commit recorded in the index; `null` when `.gitmodules` names a path the index has no submodule at. */
  commit: string | null;
  /** Whether it is checked out (its directory holds a `.git`). */
  initialized: boolean;
}

/** The current branch; when HEAD is detached, with the tags pointing at its commit (empty when none). */
export interface SnapshotBranch extends CurrentBranch {
  tags?: string[];
}

export interface RepositorySnapshot {
  /** The workspace root (resolved). File paths in the snapshot are relative to it. */
  root: string;
  /** The top level of the work tree. */
  topLevel: string;
  gitDir: string;
  /** When the snapshot was taken (the moment lock ages are measured against), ISO 8601 UTC. */
  takenAt: string;
  /** The sections asked for, in priority order; only these are present below. */
  sections: ContextSection[];
  /** Program-naming settings of the repository's config that gitctx neutralised (none ran), then the user's own filters; always read. */
  neutralised: NeutralisedSetting[];
  /** Present when the config sets up Git LFS: its files were compared as git-lfs would (see git/lfs.ts). */
  lfs?: LfsReading;
  /**
   * For a shallow clone, the commits where its history stops (older ones are not in the repository, so the log
   * ends there and blame credits older lines to them); empty for a complete history. Always read.
   */
  shallowBoundary: string[];
  branch?: Part<SnapshotBranch>;
  /** The commit HEAD points at; `null` before the first commit. */
  head?: Part<CommitSummary | null>;
  operation?: Part<OperationSection>;
  /** `null` when there is no `index.lock`. */
  indexLock?: Part<IndexLock | null>;
  /** `null` when no rule finds a base branch. */
  base?: Part<BaseBranch | null>;
  status?: Part<StatusSection>;
  untracked?: Part<UntrackedFiles>;
  /**
   * The last 20 commits of HEAD, newest first: those touching the workspace when it is below the repository's
   * top level (`commitsLimitedTo`), as git_log there lists them.
   */
  commits?: Part<CommitSummary[]>;
  /** The workspace (relative to the top level) the commits were limited to; `null` for the whole repository. */
  commitsLimitedTo?: string | null;
  stashes?: Part<StashEntry[]>;
  remotes?: Part<Remote[]>;
  /** Every worktree of the repository, the main one first. */
  worktrees?: Part<Worktree[]>;
  submodules?: Part<Submodule[]>;
}

export interface GatherOptions {
  /** Sections to read (default: all). The others are neither read nor present in the result. */
  sections?: readonly ContextSection[];
  /** The moment lock ages are measured against. Default: now. */
  now?: Date;
  /** Aborting kills the snapshot's git processes; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The snapshot of an open repository (what the `git_context` tool uses inside a toolbox call). */
export async function gatherSnapshot(repo: Repository, options: GatherOptions = {}): Promise<RepositorySnapshot> {
  const wanted = new Set<ContextSection>(options.sections ?? CONTEXT_SECTIONS);
  const sections = CONTEXT_SECTIONS.filter((section) => wanted.has(section));
  const now = options.now ?? new Date();
  const { paths } = repo;
  const { prefix } = paths;
  const scope = prefix === "" ? [] : [prefix];
  const toWorkspace = (path: string): string => (prefix === "" ? path : posix.relative(prefix, path) || ".");

  // Reads shared by several sections start once, and only when a section needs them.
  const shared = <T>(make: () => Promise<T>): (() => Promise<T>) => {
    let promise: Promise<T> | undefined;
    return () => (promise ??= make());
  };
  const branch = shared(() => readCurrentBranch(repo));
  const remotes = shared(async () => {
    const configured = await remotesAsConfigured(repo, paths.commonDir);
    if (configured !== undefined) return configured;
    // With the user's insteadOf rules too: the URLs the user's `git remote -v` shows.
    const result = await repo.git("remote", ["-v"], { config: repo.userUrlRewrites });
    if (result.exitCode !== 0) throw gitFailure("git remote -v", result.stderr);
    return parseRemotes(result.stdout);
  });
  const log = shared(async () => {
    // Whole history: the snapshot's HEAD and the worktrees' HEAD need only the newest commit.
    const count = wanted.has("commits") && prefix === "" ? RECENT_COMMITS : 1;
    return readLog(repo, count, []);
  });
  // A workspace below the top level lists its own history, as git_log there does (one rule for both).
  const recent = prefix === "" ? log : shared(() => readLog(repo, RECENT_COMMITS, scope));
  // One `git status` serves the status, untracked and conflict parts: git walks the work tree once.
  const status = shared(async () => {
    if (repo.workTree === undefined) throw new GitctxError("not_a_repository", "a bare repository has no working tree");
    const result = await repo.git("status", ["--porcelain=v2", "-z", "--untracked-files=all", "--find-renames", "--", ...scope]);
    if (result.exitCode !== 0) throw gitFailure("git status", result.stderr);
    return parseStatusV2(result.stdout).entries.map((entry) => rebaseEntry(entry, toWorkspace));
  });

  // git status reads the operation's state files, which a hostile repository can make FIFOs that block it until
  // the timeout: asked alone, the operation part lists conflicts without it.
  const conflicts = async (): Promise<string[]> => {
    // Without a work tree there is no index to hold a conflict.
    if (repo.workTree === undefined) return [];
    if (wanted.has("status") || wanted.has("untracked")) {
      return (await status()).filter((entry) => entry.kind === "conflicted").map((entry) => entry.path);
    }
    const result = await repo.git("ls-files", ["-u", "-z", "--", ...scope]);
    if (result.exitCode !== 0) throw gitFailure("git ls-files -u", result.stderr);
    return parseUnmergedPaths(result.stdout).map(toWorkspace);
  };

  const readers: { [K in ContextSection]: () => Promise<NonNullable<RepositorySnapshot[K]> extends Part<infer T> ? T : never> } = {
    branch: async () => {
      const current = await branch();
      if (!current.detached) return current;
      // A detached HEAD is usually a tag checked out (a release, a bisect step): name it.
      const listed = await repo.git("for-each-ref", ["--points-at=HEAD", "--format=%(refname:strip=2)", "--", "refs/tags"]);
      if (listed.exitCode !== 0) throw gitFailure("git for-each-ref", listed.stderr);
      return { ...current, tags: listed.stdout.split("\n").filter((name) => name !== "") };
    },
    head: async () => (await log())[0] ?? null,
    operation: async () => {
      const [operations, conflicted] = await Promise.all([readOperations(paths.gitDir), conflicts()]);
      return { operations, conflicted };
    },
    indexLock: () => readIndexLock(paths.gitDir, { now }),
    base: () => findBaseBranch(repo, { branch: branch() }),
    status: async () => {
      const entries = (await status()).filter((entry) => entry.kind !== "untracked");
      const counts = { staged: 0, unstaged: 0, conflicted: 0, total: entries.length };
      for (const entry of entries) {
        if (entry.kind === "conflicted") counts.conflicted++;
        else {
          if (entry.staged) counts.staged++;
          if (entry.unstaged) counts.unstaged++;
        }
      }
      return { entries: entries.slice(0, STATUS_ENTRY_LIMIT), counts, more: Math.max(0, entries.length - STATUS_ENTRY_LIMIT) };
    },
    untracked: async () => {
      const untracked = (await status()).filter((entry) => entry.kind === "untracked").map((entry) => entry.path);
      return summariseUntracked(untracked, paths.root);
    },
    commits: recent,
    stashes: async () => (await readStashReflog(paths.commonDir)) ?? (await listStashes(repo)),
    remotes: async () =>
      (await remotes()).map((remote) => {
        const fetch = remote.fetchUrl === null ? undefined : redactUrl(remote.fetchUrl);
        const push = remote.pushUrl === null || remote.pushUrl === remote.fetchUrl ? undefined : redactUrl(remote.pushUrl);
        return {
          name: remote.name,
          url: fetch?.url ?? null,
          pushUrl: push?.url ?? null,
          redacted: (fetch?.redacted ?? false) || (push?.redacted ?? false),
        };
      }),
    worktrees: async () => {
      if (await onlyWorktree(paths)) {
        // No linked worktree: the answer is this one, and git would only be started to say so.
        const [current, commits] = await Promise.all([branch(), log()]);
        const head = commits[0]?.hash ?? null;
        return [
          {
            path: paths.topLevel,
            head,
            branch: current.name,
            detached: current.detached,
            bare: false,
            locked: false,
            prunable: false,
            main: true,
            current: true,
            gitctx: false,
            stale: false,
          },
        ];
      }
      const result = await repo.git("worktree", ["list", "--porcelain", "-z"]);
      if (result.exitCode !== 0) throw gitFailure("git worktree list", result.stderr);
      const listed = parseWorktrees(result.stdout);
      const admin = await readAdminEntries(paths.commonDir);
      return Promise.all(
        listed.map(async (worktree, index) => {
          const real = await realpath(worktree.path).catch(() => worktree.path);
          const entry = index === 0 ? undefined : admin.find((candidate) => candidate.path === real || candidate.path === worktree.path);
          const gitctx = entry?.record !== undefined;
          return {
            path: worktree.path,
            head: worktree.head,
            branch: worktree.branch === null ? null : worktree.branch.replace(/^refs\/heads\//, ""),
            detached: worktree.detached,
            bare: worktree.bare,
            locked: worktree.locked,
            prunable: worktree.prunable,
            main: index === 0,
            current: real === paths.topLevel,
            gitctx,
            stale: gitctx && isStale(entry!, await lastUsed(entry!), now, DEFAULT_STALE_DAYS),
          };
        }),
      );
    },
    submodules: async () => {
      if (repo.workTree === undefined) return [];
      const modules = await readSubmodules(repo, prefix, toWorkspace);
      const checkedOut = modules.filter((module) => module.initialized);
      if (checkedOut.length === 0) return modules;
      // Which checked-out submodules moved away from their recorded commit (git submodule status's `+`): the status
      // says, when it is read anyway; else a status of their paths alone, which does not look inside them.
      const entries =
        wanted.has("status") || wanted.has("untracked")
          ? await status()
          : await movedSubmodules(
              repo,
              checkedOut.map((module) => (prefix === "" ? module.path : module.path === "." ? prefix : `${prefix}/${module.path}`)),
            ).then((found) => found.map((entry) => rebaseEntry(entry, toWorkspace)));
      const moved = new Set(entries.filter((entry) => entry.submodule?.commitChanged === true).map((entry) => entry.path));
      return modules.map((module) => (module.initialized ? { ...module, commitChanged: moved.has(module.path) } : module));
    },
  };

  // git status is the slowest read by far: started first, the others run while it walks the work tree.
  // (Its failure is the parts' to report; this early start only must not leave a rejection unhandled.)
  if (wanted.has("status") || wanted.has("untracked")) status().catch(() => undefined);
  const entries = await Promise.all(sections.map(async (section) => [section, await settle<unknown>(readers[section], options.signal)] as const));
  const result: RepositorySnapshot = {
    root: paths.root,
    topLevel: paths.topLevel,
    gitDir: paths.gitDir,
    takenAt: now.toISOString(),
    sections,
    neutralised: [...repo.neutralised],
    ...(repo.lfs !== null ? { lfs: { ...repo.lfs } } : {}),
    shallowBoundary: [...repo.shallowBoundary()],
  };
  for (const [section, part] of entries) (result as unknown as Record<string, unknown>)[section] = part;
  if (wanted.has("commits")) result.commitsLimitedTo = prefix === "" ? null : prefix;
  return result;
}

/** The newest `count` commits of HEAD touching `scope` (all of them for none); none on an unborn branch. */
async function readLog(repo: Repository, count: number, scope: readonly string[]): Promise<CommitSummary[]> {
  // --ignore-missing: on an unborn branch HEAD does not resolve, and that is an empty history, not a failure.
  // --no-follow: the workspace's directory is a scope, not a file whose renames a user's log.follow would chase.
  const result = await repo.git(
    "log",
    ["-z", `-n${count}`, commitSummaryFormat(repo.logMailmap), "--ignore-missing", "--no-follow", "HEAD", "--", ...scope],
    {
      fieldLimit: NUL_FIELDS,
    },
  );
  if (result.exitCode !== 0) throw gitFailure("git log", result.stderr);
  return parseCommitSummaries(result.stdout);
}

/** What `git stash list` shows, from git: `git log -g refs/stash`, minus the git process `git stash` would add. */
async function listStashes(repo: Repository): Promise<StashEntry[]> {
  const result = await repo.git("log", ["-g", "--first-parent", "-z", STASH_FORMAT, "refs/stash", "--"], { fieldLimit: NUL_FIELDS });
  if (result.exitCode === 0) return parseStashes(result.stdout);
  // No stash at all. (A broken refs/stash also ends so, after a warning: that one is a failure.)
  if (/^fatal: bad revision 'refs\/stash'\n?$/.test(result.stderr)) return [];
  throw gitFailure("git stash list", result.stderr);
}

/**
 * The remotes as `git remote -v` would list them, from the config scan every call has (`undefined` when git
 * must be asked): sorted by name, the first URL fetches, the first push URL (else that URL) pushes, and remotes
 * without a URL are not listed. git is asked when `insteadOf` (the repository's or the user's) rewrites URLs, when a remote has only a push URL,
 * or when the legacy `remotes/` or `branches/` files of the git directory define remotes.
 */
async function remotesAsConfigured(repo: Repository, common: string): Promise<RawRemote[] | undefined> {
  const { remotes, rewritesUrls } = repo.remotes;
  // `git remote -v` prints a line per URL: a name or URL holding a line break or tab (the repository's config may
  // write one) would print a remote that is not there. Those are shown as configured, unrewritten.
  const unframable = remotes.some((remote) => [remote.name, ...remote.urls, ...remote.pushUrls].some((text) => /[\n\r\t]/.test(text)));
  if (!unframable) {
    if (rewritesUrls || repo.userUrlRewrites.length > 0 || remotes.some((remote) => remote.urls.length === 0 && remote.pushUrls.length > 0)) {
      return undefined;
    }
    for (const legacy of ["remotes", "branches"]) {
      const entries = await readdir(join(common, legacy)).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? [] : undefined));
      if (entries === undefined || entries.length > 0) return undefined;
    }
  }
  return remotes
    .filter((remote) => remote.urls.length > 0)
    .sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name))) // git lists them sorted by name
    .map((remote) => ({ name: remote.name, fetchUrl: remote.urls[0]!, pushUrl: remote.pushUrls[0] ?? remote.urls[0]! }));
}

/** Reflogs larger than this are left to git rather than read into memory. */
const MAX_STASH_REFLOG_BYTES = 1024 * 1024;

/**
 * The stashes, read from the stash reflog itself (one line per stash, oldest first: `<old> <new> <who> <when>
 * TAB <message>`), which is all `git stash list` shows; `undefined` when git should be asked instead.
 */
async function readStashReflog(common: string): Promise<StashEntry[] | undefined> {
  const reflog = join(common, "logs", "refs", "stash");
  const bytes = await readRegularFile(reflog, MAX_STASH_REFLOG_BYTES);
  if (bytes === undefined) {
    // No reflog and no loose ref: no stash. Anything else (a ref without its log, a reflog that is a symlink or
    // a FIFO) is git's to judge.
    const present = await Promise.all(
      [reflog, join(common, "refs", "stash")].map((path) =>
        lstat(path).then(
          () => true,
          () => false,
        ),
      ),
    );
    return present.some(Boolean) ? undefined : [];
  }
  if (bytes.length >= MAX_STASH_REFLOG_BYTES) return undefined;
  // The log is only the stash list while its newest entry is where the ref points (a packed ref is git's to read).
  const ref = (await readRegularFile(join(common, "refs", "stash"), 4096))?.toString("utf8").trim();
  const lines = bytes
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "");
  if (ref === undefined || lines.at(-1)?.split(" ")[1] !== ref) return undefined;
  const stashes: StashEntry[] = [];
  for (const line of lines) {
    const match = /^[0-9a-f]{40,64} ([0-9a-f]{40,64}) [^\t]*\t?(.*)$/.exec(line);
    if (match === null) return undefined;
    stashes.push({ ref: "", hash: match[1]!, message: match[2]! });
  }
  return stashes.reverse().map((stash, index) => ({ ...stash, ref: `stash@{${index}}` }));
}

/** Whether the repository has one worktree, this one: it is the main one and none is linked to it. */
async function onlyWorktree(paths: RepositoryPaths): Promise<boolean> {
  if (paths.layout !== "main") return false;
  return (await lstat(join(paths.gitDir, "worktrees")).catch(() => undefined)) === undefined;
}

/** Runs one section's reader; any failure becomes the section's reason, except the caller's abort. */
async function settle<T>(read: () => Promise<T>, signal: AbortSignal | undefined): Promise<Part<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    if (signal?.aborted === true) throw error;
    if (error instanceof GitctxError) return { ok: false, reason: error.message };
    return { ok: false, reason: `internal error: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The status of the submodules at `paths` (relative to the top level): their commits only, not what is inside. */
async function movedSubmodules(repo: Repository, paths: string[]): Promise<StatusEntry[]> {
  const result = await repo.git("status", ["--porcelain=v2", "-z", "--untracked-files=no", "--ignore-submodules=dirty", "--", ...paths]);
  if (result.exitCode !== 0) throw gitFailure("git status", result.stderr);
  return parseStatusV2(result.stdout).entries;
}

function rebaseEntry(entry: StatusEntry, toWorkspace: (path: string) => string): StatusEntry {
  return { ...entry, path: toWorkspace(entry.path), origPath: entry.origPath === null ? null : toWorkspace(entry.origPath) };
}

/**
 * Submodules from `.gitmodules` in the work tree (read by git as a plain config file: no includes are followed)
 * and the commits the index records for them. A symlinked `.gitmodules` is refused, as git itself does.
 */
async function readSubmodules(repo: Repository, prefix: string, toWorkspace: (path: string) => string): Promise<Submodule[]> {
  const top = repo.paths.topLevel;
  const file = join(top, ".gitmodules");
  const info = await lstat(file).catch(() => undefined);
  if (info === undefined) return [];
  if (!info.isFile()) throw new GitctxError("git_failed", ".gitmodules is not a regular file (a symlink?); git ignores it too.");
  const config = await repo.git("config", ["-z", "--file", ".gitmodules", "--get-regexp", "^submodule\\."]);
  // Exit 1: the file defines no submodule.* key.
  if (config.exitCode === 1 && config.stdout === "") return [];
  if (config.exitCode !== 0) throw gitFailure("git config --file .gitmodules", config.stderr);
  const modules = parseGitmodules(config.stdout).filter(
    (module): module is typeof module & { path: string } =>
      module.path !== null && module.path !== "" && !isAbsolute(module.path) && !module.path.split("/").includes(".."),
  );
  const inside = modules.filter((module) => prefix === "" || module.path === prefix || module.path.startsWith(`${prefix}/`));
  if (inside.length === 0) return [];
  const staged = await repo.git("ls-files", ["-s", "-z", "--", ...inside.map((module) => module.path)]);
  if (staged.exitCode !== 0) throw gitFailure("git ls-files -s", staged.stderr);
  const gitlinks = new Map<string, string>();
  for (const entry of parseStagedEntries(staged.stdout)) if (entry.mode === "160000") gitlinks.set(entry.path, entry.object);
  return Promise.all(
    inside.map(async (module) => ({
      name: module.name,
      path: toWorkspace(module.path),
      url: module.url === null ? null : redactUrl(module.url).url,
      commit: gitlinks.get(module.path) ?? null,
      initialized: await lstat(join(top, module.path, ".git")).then(
        () => true,
        () => false,
      ),
    })),
  );
}
