/**
 * `objects/info/alternates`, read exactly as git 2.39 reads it (object-file.c: `read_info_alternates`,
 * `link_alt_odb_entries`, `parse_alt_odb_entry`; quote.c: `unquote_c_style`). A check that reads it any other way
 * can be walked around: git takes only a `#` in the first column as a comment (so ` #x` is a path), unquotes a line
 * that starts with `"` (`"\057etc"` is `/etc`, and a quoted path may span lines), and reads the file as a C string.
 */

/** git follows an alternate's own alternates, and theirs, this deep (`depth > 5` is ignored). */
export const MAX_ALTERNATE_DEPTH = 5;

/**
 * The entries of an alternates file, each as bytes (paths are bytes to git), in order. Empty entries are left out,
 * as git leaves them; relative ones are relative to the object directory the file belongs to.
 */
export function parseAlternates(file: Buffer): Buffer[] {
  // strbuf_read_file, then used as a C string: nothing after a NUL exists for git.
  const nul = file.indexOf(0);
  const text = nul === -1 ? file : file.subarray(0, nul);
  const entries: Buffer[] = [];
  let at = 0;
  while (at < text.length) {
    let end: number;
    let entry: Buffer;
    const unquoted = text[at] === 0x22 ? unquoteC(text, at) : undefined;
    if (text[at] === 0x23) {
      // A comment: up to the next newline.
      end = lineEnd(text, at);
      entry = Buffer.alloc(0);
    } else if (unquoted !== undefined) {
      ({ entry, end } = unquoted);
    } else {
      // Plain, or quoted but broken (no closing quote, a bad escape): taken as written up to the newline.
      end = lineEnd(text, at);
      entry = text.subarray(at, end);
    }
    // git skips one byte after the entry, whatever it is (the newline; after a closing quote, any byte).
    at = end < text.length ? end + 1 : end;
    // An unquoted `\000` ends the path for every C function git then hands it to; the entry still counts as
    // non-empty (`entry.len`), so it names the directory it is relative to.
    if (entry.length > 0) entries.push(entry);
  }
  return entries;
}

function lineEnd(text: Buffer, at: number): number {
  const newline = text.indexOf(0x0a, at);
  return newline === -1 ? text.length : newline;
}

const SIMPLE_ESCAPES: Record<number, number> = {
  97: 0x07, // a
  98: 0x08, // b
  102: 0x0c, // f
  110: 0x0a, // n
  114: 0x0d, // r
  116: 0x09, // t
  118: 0x0b, // v
  92: 0x5c, // backslash
  34: 0x22, // quote
};

/** `unquote_c_style` from the `"` at `start`: the bytes and where the closing quote ends, or `undefined` if broken. */
function unquoteC(text: Buffer, start: number): { entry: Buffer; end: number } | undefined {
  const out: number[] = [];
  let at = start + 1;
  for (;;) {
    // strcspn(quoted, "\"\\"): newlines are ordinary bytes inside the quotes.
    while (at < text.length && text[at] !== 0x22 && text[at] !== 0x5c) out.push(text[at++]!);
    if (at >= text.length) return undefined;
    if (text[at++] === 0x22) return { entry: Buffer.from(out), end: at };
    const ch = text[at++];
    if (ch === undefined) return undefined;
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) {
      out.push(simple);
      continue;
    }
    // Three octal digits, the first 0-3.
    if (ch < 0x30 || ch > 0x33) return undefined;
    const second = text[at++];
    const third = text[at++];
    if (second === undefined || third === undefined || second < 0x30 || second > 0x37 || third < 0x30 || third > 0x37) return undefined;
    out.push(((ch - 0x30) << 6) | ((second - 0x30) << 3) | (third - 0x30));
  }
}

/** The path git hands to the file system for an entry: the C string (up to a NUL an escape put in it). */
export function alternatePath(entry: Buffer): Buffer {
  const nul = entry.indexOf(0);
  return nul === -1 ? entry : entry.subarray(0, nul);
}
