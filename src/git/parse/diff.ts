/**
 * Parsers for diffs: `git diff --raw -z` (one row per changed file, exact paths, cheap whatever the size of the
 * patch), `--numstat -z` (line counts for every file) and the unified patch itself, read with the `diff`
 * package's `parsePatch`.
 */
import { parsePatch, type StructuredPatch } from "diff";

export type DiffStatus = "added" | "copied" | "deleted" | "modified" | "renamed" | "type_changed" | "unmerged" | "unknown";

export interface DiffFileSummary {
  path: string;
  /** The source of a rename or copy; `null` otherwise. */
  oldPath: string | null;
  status: DiffStatus;
  /**
   * Lines added / deleted; `null` for binary files, and when not counted: counts come from the patch, and only
   * files whose section lies wholly inside the returned part of it are counted (a stat-only read counts all).
   */
  additions: number | null;
  deletions: number | null;
  /**
   * Hunks in the patch; `null` when unknown: this file's section is not wholly inside the returned part of the
   * patch, no patch was read (stat only), or its section could not be read.
   */
  hunks: number | null;
  /** `null` when not known, like the line counts. */
  binary: boolean | null;
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
  const { files, end } = readRawRecords(fields);
  let i = end;
  // Numstat: "<added>\t<deleted>\t<path>" or, for renames and copies, "<added>\t<deleted>\t" + old + new.
  for (const file of files) {
    const record = fields[i];
    if (record === undefined || record === "") break;
    const [added, deleted, path] = record.split("\t");
    i += path === "" ? 3 : 1;
    file.binary = added === "-";
    file.additions = added === "-" ? null : Number(added);
    file.deletions = added === "-" ? null : Number(deleted);
  }
  return mergeUnmerged(files);
}

/** Parses `--raw -z` alone: every changed file, its line counts not yet known. */
export function parseRaw(output: string): DiffFileSummary[] {
  return readRawRecords(output.split("\0")).files;
}

function readRawRecords(fields: readonly string[]): { files: DiffFileSummary[]; end: number } {
  const files: DiffFileSummary[] = [];
  let i = 0;
  while (i < fields.length && fields[i]!.startsWith(":")) {
    // ":<old mode> <new mode> <old oid> <new oid> <status>[score]" then one path, or two for R and C.
    // A conflict's combined record ("::<mode> <mode> <mode> <oid> <oid> <oid> <letters>", then the path) is
    // printed when a patch is asked for with --raw: it is an unmerged path.
    const combined = fields[i]!.startsWith("::");
    const [oldMode, newMode, , , statusField] = combined ? ["000000", "000000", "", "", "U"] : fields[i]!.slice(1).split(" ");
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
      additions: null,
      deletions: null,
      hunks: null,
      binary: null,
      created: status === "added",
      deleted: status === "deleted",
      renamed: status === "renamed",
      copied: status === "copied",
      oldMode: oldMode === "000000" ? null : oldMode!,
      newMode: newMode === "000000" ? null : newMode!,
    });
  }
  return { files, end: i };
}

/**
 * The end of the raw records in `git diff --raw -z --patch` output, chunk by chunk: no field is empty, so the
 * first two NULs in a row (the last record's terminator, then git's separator) end them; the patch follows.
 * `leadingFields` NUL-terminated fields come first (a commit's `--format` fields in `git show`), and may be empty.
 */
export function rawHeaderScanner(leadingFields = 0): (chunk: Buffer) => number | undefined {
  let fieldsLeft = leadingFields;
  let previousWasNul = false;
  return (chunk) => {
    let from = 0;
    while (fieldsLeft > 0) {
      const nul = chunk.indexOf(0, from);
      if (nul === -1) return undefined;
      fieldsLeft--;
      from = nul + 1;
    }
    if (from >= chunk.length) return undefined;
    if (previousWasNul && chunk[from] === 0) return from + 1;
    for (let nul = chunk.indexOf(0, from); nul !== -1; nul = chunk.indexOf(0, nul + 1)) {
      if (chunk[nul + 1] === 0) return nul + 2;
    }
    previousWasNul = chunk[chunk.length - 1] === 0;
    return undefined;
  };
}

/** Splits `count` NUL-terminated fields off the front of `text`; the rest loses the newline git puts after them. */
export function splitLeadingFields(text: string, count: number): { fields: string[]; rest: string } {
  const fields: string[] = [];
  let at = 0;
  while (fields.length < count) {
    const nul = text.indexOf("\0", at);
    if (nul === -1) break;
    fields.push(text.slice(at, nul));
    at = nul + 1;
  }
  return { fields, rest: text.slice(at).replace(/^\n/, "") };
}

/**
 * During a conflict git lists an unmerged path twice: once as `U`, and once more comparing the work tree with
 * our side. A caller wants one row per path, so the second row folds into the first, giving it its line counts.
 */
function mergeUnmerged(files: DiffFileSummary[]): DiffFileSummary[] {
  const unmerged = new Map(files.filter((file) => file.status === "unmerged").map((file) => [file.path, file]));
  if (unmerged.size === 0) return files;
  return files.filter((file) => {
    const conflict = unmerged.get(file.path);
    if (conflict === undefined || conflict === file || file.oldPath !== null) return true;
    conflict.additions = file.additions;
    conflict.deletions = file.deletions;
    conflict.binary = file.binary;
    return false;
  });
}

/** What the patch says of one file. */
export interface SectionCounts {
  hunks: number;
  /** `null` for a binary file, as in numstat. */
  additions: number | null;
  deletions: number | null;
  binary: boolean;
}

export interface PatchCounts {
  /** Counts per path (the new path of a rename or copy), for file sections wholly inside the patch text. */
  counts: Map<string, SectionCounts>;
  /** A whole section could not be read: files missing from `counts` are unknown, not unchanged. */
  unreadable: boolean;
}

/** A file section starts at a line beginning `diff --git ` (or `diff --cc ` / `diff --combined ` for a conflict). */
const SECTION_START = /^diff --(?:git|cc|combined) /gm;

/**
 * Counts hunks and lines per path in a unified patch, or a part of one: only file sections wholly inside `patch`
 * are counted (a section is whole when another section or the end of a complete patch follows it). Content lines
 * always carry a prefix (` `, `+`, `-`), so only a real header can start a line with `diff --`. A path with two
 * sections (a type change: deletion, then creation) gets their sum.
 */
export function countPatch(patch: string, complete: boolean): PatchCounts {
  const counts = new Map<string, SectionCounts>();
  let unreadable = false;
  const starts = [...patch.matchAll(SECTION_START)].map((match) => match.index);
  if (complete) starts.push(patch.length);
  else if (startsSection(patch.slice(patch.lastIndexOf("\n") + 1))) {
    // The window ends inside the next header line ("dif", "diff --gi"): the section before it is whole.
    starts.push(patch.lastIndexOf("\n") + 1);
  }
  for (let i = 0; i + 1 < starts.length; i++) {
    const section = patch.slice(starts[i], starts[i + 1]);
    const counted = countSection(section);
    if (counted === undefined) {
      unreadable = true;
      continue;
    }
    const known = counts.get(counted.path);
    counts.set(
      counted.path,
      known === undefined
        ? counted.counts
        : {
            hunks: known.hunks + counted.counts.hunks,
            additions: sumLines(known.additions, counted.counts.additions),
            deletions: sumLines(known.deletions, counted.counts.deletions),
            binary: known.binary || counted.counts.binary,
          },
    );
  }
  return { counts, unreadable };
}

/** Lines of two sections of one path: unknown (binary) when either is. */
function sumLines(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** A cut line that can only be the beginning of a section header (no other patch line starts with "dif"). */
function startsSection(partialLine: string): boolean {
  // A whole "diff --git " is already matched by SECTION_START.
  if (partialLine.length < 3) return false;
  return ["diff --git ", "diff --cc ", "diff --combined "].some((header) => header.startsWith(partialLine) && header !== partialLine);
}

function countSection(section: string): { path: string; counts: SectionCounts } | undefined {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(section);
  } catch {
    return undefined;
  }
  const file = parsed[0];
  if (parsed.length !== 1 || file === undefined) return undefined;
  // The `---`/`+++` lines lose a trailing space of a file name (parsePatch trims them), the `diff --git`
  // line and the rename/copy lines do not: name the file from the extended header alone when there is one.
  const path = (section.startsWith("diff --git ") ? headerName(section) : undefined) ?? fileName(file);
  if (path === undefined) return undefined;
  if (!section.startsWith("diff --git ")) {
    // parsePatch reads a combined diff's names but not its `@@@` hunks; every such hunk header starts a line.
    // Its lines carry one prefix column per parent, so they are not counted: conflicts take numstat's counts.
    const hunks = (section.match(/^@@@+ /gm) ?? []).length;
    return { path, counts: { hunks, additions: 0, deletions: 0, binary: false } };
  }
  // A submodule at its recorded commit with changes inside: git prints `Subproject commit <id>-dirty` against
  // `<id>`, and counts nothing, the commit being the same (diff.c, builtin_diffstat). A file's section, unlike
  // this one, always has an `index` line.
  if (dirtySubmoduleOnly(section, file)) return { path, counts: { hunks: file.hunks.length, additions: 0, deletions: 0, binary: false } };
  let additions = 0;
  let deletions = 0;
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
    }
  }
  if (/^Binary files .* differ$/m.test(section))
    return { path, counts: { hunks: file.hunks.length, additions: null, deletions: null, binary: true } };
  return { path, counts: { hunks: file.hunks.length, additions, deletions, binary: false } };
}

function dirtySubmoduleOnly(section: string, file: StructuredPatch): boolean {
  const lines = file.hunks.length === 1 ? file.hunks[0]!.lines : [];
  if (lines.length !== 2 || /^index /m.test(section.slice(0, section.search(/^@@ /m)))) return false;
  const was = /^-Subproject commit ([0-9a-f]{40,64})$/.exec(lines[0]!);
  return was !== null && lines[1] === `+Subproject commit ${was[1]}-dirty`;
}

function headerName(section: string): string | undefined {
  const end = section.search(/^(?:--- |\+\+\+ |@@ |Binary files )/m);
  try {
    const [file] = parsePatch(end === -1 ? section : section.slice(0, end));
    return file === undefined ? undefined : fileName(file);
  } catch {
    return undefined;
  }
}

/** The new name of a file (the old one for a deletion), without the `a/` or `b/` prefix. */
function fileName(file: StructuredPatch): string | undefined {
  const name = file.newFileName === "/dev/null" ? file.oldFileName : file.newFileName;
  if (name === undefined) return undefined;
  return name.startsWith("a/") || name.startsWith("b/") ? name.slice(2) : name;
}

export interface DiffTotals {
  files: number;
  /** Lines added and deleted in the files counted. */
  additions: number;
  deletions: number;
  binary: number;
  /** Files whose lines were not counted (`binary: null`): their sections lie outside the returned patch. */
  uncounted: number;
}

export function diffTotals(files: readonly DiffFileSummary[]): DiffTotals {
  const totals: DiffTotals = { files: files.length, additions: 0, deletions: 0, binary: 0, uncounted: 0 };
  for (const file of files) {
    totals.additions += file.additions ?? 0;
    totals.deletions += file.deletions ?? 0;
    if (file.binary === true) totals.binary++;
    if (file.binary === null) totals.uncounted++;
  }
  return totals;
}
