/**
 * MCP resources: `gitctx://context`, the repository snapshot rendered for a system prompt, and
 * `gitctx://instructions`, the project's instruction files. Both are read through the toolbox (`git_context`,
 * `load_instructions`), so the permission gate, `authorize` and the tools' own validation apply as they do to a
 * tool call; the URI's query parameters become the tool's input (`resources/templates/list` offers both forms).
 *
 * A read the tool answers with an error that is not the URI's fault (no repository at the workspace, another
 * user's repository, a timeout) is not a protocol error: the request was valid and the resource exists. MCP
 * defines JSON-RPC errors for resources only for a URI the server does not have (not found) and for internal
 * errors, neither of which this is. So, like a tool error (`isError` content rather than a JSON-RPC error), it
 * comes back as the resource's text, `error (code): message` and the hint, which is what the model or person
 * reading the context needs to fix it, and `_meta["gitctx/error"]` holds the error's fields for programs. A URI
 * gitctx does not serve, or a parameter the tool refuses, stays a JSON-RPC Invalid Params error (-32602).
 */
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { formatCount } from "../text.js";
import { DEFAULT_INSTRUCTIONS_BUDGET, formatError, type ToolErrorInfo, type Toolbox } from "../index.js";

export const CONTEXT_URI = "gitctx://context";
export const INSTRUCTIONS_URI = "gitctx://instructions";

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

export const INSTRUCTIONS_RESOURCE: Resource = {
  uri: INSTRUCTIONS_URI,
  name: "instructions",
  title: "Instruction files",
  description:
    "The project's instruction files (CLAUDE.md, AGENTS.md, rules...) as one text for a system prompt, most general " +
    `first, imports expanded, fitted to ${formatCount(DEFAULT_INSTRUCTIONS_BUDGET)} tokens. Append ?paths=a,b for the files about to be read or edited ` +
    "(their directories' files and matching rules), budget=N for another token budget, formats=claude,agents,cursor " +
    `for other agents' files, e.g. ${INSTRUCTIONS_URI}?paths=src/app.ts&budget=4000.`,
  mimeType: "text/plain",
};

export const RESOURCES: readonly Resource[] = [CONTEXT_RESOURCE, INSTRUCTIONS_RESOURCE];

/** The same resources with their query parameters, as RFC 6570 templates (`resources/templates/list`). */
export const RESOURCE_TEMPLATES: readonly ResourceTemplate[] = [
  {
    uriTemplate: `${CONTEXT_URI}{?budget}`,
    name: "context-with-budget",
    title: "Repository context, other budget",
    description: `The repository context of ${CONTEXT_URI} fitted to budget o200k tokens instead of 2,000 (1 to 200000), e.g. ${CONTEXT_URI}?budget=500.`,
    mimeType: "text/plain",
  },
  {
    uriTemplate: `${INSTRUCTIONS_URI}{?paths,budget,formats}`,
    name: "instructions-for-paths",
    title: "Instruction files for given paths",
    description:
      `The instruction files of ${INSTRUCTIONS_URI} that apply to paths (comma-separated, relative to the workspace), ` +
      `within budget tokens, for the agents in formats, e.g. ${INSTRUCTIONS_URI}?paths=src/app.ts&budget=4000.`,
    mimeType: "text/plain",
  },
];

/** A resource read: which tool answers it, with what input. */
interface ResourceCall {
  tool: "git_context" | "load_instructions";
  input: Record<string, unknown>;
}

/** The `git_context` input a resource URI asks for, or an MCP error naming what is wrong with the URI. */
export function contextInput(uri: string): { budget?: number } {
  const params = queryOf(uri, CONTEXT_URI, ["budget"], `${CONTEXT_URI}?budget=500`);
  const budget = wholeNumber(params, "budget", uri);
  return budget === undefined ? {} : { budget };
}

/** The `load_instructions` input a resource URI asks for: `paths` and `formats` comma-separated (or repeated). */
export function instructionsInput(uri: string): { paths?: string[]; formats?: string[]; budget?: number } {
  const params = queryOf(uri, INSTRUCTIONS_URI, ["paths", "budget", "formats"], `${INSTRUCTIONS_URI}?paths=src/app.ts&budget=4000`);
  const input: { paths?: string[]; formats?: string[]; budget?: number } = {};
  const paths = list(params, "paths");
  if (paths !== undefined) input.paths = paths;
  const formats = list(params, "formats");
  if (formats !== undefined) input.formats = formats;
  const budget = wholeNumber(params, "budget", uri);
  if (budget !== undefined) input.budget = budget;
  return input;
}

export async function readResource(toolbox: Toolbox, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const call = resourceCall(uri);
  const result = await toolbox.execute(call.tool, call.input, { signal });
  if (!result.ok) {
    // The URI's own mistake (a parameter the tool refuses) is the request's fault; anything else is an answer.
    if (callerMistake(result.error)) throw toolFailure(result.error);
    return { contents: [{ uri, mimeType: "text/plain", text: formatError(result.error), _meta: { "gitctx/error": { ...result.error } } }] };
  }
  return { contents: [{ uri, mimeType: "text/plain", text: result.text }] };
}

/**
 * A tool's error as the MCP error a resource read or a prompt answers with: the caller's own mistake (bad input,
 * a path outside the workspace) as invalid params, anything else (no repository, a timeout) as an invalid request.
 */
export function toolFailure(error: ToolErrorInfo): McpError {
  const code = callerMistake(error) ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest;
  return new McpError(code, formatError(error));
}

function callerMistake(error: ToolErrorInfo): boolean {
  return error.code === "invalid_input" || error.code === "path_outside_workspace";
}

/** The resource a URI names (the URI without its query), once the URI is checked as a read would check it. */
export function resourceBase(uri: string): string {
  resourceCall(uri);
  return baseOf(uri)!;
}

function resourceCall(uri: string): ResourceCall {
  const base = baseOf(uri);
  if (base === CONTEXT_URI) return { tool: "git_context", input: contextInput(uri) };
  if (base === INSTRUCTIONS_URI) return { tool: "load_instructions", input: instructionsInput(uri) };
  throw unknownResource(uri);
}

function baseOf(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The query of `uri`, once it is checked to be `base` with no parameter but `allowed`. */
function queryOf(uri: string, base: string, allowed: readonly string[], example: string): URLSearchParams {
  if (baseOf(uri) !== base) throw unknownResource(uri);
  const params = new URL(uri).searchParams;
  const unknown = [...new Set(params.keys())].filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    const accepted =
      allowed.length === 1 ? `only ${allowed[0]} is accepted` : `only ${allowed.slice(0, -1).join(", ")} and ${allowed.at(-1)} are accepted`;
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown parameter ${unknown.map((key) => `"${key}"`).join(", ")} in ${uri}; ${accepted}, e.g. ${example}.`,
    );
  }
  return params;
}

function wholeNumber(params: URLSearchParams, name: string, uri: string): number | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  if (!/^[0-9]+$/.test(value)) {
    throw new McpError(ErrorCode.InvalidParams, `${name} must be a whole number of tokens, got "${value}" in ${uri}.`);
  }
  return Number(value);
}

/** Every value of `name`, each split at commas, empty items dropped; `undefined` when the parameter is absent. */
function list(params: URLSearchParams, name: string): string[] | undefined {
  const values = params.getAll(name);
  if (values.length === 0) return undefined;
  return values.flatMap((value) => value.split(",")).filter((item) => item !== "");
}

function unknownResource(uri: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Unknown resource ${uri}; gitctx offers ${CONTEXT_URI} (optionally ?budget=N) and ${INSTRUCTIONS_URI} (optionally ?paths=a,b&budget=N&formats=claude,agents).`,
  );
}
