/**
 * What `enter_worktree` and `exit_worktree` keep for a session between calls: an id that names the session in
 * the locks it takes, the worktree it holds, and a removal that stopped halfway (the next exit finishes it). The
 * lock is released when the session leaves the worktree, enters another, or closes.
 */
import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { GitctxError } from "../errors.js";
import { discoverRepository, isInside, type RepositoryPaths } from "../git/discover.js";
import type { Repository } from "../git/repository.js";
import { lockReason, releaseLock } from "../worktree/record.js";
import type { ToolSession } from "./tool.js";

export interface HeldWorktree {
  name: string;
  path: string;
  adminDir: string;
}

export interface WorktreeSessionState {
  /** The lock reason this session writes: `gitctx session <id> (pid <pid> on <host>)`. */
  readonly lockReason: string;
  held: HeldWorktree | undefined;
  /** A removal that stopped halfway after the session had left the worktree. */
  pendingRemoval: { name: string; discardChanges: boolean } | undefined;
}

const states = new WeakMap<ToolSession, WorktreeSessionState>();

export function worktreeState(session: ToolSession): WorktreeSessionState {
  let state = states.get(session);
  if (state === undefined) {
    const created: WorktreeSessionState = { lockReason: lockReason(randomBytes(4).toString("hex")), held: undefined, pendingRemoval: undefined };
    state = created;
    states.set(session, created);
    session.onClose(async () => {
      const held = created.held;
      created.held = undefined;
      if (held !== undefined) await releaseLock(held.adminDir, created.lockReason);
    });
  }
  return state;
}

/**
 * The repository the session started in, which the current root must belong to: `workspace-write` writes only
 * there (a root moved by something else into another repository gets nothing written).
 */
export async function originalRepository(session: ToolSession, repo: Repository): Promise<RepositoryPaths> {
  const original = await discoverRepository(session.originalRoot, repo.trustRepository);
  if (original.commonDir !== repo.paths.commonDir && session.mode !== "danger-full-access") {
    throw new GitctxError(
      "permission_denied",
      `The workspace ${session.root} is not in the repository the session started in (${original.topLevel}); workspace-write writes only there.`,
      'Use mode "danger-full-access" for other repositories, or start a session there.',
    );
  }
  return original;
}

/** The workspace inside a worktree that matches where the session started (the same subdirectory, if it exists there). */
export async function rootInWorktree(worktree: string, prefix: string): Promise<string> {
  if (prefix === "") return worktree;
  const candidate = join(worktree, prefix);
  const info = await stat(candidate).catch(() => undefined);
  return info?.isDirectory() === true && isInside(worktree, candidate) ? candidate : worktree;
}
