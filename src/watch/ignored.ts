/**
 * What the watcher leaves out of the work tree, decided before any watch is placed: `.git` (file or directory,
 * the git directory has watches of its own), every `node_modules`, the worktrees directory, and every directory
 * the repository ignores (asked of git, hardened). The list comes from an injected function so that a caller
 * (or a test) can supply it; the default runs git through the project's runner.
 */
import { isAbsolute, join, resolve, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { firstLine, runChecked } from "../git/failures.js";
import type { GitLocation, GitRunner } from "../git/run.js";
import type { WatchLocation } from "./types.js";

/** Returns directories to leave out: absolute, or relative to the top level (a trailing `/` is fine). */
export type IgnoredDirectories = (location: Required<WatchLocation>) => Promise<string[]>;

/**
 * The directories the repository ignores, from `git ls-files --others --ignored --exclude-standard --directory`:
 * git stops at the first ignored directory (a 50,000-file `node_modules` costs it one entry). That listing also
 * names untracked directories that merely contain nothing but ignored files, and then lists what is inside them
 * too (git had to look inside to find out); a directory an ignore rule matches is listed alone, since git never
 * looks inside it. So a listed directory with nothing listed below it is ignored; one with entries below it is
 * not (a file created there later is still seen). One git process, no pathspecs.
 */
export function gitIgnoredDirectories(runner: GitRunner): IgnoredDirectories {
  return async (location) => {
    const git: GitLocation = { gitDir: location.gitDir, workTree: location.topLevel, cwd: location.topLevel, filterDrivers: [] };
    const listed = await runChecked(runner, git, "ls-files", ["--others", "--ignored", "--exclude-standard", "--directory", "-z"], {});
    if (listed.exitCode !== 0) {
      throw new GitctxError("git_failed", `git could not list the ignored directories of ${location.topLevel}: ${firstLine(listed.stderr)}`);
    }
    return ignoredDirectoriesFromListing(listed.stdout.split("\0").filter((path) => path !== ""));
  };
}

/** The directories (`dir/`) of an ignored-files listing that have nothing listed below them. Pure. */
export function ignoredDirectoriesFromListing(paths: readonly string[]): string[] {
  const sorted = [...paths].sort();
  const ignored: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const path = sorted[i]!;
    if (!path.endsWith("/")) continue;
    // Sorted, so anything below `path` comes right after it.
    const next = sorted[i + 1];
    if (next === undefined || !next.startsWith(path)) ignored.push(path);
  }
  return ignored;
}

/** Absolute path, no trailing separator. */
export function absoluteDirectory(topLevel: string, path: string): string {
  const full = isAbsolute(path) ? path : resolve(topLevel, path);
  return full.length > 1 && full.endsWith(sep) ? full.slice(0, -1) : full;
}

/**
 * The test chokidar runs for every path before it watches it (and again for events), so it must be cheap: a
 * name check and two set lookups. `path` arrives `/`-separated from chokidar.
 */
export function treeIgnorePredicate(topLevel: string, worktreesDir: string, ignoredDirectories: ReadonlySet<string>): (path: string) => boolean {
  const worktrees = absoluteDirectory(topLevel, worktreesDir);
  return (path) => {
    const slash = path.lastIndexOf("/");
    const name = path.slice(slash + 1);
    if (name === ".git" || name === "node_modules") return true;
    if (path === worktrees) return true;
    return ignoredDirectories.has(path);
  };
}

export const DEFAULT_WORKTREES_DIR = join(".claude", "worktrees");

/** Files of a git directory whose content says what happened; everything else there (objects, hooks, logs of other refs) is left out. */
const LOCAL_FILES = new Set([
  "HEAD",
  "ORIG_HEAD",
  "FETCH_HEAD",
  "MERGE_HEAD",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "BISECT_LOG",
  "index",
  // Not an event, but git holds it for as long as it writes the work tree: the watcher waits for it to go.
  "index.lock",
  "config.worktree",
  "logs",
  "logs/HEAD",
  // Watched as directories (their coming and going is the operation starting and ending), not their contents.
  "rebase-merge",
  "rebase-apply",
]);
const COMMON_FILES = new Set(["packed-refs", "config", "info", "info/exclude", "logs/refs", "logs/refs/stash", "refs"]);

/**
 * The filter for a git directory's watches. `role: "local"` is a linked worktree's own git directory;
 * `"common"` is the shared one, which is also the main worktree's own, so it keeps the local files too (another
 * worktree's session would see them change and find no difference: no event). `worktrees/` (the linked
 * worktrees' directories) and `objects/` are never watched.
 */
export function gitDirIgnorePredicate(dir: string, role: "local" | "common"): (path: string) => boolean {
  const prefix = `${dir}/`;
  return (path) => {
    if (path === dir) return false;
    if (!path.startsWith(prefix)) return true;
    const relative = path.slice(prefix.length);
    if (LOCAL_FILES.has(relative)) return false;
    if (role === "local") return true;
    if (COMMON_FILES.has(relative)) return false;
    // The linked worktrees' directories come and go with `git worktree add/remove/prune`; their contents are theirs.
    if (relative === "worktrees" || /^worktrees\/[^/]+$/.test(relative)) return false;
    return !(relative.startsWith("refs/") && !relative.endsWith(".lock"));
  };
}
