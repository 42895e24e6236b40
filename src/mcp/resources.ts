/**
 * MCP resources: `gitctx://context`, the repository snapshot rendered for a system prompt. It is read through
 * the toolbox (`git_context`), so the permission gate and `authorize` apply as they do to a tool call.
 */
import { ErrorCode, McpError, type ReadResourceResult, type Resource } from "@modelcontextprotocol/sdk/types.js";
import { formatError, type Toolbox } from "../index.js";

export const CONTEXT_URI = "gitctx://context";

export const CONTEXT_RESOURCE: Resource = {
  uri: CONTEXT_URI,
  name: "context",
  title: "Repository context",
  description:
    "A compact picture of the repository for a system prompt: branch, HEAD, operation in progress, base branch, " +
    "changes, untracked files, recent commits, stashes, remotes, worktrees, submodules, fitted to 2,000 tokens. " +
    `Append ?budget=N for another token budget, e.g. ${CONTEXT_URI}?budget=500.`,
  mimeType: "text/plain",
};

/** The `git_context` input a resource URI asks for, or an MCP error naming what is wrong with the URI. */
export function contextInput(uri: string): { budget?: number } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw unknownResource(uri);
  }
  if (`${url.protocol}//${url.host}${url.pathname}` !== CONTEXT_URI) throw unknownResource(uri);
  const unknown = [...url.searchParams.keys()].filter((key) => key !== "budget");
  if (unknown.length > 0) {
    throw new McpError(ErrorCode.InvalidParams, `Unknown parameter ${unknown.map((key) => `"${key}"`).join(", ")} in ${uri}; only budget is accepted, e.g. ${CONTEXT_URI}?budget=500.`);
  }
  const budget = url.searchParams.get("budget");
  if (budget === null) return {};
  if (!/^[0-9]+$/.test(budget)) {
    throw new McpError(ErrorCode.InvalidParams, `budget must be a whole number of tokens, got "${budget}" in ${uri}.`);
  }
  return { budget: Number(budget) };
}

export async function readContext(toolbox: Toolbox, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const result = await toolbox.execute("git_context", contextInput(uri), { signal });
  if (!result.ok) {
    throw new McpError(ErrorCode.InvalidRequest, formatError(result.error));
  }
  return { contents: [{ uri, mimeType: "text/plain", text: result.text }] };
}

function unknownResource(uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}; gitctx offers ${CONTEXT_URI} (optionally ?budget=N).`);
}
