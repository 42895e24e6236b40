/**
 * Every tool definition the adapters emit, checked against each provider's published rules
 * (test/fixtures/provider-rules.ts, written from their documentation), and what the strict rewrites accept.
 */
import { generateText, jsonSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkTools } from "../src/adapters/ai-sdk.js";
import { anthropicTools, createAnthropicAdapter } from "../src/adapters/anthropic.js";
import { createOpenAIAdapter, openaiChatTools, openaiResponsesTools } from "../src/adapters/openai.js";
import { nullsAsAbsent, strictSchema } from "../src/adapters/schema.js";
import { TOOL_NAME_PATTERN } from "../src/adapters/shared.js";
import { createToolbox, GitctxError, type ToolInfo } from "../src/index.js";
import { accepts, sampleValue } from "./fixtures/json-schema.js";
import {
  aiSdkProviderToolProblems,
  anthropicToolProblems,
  openaiChatToolProblems,
  openaiFunctionProblems,
  openaiResponsesToolProblems,
} from "./fixtures/provider-rules.js";
import { tempDir } from "./fixtures/repo.js";

const toolbox = createToolbox({ root: tempDir() });
const NAMES = toolbox.tools.map((tool) => tool.name);

function thrown(run: () => unknown): GitctxError {
  try {
    run();
  } catch (error) {
    if (error instanceof GitctxError) return error;
    throw error;
  }
  throw new Error("expected a GitctxError");
}

describe("the rule checks can fail", () => {
  // Each check must reject a definition that breaks its rule, or a passing test would prove nothing.
  it("rejects bad names, open objects, optional properties in OpenAI strict mode and unsupported keywords", () => {
    const open = { type: "object", properties: { a: { type: "string", minLength: 1 } } };
    expect(anthropicToolProblems({ name: "git status", description: "d", input_schema: { type: "object" } })).toEqual([
      'name "git status" does not match /^[a-zA-Z0-9_-]{1,64}$/',
    ]);
    expect(anthropicToolProblems({ name: "t", description: "d", input_schema: open, strict: true })).toEqual([
      "$: an object must set additionalProperties: false",
      "$.properties.a: minLength is not supported by strict tool use",
    ]);
    expect(openaiFunctionProblems({ name: "t", description: "d", parameters: open, strict: true }, { strict: true })).toEqual([
      "$: an object must set additionalProperties: false",
      "$: every property must be required, not a",
      "$.properties.a: minLength is not supported in strict mode",
    ]);
    expect(openaiResponsesToolProblems({ type: "function", name: "t", description: "d", parameters: { type: "object" } }, { strict: false })).toEqual(
      ["strict must be given: the Responses API treats a missing strict as true", "strict is undefined, expected false"],
    );
    expect(aiSdkProviderToolProblems({ type: "function", name: "t", description: "d", inputSchema: { type: "object", prefixItems: [] } })).toEqual([
      "$: prefixItems is not draft-07",
    ]);
  });
});

describe("Anthropic tool definitions", () => {
  it("are name, description and input_schema, within Anthropic's rules, for every tool", () => {
    const tools = anthropicTools(toolbox);
    expect(tools.map((tool) => tool.name)).toEqual(NAMES);
    for (const tool of tools) expect(anthropicToolProblems(tool), tool.name).toEqual([]);
    const status = tools[0] as (typeof tools)[number];
    const info = toolbox.tools[0] as ToolInfo;
    const { $schema: _dialect, ...schema } = info.inputSchema;
    expect(status).toEqual({ name: "git_status", description: info.description, input_schema: schema });
    expect(JSON.stringify(tools)).not.toContain("$schema");
  });

  it("strict: refuses what strict tool use cannot express, naming the tool, property and keyword", () => {
    const error = thrown(() => anthropicTools(toolbox, { strict: true }));
    expect(error.code).toBe("invalid_input");
    expect(error.message).toBe(
      "Anthropic strict tool use cannot express the input schema of git_status: limit uses minimum, maximum; offset uses minimum, maximum.",
    );
    expect(error.hint).toContain('Pass unsupported: "describe"');
  });

  it("strict with unsupported: describe moves the constraints into descriptions and passes strict tool use's rules", () => {
    const tools = anthropicTools(toolbox, { strict: true, unsupported: "describe" });
    for (const tool of tools) {
      expect(tool.strict, tool.name).toBe(true);
      expect(anthropicToolProblems(tool), tool.name).toEqual([]);
    }
    const diff = tools.find((tool) => tool.name === "git_diff")?.input_schema as { properties: Record<string, { description: string }> };
    expect(diff.properties.maxBytes?.description).toBe(
      "Most bytes of patch or content to return (default 20000). The summary always covers every file. {minimum: 1, maximum: 10485760}",
    );
    // Strict tool use keeps optional properties optional: required is as the tool declares it.
    const show = tools.find((tool) => tool.name === "git_show")?.input_schema as { required: string[] };
    expect(show.required).toEqual(["commit"]);
  });

  it("strict without unsupported constraints is accepted as it is", () => {
    // Every gitctx tool pages or bounds its answer with a number now; a schema without such a constraint passes unchanged.
    const schema = { type: "object", properties: { short: { type: "boolean" }, path: { type: "string" } }, additionalProperties: false };
    expect(strictSchema("plain_tool", schema, "anthropic")).toEqual(schema);
  });
});

describe("OpenAI function definitions", () => {
  it("Chat Completions and Responses shapes, within the function calling rules, for every tool", () => {
    const chat = openaiChatTools(toolbox);
    const responses = openaiResponsesTools(toolbox);
    expect(chat.map((tool) => tool.function.name)).toEqual(NAMES);
    for (const tool of chat) expect(openaiChatToolProblems(tool, { strict: false }), tool.function.name).toEqual([]);
    for (const tool of responses) expect(openaiResponsesToolProblems(tool, { strict: false }), tool.name).toEqual([]);
    const { type: _type, ...definition } = responses[0] as (typeof responses)[number];
    expect(chat[0]).toEqual({ type: "function", function: definition });
  });

  it("strict: refuses git_log, whose strings have lengths strict mode cannot express", () => {
    const error = thrown(() => createOpenAIAdapter(toolbox, { strict: true }));
    expect(error.message).toBe(
      "OpenAI strict mode cannot express the input schema of git_log: author uses minLength, maxLength; since uses minLength, maxLength; until uses minLength, maxLength; grep uses minLength, maxLength.",
    );
    expect(error.hint).toBe(
      'Pass unsupported: "describe" to move these constraints into the descriptions (the toolbox still enforces them when git_log runs), leave strict off, or leave git_log out (tools: [...]).',
    );
  });

  it("strict: every property required, optional ones nullable, every object closed, within Structured Outputs' rules", () => {
    const adapter = createOpenAIAdapter(toolbox, { strict: true, unsupported: "describe" });
    for (const tool of adapter.chatTools) expect(openaiChatToolProblems(tool, { strict: true }), tool.function.name).toEqual([]);
    for (const tool of adapter.responsesTools) expect(openaiResponsesToolProblems(tool, { strict: true }), tool.name).toEqual([]);
    const status = adapter.chatTools[0]?.function.parameters as { properties: Record<string, unknown>; required: string[] };
    expect(status.required).toEqual(["short", "path", "untracked", "limit", "offset"]);
    expect(status.properties.untracked).toEqual({
      default: "all",
      description: "Untracked files: all (every file, default), normal (collapse untracked directories), no (hide).",
      type: ["string", "null"],
      enum: ["all", "normal", "no", null],
    });
    const show = adapter.chatTools.find((tool) => tool.function.name === "git_show")?.function.parameters as {
      properties: Record<string, { type: unknown }>;
    };
    // A required property stays as it is: only optional ones take null.
    expect(show.properties.commit?.type).toBe("string");
  });

  it("tools that need no rewriting beyond strictness pass strict mode with the default policy", () => {
    const adapter = createOpenAIAdapter(toolbox, { strict: true, tools: NAMES.filter((name) => name !== "git_log") });
    expect(adapter.chatTools.map((tool) => tool.function.name)).toEqual(NAMES.filter((name) => name !== "git_log"));
    for (const tool of adapter.chatTools) expect(openaiChatToolProblems(tool, { strict: true }), tool.function.name).toEqual([]);
  });
});

describe("strict schemas accept what a model sends under them", () => {
  for (const info of toolbox.tools) {
    it(`${info.name}: all-null input, full input, no extra field; nulls read back as absent`, () => {
      const strict = strictSchema(info.name, info.inputSchema, "openai", "describe");
      const properties = Object.keys((info.inputSchema.properties ?? {}) as object);
      const required = (info.inputSchema.required ?? []) as string[];
      const originalProperties = info.inputSchema.properties as Record<string, unknown>;

      // What a model sends when it leaves every optional property out: null for each.
      const allNull = Object.fromEntries(properties.map((key) => [key, required.includes(key) ? sampleValue(originalProperties[key]) : null]));
      expect(accepts(strict, allNull)).toBe(true);
      expect(accepts(info.inputSchema, allNull)).toBe(properties.length === required.length);
      // Read back, the nulls are gone and the original schema takes it.
      const absent = nullsAsAbsent(info.inputSchema, allNull);
      expect(Object.keys(absent as object).sort()).toEqual([...required].sort());
      expect(accepts(info.inputSchema, absent)).toBe(true);

      const full = Object.fromEntries(properties.map((key) => [key, sampleValue(originalProperties[key])]));
      expect(accepts(info.inputSchema, full)).toBe(true);
      expect(accepts(strict, full)).toBe(true);
      expect(accepts(strict, { ...allNull, extra: 1 })).toBe(false);
      // A missing property is not allowed in strict mode: every one must be sent.
      if (properties.length > 0) expect(accepts(strict, {})).toBe(false);
    });
  }

  it("nullsAsAbsent keeps a null the schema itself allows, and values it does not understand", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: ["string", "null"] }, c: { type: "object", properties: { d: { type: "number" } } } },
      required: ["c"],
    };
    expect(nullsAsAbsent(schema, { a: null, b: null, c: { d: null }, e: null })).toEqual({ b: null, c: {}, e: null });
    expect(nullsAsAbsent(schema, "not an object")).toBe("not an object");
  });

  it("refuses structure it cannot express whatever the policy: open objects, not, tuple items", () => {
    const schema = {
      type: "object",
      properties: {
        open: { type: "object", additionalProperties: true },
        odd: { not: { type: "string" } },
        pair: { type: "array", items: [{ type: "string" }] },
      },
    };
    const error = thrown(() => strictSchema("custom_tool", schema, "openai", "describe"));
    expect(error.message).toBe(
      "OpenAI strict mode cannot express the input schema of custom_tool: open uses additionalProperties other than false (an open object); odd uses not; pair uses tuple items.",
    );
    expect(error.hint).toBe("Leave strict off, or leave custom_tool out (tools: [...]).");
    expect(thrown(() => strictSchema("root_union", { anyOf: [{ type: "object" }] }, "openai")).message).toBe(
      "OpenAI strict mode cannot express the input schema of root_union: the schema uses anyOf at the root.",
    );
  });

  it("wraps a schema without a plain type in anyOf with null, annotations outside", () => {
    const schema = { type: "object", properties: { x: { anyOf: [{ type: "string" }, { type: "number" }], description: "either" } } };
    expect(strictSchema("t", schema, "openai")).toEqual({
      type: "object",
      properties: { x: { anyOf: [{ anyOf: [{ type: "string" }, { type: "number" }] }, { type: "null" }], description: "either" } },
      required: ["x"],
      additionalProperties: false,
    });
  });
});

describe("names", () => {
  it("every toolbox tool name fits the pattern, with room for a prefix", () => {
    for (const name of NAMES) expect(name).toMatch(TOOL_NAME_PATTERN);
    const tools = anthropicTools(toolbox, { prefix: "repo1_" });
    expect(tools.map((tool) => tool.name)).toEqual(NAMES.map((name) => `repo1_${name}`));
    for (const tool of tools) expect(anthropicToolProblems(tool)).toEqual([]);
  });

  it("refuses a prefix that makes a name invalid or too long, saying which and why", () => {
    expect(thrown(() => openaiChatTools(toolbox, { prefix: "my repo." })).message).toBe(
      'The tool name "my repo.git_status" (prefix "my repo." + "git_status") is not a valid tool name: model APIs accept only letters, digits, _ and -, starting with a letter or _.',
    );
    const long = thrown(() => anthropicTools(toolbox, { prefix: "p".repeat(60) }));
    expect(long.message).toBe(
      `The tool name "${"p".repeat(60)}git_status" (prefix "${"p".repeat(60)}" + "git_status") is not a valid tool name: it is 70 characters long, more than the 64 model APIs accept.`,
    );
    expect(long.hint).toBe("Choose a prefix of letters, digits, _ or -, starting with a letter or _, of at most 54 characters for git_status.");
    expect(thrown(() => anthropicTools(toolbox, { prefix: "1" })).message).toContain("starting with a letter or _");
  });

  it("offers the tools asked for, in that order, and refuses an unknown one", () => {
    expect(anthropicTools(toolbox, { tools: ["git_diff", "git_status"] }).map((tool) => tool.name)).toEqual(["git_diff", "git_status"]);
    const error = thrown(() => createAnthropicAdapter(toolbox, { tools: ["git_commit"] }));
    expect(error.code).toBe("unknown_tool");
    expect(error.message).toBe('There is no tool named "git_commit" to offer.');
  });
});

describe("Vercel AI SDK tools", () => {
  it("reach the provider as function tools within its rules, through the real generateText", async () => {
    let offered: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        offered = options.tools ?? [];
        return {
          content: [{ type: "text", text: "done" }],
          finishReason: { unified: "stop", raw: undefined },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 1, text: 1, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
    const tools = aiSdkTools(toolbox, { jsonSchema });
    expect(Object.keys(tools)).toEqual(NAMES);
    await generateText({ model, tools, prompt: "hello" });
    expect(offered.map((tool) => (tool as { name: string }).name)).toEqual(NAMES);
    for (const tool of offered) expect(aiSdkProviderToolProblems(tool)).toEqual([]);
    const info = toolbox.tools[1] as ToolInfo;
    const { $schema: _dialect, ...schema } = info.inputSchema;
    expect(offered[1]).toMatchObject({ type: "function", name: "git_diff", description: info.description, inputSchema: schema });
  });

  it("needs the SDK's jsonSchema, and says how to pass it", () => {
    expect(() => aiSdkTools(toolbox, {} as never)).toThrow(
      'aiSdkTools needs the AI SDK\'s jsonSchema: import { jsonSchema } from "ai"; aiSdkTools(toolbox, { jsonSchema }).',
    );
  });
});
