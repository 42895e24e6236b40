/** Repository context (L3): the parallel snapshot of a repository and its rendering for a system prompt. */
import { renderSnapshot, type RenderOptions } from "./render.js";
import { snapshot, type SnapshotOptions } from "./snapshot.js";

export * from "./snapshot.js";
export * from "./render.js";
export { countTokens } from "./tokens.js";
export { redactUrl } from "./redact.js";
export { findBaseBranch, requireBaseMergeBase, BASE_CANDIDATES, BASE_REVISION } from "./base-branch.js";

export interface ContextTextOptions extends SnapshotOptions {
  /** Most o200k tokens of the text. Default 2,000. */
  budget?: number;
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
