/**
 * The toolbox as Vercel AI SDK tools (`gitctx/ai-sdk`), for `generateText`, `streamText` and agents:
 *
 * ```ts
 * import { generateText, jsonSchema, stepCountIs } from "ai";
 * import { aiSdkTools } from "gitctx/ai-sdk";
 * const tools = aiSdkTools(toolbox, { jsonSchema });
 * await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: "What changed?" });
 * ```
 *
 * From the AI SDK's tool reference (https://ai-sdk.dev/docs/reference/ai-sdk-core/tool, also in the package's
 * `docs/07-reference/01-ai-sdk-core/20-tool.mdx`): a tool set is an object keyed by tool name; a tool has a
 * `description`, an `inputSchema` (a zod schema or the SDK's `jsonSchema(...)`), `execute(input, { abortSignal })`
 * and `toModelOutput({ output })`, which decides what the model reads (`{ type: "text" }`, or
 * `{ type: "error-text" }` for a failure). The caller passes its own `jsonSchema` so no AI SDK code is bundled or
 * loaded by gitctx (`ai` is an optional peer dependency, for its types).
 *
 * `execute` returns the whole `ToolResult` envelope (so `result.steps[].toolResults` carry the typed `data`) and
 * never throws for a tool error: the model reads the error's code, message and hint as an `error-text` output.
 * Unknown tools and input that is not JSON are the SDK's to report (`NoSuchToolError`, `InvalidToolInputError`).
 */
import type { jsonSchema as JsonSchemaFunction, Tool, ToolSet } from "ai";
import type { Toolbox, ToolResult } from "../index.js";
import { plainSchema } from "./schema.js";
import { createCatalog, resultParts, type AdapterOptions } from "./shared.js";

export type { AdapterOptions } from "./shared.js";

export interface AiSdkToolsOptions extends AdapterOptions {
  /** The `jsonSchema` function of the `ai` package the caller uses: `import { jsonSchema } from "ai"`. */
  jsonSchema: typeof JsonSchemaFunction;
}

/** What the model reads of a result, in the AI SDK's terms. */
export type AiSdkModelOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "content"; value: { type: "text"; text: string }[] };

export function aiSdkTools(toolbox: Toolbox, options: AiSdkToolsOptions): ToolSet {
  if (typeof options?.jsonSchema !== "function") {
    throw new TypeError('aiSdkTools needs the AI SDK\'s jsonSchema: import { jsonSchema } from "ai"; aiSdkTools(toolbox, { jsonSchema }).');
  }
  const catalog = createCatalog(toolbox, options);
  const includeData = options.includeData ?? false;
  const tools: ToolSet = {};
  for (const { name, info } of catalog.offered) {
    const tool: Tool<unknown, ToolResult> = {
      description: info.description,
      // No validate function: the toolbox validates, and its invalid_input error reaches the model as a result.
      inputSchema: options.jsonSchema<unknown>(plainSchema(info.inputSchema) as Parameters<typeof JsonSchemaFunction>[0]),
      execute: (input, { abortSignal }) => toolbox.execute(info.name, input, abortSignal === undefined ? {} : { signal: abortSignal }),
      toModelOutput: ({ output }) => modelOutput(output, includeData),
    };
    tools[name] = tool;
  }
  return tools;
}

/** The model's view of a result: its text, the error as `error-text`, or text and data as two parts. */
export function modelOutput(result: ToolResult, includeData = false): AiSdkModelOutput {
  const parts = resultParts(result, includeData);
  if (!result.ok) return { type: "error-text", value: parts[0] as string };
  if (parts.length === 1) return { type: "text", value: parts[0] as string };
  return { type: "content", value: parts.map((text) => ({ type: "text", text })) };
}
