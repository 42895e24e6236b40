/**
 * What a new worktree gets besides its checkout, all from the main checkout and never through a link: symlinks to
 * heavy directories (`node_modules`, `.venv`, `vendor`), so nothing is installed twice; copies of the gitignored
 * files `.worktreeinclude` selects (an `.env`, say); and the agent's `.claude/settings*.json`. Nothing tracked is
 * copied, nothing is overwritten, no path leads out of either checkout.
 */
import { constants } from "node:fs";
import { copyFile, lstat, mkdir, readlink, realpath, symlink, unlink } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { isInside } from "../git/discover.js";
import { gitFailure } from "../git/failures.js";
import { exactUtf8 } from "../git/parse/gitfile.js";
import { readRegularFile } from "../git/read-file.js";
import type { Repository } from "../git/repository.js";
import { lstatQuietly, statQuietly } from "../git/stat-quietly.js";
import type { WorktreeCopy, WorktreeLink } from "./record.js";

/** Most files `.worktreeinclude` may bring into one worktree; past it the rest is named as left out. */
export const MAX_INCLUDED_FILES = 10_000;
const SETTINGS_FILES = ["settings.json", "settings.local.json"];
const toPosix = (path: string): string => path.split(sep).join("/");

/**
 * The links to make: each configured directory that is a directory in the main checkout and absent from the new
 * worktree (a tracked `vendor/` is checked out there, so it is left alone and said so).
 */
export async function planLinks(mainTop: string, worktree: string, directories: readonly string[], notes: string[]): Promise<WorktreeLink[]> {
  const links: WorktreeLink[] = [];
  for (const dir of directories) {
    const source = join(mainTop, dir);
    const info = statQuietly(source);
    if (info?.isDirectory() !== true) continue;
    if (lstatQuietly(join(worktree, dir)) !== undefined) {
      notes.push(`Did not link ${dir}: the worktree has its own (it is tracked).`);
      continue;
    }
    links.push({ path: toPosix(dir), target: source });
  }
  return links;
}

/** Creates the planned links; one that cannot be made is reported and left out of the returned list. */
export async function createLinks(worktree: string, planned: readonly WorktreeLink[], notes: string[]): Promise<WorktreeLink[]> {
  const made: WorktreeLink[] = [];
  for (const link of planned) {
    const at = join(worktree, link.path);
    const parent = await safeParent(worktree, at);
    if (parent === undefined) {
      notes.push(`Did not link ${link.path}: a directory on the way is a symbolic link or a file.`);
      continue;
    }
    try {
      await symlink(link.target, at, "dir");
      made.push(link);
    } catch (error) {
      notes.push(`Did not link ${link.path}: ${(error as Error).message}.`);
    }
  }
  if (made.length > 0) {
    notes.push(
      `Linked ${made.map((link) => link.path).join(", ")} to the main checkout's (shared, not copied; removing the worktree unlinks them and leaves them intact).`,
    );
  }
  return made;
}

/**
 * Creates the directories from `root` down to the parent of `path` as needed, refusing any that is a link or a
 * file; returns the parent, or `undefined` when the way is not made of real directories inside `root`.
 */
async function safeParent(root: string, path: string): Promise<string | undefined> {
  const parts = relative(root, path).split(sep).slice(0, -1);
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    const info = lstatQuietly(current);
    if (info === undefined) {
      try {
        await mkdir(current);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
      }
      if (!(await lstat(current)).isDirectory()) return undefined;
    } else if (!info.isDirectory()) {
      return undefined;
    }
  }
  return current;
}

/** Whether every directory from `root` down to the parent of `rel` is a real directory, not a link. */
function realDirectories(root: string, rel: string): boolean {
  let current = root;
  for (const part of rel.split(/[/\\]/).slice(0, -1)) {
    current = join(current, part);
    if (lstatQuietly(current)?.isDirectory() !== true) return false;
  }
  return true;
}

/** Below this size a file is copied whatever its allocation (small files' blocks say little). */
const SPARSE_CHECK_BYTES = 1024 * 1024;

/**
 * Whether a file has far fewer bytes on disk than its size: a sparse file, which a repository unpacked from an
 * archive can make terabytes large for nothing. A copy writes every byte of it (Node's copyFile keeps no holes): a
 * sparse `.env.big` that `.worktreeinclude` selects would fill the disk and hold the call for as long.
 */
function isSparse(info: { size: number; blocks: number }): boolean {
  return info.size > SPARSE_CHECK_BYTES && info.blocks * 512 < info.size / 2;
}

/**
 * Copies one regular file, never over an existing one; `undefined` when it was not copied, `"sparse"` when it was
 * left out for being sparse (see isSparse).
 */
async function copyOne(fromRoot: string, toRoot: string, rel: string): Promise<WorktreeCopy | "sparse" | undefined> {
  const source = join(fromRoot, rel);
  // Reached through no link: an untracked `.claude` linking to the user's own `~/.claude` (a file an archive can
  // hold) would otherwise copy the settings there, with whatever keys they hold, into the worktree.
  if (!realDirectories(fromRoot, rel)) return undefined;
  const info = lstatQuietly(source);
  if (info?.isFile() !== true) return undefined;
  if (isSparse(info)) return "sparse";
  const dest = join(toRoot, rel);
  if ((await safeParent(toRoot, dest)) === undefined) return undefined;
  try {
    await copyFile(source, dest, constants.COPYFILE_EXCL);
  } catch {
    return undefined; // There already (never overwritten), or unreadable.
  }
  const copied = await lstat(dest);
  return { path: toPosix(rel), size: copied.size, mtimeMs: copied.mtimeMs };
}

/** `.claude/settings.json` and `.claude/settings.local.json`, when the main checkout has them and the worktree does not. */
export async function copySettings(mainTop: string, worktree: string, notes: string[]): Promise<WorktreeCopy[]> {
  const copies: WorktreeCopy[] = [];
  for (const file of SETTINGS_FILES) {
    const rel = join(".claude", file);
    if (lstatQuietly(join(worktree, rel)) !== undefined) continue;
    const copy = await copyOne(mainTop, worktree, rel);
    if (copy === "sparse") notes.push(sparseNote([toPosix(rel)]));
    else if (copy !== undefined) copies.push(copy);
  }
  if (copies.length > 0) notes.push(`Copied ${copies.map((copy) => copy.path).join(", ")} from the main checkout.`);
  return copies;
}

/**
 * The gitignored files of the main checkout that `.worktreeinclude` (gitignore syntax) matches, copied into the
 * worktree: only untracked, ignored files (git lists them), never a symlink, never inside another worktree, a
 * nested repository or a linked directory.
 *
 * git matches the patterns (`ls-files --others --ignored --exclude=<pattern>...`), in a process with a timeout:
 * they are the repository's, and a regex-compiling matcher (the `ignore` package) backtracks without end on one such
 * as `** /a/** /a/** /a/** /a/** /a/** /a/** /a/** /a/** /b` (without the spaces) against an ignored file 60 directories
 * deep, holding the main thread for hours. git's own matcher is the one the syntax is defined by.
 */
export async function copyIncluded(
  main: Repository,
  worktree: string,
  options: { worktreesDirectory: string; linked: readonly string[] },
  notes: string[],
): Promise<WorktreeCopy[]> {
  const mainTop = main.paths.topLevel;
  const text = await readRegularFile(join(mainTop, ".worktreeinclude"), 1024 * 1024);
  if (text === undefined) return [];
  const patterns = includePatterns(text.toString("utf8"));
  if (patterns.length === 0) return [];
  const listed = await main.git("ls-files", ["-z", "--others", "--ignored", "--exclude-standard", "--directory"]);
  if (listed.exitCode !== 0) throw gitFailure("git ls-files --others --ignored", listed.stderr);
  // What the repository's own rules ignore: files, and directories (with a trailing `/`) ignored whole.
  const ignored = new Set(listed.bytes.toString("latin1").split("\0"));
  const isIgnored = (latin1: string): boolean => {
    if (ignored.has(latin1)) return true;
    for (let slash = latin1.indexOf("/"); slash !== -1; slash = latin1.indexOf("/", slash + 1)) {
      if (ignored.has(latin1.slice(0, slash + 1))) return true;
    }
    return false;
  };
  const selected = await main.git("ls-files", ["-z", "--others", "--ignored", ...patterns.map((pattern) => `--exclude=${pattern}`)]);
  if (selected.stopped === "timeout" || selected.stopped === "memory") {
    // git's own matching of a hostile pattern can run away too (then it is stopped, off the main thread): the
    // worktree is made without the copies, and the note says so.
    notes.push(
      `Did not copy the files .worktreeinclude selects: git matching its patterns passed its ${selected.stopped === "timeout" ? "time" : "memory"} limit.`,
    );
    return [];
  }
  if (selected.exitCode !== 0) throw gitFailure("git ls-files --others --ignored (.worktreeinclude)", selected.stderr);

  const skipped = { links: 0, unnamed: 0, capped: 0 };
  const candidates: string[] = [];
  const excluded = (rel: string): boolean => {
    const absolute = join(mainTop, rel);
    return isInside(options.worktreesDirectory, absolute) || options.linked.some((dir) => rel === dir || rel.startsWith(`${dir}/`));
  };
  for (const raw of selected.bytes.toString("latin1").split("\0")) {
    // A nested repository is listed as its directory (git does not look inside): not this checkout's.
    if (raw === "" || raw.endsWith("/") || !isIgnored(raw)) continue;
    const rel = exactUtf8(Buffer.from(raw, "latin1"));
    if (rel === undefined) {
      skipped.unnamed++;
      continue;
    }
    if (excluded(rel)) continue;
    const info = lstatQuietly(join(mainTop, rel));
    if (info === undefined) continue;
    if (info.isSymbolicLink()) skipped.links++;
    else if (!info.isFile()) continue;
    else if (candidates.length >= MAX_INCLUDED_FILES) skipped.capped++;
    else candidates.push(rel);
  }

  const copies: WorktreeCopy[] = [];
  const sparse: string[] = [];
  const realTop = await realpath(worktree);
  for (const rel of candidates) {
    const copy = await copyOne(mainTop, realTop, rel);
    if (copy === "sparse") sparse.push(rel);
    else if (copy !== undefined) copies.push(copy);
  }
  if (sparse.length > 0) notes.push(sparseNote(sparse));
  if (copies.length > 0)
    notes.push(
      `Copied ${copies.length} gitignored file${copies.length === 1 ? "" : "s"} that .worktreeinclude selects (${copies
        .slice(0, 5)
        .map((c) => c.path)
        .join(", ")}${copies.length > 5 ? ", ..." : ""}).`,
    );
  if (skipped.links > 0)
    notes.push(
      `Did not copy ${skipped.links} symbolic link${skipped.links === 1 ? "" : "s"} .worktreeinclude selects (gitctx never follows a link out of the checkout).`,
    );
  if (skipped.unnamed > 0) notes.push(`Did not copy ${skipped.unnamed} file${skipped.unnamed === 1 ? "" : "s"} whose names are not valid UTF-8.`);
  if (skipped.capped > 0)
    notes.push(`Copied at most ${MAX_INCLUDED_FILES} files: ${skipped.capped} more that .worktreeinclude selects were left out.`);
  return copies;
}

/**
 * The patterns of a `.worktreeinclude`, as git reads a gitignore file (dir.c `add_patterns_from_buffer`): one a
 * line (a CR before its LF and a UTF-8 BOM dropped), blank lines and `#` comments skipped, trailing spaces dropped
 * unless escaped with `\\`.
 */
function includePatterns(text: string): string[] {
  const patterns: string[] = [];
  for (const raw of text.replace(/^\uFEFF/, "").split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line === "" || line.startsWith("#")) continue;
    let end = line.length;
    while (end > 0 && line[end - 1] === " " && line[end - 2] !== "\\") end--;
    if (end > 0) patterns.push(line.slice(0, end));
  }
  return patterns;
}

/** The note for files left out for being sparse, naming a few. */
function sparseNote(paths: readonly string[]): string {
  const named = `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", ..." : ""}`;
  return `Did not copy ${paths.length} sparse file${paths.length === 1 ? "" : "s"} (${named}): far larger than the disk space ${paths.length === 1 ? "it takes" : "they take"}, ${paths.length === 1 ? "its" : "a"} copy would write every byte. Copy ${paths.length === 1 ? "it" : "them"} yourself if you need ${paths.length === 1 ? "it" : "them"} (cp --sparse=always).`;
}

/**
 * Unlinks each link gitctx made that is still that link (a symlink with the same target); never follows one.
 * Returns the links left in place because something else is there now.
 */
export async function unlinkLinks(worktree: string, links: readonly WorktreeLink[]): Promise<WorktreeLink[]> {
  const kept: WorktreeLink[] = [];
  for (const link of links) {
    const at = join(worktree, link.path);
    const info = lstatQuietly(at);
    if (info === undefined) continue;
    if (info.isSymbolicLink() && (await readlink(at)) === link.target) await unlink(at);
    else kept.push(link);
  }
  return kept;
}
