/**
 * Finding the repository of a workspace, without running git: the walk up from the root is git's own
 * (`setup_git_directory_gently_1` of git 2.39: `.git` file, `.git` directory, a bare directory, then the parent,
 * stopping at a mount point), and the pointer files are read byte for byte as git reads them. Then the layout
 * must be one git itself creates, so a repository unpacked from an archive cannot lead gitctx into another
 * repository's history:
 * - `main`: a `.git` directory (without a `commondir`, which would share another repository's refs and objects);
 * - `worktree`: a `.git` file naming `<common>/worktrees/<id>`, whose `gitdir` file points back at this `.git`;
 * - `submodule`: a `.git` file naming a directory under the `modules/` of the enclosing repository's git directory.
 *
 * The file system is read synchronously, as git reads it: these are a few dozen stats and reads of tiny files, each
 * a few microseconds, where each asynchronous call costs a trip through Node's thread pool (discovering a linked
 * worktree took 2.3 ms that way, 0.2 ms now). The functions stay asynchronous for their callers.
 */
import { accessSync, constants, readlinkSync, realpathSync, statSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { StatOnce } from "./file-signature.js";
import { exactUtf8, MAX_GITFILE_BYTES, parseCommondir, parseGitfile, parseWorktreeGitdir } from "./parse/gitfile.js";
import { readRegularFileSync } from "./read-file.js";
import { lstatQuietly, realpathOr, statQuietly } from "./stat-quietly.js";

/**
 * The layouts git itself creates; `bare` (a bare repository as the root itself: no work tree, `topLevel` is the
 * git directory) only when asked for; `other` (a `.git` symlink, `--separate-git-dir`) only from `locateGitDirectory`.
 */
export type RepositoryLayout = "main" | "worktree" | "submodule" | "bare" | "other";

/** Where the repository of a workspace lives. Paths are real (symlinks resolved), absolute, and valid UTF-8. */
export interface RepositoryPaths {
  /** The workspace root the caller gave, resolved. Caller paths are relative to it and confined to it. */
  root: string;
  /** The top level of the work tree containing `root`. */
  topLevel: string;
  /** The repository's git directory (for a linked worktree, its own one under the common directory). */
  gitDir: string;
  /** The directory holding the objects, refs and config every worktree shares; `gitDir` unless a linked worktree. */
  commonDir: string;
  /** `root` relative to `topLevel`, `/`-separated; `""` when they are the same directory. */
  prefix: string;
  layout: RepositoryLayout;
}

export interface DiscoverOptions {
  /**
   * Accept a bare repository given as the root itself (layout `bare`: history without a work tree, for the tools
   * that read commits). Default false: it is refused, as is a root anywhere inside a git directory.
   */
  bare?: boolean;
}

/** Finds the repository containing `root`, checks its layout and, unless trusted, that the current user owns it. */
export function discoverRepository(root: string, trustRepository: boolean, options: DiscoverOptions = {}): Promise<RepositoryPaths> {
  return walk(root, { strict: true, trustRepository, bare: options.bare === true });
}

/**
 * Where git would find the git directory of `root`, whatever the layout and owner: for guards that must protect
 * every git directory git could write, including those of repositories gitctx refuses to read.
 */
export function locateGitDirectory(root: string): Promise<RepositoryPaths> {
  return walk(root, { strict: false, trustRepository: true, bare: false });
}

interface WalkOptions {
  /** Refuse layouts git does not create itself, instead of following them as git would. */
  strict: boolean;
  trustRepository: boolean;
  bare: boolean;
}

async function walk(root: string, options: WalkOptions): Promise<RepositoryPaths> {
  return walkSync(root, options);
}

function walkSync(root: string, options: WalkOptions): RepositoryPaths {
  let realRoot: string;
  try {
    realRoot = exactRealpath(root);
  } catch (error) {
    if (error instanceof GitctxError) throw error;
    throw new GitctxError("not_a_repository", `The workspace root ${root} does not exist.`, [
      { setting: "root", value: "an existing directory" },
      ".",
    ]);
  }
  const rootInfo = statSync(realRoot);
  if (!rootInfo.isDirectory()) {
    throw new GitctxError("not_a_repository", `The workspace root ${root} is not a directory.`, [{ setting: "root", value: "a directory" }, "."]);
  }
  let dir = realRoot;
  for (;;) {
    const dotGit = join(dir, ".git");
    const entry = lstatQuietly(dotGit);
    if (entry !== undefined) {
      const found = openDotGit(dir, dotGit, entry, options.strict);
      if (found !== undefined) {
        const paths: RepositoryPaths = { root: realRoot, ...found, prefix: relative(found.topLevel, realRoot).split(sep).join("/") };
        if (!options.trustRepository) checkOwnership(paths, entry);
        return paths;
      }
    }
    if (isGitDirectorySync(dir)) {
      // Only the bare repository itself, never a directory inside it (refs/, objects/) nor a work tree's `.git`.
      if (options.bare && dir === realRoot && !dir.endsWith(`${sep}.git`)) return openBare(realRoot, rootInfo, options.trustRepository);
      throw insideGitDirectory(realRoot, dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw notARepository(realRoot);
    // git stops at a mount point (GIT_DISCOVERY_ACROSS_FILESYSTEM is not set in its environment either).
    if (statSync(parent).dev !== rootInfo.dev) throw notARepository(realRoot, parent);
    dir = parent;
  }
}

type Found = Omit<RepositoryPaths, "root" | "prefix">;

/** A bare repository as the root: its own top level, with no work tree; like a `.git` directory, not sharing another's. */
function openBare(root: string, info: Stats, trustRepository: boolean): RepositoryPaths {
  if (lstatQuietly(join(root, "commondir")) !== undefined) {
    throw unsafeLayout(root, "it is a git directory with a commondir file, which makes it share another repository's refs and objects");
  }
  const paths: RepositoryPaths = { root, topLevel: root, gitDir: root, commonDir: root, prefix: "", layout: "bare" };
  if (!trustRepository) checkOwnership(paths, info);
  return paths;
}

/**
 * The repository whose work tree is `dir` (a checked-out submodule, say), its `.git` read as git reads it;
 * `undefined` when `dir` has no `.git` git would use. A `.git` that exists but leads anywhere git itself would not
 * put a repository is refused (`unsafe_repository`): a caller scanning for programs must never skip what git reads.
 */
export async function openWorkTree(dir: string): Promise<Found | undefined> {
  const dotGit = join(dir, ".git");
  const entry = lstatQuietly(dotGit);
  return entry === undefined ? undefined : openDotGit(dir, dotGit, entry, true);
}

/** The repository a `.git` entry leads to; `undefined` for a `.git` directory that is not a repository (git walks on). */
function openDotGit(top: string, dotGit: string, entry: Stats, strict: boolean): Found | undefined {
  if (entry.isSymbolicLink() && !strict) {
    const target = statQuietly(dotGit);
    if (target === undefined) return undefined;
    if (target.isDirectory()) {
      const gitDir = exactRealpath(dotGit);
      return isGitDirectorySync(gitDir) ? { topLevel: top, gitDir, commonDir: commonDirOfSync(gitDir), layout: "other" } : undefined;
    }
    return openDotGit(top, dotGit, target, strict);
  }
  if (entry.isSymbolicLink()) {
    let target = "?";
    try {
      target = readlinkSync(dotGit);
    } catch {
      // Named as "?" in the refusal.
    }
    throw unsafeLayout(top, `its .git is a symbolic link (to ${target}): git would follow it into another repository's history`);
  }
  if (entry.isDirectory()) {
    if (!isGitDirectorySync(dotGit)) return undefined;
    if (!strict) return { topLevel: top, gitDir: dotGit, commonDir: commonDirOfSync(dotGit), layout: "main" };
    if (lstatQuietly(join(dotGit, "commondir")) !== undefined) {
      throw unsafeLayout(top, "its .git directory has a commondir file, which makes it share another repository's refs and objects");
    }
    return { topLevel: top, gitDir: dotGit, commonDir: dotGit, layout: "main" };
  }
  if (!entry.isFile()) throw unsafeLayout(top, "its .git is neither a directory nor a regular file");
  const bytes = readRegularFileSync(dotGit, MAX_GITFILE_BYTES + 1);
  if (bytes === undefined) throw unsafeLayout(top, "its .git file cannot be read");
  const parsed = parseGitfile(bytes);
  if (!parsed.ok) throw unsafeLayout(top, `its .git file is not one git can read (${parsed.problem})`);
  const named = exactUtf8(parsed.path);
  if (named === undefined) throw unsafeLayout(top, "its .git file names a path that is not valid UTF-8, which gitctx cannot pass to git exactly");
  // Real first, so that the checks below look where git looks (see gitRelative).
  const written = gitRelative(top, named);
  const target = realpathOr(written, written);
  if (!isGitDirectorySync(target)) {
    throw new GitctxError("not_a_repository", `${top} has a .git file naming ${target}, which is not a git directory (moved or deleted?).`, [
      "If it was a linked worktree whose repository moved, run `git worktree repair` in that repository; otherwise ",
      { setting: "root", value: "another directory" },
      ".",
    ]);
  }
  const gitDir = exactRealpath(target);
  if (!strict) return { topLevel: top, gitDir, commonDir: commonDirOfSync(gitDir), layout: "other" };
  const commondir = join(gitDir, "commondir");
  const commondirEntry = lstatQuietly(commondir);
  if (commondirEntry !== undefined) return linkedWorktree(top, gitDir, commondirEntry);
  return submodule(top, gitDir);
}

/** The common directory git uses for `gitDir` (its `commondir` file, else itself), resolved as git resolves it where it exists. */
export async function commonDirOf(gitDir: string): Promise<string> {
  return commonDirOfSync(gitDir);
}

function commonDirOfSync(gitDir: string): string {
  const pointer = readRegularFileSync(join(gitDir, "commondir"), 64 * 1024);
  const named = pointer === undefined ? undefined : exactUtf8(parseCommondir(pointer));
  if (named === undefined || named === "") return gitDir;
  const common = gitRelative(gitDir, named);
  return realpathOr(common, common);
}

/** A linked worktree: `<common>/worktrees/<id>`, whose `gitdir` file names this worktree's `.git`. */
function linkedWorktree(top: string, gitDir: string, commondirEntry: Stats): Found {
  if (!commondirEntry.isFile()) throw unsafeLayout(top, `${join(gitDir, "commondir")} is not a regular file`);
  const pointer = exactUtf8(parseCommondir(readRegularFileSync(join(gitDir, "commondir"), 64 * 1024) ?? Buffer.alloc(0)));
  if (pointer === undefined || pointer === "") throw unsafeLayout(top, `${join(gitDir, "commondir")} does not name a directory git can read exactly`);
  let commonDir: string;
  try {
    commonDir = exactRealpath(gitRelative(gitDir, pointer));
  } catch {
    throw unsafeLayout(top, `the common directory its git directory names (${pointer}) does not exist`);
  }
  if (dirname(gitDir) !== join(commonDir, "worktrees") || !isGitDirectorySync(commonDir)) {
    throw unsafeLayout(top, `its git directory ${gitDir} is not one of the linked worktrees of ${commonDir}`);
  }
  if (lstatQuietly(join(commonDir, "commondir")) !== undefined) {
    throw unsafeLayout(top, `the common directory ${commonDir} itself has a commondir file`);
  }
  const back = readRegularFileSync(join(gitDir, "gitdir"), 64 * 1024);
  const backPath = back === undefined ? undefined : exactUtf8(parseWorktreeGitdir(back));
  let backReal: string | undefined;
  try {
    backReal = backPath === undefined || backPath === "" ? undefined : exactRealpath(gitRelative(gitDir, backPath));
  } catch {
    backReal = undefined;
  }
  if (backReal !== join(top, ".git")) {
    throw unsafeLayout(top, `its git directory ${gitDir} belongs to another worktree (its gitdir file does not point back at ${join(top, ".git")})`);
  }
  return { topLevel: top, gitDir, commonDir, layout: "worktree" };
}

/** A submodule: its git directory lies under the `modules/` directory of the enclosing repository's git directory. */
function submodule(top: string, gitDir: string): Found {
  for (let dir = dirname(top); ; dir = dirname(dir)) {
    const enclosing = enclosingGitDirs(dir);
    if (enclosing !== undefined) {
      if (enclosing.some((candidate) => isInside(join(candidate, "modules"), gitDir) && gitDir !== join(candidate, "modules"))) {
        return { topLevel: top, gitDir, commonDir: gitDir, layout: "submodule" };
      }
      break;
    }
    if (dirname(dir) === dir) break;
  }
  throw unsafeLayout(
    top,
    `its .git file names ${gitDir}, which is neither a linked worktree nor a submodule of an enclosing repository ` +
      "(git init --separate-git-dir makes such layouts, and so does an archive that points into someone else's repository)",
  );
}

/** The git directory (and common directory) of the repository whose work tree is `dir`, or `undefined` when it is none. */
function enclosingGitDirs(dir: string): string[] | undefined {
  const dotGit = join(dir, ".git");
  const entry = lstatQuietly(dotGit);
  if (entry === undefined) return undefined;
  let gitDir: string | undefined;
  if (entry.isDirectory()) gitDir = dotGit;
  else if (entry.isFile()) {
    const parsed = parseGitfile(readRegularFileSync(dotGit, MAX_GITFILE_BYTES + 1) ?? Buffer.alloc(0));
    const named = parsed.ok ? exactUtf8(parsed.path) : undefined;
    if (named !== undefined) gitDir = realpathOr(gitRelative(dir, named), undefined);
  }
  if (gitDir === undefined) return [];
  return [...new Set([gitDir, commonDirOfSync(gitDir)])];
}

/**
 * git's `is_git_directory`: a valid HEAD (a `ref: refs/...` or an object id, or a `refs/...` symlink), and
 * `objects/` and `refs/` in its common directory. A HEAD that is something else than a file or a symlink (a
 * FIFO git would block on) is refused.
 */
export async function isGitDirectory(dir: string): Promise<boolean> {
  return isGitDirectorySync(dir);
}

function isGitDirectorySync(dir: string): boolean {
  const head = join(dir, "HEAD");
  const info = lstatQuietly(head);
  if (info === undefined) return false;
  if (info.isSymbolicLink()) {
    let target = "";
    try {
      target = readlinkSync(head);
    } catch {
      // Not a ref: not a git directory.
    }
    if (!target.startsWith("refs/")) return false;
  } else if (!info.isFile()) {
    throw new GitctxError("unsafe_repository", `${head} is not a regular file; git would block reading it.`, [
      "Remove it, or ",
      { setting: "root", value: "another directory" },
      ".",
    ]);
  } else if (!validHead(readRegularFileSync(head, 255)?.toString("latin1") ?? "")) {
    return false;
  }
  const pointer = readRegularFileSync(join(dir, "commondir"), 64 * 1024);
  const named = pointer === undefined ? undefined : exactUtf8(parseCommondir(pointer));
  // Not joined with path.join, which would drop `link/..` as text (see gitRelative): the system resolves it as git's does.
  const common = named === undefined ? dir : gitRelative(dir, named);
  const searchable = (path: string): boolean => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return searchable(`${common}/objects`) && searchable(`${common}/refs`);
}

/** `validate_headref`: `ref:`, white space, `refs/...`; or a hex object id. */
function validHead(text: string): boolean {
  const ref = /^ref:[ \t\n\v\f\r]*(.*)/s.exec(text);
  if (ref !== null && ref[1]!.startsWith("refs/")) return true;
  return /^[0-9a-f]{40}/i.test(text);
}

/**
 * A path named in a repository's file (a `.git` file, `commondir`, `gitdir`) as git resolves it: appended to the
 * directory it is relative to, then made real (`real_path`), so each symlink is followed before the `..` after it
 * applies. Node's `path.resolve` would drop `link/..` as text first and name another directory than git's.
 */
export function gitRelative(base: string, named: string): string {
  return isAbsolute(named) ? named : `${base}/${named}`;
}

/** The real path, refused when it is not valid UTF-8 (it could not be passed to git or the file system exactly). */
function exactRealpath(path: string): string {
  const bytes = realpathSync.native(path, { encoding: "buffer" });
  const text = exactUtf8(bytes);
  if (text === undefined) {
    throw new GitctxError(
      "unsafe_repository",
      `The path ${JSON.stringify(bytes.toString("utf8"))} is not valid UTF-8; gitctx cannot name it exactly to git.`,
      ["Rename the directory to a UTF-8 name, or ", { setting: "root", value: "another directory" }, "."],
    );
  }
  return text;
}

/**
 * Unless trusted, every part of the repository must belong to the user running gitctx: git's own ownership check
 * (`safe.directory`) covers the work tree, the `.git` file and the git directory; the common directory holds the
 * shared config and refs, so it is checked too.
 */
function checkOwnership(paths: RepositoryPaths, dotGit: Stats): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  checkRepository(paths, false);
  if (dotGit.uid !== uid) throw unsafeOwnership(join(paths.topLevel, ".git"));
}

function unsafeOwnership(path: string): GitctxError {
  return new GitctxError(
    "unsafe_repository",
    `The repository at ${path} belongs to another user; its config could make git run that user's programs.`,
    ["Only if you trust this repository, ", { setting: "trustRepository" }, "."],
  );
}

function unsafeLayout(top: string, why: string): GitctxError {
  return new GitctxError("unsafe_repository", `gitctx will not read the repository at ${top}: ${why}.`, [
    "gitctx reads only the layouts git itself creates: a .git directory, a linked worktree (git worktree add) or a submodule (git submodule update). ",
    { setting: "root", value: "such a repository" },
    ".",
  ]);
}

function insideGitDirectory(root: string, gitDir: string): GitctxError {
  if (gitDir.endsWith(`${sep}.git`)) {
    return new GitctxError("not_a_repository", `${root} is inside the git directory ${gitDir}, not in a working tree.`, [
      { setting: "root", value: `${dirname(gitDir)}, the working tree that contains it` },
      ".",
    ]);
  }
  return new GitctxError(
    "not_a_repository",
    root === gitDir
      ? `${root} is a bare repository: it has no working tree to inspect.`
      : `${root} is inside the bare repository ${gitDir}: it has no working tree to inspect.`,
    root === gitDir
      ? [{ setting: "root", value: "a checked-out working tree, e.g. a clone of this repository" }, "."]
      : [
          {
            setting: "root",
            value: `a checked-out working tree, e.g. a clone of this repository; git_log, git_show and git_blame with ref read the bare repository itself from ${gitDir}`,
          },
          ".",
        ],
  );
}

function notARepository(root: string, mountPoint?: string): GitctxError {
  return new GitctxError(
    "not_a_repository",
    `${root} is not inside a git repository${mountPoint === undefined ? "" : ` (the search stopped at the file system boundary ${mountPoint}, as git's does)`}.`,
    [{ setting: "root", value: "a directory inside a git working tree" }, ", or run `git init` there first."],
  );
}

/**
 * The repository found earlier must still be there, and, unless it is trusted, belong to the user running
 * gitctx: explicit `--git-dir` skips git's own ownership check, so gitctx repeats it on every call for the work
 * tree, the git directory and the common directory.
 */
export function checkRepository(paths: RepositoryPaths, trustRepository: boolean, stats = new StatOnce()): void {
  const uid = process.getuid?.();
  const dirs = paths.commonDir === paths.gitDir ? [paths.topLevel, paths.gitDir] : [paths.topLevel, paths.gitDir, paths.commonDir];
  // Synchronous, like the other checks every call makes: a local stat takes microseconds (see file-signature.ts).
  for (const dir of dirs) {
    const info = stats.stat(dir);
    if (info === undefined) {
      throw new GitctxError(
        "not_a_repository",
        `The repository at ${paths.topLevel} is gone: ${dir} no longer exists (moved or deleted since it was opened).`,
        [{ setting: "root", value: "an existing repository" }, "; the next call looks for it again."],
      );
    }
    if (!trustRepository && uid !== undefined && info.uid !== BigInt(uid)) throw unsafeOwnership(dir);
  }
}

/** `true` when `child` is `parent` or lies below it. Both must be resolved absolute paths. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}
