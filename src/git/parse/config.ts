/**
 * `git config --list --show-scope --show-origin -z`, read as bytes: `scope NUL origin NUL key LF value NUL`, with
 * no LF for a key without a value (which git reads as true). Section and variable names come lower-cased from
 * git; a subsection is kept byte for byte, so a name that is not UTF-8 can be told apart from its lossy spelling.
 */
import { exactUtf8 } from "./gitfile.js";

export interface ConfigEntry {
  /** `local`, `worktree`, `command`, ... as git names it. */
  scope: string;
  /** Where git read it: `file:<path>` (relative paths are relative to the working directory), `blob:...`, ... */
  origin: string;
  /** The key as bytes. */
  keyBytes: Buffer;
  /** The key as text; `undefined` when its bytes are not valid UTF-8 (it cannot be named exactly). */
  key: string | undefined;
  value: Buffer;
  /** Whether the key had no value at all (`[core] bare`), which git reads as true. */
  valueless: boolean;
}

export function parseConfigList(bytes: Buffer): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let at = 0;
  const field = (): Buffer | undefined => {
    const nul = bytes.indexOf(0, at);
    if (nul === -1) return undefined;
    const value = bytes.subarray(at, nul);
    at = nul + 1;
    return value;
  };
  for (;;) {
    const scope = field();
    const origin = field();
    const record = field();
    if (scope === undefined || origin === undefined || record === undefined) break;
    const lf = record.indexOf(0x0a);
    const keyBytes = lf === -1 ? record : record.subarray(0, lf);
    entries.push({
      scope: scope.toString("latin1"),
      origin: origin.toString("utf8"),
      keyBytes,
      key: exactUtf8(keyBytes),
      value: lf === -1 ? Buffer.from("true") : record.subarray(lf + 1),
      valueless: lf === -1,
    });
  }
  return entries;
}

/** The subsection of a key (`filter.<name>.clean` → `<name>`, which may itself contain dots), or `undefined`. */
export function subsectionOf(key: Buffer): Buffer | undefined {
  const first = key.indexOf(0x2e);
  const last = key.lastIndexOf(0x2e);
  return first === -1 || last <= first ? undefined : key.subarray(first + 1, last);
}

/** The section of a key, lower-cased as git prints it: `filter` for `filter.lfs.clean`. */
export function sectionOf(key: Buffer): string {
  const first = key.indexOf(0x2e);
  return key.subarray(0, first === -1 ? key.length : first).toString("latin1");
}

/** Bytes shown to a person: UTF-8 as is, any other byte as `\xNN`, so a name is never silently changed. */
export function showBytes(bytes: Buffer): string {
  const exact = exactUtf8(bytes);
  if (exact !== undefined) return exact;
  let out = "";
  let at = 0;
  while (at < bytes.length) {
    const length = utf8SequenceLength(bytes, at);
    if (length === 0) {
      out += `\\x${bytes[at]!.toString(16).padStart(2, "0")}`;
      at++;
    } else {
      out += bytes.subarray(at, at + length).toString("utf8");
      at += length;
    }
  }
  return out;
}

/** The length of the valid UTF-8 sequence starting at `at`, or 0 when none starts there. */
function utf8SequenceLength(bytes: Buffer, at: number): number {
  for (const length of [1, 2, 3, 4]) {
    if (at + length > bytes.length) break;
    if (exactUtf8(bytes.subarray(at, at + length)) !== undefined) return length;
  }
  return 0;
}

/** A value as git reads a boolean (`git_parse_maybe_bool`); `undefined` when it is not one. A key without a value is true, and is not asked here. */
export function configBoolean(value: string): boolean | undefined {
  const lower = value.toLowerCase();
  if (lower === "true" || lower === "yes" || lower === "on") return true;
  if (lower === "false" || lower === "no" || lower === "off" || lower === "") return false;
  return /^[+-]?\d+$/.test(lower) ? Number(lower) !== 0 : undefined;
}

/**
 * An integer setting as git reads it (config.c `git_parse_signed`: C's base-0 number, so `0x10` and `010` are
 * hexadecimal and octal, then an optional `k`, `m` or `g` unit); `undefined` where git would stop with "bad
 * numeric config value".
 */
export function configInteger(value: string): number | undefined {
  const match = /^[\t\n\v\f\r ]*([+-]?)(0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)([kmg]?)$/i.exec(value);
  if (match === null) return undefined;
  const [, sign, digits, unit] = match;
  const magnitude = /^0x/i.test(digits!)
    ? Number.parseInt(digits!.slice(2), 16)
    : digits!.length > 1 && digits!.startsWith("0")
      ? Number.parseInt(digits!, 8)
      : Number(digits);
  const factor = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[unit!.toLowerCase() as "" | "k" | "m" | "g"];
  const result = (sign === "-" ? -1 : 1) * magnitude * factor;
  return Number.isSafeInteger(result) && Math.abs(result) <= 2 ** 31 - 1 ? result : undefined;
}
