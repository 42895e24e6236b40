/** Finding the repository of a workspace, and the checks that decide whether gitctx may read it. */
import { readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { firstLine, spawnFailure, timeoutError } from "./failures.js";
import type { GitRunner, ProcessResult } from "./run.js";

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
 * The repository found earlier must still be there, and, unless it is trusted, belong to the user running
 * gitctx: explicit `--git-dir` skips git's own ownership check, so gitctx repeats it on every call for the work
 * tree and the git directory.
 */
export async function checkRepository(paths: RepositoryPaths, trustRepository: boolean): Promise<void> {
  const uid = process.getuid?.();
  for (const path of [paths.topLevel, paths.gitDir]) {
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) {
      throw new GitctxError(
        "not_a_repository",
        `The repository at ${paths.topLevel} is gone: ${path} no longer exists (moved or deleted since it was opened).`,
        "Point root at an existing repository; the next call looks for it again.",
      );
    }
    if (!trustRepository && uid !== undefined && info.uid !== uid) throw unsafeOwnership(path);
  }
}

/** `true` when `child` is `parent` or lies below it. Both must be resolved absolute paths. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}
