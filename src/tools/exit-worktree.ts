import * as z from "zod";
import { GitctxError } from "../errors.js";
import { resolveLayout } from "../worktree/layout.js";
import { readAdminEntries, releaseLock, writeRecord } from "../worktree/record.js";
import { describeLosses, removeFound, removeWorktreeIn, type RemovedWorktree } from "../worktree/remove.js";
import { countSchema, type Assert, type Exact } from "./outputs.js";
import { defineTool, type ToolSession } from "./tool.js";
import { worktreeState, type WorktreeSessionState } from "./worktree-session.js";

export interface ExitWorktreeData {
  action: "keep" | "remove";
  /** Where the session works now: the root it started with. */
  originalRoot: string;
  worktreePath: string;
  branch: string;
  /** Uncommitted and untracked files deleted with the worktree (`discard_changes: true`). */
  discardedFiles: number;
  /** Commits deleted with the branch that were on no other branch, tag or upstream. */
  discardedCommits: number;
  notes: string[];
}

const inputSchema = z.strictObject({
  action: z
    .enum(["keep", "remove"])
    .describe(
      '"keep": leave the worktree and its branch for later (enter_worktree with its name reopens it). "remove": delete the worktree and the branch gitctx made.',
    ),
  discard_changes: z
    .boolean()
    .default(false)
    .describe(
      "With remove: delete uncommitted files and commits that are on no other branch. Without it, remove refuses (uncommitted_changes) and lists them.",
    ),
});

const outputSchema = z.strictObject({
  action: z.enum(["keep", "remove"]),
  originalRoot: z.string(),
  worktreePath: z.string(),
  branch: z.string(),
  discardedFiles: countSchema,
  discardedCommits: countSchema,
  notes: z.array(z.string()),
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, ExitWorktreeData>>;

export const exitWorktree = defineTool({
  name: "exit_worktree",
  title: "Leave a git worktree",
  description:
    "Leave the worktree enter_worktree moved this session into, and return to the original workspace. " +
    '"keep" leaves the worktree and its branch; "remove" deletes both, but refuses while that would lose ' +
    "uncommitted files or commits on no other branch (listing them) unless discard_changes is true. Prefer this " +
    "over `git worktree remove` in a shell: it removes only worktrees gitctx made, and never touches the main " +
    "checkout's node_modules or other linked directories.",
  keywords: ["git", "worktree", "exit", "leave", "remove", "delete", "discard", "cleanup", "return"],
  permission: "workspace-write",
  destructive: true,
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const { session } = context;
    const state = worktreeState(session);
    const repo = await context.repo();
    const layout = await resolveLayout(repo.paths, session.worktreeSettings);
    if (session.root === session.originalRoot) {
      if (input.action === "remove" && state.pendingRemoval !== undefined) return finishPending(context.session, state, repo, input.discard_changes);
      throw new GitctxError(
        "invalid_input",
        `The session is not in a worktree: it works in ${session.root}, where it started.`,
        "Call enter_worktree first; exit_worktree leaves the worktree it entered.",
      );
    }
    const entry = (await readAdminEntries(layout.commonDir)).find((candidate) => candidate.adminDir === repo.paths.gitDir);
    const record = entry?.record;
    if (entry === undefined || record === undefined) {
      if (input.action === "remove") {
        throw new GitctxError(
          "invalid_input",
          `${repo.paths.topLevel} is not a worktree gitctx made, so exit_worktree will not remove it.`,
          'Use action "keep" to return to the original workspace.',
        );
      }
      await session.moveRoot(session.originalRoot);
      return done(session, { action: "keep", worktreePath: repo.paths.topLevel, branch: "", discardedFiles: 0, discardedCommits: 0, notes: [] });
    }
    const path = entry.path ?? record.path;
    if (input.action === "keep") {
      await session.moveRoot(session.originalRoot);
      if (state.held?.adminDir === entry.adminDir) state.held = undefined;
      await releaseLock(entry.adminDir, state.lockReason);
      await writeRecord(entry.adminDir, { ...record, lastUsedAt: new Date().toISOString() }).catch(() => undefined);
      return done(session, {
        action: "keep",
        worktreePath: path,
        branch: record.branch,
        discardedFiles: 0,
        discardedCommits: 0,
        notes: [
          `Kept the worktree ${record.name} and its branch ${record.branch}: enter_worktree {"name":${JSON.stringify(record.name)}} reopens it.`,
        ],
      });
    }
    let moved = false;
    try {
      const removed = await removeFound(
        repo,
        layout,
        { entry, record, path },
        {
          mode: session.mode,
          lockOwner: state.lockReason,
          discardChanges: input.discard_changes,
          // The checks passed: the session leaves before the directory goes.
          beforeChanges: async () => {
            await session.moveRoot(session.originalRoot);
            moved = true;
            state.held = undefined;
          },
        },
      );
      await session.invalidate("discovery");
      return done(session, removedData(removed), removed.branchDeleted);
    } catch (error) {
      if (moved && error instanceof GitctxError) {
        state.pendingRemoval = { name: record.name, discardChanges: input.discard_changes };
        throw new GitctxError(
          error.code,
          error.message,
          'The session is back in its original workspace; call exit_worktree with action "remove" again to finish.',
        );
      }
      throw error;
    }
  },
});

async function finishPending(
  session: ToolSession,
  state: WorktreeSessionState,
  repo: Parameters<typeof removeWorktreeIn>[0],
  discard: boolean,
): Promise<{ data: ExitWorktreeData; text: string }> {
  const pending = state.pendingRemoval!;
  const removed = await removeWorktreeIn(repo, {
    name: pending.name,
    mode: session.mode,
    lockOwner: state.lockReason,
    discardChanges: discard || pending.discardChanges,
    ...(session.worktreeSettings !== undefined ? { settings: session.worktreeSettings } : {}),
  });
  state.pendingRemoval = undefined;
  await session.invalidate("discovery");
  return done(session, removedData(removed), removed.branchDeleted);
}

function removedData(removed: RemovedWorktree): Omit<ExitWorktreeData, "originalRoot"> {
  const notes = [...removed.notes];
  if (removed.discarded.fileCount + removed.discarded.commitCount > 0) notes.unshift(`Discarded ${describeLosses(removed.discarded)}.`);
  return {
    action: "remove",
    worktreePath: removed.path,
    branch: removed.branch,
    discardedFiles: removed.discarded.fileCount,
    discardedCommits: removed.discarded.commitCount,
    notes,
  };
}

function done(session: ToolSession, fields: Omit<ExitWorktreeData, "originalRoot">, branchDeleted = false): { data: ExitWorktreeData; text: string } {
  const data: ExitWorktreeData = { ...fields, originalRoot: session.originalRoot };
  const what =
    data.action === "keep"
      ? `Left the worktree ${data.worktreePath} (kept${data.branch === "" ? "" : `, branch ${data.branch}`}).`
      : `Removed the worktree ${data.worktreePath}${branchDeleted ? ` and its branch ${data.branch}` : ""}.`;
  const lines = [`${what} Back in ${data.originalRoot}.`, ...data.notes.map((note) => `- ${note}`)];
  return { data, text: lines.join("\n") };
}
