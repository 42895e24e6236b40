/**
 * The one config scan: what a call needs to know of the repository's config before git runs. Which filter
 * drivers its git processes could apply, so the environment can neutralise each by name (git has no switch that
 * turns all filters off); which program-naming settings gitctx neutralises, so the tools can tell the user the
 * repository has them; every setting, for the repository check behind the shell hook; and the remotes.
 *
 * git prints names as bytes, and they are read as bytes: a filter driver whose name is not UTF-8 cannot be named
 * exactly in the environment, so the call is refused rather than run with the real driver armed.
 *
 * The listing is git's own answer for one context (this git directory, this branch, these remotes), and config
 * can be conditional: `includeIf.gitdir:`, `gitdir/i:`, `onbranch:`, `hasconfig:remote.*.url:` (all git 2.39
 * has). A git process in another context reads other settings: `git worktree add` checks the new worktree out in
 * a child whose git directory is `.git/worktrees/<name>` and whose branch is the new one, so an include whose
 * condition is false here applies there. Each Repository is scanned where its git runs, but a scan cannot know
 * every context a git process will reach (git's own children, tomorrow's code path), so every file an include
 * names is read too, whatever its condition, and the filter drivers it defines are neutralised like the rest:
 * fail-safe, and cheap (one listing per include target, kept with the scan). Those settings are reported as what
 * they are, in an include not in effect here; they are not `settings`, which says what git reads here.
 */
import { realpathSync, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import { GitctxError } from "../errors.js";
import { showValue } from "../text.js";
import { neutralisedSetting } from "../safety/config-keys.js";
import { gitRelative, openWorkTree, type RepositoryPaths } from "./discover.js";
import { firstLine, runChecked } from "./failures.js";
import { hunkHeaderHazard } from "./regex.js";
import { lfsExtensionProgram, standardLfsSetting } from "./lfs.js";
import { fileSignature, FileSnapshot, unchanged, watchFiles, type StatOnce } from "./file-signature.js";
import { parseConfigList, sectionOf, showBytes, subsectionOf, type ConfigEntry } from "./parse/config.js";
import { exactUtf8 } from "./parse/gitfile.js";
import { checkNamedFiles } from "./named-files.js";
import { GITLINK_MODE, parseIndex } from "./parse/index-file.js";
import { MAX_INDEX_BYTES, oversized } from "./file-limits.js";
import { readRegularFileSync, readWholeRegularFile } from "./read-file.js";
import type { GitCallOptions, GitLocation, GitRunner, UserConfigEnvironment } from "./run.js";
import type { ProcessResult } from "./spawn.js";
import { checkStateFiles, MAX_STATE_FILE_BYTES, type StateFileChecks } from "./state-files.js";

/** Deeper nesting of checked-out submodules is refused; no sane repository gets there. */
const MAX_SUBMODULE_DEPTH = 16;

/** A program-naming setting of the repository's config that gitctx overrides on every git process. */
export interface NeutralisedSetting {
  /** The key as git lists it: section and name lower-cased, a subsection as written (`filter.Evil.clean`). */
  key: string;
  /**
   * Where it is set: `local` (includes count as the file that includes them), `worktree`, or `submodule <path>`;
   * `include not in effect here` (`submodule <path>, include not in effect there`) for a file an include names
   * that git does not read in this context (its condition, or the condition of an include leading to it, is false
   * here), which a git process elsewhere (a new worktree, another branch) would read. `global` or `system` for a
   * filter driver of the user's own config (see user-config.ts), which gitctx does not run either.
   */
  scope: string;
}

/** The scope of a setting read from an include target git does not read here (see `NeutralisedSetting.scope`). */
export const INACTIVE_INCLUDE_SCOPE = "include not in effect here";

/** The settings as one list for a text: keys only, never values (a value is the config author's own text). */
export function describeNeutralised(settings: readonly NeutralisedSetting[]): string {
  return settings.map((setting) => (setting.scope === "local" ? setting.key : `${setting.key} (${setting.scope})`)).join(", ");
}

/** Whether a neutralised setting is a diff driver's hunk-header pattern rather than a program. */
function isHunkHeaderPattern(setting: NeutralisedSetting): boolean {
  return /^diff\..+\.x?funcname$/.test(setting.key);
}

/**
 * The warning a text gives when the repository's config has neutralised settings, saying only what is true: the
 * programs none of which ran, and the hunk-header patterns replaced by git's default rule. No final period (the
 * snapshot may cut the line); `undefined` when there are none.
 */
export function neutralisedWarning(settings: readonly NeutralisedSetting[]): string | undefined {
  const repository = settings.filter((setting) => !isUserSetting(setting));
  const users = settings.filter(isUserSetting);
  const userPart =
    users.length === 0
      ? undefined
      : `Note: gitctx runs no filter of your own git config, so files your git would clean with one may show changes: ${describeNeutralised(users)}`;
  const programs = repository.filter((setting) => !isHunkHeaderPattern(setting));
  const patterns = repository.filter(isHunkHeaderPattern);
  const patternPart = `hunk-header patterns git could take minutes to match; gitctx replaced them with git's default rule: ${describeNeutralised(patterns)}`;
  let warning: string | undefined;
  if (programs.length > 0) {
    warning = `Warning: this repository's config names programs git would run; gitctx neutralised them (none ran): ${describeNeutralised(programs)}`;
    if (patterns.length > 0) warning += `. It also sets ${patternPart}`;
  } else if (patterns.length > 0) {
    warning = `Warning: this repository's config sets ${patternPart}`;
  }
  return warning === undefined ? userPart : userPart === undefined ? warning : `${warning}. ${userPart}`;
}

/**
 * The same as one line of a tool's text, telling the model (and its user) which settings: keys only, never the
 * values (a value is the config author's text). `undefined` when there are none.
 */
export function neutralisedLine(settings: readonly NeutralisedSetting[]): string | undefined {
  const warning = neutralisedWarning(settings);
  return warning === undefined ? undefined : `${warning}.`;
}

/** A setting of the user's own config (see user-config.ts), not the repository's. */
function isUserSetting(setting: NeutralisedSetting): boolean {
  return setting.scope === "global" || setting.scope === "system";
}

/** One setting of the repository's config (includes followed) or of a checked-out submodule's. */
export interface ScannedSetting {
  /** As git lists it: section and name lower-cased, a subsection as written (bytes that are not UTF-8 as `\xNN`). */
  key: string;
  value: string;
  /** `local` (includes count as the file that includes them), `worktree`, or `submodule <path>`. */
  scope: string;
  /** Set when the key had no value at all (`[log] mailmap`), which git reads as true; `value` is then `""`. */
  valueless?: true;
}

/** Kept and shared between calls (see scanRepositoryConfig): read-only. */
export interface ConfigScan {
  /** Every setting the scan read, repository first, then each submodule in turn. */
  readonly settings: readonly ScannedSetting[];
  readonly filterDrivers: readonly string[];
  /**
   * Diff drivers whose hunk-header pattern (`diff.<driver>.funcname`/`xfuncname`) could make git's matching run
   * away (see regex.ts): every git process gets git's default rule for them instead (listed in `neutralised`).
   */
  readonly hunkHeaderDrivers: readonly string[];
  readonly neutralised: readonly NeutralisedSetting[];
  /** The repository's remotes (not its submodules'), in config order: every `remote.<name>.*` section. */
  readonly remotes: readonly ConfiguredRemote[];
  /** Whether `url.<base>.insteadOf`/`pushInsteadOf` rewrite remote URLs (as `git remote -v` shows them). */
  readonly rewritesUrls: boolean;
  /** Whether the repository's own listing reads the same in each of its worktrees (see sameInEveryWorktree). */
  readonly sameInEveryWorktree: boolean;
  /**
   * The checked-out submodules the scan visited (nested ones too), each with the path that labels its settings'
   * scope (`submodule <label>`): the repository check lists their hooks, which the git a read runs there fires.
   */
  readonly submodules: readonly ScannedSubmodule[];
}

/** A checked-out submodule the scan visited: its repository, and its label (`lib`, `lib/nested`). */
export interface ScannedSubmodule extends Repo {
  label: string;
}

/** A remote as its config sets them: URLs as written, before any `insteadOf` rewriting. */
export interface ConfiguredRemote {
  name: string;
  urls: string[];
  pushUrls: string[];
}

/**
 * The diff driver whose hunk-header pattern this setting is, when git's matching of it could run away (a
 * back-reference, or counted repetitions that compile to gigabytes): `git diff` and `git show` would try it on
 * lines before every hunk of each file `.gitattributes` gives that driver. Refused when the driver cannot be named
 * exactly to override it.
 */
function hunkHeaderDriver(entry: ConfigEntry, value: string, workTree: string): string | undefined {
  if (sectionOf(entry.keyBytes).toLowerCase() !== "diff") return undefined;
  // From the bytes: a driver name that is not UTF-8 leaves the entry without a `key`, and must not slip through.
  const variable = entry.keyBytes
    .subarray(entry.keyBytes.lastIndexOf(0x2e) + 1)
    .toString("latin1")
    .toLowerCase();
  if (variable !== "funcname" && variable !== "xfuncname") return undefined;
  if (hunkHeaderHazard(value, variable === "xfuncname" ? "extended" : "basic") === undefined) return undefined;
  const name = subsectionOf(entry.keyBytes);
  if (name === undefined) return undefined; // `diff.xfuncname`: no driver, git never uses it.
  const exact = exactUtf8(name);
  if (exact === undefined || exact.length === 0) {
    throw new GitctxError(
      "unsafe_repository",
      `The config of the repository at ${workTree} gives a hunk-header pattern git could take minutes to match to a diff driver whose name (${showBytes(name)}) is not valid UTF-8; ` +
        "gitctx cannot name the driver exactly to override it, so it reads nothing there.",
      "Inspect the repository's config (git config --list --show-origin) and remove that diff section.",
    );
  }
  return exact;
}

/** One repository's own config, as one `git config --list` gave it (submodules are scanned on their own). */
interface Listing {
  entries: ConfigEntry[];
  /** The settings of every file an include names that git did not read here (conditions aside), in walk order. */
  inactive: ConfigEntry[];
  /** 32 for a SHA-256 repository, else 20: what the index's object ids are made of. */
  hashBytes: number;
}

/**
 * A session's scans, each kept while the files it depends on are unchanged: per repository (the top one and each
 * checked-out submodule) its config listing, kept while the config files git read, every file an include names
 * (present or not, so a file created later is seen) and, when an `includeIf.onbranch` asks for it, HEAD stay the
 * same; and per index the gitlinks it records. Checking them is a handful of stat calls.
 */
export class ConfigScanCache {
  readonly listings = new Map<string, KeptListing>();
  readonly gitlinks = new Map<string, { signature: string; paths: string[] }>();

  invalidate(): void {
    this.listings.clear();
    this.gitlinks.clear();
  }
}

/** A listing kept for later calls, with the files it was made from. */
interface KeptListing {
  listing: Listing;
  files: FileSnapshot;
  /** The files the settings came from, whose owner the listing checked. */
  origins: readonly string[];
  commonDir: string;
  shared: boolean;
}

/** Whether a kept listing still describes its files; a config rewritten with the same bytes has its owner checked again, as a new listing would. */
function stillDescribes(kept: KeptListing, trustRepository: boolean, stats?: StatOnce): boolean {
  return kept.files.stillSame(stats, (path) => {
    if (!trustRepository && kept.origins.includes(path)) checkOwner(path);
  });
}

/** Repositories a session keeps scans for; a session that somehow sees more starts over rather than grow. */
const CACHE_LIMIT = 256;

/**
 * Every filter driver the git processes of a call could apply: those of the repository's config (includes
 * followed) and those of every checked-out submodule's own config, recursively. `git status` and `git diff`
 * look inside a checked-out submodule by running `git status` there, and that child reads the submodule's
 * config: a clean filter defined only there would run. The neutralising environment reaches the child, so
 * naming the submodules' drivers too closes that. If the scan cannot be done, the call fails: it never goes on
 * with filters left armed.
 */
export async function scanRepositoryConfig(
  runner: GitRunner,
  caches: ScanCaches,
  paths: RepositoryPaths,
  trustRepository: boolean,
  signal: AbortSignal | undefined,
  /** The opening's stats (see StatOnce), for the tests of whether kept listings are still fresh. */
  stats?: StatOnce,
  call?: CallListings,
  /** The user's config, for a listing that can read both at once (see listConfig), and who takes the user's part. */
  user?: WithUserConfig,
): Promise<ConfigScan> {
  const cache = caches.configScans;
  const options: GitCallOptions = signal === undefined ? {} : { signal };
  // The digest of each repository visited: the top one first, then its submodules depth first.
  const visited: ConfigScan[] = [];
  const visitedSubmodules: ScannedSubmodule[] = [];
  const seen = new Set<string>([paths.gitDir]);
  const visit = async (repo: Repo, label: string | undefined, depth: number): Promise<void> => {
    // The user's own listing is the top repository's only.
    const listing = await listConfig(runner, cache, repo, trustRepository, options, stats, call, label === undefined ? user : undefined);
    // Every call, cached listing or not: the file a setting names can be swapped without the config changing.
    checkNamedFiles(listing.entries, repo.workTree, label === undefined ? `the repository at ${repo.workTree}` : `the submodule ${label}`);
    visited.push(digestOf(listing, repo.workTree, label));
    const submodules: Array<{ repo: Repo; label: string }> = [];
    for (const path of await gitlinkPaths(runner, cache, repo, listing.hashBytes, options, stats)) {
      const workTree = join(repo.workTree, path);
      const found = await openSubmodule(workTree);
      if (found === undefined || seen.has(found.gitDir)) continue;
      seen.add(found.gitDir);
      // git status runs git in the submodule, which reads its state files and config: they must pass the same checks.
      if (!trustRepository) checkOwner(found.gitDir);
      checkStateFiles({ gitDir: found.gitDir, commonDir: found.commonDir, topLevel: workTree }, caches.stateFiles);
      submodules.push({
        repo: { gitDir: found.gitDir, commonDir: found.commonDir, workTree },
        label: label === undefined ? path : `${label}/${path}`,
      });
    }
    if (submodules.length > 0 && depth >= MAX_SUBMODULE_DEPTH) {
      // git itself would keep going; a scan that stops early would leave the deeper drivers armed.
      throw new GitctxError(
        "unsafe_repository",
        `Submodules are nested more than ${MAX_SUBMODULE_DEPTH} deep under ${repo.workTree}; gitctx will not read such a repository.`,
        "Point root at a less deeply nested submodule, or flatten the submodules.",
      );
    }
    // One after the other, so the order of `neutralised` does not depend on which git answers first.
    for (const sub of submodules) {
      visitedSubmodules.push({ ...sub.repo, label: sub.label });
      await visit(sub.repo, sub.label, depth + 1);
    }
  };
  await visit({ gitDir: paths.gitDir, commonDir: paths.commonDir, workTree: paths.topLevel }, undefined, 0);
  // Without submodules the scan is the top repository's digest itself: the same object on every call while the
  // config is unchanged, so what is derived from it can be kept with it (the LFS check in repository.ts).
  const [top, ...submodules] = visited;
  if (submodules.length === 0) return top!;
  return {
    settings: visited.flatMap((digest) => digest.settings),
    filterDrivers: [...new Set(visited.flatMap((digest) => digest.filterDrivers))],
    hunkHeaderDrivers: [...new Set(visited.flatMap((digest) => digest.hunkHeaderDrivers))],
    neutralised: visited.flatMap((digest) => digest.neutralised),
    // Remotes and URL rewriting are the top repository's (digestOf reads them only there).
    remotes: top!.remotes,
    rewritesUrls: top!.rewritesUrls,
    sameInEveryWorktree: top!.sameInEveryWorktree,
    submodules: visitedSubmodules,
  };
}

/**
 * Per listing, per label (`""` for the top repository): the scan of that listing alone, as that repository's
 * (remotes and URL rewriting from the top repository only). Kept per listing object: a kept listing is the same
 * object on every call.
 */
const digests = new WeakMap<Listing, Map<string, ConfigScan>>();

/**
 * The settings, drivers, neutralised settings and remotes of one listing, as the repository `label` names
 * (`undefined` for the top one). Decoding every entry and matching it against the rules cost a call 40 µs on a
 * ten-line config, and more on a real one; a kept listing keeps its digest. A refusal (a driver that cannot be
 * named) is thrown again on every call, since nothing is kept for it.
 */
function digestOf(listing: Listing, workTree: string, label: string | undefined): ConfigScan {
  let byLabel = digests.get(listing);
  const known = byLabel?.get(label ?? "");
  if (known !== undefined) return known;
  const settings: ScannedSetting[] = [];
  const neutralised: NeutralisedSetting[] = [];
  let rewritesUrls = false;
  const drivers = new Set<string>();
  const hunkHeaderDrivers = new Set<string>();
  const remotes = new Map<string, ConfiguredRemote>();
  for (const entry of listing.entries) {
    const key = entry.key ?? showBytes(entry.keyBytes);
    const value = entry.value.toString("utf8");
    const scope = label === undefined ? entry.scope : `submodule ${label}`;
    settings.push(entry.valueless ? { key, value, scope, valueless: true } : { key, value, scope });
    if (sectionOf(entry.keyBytes) === "filter") drivers.add(filterDriverName(entry, workTree));
    if (label === undefined) {
      addRemote(key, value, remotes);
      if (/^url\..+\.(?:insteadof|pushinsteadof)$/i.test(key)) rewritesUrls = true;
    }
    const hunkHeader = hunkHeaderDriver(entry, value, workTree);
    if (hunkHeader !== undefined) hunkHeaderDrivers.add(hunkHeader);
    // The standard LFS set-up is read as git-lfs would read it (lfs.ts), by gitctx's own filter: nothing to warn
    // of. An LFS extension is a program git-lfs would run on the user's reads: gitctx runs neither.
    const namesProgram = (neutralisedSetting(key, value) && !standardLfsSetting(key, value)) || lfsExtensionProgram(key, value);
    if ((hunkHeader !== undefined || namesProgram) && !neutralised.some((known) => known.key === key && known.scope === scope)) {
      neutralised.push({ key, scope });
    }
  }
  // Settings git does not read here but would where an include's condition holds: their drivers are switched
  // off all the same, and reported for what they are. A key this repository sets in effect is reported once, as
  // in effect (its digest holds only this repository's settings).
  const inactiveScope = label === undefined ? INACTIVE_INCLUDE_SCOPE : `submodule ${label}, include not in effect there`;
  for (const entry of listing.inactive) {
    const key = entry.key ?? showBytes(entry.keyBytes);
    if (sectionOf(entry.keyBytes) === "filter") drivers.add(filterDriverName(entry, workTree));
    if (neutralisedSetting(key, entry.value.toString("utf8")) && !neutralised.some((known) => known.key === key)) {
      neutralised.push({ key, scope: inactiveScope });
    }
  }
  const digest: ConfigScan = {
    settings,
    filterDrivers: [...drivers],
    hunkHeaderDrivers: [...hunkHeaderDrivers],
    neutralised,
    remotes: [...remotes.values()],
    rewritesUrls,
    sameInEveryWorktree: label === undefined && sameInEveryWorktree(listing.entries),
    // A digest is one repository's own; the merged scan lists the submodules visited.
    submodules: [],
  };
  if (byLabel === undefined) {
    byLabel = new Map();
    digests.set(listing, byLabel);
  }
  byLabel.set(label ?? "", digest);
  return digest;
}

export interface Repo {
  gitDir: string;
  commonDir: string;
  workTree: string;
}

/** What the scan keeps and checks between calls (the session's `GitCaches`). */
export interface ScanCaches {
  configScans: ConfigScanCache;
  stateFiles: StateFileChecks;
}

/**
 * A checked-out submodule's repository, its `.git` read as git reads it; `undefined` when it has none. A `.git`
 * that exists but leads to no git directory cannot be resolved exactly: refused, never skipped (git itself stops
 * there, and a scan that skipped it could leave its filters armed).
 */
async function openSubmodule(workTree: string): Promise<Awaited<ReturnType<typeof openWorkTree>>> {
  try {
    return await openWorkTree(workTree);
  } catch (error) {
    if (!(error instanceof GitctxError) || error.code !== "not_a_repository") throw error;
    throw new GitctxError(
      "unsafe_repository",
      `The submodule at ${workTree} has a .git that leads to no git directory (${error.message}); gitctx cannot scan its config, so it reads nothing there.`,
      "Repair or remove the submodule's checkout (git submodule deinit, then git submodule update).",
    );
  }
}

/** The name of the driver a `filter.<name>.<variable>` key configures, exactly; refused when it cannot be named. */
function filterDriverName(entry: ConfigEntry, workTree: string): string {
  const name = subsectionOf(entry.keyBytes);
  const exact = name === undefined ? undefined : exactUtf8(name);
  if (exact === undefined || name === undefined || name.length === 0) {
    throw new GitctxError(
      "unsafe_repository",
      `The config of the repository at ${workTree} defines a filter driver whose name (${showBytes(name ?? entry.keyBytes)}) is not valid UTF-8; ` +
        "gitctx cannot name it exactly to switch it off, so it reads nothing there.",
      "Inspect the repository's config (git config --list --show-origin) and remove that filter section.",
    );
  }
  return exact;
}

/** How every config listing is asked for: `--show-scope` tells the runner's own settings (scope `command`) apart. */
export const CONFIG_LIST_ARGS: readonly string[] = ["--list", "--show-scope", "--show-origin", "-z"];

/** The user's config, and where a listing read with it hands the whole listing (the user's settings are made from it). */
export interface WithUserConfig {
  env: UserConfigEnvironment;
  take(gitDir: string, entries: ConfigEntry[]): void;
}

/** One repository's config listing: kept while its inputs are unchanged, else read from git. */
async function listConfig(
  runner: GitRunner,
  cache: ConfigScanCache,
  repo: Repo,
  trustRepository: boolean,
  options: GitCallOptions,
  stats?: StatOnce,
  call?: CallListings,
  user?: WithUserConfig,
): Promise<Listing> {
  const key = `${repo.gitDir}\0${repo.workTree}`;
  const cached = cache.listings.get(key);
  if (cached !== undefined && stillDescribes(cached, trustRepository, stats)) return cached.listing;
  const madeThisCall = call?.get(key, stats);
  if (madeThisCall !== undefined) return madeThisCall;
  // A new worktree of a repository whose config reads the same everywhere: its listing is one already made.
  const sibling =
    [...cache.listings.values()].find((kept) => kept.shared && kept.commonDir === repo.commonDir && stillDescribes(kept, trustRepository, stats))
      ?.listing ?? call?.sharedIn(repo.commonDir, stats);
  // That git reads this common directory's config for this git directory was checked as the repository was
  // opened (checkCommonDir); a submodule's comes from its own discovery.
  if (sibling !== undefined) {
    await checkWorkTreeSetting(sibling.entries, repo.gitDir, repo.workTree);
    keepListing(cache, key, repo, sibling, call);
    return sibling;
  }
  const location: GitLocation = { gitDir: repo.gitDir, workTree: repo.workTree, cwd: repo.workTree, filterDrivers: [] };
  const mentioning = [join(repo.commonDir, "config"), join(repo.gitDir, "config.worktree")].filter(mentionsInclude);
  const included = await followIncludes(runner, location, mentioning, options);
  // Includes are followed, so a tracked file turned into config is covered.
  // A repository whose config includes nothing reads the same with the user's config as without (no file of
  // its can lead elsewhere, and scopes tell the user's settings apart): one listing then serves both scans.
  const together = user !== undefined && mentioning.length === 0;
  let listed = await runChecked(runner, location, "config", [...CONFIG_LIST_ARGS], together ? { ...options, userConfig: user.env } : options);
  const shared = together && listed.exitCode === 0;
  // A user config git cannot read is the user's git's to complain about: the repository's is then read alone.
  if (together && !shared) listed = await runChecked(runner, location, "config", [...CONFIG_LIST_ARGS], options);
  if (listed.exitCode !== 0) {
    throw new GitctxError("git_failed", `git could not read the config of the repository at ${repo.workTree}: ${firstLine(listed.stderr)}`);
  }
  const all = parseConfigList(listed.bytes).filter((entry) => entry.scope !== "command");
  if (shared) user.take(repo.gitDir, all);
  const entries = shared ? all.filter((entry) => entry.scope === "local" || entry.scope === "worktree") : all;
  await checkWorkTreeSetting(entries, repo.gitDir, repo.workTree);
  if (!trustRepository) for (const origin of originFiles(repo, entries)) checkOwner(origin);
  const objectFormat = entries
    .find((entry) => entry.key === "extensions.objectformat")
    ?.value.toString("latin1")
    .toLowerCase();
  const inactive = await notReadHere(runner, repo, location, entries, included, options);
  const listing: Listing = { entries, inactive, hashBytes: objectFormat === "sha256" ? 32 : 20 };
  keepListing(cache, key, repo, listing, call);
  return listing;
}

/**
 * The listings one call has made or taken, for the other repositories it opens (a new worktree, the main one, a
 * worktree opened twice): a listing too recent to keep for later calls (see keepListing) is as good for the rest
 * of the call that read it, while its files keep the signatures they had (a write of the call's own, a sparse
 * checkout's, is seen).
 */
export class CallListings {
  private readonly made = new Map<string, { listing: Listing; commonDir: string; shared: boolean; signatures: ReadonlyMap<string, string> }>();

  get(key: string, stats?: StatOnce): Listing | undefined {
    const made = this.made.get(key);
    return made !== undefined && unchanged(made.signatures, stats) ? made.listing : undefined;
  }

  add(key: string, commonDir: string, listing: Listing, signatures: ReadonlyMap<string, string>): void {
    this.made.set(key, { listing, commonDir, shared: sameInEveryWorktree(listing.entries), signatures });
  }

  /** A listing of a worktree of the repository at `commonDir` that reads the same in all of them. */
  sharedIn(commonDir: string, stats?: StatOnce): Listing | undefined {
    for (const made of this.made.values()) if (made.shared && made.commonDir === commonDir && unchanged(made.signatures, stats)) return made.listing;
    return undefined;
  }
}

/** Keeps `listing` as `repo`'s while the files it depends on are unchanged: for later calls once settled, else for this one. */
function keepListing(cache: ConfigScanCache, key: string, repo: Repo, listing: Listing, call: CallListings | undefined): void {
  // The files behind the inactive settings (and the includes in them) count too: a change there changes the scan.
  const inputs = configInputs(repo, [...listing.entries, ...listing.inactive]);
  // Taken after the scan read them: a file changed in between is recent, so not settled, so not kept.
  const taken = inputs === undefined ? undefined : FileSnapshot.take(inputs);
  if (taken !== undefined) call?.add(key, repo.commonDir, listing, taken.snapshot.signatures);
  if (taken?.settled === true) {
    if (cache.listings.size >= CACHE_LIMIT) cache.listings.clear();
    cache.listings.set(key, {
      listing,
      files: taken.snapshot,
      origins: originFiles(repo, listing.entries),
      commonDir: repo.commonDir,
      shared: sameInEveryWorktree(listing.entries),
    });
  } else {
    cache.listings.delete(key);
  }
}

/**
 * Whether a config listing of these entries reads the same in every worktree of the repository: no include
 * (whose condition can depend on the git directory, the branch or the remotes, and whose relative path on the
 * including file), no `extensions.worktreeConfig` (which adds each worktree's own config.worktree), and every
 * setting from a file named by its absolute path (gitctx's git is given absolute directories, so git names them
 * so). A new worktree's listing is then its main worktree's, with no git process to run.
 */
export function sameInEveryWorktree(entries: readonly ConfigEntry[]): boolean {
  return entries.every(
    (entry) =>
      entry.key !== undefined &&
      !/^include(if\..*)?\.path$/.test(entry.key) &&
      entry.key !== "extensions.worktreeconfig" &&
      entry.origin.startsWith("file:/"),
  );
}

/** git follows includes at most this deep (config.c's MAX_INCLUDE_DEPTH). */
const MAX_INCLUDE_DEPTH = 10;

/**
 * Every file an include of the repository's config names, conditions aside (a condition can be true where another
 * git process runs, or become true here), followed through the includes in those files as deep as git goes: each
 * target present, in walk order, with its own settings where the walk listed them (`--no-includes`, one file at a
 * time). Each must be a regular file or missing before git is asked to follow it: git opens a FIFO and blocks
 * until the timeout, and reads a device to its end. A file is listed only when it mentions the word "include"
 * (a cheap test on its bytes): one without cannot lead further.
 */
async function followIncludes(
  runner: GitRunner,
  location: GitLocation,
  /** The repository's config files that mention "include" (see mentionsInclude). */
  mentioning: readonly string[],
  options: GitCallOptions,
): Promise<Map<string, ConfigEntry[] | undefined>> {
  let pending = [...mentioning];
  const seen = new Set<string>(pending.map(walkKey));
  const targets = new Map<string, ConfigEntry[] | undefined>();
  for (let depth = 0; pending.length > 0; depth++) {
    if (depth > MAX_INCLUDE_DEPTH) break; // git stops there with an error of its own.
    const next: string[] = [];
    for (const file of pending) {
      const listed = await listConfigFile(runner, location, file, options);
      // A file git cannot parse: where git reads it, git stops with an error before it runs anything; where it
      // reads it here, the full listing reports that error.
      if (listed.exitCode !== 0) continue;
      const entries = parseConfigList(listed.bytes);
      if (depth > 0) targets.set(file, entries);
      for (const entry of entries) {
        if (entry.key === undefined || !/^include(if\..*)?\.path$/.test(entry.key)) continue;
        const target = exactUtf8(entry.value);
        if (target === undefined) {
          // git opens the bytes as they are; Node cannot name them exactly, to check them or to list their includes.
          const named = entry.value[0] === 0x2f ? entry.value : Buffer.concat([Buffer.from(`${dirname(file)}/`), entry.value]);
          if (!existsAsFile(named)) continue;
          throw new GitctxError(
            "unsafe_repository",
            `The repository's config includes a file at a path that is not valid UTF-8 (${showBytes(entry.value)}); gitctx cannot check it, so it reads nothing there.`,
            "Inspect the repository's config (git config --list --show-origin) and remove that include.",
          );
        }
        if (target === "~" || target.startsWith("~/")) continue; // gitctx's HOME is empty: git finds nothing there.
        if (target.startsWith("~")) {
          // `~user/`: git reads that user's home directory, whatever HOME is.
          throw new GitctxError(
            "unsafe_repository",
            `The repository's config includes ${showValue(target)}, a file in another user's home directory, which gitctx cannot check.`,
            "Inspect the repository's config (git config --list --show-origin) and remove that include.",
          );
        }
        const path = includedFile(file, target);
        const info = statSync(path, { throwIfNoEntry: false });
        if (info === undefined || info.isDirectory()) continue;
        if (!info.isFile()) {
          throw new GitctxError(
            "unsafe_repository",
            `The repository's config includes ${path}, which is not a regular file (a FIFO or device): git would block or read without end.`,
            "Inspect the repository's config (git config --list --show-origin) and remove that include.",
          );
        }
        if (info.size > MAX_STATE_FILE_BYTES) {
          throw new GitctxError(
            "unsafe_repository",
            `The repository's config includes ${path}, which is ${Math.round(info.size / 1048576)} MiB: git would read it whole.`,
            "Remove that include.",
          );
        }
        const key = walkKey(path);
        if (seen.has(key)) continue;
        seen.add(key);
        targets.set(path, undefined);
        if (mentionsInclude(path)) next.push(path);
      }
    }
    pending = next;
  }
  return targets;
}

/** One config file's own settings, its includes not followed: `git config --file <file> --no-includes --list`. */
function listConfigFile(runner: GitRunner, location: GitLocation, file: string, options: GitCallOptions): Promise<ProcessResult> {
  return runChecked(runner, location, "config", ["--file", file, "--no-includes", ...CONFIG_LIST_ARGS], options);
}

/**
 * The settings of the include targets git did not read for this listing: files that are not among its origins,
 * told apart by file identity (device and inode), not by path, since git names a file by the path it followed and
 * the walk by the one it resolved. A target git read costs nothing more; one it did not is listed now, unless the
 * walk listed it already.
 */
async function notReadHere(
  runner: GitRunner,
  repo: Repo,
  location: GitLocation,
  entries: readonly ConfigEntry[],
  targets: ReadonlyMap<string, ConfigEntry[] | undefined>,
  options: GitCallOptions,
): Promise<ConfigEntry[]> {
  if (targets.size === 0) return [];
  const identity = (file: string): string => {
    const info = statSync(file, { throwIfNoEntry: false });
    return info === undefined ? `path:${file}` : `${info.dev}:${info.ino}`;
  };
  const read = new Set(originFiles(repo, entries).map(identity));
  const inactive: ConfigEntry[] = [];
  for (const [file, listed] of targets) {
    if (read.has(identity(file))) continue;
    if (listed !== undefined) {
      inactive.push(...listed);
      continue;
    }
    const own = await listConfigFile(runner, location, file, options);
    // A file git cannot parse stops git with an error wherever it reads it, before anything runs.
    if (own.exitCode === 0) inactive.push(...parseConfigList(own.bytes));
  }
  return inactive;
}

/** Whether a path names something other than a directory (git would open it), through symlinks. */
function existsAsFile(path: Buffer): boolean {
  try {
    const info = statSync(path, { throwIfNoEntry: false });
    return info !== undefined && !info.isDirectory();
  } catch {
    return false;
  }
}

/**
 * The file git opens for `include.path = <target>` in the config file `file`, spelt as git spells it: a relative
 * target joined to the including file's path as text (config.c handle_path_include), never normalised. The system
 * then resolves each `..` after whatever a symbolic link before it leads to: from `.git/config`, `../lnk/../x.inc`
 * is `x.inc` beside where `lnk` leads, not at the top level as path.resolve would have it. Resolved by text, the
 * walk would list a file git never reads and miss the one it does (in an include whose condition holds only in a
 * new worktree, that file's drivers would run there), and a kept listing would watch the wrong file. Kept as
 * spelt, every stat and read goes where git's would, through the links as they are then.
 */
function includedFile(file: string, target: string): string {
  return joinAsGit(dirname(file), target);
}

/**
 * A path value as git names it from `base`: absolute as it is, relative joined to `base` as text, never
 * normalised, so that a `..` after a symbolic link goes up from where the link leads, as it does for git (see
 * includedFile). Every path git reads from a config value (includes, hooks, the files settings name) is judged so.
 */
export function joinAsGit(base: string, path: string): string {
  return isAbsolute(path) ? path : `${base}/${path}`;
}

/**
 * git's expansion of a path value: `~/` is the home directory (gitctx's own HOME is an empty private one), joined
 * as text like the rest (see joinAsGit).
 */
export function expandHome(value: string, home: string | undefined): string {
  return value.startsWith("~/") && home !== undefined ? `${home.replace(/\/+$/, "")}/${value.slice(2)}` : value;
}

/**
 * One name for a file however it is spelt, for the walk to visit it once: its directory made real, its last
 * component kept, since git resolves a file's own relative includes from the directory of the name it followed
 * (a link's, not its target's). As spelt when the directory is missing (there is nothing to read).
 */
function walkKey(path: string): string {
  try {
    return join(realpathSync.native(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

/** Whether a config file could include another (a cheap test on its bytes, before asking git). */
function mentionsInclude(file: string): boolean {
  // git follows a symlinked include; one larger than a state file is refused before it matters here.
  const bytes = readRegularFileSync(file, MAX_STATE_FILE_BYTES, { followSymlinks: true });
  return bytes !== undefined && /include/i.test(bytes.toString("latin1"));
}

/** The config files a listing came from, as absolute paths (includes count as the file that holds them). */
function originFiles(repo: Repo, entries: readonly ConfigEntry[]): string[] {
  const files = new Set<string>();
  for (const entry of entries) if (entry.origin.startsWith("file:")) files.add(originPath(repo, entry.origin));
  return [...files];
}

/**
 * The file a listed setting came from (`file:<path>`), spelt as git followed it: never normalised, which names
 * another file when a `..` follows a symbolic link (see includedFile).
 */
function originPath(repo: Repo, origin: string): string {
  return joinAsGit(repo.workTree, origin.slice("file:".length));
}

/**
 * Unless the repository is trusted, every config file git reads for it (includes too) and every submodule's git
 * directory must belong to the user running gitctx, as git's own ownership check requires of the repository.
 */
function checkOwner(path: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const info = statSync(path, { throwIfNoEntry: false });
  if (info === undefined || info.uid === uid) return;
  throw new GitctxError(
    "unsafe_repository",
    `${path}, which git reads for this repository, belongs to another user; it could make git run that user's programs.`,
    "Only if you trust this repository, create the toolbox with trustRepository: true (CLI: --trust-repository).",
  );
}

/**
 * `core.worktree` (set in a config file anyone could have written, e.g. in an unpacked archive) can point the
 * work tree at any directory, such as `/` or the user's home: git would then diff and list files far outside the
 * workspace against an index the config's author chose. gitctx passes `--work-tree` explicitly, which overrides
 * it, but a submodule's own git follows it; and a repository that says its work tree is elsewhere is not the one
 * the caller pointed at. Trust does not lift this: ownership and confinement are different promises.
 */
async function checkWorkTreeSetting(entries: readonly ConfigEntry[], gitDir: string, workTree: string): Promise<void> {
  for (const entry of entries) {
    if (entry.key !== "core.worktree") continue;
    const value = exactUtf8(entry.value);
    const named = value === undefined ? undefined : gitRelative(gitDir, value);
    const real = named === undefined ? undefined : await realpath(named).catch(() => named);
    if (real === workTree) continue;
    throw new GitctxError(
      "unsafe_repository",
      `The repository's config points its work tree at ${real ?? showBytes(entry.value)}, which does not hold its git directory ${gitDir} (core.worktree); gitctx will not read files there.`,
      "Inspect the repository's config: if core.worktree is not intended, remove it (git config --unset core.worktree).",
    );
  }
}

/**
 * The files a repository's config listing depends on, or `undefined` when one cannot be named (an include
 * relative to a blob, or at a path that is not UTF-8). `~/` in an include is the home directory git was given:
 * none for the repository's own listing (an empty one), the user's for the user's listing.
 */
export function configInputs(repo: Repo, entries: readonly ConfigEntry[], home?: string): string[] | undefined {
  // config and config.worktree may be created later.
  const files = [join(repo.commonDir, "config"), join(repo.gitDir, "config.worktree")];
  // HEAD decides `includeIf.onbranch`; a branch switch elsewhere changes nothing.
  if (entries.some((entry) => entry.key?.startsWith("includeif.onbranch:") === true)) files.push(join(repo.gitDir, "HEAD"));
  for (const entry of entries) {
    if (!entry.origin.startsWith("file:")) return undefined;
    const origin = originPath(repo, entry.origin);
    files.push(origin);
    if (entry.key === undefined || !/^include(if\..*)?\.path$/.test(entry.key)) continue;
    const written = exactUtf8(entry.value);
    // git reads `~/` as the home directory (joined as text, like the rest), and a relative include relative to the
    // including file: the file watched is the one git reads (see includedFile), else a change to it goes unseen.
    const target = written === undefined ? undefined : expandHome(written, home);
    if (target === undefined || target.startsWith("~")) return undefined;
    files.push(includedFile(origin, target));
  }
  return files;
}

/**
 * Paths of the index's gitlinks (submodules), read from the index file itself and kept while it is unchanged (git
 * replaces the index by renaming a new file over it, so the inode changes on every write). A split index, or one
 * this reader does not know, is listed by git instead.
 */
async function gitlinkPaths(
  runner: GitRunner,
  cache: ConfigScanCache,
  repo: Repo,
  hashBytes: number,
  options: GitCallOptions,
  stats?: StatOnce,
): Promise<string[]> {
  const file = join(repo.gitDir, "index");
  const cached = cache.gitlinks.get(repo.gitDir);
  if (cached !== undefined && cached.signature === fileSignature(file, stats)) return cached.paths;
  const { signatures, settled } = watchFiles([file]);
  const signature = signatures.get(file)!;
  if (signature === "missing") return []; // No index yet: nothing is tracked, so there are no submodules.
  const bytes = await readIndexFile(file);
  const parsed = bytes === undefined ? undefined : parseIndex(bytes, hashBytes, GITLINK_MODE);
  const raw = parsed?.ok === true && !parsed.split ? parsed.entries.map((entry) => entry.path) : await listGitlinks(runner, repo, options);
  const paths = [...new Set(raw.map((path) => exactPath(path, repo.workTree)))];
  if (settled) {
    if (cache.gitlinks.size >= CACHE_LIMIT) cache.gitlinks.clear();
    cache.gitlinks.set(repo.gitDir, { signature, paths });
  }
  return paths;
}

/** The whole index, or `undefined` when it is not a regular file (then git is asked). */
async function readIndexFile(file: string): Promise<Buffer | undefined> {
  // Bounded: a sparse index of gigabytes read whole would abort Node itself (the state-file check refuses it first).
  const read = await readWholeRegularFile(file, MAX_INDEX_BYTES);
  if (read?.kind === "too_large") throw oversized(file, read.size);
  return read?.bytes;
}

/** `git ls-files --stage -z`, for an index the reader above does not take: `<mode> <object> <stage>\t<path>`. */
async function listGitlinks(runner: GitRunner, repo: Repo, options: GitCallOptions): Promise<Buffer[]> {
  const location: GitLocation = { gitDir: repo.gitDir, workTree: repo.workTree, cwd: repo.workTree, filterDrivers: [] };
  const listed = await runChecked(runner, location, "ls-files", ["--stage", "-z"], options);
  if (listed.exitCode !== 0) {
    throw new GitctxError("git_failed", `git could not read the index of the repository at ${repo.workTree}: ${firstLine(listed.stderr)}`);
  }
  const paths: Buffer[] = [];
  let at = 0;
  while (at < listed.bytes.length) {
    const nul = listed.bytes.indexOf(0, at);
    const record = listed.bytes.subarray(at, nul === -1 ? listed.bytes.length : nul);
    at = nul === -1 ? listed.bytes.length : nul + 1;
    const tab = record.indexOf(0x09);
    if (record.toString("latin1", 0, 7) === "160000 " && tab !== -1) paths.push(record.subarray(tab + 1));
  }
  return paths;
}

/** A submodule path, exactly; refused when it is not UTF-8 (its directory could not be named to git). */
function exactPath(path: Buffer, workTree: string): string {
  const exact = exactUtf8(path);
  if (exact !== undefined) return exact;
  throw new GitctxError(
    "unsafe_repository",
    `The repository at ${workTree} has a submodule at a path that is not valid UTF-8 (${showBytes(path)}); gitctx cannot name it exactly to scan its config, so it reads nothing there.`,
    "Rename the submodule's directory to a UTF-8 name (git mv), or point root elsewhere.",
  );
}

/** `remote.<name>.<key>`: the name may itself contain dots, the key cannot. */
function addRemote(key: string, value: string, remotes: Map<string, ConfiguredRemote>): void {
  if (!key.startsWith("remote.")) return;
  const lastDot = key.lastIndexOf(".");
  if (lastDot <= "remote.".length) return;
  const name = key.slice("remote.".length, lastDot);
  let remote = remotes.get(name);
  if (remote === undefined) {
    remote = { name, urls: [], pushUrls: [] };
    remotes.set(name, remote);
  }
  const variable = key.slice(lastDot + 1);
  if (variable === "url") remote.urls.push(value);
  else if (variable === "pushurl") remote.pushUrls.push(value);
}
