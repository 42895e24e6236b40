/**
 * `git diff` against the working tree writes a refreshed index back (taking index.lock, so a user's `git commit`
 * at that moment fails) even with GIT_OPTIONAL_LOCKS=0 on git 2.39. Such diffs run on a private copy instead,
 * kept while the original is unchanged.
 */
import { rmSync } from "node:fs";
import { copyFile, stat, utimes, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileSignature } from "./file-signature.js";

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

/** A lease on the private copy of a repository's index; release it when the git process is done. */
export interface IndexLease {
  file: string;
  release(): Promise<void>;
}

interface IndexCopy {
  /** The original's signature when it was copied. */
  signature: string;
  dir: string;
  file: string;
  /** Calls using the copy right now. */
  users: number;
  /** Whether it is still the copy new calls get (the original has not changed since). */
  current: boolean;
}

/**
 * The copies of the indexes of a session's repositories, each shared by calls while its original is unchanged.
 * `git diff` writes the copy back refreshed, so entries it had to re-read (racily clean ones) are not re-read by
 * the next call, as with a repository's own index. A copy the original has moved on from (or that was
 * invalidated) is removed once its last user is done: a running git may still be reading it, or about to write
 * it back.
 */
export class PrivateIndexCopies {
  private readonly copies = new Map<string, IndexCopy>();
  /** Copies being made, per git directory: calls that arrive together share one instead of each making theirs. */
  private readonly making = new Map<string, { signature: string; copy: Promise<IndexCopy | undefined> }>();

  constructor(private readonly scratchDirectory: () => Promise<string>) {}

  /**
   * A lease on the current private copy of the index of `gitDir`, or `undefined` when it has no index. A copy is
   * counted as used in the same synchronous step that picks it, so no other call can retire and remove it in
   * between (it could when the count was taken after an await).
   */
  async lease(gitDir: string): Promise<IndexLease | undefined> {
    const index = join(gitDir, "index");
    const signature = fileSignature(index);
    if (signature === "missing") return undefined;
    let copy = this.copies.get(gitDir);
    if (copy === undefined || copy.signature !== signature) {
      const made = await this.make(gitDir, signature);
      if (made === undefined) return undefined;
      copy = this.copies.get(gitDir);
      if (copy?.signature !== made.signature || copy.dir !== made.dir) {
        // Another copy became current while this one was made: keep the newer, unless this one is the index now.
        if (copy === undefined || (copy.signature !== fileSignature(index) && made.signature === fileSignature(index))) {
          if (copy !== undefined) retire(copy);
          made.current = true;
          this.copies.set(gitDir, made);
        }
        copy = made;
      }
    }
    return this.leaseOf(copy);
  }

  /** New calls get fresh copies; the old ones go once their users are done. */
  invalidate(): void {
    for (const copy of this.copies.values()) retire(copy);
    this.copies.clear();
  }

  /** The copy of `gitDir`'s index at `signature`, made once however many calls ask at the same time. */
  private make(gitDir: string, signature: string): Promise<IndexCopy | undefined> {
    const pending = this.making.get(gitDir);
    if (pending !== undefined && pending.signature === signature) return pending.copy;
    const copy = copyIndex(gitDir, this.scratchDirectory).then((made) =>
      made === undefined ? undefined : { signature, ...made, users: 0, current: false },
    );
    const entry = { signature, copy };
    this.making.set(gitDir, entry);
    const done = (): void => {
      if (this.making.get(gitDir) === entry) this.making.delete(gitDir);
    };
    copy.then(done, done);
    return copy;
  }

  private leaseOf(copy: IndexCopy): IndexLease {
    copy.users++;
    let released = false;
    return {
      file: copy.file,
      async release() {
        if (released) return;
        released = true;
        copy.users--;
        if (!copy.current && copy.users === 0) remove(copy);
      },
    };
  }
}

/** No new call gets the copy; it is removed now if no call is using it, else when the last one is done. */
function retire(copy: IndexCopy): void {
  copy.current = false;
  if (copy.users === 0) remove(copy);
}

/**
 * Removes a copy's directory (the index, perhaps a lock git left) at once and synchronously: a few microseconds,
 * where an asynchronous removal waits in libuv's thread pool behind whatever else is queued there (a watcher's
 * burst of stat calls after a commit kept one for over 100 ms), and meanwhile the directory looks still in use.
 * A removal that fails leaves a directory in the private area, which goes with the session.
 */
function remove(copy: IndexCopy): void {
  try {
    rmSync(copy.dir, { recursive: true, force: true });
  } catch {
    // Left for the session's close, which removes the whole private area.
  }
}

/**
 * A new private copy of the repository's index, or `undefined` when it has none. git treats entries changed at or
 * after the index file's own mtime as possibly modified ("racily clean") and re-reads them, so the copy takes
 * the original's mtime rounded down: it may look older than the original, never newer.
 */
async function copyIndex(gitDir: string, scratchDirectory: () => Promise<string>): Promise<{ dir: string; file: string } | undefined> {
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
