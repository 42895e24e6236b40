/**
 * Pointer files, read byte for byte as git reads them: a `.git` file (`gitdir: <path>`, read whole by
 * `read_gitfile_gently`), and a git directory's `commondir` and a linked worktree's `gitdir` (one path each). git
 * keeps them in C strings, so a NUL ends the path wherever it is; only trailing CR and LF are stripped.
 */

/** git refuses a `.git` file larger than this (`read_gitfile_gently`'s `max_file_size`). */
export const MAX_GITFILE_BYTES = 1 << 20;

export type GitfileParse = { ok: true; path: Buffer } | { ok: false; problem: string };

const PREFIX = Buffer.from("gitdir: ");

/** The path a `.git` file names, exactly as git 2.39's `read_gitfile_gently` takes it. */
export function parseGitfile(bytes: Buffer): GitfileParse {
  if (bytes.length > MAX_GITFILE_BYTES) return { ok: false, problem: `it is larger than ${MAX_GITFILE_BYTES} bytes` };
  // `starts_with` compares C strings: a NUL among the first eight bytes fails it like any other byte.
  if (bytes.length < PREFIX.length || !bytes.subarray(0, PREFIX.length).equals(PREFIX)) {
    return { ok: false, problem: 'it does not start with "gitdir: "' };
  }
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  if (end < PREFIX.length + 1) return { ok: false, problem: "it names no path" };
  return { ok: true, path: cString(bytes.subarray(PREFIX.length, end)) };
}

/** The path in a `commondir` file (`get_common_dir_noenv`): trailing CR/LF stripped, then up to the first NUL. */
export function parseCommondir(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  return cString(bytes.subarray(0, end));
}

/** The path in a linked worktree's `gitdir` file (worktree.c: `strbuf_rtrim`): trailing white space stripped. */
export function parseWorktreeGitdir(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && isSpace(bytes[end - 1]!)) end--;
  return cString(bytes.subarray(0, end));
}

/** What a C string holding these bytes would hold: everything before the first NUL. */
function cString(bytes: Buffer): Buffer {
  const nul = bytes.indexOf(0);
  return nul === -1 ? bytes : bytes.subarray(0, nul);
}

/** git's `isspace` (sane_ctype): space, tab, LF, VT, FF, CR. */
function isSpace(byte: number): boolean {
  return byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);
}

/**
 * The bytes as a string when they are valid UTF-8, else `undefined`: Node passes paths to git and to the file
 * system as UTF-8, so a path that is not cannot be named exactly.
 */
export function exactUtf8(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
