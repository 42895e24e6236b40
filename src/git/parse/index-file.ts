/**
 * The entries of a git index file (`.git/index`, versions 2 to 4), read without running git. Used to find the
 * gitlinks (submodules) whose own config a call must scan, and by the watcher to tell an index rewritten with the
 * same entries (a `git status` refresh) from one whose entries changed. A split index (its entries partly in a
 * shared index) is flagged, and a version this parser does not know reported: the caller then asks git.
 */

export interface IndexEntry {
  /** The path relative to the top level, as bytes. */
  path: Buffer;
  /** `0o100644`, `0o100755`, `0o120000` (symlink), `0o160000` (gitlink), `0o040000` (sparse directory). */
  mode: number;
  /** The object id, hex. */
  oid: string;
  /** 0 normally; 1-3 for the sides of a conflict. */
  stage: number;
  /** Added with `git add -N`: the path is known, its content not yet staged. */
  intentToAdd: boolean;
}

export type IndexParse =
  | {
      ok: true;
      version: number;
      entries: IndexEntry[];
      /** A split index: most entries live in a shared index file, and these only amend it. */
      split: boolean;
    }
  | { ok: false; problem: string };

export const GITLINK_MODE = 0o160000;

/** The required extensions (a lower-case first letter) git 2.39 knows: a split index, and a sparse index's. */
const LINK = Buffer.from("link", "latin1");
const SPARSE_DIRECTORIES = Buffer.from("sdir", "latin1");

/**
 * Reads every entry. `hashBytes` is 20 for SHA-1 repositories, 32 for SHA-256 ones (`extensions.objectFormat`).
 * With `onlyMode`, only entries of that mode are returned (in version 4 every path is still decoded in order, which
 * its prefix compression needs).
 */
export function parseIndex(bytes: Buffer, hashBytes = 20, onlyMode?: number): IndexParse {
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "DIRC") return { ok: false, problem: "not an index file (no DIRC signature)" };
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return { ok: false, problem: `index version ${version} is unknown` };
  const count = bytes.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  const fixed = 40 + hashBytes + 2;
  for (let i = 0; i < count; i++) {
    const start = at;
    if (at + fixed > bytes.length) return { ok: false, problem: "the index ends inside an entry" };
    const mode = bytes.readUInt32BE(at + 24);
    const oidAt = at + 40;
    const flags = bytes.readUInt16BE(oidAt + hashBytes);
    at = oidAt + hashBytes + 2;
    let extended = 0;
    if ((flags & 0x4000) !== 0) {
      if (version < 3) return { ok: false, problem: "an extended entry in a version 2 index" };
      extended = bytes.readUInt16BE(at);
      at += 2;
    }
    const wanted = onlyMode === undefined || mode === onlyMode;
    let path: Buffer | undefined;
    if (version === 4) {
      let strip = 0;
      let byte: number;
      let first = true;
      // The offset encoding of OFS_DELTA: seven bits a byte, each continuation adding one before the shift.
      do {
        if (at >= bytes.length) return { ok: false, problem: "the index ends inside an entry" };
        byte = bytes[at++]!;
        strip = first ? byte & 0x7f : ((strip + 1) << 7) | (byte & 0x7f);
        first = false;
      } while ((byte & 0x80) !== 0);
      const nul = bytes.indexOf(0, at);
      if (nul === -1 || strip > previous.length) return { ok: false, problem: "a path in the index cannot be read" };
      path = Buffer.concat([previous.subarray(0, previous.length - strip), bytes.subarray(at, nul)]);
      previous = path;
      at = nul + 1;
    } else {
      const nameLength = flags & 0x0fff;
      const nul = nameLength < 0x0fff ? at + nameLength : bytes.indexOf(0, at);
      if (nul === -1 || nul >= bytes.length) return { ok: false, problem: "a path in the index cannot be read" };
      // Made only for an entry returned: finding the gitlinks of 100,000 entries then makes a handful.
      if (wanted) path = bytes.subarray(at, nul);
      // Padding: 1 to 8 NULs, so the entry's length is a multiple of eight.
      at = start + Math.ceil((nul + 1 - start) / 8) * 8;
    }
    if (wanted) {
      const stage = (flags >> 12) & 0x3;
      entries.push({ path: path!, mode, oid: bytes.toString("hex", oidAt, oidAt + hashBytes), stage, intentToAdd: (extended & 0x2000) !== 0 });
    }
  }
  // Extensions: a split index keeps entries in a shared index this file only amends. git stops at the first whose
  // signature does not start with a capital letter ("index uses .... extension, which we do not understand"), and
  // so does this: a file of zeros past its entries (a sparse gigabyte costs an archive nothing) would otherwise be
  // walked eight bytes at a time, for minutes, where git fails at once. Bytes are compared, no string is made.
  let split = false;
  while (at + 8 <= bytes.length - hashBytes) {
    const first = bytes[at]!;
    if (first < 0x41 || first > 0x5a) {
      if (LINK.compare(bytes, at, at + 4) === 0) split = true;
      else if (SPARSE_DIRECTORIES.compare(bytes, at, at + 4) !== 0) {
        return {
          ok: false,
          problem: `the index uses an extension git does not understand (${JSON.stringify(bytes.toString("latin1", at, at + 4))})`,
        };
      }
    }
    at += 8 + bytes.readUInt32BE(at + 4);
  }
  return { ok: true, version, entries, split };
}
