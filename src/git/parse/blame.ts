/** Parser for `git blame --porcelain`. */
import { isoDate } from "./dates.js";

export interface BlameLine {
  /** Line number in the blamed version of the file (1-based). */
  line: number;
  hash: string;
  /** Line number in the commit that introduced it. */
  originalLine: number;
  content: string;
}

export interface BlameCommit {
  hash: string;
  author: string;
  authorEmail: string;
  /**
   * Strict ISO 8601 in the author's own time zone, as git_log gives it (`2024-05-01T12:00:00+02:00`); `null` for
   * uncommitted lines (git reports the current time there, which means nothing).
   */
  authorTime: string | null;
  committer: string;
  committerEmail: string;
  committerTime: string | null;
  summary: string;
  /** The file's path in that commit, relative to the top level; it differs from the blamed path after a rename. */
  filename: string;
  /** A boundary commit: blame did not look further back. */
  boundary: boolean;
  /** Not a commit: lines changed in the working tree or index and not yet committed. */
  uncommitted: boolean;
}

export interface ParsedBlame {
  lines: BlameLine[];
  commits: Record<string, BlameCommit>;
}

const HEADER = /^([0-9a-f]{40,64}) (\d+) (\d+)(?: \d+)?$/;

export function parseBlamePorcelain(output: string): ParsedBlame {
  const lines: BlameLine[] = [];
  const commits: Record<string, BlameCommit> = {};
  let current: { hash: string; originalLine: number; finalLine: number } | undefined;
  const rows = output.split("\n");
  for (const row of rows) {
    if (current === undefined) {
      const match = HEADER.exec(row);
      if (!match) continue;
      current = { hash: match[1]!, originalLine: Number(match[2]), finalLine: Number(match[3]) };
      commits[current.hash] ??= emptyCommit(current.hash);
      continue;
    }
    if (row.startsWith("\t")) {
      lines.push({ line: current.finalLine, hash: current.hash, originalLine: current.originalLine, content: row.slice(1) });
      current = undefined;
      continue;
    }
    const space = row.indexOf(" ");
    const key = space === -1 ? row : row.slice(0, space);
    const value = space === -1 ? "" : row.slice(space + 1);
    applyField(commits[current.hash]!, key, value);
  }
  return { lines, commits };
}

function emptyCommit(hash: string): BlameCommit {
  return {
    hash,
    author: "",
    authorEmail: "",
    authorTime: null,
    committer: "",
    committerEmail: "",
    committerTime: null,
    summary: "",
    filename: "",
    boundary: false,
    uncommitted: /^0+$/.test(hash),
  };
}

/** Each commit's raw `*-time` seconds until its `*-tz` line comes (git prints the time first). */
const rawStamps = new WeakMap<BlameCommit, { author?: string; committer?: string }>();

function stamps(commit: BlameCommit): { author?: string; committer?: string } {
  let kept = rawStamps.get(commit);
  if (kept === undefined) {
    kept = {};
    rawStamps.set(commit, kept);
  }
  return kept;
}

function applyField(commit: BlameCommit, key: string, value: string): void {
  switch (key) {
    case "author":
      commit.author = value;
      break;
    case "author-mail":
      commit.authorEmail = value.replace(/^<|>$/g, "");
      break;
    case "author-time":
      if (!commit.uncommitted) commit.authorTime = isoDate(value, "+0000");
      stamps(commit).author = value;
      break;
    case "author-tz":
      if (commit.authorTime !== null) commit.authorTime = isoDate(stamps(commit).author ?? "", value);
      break;
    case "committer":
      commit.committer = value;
      break;
    case "committer-mail":
      commit.committerEmail = value.replace(/^<|>$/g, "");
      break;
    case "committer-time":
      if (!commit.uncommitted) commit.committerTime = isoDate(value, "+0000");
      stamps(commit).committer = value;
      break;
    case "committer-tz":
      if (commit.committerTime !== null) commit.committerTime = isoDate(stamps(commit).committer ?? "", value);
      break;
    case "summary":
      commit.summary = value;
      break;
    case "filename":
      commit.filename = unquoteC(value);
      break;
    case "boundary":
      commit.boundary = true;
      break;
  }
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/**
 * Undoes git's quoting of a path (`"a\"b\nc"`, octal `\303\274` for bytes): git quotes names with quotes,
 * backslashes or control characters whatever `core.quotePath` says. An unquoted value is returned as is.
 */
export function unquoteC(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  const parts: Buffer[] = [];
  for (const match of value.slice(1, -1).matchAll(/\\([0-3][0-7]{2}|[\s\S])|[^\\]+/g)) {
    const escape = match[1];
    if (escape === undefined) parts.push(Buffer.from(match[0], "utf8"));
    else if (escape.length === 3) parts.push(Buffer.from([parseInt(escape, 8)]));
    else parts.push(C_ESCAPES[escape] === undefined ? Buffer.from(escape, "utf8") : Buffer.from([C_ESCAPES[escape]]));
  }
  return Buffer.concat(parts).toString("utf8");
}
