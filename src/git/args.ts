import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { quoteValue } from "../text.js";
import { isInside, type RepositoryPaths } from "./discover.js";
import { messageSearches, regexHazard } from "./regex.js";
import type { Repository } from "./repository.js";

const MAX_REF_LENGTH = 1024;

/**
 * Rejects a caller's revision before git sees it. A leading `-` must be refused on its own even though
 * `--end-of-options` follows: a hand-made ref file can literally be named `--output=x`.
 */
export function checkRevisionText(value: string, field: string): void {
  if (value.length === 0)
    throw new GitctxError("invalid_input", `${field} is empty.`, `Give ${field} as a commit hash, branch, tag or expression like HEAD~1.`);
  if (value.length > MAX_REF_LENGTH) throw new GitctxError("invalid_input", `${field} is longer than ${MAX_REF_LENGTH} characters.`);
  if (value.startsWith("-")) {
    throw new GitctxError(
      "invalid_input",
      `${field} "${value}" starts with "-": revisions cannot look like options.`,
      `Give ${field} as a commit hash, branch, tag or expression like HEAD~1.`,
    );
  }
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new GitctxError(
      "invalid_input",
      `${field} contains a control character (NUL, newline, tab...).`,
      `Give ${field} as a plain revision such as a hash or branch name.`,
    );
  }
  // `:/<regex>` and `<rev>^{/<regex>}` make git match a regular expression against every commit message.
  for (const search of messageSearches(value)) {
    const hazard = regexHazard(search, "extended");
    if (hazard === undefined) continue;
    throw new GitctxError(
      "invalid_input",
      `${field} ${quoteValue(value)} searches commit messages with a regular expression that ${hazard}.`,
      `Search without back-references (\\1) or long counted repetitions ({m,n}), or give ${field} as a hash, branch or tag (git_log with grep finds the commit).`,
    );
  }
}

/**
 * The expression that makes git peel a caller's revision to a commit: `<value>^{commit}`; but `:/<regex>` (the
 * youngest commit whose message matches) names a commit already, and a suffix would become part of the regex.
 */
export function commitExpression(value: string): string {
  return value.startsWith(":/") ? value : `${value}^{commit}`;
}

/** Resolves a caller's revision to the object id of a commit, or fails with `bad_revision`. */
export async function resolveCommit(repo: Repository, value: string, field: string): Promise<string> {
  checkRevisionText(value, field);
  const result = await repo.git("rev-parse", ["--verify", "-q", "--end-of-options", commitExpression(value)]);
  const oid = result.stdout.trim();
  if (result.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(oid)) throw await missingRevision(repo, value, field);
  return oid;
}

/**
 * The error for a revision that names no commit: {@link badRevision}, unless the current branch has no commits
 * yet, where every revision fails for that one reason and the hint to list commits would lead nowhere.
 */
export async function missingRevision(repo: Repository, value: string, field: string): Promise<GitctxError> {
  if ((await resolveHead(repo)) !== undefined) return badRevision(repo, value, field);
  return new GitctxError(
    "bad_revision",
    `${field} "${value}" does not name a commit: there are no commits yet on the current branch.`,
    "Commit first; until then git_status, and git_diff with staged=true, show what is staged.",
  );
}

/** A revision that names no commit; in a shallow clone, with the reason it may be beyond the boundary. */
export function badRevision(repo: Repository, value: string, field: string): GitctxError {
  const boundary = repo.shallowBoundary();
  if (boundary.length > 0) {
    return new GitctxError(
      "bad_revision",
      `${field} "${value}" does not name a commit in this repository. It is a shallow clone: history stops at ${boundary.length === 1 ? "the boundary commit" : `${boundary.length} boundary commits`} ${boundary
        .slice(0, 3)
        .map((oid) => oid.slice(0, 12))
        .join(", ")}, and older commits are not here.`,
      "Use git_log to see how far history goes; for older commits the user can run `git fetch --deepen=<n>` or `git fetch --unshallow`.",
    );
  }
  return new GitctxError(
    "bad_revision",
    `${field} "${value}" does not name a commit in this repository.`,
    "Use git_log to list commits, or give a branch, tag or hash that exists (e.g. HEAD, HEAD~1, main).",
  );
}

/** The object id of HEAD, or `undefined` when the current branch has no commits yet. */
export async function resolveHead(repo: Repository): Promise<string | undefined> {
  const result = await repo.git("rev-parse", ["--verify", "-q", "HEAD^{commit}"]);
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/** A caller path resolved inside the workspace. */
export interface WorkspacePath {
  /** As the caller wrote it. */
  input: string;
  /** Relative to the repository's top level, `/`-separated, as written (symlinks on the way kept); `.` for the top level itself. */
  pathspec: string;
  /** Absolute path on disk (symlinks in its directories resolved). */
  absolute: string;
  /** Whether something exists at that path in the working tree. */
  exists: boolean;
}

/**
 * Confines a caller path to the workspace root: relative to it, and inside it after resolving symlinks in
 * every existing component. The result reaches git only as a literal pathspec after `--`.
 */
export interface ResolveOptions {
  /**
   * `false` when the caller never reads through the final component (git_show reads the committed blob, and a
   * committed symlink's blob is its link text): a symlink there may point anywhere. Default `true`: refused when
   * its target leads out of the workspace.
   */
  confineLinkTarget?: boolean;
}

/**
 * Where a workspace is, for `resolveWorkspacePath`: an open `Repository`, or just the two directories when there
 * is none (`load_instructions` outside a repository passes the root as its own top level).
 */
export interface WorkspaceLocation {
  readonly paths: Pick<RepositoryPaths, "root" | "topLevel">;
}

export async function resolveWorkspacePath(
  repo: WorkspaceLocation,
  input: string,
  field = "path",
  options: ResolveOptions = {},
): Promise<WorkspacePath> {
  if (input.length === 0)
    throw new GitctxError(
      "invalid_input",
      `${field} is empty.`,
      `Omit ${field} for the whole workspace, or give a path relative to the workspace root.`,
    );
  if (/\u0000/.test(input)) throw new GitctxError("invalid_input", `${field} contains a NUL character.`);
  const { root, topLevel } = repo.paths;
  // gitctx shows bytes of a name that are not UTF-8 as U+FFFD: a name copied from such an answer names no file
  // (git would find nothing there and answer as if nothing changed), unless one really has that character.
  if (input.includes("\uFFFD") && (await lstat(resolve(root, input)).catch(() => undefined)) === undefined) {
    throw new GitctxError(
      "path_not_found",
      `${field} "${input}" contains U+FFFD, which gitctx shows in place of bytes of a name that are not UTF-8: such a name cannot be given back exactly.`,
      `Give the directory that holds the file as ${field} instead, or rename the file to a UTF-8 name.`,
    );
  }
  const outside = (): GitctxError =>
    new GitctxError(
      "path_outside_workspace",
      `${field} "${input}" is outside the workspace ${root}.`,
      "Give a path relative to the workspace root that stays inside it (no ../, no absolute paths elsewhere, no symlinks leading out).",
    );
  if (isAbsolute(input) && !isInside(root, resolve(input))) throw outside();
  const lexical = resolve(root, input);
  if (!isInside(root, lexical)) throw outside();

  // Resolve symlinks in the longest existing prefix; the rest (e.g. a deleted file) is appended as is.
  let existing = lexical;
  const missing: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch {
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  const exists = missing.length === 0;
  let real: string;
  try {
    if (exists && (await lstat(existing)).isSymbolicLink()) {
      // The link itself is in the workspace; git tracks links as links. Its target must not lead out either.
      const target = await realpath(existing).catch(() => undefined);
      if (options.confineLinkTarget !== false && target !== undefined && !isInside(root, target)) throw outside();
      real = join(await realpath(dirname(existing)), basename(existing));
    } else {
      real = join(await realpath(existing), ...missing);
    }
  } catch (error) {
    if (error instanceof GitctxError) throw error;
    // A symlink loop (ELOOP) or a link to nothing on the way: the path leads nowhere a read could go.
    throw new GitctxError(
      "path_not_found",
      `${field} "${input}" cannot be followed: ${(error as NodeJS.ErrnoException).code ?? "error"} (a symbolic link loop, or a link to nothing, on the way).`,
      "Give a path that exists in the workspace, or fix the symbolic links on the way to it.",
    );
  }
  if (!isInside(root, real)) throw outside();

  // git names the path as written: `old/f` with `old` a symlink to `new` is `old/f` in every commit (and deleted
  // in the work tree), never `new/f`. The real path's spelling is taken only where it differs from the written one
  // in letter case alone (a case-insensitive file system gives the path as it is stored).
  const throughLink = real !== lexical && real.toLowerCase() !== lexical.toLowerCase();
  const rel = relative(topLevel, throughLink ? lexical : real);
  const pathspec = rel === "" ? "." : rel.split(sep).join("/");
  return { input, pathspec, absolute: real, exists };
}
