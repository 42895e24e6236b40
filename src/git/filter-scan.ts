/**
 * What a call needs to know of the repository's config before git runs: which filter drivers its git processes
 * could apply, so the environment can neutralise each by name (git has no switch that turns all filters off),
 * and which program-naming settings gitctx neutralises, so the tools can tell the user the repository has them.
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { GitctxError } from "../errors.js";
import { openWorkTree, type RepositoryPaths } from "./discover.js";
import { neutralisedSetting } from "../safety/git-tables.js";
import { firstLine, runChecked } from "./failures.js";
import { fileSignature, unchanged, watchFiles } from "./file-signature.js";
import type { GitCallOptions, GitLocation, GitRunner } from "./run.js";

/** Deeper nesting of checked-out submodules is refused; no sane repository gets there. */
const MAX_SUBMODULE_DEPTH = 16;

/** A program-naming setting of the repository's config that gitctx overrides on every git process. */
export interface NeutralisedSetting {
  /** The key as git lists it: section and name lower-cased, a subsection as written (`filter.Evil.clean`). */
  key: string;
  /** Where it is set: `local` (includes count as the file that includes them), `worktree`, or `submodule <path>`. */
  scope: string;
}

/** The settings as one list for a text: keys only, never values (a value is the config author's own text). */
export function describeNeutralised(settings: readonly NeutralisedSetting[]): string {
  return settings.map((setting) => (setting.scope === "local" ? setting.key : `${setting.key} (${setting.scope})`)).join(", ");
}

/** One setting of the repository's config (includes followed) or of a checked-out submodule's. */
export interface ScannedSetting {
  /** As git lists it: section and name lower-cased, a subsection as written. */
  key: string;
  value: string;
  /** `local` (includes count as the file that includes them), `worktree`, or `submodule <path>`. */
  scope: string;
}

export interface ConfigScan {
  /** Every setting the scan read, repository first, then each submodule in turn. */
  settings: ScannedSetting[];
  filterDrivers: string[];
  neutralised: NeutralisedSetting[];
  /** The repository's remotes (not its submodules'), in config order: every `remote.<name>.*` section. */
  remotes: ConfiguredRemote[];
  /** Whether `url.<base>.insteadOf`/`pushInsteadOf` rewrite remote URLs (as `git remote -v` shows them). */
  rewritesUrls: boolean;
}

/** A remote as its config sets it: URLs as written, before any `insteadOf` rewriting. */
export interface ConfiguredRemote {
  name: string;
  urls: string[];
  pushUrls: string[];
}

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
  cache: ConfigScanCache,
  paths: RepositoryPaths,
  signal: AbortSignal | undefined,
): Promise<ConfigScan> {
  const key = `${paths.gitDir}\0${paths.topLevel}`;
  const cached = cache.scans.get(key);
  if (cached !== undefined && (await unchanged(cached.signatures))) return cached.scan;
  const { scan, watched } = await scanNow(runner, cache, paths, signal);
  // Watched after the scan read them: a file changed in between is recent, so not settled, so not kept.
  const { signatures, settled } = watched === undefined ? { signatures: undefined, settled: false } : await watchFiles(watched);
  if (settled && signatures !== undefined) {
    if (cache.scans.size >= CACHE_LIMIT) cache.scans.clear();
    cache.scans.set(key, { signatures, scan });
  } else {
    cache.scans.delete(key);
  }
  return scan;
}

/**
 * A session's config scans, kept while every file they depend on is unchanged: the config files git read, every
 * file an include names (present or not, so a file created later is seen), HEAD (for `includeIf.onbranch`), the
 * index (for the gitlinks) and each submodule's `.git`. The scan is one git process per repository; checking
 * the files is a handful of stat calls.
 */
export class ConfigScanCache {
  readonly scans = new Map<string, { signatures: Map<string, string>; scan: ConfigScan }>();
  /** Gitlink paths per git directory, with the signature of the index they were read from. */
  readonly gitlinks = new Map<string, { signature: string; paths: string[] }>();

  invalidate(): void {
    this.scans.clear();
    this.gitlinks.clear();
  }
}

/** Repositories a session keeps scans for; a session that somehow sees more starts over rather than grow. */
const CACHE_LIMIT = 64;

/** The scan, and the files it depends on; `watched` is `undefined` when some input cannot be watched as a file. */
async function scanNow(
  runner: GitRunner,
  cache: ConfigScanCache,
  paths: RepositoryPaths,
  signal: AbortSignal | undefined,
): Promise<{ scan: ConfigScan; watched: string[] | undefined }> {
  let watched: string[] | undefined = [];
  const names = new Set<string>();
  const remotes = new Map<string, ConfiguredRemote>();
  let rewritesUrls = false;
  const neutralised: NeutralisedSetting[] = [];
  const settings: ScannedSetting[] = [];
  const seen = new Set<string>([paths.gitDir]);
  const visit = async (gitDir: string, workTree: string, label: string | undefined, depth: number): Promise<void> => {
    const location: GitLocation = { gitDir, workTree, cwd: workTree, filterDrivers: [] };
    const options: GitCallOptions = signal === undefined ? {} : { signal };
    // Includes are followed, so a tracked file turned into config is covered. `--show-scope` tells the runner's
    // own `-c` settings (scope `command`) from the repository's.
    const listed = await runChecked(runner, location, "config", ["--list", "--show-scope", "--show-origin", "-z"], options);
    if (listed.exitCode !== 0) {
      throw new GitctxError("git_failed", `git could not read the config of the repository at ${workTree}: ${firstLine(listed.stderr)}`);
    }
    const entries = parseScopedConfig(listed.stdout);
    await checkWorkTreeSetting(entries, gitDir, workTree);
    const inputs = configInputs(gitDir, workTree, entries);
    watched = watched === undefined || inputs === undefined ? undefined : [...watched, ...inputs];
    for (const name of filterDriverNames(entries.map((entry) => entry.key).join("\0"))) names.add(name);
    if (label === undefined) {
      for (const entry of entries) {
        addRemote(entry, remotes);
        if (/^url\..+\.(?:insteadof|pushinsteadof)$/i.test(entry.key)) rewritesUrls = true;
      }
    }
    for (const entry of entries) {
      const scope = label === undefined ? entry.scope : `submodule ${label}`;
      settings.push({ key: entry.key, value: entry.value, scope });
      if (!neutralisedSetting(entry.key, entry.value)) continue;
      if (!neutralised.some((known) => known.key === entry.key && known.scope === scope)) neutralised.push({ key: entry.key, scope });
    }
    const submodules: Array<{ gitDir: string; workTree: string; label: string }> = [];
    for (const path of await gitlinkPaths(runner, cache, location, options)) {
      const subTree = join(workTree, path);
      watched?.push(join(subTree, ".git"));
      const subGitDir = (await openWorkTree(subTree))?.gitDir;
      if (subGitDir === undefined || seen.has(subGitDir)) continue;
      seen.add(subGitDir);
      submodules.push({ gitDir: subGitDir, workTree: subTree, label: label === undefined ? path : `${label}/${path}` });
    }
    if (submodules.length > 0 && depth >= MAX_SUBMODULE_DEPTH) {
      // git itself would keep going; a scan that stops early would leave the deeper drivers armed.
      throw new GitctxError(
        "unsafe_repository",
        `Submodules are nested more than ${MAX_SUBMODULE_DEPTH} deep under ${workTree}; gitctx will not read such a repository.`,
        "Point root at a less deeply nested submodule, or flatten the submodules.",
      );
    }
    // One after the other, so the order of `neutralised` does not depend on which git answers first.
    for (const sub of submodules) await visit(sub.gitDir, sub.workTree, sub.label, depth + 1);
  };
  await visit(paths.gitDir, paths.topLevel, undefined, 0);
  return { scan: { settings, filterDrivers: [...names], neutralised, remotes: [...remotes.values()], rewritesUrls }, watched };
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
    const named = resolve(gitDir, entry.value);
    const real = await realpath(named).catch(() => named);
    if (real === workTree) continue;
    throw new GitctxError(
      "unsafe_repository",
      `The repository's config points its work tree at ${real}, which does not hold its git directory ${gitDir} (core.worktree); gitctx will not read files there.`,
      "Inspect the repository's config: if core.worktree is not intended, remove it (git config --unset core.worktree).",
    );
  }
}

interface ConfigEntry {
  scope: string;
  /** Where git read it: `file:<path>` (relative paths are relative to the work tree), `blob:...`, ... */
  origin: string;
  key: string;
  value: string;
}

/**
 * The files a repository's config listing depends on, or `undefined` when one cannot be named (an include
 * relative to a blob, or below someone's home directory).
 */
function configInputs(gitDir: string, workTree: string, entries: readonly ConfigEntry[]): string[] | undefined {
  // config and config.worktree may be created later; HEAD decides `includeIf.onbranch`; the index holds the gitlinks.
  const files = ["config", "config.worktree", "HEAD", "index"].map((name) => join(gitDir, name));
  for (const entry of entries) {
    if (!entry.origin.startsWith("file:")) return undefined;
    const origin = resolve(workTree, entry.origin.slice("file:".length));
    files.push(origin);
    if (!/^include(if\..*)?\.path$/i.test(entry.key)) continue;
    // git reads `~` as the home directory, and a relative include relative to the including file.
    if (entry.value.startsWith("~")) return undefined;
    files.push(isAbsolute(entry.value) ? entry.value : resolve(dirname(origin), entry.value));
  }
  return files;
}

/**
 * `git config --list --show-scope --show-origin -z`: `scope NUL origin NUL key LF value NUL` (no LF for a key
 * without value), minus `command`.
 */
function parseScopedConfig(output: string): ConfigEntry[] {
  const fields = output.split("\0");
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const scope = fields[i]!;
    const origin = fields[i + 1]!;
    const record = fields[i + 2]!;
    if (scope === "command") continue;
    const lf = record.indexOf("\n");
    entries.push({ scope, origin, key: lf === -1 ? record : record.slice(0, lf), value: lf === -1 ? "true" : record.slice(lf + 1) });
  }
  return entries;
}

/**
 * Paths of the index's gitlinks (submodules), cached while the index file is unchanged (git replaces the index
 * by renaming a new file over it, so the inode changes on every write).
 */
async function gitlinkPaths(runner: GitRunner, cache: ConfigScanCache, location: GitLocation, options: GitCallOptions): Promise<string[]> {
  const signature = await fileSignature(join(location.gitDir, "index"));
  if (signature === "missing") return []; // No index yet: nothing is tracked, so there are no submodules.
  const cached = cache.gitlinks.get(location.gitDir);
  if (cached !== undefined && cached.signature === signature) return cached.paths;
  const listed = await runChecked(runner, location, "ls-files", ["--stage", "-z"], options);
  if (listed.exitCode !== 0) {
    throw new GitctxError("git_failed", `git could not read the index of the repository at ${location.workTree}: ${firstLine(listed.stderr)}`);
  }
  const paths = new Set<string>();
  for (const record of listed.stdout.split("\0")) {
    // `<mode> <object> <stage>\t<path>`; mode 160000 is a gitlink.
    if (!record.startsWith("160000 ")) continue;
    const tab = record.indexOf("\t");
    if (tab !== -1) paths.add(record.slice(tab + 1));
  }
  if (cache.gitlinks.size >= CACHE_LIMIT) cache.gitlinks.clear();
  cache.gitlinks.set(location.gitDir, { signature, paths: [...paths] });
  return [...paths];
}

/** `remote.<name>.<key>`: the name may itself contain dots, the key cannot. */
function addRemote(entry: ConfigEntry, remotes: Map<string, ConfiguredRemote>): void {
  if (!entry.key.toLowerCase().startsWith("remote.")) return;
  const lastDot = entry.key.lastIndexOf(".");
  if (lastDot <= "remote.".length) return;
  const name = entry.key.slice("remote.".length, lastDot);
  let remote = remotes.get(name);
  if (remote === undefined) {
    remote = { name, urls: [], pushUrls: [] };
    remotes.set(name, remote);
  }
  const variable = entry.key.slice(lastDot + 1).toLowerCase();
  if (variable === "url") remote.urls.push(entry.value);
  else if (variable === "pushurl") remote.pushUrls.push(entry.value);
}

/** Driver names from NUL-separated config keys; the name is everything between `filter.` and the last dot. */
export function filterDriverNames(configKeys: string): string[] {
  const names = new Set<string>();
  for (const key of configKeys.split("\0")) {
    const trimmed = key.replace(/\n$/, "");
    if (!trimmed.toLowerCase().startsWith("filter.")) continue;
    const lastDot = trimmed.lastIndexOf(".");
    if (lastDot <= "filter".length) continue;
    names.add(trimmed.slice("filter.".length, lastDot));
  }
  return [...names];
}
