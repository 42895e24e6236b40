/**
 * Which filter drivers a call's git processes could apply, so the environment can neutralise each by name
 * (git has no switch that turns all filters off).
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { GitctxError } from "../errors.js";
import { dotGitTarget, type RepositoryPaths } from "./discover.js";
import { firstLine, runChecked } from "./failures.js";
import type { GitCallOptions, GitLocation, GitRunner } from "./run.js";

/** Deeper nesting of checked-out submodules is refused; no sane repository gets there. */
const MAX_SUBMODULE_DEPTH = 16;

/**
 * Every filter driver the git processes of a call could apply: those of the repository's config (includes
 * followed) and those of every checked-out submodule's own config, recursively. `git status` and `git diff`
 * look inside a checked-out submodule by running `git status` there, and that child reads the submodule's
 * config: a clean filter defined only there would run. The neutralising environment reaches the child, so
 * naming the submodules' drivers too closes that. If the scan cannot be done, the call fails: it never goes on
 * with filters left armed.
 */
export async function scanFilterDrivers(runner: GitRunner, paths: RepositoryPaths, signal: AbortSignal | undefined): Promise<string[]> {
  const names = new Set<string>();
  const seen = new Set<string>([paths.gitDir]);
  const visit = async (gitDir: string, workTree: string, depth: number): Promise<void> => {
    const location: GitLocation = { gitDir, workTree, cwd: workTree, filterDrivers: [] };
    const options: GitCallOptions = signal === undefined ? {} : { signal };
    // `--name-only` lists keys only; includes are followed, so a tracked file turned into config is covered.
    const listed = await runChecked(runner, location, "config", ["--list", "--name-only", "-z"], options);
    if (listed.exitCode !== 0) {
      throw new GitctxError("git_failed", `git could not read the config of the repository at ${workTree}: ${firstLine(listed.stderr)}`);
    }
    for (const name of filterDriverNames(listed.stdout)) names.add(name);
    const submodules: Array<{ gitDir: string; workTree: string }> = [];
    for (const path of await gitlinkPaths(runner, location, options)) {
      const subTree = join(workTree, path);
      const subGitDir = await dotGitTarget(subTree);
      if (subGitDir === undefined || seen.has(subGitDir)) continue;
      seen.add(subGitDir);
      submodules.push({ gitDir: subGitDir, workTree: subTree });
    }
    if (submodules.length > 0 && depth >= MAX_SUBMODULE_DEPTH) {
      // git itself would keep going; a scan that stops early would leave the deeper drivers armed.
      throw new GitctxError(
        "unsafe_repository",
        `Submodules are nested more than ${MAX_SUBMODULE_DEPTH} deep under ${workTree}; gitctx will not read such a repository.`,
        "Point root at a less deeply nested submodule, or flatten the submodules.",
      );
    }
    await Promise.all(submodules.map((sub) => visit(sub.gitDir, sub.workTree, depth + 1)));
  };
  await visit(paths.gitDir, paths.topLevel, 0);
  return [...names];
}

const gitlinkCache = new Map<string, { signature: string; paths: string[] }>();
const GITLINK_CACHE_LIMIT = 64;

/**
 * Paths of the index's gitlinks (submodules), cached while the index file is unchanged (git replaces the index
 * by renaming a new file over it, so the inode changes on every write).
 */
async function gitlinkPaths(runner: GitRunner, location: GitLocation, options: GitCallOptions): Promise<string[]> {
  let signature: string;
  try {
    const info = await stat(join(location.gitDir, "index"), { bigint: true });
    signature = `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch {
    return []; // No index yet: nothing is tracked, so there are no submodules.
  }
  const cached = gitlinkCache.get(location.gitDir);
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
  if (gitlinkCache.size >= GITLINK_CACHE_LIMIT) gitlinkCache.clear();
  gitlinkCache.set(location.gitDir, { signature, paths: [...paths] });
  return [...paths];
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
