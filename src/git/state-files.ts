/**
 * The files git reads from a repository must be what git itself writes, checked before the first git process:
 * a state file that is a symlink (to `/etc/passwd`, `/dev/zero` or another repository's objects), a FIFO (git
 * blocks on it until the timeout), a device, or a regular file far larger than git ever makes (git reads some to
 * their end: a sparse file of gigabytes grows git by a gigabyte a second) turns a read into a leak or an outage.
 * So does `objects/info/alternates` pointing at another repository, whose objects `git show` would then print.
 *
 * Checked: every entry at the top of the git directory and the common directory (hooks excepted: gitctx runs no
 * hook), the directories git reads there (refs, logs, info, objects/info, objects/pack and the loose-object
 * fan-out, worktrees, rebase and sequencer state, the legacy remote files in remotes and branches), the object
 * stores alternates lend (read as git reads them, nested ones followed), and in the work tree the `.gitattributes`, `.gitignore`,
 * `.mailmap` and `.gitmodules` git reads at the top level and on the way down to the workspace root (deeper ones
 * are read by git as it walks; the timeout and memory limit bound those).
 *
 * The whole check runs when a session first opens a repository. On later calls a directory is looked at again
 * only when it changed (one stat each: the git directory, the common directory with the alternates it lends, and
 * the work-tree directories from the top level down to the workspace root), and then only its first level: files
 * below are written by git itself once the repository is in use.
 */
import { lstatSync, realpathSync, statSync, type BigIntStats, type Dirent, type Stats } from "node:fs";
import { join, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { describeSize, MAX_INDEX_BYTES, MAX_PACKED_REFS_BYTES, MAX_STATE_FILE_BYTES, oversized } from "./file-limits.js";
import { alternatePath, MAX_ALTERNATE_DEPTH, parseAlternates } from "./parse/alternates.js";
import { showBytes } from "./parse/config.js";
import { exactUtf8 } from "./parse/gitfile.js";
import { showPath } from "../text.js";
import { commonDirOf, isInside, type RepositoryPaths } from "./discover.js";
import { fileSignature, StatOnce, unchanged, watchFiles } from "./file-signature.js";
import { readRegularFileSync } from "./read-file.js";
import { readdirQuietly } from "./stat-quietly.js";

export { MAX_STATE_FILE_BYTES } from "./file-limits.js";

/** State files read whole, whose size is checked; the index, packs and commit-graphs are mapped, not read. */
const READ_WHOLE = new Set([
  "HEAD",
  "ORIG_HEAD",
  "FETCH_HEAD",
  "MERGE_HEAD",
  "MERGE_MSG",
  "MERGE_MODE",
  "MERGE_AUTOSTASH",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "REBASE_HEAD",
  "AUTO_MERGE",
  "BISECT_LOG",
  "BISECT_START",
  "BISECT_TERMS",
  "BISECT_NAMES",
  "BISECT_EXPECTED_REV",
  "BISECT_ANCESTORS_OK",
  "commondir",
  "gitdir",
  "shallow",
  "config",
  "config.worktree",
]);

/** Directories below a git directory that git reads in the commands gitctx runs, walked whole on the first check. */
const WALKED = ["refs", "logs", "info", "worktrees", "rebase-merge", "rebase-apply", "sequencer", "branches", "remotes"];

/**
 * Directories whose every file git reads whole: `info/` (exclude, attributes, sparse-checkout, grafts), and the
 * legacy remote definitions `remotes/<name>` and `branches/<name>`, which git opens for a remote named by
 * `branch.<name>.remote` that the config does not define (`git status` does, to show the upstream).
 */
const READ_WHOLE_DIRS = ["info", "remotes", "branches"];

/**
 * Below a git directory, what is walked again whenever it changes (each on its own signature), after the first
 * walk: what git reads whole, the state of a rebase or cherry-pick (`git status` reads `rebase-merge/head-name`,
 * `sequencer/todo`...), and the packs. A file planted in one between two calls leaves the git directory's own
 * timestamps alone. (`refs/` and `logs/` are walked on the first check only: too many directories to watch.)
 */
const RECHECKED = [...READ_WHOLE_DIRS, "rebase-merge", "rebase-apply", "sequencer", join("objects", "pack")];

/** RECHECKED by the entry at the top of a git directory they are in (`objects` for `objects/pack`). */
const RECHECKED_BELOW = new Map<string, string[]>();
for (const name of RECHECKED) {
  const top = name.split(sep)[0]!;
  RECHECKED_BELOW.set(top, [...(RECHECKED_BELOW.get(top) ?? []), name]);
}

/**
 * Files at the top of a git directory with a bound of their own, larger than a state file's: git maps them, then
 * reads them through (it checks the index's checksum and every line of packed-refs), and so do gitctx's readers.
 */
const SIZE_LIMITS = new Map([
  ["index", MAX_INDEX_BYTES],
  ["packed-refs", MAX_PACKED_REFS_BYTES],
]);

/** Work-tree files git reads at the top level and in the directories leading to the workspace root. */
const WORK_TREE_FILES = [".gitattributes", ".gitignore", ".mailmap", ".gitmodules"];

export interface StateCheckTarget {
  gitDir: string;
  commonDir: string;
  topLevel: string;
  /** The workspace root (the directories from the top level down to it are checked). */
  root?: string;
}

/**
 * What a session remembers of the checks it made, as signatures of the directories read: per git directory (a
 * common directory, shared by its worktrees, is checked once for all of them), and per work tree and workspace
 * root the directories from the top level down to the root.
 */
export class StateFileChecks {
  readonly gitDirs = new Map<string, string>();
  readonly workTrees = new Map<string, readonly string[]>();
  /** Per git directory, the common directory git uses for it, kept while its `commondir` file is unchanged. */
  readonly commonDirs = new Map<string, { signature: string; commonDir: string }>();
  /** Per common directory without an alternates file, the signature of its `objects/info` (see checkStateFiles). */
  readonly alternates = new Map<string, ReadonlyMap<string, string>>();
  /** Per git directory, each of its RECHECKED directories that it has, by name, with its signature when last walked. */
  readonly rechecked = new Map<string, ReadonlyMap<string, string>>();

  invalidate(): void {
    this.gitDirs.clear();
    this.workTrees.clear();
    this.commonDirs.clear();
    this.alternates.clear();
    this.rechecked.clear();
  }
}

/**
 * The common directory discovery found must still be the one git uses: git, given the git directory, follows its
 * `commondir` file, and one written since (into the main checkout's `.git`, or over a worktree's) would send every
 * git process to another repository's config while the kept scans still describe this one. Refused as a changed
 * repository (`not_a_repository`), so that the session looks for it again.
 */
export async function checkCommonDir(paths: RepositoryPaths, checks: StateFileChecks, stats = new StatOnce()): Promise<void> {
  const signature = fileSignature(join(paths.gitDir, "commondir"), stats);
  let known = checks.commonDirs.get(paths.gitDir);
  if (known?.signature !== signature) {
    known = { signature, commonDir: await commonDirOf(paths.gitDir) };
    checks.commonDirs.set(paths.gitDir, known);
  }
  if (known.commonDir === paths.commonDir) return;
  throw new GitctxError(
    "not_a_repository",
    `The repository at ${paths.topLevel} changed since it was opened: its git directory ${paths.gitDir} now names ${known.commonDir} as its common directory.`,
    "Call again: the next call looks for the repository again, and refuses a layout git itself did not make.",
  );
}

/**
 * Refuses (`unsafe_repository`) a repository whose state files git would read are not what git writes. `stats`
 * is the opening's (see StatOnce): what it already took, for checkRepository or the config scans, is not taken again.
 * Only what a changed directory holds is checked again: a plain `git status` beside the agent touches the git
 * directory (it creates and removes `index.lock`), which says nothing of the work tree's files.
 */
export function checkStateFiles(target: StateCheckTarget, checks: StateFileChecks, stats = new StatOnce()): void {
  for (const dir of new Set([target.gitDir, target.commonDir])) {
    const signature = directorySignature(stats.stat(dir));
    const previous = checks.gitDirs.get(dir);
    let listed: readonly string[] | undefined;
    if (previous !== signature) {
      listed = checkGitDirectory(dir, previous === undefined, stats);
      checks.gitDirs.set(dir, signature);
    }
    // Walked with the git directory the first time; then again whenever one changes, or appears (which the
    // listing above sees, the git directory having changed).
    const walked = previous === undefined ? undefined : checks.rechecked.get(dir);
    const now = new Map<string, string>();
    for (const name of listed ?? (walked === undefined ? RECHECKED : [...walked.keys()])) {
      const path = join(dir, name);
      const found = directorySignature(stats.stat(path));
      if (found === "missing") continue;
      if (previous !== undefined && walked?.get(name) !== found) walk(path);
      now.set(name, found);
    }
    checks.rechecked.set(dir, now);
  }
  // Kept on `objects/info`, not on the git directory: an alternates file is made there, which leaves the git
  // directory's own timestamps alone. Kept only while there is none, and once settled (a write within the clock's
  // tick after the check would leave the same signature). With one, the check runs on every call: what git borrows
  // then also depends on stores that may not exist yet and on every link on the way to each, which no set of
  // signatures taken here covers.
  const alternates = checks.alternates.get(target.commonDir);
  if (alternates === undefined || !unchanged(alternates, stats)) {
    const info = join(target.commonDir, "objects", "info");
    const { signatures, settled } = watchFiles([info]);
    if (!checkAlternates(target.commonDir) && settled) checks.alternates.set(target.commonDir, signatures);
    else checks.alternates.delete(target.commonDir);
  }
  const workTreeDirs = workTreePath(target.topLevel, target.root ?? target.topLevel);
  const key = `${target.topLevel}\0${target.root ?? ""}`;
  const signatures = workTreeDirs.map((dir) => directorySignature(stats.stat(dir)));
  const previous = checks.workTrees.get(key);
  if (previous !== undefined && signatures.every((signature, i) => previous[i] === signature)) return;
  checkWorkTree(workTreeDirs);
  checks.workTrees.set(key, signatures);
}

function directorySignature(info: BigIntStats | undefined): string {
  return info === undefined ? "missing" : `${info.dev}:${info.ino}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** Checks the top of a git directory (and, `deep`, what git reads below it); returns the RECHECKED it may have. */
function checkGitDirectory(dir: string, deep: boolean, stats: StatOnce): string[] {
  const present: string[] = [];
  for (const entry of readdirQuietly(dir)) {
    if (entry.name === "hooks") continue;
    // Joined only where needed: this runs on every call after a user's git touched the directory.
    const path = (): string => join(dir, entry.name);
    if (entry.isDirectory()) {
      if (deep && WALKED.includes(entry.name)) walk(path());
      if (deep && entry.name === "objects") checkObjects(path());
      const below = RECHECKED_BELOW.get(entry.name);
      if (below !== undefined) present.push(...below);
      continue;
    }
    if (!entry.isFile()) throw notGitWritten(path(), kindOf(entry));
    const limit = READ_WHOLE.has(entry.name) ? MAX_STATE_FILE_BYTES : SIZE_LIMITS.get(entry.name);
    if (limit === undefined) continue;
    const info = stats.stat(path());
    if (info === undefined) continue;
    if (info.size > BigInt(limit)) throw oversized(path(), Number(info.size));
    if (isSparse(info)) throw sparse(path(), Number(info.size));
  }
  return present;
}

/**
 * A file larger than any state file (an index, packed-refs) with most of it holes: git writes every byte of what it
 * writes, so it never made one; an archive can ship a gigabyte of them for nothing. git maps such a file and fails
 * at its first bad byte; gitctx's own readers (the gitlink scan, the watcher) would read all of it into memory.
 */
function isSparse(info: BigIntStats): boolean {
  return info.size > BigInt(MAX_STATE_FILE_BYTES) && info.blocks * 512n * 8n < info.size;
}

function sparse(path: string, size: number): GitctxError {
  return new GitctxError(
    "unsafe_repository",
    `${showPath(path)} is a sparse file of ${describeSize(size)}, most of it holes: git never writes one, and reading it would hold gigabytes of nothing.`,
    "Remove the file if the repository is yours (git rebuilds an index with git reset); otherwise do not use it.",
  );
}

/** Every entry below `dir` is a regular file or a directory; the files git reads whole are not oversized. */
function walk(dir: string, readWhole = READ_WHOLE_DIRS.some((name) => dir.endsWith(`${sep}${name}`))): void {
  for (const entry of readdirQuietly(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, readWhole);
    else if (!entry.isFile()) throw notGitWritten(path, kindOf(entry));
    else if (readWhole || READ_WHOLE.has(entry.name)) checkSize(path);
  }
}

/** `objects/`: its info and pack directories and the 256 fan-out directories hold regular files only. */
function checkObjects(dir: string): void {
  for (const entry of readdirQuietly(dir)) {
    const path = join(dir, entry.name);
    if (!entry.isDirectory()) {
      if (!entry.isFile()) throw notGitWritten(path, kindOf(entry));
      continue;
    }
    if (entry.name !== "info" && entry.name !== "pack" && !/^[0-9a-f]{2}$/.test(entry.name)) continue;
    for (const inner of readdirQuietly(path)) {
      const innerPath = join(path, inner.name);
      if (inner.isDirectory() && entry.name === "info")
        walk(innerPath); // commit-graphs/
      else if (!inner.isFile()) throw notGitWritten(innerPath, kindOf(inner));
    }
  }
}

/**
 * `objects/info/alternates` lends another object store to this repository: `git show <id>` would print any object
 * of it, another repository's history under this workspace's name. Only stores inside the repository are taken.
 * The file is read as git reads it (`parseAlternates`), each store resolved as git resolves it (a relative path
 * against the real path of the object directory whose file names it, then through symlinks), and the stores' own
 * alternates followed as git follows them, as deep as git goes. Returns whether there is an alternates file at all.
 */
function checkAlternates(commonDir: string): boolean {
  // checkGitDirectory has refused a symlinked `objects`, so this is the file git would read: when it is missing
  // (or unreachable, as alternateStores treats it), git borrows nothing and there are no real paths to resolve.
  if (lstatBytes(Buffer.from(join(commonDir, "objects", "info", "alternates"))) === undefined) return false;
  const inside = Buffer.from(`${commonDir}${sep}`);
  alternateStores(commonDir, (store, file) => {
    if (!store.subarray(0, inside.length).equals(inside)) {
      throw new GitctxError(
        "unsafe_repository",
        `The repository borrows objects from ${shownPath(store)} (named in ${shownPath(file)}): gitctx would serve another repository's objects under this workspace's name.`,
        "If the alternate is intended (git clone --reference or --shared), make the repository self-contained with `git repack -a -d` and delete objects/info/alternates.",
      );
    }
    // Inside the repository, it is read like the repository's own objects: its files must be git's too.
    const exact = exactUtf8(store);
    if (exact === undefined) {
      throw new GitctxError(
        "unsafe_repository",
        `${shownPath(file)} names an object store at a path that is not UTF-8 (${shownPath(store)}); gitctx cannot check it.`,
        "Remove the alternates file if the repository is yours.",
      );
    }
    checkObjects(exact);
  });
  return true;
}

/**
 * The object stores git 2.39 borrows for the repository whose common directory is `commonDir`, in the order it
 * takes them (`link_alt_odb_entry`: each store, then its own alternates, before the next entry), each with the
 * alternates file that named it. `onStore` sees each store before its own alternates file is read, and may throw
 * to stop there. Every alternates file read must be a regular file of a state file's size (else `unsafe_repository`).
 */
export function alternateStores(
  commonDir: string,
  onStore: (store: Buffer, file: Buffer) => void = () => {},
): Array<{ store: Buffer; file: Buffer }> {
  const stores: Array<{ store: Buffer; file: Buffer }> = [];
  let objects: Buffer;
  try {
    objects = realpathSync.native(join(commonDir, "objects"), { encoding: "buffer" });
  } catch {
    return stores; // No object directory: git reads no alternates.
  }
  const seen = new Set<string>([objects.toString("latin1")]);
  const visit = (base: Buffer, depth: number): void => {
    if (depth > MAX_ALTERNATE_DEPTH) return; // git ignores them there ("nesting too deep").
    const file = Buffer.concat([base, Buffer.from("/info/alternates")]);
    for (const entry of readAlternatesFile(file, commonDir)) {
      const path = alternatePath(entry);
      // Relative to the real path of the object directory whose file names it, then through symlinks.
      const named = path[0] === 0x2f ? path : Buffer.concat([base, Buffer.from("/"), path]);
      let store: Buffer;
      try {
        store = realpathSync.native(named, { encoding: "buffer" });
      } catch {
        continue; // git cannot normalise it either, and skips it.
      }
      let end = store.length;
      while (end > 1 && store[end - 1] === 0x2f) end--;
      store = store.subarray(0, end);
      const key = store.toString("latin1");
      // git skips a store that is not a directory, the object directory itself, and one already taken.
      if (seen.has(key) || !isDirectory(store)) continue;
      seen.add(key);
      onStore(store, file);
      stores.push({ store, file });
      visit(store, depth + 1);
    }
  };
  visit(objects, 0);
  return stores;
}

/**
 * The entries of one alternates file, which must be what git writes: a regular file (git would follow a symlink
 * anywhere, block on a FIFO, read a device without end), and not larger than a state file. None when it is missing.
 */
function readAlternatesFile(file: Buffer, commonDir: string): Buffer[] {
  const info = lstatBytes(file);
  if (info === undefined) return [];
  const shown = shownPath(file);
  if (info.isDirectory()) return []; // git cannot read a directory as a file, and reads nothing.
  if (!info.isFile()) throw notGitWritten(shown, kindOfStats(info));
  if (info.size > MAX_STATE_FILE_BYTES) throw oversized(shown, info.size);
  const read = readRegularFileSync(file, MAX_STATE_FILE_BYTES + 1);
  if (read === undefined) {
    throw new GitctxError(
      "unsafe_repository",
      `gitctx could not read ${shown}, which git reads for the repository at ${commonDir}.`,
      "Check the file's permissions.",
    );
  }
  return parseAlternates(read);
}

function lstatBytes(path: Buffer): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // Not reachable (a component is not a directory, a loop): git cannot open it either.
  }
}

function isDirectory(path: Buffer): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** A path of bytes as text: non-UTF-8 bytes as `\xNN`, quoted when it has a control character. */
function shownPath(path: Buffer): string {
  return showPath(showBytes(path));
}

/** The directories from the top level down to the workspace root (only the top level when the root is outside it). */
function workTreePath(topLevel: string, root: string): string[] {
  const dirs = [topLevel];
  if (root !== topLevel && isInside(topLevel, root)) {
    let dir = topLevel;
    for (const part of root.slice(topLevel.length + 1).split(sep)) dirs.push((dir = join(dir, part)));
  }
  return dirs;
}

/** The work-tree files git reads in `dirs`, the directories on the way from the top level to the workspace root. */
function checkWorkTree(dirs: readonly string[]): void {
  for (const dir of dirs) {
    for (const name of WORK_TREE_FILES) {
      const path = join(dir, name);
      let info: Stats | undefined;
      try {
        info = statSync(path, { throwIfNoEntry: false });
      } catch {
        continue; // A symlink loop: git refuses to follow these files anyway.
      }
      // git opens these without following symlinks and ignores a symlink, so only what stat finds behind a
      // regular name matters: a FIFO would block git, a device or huge file exhaust it.
      if (info === undefined || info.isDirectory()) continue;
      if (!info.isFile()) throw notGitWritten(path, kindOfStats(info));
      if (info.size > MAX_STATE_FILE_BYTES) throw oversized(path, info.size);
    }
  }
}

function checkSize(path: string, limit = MAX_STATE_FILE_BYTES): void {
  const info = statSync(path, { throwIfNoEntry: false });
  if (info !== undefined && info.size > limit) throw oversized(path, info.size);
}

function kindOf(entry: Dirent): string {
  if (entry.isSymbolicLink()) return "a symbolic link";
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  return "not a regular file";
}

function kindOfStats(info: Stats): string {
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

function notGitWritten(path: string, kind: string): GitctxError {
  return new GitctxError(
    "unsafe_repository",
    `${path} is ${kind}, where git itself only writes regular files: reading it could block git, or lead it to a file outside the repository.`,
    "gitctx reads no repository in this state. If the repository is yours, replace the file with what git wrote (or remove it); otherwise do not use it.",
  );
}
