/**
 * Parsers for diffs: `git diff --raw --numstat -z` (one summary row per changed file, exact paths, cheap
 * whatever the size of the patch) and the unified patch itself, read with the `diff` package's `parsePatch`.
 */
import { parsePatch } from "diff";

export type DiffStatus = "added" | "copied" | "deleted" | "modified" | "renamed" | "type_changed" | "unmerged" | "unknown";

export interface DiffFileSummary {
  path: string;
  /** The source of a rename or copy; `null` otherwise. */
  oldPath: string | null;
  status: DiffStatus;
  /** Lines added / deleted; `null` for binary files. */
  additions: number | null;
  deletions: number | null;
  /** Hunks in the patch; `null` when this file's patch is not wholly inside the returned part. */
  hunks: number | null;
  binary: boolean;
  created: boolean;
  deleted: boolean;
  renamed: boolean;
  copied: boolean;
  /** File modes before and after (e.g. `100644`, `100755`, `120000` for a symlink); `null` when absent. */
  oldMode: string | null;
  newMode: string | null;
}

const STATUS_BY_LETTER: Record<string, DiffStatus> = {
  A: "added",
  C: "copied",
  D: "deleted",
  M: "modified",
  R: "renamed",
  T: "type_changed",
  U: "unmerged",
};

/** Parses `--raw --numstat -z`: raw records first, then numstat records in the same order. */
export function parseRawNumstat(output: string): DiffFileSummary[] {
  const fields = output.split("\0");
  const files: DiffFileSummary[] = [];
  let i = 0;
  while (i < fields.length && fields[i]!.startsWith(":")) {
    // ":<old mode> <new mode> <old oid> <new oid> <status>[score]" then one path, or two for R and C.
    const [oldMode, newMode, , , statusField] = fields[i]!.slice(1).split(" ");
    const letter = statusField![0]!;
    const twoPaths = letter === "R" || letter === "C";
    const first = fields[i + 1]!;
    const second = twoPaths ? fields[i + 2]! : undefined;
    i += twoPaths ? 3 : 2;
    const status = STATUS_BY_LETTER[letter] ?? "unknown";
    files.push({
      path: second ?? first,
      oldPath: twoPaths ? first : null,
      status,
      additions: 0,
      deletions: 0,
      hunks: 0,
      binary: false,
      created: status === "added",
      deleted: status === "deleted",
      renamed: status === "renamed",
      copied: status === "copied",
      oldMode: oldMode === "000000" ? null : oldMode!,
      newMode: newMode === "000000" ? null : newMode!,
    });
  }
  // Numstat: "<added>\t<deleted>\t<path>" or, for renames and copies, "<added>\t<deleted>\t" + old + new.
  for (const file of files) {
    const record = fields[i];
    if (record === undefined || record === "") break;
    const [added, deleted, path] = record.split("\t");
    i += path === "" ? 3 : 1;
    if (added === "-") {
      file.binary = true;
      file.additions = null;
      file.deletions = null;
    } else {
      file.additions = Number(added);
      file.deletions = Number(deleted);
    }
  }
  return files;
}

/**
 * Counts hunks per path in a unified patch, or a part of one: only file sections wholly inside `patch` are
 * counted (a section is whole when another section or the end of a complete patch follows it).
 */
export function countHunks(patch: string, complete: boolean): Map<string, number> {
  const counts = new Map<string, number>();
  const start = patch.startsWith("diff --git ") ? 0 : patch.indexOf("\ndiff --git ") + 1;
  if (start === 0 && !patch.startsWith("diff --git ")) return counts;
  const end = complete ? patch.length : patch.lastIndexOf("\ndiff --git ") + 1;
  if (end <= start) return counts;
  for (const file of parsePatch(patch.slice(start, end))) {
    const path = stripPrefix(file.newFileName === "/dev/null" ? file.oldFileName : file.newFileName);
    if (path === undefined) continue;
    counts.set(path, (counts.get(path) ?? 0) + file.hunks.length);
  }
  return counts;
}

function stripPrefix(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  return name.startsWith("a/") || name.startsWith("b/") ? name.slice(2) : name;
}

export interface DiffTotals {
  files: number;
  additions: number;
  deletions: number;
  binary: number;
}

export function diffTotals(files: readonly DiffFileSummary[]): DiffTotals {
  const totals: DiffTotals = { files: files.length, additions: 0, deletions: 0, binary: 0 };
  for (const file of files) {
    totals.additions += file.additions ?? 0;
    totals.deletions += file.deletions ?? 0;
    if (file.binary) totals.binary++;
  }
  return totals;
}
