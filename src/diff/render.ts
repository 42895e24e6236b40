/** The text a model sees for a diff: one line per file, then the patch window, then how to continue. */
import type { DiffFileSummary } from "../git/parse/diff.js";
import { lineDelta, plural, showPath } from "../text.js";
import type { PatchWindow } from "./read-patch.js";

const STATUS_LETTER: Record<DiffFileSummary["status"], string> = {
  added: "A",
  copied: "C",
  deleted: "D",
  modified: "M",
  renamed: "R",
  type_changed: "T",
  unmerged: "U",
  unknown: "X",
};

const LINK = "120000";
const GITLINK = "160000";

/** What a mode makes of an entry when it is not a plain file: `symlink`, `submodule`, or `undefined`. */
function special(mode: string | null): string | undefined {
  return mode === LINK ? "symlink" : mode === GITLINK ? "submodule" : undefined;
}

export function renderFileLine(file: DiffFileSummary): string {
  const name = file.oldPath === null ? showPath(file.path) : `${showPath(file.oldPath)} -> ${showPath(file.path)}`;
  const details: string[] = [];
  // A link's patch is its target as one line: saying so keeps "+1 -0" from reading as a one-line file.
  const now = special(file.deleted ? file.oldMode : file.newMode);
  const before = special(file.oldMode);
  if (file.status === "type_changed") {
    if (now !== undefined) details.push(`now a ${now}`);
    else if (before !== undefined) details.push(`was a ${before}`);
  } else if (now !== undefined) {
    details.push(now);
  }
  details.push(file.binary === null ? "not counted" : lineDelta(file.additions, file.deletions));
  if (file.hunks !== null && file.hunks > 0) details.push(plural(file.hunks, "hunk"));
  if (file.oldMode !== null && file.newMode !== null && file.oldMode !== file.newMode) {
    details.push(`mode ${file.oldMode} -> ${file.newMode}`);
  }
  return `${STATUS_LETTER[file.status]} ${name} (${details.join(", ")})`;
}

/** The first line of a diff's summary: files and lines changed, over every file (not only the listed page). */
export function renderTotals(window: PatchWindow): string {
  const { totals } = window;
  const notCounted = "outside this part of the patch; stat=true counts every file";
  const lines =
    totals.uncounted === totals.files && totals.files > 0
      ? ` (lines not counted: ${notCounted})`
      : `, +${totals.additions} -${totals.deletions}${totals.binary > 0 ? `, ${totals.binary} binary` : ""}${
          totals.uncounted > 0 ? ` (${totals.uncounted} not counted: ${notCounted})` : ""
        }`;
  return `${plural(totals.files, "file")} changed${lines}`;
}

/** What the file list cannot say about rename detection: that git gave up on some, or that it was switched off. */
function renameNotes(window: PatchWindow): string[] {
  if (window.renames.skipped !== null) return [`Rename detection skipped: ${window.renames.skipped}; renamed files show as deleted and added.`];
  if (window.renames.limitExceeded) {
    return [
      "Rename detection was limited: more files changed than git compares for renames (diff.renameLimit), so some renames may show as deleted and added.",
    ];
  }
  return [];
}

/**
 * The totals and one line per file of the page `window.files`, then, when the page is not every file, what it
 * left out and how to get the rest. `continueWith` names the call to repeat, e.g. `git_diff with the same arguments`.
 */
export function renderSummary(window: PatchWindow, continueWith: string): string {
  const lines = [renderTotals(window), ...renameNotes(window), ...window.files.map(renderFileLine)];
  const footer = fileListFooter(window, continueWith);
  if (footer !== undefined) lines.push(footer);
  return lines.join("\n");
}

function fileListFooter(window: PatchWindow, continueWith: string): string | undefined {
  const total = window.totals.files;
  if (window.files.length === total) return undefined;
  if (window.files.length === 0) {
    return `[no files listed from fileOffset ${window.fileOffset}: there are ${plural(total, "file")}; call ${continueWith} and fileOffset=0]`;
  }
  const first = window.fileOffset + 1;
  const last = window.fileOffset + window.files.length;
  const next =
    window.nextFileOffset === null
      ? ""
      : ` Call ${continueWith} and fileOffset=${window.nextFileOffset} for the next files, or pass path to narrow it.`;
  const before = window.fileOffset > 0 ? ` Files 1-${window.fileOffset} come with fileOffset=0.` : "";
  return `[files ${first}-${last} of ${total} listed; the totals above count every file.${next}${before}]`;
}

/**
 * The patch part of the text with a footer saying exactly what was cut and how to get the rest.
 * `continueWith` names the tool and the arguments to repeat, e.g. `git_diff with the same arguments`.
 */
export function renderPatchWindow(window: PatchWindow, continueWith: string): string {
  if (window.patch === null) return "";
  if (window.patch === "" && window.offset > 0) {
    // `offset` here is where reading stopped, the end of the patch, not necessarily the offset asked for.
    return `(nothing more to show: the offset is at or past the end of the patch, ${plural(window.offset, "byte")} long)`;
  }
  const parts = [window.patch.replace(/\n$/, "")];
  const end = window.offset + window.returnedBytes;
  if (window.truncated) {
    parts.push(
      `[patch truncated: showed bytes ${window.offset}-${end} (more follows). ` +
        `Call ${continueWith} and offset=${window.nextOffset} for the next part, or pass path to narrow it.]`,
    );
  } else if (window.offset > 0) {
    parts.push(`[end of patch: bytes ${window.offset}-${end} of ${window.bytes ?? end}]`);
  }
  return parts.join("\n");
}
