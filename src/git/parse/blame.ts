/** Parser for `git blame --porcelain`. */

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
  /** ISO 8601 in UTC. */
  authorTime: string;
  committer: string;
  committerEmail: string;
  committerTime: string;
  summary: string;
  /** The file's path in that commit, when it differs (renames). */
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
    authorTime: "",
    committer: "",
    committerEmail: "",
    committerTime: "",
    summary: "",
    filename: "",
    boundary: false,
    uncommitted: /^0+$/.test(hash),
  };
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
      commit.authorTime = isoFromSeconds(value);
      break;
    case "committer":
      commit.committer = value;
      break;
    case "committer-mail":
      commit.committerEmail = value.replace(/^<|>$/g, "");
      break;
    case "committer-time":
      commit.committerTime = isoFromSeconds(value);
      break;
    case "summary":
      commit.summary = value;
      break;
    case "filename":
      commit.filename = value;
      break;
    case "boundary":
      commit.boundary = true;
      break;
  }
}

function isoFromSeconds(seconds: string): string {
  return new Date(Number(seconds) * 1000).toISOString().replace(".000Z", "Z");
}
