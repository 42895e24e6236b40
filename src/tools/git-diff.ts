import * as z from "zod";
import { BASE_REVISION } from "../context/base-branch.js";
import { readPatch, type PatchWindow } from "../diff/read-patch.js";
import { renderPatchWindow, renderSummary, renderTotals } from "../diff/render.js";
import { GitctxError } from "../errors.js";
import { resolveHead, resolveWorkspacePath } from "../git/args.js";
import { neutralisedLine } from "../git/config-scan.js";
import type { Repository } from "../git/repository.js";
import { showInline, showPath } from "../text.js";
import { fileLimitField, fileOffsetField, pageFiles, patchFitter } from "./diff-text.js";
import { contextField, copiesField, maxBytesField, offsetField, pathField } from "./fields.js";
import { patchWindowShape, type Assert, type Exact } from "./outputs.js";
import { explainBase, resolveRevision, splitRange } from "./revisions.js";
import { defineTool } from "./tool.js";

export type DiffMode = "unstaged" | "staged" | "commit" | "range";

export interface GitDiffData extends PatchWindow {
  mode: DiffMode;
  /** What was compared, in words. */
  comparison: string;
  /** Resolved object ids of `commit` and `commit2` (or of the two sides of a range written in `commit`). */
  base: string | null;
  target: string | null;
  path: string | null;
}

const inputSchema = z.strictObject({
  staged: z.boolean().default(false).describe("Show staged changes (index vs HEAD, or vs commit) instead of unstaged ones (working tree vs index)."),
  commit: z
    .string()
    .optional()
    .describe(
      "Diff against this commit (hash, branch, tag, HEAD~2...). Alone: working tree (or index with staged) vs it. " +
        "Also accepts a range A..B (A vs B) or A...B (B since its merge base with A). " +
        `${BASE_REVISION} stands for the merge-base of HEAD with its base branch (upstream, else the remote's default ` +
        `branch, else main/master/develop/trunk; see git_context): commit="${BASE_REVISION}" is the whole change of this ` +
        `branch including uncommitted work, commit="${BASE_REVISION}..HEAD" its commits only (as a pull request shows).`,
    ),
  commit2: z.string().optional().describe("With commit: show what commit2 changed since its merge base with commit (commit...commit2)."),
  path: pathField.optional().describe("Limit the diff to this file or directory (relative to the workspace root)."),
  maxBytes: maxBytesField.optional(),
  offset: offsetField.optional(),
  stat: z
    .boolean()
    .default(false)
    .describe("Only the per-file summary, no patch, with +/- lines and binary counted for every file whatever the size of the diff."),
  context: contextField.optional(),
  copies: copiesField,
  fileOffset: fileOffsetField.default(0),
  fileLimit: fileLimitField.optional(),
});

type Input = z.output<typeof inputSchema>;

const outputSchema = z.strictObject({
  mode: z.enum(["unstaged", "staged", "commit", "range"]),
  comparison: z.string(),
  base: z.string().nullable(),
  target: z.string().nullable(),
  path: z.string().nullable(),
  ...patchWindowShape,
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitDiffData>>;

export const gitDiff = defineTool({
  name: "git_diff",
  title: "Git diff",
  description:
    "Show what changed: unstaged (default), staged, against a commit, or between two commits (three-dot). " +
    "Returns the changed files (status, renames, modes; totals over every file, the list paged with fileOffset) and " +
    "the unified patch, capped at maxBytes with an offset to continue; by default the answer fits 10,000 tokens. " +
    "+/- lines, hunks and binary are counted for the files whose part of the patch is returned (stat=true " +
    "counts all, without the patch). Prefer this over `git diff` in a shell: output is bounded, " +
    "structured, and no external diff, textconv or filter from the repository's config can run. " +
    `For the whole change of this branch since it left its base branch, pass commit="${BASE_REVISION}".`,
  keywords: ["git", "diff", "patch", "changes", "staged", "unstaged", "compare", "range", "review", "hunk"],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const repo = await context.repo();
    const plan = labelBase(repo, await planComparison(repo, input));
    const target = input.path === undefined ? undefined : await resolveWorkspacePath(repo, input.path);
    const list = { fileOffset: input.fileOffset, fileLimit: input.fileLimit };
    const scope = target === undefined ? "" : ` under ${showPath(target.input)}`;
    // Programs the repository's (or the user's) config names do not run, filters included: say so under the header,
    // since a file such a filter cleans can show a change here that the user's git does not.
    const warning = neutralisedLine(repo.neutralised);
    const noted = warning === undefined ? "" : `\n${warning}`;
    const read = await readPatch(repo, {
      revisionArgs: plan.revisionArgs,
      // A workspace below the top level sees only its own files, named relative to it like the caller's paths.
      relativeTo: repo.paths.prefix,
      pathspecs: target === undefined ? [] : [target.pathspec],
      statOnly: input.stat,
      findCopies: input.copies,
      ...(input.context !== undefined ? { contextLines: input.context } : {}),
      ...(input.maxBytes !== undefined ? { maxBytes: input.maxBytes } : {}),
      ...(input.offset !== undefined ? { offset: input.offset } : {}),
      // A window of the default size ends where the token budget does; a size the caller gives is kept.
      ...(input.maxBytes === undefined ? { fitPatch: patchFitter(() => `Diff of ${plan.comparison}${scope}: 1 file changed${noted}`, list) } : {}),
    });
    const header = `Diff of ${plan.comparison}${scope}: ${renderTotals(read)}${noted}`;
    const window = await pageFiles(read, list, `${header}\n\n${renderPatchWindow(read, CONTINUE)}`);
    const data: GitDiffData = {
      mode: plan.mode,
      comparison: plan.comparison,
      base: plan.base,
      target: plan.target,
      path: target?.input ?? null,
      ...window,
    };
    return { data, text: renderDiff(data, target?.exists ?? true, warning) };
  },
});

interface Comparison {
  mode: DiffMode;
  comparison: string;
  revisionArgs: string[];
  base: string | null;
  target: string | null;
}

async function planComparison(repo: Repository, input: Input): Promise<Comparison> {
  if (input.commit2 !== undefined && input.commit === undefined) {
    throw new GitctxError("invalid_input", "commit2 needs commit.", "Pass commit as well: the diff shows commit...commit2.");
  }
  const range = input.commit === undefined ? undefined : splitRange(input.commit);
  if (range === undefined && input.commit2 === undefined) {
    repo.requireWorkTree(
      input.commit === undefined ? `git_diff of ${input.staged ? "staged" : "unstaged"} changes` : `git_diff against ${input.commit} alone`,
      'A diff between two commits needs none: pass commit="A..B" (or commit and commit2).',
    );
  }
  if (input.commit === undefined) {
    if (!input.staged) {
      return { mode: "unstaged", comparison: "unstaged changes (working tree vs index)", revisionArgs: [], base: null, target: null };
    }
    const head = await resolveHead(repo);
    return {
      mode: "staged",
      comparison: head === undefined ? "staged changes (index vs empty tree: no commits yet)" : "staged changes (index vs HEAD)",
      revisionArgs: ["--cached"],
      base: head ?? null,
      target: null,
    };
  }

  if (range !== undefined) {
    if (input.commit2 !== undefined) {
      throw new GitctxError(
        "invalid_input",
        `commit "${input.commit}" is already a range, so commit2 cannot be added.`,
        "Pass either a range in commit, or commit and commit2.",
      );
    }
    if (input.staged) throw stagedWithRange();
    return twoCommits(repo, range.left, range.right, range.threeDot, "commit");
  }
  if (input.commit2 !== undefined) {
    if (input.staged) throw stagedWithRange();
    return twoCommits(repo, input.commit, input.commit2, true, "commit2");
  }
  const base = await resolveRevision(repo, input.commit, "commit");
  return {
    mode: "commit",
    comparison: input.staged ? `staged changes vs ${input.commit}` : `working tree vs ${input.commit}`,
    revisionArgs: input.staged ? ["--cached", base] : [base],
    base,
    target: null,
  };
}

async function twoCommits(repo: Repository, left: string, right: string, threeDot: boolean, rightField: "commit" | "commit2"): Promise<Comparison> {
  const [base, target] = await Promise.all([resolveRevision(repo, left, "commit"), resolveRevision(repo, right, rightField)]);
  if (threeDot) {
    const mergeBase = await repo.git("merge-base", [base, target]);
    if (mergeBase.exitCode !== 0) {
      throw new GitctxError(
        "bad_revision",
        `${left} and ${right} have no common ancestor, so ${left}...${right} is undefined.`,
        `Use commit="${left}..${right}" to compare the two snapshots directly.`,
      );
    }
  }
  return {
    mode: "range",
    comparison: threeDot ? `changes on ${right} since its merge base with ${left}` : `${left} vs ${right}`,
    revisionArgs: threeDot ? [`${base}...${target}`] : [base, target],
    base,
    target,
  };
}

function stagedWithRange(): GitctxError {
  return new GitctxError(
    "invalid_input",
    "staged cannot be combined with a diff between two commits.",
    "Drop staged, or pass only commit to compare the index against it.",
  );
}

export { splitRange } from "./revisions.js";

const CONTINUE = "git_diff with the same arguments";

function renderDiff(data: GitDiffData, pathExists: boolean, warning: string | undefined): string {
  const text = renderChanges(data, pathExists);
  if (warning === undefined) return text;
  const lineEnd = text.indexOf("\n");
  return lineEnd === -1 ? `${text}\n${warning}` : `${text.slice(0, lineEnd)}\n${warning}${text.slice(lineEnd)}`;
}

function renderChanges(data: GitDiffData, pathExists: boolean): string {
  const scope = data.path === null ? "" : ` under ${showPath(data.path)}`;
  if (data.totals.files === 0) {
    const noCommits = data.mode === "staged" && data.base === null;
    const empty: Record<DiffMode, string> = {
      unstaged: "No unstaged changes: the working tree matches the index (staged changes, if any, need staged=true).",
      staged: noCommits
        ? "No staged changes: nothing has been added to the index yet (no commits yet)."
        : "No staged changes: the index matches HEAD (unstaged changes, if any, show without staged).",
      commit: `No differences: ${data.comparison}.`,
      range: `No differences: ${data.comparison}.`,
    };
    // A path that is not on disk may still exist in a commit, so it is a note rather than an error.
    const missing = pathExists || data.path === null ? "" : `\n(Note: ${showPath(data.path)} does not exist in the working tree.)`;
    return `${showInline(empty[data.mode]).replace(/:/, `${scope}:`)}${missing}`;
  }
  // The comparison names the caller's revisions: shown on its line whatever characters they have.
  const header = `Diff of ${showInline(data.comparison)}${scope}: ${renderSummary(data, CONTINUE)}`;
  const patch = renderPatchWindow(data, CONTINUE);
  return patch === "" ? header : `${header}\n\n${patch}`;
}

function labelBase(repo: Repository, plan: Comparison): Comparison {
  return { ...plan, comparison: explainBase(repo, plan.comparison) };
}
