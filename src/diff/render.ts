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

export function renderFileLine(file: DiffFileSummary): string {
  const name = file.oldPath === null ? showPath(file.path) : `${showPath(file.oldPath)} -> ${showPath(file.path)}`;
  const details = [file.binary === null ? "not counted" : lineDelta(file.additions, file.deletions)];
  if (file.hunks !== null && file.hunks > 0) details.push(plural(file.hunks, "hunk"));
  if (file.oldMode !== null && file.newMode !== null && file.oldMode !== file.newMode) {
    details.push(`mode ${file.oldMode} -> ${file.newMode}`);
  }
  return `${STATUS_LETTER[file.status]} ${name} (${details.join(", ")})`;
}

export function renderSummary(window: PatchWindow): string {
  const { totals } = window;
  const notCounted = "outside this part of the patch; stat=true counts every file";
  const lines =
    totals.uncounted === totals.files && totals.files > 0
      ? ` (lines not counted: ${notCounted})`
      : `, +${totals.additions} -${totals.deletions}${totals.binary > 0 ? `, ${totals.binary} binary` : ""}${
          totals.uncounted > 0 ? ` (${totals.uncounted} not counted: ${notCounted})` : ""
        }`;
  const head = `${plural(totals.files, "file")} changed${lines}`;
  const notes: string[] = [];
  if (window.renames.skipped !== null) notes.push(`Rename detection skipped: ${window.renames.skipped}; renamed files show as deleted and added.`);
  else if (window.renames.limitExceeded) {
    notes.push("Rename detection was limited: more files changed than git compares for renames (diff.renameLimit 1000), so some renames may show as deleted and added.");
  }
  return [head, ...notes, ...window.files.map(renderFileLine)].join("\n");
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
