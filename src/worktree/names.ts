/**
 * Worktree names and the branches made for them. A name becomes a directory (`<worktrees>/<name>`) and part of a
 * branch (`worktree-<name>`), so it must be a single path component and keep the branch within git's ref-name
 * rules (`git check-ref-format`): checked here, before anything is written, so the caller learns what to change.
 */
import { randomBytes } from "node:crypto";
import { GitctxError } from "../errors.js";

export const DEFAULT_BRANCH_PREFIX = "worktree-";
/** Names longer than this make paths and branch names no one reads whole. */
export const MAX_NAME_LENGTH = 100;

/** Why `component` cannot be one component of a ref name, or `undefined` when it can (git's `check_refname_component`). */
function componentProblem(component: string): string | undefined {
  if (component === "") return "is empty";
  if (component.startsWith(".")) return 'starts with "."';
  if (component.endsWith(".lock")) return 'ends with ".lock"';
  if (component.includes("..")) return 'contains ".."';
  if (component.includes("@{")) return 'contains "@{"';
  if (/[\u0000-\u001f\u007f]/.test(component)) return "contains a control character";
  if (/\s/.test(component)) return "contains white space";
  const bad = /[~^:?*[\\]/.exec(component);
  if (bad !== null) return `contains "${bad[0]}"`;
  return undefined;
}

/** The branch-safe spelling of a name with white space or other characters git refuses, for the hint. */
function suggestion(name: string): string {
  const fixed = name
    .replace(/[\s~^:?*[\\/]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/@\{/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .replace(/\.lock$/, "");
  return fixed === "" ? "fix-login" : fixed;
}

/** Refuses a worktree name that is not one safe path component or would not make a valid branch name. */
export function checkWorktreeName(name: string): void {
  const refuse = (why: string): never => {
    throw new GitctxError(
      "invalid_input",
      `The worktree name ${JSON.stringify(name)} ${why}.`,
      `Give a name of letters, digits, "-", "_" or "." (unicode letters are fine), e.g. "${suggestion(name)}"; or give none and gitctx picks one.`,
    );
  };
  if (name.length === 0) refuse("is empty");
  if ([...name].length > MAX_NAME_LENGTH) refuse(`is longer than ${MAX_NAME_LENGTH} characters`);
  if (name.startsWith("-")) refuse('starts with "-", which git would read as an option');
  if (name.includes("/") || name.includes("\\")) refuse("contains a path separator: it must be a single directory name");
  if (name === "." || name === ".." || name.includes("..")) refuse('contains ".."');
  if (name === "@") refuse('is "@", which git reads as HEAD');
  if (name.endsWith(".")) refuse('ends with "."');
  const problem = componentProblem(name);
  if (problem !== undefined) refuse(`${problem}, which git does not allow in a branch name`);
}

/** Refuses a branch prefix that would make invalid branch names (it may contain `/`, as in `agents/`). */
export function checkBranchPrefix(prefix: string): void {
  const parts = prefix.split("/");
  // The last part is completed by the name, so it may be empty ("agents/") or end with "-".
  const problems = parts
    .slice(0, -1)
    .map(componentProblem)
    .filter((problem) => problem !== undefined);
  const last = parts.at(-1)!;
  const lastProblem = last === "" ? undefined : componentProblem(`${last}x`);
  if (prefix.startsWith("-") || problems.length > 0 || lastProblem !== undefined) {
    throw new GitctxError(
      "invalid_input",
      `The branch prefix ${JSON.stringify(prefix)} would not make valid branch names (${prefix.startsWith("-") ? 'it starts with "-"' : (problems[0] ?? lastProblem)}).`,
      `Use a prefix such as "${DEFAULT_BRANCH_PREFIX}" or "agents/".`,
    );
  }
}

/** A fresh name when the caller gives none: the day and a random part, so names sort by age and never collide. */
export function generateWorktreeName(now: Date = new Date()): string {
  const day = now.toISOString().slice(0, 10).replaceAll("-", "");
  return `${day}-${randomBytes(3).toString("hex")}`;
}
