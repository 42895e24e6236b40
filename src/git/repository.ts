import { copyFile, readFile, realpath, rm, stat, utimes } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { scratchDirectory, type GitCallOptions, type GitLocation, type GitRunner, type ProcessResult } from "./run.js";

/** Where the repository of a workspace lives. Paths are real (symlinks resolved). */
export interface RepositoryPaths {
  /** The workspace root the caller gave, resolved. Caller paths are relative to it and confined to it. */
  root: string;
  /** The top level of the work tree containing `root`. */
  topLevel: string;
  /** The repository's git directory (for a linked worktree, its own one under the common directory). */
  gitDir: string;
}

/**
 * Finds the repository containing `root`. Git's own discovery runs once here (it walks up from `root` and
 * applies its ownership check); every later git process gets `--git-dir`/`--work-tree` explicitly.
 */
export async function discoverRepository(
  runner: GitRunner,
  root: string,
  trustRepository: boolean,
): Promise<RepositoryPaths> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    throw new GitctxError("not_a_repository", `The workspace root ${root} does not exist.`, "Pass an existing directory as root.");
  }
  if (!(await stat(realRoot)).isDirectory()) {
    throw new GitctxError("not_a_repository", `The workspace root ${root} is not a directory.`, "Pass a directory as root.");
  }
  const args = ["--no-pager", "-c", "safe.bareRepository=explicit", "-c", "core.fsmonitor=false"];
  if (trustRepository) args.push("-c", "safe.directory=*");
  args.push("rev-parse", "--path-format=absolute", "--git-dir", "--show-toplevel");
  const result = await runner.discover(realRoot, args);
  if (result.stopped === "timeout") throw timeoutError("git rev-parse (finding the repository)", runner.timeoutMs);
  if (result.spawnError !== undefined) throw spawnFailure(result.spawnError);
  if (result.exitCode !== 0) throw discoveryError(realRoot, result);

  const [gitDir, topLevel] = result.stdout.replace(/\n$/, "").split("\n");
  if (gitDir === undefined || topLevel === undefined || topLevel === "") {
    throw new GitctxError(
      "not_a_repository",
      `${realRoot} is inside a git directory or a bare repository, not a work tree.`,
      "Point root at a checked-out working tree (the directory that contains .git).",
    );
  }
  const paths = { root: realRoot, topLevel: await realpath(topLevel), gitDir: await realpath(gitDir) };
  if ((await dotGitTarget(paths.topLevel)) !== paths.gitDir) {
    // `core.worktree` (set in a config file anyone could have written, e.g. in an unpacked archive) can point the
    // work tree at any directory, such as `/` or the user's home: git would then diff and list files far outside
    // the workspace against an index the config's author chose. gitctx only reads the work tree that holds the
    // repository's own `.git`. Trust does not lift this: ownership and confinement are different promises.
    throw new GitctxError(
      "unsafe_repository",
      `The repository's config points its work tree at ${paths.topLevel}, which does not hold its git directory ${paths.gitDir} (core.worktree); gitctx will not read files there.`,
      "Inspect the repository's config: if core.worktree is not intended, remove it (git config --unset core.worktree).",
    );
  }
  if (!isInside(paths.topLevel, paths.root)) {
    // `core.worktree` can point the work tree anywhere; gitctx only reads the tree that contains the root.
    throw new GitctxError(
      "unsafe_repository",
      `The repository's work tree (${paths.topLevel}) does not contain the workspace root ${paths.root}; its config sets core.worktree elsewhere.`,
      "Inspect the repository's config (core.worktree) before trusting it.",
    );
  }
  return paths;
}

function discoveryError(root: string, result: ProcessResult): GitctxError {
  const stderr = result.stderr;
  if (/detected dubious ownership/.test(stderr)) {
    return unsafeOwnership(root);
  }
  const bare = /cannot use bare repository '(.*)' \(safe\.bareRepository/.exec(stderr);
  if (bare !== null && basename(bare[1]!) === ".git") {
    return new GitctxError(
      "not_a_repository",
      `${root} is inside the git directory ${bare[1]}, not in a working tree.`,
      `Point root at ${dirname(bare[1]!)}, the working tree that contains it.`,
    );
  }
  if (bare !== null) {
    return new GitctxError(
      "not_a_repository",
      `${root} is a bare repository: it has no working tree to inspect.`,
      "Point root at a checked-out working tree, e.g. a clone of this repository.",
    );
  }
  if (/not a git repository/i.test(stderr)) {
    return new GitctxError(
      "not_a_repository",
      `${root} is not inside a git repository.`,
      "Point root at a directory inside a git working tree, or run `git init` there first.",
    );
  }
  return new GitctxError("git_failed", `git could not open the repository at ${root}: ${firstLine(stderr)}`);
}

/** The error for a git process the runner stopped at its time limit. */
export function timeoutError(what: string, timeoutMs: number): GitctxError {
  return new GitctxError(
    "timeout",
    `${what} did not finish within ${timeoutMs} ms and was stopped.`,
    "Narrow the request (a path, a smaller count or range), or create the toolbox with a larger timeoutMs.",
  );
}

function spawnFailure(error: NodeJS.ErrnoException): GitctxError {
  return new GitctxError("git_failed", `git could not be started: ${error.message}`);
}

/** What an aborted call rejects with: the signal's own reason, as `AbortSignal.throwIfAborted` would. */
function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/**
 * The git directory that the `.git` entry of `dir` leads to (a directory, or a `gitdir:` file as in linked
 * worktrees and submodules), resolved; `undefined` when there is none.
 */
export async function dotGitTarget(dir: string): Promise<string | undefined> {
  const dotGit = join(dir, ".git");
  try {
    const info = await stat(dotGit);
    if (info.isDirectory()) return await realpath(dotGit);
    if (!info.isFile()) return undefined;
    const match = /^gitdir: (.*?)[\r\n]*$/.exec((await readFile(dotGit, "utf8")).split("\n")[0] ?? "");
    if (match === null || match[1] === "") return undefined;
    return await realpath(resolve(dir, match[1]!));
  } catch {
    return undefined;
  }
}

function unsafeOwnership(path: string): GitctxError {
  return new GitctxError(
    "unsafe_repository",
    `The repository at ${path} belongs to another user; its config could make git run that user's programs.`,
    "Only if you trust this repository, create the toolbox with trustRepository: true (CLI: --trust-repository).",
  );
}

/**
 * Explicit `--git-dir` skips git's own ownership check, so gitctx repeats it on every call: the work tree and
 * the git directory must belong to the user running gitctx.
 */
export async function checkOwnership(paths: RepositoryPaths): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  for (const path of [paths.topLevel, paths.gitDir]) {
    const owner = (await stat(path)).uid;
    if (owner !== uid) throw unsafeOwnership(path);
  }
}

/** `true` when `child` is `parent` or lies below it. Both must be resolved absolute paths. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

export function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

/**
 * One tool call's view of a repository: its paths and the filter drivers its config defines right now.
 * The filter scan runs for every call because a checkout can change an included config file at any time.
 */
export class Repository {
  /** The private copy of the index `git diff` runs with, made on first need; `undefined` inside: no index. */
  private privateIndex: Promise<{ dir: string; file: string } | undefined> | undefined;

  private constructor(
    readonly paths: RepositoryPaths,
    private readonly runner: GitRunner,
    readonly filterDrivers: readonly string[],
    private readonly signal: AbortSignal | undefined,
  ) {}

  static async open(
    runner: GitRunner,
    paths: RepositoryPaths,
    trustRepository: boolean,
    signal?: AbortSignal,
  ): Promise<Repository> {
    if (!trustRepository) await checkOwnership(paths);
    const drivers = await scanFilterDrivers(runner, paths, signal);
    return new Repository(paths, runner, drivers, signal);
  }

  /**
   * Runs a hardened git subcommand in this repository, cwd at the top level. A process stopped by the time
   * limit fails the call with `timeout`; one stopped by the caller's signal rejects with the signal's reason.
   */
  async git(subcommand: string, args: string[], options: GitCallOptions = {}): Promise<ProcessResult> {
    const signal = options.signal ?? this.signal;
    const location: GitLocation = {
      gitDir: this.paths.gitDir,
      workTree: this.paths.topLevel,
      cwd: this.paths.topLevel,
      filterDrivers: this.filterDrivers,
    };
    if (subcommand === "diff" && diffReadsWorkTree(args)) {
      // `git diff` against the working tree writes a refreshed index back (taking index.lock, so a user's
      // `git commit` at that moment fails) even with GIT_OPTIONAL_LOCKS=0 on git 2.39. Give it a copy.
      this.privateIndex ??= copyIndex(this.paths.gitDir);
      const copy = await this.privateIndex;
      if (copy !== undefined) location.indexFile = copy.file;
    }
    return runChecked(this.runner, location, subcommand, args, signal === undefined ? options : { ...options, signal });
  }

  /** Removes what this call made (the private index copy). Safe to call more than once. */
  async dispose(): Promise<void> {
    const copy = await this.privateIndex?.catch(() => undefined);
    this.privateIndex = undefined;
    if (copy !== undefined) await rm(copy.dir, { recursive: true, force: true });
  }
}

/**
 * Whether `git diff <args>` compares against the working tree (and may so refresh and write the index): not
 * with `--cached`/`--staged`, and not between two commits. Errs towards yes.
 */
export function diffReadsWorkTree(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  const before = end === -1 ? args : args.slice(0, end);
  if (before.includes("--cached") || before.includes("--staged")) return false;
  const revisions = before.filter((arg) => !arg.startsWith("-"));
  return revisions.length === 0 || (revisions.length === 1 && !revisions[0]!.includes(".."));
}

/**
 * A private copy of the repository's index, or `undefined` when it has none. git treats entries changed at or
 * after the index file's own mtime as possibly modified ("racily clean") and re-reads them, so the copy takes
 * the original's mtime rounded down: it may look older than the original, never newer.
 */
async function copyIndex(gitDir: string): Promise<{ dir: string; file: string } | undefined> {
  const source = join(gitDir, "index");
  let mtime: number;
  try {
    mtime = Math.floor((await stat(source)).mtimeMs / 1000);
  } catch {
    return undefined;
  }
  const dir = await scratchDirectory();
  const file = join(dir, "index");
  try {
    await copyFile(source, file);
  } catch {
    await rm(dir, { recursive: true, force: true });
    return undefined; // Gone since: nothing to refresh either.
  }
  await utimes(file, mtime, mtime);
  return { dir, file };
}

async function runChecked(
  runner: GitRunner,
  location: GitLocation,
  subcommand: string,
  args: string[],
  options: GitCallOptions,
): Promise<ProcessResult> {
  const result = await runner.run(location, subcommand, args, options);
  if (result.stopped === "aborted") throw abortReason(options.signal);
  if (result.stopped === "timeout") throw timeoutError(`git ${subcommand}`, runner.timeoutMs);
  if (result.spawnError !== undefined) throw spawnFailure(result.spawnError);
  return result;
}

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
async function scanFilterDrivers(runner: GitRunner, paths: RepositoryPaths, signal: AbortSignal | undefined): Promise<string[]> {
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
