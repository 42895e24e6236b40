/**
 * MCP resources: `gitctx://context`, the repository snapshot rendered for a system prompt. It is read through
 * the toolbox (`git_context`), so the permission gate and `authorize` apply as they do to a tool call.
 *
 * A read that git_context answers with an error (no repository at the workspace, another user's repository, a
 * timeout) is not a protocol error: the request was valid and the resource exists. MCP defines JSON-RPC errors
 * for resources only for a URI the server does not have (not found) and for internal errors, neither of which
 * this is. So, like a tool error (`isError` content rather than a JSON-RPC error), it comes back as the
 * resource's text, `error (code): message` and the hint, which is what the model or person reading the context
 * needs to fix it, and `_meta["gitctx/error"]` holds the error's fields for programs. A URI gitctx does not
 * serve, or a bad `?budget`, stays a JSON-RPC Invalid Params error (-32602).
 */
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { formatError, type Toolbox } from "../index.js";
import { MAX_CONTEXT_BUDGET } from "../tools/git-context.js";

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

/** The same resource with another budget, as an RFC 6570 template (`resources/templates/list`). */
export const CONTEXT_TEMPLATE: ResourceTemplate = {
  uriTemplate: `${CONTEXT_URI}{?budget}`,
  name: "context-with-budget",
  title: "Repository context, other budget",
  description: `The repository context of ${CONTEXT_URI} fitted to budget o200k tokens instead of 2,000 (1 to 200000), e.g. ${CONTEXT_URI}?budget=500.`,
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
  if (!/^[0-9]+$/.test(budget) || !(Number(budget) >= 1 && Number(budget) <= MAX_CONTEXT_BUDGET)) {
    throw new McpError(ErrorCode.InvalidParams, `budget must be a whole number of tokens from 1 to ${MAX_CONTEXT_BUDGET}, got "${budget}" in ${uri}.`);
  }
  return { budget: Number(budget) };
}

export async function readContext(toolbox: Toolbox, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const result = await toolbox.execute("git_context", contextInput(uri), { signal });
  if (!result.ok) {
    return { contents: [{ uri, mimeType: "text/plain", text: formatError(result.error), _meta: { "gitctx/error": { ...result.error } } }] };
  }
  return { contents: [{ uri, mimeType: "text/plain", text: result.text }] };
}

function unknownResource(uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}; gitctx offers ${CONTEXT_URI} (optionally ?budget=N).`);
}
