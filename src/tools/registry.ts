/** Every tool gitctx offers, in one table. Adapters (MCP, CLI) list and call tools only through it. */
import type { z } from "zod";
import { enterWorktree } from "./enter-worktree.js";
import { exitWorktree } from "./exit-worktree.js";
import { gitBlame } from "./git-blame.js";
import { gitChanges } from "./git-changes.js";
import { gitContext } from "./git-context.js";
import { gitDiff } from "./git-diff.js";
import { gitLog } from "./git-log.js";
import { gitShow } from "./git-show.js";
import { gitStatus } from "./git-status.js";
import { loadInstructionsTool } from "./load-instructions.js";
import type { AnyTool, Tool } from "./tool.js";

export const TOOLS = [
  gitStatus,
  gitDiff,
  gitLog,
  gitShow,
  gitBlame,
  gitContext,
  loadInstructionsTool,
  gitChanges,
  enterWorktree,
  exitWorktree,
] as const satisfies readonly AnyTool[];

type RegisteredTool = (typeof TOOLS)[number];
/** The name of a tool of the registry. */
export type ToolName = RegisteredTool["name"];
type ToolNamed<N extends ToolName> = Extract<RegisteredTool, { name: N }>;
/** What a caller may pass to the tool `N` (defaults not yet applied). */
export type ToolInput<N extends ToolName> = z.input<ToolNamed<N>["inputSchema"]>;
/** The `data` of a successful call of the tool `N`. */
export type ToolData<N extends ToolName> = ToolNamed<N> extends Tool<string, z.ZodType, infer T> ? T : never;

export function findTool(name: string): AnyTool | undefined {
  return (TOOLS as readonly AnyTool[]).find((tool) => tool.name === name);
}
