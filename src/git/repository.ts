import { realpath, stat } from "node:fs/promises";
import { relative, sep } from "node:path";
import { GitctxError } from "../errors.js";
import type { GitCallOptions, GitRunner, ProcessResult } from "./run.js";

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
  if (/cannot use bare repository/.test(stderr)) {
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
    const bare = new Repository(paths, runner, [], signal);
    // `--name-only` lists keys only; includes are followed, so a tracked file turned into config is covered.
    const listed = await bare.git("config", ["--list", "--name-only", "-z"]);
    const drivers = listed.exitCode === 0 ? filterDriverNames(listed.stdout) : [];
    return new Repository(paths, runner, drivers, signal);
  }

  /** Runs a hardened git subcommand in this repository, cwd at the top level. */
  git(subcommand: string, args: string[], options: GitCallOptions = {}): Promise<ProcessResult> {
    const signal = options.signal ?? this.signal;
    return this.runner.run(
      {
        gitDir: this.paths.gitDir,
        workTree: this.paths.topLevel,
        cwd: this.paths.topLevel,
        filterDrivers: this.filterDrivers,
      },
      subcommand,
      args,
      signal === undefined ? options : { ...options, signal },
    );
  }
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
