/**
 * What git leaves in the git directory while an operation waits for the user: merge, rebase, am, cherry-pick,
 * revert, bisect. Read from the files git itself consults (`MERGE_HEAD`, `rebase-merge/`, ...); no git process.
 * The directory is the worktree's own one, where these files live for a linked worktree too.
 */
import { lstat } from "node:fs/promises";
import { readRegularFile } from "../git/read-file.js";
import { join } from "node:path";

export type OperationKind = "merge" | "rebase" | "am" | "cherry-pick" | "revert" | "bisect";

export interface Operation {
  kind: OperationKind;
  /** The commit being merged, cherry-picked or reverted; for a rebase, `null`. */
  commit: string | null;
  /**
   * The branch being rebased; for a merge, the branch (or tag) being merged, as git's merge message names it;
   * the branch a bisect started from; otherwise `null`.
   */
  branch: string | null;
  /** The commit a rebase replays onto. */
  onto: string | null;
  /** Progress of a rebase or am: the current step and the number of steps. */
  step: number | null;
  steps: number | null;
}

/**
 * A state file's text. The git directory may come from anyone (an unpacked archive): a symlink or a FIFO in
 * place of `MERGE_HEAD` must neither put another file's text in the result nor block the call. State files are
 * a line or two; 4 KiB is plenty.
 */
/**
 * What the sequencer's todo list goes on with, read as git reads it (sequencer.c `sequencer_get_last_command`):
 * its first word after any white space, `pick` (or `p`) or `revert`, followed by a space or tab.
 */
function sequencerCommand(todo: string | undefined): "cherry-pick" | "revert" | undefined {
  const first = /^[ \t\r\n]*(\S+)[ \t]/.exec(todo ?? "")?.[1];
  if (first === "pick" || first === "p") return "cherry-pick";
  if (first === "revert") return "revert";
  return undefined;
}

async function readText(path: string): Promise<string | undefined> {
  return (await readRegularFile(path, 4096))?.toString("utf8");
}

async function isDirectory(path: string): Promise<boolean> {
  return lstat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

function firstLine(text: string | undefined): string | null {
  const line = text?.split("\n")[0]?.trim();
  return line === undefined || line === "" ? null : line;
}

/** The first line when it is an object id; anything else in a state file is not repeated to the caller. */
function oidLine(text: string | undefined): string | null {
  const line = firstLine(text);
  return line !== null && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(line) ? line : null;
}

function number(text: string | undefined): number | null {
  const line = firstLine(text);
  return line !== null && /^\d+$/.test(line) ? Number(line) : null;
}

function branchName(ref: string | null): string | null {
  if (ref === null || ref === "detached HEAD") return null;
  return ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
}

/**
 * What a merge merges, from the first line git writes to MERGE_MSG (`Merge branch 'topic' into main`, `Merge
 * remote-tracking branch 'origin/topic'`, `Merge tag 'v1.0'`); `null` for any other line (an octopus, a message
 * the user wrote), which names nothing reliably.
 */
function mergedName(message: string | undefined): string | null {
  const match = /^Merge (?:remote-tracking branch|branch|tag) '([^'\n]+)'(?: of [^\n]*)?(?: into [^\n]*)?$/.exec(firstLine(message) ?? "");
  return match === null ? null : match[1]!;
}

const EMPTY = { commit: null, branch: null, onto: null, step: null, steps: null };

/** Every operation in progress, most pressing first (a bisect can be under way while a merge waits). */
export async function readOperations(gitDir: string): Promise<Operation[]> {
  const at = (name: string): string => join(gitDir, name);
  const [mergeHead, mergeMessage, cherryPickHead, revertHead, todo, bisectLog, bisectStart, rebaseMerge, rebaseApply] = await Promise.all([
    readText(at("MERGE_HEAD")),
    readText(at("MERGE_MSG")),
    readText(at("CHERRY_PICK_HEAD")),
    readText(at("REVERT_HEAD")),
    readText(at("sequencer/todo")),
    readText(at("BISECT_LOG")),
    readText(at("BISECT_START")),
    isDirectory(at("rebase-merge")),
    isDirectory(at("rebase-apply")),
  ]);
  const operations: Operation[] = [];
  if (rebaseMerge) {
    const [head, onto, step, steps] = await Promise.all([
      readText(at("rebase-merge/head-name")),
      readText(at("rebase-merge/onto")),
      readText(at("rebase-merge/msgnum")),
      readText(at("rebase-merge/end")),
    ]);
    operations.push({ ...EMPTY, kind: "rebase", branch: branchName(firstLine(head)), onto: oidLine(onto), step: number(step), steps: number(steps) });
  } else if (rebaseApply) {
    const [applying, head, onto, step, steps] = await Promise.all([
      readText(at("rebase-apply/applying")),
      readText(at("rebase-apply/head-name")),
      readText(at("rebase-apply/onto")),
      readText(at("rebase-apply/next")),
      readText(at("rebase-apply/last")),
    ]);
    if (applying !== undefined) operations.push({ ...EMPTY, kind: "am", step: number(step), steps: number(steps) });
    else {
      operations.push({
        ...EMPTY,
        kind: "rebase",
        branch: branchName(firstLine(head)),
        onto: oidLine(onto),
        step: number(step),
        steps: number(steps),
      });
    }
  }
  if (mergeHead !== undefined) operations.push({ ...EMPTY, kind: "merge", commit: oidLine(mergeHead), branch: mergedName(mergeMessage) });
  // A cherry-pick or revert of several commits is still in progress while its todo list is left, also between two
  // of them (no CHERRY_PICK_HEAD once a conflict is resolved and committed), as git status says.
  const sequence = sequencerCommand(todo);
  if (cherryPickHead !== undefined || sequence === "cherry-pick") {
    operations.push({ ...EMPTY, kind: "cherry-pick", commit: cherryPickHead === undefined ? null : oidLine(cherryPickHead) });
  }
  if (revertHead !== undefined || sequence === "revert") {
    operations.push({ ...EMPTY, kind: "revert", commit: revertHead === undefined ? null : oidLine(revertHead) });
  }
  if (bisectLog !== undefined || bisectStart !== undefined) {
    operations.push({ ...EMPTY, kind: "bisect", branch: branchName(firstLine(bisectStart)) });
  }
  return operations;
}
