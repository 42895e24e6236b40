// What the benchmarks share.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The `git status` command git_status runs (src/tools/git-status.ts), which plain git runs beside it in the benches. */
export const STATUS_ARGS = ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--find-renames", "--ahead-behind"];
