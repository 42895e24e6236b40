/**
 * How much of each kind of file a repository controls gitctx will hold, in one place. A repository unpacked from
 * an archive can make any of these files any size for free (a sparse file of gigabytes costs no disk), and Node
 * aborts the whole process, without an exception anyone could catch, on a single read longer than 2^31-1 bytes:
 * so every read is bounded by one of these, and is made in chunks of at most `READ_CHUNK_BYTES`.
 */
import { GitctxError } from "../errors.js";

/** The most one read call asks of the system; far below the 2^31-1 bytes past which Node asserts and aborts. */
export const READ_CHUNK_BYTES = 8 * 1024 * 1024;

/** No single buffer gitctx reads a file into is larger than this, whatever a caller asks: Node's own limit. */
export const MAX_HELD_BYTES = 2 ** 31 - 1;

/**
 * State files git reads whole (HEAD, MERGE_MSG, shallow, info/exclude, a legacy `remotes/<name>`, the files
 * `core.excludesFile` and `core.attributesFile` name...). git itself writes them at a few kilobytes; 64 MiB is far
 * past any real one and still bounds what git allocates for one (it reads them whole).
 */
export const MAX_STATE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * `.git/index`. git's version 2 index takes about 100 bytes per tracked file (62 fixed, the path, padding), so a
 * million files make about 100 MiB; the largest repositories in use (the Windows source tree, about 3.5 million
 * files, long paths) would make some 350-500 MiB, and they use a sparse index, far smaller. Past 1 GiB (some ten
 * million files) the index is not one git wrote for a real work tree but a file made to crash whoever reads it whole.
 * It is also half of what Node can hold in one buffer, and what gitctx's gitlink scan will hold in memory at most.
 */
export const MAX_INDEX_BYTES = 1024 * 1024 * 1024;

/**
 * `packed-refs`, read line by line (never whole) by the watcher and the worktree tools; git maps it and reads every
 * line. About 60 bytes a ref: 256 MiB is over four million refs, more than any work tree's repository holds (a
 * server mirroring every pull request might: point gitctx at a clone). Past it the state-file check refuses the
 * repository, and those readers, should one get there first, report nothing or ask git rather than hold that much.
 */
export const MAX_PACKED_REFS_BYTES = 256 * 1024 * 1024;

/** One line of packed-refs: an object id and a ref name, which is never anywhere near this long. */
export const MAX_REF_LINE_BYTES = 64 * 1024;

/**
 * A working-tree file `git_blame` reads itself (one staged before the first commit, or to count its lines): the
 * same bound as git's own output to gitctx, which a blame of a committed file of that size would exceed anyway.
 */
export const MAX_WORK_TREE_FILE_BYTES = 128 * 1024 * 1024;

/** A file a repository controls, refused for its size: named, with its size, and what to do. */
export function oversized(path: string, size: number): GitctxError {
  return new GitctxError(
    "unsafe_repository",
    `${path} is ${describeSize(size)}, far larger than git ever makes it; reading it whole would exhaust memory (or crash the reader).`,
    "Remove or truncate the file if the repository is yours; otherwise do not use it.",
  );
}

/** Sizes in messages: MiB for anything past one, else bytes. */
export function describeSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`;
}
