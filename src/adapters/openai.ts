/**
 * The toolbox for OpenAI's APIs (`gitctx/openai`): function tools for Chat Completions
 * (`{ type: "function", function: { name, description, parameters, strict } }`) and for the Responses API
 * (`{ type: "function", name, description, parameters, strict }`), and the messages that answer the model's
 * calls (`{ role: "tool", tool_call_id, content }`, `{ type: "function_call_output", call_id, output }`).
 * Plain JSON: no OpenAI SDK at runtime (its types only, from the optional peer dependency `openai`).
 *
 * From the function calling guide (https://platform.openai.com/docs/guides/function-calling): a name is
 * letters, digits, `_` and `-`, at most 64 characters; `arguments` arrive as a JSON string the model wrote,
 * which may not parse; with `strict: true` the arguments follow the schema exactly, which then has to be in the
 * Structured Outputs subset (see ./schema.ts). The Responses API treats a function without `strict` as strict,
 * so a non-strict definition says `strict: false`.
 */
import type {
  ChatCompletionContentPartText,
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type { FunctionTool, ResponseFunctionToolCall, ResponseInputItem, ResponseInputText } from "openai/resources/responses/responses";
import type { Toolbox, ToolResult } from "../index.js";
import { nullsAsAbsent, plainSchema, strictSchema, type JsonSchema, type UnsupportedPolicy } from "./schema.js";
import {
  createCatalog,
  readArguments,
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

export interface OpenAIAdapterOptions extends AdapterOptions {
  /**
   * Strict function calling: every property required, optional ones as `T | null`, every object closed. The
   * model must then send `null` for what it leaves out, which the adapter reads as "absent" (the tool's default
   * applies). Default false.
   */
  strict?: boolean;
  /** With `strict`: what to do with a constraint strict mode cannot express (see `UnsupportedPolicy`). Default `"error"`. */
  unsupported?: UnsupportedPolicy;
}

/** A chat tool call, as in `message.tool_calls`; only the fields a result needs. */
export type ChatToolCall = ChatCompletionMessageToolCall | { id: string; type: string; function?: { name: string; arguments: string } };

/** A Responses output item; only `function_call` items are answered. */
export type ResponsesItem = ResponseFunctionToolCall | { type: string; [key: string]: unknown };

export interface OpenAIChatToolCall extends CallOutcome {
  message: ChatCompletionToolMessageParam;
}

export interface OpenAIResponsesCall extends CallOutcome {
  item: ResponseInputItem.FunctionCallOutput;
}

export interface OpenAIAdapter {
  /** For a Chat Completions request's `tools`. */
  readonly chatTools: ChatCompletionFunctionTool[];
  /** For a Responses request's `tools`. */
  readonly responsesTools: FunctionTool[];
  /**
   * Answers the tool calls of one assistant message (`message.tool_calls`), in order: append the messages after
   * it. Never rejects for a tool error, an unknown tool or arguments that are not JSON: the message says so.
   */
  toolMessages(toolCalls: readonly ChatToolCall[] | null | undefined, options?: RunOptions): Promise<ChatCompletionToolMessageParam[]>;
  /** Answers the `function_call` items of a response's `output`, in order: add them to the next request's `input`. */
  functionCallOutputs(output: readonly ResponsesItem[], options?: RunOptions): Promise<ResponseInputItem.FunctionCallOutput[]>;
  /** Like `toolMessages`, with each call's `ToolResult` and duration. */
  runChat(toolCalls: readonly ChatToolCall[] | null | undefined, options?: RunOptions): Promise<OpenAIChatToolCall[]>;
  /** Like `functionCallOutputs`, with each call's `ToolResult` and duration. */
  runResponses(output: readonly ResponsesItem[], options?: RunOptions): Promise<OpenAIResponsesCall[]>;
}

export function createOpenAIAdapter(toolbox: Toolbox, options: OpenAIAdapterOptions = {}): OpenAIAdapter {
  const catalog = createCatalog(toolbox, options);
  const functions = functionDefinitions(catalog, options);
  const includeData = options.includeData ?? false;
  const strict = options.strict === true;

  const request = (id: string, name: string, argumentsText: string): CallRequest => {
    const parsed = readArguments(name, argumentsText);
    if (!parsed.ok) return { id, name, input: argumentsText, problem: parsed.error };
    const tool = catalog.find(name);
    return { id, name, input: strict && tool !== undefined ? nullsAsAbsent(tool.info.inputSchema, parsed.value) : parsed.value };
  };

  const runChat = async (toolCalls: readonly ChatToolCall[] | null | undefined, runOptions: RunOptions = {}): Promise<OpenAIChatToolCall[]> => {
    const requests = (toolCalls ?? []).map((call): CallRequest => {
      const fn = "function" in call ? call.function : undefined;
      // A custom (free-text) tool call names no function gitctx offered.
      if (call.type !== "function" || fn === undefined) return { id: call.id, name: customName(call), input: undefined };
      return request(call.id, fn.name, fn.arguments);
    });
    const outcomes = await runCalls(toolbox, catalog, requests, runOptions);
    return outcomes.map((outcome) => ({ ...outcome, message: chatToolMessage(outcome.id, outcome.result, includeData) }));
  };

  const runResponses = async (output: readonly ResponsesItem[], runOptions: RunOptions = {}): Promise<OpenAIResponsesCall[]> => {
    const requests = output
      .filter((item): item is ResponseFunctionToolCall => item.type === "function_call")
      .map((item) => request(item.call_id, item.name, item.arguments));
    const outcomes = await runCalls(toolbox, catalog, requests, runOptions);
    return outcomes.map((outcome) => ({ ...outcome, item: functionCallOutput(outcome.id, outcome.result, includeData) }));
  };

  return {
    chatTools: functions.map((definition) => ({ type: "function", function: definition })),
    responsesTools: functions.map((definition) => ({ type: "function", ...definition })),
    async toolMessages(toolCalls, runOptions) {
      return (await runChat(toolCalls, runOptions)).map((call) => call.message);
    },
    async functionCallOutputs(output, runOptions) {
      return (await runResponses(output, runOptions)).map((call) => call.item);
    },
    runChat,
    runResponses,
  };
}

/** Chat Completions tool definitions alone. */
export function openaiChatTools(toolbox: Toolbox, options: OpenAIAdapterOptions = {}): ChatCompletionFunctionTool[] {
  return functionDefinitions(createCatalog(toolbox, options), options).map((definition) => ({ type: "function", function: definition }));
}

/** Responses API tool definitions alone. */
export function openaiResponsesTools(toolbox: Toolbox, options: OpenAIAdapterOptions = {}): FunctionTool[] {
  return functionDefinitions(createCatalog(toolbox, options), options).map((definition) => ({ type: "function", ...definition }));
}

interface FunctionDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

function functionDefinitions(catalog: ToolCatalog, options: OpenAIAdapterOptions): FunctionDefinition[] {
  const strict = options.strict === true;
  return catalog.offered.map(({ name, info }) => ({
    name,
    description: info.description,
    parameters: strict ? strictSchema(info.name, info.inputSchema, "openai", options.unsupported) : plainSchema(info.inputSchema),
    strict,
  }));
}

/** The `tool` message answering a chat tool call: the text for the model, or the error's code, message and hint. */
export function chatToolMessage(toolCallId: string, result: ToolResult, includeData = false): ChatCompletionToolMessageParam {
  const parts = resultParts(result, includeData);
  const content: string | ChatCompletionContentPartText[] = parts.length === 1 ? (parts[0] as string) : parts.map((text) => ({ type: "text", text }));
  return { role: "tool", tool_call_id: toolCallId, content };
}

/** The `function_call_output` item answering a Responses function call. */
export function functionCallOutput(callId: string, result: ToolResult, includeData = false): ResponseInputItem.FunctionCallOutput {
  const parts = resultParts(result, includeData);
  const output: string | ResponseInputText[] = parts.length === 1 ? (parts[0] as string) : parts.map((text) => ({ type: "input_text", text }));
  return { type: "function_call_output", call_id: callId, output };
}

function customName(call: ChatToolCall): string {
  const custom = (call as { custom?: { name?: unknown } }).custom;
  return typeof custom?.name === "string" ? custom.name : `(a ${call.type} tool call)`;
}
