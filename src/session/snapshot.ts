/**
 * The snapshot as a library call of its own, for callers that want the repository context without a toolbox:
 * each call is a short session (one runner, its caches and private directory), closed when the snapshot is taken.
 */
import { renderSnapshot, type RenderOptions } from "../context/render.js";
import { gatherSnapshot, type GatherOptions, type RepositorySnapshot } from "../context/snapshot.js";
import { Session, type ToolboxOptions } from "./session.js";

export interface SnapshotOptions extends GatherOptions {
  /** The workspace: the repository containing it is described. Default: the current directory. */
  root?: string;
  /** Use a repository owned by another user (see `ToolboxOptions.trustRepository`). Default false. */
  trustRepository?: boolean;
  /** Per git process, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Git processes at once. Default 8. */
  maxConcurrency?: number;
  /** Directories searched for `git`, `:`-separated. Default: this process's PATH. */
  gitSearchPath?: string;
  /** Where git finds the user's own config (see `ToolboxOptions.userConfig`). */
  userConfig?: ToolboxOptions["userConfig"];
}

export interface ContextTextOptions extends SnapshotOptions {
  /** Most o200k tokens of the text. Default 2,000. */
  budget?: number;
}

/**
 * Takes a snapshot of the repository containing `options.root`. Rejects only when there is no repository to
 * describe (`not_a_repository`, `unsafe_repository`, `git_not_found`) or when aborted; any single section that
 * fails is reported as `{ ok: false, reason }`.
 */
export async function snapshot(options: SnapshotOptions = {}): Promise<RepositorySnapshot> {
  const { root, trustRepository, timeoutMs, maxConcurrency, gitSearchPath, userConfig, ...gather } = options;
  options.signal?.throwIfAborted();
  const session = new Session({
    ...(root !== undefined ? { root } : {}),
    ...(trustRepository !== undefined ? { trustRepository } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
    ...(gitSearchPath !== undefined ? { gitSearchPath } : {}),
    ...(userConfig !== undefined ? { userConfig } : {}),
  });
  try {
    const repo = await session.openRepository(options.signal ?? new AbortController().signal);
    try {
      return await gatherSnapshot(repo, gather);
    } finally {
      await repo.dispose();
    }
  } finally {
    await session.close();
  }
}

/**
 * The repository context of a workspace as text for a system prompt or the MCP resource `gitctx://context`:
 * a snapshot of the repository containing `root`, rendered within `budget` tokens. Rejects with a
 * `GitctxError` only when there is no repository to describe (e.g. `not_a_repository`).
 */
export async function contextText(options: ContextTextOptions = {}): Promise<string> {
  const { budget, ...snapshotOptions } = options;
  const renderOptions: RenderOptions = budget === undefined ? {} : { budget };
  return (await renderSnapshot(await snapshot(snapshotOptions), renderOptions)).text;
}
