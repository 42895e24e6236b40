/**
 * `.git` write protection for file-writing tools, and the index lock check. They find the repository with the
 * same discovery the tools use, so a linked worktree's own git directory and the common directory it shares are
 * both known.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, parse, resolve, sep } from "node:path";
import { isInside, locateGitDirectory, type RepositoryPaths } from "../git/discover.js";
import { readIndexLock, type IndexLock, type IndexLockOptions } from "../git/index-lock.js";

export interface GitInternalPathOptions {
  /**
   * Whether the file system compares names without case (macOS and Windows by default), where `.GIT/config`
   * is `.git/config`. Default: detected at `root`.
   */
  caseInsensitive?: boolean;
}

/**
 * True when writing `path` (relative to `root`, or absolute) would write inside a git directory: any `.git`
 * directory, the `.git` file of a linked worktree or submodule, the git directory that file points to, or the
 * common directory that git directory shares; through symlinks (even dangling ones, which a write would create
 * the target of) and `..`; and for case and other name variants the file system treats as `.git`.
 */
export async function isGitInternalPath(path: string, root: string, options: GitInternalPathOptions = {}): Promise<boolean> {
  const absoluteRoot = resolve(root);
  const lexical = resolve(absoluteRoot, path);
  const caseInsensitive = options.caseInsensitive ?? detectCaseInsensitive(absoluteRoot);
  const isDotGit = (name: string): boolean => dotGitName(name, caseInsensitive);

  // The path as written, and the path after following every symlink on the way.
  const resolved = followSymlinks(lexical);
  for (const candidate of [lexical, resolved]) {
    if (candidate.split(sep).some(isDotGit)) return true;
  }
  // Git directories that are not named `.git`: where a `.git` file points, and their common directory.
  for (const gitDir of await gitDirectories(absoluteRoot)) {
    if (isInside(gitDir, resolved) || isInside(gitDir, lexical)) return true;
  }
  return false;
}

/** A path component that names `.git` on this file system. */
function dotGitName(name: string, caseInsensitive: boolean): boolean {
  if (name === ".git") return true;
  if (!caseInsensitive) return false;
  // HFS+ ignores some zero-width code points; NTFS ignores trailing dots and spaces, and has 8.3 short names.
  const normalized = name
    .normalize("NFC")
    .replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, "")
    .replace(/[. ]+$/, "")
    .toLowerCase();
  return normalized === ".git" || normalized === "git~1";
}

/** The path with every symlink resolved, component by component; missing components are kept as written. */
function followSymlinks(path: string): string {
  const { root } = parse(path);
  let current = root;
  const pending = path
    .slice(root.length)
    .split(sep)
    .filter((c) => c !== "");
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === ".") continue;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, name);
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // Does not exist (yet): the rest of the path is taken as written.
      return join(next, ...pending);
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++hops > 40) return join(next, ...pending); // A loop: the write would fail anyway.
    const target = readlinkSync(next);
    const targetParts = target.split(sep).filter((c) => c !== "");
    if (isAbsolute(target)) current = parse(target).root;
    pending.unshift(...targetParts);
  }
  return current;
}

/**
 * The git directory and common directory of the repository containing `root`; none when it is not in one. A
 * repository gitctx refuses to read (another user's, an odd layout) still has its `.git` components caught by name.
 */
async function gitDirectories(root: string): Promise<string[]> {
  const paths = await locate(root);
  return paths === undefined ? [] : [...new Set([paths.gitDir, paths.commonDir])];
}

function locate(root: string): Promise<RepositoryPaths | undefined> {
  return locateGitDirectory(root).catch(() => undefined);
}

const caseCache = new Map<string, boolean>();

/** Whether the file system at `dir` finds a name when its case is changed. */
function detectCaseInsensitive(dir: string): boolean {
  const cached = caseCache.get(dir);
  if (cached !== undefined) return cached;
  let result = false;
  try {
    const real = realpathSync(dir);
    const { base } = parse(real);
    const flipped = base.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    if (flipped !== base) {
      const a = statSync(real);
      const b = statSync(join(dirname(real), flipped), { throwIfNoEntry: false });
      result = b !== undefined && a.ino === b.ino && a.dev === b.dev;
    }
  } catch {
    result = false;
  }
  caseCache.set(dir, result);
  return result;
}

/**
 * The index lock of the worktree containing `root` (a linked worktree has its own, in its own git directory), or
 * `null` when there is none or `root` is not in a repository.
 */
export async function checkIndexLock(root: string, options: IndexLockOptions = {}): Promise<IndexLock | null> {
  const paths = await locate(resolve(root));
  return paths === undefined ? null : readIndexLock(paths.gitDir, options);
}
