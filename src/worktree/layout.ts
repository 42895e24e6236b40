/**
 * Where a repository's worktrees go and what gitctx may write for them: `<main checkout>/.claude/worktrees/<name>`
 * by default, made ignored through `info/exclude` (never the user's `.gitignore`). The settings come from the
 * caller, and from the project's `.claude/settings.json` (its `worktree` object) only when the caller allows it.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { isInside, type RepositoryPaths } from "../git/discover.js";
import { readRegularFile } from "../git/read-file.js";
import { lstatQuietly } from "../git/stat-quietly.js";
import { permits, type PermissionMode } from "../types.js";
import { checkBranchPrefix, DEFAULT_BRANCH_PREFIX } from "./names.js";

export const DEFAULT_WORKTREES_DIRECTORY = ".claude/worktrees";
export const DEFAULT_SYMLINK_DIRECTORIES: readonly string[] = ["node_modules", ".venv", "vendor"];

/** How gitctx makes worktrees. Every field has a default. */
export interface WorktreeSettings {
  /** Where worktrees go: relative to the main checkout, or absolute. Default `.claude/worktrees`. */
  directory?: string;
  /** Prefix of the branch made for each worktree. Default `worktree-`. */
  branchPrefix?: string;
  /** Directories of the main checkout linked (not copied) into each worktree when present. Default node_modules, .venv, vendor. */
  symlinkDirectories?: readonly string[];
  /** Check out only these directories (cone mode). Default: everything. */
  sparsePaths?: readonly string[];
  /** Copy the gitignored files that `.worktreeinclude` selects. Default true. */
  copyIncluded?: boolean;
  /** Copy `.claude/settings*.json` when the worktree lacks them. Default true. */
  copySettings?: boolean;
  /** Check out submodules from the repository's own `.git/modules` (never the network). Default true. */
  initSubmodules?: boolean;
  /**
   * Also read `symlinkDirectories` and `sparsePaths` from the `worktree` object of the project's
   * `.claude/settings.json` (a file anyone who can commit may change). Options given here win. Default false.
   */
  projectSettings?: boolean;
}

export interface ResolvedSettings {
  directory: string;
  branchPrefix: string;
  symlinkDirectories: string[];
  sparsePaths: string[];
  copyIncluded: boolean;
  copySettings: boolean;
  initSubmodules: boolean;
}

/** Where a repository's worktrees live. */
export interface WorktreeLayout {
  /** The repository's main checkout (the work tree of its common directory). */
  mainTop: string;
  commonDir: string;
  /** The worktrees directory, absolute. */
  directory: string;
  settings: ResolvedSettings;
}

/** The main checkout of the repository `paths` belongs to. */
export function mainCheckout(paths: RepositoryPaths): string {
  if (paths.layout !== "worktree") return paths.topLevel;
  // A linked worktree's common directory is the main checkout's `.git`, unless the repository is bare.
  if (basename(paths.commonDir) === ".git") return dirname(paths.commonDir);
  throw new GitctxError(
    "invalid_input",
    `The repository ${paths.commonDir} has no main checkout (it is bare), so gitctx has no place for its worktrees by default.`,
    "Give the worktrees directory as an absolute path (settings.directory), or work from a non-bare clone.",
  );
}

export async function resolveLayout(paths: RepositoryPaths, settings: WorktreeSettings = {}): Promise<WorktreeLayout> {
  const mainTop = mainCheckout(paths);
  const project = settings.projectSettings === true ? await readProjectSettings(mainTop) : {};
  const resolved: ResolvedSettings = {
    directory: settings.directory ?? DEFAULT_WORKTREES_DIRECTORY,
    branchPrefix: settings.branchPrefix ?? DEFAULT_BRANCH_PREFIX,
    symlinkDirectories: [...(settings.symlinkDirectories ?? project.symlinkDirectories ?? DEFAULT_SYMLINK_DIRECTORIES)],
    sparsePaths: [...(settings.sparsePaths ?? project.sparsePaths ?? [])],
    copyIncluded: settings.copyIncluded ?? true,
    copySettings: settings.copySettings ?? true,
    initSubmodules: settings.initSubmodules ?? true,
  };
  checkBranchPrefix(resolved.branchPrefix);
  for (const dir of resolved.symlinkDirectories) checkRelativePath(dir, "symlinkDirectories");
  for (const dir of resolved.sparsePaths) checkRelativePath(dir, "sparsePaths");
  if (resolved.directory === "")
    throw new GitctxError("invalid_input", "The worktrees directory is empty.", `Omit it for ${DEFAULT_WORKTREES_DIRECTORY}.`);
  const directory = resolve(mainTop, resolved.directory);
  for (const gitDir of new Set([paths.gitDir, paths.commonDir])) {
    if (isInside(gitDir, directory)) {
      throw new GitctxError(
        "invalid_input",
        `The worktrees directory ${directory} is inside the git directory ${gitDir}.`,
        `Use a directory of the checkout, such as ${DEFAULT_WORKTREES_DIRECTORY}.`,
      );
    }
  }
  if (directory === mainTop)
    throw new GitctxError(
      "invalid_input",
      "The worktrees directory cannot be the main checkout itself.",
      `Use a directory inside it, such as ${DEFAULT_WORKTREES_DIRECTORY}.`,
    );
  return { mainTop, commonDir: paths.commonDir, directory, settings: resolved };
}

/** A path the settings name inside a checkout: relative, without `..`, not into `.git`. */
function checkRelativePath(path: string, field: string): void {
  const parts = path.split(/[/\\]/).filter((part) => part !== "" && part !== ".");
  if (
    path === "" ||
    isAbsolute(path) ||
    parts.length === 0 ||
    parts.includes("..") ||
    parts.some((p) => p.toLowerCase() === ".git") ||
    /[\u0000]/.test(path)
  ) {
    throw new GitctxError(
      "invalid_input",
      `${field} entry ${JSON.stringify(path)} is not a path inside the checkout.`,
      "Give paths relative to the checkout's top level, without .. and outside .git, e.g. node_modules.",
    );
  }
}

/** The `worktree` object of `.claude/settings.json`; what is not understood is left out. */
async function readProjectSettings(mainTop: string): Promise<{ symlinkDirectories?: string[]; sparsePaths?: string[] }> {
  const bytes = await readRegularFile(join(mainTop, ".claude", "settings.json"), 1024 * 1024);
  if (bytes === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new GitctxError(
      "invalid_input",
      `${join(mainTop, ".claude", "settings.json")} is not valid JSON, so its worktree settings cannot be read.`,
      "Fix the file, or do not ask for project settings.",
    );
  }
  const worktree = (parsed as { worktree?: unknown } | null)?.worktree;
  if (typeof worktree !== "object" || worktree === null) return {};
  const list = (value: unknown): string[] | undefined =>
    Array.isArray(value) && value.every((item) => typeof item === "string") ? (value as string[]) : undefined;
  const w = worktree as Record<string, unknown>;
  const result: { symlinkDirectories?: string[]; sparsePaths?: string[] } = {};
  const links = list(w.symlinkDirectories);
  const sparse = list(w.sparsePaths);
  if (links !== undefined) result.symlinkDirectories = links;
  if (sparse !== undefined) result.sparsePaths = sparse;
  return result;
}

/**
 * `workspace-write` writes only inside the repository the session started in: its main checkout (the worktrees
 * directory included) and its git directory. A worktrees directory elsewhere needs `danger-full-access`.
 */
export function checkWritable(layout: WorktreeLayout, mode: PermissionMode, what: string): void {
  if (!permits(mode, "workspace-write")) {
    throw new GitctxError(
      "permission_denied",
      `${what} writes to the repository; this runs in ${mode} mode.`,
      'Use mode "workspace-write" (CLI: --mode workspace-write).',
    );
  }
  if (mode === "danger-full-access" || isInside(layout.mainTop, layout.directory)) return;
  throw new GitctxError(
    "permission_denied",
    `${what} would write to ${layout.directory}, outside the repository at ${layout.mainTop}; workspace-write mode writes only inside it.`,
    'Keep the worktrees directory inside the checkout (the default is .claude/worktrees), or use mode "danger-full-access" (CLI: --mode danger-full-access).',
  );
}

/**
 * Refuses a worktrees directory reached through a symlink (a committed `.claude -> /elsewhere` would make gitctx
 * write wherever it points), then creates what is missing of it.
 */
export async function prepareDirectory(layout: WorktreeLayout): Promise<void> {
  const start = isInside(layout.mainTop, layout.directory) ? layout.mainTop : dirname(layout.directory);
  const parts = relative(start, layout.directory)
    .split(sep)
    .filter((part) => part !== "");
  let current = start;
  for (const part of parts) {
    current = join(current, part);
    const info = lstatQuietly(current);
    if (info === undefined) {
      await mkdir(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      const made = await lstat(current);
      if (!made.isDirectory()) throw symlinkedDirectory(current, layout);
      continue;
    }
    if (!info.isDirectory()) throw symlinkedDirectory(current, layout);
  }
}

function symlinkedDirectory(path: string, layout: WorktreeLayout): GitctxError {
  return new GitctxError(
    "unsafe_repository",
    `${path} is a symbolic link or not a directory: gitctx will not put worktrees (${layout.directory}) where a link could lead.`,
    "Remove the link (or the file) there, or choose another worktrees directory.",
  );
}

/**
 * Makes the worktrees directory ignored through `<common>/info/exclude`, which every worktree of the repository
 * reads and no commit carries; the user's `.gitignore` is never edited. Nothing is written when the line is there,
 * when the directory is outside the checkout, or when `info/exclude` is a link (it could point anywhere).
 */
export async function excludeDirectory(layout: WorktreeLayout): Promise<string | undefined> {
  if (!isInside(layout.mainTop, layout.directory)) return undefined;
  const line = `/${relative(layout.mainTop, layout.directory).split(sep).map(escapePattern).join("/")}/`;
  const info = join(layout.commonDir, "info");
  const file = join(info, "exclude");
  const existing = lstatQuietly(file);
  if (existing !== undefined && !existing.isFile()) return `Did not add ${line} to ${file}: it is not a regular file.`;
  const text = existing === undefined ? "" : ((await readRegularFile(file, 4 * 1024 * 1024))?.toString("utf8") ?? "");
  if (text.split("\n").some((candidate) => candidate.trim() === line)) return undefined;
  await mkdir(info, { recursive: true });
  const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.appendFile(`${text === "" || text.endsWith("\n") ? "" : "\n"}# gitctx worktrees\n${line}\n`);
  } finally {
    await handle.close();
  }
  return undefined;
}

/**
 * A link the main checkout's `.gitignore` means to ignore (`node_modules/`) is still shown by git in the worktree,
 * since a pattern with a trailing slash matches only directories and the link is not one; an agent could commit
 * it. So each linked directory the main checkout ignores gets an anchored pattern (`/node_modules`) in
 * `info/exclude`, which changes nothing in the main checkout, where the directory is ignored already. git is
 * asked (one `ls-files`) only for lines not there yet. A directory the main checkout does not ignore stays visible.
 */
export async function excludeLinks(
  layout: WorktreeLayout,
  links: ReadonlyArray<{ path: string }>,
  main: () => Promise<{ git(subcommand: string, args: string[]): Promise<{ exitCode: number | null; stdout: string; stderr: string }> }>,
): Promise<string | undefined> {
  if (links.length === 0) return undefined;
  const file = join(layout.commonDir, "info", "exclude");
  const existing = lstatQuietly(file);
  if (existing !== undefined && !existing.isFile()) return undefined;
  const text = existing === undefined ? "" : ((await readRegularFile(file, 4 * 1024 * 1024))?.toString("utf8") ?? "");
  const present = new Set(text.split("\n").map((line) => line.trim()));
  const pattern = (path: string): string => `/${path.split("/").map(escapePattern).join("/")}`;
  const missing = links.filter((link) => !present.has(pattern(link.path)));
  if (missing.length === 0) return undefined;
  // (`check-ignore` refuses literal pathspecs, which every gitctx git uses: ls-files answers the same question.)
  const checked = await (await main()).git("ls-files", [
    "-z",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--directory",
    "--",
    ...missing.map((link) => link.path),
  ]);
  if (checked.exitCode !== 0) return undefined;
  const ignored = new Set(
    checked.stdout
      .split("\0")
      .filter((path) => path !== "")
      .map((path) => path.replace(/\/$/, "")),
  );
  const lines = missing.filter((link) => ignored.has(link.path)).map((link) => pattern(link.path));
  if (lines.length === 0) return undefined;
  await mkdir(dirname(file), { recursive: true });
  const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.appendFile(
      `${text === "" || text.endsWith("\n") ? "" : "\n"}# gitctx: links to the main checkout's ignored directories\n${lines.join("\n")}\n`,
    );
  } finally {
    await handle.close();
  }
  return undefined;
}

/** A path component as a literal gitignore pattern. */
function escapePattern(part: string): string {
  return part.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/^ | $/g, (c) => `\\${c}`);
}
