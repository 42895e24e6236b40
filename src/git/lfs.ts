/**
 * Git LFS read the way the user's own git reads it, without running git-lfs or anything a config names.
 *
 * `git lfs install` writes `filter.lfs.process = git-lfs filter-process` (and `clean`/`smudge` for older gits) to
 * the user's global config, and `.gitattributes` sends `*.bin` and the like through the `lfs` driver. With it,
 * git stores a pointer in the index and compares a stat-dirty work tree file with it through the clean filter.
 * gitctx runs no program a config names, and with the driver merely switched off a touched LFS file would read as
 * modified ("Binary files differ") where the user's git says clean. So when the user's git would clean through
 * git-lfs, gitctx's git cleans through gitctx's own filter instead (`LFS_FILTER_SOURCE`): it computes the same
 * pointer git-lfs computes, and git does everything else (stat refresh, racily clean entries, diffs of the
 * pointers, counts) as it does for the user. Any other value of a `filter.lfs.*` program key is treated like any
 * other filter: switched off, and named in the warning.
 */
import { basename, isAbsolute } from "node:path";

/** The filter driver git-lfs installs, as `.gitattributes` names it (`filter=lfs`). */
export const LFS_DRIVER = "lfs";

/** The program words `git lfs install` writes for each key (older releases, and `--skip-smudge`, included). */
const STANDARD_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  process: ["filter-process", "filter-process --skip"],
  clean: ["clean -- %f", "clean %f"],
  smudge: ["smudge -- %f", "smudge %f", "smudge --skip -- %f", "smudge --skip %f"],
};

/**
 * Whether `value` of `filter.lfs.<variable>` is the command git-lfs installs. In the repository's config the
 * program must be plain `git-lfs` (the one the user installed, found on the user's PATH): a path there is the
 * repository's choice of program. In the user's own config a path to a `git-lfs` is the user's choice, and counts.
 */
function standardCommand(variable: string, value: string, where: "user" | "repository"): boolean {
  const words = value.trim().split(/\s+/);
  const program = words.shift() ?? "";
  const isGitLfs = program === "git-lfs" || (where === "user" && isAbsolute(program) && ["git-lfs", "git-lfs.exe"].includes(basename(program)));
  return isGitLfs && (STANDARD_COMMANDS[variable] ?? []).includes(words.join(" "));
}

/** `filter.lfs.<variable>` → `<variable>`, for the program keys; `undefined` for any other key. */
function lfsProgramKey(key: string): string | undefined {
  const match = /^filter\.lfs\.(process|clean|smudge)$/.exec(key);
  return match?.[1];
}

/**
 * Whether a setting of the repository's config is part of the standard LFS set-up: gitctx then reads the
 * repository as git-lfs would (nothing of the config runs), so it is not reported as a neutralised program.
 */
export function standardLfsSetting(key: string, value: string): boolean {
  const variable = lfsProgramKey(key);
  return variable !== undefined && standardCommand(variable, value, "repository");
}

/**
 * Whether a setting names a program git-lfs runs on every clean or smudge: an LFS extension
 * (`lfs.extension.<name>.clean`/`smudge`, which git-lfs reads from the repository's own config, never from the
 * tracked `.lfsconfig`). The user's `git status` would run it through git-lfs; gitctx runs no git-lfs, so none runs,
 * and it is reported like a neutralised program. (Extensions are not applied either: see `LFS_FILTER_SOURCE`.)
 */
export function lfsExtensionProgram(key: string, value: string): boolean {
  return /^lfs\.extension\..+\.(clean|smudge)$/.test(key) && value.trim() !== "";
}

/** One `filter.lfs.*` setting, with whose config it is in. */
export interface LfsFilterSetting {
  key: string;
  value: string;
  where: "user" | "repository";
}

/**
 * Whether the user's git, with these settings (in git's order: system, global, then the repository's local and
 * worktree config), cleans `filter=lfs` files with git-lfs. Decided as git's convert.c decides it: the last value
 * of each key wins; a `process` that is set at all (even empty) is used instead of `clean`, and an empty one
 * means no filter; otherwise `clean`, unless unset or empty. Anything but git-lfs's own command: not LFS, and
 * switched off like any other filter.
 */
export function cleansWithGitLfs(settings: readonly LfsFilterSetting[]): boolean {
  const last = new Map<string, LfsFilterSetting>();
  for (const setting of settings) {
    const variable = lfsProgramKey(setting.key);
    if (variable !== undefined) last.set(variable, setting);
  }
  const process = last.get("process");
  if (process !== undefined) return process.value.trim() !== "" && standardCommand("process", process.value, process.where);
  const clean = last.get("clean");
  return clean !== undefined && clean.value.trim() !== "" && standardCommand("clean", clean.value, clean.where);
}

/** What the results say about LFS: present when the repository's LFS files are read as git-lfs would read them. */
export interface LfsReading {
  /**
   * Whether `git-lfs` is on the PATH the user's git searches. When it is not, the user's own git fails on a
   * stat-dirty LFS file ("clean filter 'lfs' failed") until git-lfs is installed; gitctx answers as it would then.
   */
  gitLfsOnPath: boolean;
}

/** One line for a text when git-lfs is missing (the only case a reader must act on); `undefined` otherwise. */
export function lfsNote(lfs: LfsReading | null): string | undefined {
  if (lfs === null || lfs.gitLfsOnPath) return undefined;
  return "Note: this repository uses Git LFS but git-lfs is not on PATH: gitctx compares LFS files as git-lfs would, while plain git here may fail (\"clean filter 'lfs' failed\") until git-lfs is installed.";
}
