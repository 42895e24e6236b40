/**
 * `blame.ignoreRevsFile`: the revisions `git blame` skips, from files the user's config or the repository's names.
 * git would open each path as it is given: a repository's config could name `/etc/shadow`, or its work tree hold
 * `.git-blame-ignore-revs` as a symlink to a secret, and git's refusal of the first line that is not an object id
 * ("invalid object name: <line>") would print that line. So gitctx's git reads none of them
 * (`--no-ignore-revs-file`); each is checked and read here, and git reads a private copy of what they hold.
 *
 * The files are taken as git 2.39 takes them (blame.c): every value of every scope into one sorted list without
 * repeats, so a file named twice is read once and an empty value, sorted first, clears nothing. A file the work
 * tree holds (any relative path, and every path the repository's config names) must be a regular file inside the
 * work tree, and the file opened is checked to be that one (a directory on the way swapped for a symlink between
 * the check and the open is found); one the user names by an absolute or `~/` path is the user's own, and must
 * only be a regular file. What they hold together is bounded. A file that is missing or refused is left out and
 * said so: git 2.39 stops the whole blame at a missing one ("could not open object name list").
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { showPath } from "../text.js";
import { isInside } from "./discover.js";
import { describeSize } from "./file-limits.js";
import type { Repository } from "./repository.js";
import { realpathOr, statQuietly } from "./stat-quietly.js";

/** What the files may hold together: a project's list of formatting commits is a few kilobytes. */
const MAX_IGNORE_REVS_BYTES = 16 * 1024 * 1024;

export interface IgnoreRevs {
  /** For `git blame`, after the `--no-ignore-revs-file` every blame gets. */
  args: string[];
  /** A sentence for each file left out. */
  notes: string[];
  /** Removes the private copy. */
  release(): Promise<void>;
}

const NONE: IgnoreRevs = { args: [], notes: [], release: async () => undefined };

export async function ignoreRevsFor(repo: Repository): Promise<IgnoreRevs> {
  // git's list: sorted (strcmp, as bytes), each name once, whoever named it; the user's naming wins for a name
  // both name (its own absolute path is the user's file, not the repository's).
  const named = new Map<string, "user" | "repository">();
  for (const { file, by } of repo.ignoreRevsFiles) if (!named.has(file) || by === "user") named.set(file, by);
  const files = [...named].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  if (files.length === 0) return NONE;
  const top = repo.paths.topLevel;
  const kept: Buffer[] = [];
  const notes: string[] = [];
  let room = MAX_IGNORE_REVS_BYTES;
  for (const [file, by] of files) {
    if (file === "") continue; // Sorted first, it clears nothing, as in git 2.39.
    const own = by === "user" && isAbsolute(file);
    const read = own ? readFile(file, room, undefined) : readWorkTreeFile(top, isAbsolute(file) ? file : join(top, file), room);
    if (typeof read === "string") {
      notes.push(`${by === "user" ? "Your" : "The repository's"} blame.ignoreRevsFile ${showPath(file)} was not read: ${read}.`);
      continue;
    }
    kept.push(read, Buffer.from("\n"));
    room -= read.length;
  }
  if (kept.length === 0) return { ...NONE, notes };
  const dir = await repo.scratchDirectory();
  const release = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const copy = join(dir, "ignore-revs");
  try {
    await writeFile(copy, Buffer.concat(kept), { mode: 0o600 });
  } catch (error) {
    await release();
    throw error;
  }
  return { args: [`--ignore-revs-file=${copy}`], notes, release };
}

/** A file of the work tree: a regular file inside it, reached through no symlink. */
function readWorkTreeFile(top: string, path: string, room: number): Buffer | string {
  if (!isInside(top, path)) return "it is outside the work tree";
  const expected = join(realpathOr(top, top), relative(top, path));
  const real = realpathOr(path, undefined);
  if (real === undefined) return "it is missing (plain git blame stops there)";
  if (real !== expected) return "it is reached through a symlink";
  return readFile(path, room, expected);
}

/**
 * A regular file of at most `room` bytes (symlinks followed when `expected` is not given); with `expected`, the
 * file opened must be the one at that real path, whatever was swapped on the way since it was looked at.
 */
function readFile(path: string, room: number, expected: string | undefined): Buffer | string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (expected === undefined ? 0 : constants.O_NOFOLLOW));
  } catch {
    return "it is missing or cannot be opened (plain git blame stops there)";
  }
  try {
    if (expected !== undefined && !isOpened(fd, expected)) return "it changed while it was opened (a directory on its way became a symlink)";
    const info = fstatSync(fd);
    if (!info.isFile()) return "it is not a regular file";
    if (info.size > room) return `it is larger than ${describeSize(room)} (with the others named)`;
    const bytes = Buffer.alloc(info.size);
    let held = 0;
    while (held < bytes.length) {
      const got = readSync(fd, bytes, held, bytes.length - held, held);
      if (got === 0) break;
      held += got;
    }
    return bytes.subarray(0, held);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the open file is the one at `expected`: by its real path where the system tells it (Linux's
 * `/proc/self/fd`), elsewhere by device and inode against a fresh stat of that path (a narrower window, not none).
 */
function isOpened(fd: number, expected: string): boolean {
  try {
    return realpathSync(`/proc/self/fd/${fd}`) === expected;
  } catch {
    const opened = fstatSync(fd);
    const there = statQuietly(expected);
    return there !== undefined && there.dev === opened.dev && there.ino === opened.ino;
  }
}
