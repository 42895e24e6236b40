/** Parser for `git status --porcelain=v2 --branch -z`. Pure: text in, typed data out. */

export type StatusKind = "modified" | "added" | "deleted" | "renamed" | "copied" | "type_changed" | "untracked" | "conflicted";

export interface StatusEntry {
  path: string;
  /** The source of a rename or copy; `null` otherwise. */
  origPath: string | null;
  /** Index status letter (`.` for unchanged, `?` for untracked), as in `git status --short`. */
  index: string;
  /** Work-tree status letter (`.` for unchanged, `?` for untracked). */
  worktree: string;
  kind: StatusKind;
  staged: boolean;
  unstaged: boolean;
  /** Set for a submodule entry. */
  submodule?: { commitChanged: boolean; modified: boolean; untracked: boolean };
  /** `true` when the path is a symbolic link (in the work tree, else in the index, else in HEAD); absent otherwise. */
  symlink?: true;
}

export interface BranchInfo {
  /** The branch name; `null` when HEAD is detached. */
  head: string | null;
  /** The commit HEAD points at; `null` on an unborn branch (no commits yet). */
  oid: string | null;
  upstream: string | null;
  /** Commits ahead of / behind the upstream; `null` without an upstream or when it is gone. */
  ahead: number | null;
  behind: number | null;
  detached: boolean;
  /** Only when HEAD is detached: the tags pointing at the commit it is at (empty when none). */
  tags?: string[];
}

export interface StatusCounts {
  staged: number;
  unstaged: number;
  untracked: number;
  conflicted: number;
  total: number;
}

export interface ParsedStatus {
  branch: BranchInfo;
  entries: StatusEntry[];
}

export function parseStatusV2(output: string): ParsedStatus {
  const branch: BranchInfo = { head: null, oid: null, upstream: null, ahead: null, behind: null, detached: false };
  const entries: StatusEntry[] = [];
  const records = output.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record === "") continue;
    const type = record[0];
    if (type === "#") {
      parseBranchHeader(record, branch);
    } else if (type === "1") {
      const [, xy, sub, mH, mI, mW, , , ...rest] = record.split(" ");
      entries.push(withLink(ordinary(xy!, sub!, rest.join(" "), null), [mH!, mI!, mW!]));
    } else if (type === "2") {
      // The rename source follows as the next NUL-separated record.
      const [, xy, sub, mH, mI, mW, , , score, ...rest] = record.split(" ");
      const origPath = records[++i] ?? "";
      entries.push(withLink(ordinary(xy!, sub!, rest.join(" "), origPath, score!), [mH!, mI!, mW!]));
    } else if (type === "u") {
      const [, xy, sub, , , , , , , , ...rest] = record.split(" ");
      entries.push({
        path: rest.join(" "),
        origPath: null,
        index: xy![0]!,
        worktree: xy![1]!,
        kind: "conflicted",
        staged: false,
        unstaged: true,
        ...submoduleInfo(sub!),
      });
    } else if (type === "?") {
      entries.push({
        path: record.slice(2),
        origPath: null,
        index: "?",
        worktree: "?",
        kind: "untracked",
        staged: false,
        unstaged: false,
      });
    }
    // `!` (ignored) records are never requested.
  }
  return { branch, entries };
}

function parseBranchHeader(record: string, branch: BranchInfo): void {
  const [, key, ...values] = record.split(" ");
  const value = values.join(" ");
  switch (key) {
    case "branch.oid":
      branch.oid = value === "(initial)" ? null : value;
      break;
    case "branch.head":
      branch.detached = value === "(detached)";
      branch.head = branch.detached ? null : value;
      break;
    case "branch.upstream":
      branch.upstream = value;
      break;
    case "branch.ab": {
      const match = /^\+(\d+) -(\d+)$/.exec(value);
      if (match) {
        branch.ahead = Number(match[1]);
        branch.behind = Number(match[2]);
      }
      break;
    }
  }
}

function ordinary(xy: string, sub: string, path: string, origPath: string | null, score?: string): StatusEntry {
  const index = xy[0]!;
  const worktree = xy[1]!;
  return {
    path,
    origPath,
    index,
    worktree,
    kind: kindOf(index, worktree, score),
    staged: index !== ".",
    unstaged: worktree !== ".",
    ...submoduleInfo(sub),
  };
}

/**
 * One word for an entry. The index side wins when both sides changed, because it says what the file is
 * relative to HEAD (`AD` is a new file since deleted from the work tree; `.A` is an intent-to-add file).
 */
function kindOf(index: string, worktree: string, score: string | undefined): StatusKind {
  if (score?.startsWith("R")) return "renamed";
  if (score?.startsWith("C")) return "copied";
  const letter = index !== "." ? index : worktree;
  if (letter === "A") return "added";
  if (letter === "D") return "deleted";
  if (letter === "T") return "type_changed";
  return "modified";
}

/** Marks a symbolic link by its newest mode that exists: work tree, else index, else HEAD (a deleted link). */
function withLink(entry: StatusEntry, [head, index, workTree]: string[]): StatusEntry {
  const newest = [workTree, index, head].find((mode) => mode !== undefined && mode !== "000000");
  return newest === "120000" ? { ...entry, symlink: true } : entry;
}

function submoduleInfo(sub: string): Pick<StatusEntry, "submodule"> {
  if (sub[0] !== "S") return {};
  return { submodule: { commitChanged: sub[1] === "C", modified: sub[2] === "M", untracked: sub[3] === "U" } };
}

export function countStatus(entries: readonly StatusEntry[]): StatusCounts {
  const counts: StatusCounts = { staged: 0, unstaged: 0, untracked: 0, conflicted: 0, total: entries.length };
  for (const entry of entries) {
    if (entry.kind === "untracked") counts.untracked++;
    else if (entry.kind === "conflicted") counts.conflicted++;
    else {
      if (entry.staged) counts.staged++;
      if (entry.unstaged) counts.unstaged++;
    }
  }
  return counts;
}
