/** Every tool gitctx offers, in one table. Adapters (MCP, CLI) list and call tools only through it. */
import { gitBlame } from "./git-blame.js";
import { gitContext } from "./git-context.js";
import { gitDiff } from "./git-diff.js";
import { gitLog } from "./git-log.js";
import { gitShow } from "./git-show.js";
import { gitStatus } from "./git-status.js";
import type { GitTool } from "./tool.js";

export const TOOLS: readonly GitTool[] = [gitStatus, gitDiff, gitLog, gitShow, gitBlame, gitContext] as unknown as readonly GitTool[];

export function findTool(name: string): GitTool | undefined {
  return TOOLS.find((tool) => tool.name === name);
}
