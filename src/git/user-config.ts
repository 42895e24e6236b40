/**
 * The user's own git settings that change answers. gitctx runs git without the user's global and system config
 * (they could name programs, and a repository must not be able to lean on them), but some of those settings
 * decide what git reports: with `core.autocrlf=true` (Git for Windows sets it in its system config) a fresh
 * clone is clean for the user and hundreds of files "modified" without it; files in the user's global ignore file
 * are not untracked for the user. Those settings, and only those, are carried over.
 *
 * They are read the way the repository's config is: one hardened `git config --list` (includes followed,
 * `includeIf` conditions judged for this repository), with the user's HOME and config locations; every other
 * git process still sees none of it. A key is carried only when the repository's own config does not set it
 * (the repository's setting wins over the user's, as in plain git; carried settings reach git as command-line
 * config, which would otherwise win). Path values are expanded as git expands them (`~/`), and git's default
 * global ignore and attributes files are named when the user sets none.
 */
import { join } from "node:path";
import { neutralisedSetting, settingDisabled } from "../safety/config-keys.js";
import { CONFIG_LIST_ARGS, configInputs, expandHome, sameInEveryWorktree, type NeutralisedSetting, type Repo } from "./config-scan.js";
import { runChecked } from "./failures.js";
import { FileSnapshot, unchanged, type StatOnce } from "./file-signature.js";
import { parseConfigList, type ConfigEntry } from "./parse/config.js";
import { exactUtf8 } from "./parse/gitfile.js";
import { USER_CONFIG_VARIABLES, type GitCallOptions, type GitLocation, type GitRunner, type UserConfigEnvironment } from "./run.js";

/** A rule that rewrites remote URLs (multi-valued: each value is a rule of its own). */
const URL_REWRITE = /^url\..+\.(?:insteadof|pushinsteadof)$/;

/** A filter driver's command: what changes a status or a diff when it does not run. */
const USER_FILTER = /^filter\..+\.(?:clean|smudge|process)$/;

/** The user's driver programs an attribute of the repository selects (`filter=`, `diff=`, `merge=`). */
const USER_DRIVER = /^(?:filter\..+\.(?:clean|smudge|process)|diff\..+\.(?:textconv|command)|merge\..+\.driver)$/;

/** The user's settings gitctx carries, each with why it changes an answer. None names a program. */
export const CARRIED_SETTINGS: ReadonlyArray<{ key: string; why: string; path?: true }> = [
  { key: "core.autocrlf", why: "line endings: whether a CRLF file in the work tree matches its LF blob" },
  { key: "core.eol", why: "line endings of text files in the work tree" },
  { key: "core.checkroundtripencoding", why: "which working-tree encodings are checked" },
  { key: "core.excludesfile", why: "the user's global ignore file: what is untracked", path: true },
  { key: "core.attributesfile", why: "the user's global attributes: text, eol and binary for paths", path: true },
  { key: "core.ignorecase", why: "case handling: which names are the same file" },
  { key: "core.precomposeunicode", why: "Unicode normalisation of file names (macOS)" },
  { key: "core.symlinks", why: "whether symbolic links are links or plain files (Windows)" },
  { key: "core.filemode", why: "whether the executable bit is a change (Windows, WSL, some mounts)" },
  { key: "core.trustctime", why: "whether a changed ctime makes git re-read a file" },
  { key: "core.checkstat", why: "which stat fields make git re-read a file" },
  { key: "core.bigfilethreshold", why: "which files a diff shows as binary" },
  { key: "core.longpaths", why: "whether long paths are read (Windows)" },
  { key: "mailmap.file", why: "the user's own mailmap: the names git log, git show and git blame give people", path: true },
  { key: "mailmap.blob", why: "the user's own mailmap in a commit (HEAD:.mailmap): the names people are given" },
  { key: "diff.algorithm", why: "which lines a diff pairs up: its hunks and line counts" },
  { key: "diff.indentheuristic", why: "where a diff places an inserted block: its hunks" },
  { key: "diff.interhunkcontext", why: "how close two changes must be to share a hunk" },
  { key: "diff.context", why: "how many unchanged lines surround each change in a diff: its hunks" },
  { key: "diff.renamelimit", why: "how many files a diff compares for renames: beyond it, renames show as deleted and added" },
  { key: "status.renamelimit", why: "how many files git status compares for renames" },
  { key: "diff.ignoresubmodules", why: "which changes of submodules git status and git diff leave out" },
  { key: "log.follow", why: "whether the history of one file goes on through its renames" },
  { key: "log.showroot", why: "whether the first commit shows its files as added" },
  { key: "blame.showroot", why: "whether lines of the first commit are blamed on it rather than marked as a boundary" },
  { key: "core.abbrev", why: "the length of short commit ids" },
  { key: "log.mailmap", why: "whether git log and git show give people the names .mailmap maps them to" },
  { key: "core.notesref", why: "which notes git log and git show print under each commit" },
];

const CARRIED = new Map(CARRIED_SETTINGS.map((setting) => [setting.key, setting]));

/**
 * The user's own diff drivers' hunk-header patterns and binary switch (`diff.<driver>.xfuncname`, `funcname`,
 * `binary`): the function line of each hunk, and whether a file's lines are counted. Never `textconv` or `command`,
 * which name programs. A pattern of the user's own is the user's git's too: it is not checked for hazards as the
 * repository's are (see regex.ts).
 */
const CARRIED_DRIVER_SETTING = /^diff\..+\.(?:xfuncname|funcname|binary)$/;

/** What the user's config says for one repository's git processes. */
export interface UserSettings {
  /** The settings carried into every git process. */
  carried: Array<readonly [string, string]>;
  /**
   * The user's own `filter.lfs.*` settings (system, then global), never carried: they only decide whether the
   * user's git cleans LFS files with git-lfs, which gitctx then does with its own filter (see lfs.ts).
   */
  lfsFilter: Array<{ key: string; value: string }>;
  /**
   * The user's own filter drivers (but LFS's, which gitctx cleans with its own filter): never run, since gitctx's
   * git reads no global or system config, so a file the repository's attributes give one of them reads as its raw
   * bytes where the user's git would clean it. Reported with `neutralised`, scope `global` or `system`.
   */
  filters: NeutralisedSetting[];
  /**
   * The files the user's `blame.ignoreRevsFile` names (every value, system then global), `~/` expanded; a relative
   * one is the work tree's. Never carried: git_blame checks and copies them first (see ignore-revs.ts).
   */
  ignoreRevsFiles: string[];
  /**
   * The user's `url.<base>.insteadOf` and `pushInsteadOf` rules, for the one process that lists remotes (`git
   * remote -v`), where they change the URLs shown; no other process of gitctx's uses a URL.
   */
  urlRewrites: Array<readonly [string, string]>;
  /**
   * The user's own driver programs (filter, diff and merge drivers, LFS's included) that the repository's config
   * does not override and that are not switched off, the last of each key (global after system), for the
   * repository check: a driver runs only for files an attribute gives it, and the repository's attributes are
   * the repository's choice, so the user's git runs the user's program where the repository selects it.
   */
  drivers: Array<{ key: string; value: string; scope: string }>;
  /**
   * The user's own `core.hooksPath` (the last, global after system), `~/` expanded; for the repository check. A
   * relative one is the work tree's: the user's git then runs hooks the repository ships, wherever it says so.
   */
  hooksPath?: string;
}

/** The settings for one repository, and the files they were read from (kept while those are unchanged). */
export class UserConfigCache {
  readonly carried = new Map<string, { files: FileSnapshot; settings: UserSettings; commonDir: string; entries?: ConfigEntry[] }>();

  invalidate(): void {
    this.carried.clear();
  }
}

/**
 * The user's settings to carry into every git process of `repo`. `user` says where git finds the user's config
 * (the caller's environment by default); `undefined` reads none.
 */
export async function userSettings(
  runner: GitRunner,
  cache: UserConfigCache,
  repo: Repo,
  user: UserConfigEnvironment | undefined,
  options: GitCallOptions,
  /** The opening's stats (see StatOnce), for the test of whether the kept settings are still fresh. */
  stats?: StatOnce,
  call?: CallUserSettings,
): Promise<UserSettings> {
  if (user === undefined) return { carried: [], lfsFilter: [], filters: [], ignoreRevsFiles: [], urlRewrites: [], drivers: [] };
  const cached = cache.carried.get(repo.gitDir);
  if (cached?.files.stillSame(stats) === true) return cached.settings;
  const madeThisCall = call?.get(repo.gitDir, stats);
  if (madeThisCall !== undefined) return madeThisCall;
  // A new worktree of a repository whose config, the user's included, reads the same everywhere: the same settings.
  const sibling =
    [...cache.carried.values()].find((kept) => kept.entries !== undefined && kept.commonDir === repo.commonDir && kept.files.stillSame(stats)) ??
    call?.sharedIn(repo.commonDir, stats);
  // That git reads this common directory's config for this git directory was checked as it was opened (checkCommonDir).
  if (sibling?.entries !== undefined) {
    keepSettings(cache, repo, user, sibling.entries, sibling.settings, call);
    return sibling.settings;
  }
  const entries = call?.taken(repo.gitDir) ?? (await listWithUserConfig(runner, repo, user, options));
  const repositorySets = new Set(entries.filter((entry) => entry.scope === "local" || entry.scope === "worktree").map((entry) => entry.key));
  const home = user.HOME;
  const values = new Map<string, string>();
  const lfsFilter: UserSettings["lfsFilter"] = [];
  const filters = new Map<string, NeutralisedSetting>();
  const ignoreRevsFiles: string[] = [];
  const urlRewrites: Array<readonly [string, string]> = [];
  const drivers = new Map<string, { key: string; value: string; scope: string }>();
  let hooksPath: string | undefined;
  for (const entry of entries) {
    if ((entry.scope !== "system" && entry.scope !== "global") || entry.key === undefined) continue;
    if (USER_DRIVER.test(entry.key) && !repositorySets.has(entry.key)) {
      const value = entry.value.toString("utf8");
      // Later (global after system) wins, as in git: an empty value switches the program off again.
      if (settingDisabled(entry.key, entry.valueless ? null : value, "repository")) drivers.delete(entry.key);
      else drivers.set(entry.key, { key: entry.key, value, scope: entry.scope });
    }
    if (entry.key.startsWith("filter.lfs.")) lfsFilter.push({ key: entry.key, value: entry.value.toString("utf8") });
    else if (USER_FILTER.test(entry.key) && !repositorySets.has(entry.key)) {
      // Later (global after system) wins, as in git: an empty value switches the command off again.
      if (neutralisedSetting(entry.key, entry.value.toString("utf8"))) filters.set(entry.key, { key: entry.key, scope: entry.scope });
      else filters.delete(entry.key);
    }
    if (URL_REWRITE.test(entry.key)) {
      const value = exactUtf8(entry.value);
      if (value !== undefined) urlRewrites.push([entry.key, value]);
    }
    if (entry.key === "core.hookspath") {
      const path = exactUtf8(entry.value);
      if (path !== undefined) hooksPath = expandHome(path, home);
    }
    if (entry.key === "blame.ignorerevsfile") {
      const file = exactUtf8(entry.value);
      if (file !== undefined) ignoreRevsFiles.push(file === "" ? "" : expandHome(file, home));
    }
    const setting: { path?: true } | undefined = CARRIED.get(entry.key) ?? (CARRIED_DRIVER_SETTING.test(entry.key) ? {} : undefined);
    // A key without a value (`[core] autocrlf`) is true to git; carried as "" it would read as false.
    const value = entry.valueless ? "true" : exactUtf8(entry.value);
    if (setting === undefined || value === undefined || repositorySets.has(entry.key)) continue;
    // Later (global after system) wins, as in git.
    values.set(entry.key, setting.path === true ? expandHome(value, home) : value);
  }
  // git's own defaults when the user names no file: $XDG_CONFIG_HOME/git/ignore (or ~/.config/git/ignore).
  const xdg = xdgConfigHome(user);
  const defaults =
    xdg === undefined
      ? []
      : ([
          ["core.excludesfile", join(xdg, "git", "ignore")],
          ["core.attributesfile", join(xdg, "git", "attributes")],
        ] as const);
  for (const [key, file] of defaults) if (!values.has(key) && !repositorySets.has(key)) values.set(key, file);
  const settings: UserSettings = {
    carried: [...values],
    lfsFilter,
    filters: [...filters.values()],
    ignoreRevsFiles,
    urlRewrites,
    drivers: [...drivers.values()],
    ...(hooksPath !== undefined ? { hooksPath } : {}),
  };
  keepSettings(cache, repo, user, entries, settings, call);
  return settings;
}

/** Every setting git reads for `repo` with the user's config (the runner's own command-line settings aside). */
async function listWithUserConfig(runner: GitRunner, repo: Repo, user: UserConfigEnvironment, options: GitCallOptions): Promise<ConfigEntry[]> {
  const location: GitLocation = { gitDir: repo.gitDir, workTree: repo.workTree, cwd: repo.workTree, filterDrivers: [] };
  const listed = await runChecked(runner, location, "config", [...CONFIG_LIST_ARGS], { ...options, userConfig: user });
  // A user config git cannot read is git's to complain about for the user; gitctx carries nothing then.
  return listed.exitCode === 0 ? parseConfigList(listed.bytes).filter((entry) => entry.scope !== "command") : [];
}

/**
 * The settings one call has read, for the other worktrees it opens (see CallListings in config-scan.ts); and the
 * listing the repository's scan read with the user's config, when it could (see listConfig), taken once.
 */
export class CallUserSettings {
  private readonly made = new Map<
    string,
    { settings: UserSettings; commonDir: string; entries?: ConfigEntry[]; signatures: ReadonlyMap<string, string> }
  >();
  private readonly listed = new Map<string, ConfigEntry[]>();

  /** Hands over the listing of `gitDir` read with the user's config. */
  take(gitDir: string, entries: ConfigEntry[]): void {
    this.listed.set(gitDir, entries);
  }

  /** The listing handed over for `gitDir`, once. */
  taken(gitDir: string): ConfigEntry[] | undefined {
    const entries = this.listed.get(gitDir);
    this.listed.delete(gitDir);
    return entries;
  }

  get(gitDir: string, stats?: StatOnce): UserSettings | undefined {
    const made = this.made.get(gitDir);
    return made !== undefined && unchanged(made.signatures, stats) ? made.settings : undefined;
  }

  add(gitDir: string, commonDir: string, entries: ConfigEntry[], settings: UserSettings, signatures: ReadonlyMap<string, string>): void {
    this.made.set(gitDir, { settings, commonDir, signatures, ...(sameInEveryWorktree(entries) ? { entries } : {}) });
  }

  /** Settings read for a worktree of the repository at `commonDir` whose config reads the same in all of them. */
  sharedIn(commonDir: string, stats?: StatOnce): { settings: UserSettings; entries?: ConfigEntry[] } | undefined {
    for (const made of this.made.values()) {
      if (made.entries !== undefined && made.commonDir === commonDir && unchanged(made.signatures, stats)) return made;
    }
    return undefined;
  }
}

/** Keeps `settings`, read from `entries`, as `repo`'s while the files they depend on are unchanged: for later calls once settled, else for this one. */
function keepSettings(
  cache: UserConfigCache,
  repo: Repo,
  user: UserConfigEnvironment,
  entries: ConfigEntry[],
  settings: UserSettings,
  call: CallUserSettings | undefined,
): void {
  const home = user.HOME;
  const xdg = xdgConfigHome(user);
  // The files the answer depends on: every config file listed (includes too), and those that may appear later.
  const candidates = [
    ...(user.GIT_CONFIG_GLOBAL !== undefined ? [user.GIT_CONFIG_GLOBAL] : []),
    ...(user.GIT_CONFIG_SYSTEM !== undefined ? [user.GIT_CONFIG_SYSTEM] : ["/etc/gitconfig"]),
    ...(home === undefined ? [] : [join(home, ".gitconfig")]),
    ...(xdg === undefined ? [] : [join(xdg, "git", "config")]),
  ];
  const inputs = configInputs(repo, entries, home);
  const taken = inputs === undefined ? undefined : FileSnapshot.take([...inputs, ...candidates]);
  if (taken !== undefined) call?.add(repo.gitDir, repo.commonDir, entries, settings, taken.snapshot.signatures);
  if (taken?.settled === true) {
    cache.carried.set(repo.gitDir, {
      files: taken.snapshot,
      settings,
      commonDir: repo.commonDir,
      // Kept only where another worktree of the repository may take these settings as they are.
      ...(sameInEveryWorktree(entries) ? { entries } : {}),
    });
  } else {
    cache.carried.delete(repo.gitDir);
  }
}

/** git's `$XDG_CONFIG_HOME` (else `~/.config`) for the user. */
function xdgConfigHome(user: UserConfigEnvironment): string | undefined {
  if (user.XDG_CONFIG_HOME !== undefined && user.XDG_CONFIG_HOME !== "") return user.XDG_CONFIG_HOME;
  return user.HOME === undefined ? undefined : join(user.HOME, ".config");
}

/** Where the caller's git finds the user's config: the process environment's HOME and git's config variables. */
export function userConfigFromEnvironment(env: NodeJS.ProcessEnv = process.env): UserConfigEnvironment {
  const picked: UserConfigEnvironment = {};
  for (const name of USER_CONFIG_VARIABLES) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}
