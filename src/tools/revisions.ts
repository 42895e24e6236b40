/**
 * Revisions as the history tools take them: a commit (hash, branch, tag, `HEAD~2`...), `@{base}` for the
 * merge-base of HEAD with its base branch, and the ranges `A..B` and `A...B` (git_diff and git_log read them the
 * way git does). One source, so `{"commit": "@{base}..HEAD"}` in git_diff and `{"ref": "@{base}..HEAD"}` in
 * git_log mean the same commits.
 */
import { BASE_REVISION, requireBaseMergeBase, type BaseBranch } from "../context/base-branch.js";
import { resolveCommit } from "../git/args.js";
import type { Repository } from "../git/repository.js";

/** `A...B` or `A..B`; as in git, a missing side means HEAD (`A..` is `A..HEAD`). Anything else is one revision. */
export function splitRange(value: string): { left: string; right: string; threeDot: boolean } | undefined {
  const match = /^(.*?)(\.\.\.?)(.*)$/.exec(value);
  if (!match || (match[1] === "" && match[3] === "")) return undefined;
  return { left: match[1] || "HEAD", right: match[3] || "HEAD", threeDot: match[2] === "..." };
}

/** The base branch found for a call's repository, kept to say what `@{base}` stood for. */
const basesFound = new WeakMap<Repository, BaseBranch>();

/** `resolveCommit`, plus `@{base}`: the object id of the commit. */
export async function resolveRevision(repo: Repository, value: string, field: string): Promise<string> {
  if (value !== BASE_REVISION) return resolveCommit(repo, value, field);
  const base = await requireBaseMergeBase(repo);
  basesFound.set(repo, base);
  return base.mergeBase;
}

/**
 * `text` with `@{base}` explained (`@{base} (merge-base 1a2b3c4d5e6f of HEAD and origin/main, ...)`) when this
 * call resolved it; as it is otherwise.
 */
export function explainBase(repo: Repository, text: string): string {
  const base = basesFound.get(repo);
  if (base === undefined) return text;
  const label = `${BASE_REVISION} (merge-base ${base.mergeBase!.slice(0, 12)} of HEAD and ${base.name}, ${base.reason})`;
  return text.replaceAll(BASE_REVISION, label);
}
