/**
 * The toolbox for the Anthropic Messages API (`gitctx/anthropic`): tool definitions for `tools`, and the
 * `tool_result` blocks that answer the `tool_use` blocks of an assistant message. Plain JSON: no Anthropic SDK
 * at runtime (its types only, from the optional peer dependency `@anthropic-ai/sdk`).
 *
 * Shapes from the Messages API reference (https://docs.anthropic.com/en/api/messages) and "Define tools"
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools): a tool is `name`
 * (`^[a-zA-Z0-9_-]{1,64}$`), `description`, `input_schema` (a JSON Schema object) and optionally `strict`;
 * a result is `{ type: "tool_result", tool_use_id, content, is_error? }` in the next user message, one per
 * `tool_use`, with `is_error: true` when the call failed so the model knows to correct itself.
 */
import type { ContentBlock, TextBlockParam, Tool, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { Toolbox, ToolInfo, ToolResult } from "../index.js";
import { plainSchema, strictSchema, type UnsupportedPolicy } from "./schema.js";
import {
  createCatalog,
  resultParts,
  runCalls,
  type AdapterOptions,
  type CallOutcome,
  type CallRequest,
  type RunOptions,
  type ToolCatalog,
} from "./shared.js";

export type { AdapterOptions, CallOutcome, RunOptions } from "./shared.js";
export type { UnsupportedPolicy } from "./schema.js";

export interface AnthropicAdapterOptions extends AdapterOptions {
  /**
   * Mark every tool `strict: true` (strict tool use: the model's input is guaranteed to match the schema) and
   * rewrite the schemas into the subset strict mode accepts. Default false.
   */
  strict?: boolean;
  /** With `strict`: what to do with a constraint strict mode cannot express (see `UnsupportedPolicy`). Default `"error"`. */
  unsupported?: UnsupportedPolicy;
}

/** A `tool_use` block as the API returns it; only the fields a result needs. */
export interface AnthropicToolUse {
  type?: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** An assistant message, or its `content`: whatever holds the `tool_use` blocks to answer. */
export type AnthropicAssistantContent = { content: readonly ContentBlockLike[] } | readonly ContentBlockLike[];
type ContentBlockLike = ContentBlock | { type: string; [key: string]: unknown };

/** One call with its envelope, timing and the block that answers it. */
export interface AnthropicToolCall extends CallOutcome {
  block: ToolResultBlockParam;
}

export interface AnthropicAdapter {
  /** For the request's `tools`. */
  readonly tools: Tool[];
  /** Answers one `tool_use` block. Never rejects for a tool error: that is a block with `is_error: true`. */
  toolResult(toolUse: AnthropicToolUse, options?: RunOptions): Promise<ToolResultBlockParam>;
  /**
   * Answers every `tool_use` block of one assistant message, in its order: put them all in the next user
   * message. Reads run at once, other tools one at a time in the model's order.
   */
  toolResults(message: AnthropicAssistantContent, options?: RunOptions): Promise<ToolResultBlockParam[]>;
  /** Like `toolResults`, with each call's `ToolResult` (its typed `data`) and duration, for harnesses that keep them. */
  run(message: AnthropicAssistantContent, options?: RunOptions): Promise<AnthropicToolCall[]>;
}

export function createAnthropicAdapter(toolbox: Toolbox, options: AnthropicAdapterOptions = {}): AnthropicAdapter {
  const catalog = createCatalog(toolbox, options);
  const tools = anthropicToolDefinitions(catalog, options);
  const includeData = options.includeData ?? false;

  const run = async (message: AnthropicAssistantContent, runOptions: RunOptions = {}): Promise<AnthropicToolCall[]> => {
    const outcomes = await runCalls(toolbox, catalog, toolUses(message).map(toRequest), runOptions);
    return outcomes.map((outcome) => ({ ...outcome, block: toolResultBlock(outcome.id, outcome.result, includeData) }));
  };
  return {
    tools,
    async toolResult(toolUse, runOptions) {
      const [call] = await run([{ type: "tool_use", ...toolUse }], runOptions);
      return (call as AnthropicToolCall).block;
    },
    async toolResults(message, runOptions) {
      return (await run(message, runOptions)).map((call) => call.block);
    },
    run,
  };
}

/** The tool definitions alone, for a request's `tools`. */
export function anthropicTools(toolbox: Toolbox, options: AnthropicAdapterOptions = {}): Tool[] {
  return anthropicToolDefinitions(createCatalog(toolbox, options), options);
}

function anthropicToolDefinitions(catalog: ToolCatalog, options: AnthropicAdapterOptions): Tool[] {
  return catalog.offered.map(({ name, info }) => toAnthropicTool(info, options, name));
}

/** One tool's definition, under `name` (default: the tool's own name, which is always a valid one). */
export function toAnthropicTool(info: ToolInfo, options: Pick<AnthropicAdapterOptions, "strict" | "unsupported"> = {}, name = info.name): Tool {
  const schema =
    options.strict === true ? strictSchema(info.name, info.inputSchema, "anthropic", options.unsupported) : plainSchema(info.inputSchema);
  return {
    name,
    description: info.description,
    input_schema: schema as Tool.InputSchema,
    ...(options.strict === true ? { strict: true } : {}),
  };
}

/**
 * The `tool_result` block for a call's result: the text for the model (on failure the error's code, message
 * and hint, with `is_error: true`); with `includeData`, the data as JSON in a second text block.
 */
export function toolResultBlock(toolUseId: string, result: ToolResult, includeData = false): ToolResultBlockParam {
  const parts = resultParts(result, includeData);
  const content: string | TextBlockParam[] = parts.length === 1 ? (parts[0] as string) : parts.map((text) => ({ type: "text", text }));
  return { type: "tool_result", tool_use_id: toolUseId, content, ...(result.ok ? {} : { is_error: true }) };
}

function toolUses(message: AnthropicAssistantContent): AnthropicToolUse[] {
  const content: readonly ContentBlockLike[] = Array.isArray(message) ? message : (message as { content: readonly ContentBlockLike[] }).content;
  return content.filter((block): block is ContentBlockLike & AnthropicToolUse => block.type === "tool_use");
}

function toRequest(toolUse: AnthropicToolUse): CallRequest {
  return { id: toolUse.id, name: toolUse.name, input: toolUse.input };
}
