/**
 * What the Anthropic, OpenAI and Vercel AI SDK adapters share: which tools are offered under which names, how a
 * model's call becomes a toolbox call, the text a model reads back, and the order calls run in. The adapters
 * only translate; the toolbox validates, authorizes and runs.
 */
import { formatError, GitctxError, type ToolErrorInfo } from "../errors.js";
import type { Toolbox, ToolInfo, ToolResult } from "../index.js";

/**
 * The tool names every target accepts: OpenAI's and Anthropic's `^[a-zA-Z0-9_-]{1,64}$`, narrowed to names that
 * start with a letter or `_` (Gemini and several OpenAI-compatible servers refuse a leading digit or `-`).
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
export const MAX_TOOL_NAME_LENGTH = 64;

export interface AdapterOptions {
  /** Only these tools (toolbox names), in this order. Default: every tool of the toolbox. */
  tools?: readonly string[];
  /**
   * Put before every name the model sees (e.g. `"repo_"` → `repo_git_status`) and taken off again when a call
   * comes back, so several toolboxes, or gitctx next to other tools, can share one request. Every prefixed name
   * must still match {@link TOOL_NAME_PATTERN}.
   */
  prefix?: string;
  /**
   * Send each successful result's `data` as JSON after its text. Default false: the text alone, which is
   * written for a model and far smaller; the data stays with the caller (see the adapters' `run` functions).
   */
  includeData?: boolean;
}

/** One tool as a model is offered it. */
export interface OfferedTool {
  /** The name the model sees and calls. */
  name: string;
  info: ToolInfo;
}

export interface ToolCatalog {
  readonly offered: readonly OfferedTool[];
  find(name: string): OfferedTool | undefined;
}

/** The tools to offer and their names, checked once, up front: a bad name is the caller's to fix, so it throws. */
export function createCatalog(toolbox: Toolbox, options: AdapterOptions = {}): ToolCatalog {
  const prefix = options.prefix ?? "";
  const infos = options.tools === undefined ? [...toolbox.tools] : options.tools.map((name) => requireTool(toolbox, name));
  const offered = infos.map((info) => ({ name: checkedName(prefix, info.name), info }));
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  if (byName.size !== offered.length) {
    throw new GitctxError("invalid_input", "The same tool is listed twice in tools.", "Name each tool once.");
  }
  return { offered, find: (name) => byName.get(name) };
}

function requireTool(toolbox: Toolbox, name: string): ToolInfo {
  const info = toolbox.tools.find((tool) => tool.name === name);
  if (info === undefined) {
    throw new GitctxError(
      "unknown_tool",
      `There is no tool named "${name}" to offer.`,
      `Available tools: ${toolbox.tools.map((tool) => tool.name).join(", ")}.`,
    );
  }
  return info;
}

function checkedName(prefix: string, name: string): string {
  const full = `${prefix}${name}`;
  if (TOOL_NAME_PATTERN.test(full)) return full;
  const why =
    full.length > MAX_TOOL_NAME_LENGTH
      ? `it is ${full.length} characters long, more than the ${MAX_TOOL_NAME_LENGTH} model APIs accept`
      : "model APIs accept only letters, digits, _ and -, starting with a letter or _";
  throw new GitctxError(
    "invalid_input",
    `The tool name "${full}" (prefix "${prefix}" + "${name}") is not a valid tool name: ${why}.`,
    `Choose a prefix of letters, digits, _ or -, starting with a letter or _, of at most ${MAX_TOOL_NAME_LENGTH - name.length} characters for ${name}.`,
  );
}

/** A call as a model made it, before anything ran. */
export interface CallRequest {
  /** The target's id for the call (`tool_use.id`, `tool_call.id`, `call_id`), echoed in the result. */
  id: string;
  /** The name the model called. */
  name: string;
  input: unknown;
  /** Why the call cannot run as it came (e.g. its arguments are not JSON); it then fails with this error. */
  problem?: ToolErrorInfo;
}

/** A call and what it answered. */
export interface CallOutcome {
  id: string;
  /** The name the model called. */
  name: string;
  /** The toolbox tool it reached; `undefined` for a name no offered tool has. */
  tool: string | undefined;
  /** The input the toolbox received (after the target's own rewriting, e.g. strict `null`s taken out). */
  input: unknown;
  result: ToolResult;
  durationMs: number;
}

export interface RunOptions {
  signal?: AbortSignal;
}

/**
 * Runs one call. A tool error, an unknown tool or unreadable arguments resolve as an `ok: false` result the
 * model can read and act on; only an abort (the caller's own signal) or a bug in gitctx rejects.
 */
export async function runCall(toolbox: Toolbox, catalog: ToolCatalog, request: CallRequest, options: RunOptions = {}): Promise<CallOutcome> {
  const started = performance.now();
  const tool = catalog.find(request.name);
  const finish = (result: ToolResult): CallOutcome => ({
    id: request.id,
    name: request.name,
    tool: tool?.info.name,
    input: request.input,
    result,
    durationMs: performance.now() - started,
  });
  if (tool === undefined) {
    return finish({
      ok: false,
      tool: request.name,
      error: {
        code: "unknown_tool",
        message: `There is no tool named "${request.name}".`,
        hint: `Available tools: ${catalog.offered.map((offered) => offered.name).join(", ")}.`,
      },
    });
  }
  if (request.problem !== undefined) return finish({ ok: false, tool: request.name, error: request.problem });
  return finish(await toolbox.execute(tool.info.name, request.input, options.signal === undefined ? {} : { signal: options.signal }));
}

/**
 * Runs the calls of one model turn. Reads (tools whose permission is `read-only`, and calls that fail before
 * running) run at once; any other tool waits for the calls before it and holds the ones after it, so writes
 * happen in the order the model asked for them. Outcomes come back in the calls' order.
 */
export async function runCalls(
  toolbox: Toolbox,
  catalog: ToolCatalog,
  requests: readonly CallRequest[],
  options: RunOptions = {},
): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  let batch: Promise<CallOutcome>[] = [];
  for (const request of requests) {
    const permission = catalog.find(request.name)?.info.permission;
    const isRead = permission === undefined || permission === "read-only" || request.problem !== undefined;
    if (isRead) {
      batch.push(runCall(toolbox, catalog, request, options));
      continue;
    }
    outcomes.push(...(await Promise.all(batch)));
    batch = [];
    outcomes.push(await runCall(toolbox, catalog, request, options));
  }
  outcomes.push(...(await Promise.all(batch)));
  return outcomes;
}

/**
 * What the model reads of a result: its text, or the error's code, message and hint ({@link formatError}); with
 * `includeData`, a successful result's data follows as JSON.
 */
export function resultParts(result: ToolResult, includeData = false): string[] {
  if (!result.ok) return [formatError(result.error)];
  if (!includeData || result.data === undefined) return [result.text];
  return [result.text, JSON.stringify(result.data)].filter((part) => part !== "");
}

/** Arguments sent as JSON text (OpenAI): the parsed value, or the `invalid_input` error the model gets back. */
export function readArguments(tool: string, text: string): { ok: true; value: unknown } | { ok: false; error: ToolErrorInfo } {
  // Some models send "" for a call without arguments; that is an empty object, not a syntax error.
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: {
        code: "invalid_input",
        message: `The arguments of ${tool} are not valid JSON (${reason}).`,
        hint: `Send the arguments as one JSON object, e.g. {} or {"path": "src"}.`,
      },
    };
  }
}
