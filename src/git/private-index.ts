/**
 * `git diff` against the working tree writes a refreshed index back (taking index.lock, so a user's `git commit`
 * at that moment fails) even with GIT_OPTIONAL_LOCKS=0 on git 2.39. Such diffs run on a private copy instead.
 */
import { copyFile, stat, utimes, rm } from "node:fs/promises";
import { join } from "node:path";
import { scratchDirectory } from "./run.js";

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
export async function copyIndex(gitDir: string): Promise<{ dir: string; file: string } | undefined> {
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
