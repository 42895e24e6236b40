import * as z from "zod";
import { GitctxError } from "../errors.js";
import { createWorktreeIn } from "../worktree/create.js";
import { adminDirOf, releaseLock } from "../worktree/record.js";
import { countSchema, type Assert, type Exact } from "./outputs.js";
import { defineTool } from "./tool.js";
import { originalRepository, rootInWorktree, worktreeState } from "./worktree-session.js";

export interface EnterWorktreeData {
  name: string;
  /** The worktree's directory. */
  worktreePath: string;
  /** The session's workspace now: the worktree, or the same subdirectory of it the session started in. */
  root: string;
  branch: string;
  /** The commit the branch started at. */
  base: string;
  /** `false`: the worktree existed (gitctx made it earlier) and was reopened. */
  created: boolean;
  /** Where the checkout differs from what the user's own git would have made, and what was linked or copied. */
  notes: string[];
  /** Files checked out without a filter the repository defines (the notes say which, and how to apply it). */
  unfilteredFiles: number;
}

const inputSchema = z.strictObject({
  name: z
    .string()
    .optional()
    .describe(
      'Name of the worktree (a branch-name word: letters, digits, "-", "_", "."; no spaces or "/"). Omit it to get a fresh one; give an existing one to reopen it.',
    ),
  base: z.string().optional().describe("The revision the new branch starts at (default HEAD)."),
});

const outputSchema = z.strictObject({
  name: z.string(),
  worktreePath: z.string(),
  root: z.string(),
  branch: z.string(),
  base: z.string(),
  created: z.boolean(),
  notes: z.array(z.string()),
  unfilteredFiles: countSchema,
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, EnterWorktreeData>>;

export const enterWorktree = defineTool({
  name: "enter_worktree",
  title: "Enter a git worktree",
  description:
    "Create an isolated git worktree on a new branch worktree-<name> (from HEAD, or base) and move this session " +
    "into it: every later tool call works there until exit_worktree. Use it to try a risky change, or to work " +
    "beside other agents, without touching the main checkout. Prefer this over `git worktree add` in a shell: no hook, " +
    "filter or fsmonitor of the repository runs, node_modules/.venv/vendor are linked rather than installed " +
    "again, and the result says what the checkout lacks (e.g. LFS files) and how to get it. Giving the name of " +
    "a worktree made earlier reopens it.",
  keywords: ["git", "worktree", "isolate", "branch", "sandbox", "experiment", "parallel", "checkout", "enter"],
  permission: "workspace-write",
  destructive: false,
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const { session } = context;
    const repo = await context.repo();
    const state = worktreeState(session);
    const original = await originalRepository(session, repo);
    const created = await createWorktreeIn(repo, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.base !== undefined ? { base: input.base } : {}),
      ...(session.worktreeSettings !== undefined ? { settings: session.worktreeSettings } : {}),
      mode: session.mode,
      lockReason: state.lockReason,
    });
    const adminDir = await adminDirOf(created.path);
    if (adminDir === undefined) throw new GitctxError("git_failed", `The worktree ${created.path} has no .git file leading to its git directory.`);
    const root = await rootInWorktree(created.path, original.prefix);
    try {
      await session.moveRoot(root);
    } catch (error) {
      if (state.held?.adminDir !== adminDir) await releaseLock(adminDir, state.lockReason);
      throw error;
    }
    const previous = state.held;
    if (previous !== undefined && previous.adminDir !== adminDir) await releaseLock(previous.adminDir, state.lockReason);
    state.held = { name: created.name, path: created.path, adminDir };
    const data: EnterWorktreeData = {
      name: created.name,
      worktreePath: created.path,
      root,
      branch: created.branch,
      base: created.base,
      created: created.created,
      notes:
        previous !== undefined && previous.adminDir !== adminDir ? [`Left the worktree ${previous.name} (kept).`, ...created.notes] : created.notes,
      unfilteredFiles: created.filters.reduce((sum, filter) => sum + filter.files, 0),
    };
    return { data, text: renderEnter(data, session.originalRoot) };
  },
});

function renderEnter(data: EnterWorktreeData, originalRoot: string): string {
  const how = data.created ? `on the new branch ${data.branch} (from ${data.base.slice(0, 12)})` : `on its branch ${data.branch}`;
  const lines = [
    `${data.created ? "Entered the new" : "Reopened and entered the"} worktree ${data.name} at ${data.worktreePath}, ${how}.`,
    `Every tool call now works in ${data.root}. exit_worktree returns to ${originalRoot} (action "keep" keeps the worktree, "remove" deletes it).`,
  ];
  for (const note of data.notes) lines.push(`- ${note}`);
  return lines.join("\n");
}
