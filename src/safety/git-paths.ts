/**
 * `.git` write protection for file-writing tools, and the index lock check. These read the file system
 * (synchronously for `isGitInternalPath`, which a tool calls before every write), so they are not pure.
 */
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, isAbsolute, join, parse, resolve, sep } from "node:path";
import { dotGitTarget, isInside } from "../git/discover.js";

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
export function isGitInternalPath(path: string, root: string, options: GitInternalPathOptions = {}): boolean {
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
  for (const gitDir of gitDirectories(absoluteRoot)) {
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
  const pending = path.slice(root.length).split(sep).filter((c) => c !== "");
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

/** Git directories of the repository containing `root`, resolved: its git directory and common directory. */
function gitDirectories(root: string): string[] {
  const dirs: string[] = [];
  let dir = realpathOr(root);
  for (;;) {
    const dotGit = join(dir, ".git");
    let info;
    try {
      info = statSync(dotGit);
    } catch {
      info = undefined;
    }
    if (info !== undefined) {
      const gitDir = info.isDirectory() ? realpathOr(dotGit) : gitFileTarget(dir);
      if (gitDir !== undefined) {
        dirs.push(gitDir);
        try {
          const common = readFileSync(join(gitDir, "commondir"), "utf8").trim();
          if (common !== "") dirs.push(realpathOr(resolve(gitDir, common)));
        } catch {
          // Not a linked worktree: the git directory is its own common directory.
        }
      }
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dirs;
}

function gitFileTarget(dir: string): string | undefined {
  try {
    const match = /^gitdir: (.*?)[\r\n]*$/.exec(readFileSync(join(dir, ".git"), "utf8").split("\n")[0] ?? "");
    if (match === null || match[1] === "") return undefined;
    return realpathOr(resolve(dir, match[1]!));
  } catch {
    return undefined;
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
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

export interface IndexLockState {
  /** An `index.lock` exists: a git process is writing the index, or one died while doing so. */
  locked: boolean;
  /** The lock is older than `staleAfterMs`: most likely left by a git process that died. */
  stale: boolean;
  /** Age of the lock in milliseconds, or `null` when there is none. */
  ageMs: number | null;
  /** Where the lock is (or would be). */
  path: string | null;
}

export interface IndexLockOptions {
  /** Age from which a lock counts as stale. Default 30 s. */
  staleAfterMs?: number;
  /** The current time in ms since the epoch (for tests). Default `Date.now()`. */
  now?: number;
}

export const DEFAULT_STALE_LOCK_MS = 30_000;

/**
 * Whether the index of the repository containing `root` is locked. A linked worktree has its own index and
 * lock in its own git directory. Outside a repository: not locked, `path: null`.
 */
export async function checkIndexLock(root: string, options: IndexLockOptions = {}): Promise<IndexLockState> {
  const gitDir = await findGitDir(resolve(root));
  if (gitDir === undefined) return { locked: false, stale: false, ageMs: null, path: null };
  const path = join(gitDir, "index.lock");
  let info;
  try {
    info = await stat(path);
  } catch {
    return { locked: false, stale: false, ageMs: null, path };
  }
  const ageMs = Math.max(0, Math.round((options.now ?? Date.now()) - info.mtimeMs));
  return { locked: true, stale: ageMs > (options.staleAfterMs ?? DEFAULT_STALE_LOCK_MS), ageMs, path };
}

async function findGitDir(start: string): Promise<string | undefined> {
  let dir = start;
  for (;;) {
    const target = await dotGitTarget(dir);
    if (target !== undefined) return target;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
