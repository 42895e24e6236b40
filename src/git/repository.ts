import { join } from "node:path";
import { GitctxError } from "../errors.js";
import type { GitCaches } from "./caches.js";
import { checkRepository, type RepositoryPaths } from "./discover.js";
import { runChecked } from "./failures.js";
import {
  CallListings,
  scanRepositoryConfig,
  type ConfigScan,
  type NeutralisedSetting,
  type ScannedSetting,
  type ScannedSubmodule,
} from "./config-scan.js";
import { diffReadsWorkTree, type IndexLease } from "./private-index.js";
import { MAX_STATE_FILE_BYTES } from "./file-limits.js";
import { readRegularFileSync } from "./read-file.js";
import { checkCommonDir, checkStateFiles } from "./state-files.js";
import { configBoolean, configInteger, type ConfigEntry } from "./parse/config.js";
import { StatOnce } from "./file-signature.js";
import type { GitCallOptions, GitLocation, GitRunner, ProcessResult, UserConfigEnvironment } from "./run.js";
import { cleansWithGitLfs, type LfsReading } from "./lfs.js";
import { CallUserSettings, userSettings, type UserSettings } from "./user-config.js";

function readShallow(commonDir: string): string[] {
  // Bounded and never blocking: the file may have become a FIFO or grown since the state-file check.
  const bytes = readRegularFileSync(join(commonDir, "shallow"), MAX_STATE_FILE_BYTES);
  return (bytes?.toString("latin1") ?? "").split("\n").filter((line) => /^[0-9a-f]{40,64}$/.test(line));
}

export interface OpenOptions {
  /** Accept a repository owned by another user. */
  trustRepository: boolean;
  /** Where git finds the user's own config, whose answer-changing settings are carried; `undefined`: none. */
  userConfig?: UserConfigEnvironment;
  signal?: AbortSignal;
  /** What the call has scanned so far: made by `open`, and shared with the repositories it opens (`openOther`). */
  call?: { listings: CallListings; userSettings: CallUserSettings };
}

/**
 * A git directory taken as a bare repository must say so: `core.bare=false` means its work tree is elsewhere
 * (a `.git` directory moved away, or one committed inside another repository), and reading it as bare would show
 * a history whose files are somewhere gitctx was not pointed at.
 */
function checkBare(paths: RepositoryPaths, settings: readonly ScannedSetting[]): void {
  const bare = settings
    .filter((setting) => setting.key === "core.bare")
    .at(-1)
    ?.value.trim()
    .toLowerCase();
  if (bare === undefined || ["true", "yes", "on", "1", ""].includes(bare)) return;
  throw new GitctxError(
    "not_a_repository",
    `${paths.root} is a git directory whose config says it is not bare (core.bare=${bare}): its working tree is elsewhere.`,
    [{ setting: "root", value: "its working tree" }, "."],
  );
}

/**
 * Whether git-lfs cleans this repository's files, given its scan and the user's settings. Both are the objects
 * their caches keep while the files behind them are unchanged, so the answer is kept with the scan: deriving it
 * took a later call longer than any other step of opening the repository.
 */
const lfsCleaning = new WeakMap<ConfigScan, { user: UserSettings; cleans: boolean }>();

function cleansLfs(scan: ConfigScan, user: UserSettings): boolean {
  const kept = lfsCleaning.get(scan);
  if (kept?.user === user) return kept.cleans;
  // In git's order: the user's system and global config, then the repository's own (its submodules read theirs),
  // and of those only the keys cleansWithGitLfs reads: copying every setting of a large config cost each call.
  const cleans = cleansWithGitLfs([
    ...user.lfsFilter.map((setting) => ({ ...setting, where: "user" as const })),
    ...scan.settings
      .filter((setting) => setting.key.startsWith("filter.lfs.") && (setting.scope === "local" || setting.scope === "worktree"))
      .map((setting) => ({ ...setting, where: "repository" as const })),
  ]);
  lfsCleaning.set(scan, { user, cleans });
  return cleans;
}

/** The notes ref git shows when nothing says otherwise. */
export const DEFAULT_NOTES_REF = "refs/notes/commits";

/** git's own lines of context around a change, without `diff.context` or `-U`. */
export const DEFAULT_DIFF_CONTEXT = 3;

/**
 * One tool call's view of a repository: its paths, the filter drivers its config defines right now, and the
 * user's settings that change answers. Every call checks the config afresh (a checkout can change an included
 * config file at any time); the scans are only repeated when a file they depend on changed.
 */
export class Repository {
  /** The private copy of the index `git diff` runs with, leased on first need; `undefined` inside: no index. */
  private privateIndex: Promise<IndexLease | undefined> | undefined;

  private constructor(
    readonly paths: RepositoryPaths,
    private readonly runner: GitRunner,
    private readonly caches: GitCaches,
    private readonly scan: ConfigScan,
    /** The user's own settings carried into every git process (see user-config.ts). */
    readonly carried: ReadonlyArray<readonly [string, string]>,
    /** The user's own filter drivers, which no git process of gitctx's runs (see user-config.ts). */
    private readonly userFilters: readonly NeutralisedSetting[],
    /** The files the user's `blame.ignoreRevsFile` names (see UserSettings). */
    private readonly userIgnoreRevs: readonly string[],
    /** The user's `url.<base>.insteadOf` rules (see UserSettings). */
    readonly userUrlRewrites: ReadonlyArray<readonly [string, string]>,
    /**
     * Set when the user's git cleans `filter=lfs` files with git-lfs: every git process then cleans them with
     * gitctx's own filter, which computes the same pointers (see lfs.ts); `null` otherwise.
     */
    readonly lfs: LfsReading | null,
    /** How it was opened: the others it opens (`openOther`) are opened alike. */
    private readonly openOptions: OpenOptions,
    /** The user's own driver programs (see UserSettings.drivers), for the repository check. */
    readonly userDrivers: ReadonlyArray<{ key: string; value: string; scope: string }> = [],
    /** The user's own `core.hooksPath` (see UserSettings.hooksPath), for the repository check. */
    readonly userHooksPath: string | undefined = undefined,
  ) {}

  /** Whether it was opened trusting a repository owned by another user (so are the others it opens). */
  get trustRepository(): boolean {
    return this.openOptions.trustRepository;
  }

  private get signal(): AbortSignal | undefined {
    return this.openOptions.signal;
  }

  static async open(runner: GitRunner, caches: GitCaches, paths: RepositoryPaths, options: OpenOptions): Promise<Repository> {
    const { trustRepository, signal } = options;
    const call = options.call ?? { listings: new CallListings(), userSettings: new CallUserSettings() };
    const stats = new StatOnce();
    checkRepository(paths, trustRepository, stats);
    await checkCommonDir(paths, caches.stateFiles, stats);
    checkStateFiles(paths, caches.stateFiles, stats);
    // With the user's config given, the repository's listing may read it too and hand the user's scan its part.
    const withUser =
      options.userConfig === undefined
        ? undefined
        : { env: options.userConfig, take: (gitDir: string, entries: ConfigEntry[]) => call.userSettings.take(gitDir, entries) };
    const scan = await scanRepositoryConfig(runner, caches, paths, trustRepository, signal, stats, call.listings, withUser);
    const repo = { gitDir: paths.gitDir, commonDir: paths.commonDir, workTree: paths.topLevel };
    const gitOptions = signal === undefined ? {} : { signal };
    const user = await userSettings(runner, caches.userConfig, repo, options.userConfig, gitOptions, stats, call.userSettings);
    if (paths.layout === "bare") checkBare(paths, scan.settings);
    const lfs = cleansLfs(scan, user) ? { gitLfsOnPath: runner.onSearchPath("git-lfs") } : null;
    return new Repository(
      paths,
      runner,
      caches,
      scan,
      user.carried,
      user.filters,
      user.ignoreRevsFiles,
      user.urlRewrites,
      lfs,
      { ...options, call },
      user.drivers,
      user.hooksPath,
    );
  }

  get filterDrivers(): readonly string[] {
    return this.scan.filterDrivers;
  }

  /**
   * Program-naming settings of the repository's config (and its checked-out submodules') that gitctx overrides,
   * hunk-header patterns it replaces, and then the user's own filter drivers, which it does not run either.
   */
  get neutralised(): readonly NeutralisedSetting[] {
    return this.userFilters.length === 0 ? this.scan.neutralised : [...this.scan.neutralised, ...this.userFilters];
  }

  /** The repository's remotes as its config sets them, and whether `insteadOf` rewrites their URLs. */
  get remotes(): Pick<ConfigScan, "remotes" | "rewritesUrls"> {
    return this.scan;
  }

  /** The settings of `key` the repository's own config gives (a submodule's aside), in the order git reads them. */
  private ownSettings(key: string): ScannedSetting[] {
    return this.scan.settings.filter((setting) => setting.key === key && (setting.scope === "local" || setting.scope === "worktree"));
  }

  /**
   * The files `git blame` would read revisions to skip from: every value of `blame.ignoreRevsFile` in the user's
   * config, then in the repository's own, with where each was named. gitctx's git reads none of them
   * (`--no-ignore-revs-file`): git_blame checks them and hands git a copy, taking them as git does (ignore-revs.ts).
   */
  get ignoreRevsFiles(): ReadonlyArray<{ file: string; by: "user" | "repository" }> {
    return [
      ...this.userIgnoreRevs.map((file) => ({ file, by: "user" as const })),
      ...this.ownSettings("blame.ignorerevsfile").map((setting) => ({ file: setting.value, by: "repository" as const })),
    ];
  }

  /**
   * Whether `git log` and `git show` print the names `.mailmap` gives (`log.mailmap`, true unless the repository's
   * config or the user's says otherwise): the formats ask for `%aN` or `%an` to match.
   */
  get logMailmap(): boolean {
    return this.effectiveBoolean("log.mailmap", true);
  }

  /** Whether `git log` of one path follows its renames (`log.follow`, false unless a config says so). */
  get logFollow(): boolean {
    return this.effectiveBoolean("log.follow", false);
  }

  /**
   * Lines of context a diff shows around each change when the caller gives none (`diff.context`: the
   * repository's, else the user's, else git's 3), as plain `git diff`, `git show` and `git log -p` print them.
   * A value git cannot read (`abc`, a negative number), which stops plain git, counts as unset.
   */
  get diffContext(): number {
    const lines = (value: string | undefined): number | undefined => {
      const parsed = value === undefined ? undefined : configInteger(value);
      return parsed !== undefined && parsed >= 0 ? parsed : undefined;
    };
    const own = this.ownSettings("diff.context").map((setting) => lines(setting.valueless === true ? undefined : setting.value));
    return (
      own.filter((value) => value !== undefined).at(-1) ?? lines(this.carried.find(([name]) => name === "diff.context")?.[1]) ?? DEFAULT_DIFF_CONTEXT
    );
  }

  /** A boolean setting as git reads it: the repository's last value, else the user's carried one, else `fallback`. */
  private effectiveBoolean(key: string, fallback: boolean): boolean {
    let value: boolean | undefined;
    for (const setting of this.ownSettings(key)) value = setting.valueless === true ? true : (configBoolean(setting.value) ?? value);
    if (value !== undefined) return value;
    const carried = this.carried.find(([name]) => name === key);
    return carried === undefined ? fallback : (configBoolean(carried[1]) ?? fallback);
  }

  /** The notes ref git log and git show print notes from (`core.notesRef`, the repository's, else the user's). */
  get notesRef(): string {
    const ref = this.ownSettings("core.notesref").at(-1)?.value ?? this.carried.find(([key]) => key === "core.notesref")?.[1];
    // As git expands it (notes.c `expand_notes_ref`).
    if (ref === undefined || ref === "") return DEFAULT_NOTES_REF;
    return ref.startsWith("refs/notes/") ? ref : ref.startsWith("notes/") ? `refs/${ref}` : `refs/notes/${ref}`;
  }

  /** Whether any of these refs (full names) exists, from the ref files (see PackedRefAnswers). */
  anyRefExists(refs: readonly string[]): Promise<boolean> {
    return this.caches.packedRefs.anyExists(this.paths.commonDir, refs);
  }

  /** A new empty directory in the runner's private area, for this call's own copies; the caller removes it. */
  scratchDirectory(): Promise<string> {
    return this.runner.scratchDirectory();
  }

  /** Every setting of the repository's config and its checked-out submodules' (for the repository check). */
  get settings(): readonly ScannedSetting[] {
    return this.scan.settings;
  }

  /**
   * Whether the repository's config reads the same in each of its worktrees (no include, no worktree config): a
   * new worktree's git then reads just what this scan read.
   */
  get sameConfigInEveryWorktree(): boolean {
    return this.scan.sameInEveryWorktree;
  }

  /** The checked-out submodules the config scan visited, nested ones too (for the repository check). */
  get submodules(): readonly ScannedSubmodule[] {
    return this.scan.submodules;
  }

  /**
   * Opens another work tree of this repository (a linked worktree, or a submodule checked out in one) with this
   * call's runner, caches, trust, user settings and signal: for a feature that must run git there too, such as the
   * checkout of a new worktree. Checked and scanned like any repository; the caller disposes of it.
   */
  openOther(paths: RepositoryPaths): Promise<Repository> {
    return Repository.open(this.runner, this.caches, paths, this.openOptions);
  }

  /**
   * The commits where a shallow clone's history stops (`shallow` in the common directory; its type and size were
   * checked before any git ran); empty for a complete history. Older commits are not in the repository: a log
   * ends there, blame credits those lines to the boundary, and `HEAD~5` may not exist.
   */
  shallowBoundary(): readonly string[] {
    this.shallow ??= readShallow(this.paths.commonDir);
    return this.shallow;
  }

  private shallow: readonly string[] | undefined;

  /** The work tree git runs in; `undefined` for a bare repository, which has none. */
  get workTree(): string | undefined {
    return this.paths.layout === "bare" ? undefined : this.paths.topLevel;
  }

  /**
   * Refuses, for a bare repository, what needs a work tree: `what` says what (`git_status`, `git_diff of unstaged
   * changes`), `instead` what the caller can do there instead.
   */
  requireWorkTree(what: string, instead: string): void {
    if (this.workTree !== undefined) return;
    throw new GitctxError("not_a_repository", `${this.paths.root} is a bare repository: it has no working tree, which ${what} needs.`, [
      `${instead} Otherwise `,
      { setting: "root", value: "a checked-out working tree, e.g. a clone of it" },
      ".",
    ]);
  }

  /** The remotes' names, in config order. */
  get remoteNames(): string[] {
    return this.remotes.remotes.map((remote) => remote.name);
  }

  /**
   * Runs a hardened git subcommand in this repository, cwd at the top level. A process stopped by the time
   * limit fails the call with `timeout`; one stopped by the caller's signal rejects with the signal's reason.
   */
  async git(subcommand: string, args: string[], options: GitCallOptions = {}): Promise<ProcessResult> {
    const signal = options.signal ?? this.signal;
    const location: GitLocation = {
      gitDir: this.paths.gitDir,
      workTree: this.workTree,
      cwd: this.paths.topLevel,
      filterDrivers: this.filterDrivers,
      hunkHeaderDrivers: this.scan.hunkHeaderDrivers,
      carried: this.carried,
      lfsFilter: this.lfs !== null,
    };
    if (subcommand === "diff" && diffReadsWorkTree(args)) {
      // `git diff` against the working tree writes a refreshed index back (taking index.lock, so a user's
      // `git commit` at that moment fails) even with GIT_OPTIONAL_LOCKS=0 on git 2.39. Give it a copy.
      this.privateIndex ??= this.caches.indexCopies.lease(this.paths.gitDir);
      const copy = await this.privateIndex;
      if (copy !== undefined) location.indexFile = copy.file;
    }
    return runChecked(this.runner, location, subcommand, args, signal === undefined ? options : { ...options, signal });
  }

  /** Gives back what this call used (the private index copy). Safe to call more than once. */
  async dispose(): Promise<void> {
    const lease = await this.privateIndex?.catch(() => undefined);
    this.privateIndex = undefined;
    await lease?.release();
  }
}
