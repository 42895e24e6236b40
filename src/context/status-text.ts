/** How a status entry and the counts read in text: one source for git_status and the snapshot. */
import type { StatusCounts, StatusEntry } from "../git/parse/status.js";
import { plural, showPath } from "../text.js";

/**
 * `2 staged, 2 unstaged`, saying how many paths are both when some are, so that the parts never look like they
 * should add up to the total. Every path is counted once in untracked or conflicted, or in staged, unstaged or
 * both: what the parts count beyond the total is the number of paths that are both.
 */
export function describeCounts(counts: Omit<StatusCounts, "untracked"> & { untracked?: number }): string {
  const untracked = counts.untracked ?? 0;
  const parts = [
    counts.staged > 0 ? `${counts.staged} staged` : "",
    counts.unstaged > 0 ? `${counts.unstaged} unstaged` : "",
    untracked > 0 ? `${untracked} untracked` : "",
    counts.conflicted > 0 ? `${counts.conflicted} conflicted` : "",
  ].filter(Boolean);
  const both = counts.staged + counts.unstaged + untracked + counts.conflicted - counts.total;
  return both > 0 ? `${parts.join(", ")}; ${plural(both, "path")} ${both === 1 ? "is" : "are"} both staged and unstaged` : parts.join(", ");
}

/** One entry as `git status --short` shows it, with what the two letters cannot say (a link, a submodule's state). */
export function statusLine(entry: StatusEntry): string {
  const code = entry.kind === "untracked" ? "??" : `${entry.index}${entry.worktree}`.replaceAll(".", " ");
  const name = entry.origPath === null ? showPath(entry.path) : `${showPath(entry.origPath)} -> ${showPath(entry.path)}`;
  const notes: string[] = [];
  if (entry.symlink === true) notes.push("symlink");
  if (entry.submodule !== undefined) {
    const { commitChanged, modified, untracked } = entry.submodule;
    const states = [
      commitChanged ? "checked out at another commit than the one recorded" : "",
      modified ? "modified content" : "",
      untracked ? "untracked content" : "",
    ].filter(Boolean);
    notes.push(states.length === 0 ? "submodule" : `submodule: ${states.join(", ")}`);
  }
  return notes.length === 0 ? `${code} ${name}` : `${code} ${name} (${notes.join("; ")})`;
}
