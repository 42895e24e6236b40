/**
 * `blame.ignoreRevsFile`: the revisions `git blame` skips, from files the user's config or the repository's names.
 * git would open each path as it is given: a repository's config could name `/etc/shadow`, or its work tree hold
 * `.git-blame-ignore-revs` as a symlink to a secret, and git's refusal of the first line that is not an object id
 * ("invalid object name: <line>") would print that line. So gitctx's git reads none of them
 * (`--no-ignore-revs-file`); each is checked and read here, and git reads a private copy of what they hold.
 *
 * A file the work tree holds (any relative path, and every path the repository's config names) must be a regular
 * file inside the work tree, reached through no symlink; one the user names by an absolute or `~/` path is the
 * user's own, and must only be a regular file of a sane size. A file that is missing or refused is left out and
 * said so: git 2.39 stops the whole blame at a missing one ("could not open object name list").
 */
import { rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { showPath } from "../text.js";
import { isInside } from "./discover.js";
import { describeSize, MAX_STATE_FILE_BYTES } from "./file-limits.js";
import { readRegularFileSync } from "./read-file.js";
import type { Repository } from "./repository.js";
import { realpathOr } from "./stat-quietly.js";

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
  const files = repo.ignoreRevsFiles;
  if (files.length === 0) return NONE;
  const top = repo.paths.topLevel;
  const kept: Buffer[] = [];
  const notes: string[] = [];
  for (const { file, by } of files) {
    const own = by === "user" && isAbsolute(file);
    const read = own ? readOwnFile(file) : readWorkTreeFile(top, isAbsolute(file) ? file : join(top, file));
    if (typeof read === "string") {
      notes.push(`${by === "user" ? "Your" : "The repository's"} blame.ignoreRevsFile ${showPath(file)} was not read: ${read}.`);
    } else {
      kept.push(read, Buffer.from("\n"));
    }
  }
  if (kept.length === 0) return { ...NONE, notes };
  const dir = await repo.scratchDirectory();
  const copy = join(dir, "ignore-revs");
  await writeFile(copy, Buffer.concat(kept), { mode: 0o600 });
  return { args: [`--ignore-revs-file=${copy}`], notes, release: () => rm(dir, { recursive: true, force: true }) };
}

/** A file the user named themselves: any regular file of a sane size, wherever it is (symlinks followed). */
function readOwnFile(path: string): Buffer | string {
  const bytes = readRegularFileSync(path, MAX_STATE_FILE_BYTES + 1, { followSymlinks: true });
  if (bytes === undefined) return "it is missing or not a regular file (plain git blame stops there)";
  return bytes.length > MAX_STATE_FILE_BYTES ? `it is larger than ${describeSize(MAX_STATE_FILE_BYTES)}` : bytes;
}

/** A file of the work tree: a regular file inside it, reached through no symlink. */
function readWorkTreeFile(top: string, path: string): Buffer | string {
  if (!isInside(top, path)) return "it is outside the work tree";
  const real = realpathOr(path, undefined);
  if (real === undefined) return "it is missing (plain git blame stops there)";
  if (real !== join(realpathOr(top, top), relative(top, path))) return "it is reached through a symlink";
  // Opened without following a link: a file swapped for one since is refused, not followed.
  const bytes = readRegularFileSync(path, MAX_STATE_FILE_BYTES + 1);
  if (bytes === undefined) return "it is not a regular file";
  return bytes.length > MAX_STATE_FILE_BYTES ? `it is larger than ${describeSize(MAX_STATE_FILE_BYTES)}` : bytes;
}
