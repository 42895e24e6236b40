/**
 * Real `tool_use` / `tool_call` / `function_call` payloads, shaped as the APIs return them, through a real
 * toolbox on a fixture repository: the answers the model gets back, including for unknown tools, arguments that
 * are not JSON, extra fields and invalid values, and the order calls of one turn run in.
 */
import { generateText, jsonSchema, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { aiSdkTools } from "../src/adapters/ai-sdk.js";
import { createAnthropicAdapter } from "../src/adapters/anthropic.js";
import { createOpenAIAdapter } from "../src/adapters/openai.js";
import { createToolbox, formatError, type Toolbox, type ToolResult } from "../src/index.js";
import { makeRepo, type TestRepo } from "./fixtures/repo.js";

let repo: TestRepo;
let toolbox: Toolbox;

/** One commit, then: src/app.ts edited (unstaged), src/new.ts added (staged), TODO.md untracked. */
beforeAll(() => {
  repo = makeRepo();
  repo.write("src/app.ts", "export const answer = 41;\n").write("README.md", "# app\n");
  repo.commit("Initial app");
  repo.write("src/app.ts", "export const answer = 42;\n");
  repo.write("src/new.ts", "export const fresh = true;\n");
  repo.git(["add", "src/new.ts"]);
  repo.write("TODO.md", "- ship it\n");
  toolbox = createToolbox({ root: repo.dir });
});

function errorText(result: ToolResult): string {
  if (result.ok) throw new Error(`expected a failure, got ${result.text}`);
  return formatError(result.error);
}

function okText(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected success, got ${formatError(result.error)}`);
  return result.text;
}

describe("Anthropic: tool_use blocks of one assistant message", () => {
  it("answers every tool_use in order with matching ids; failures are is_error blocks the model can act on", async () => {
    const adapter = createAnthropicAdapter(toolbox);
    // As the Messages API returns it: text and tool_use blocks in one assistant message.
    const message = {
      id: "msg_01",
      type: "message",
      role: "assistant",
      content: [
        { type: "text", text: "Let me look at the repository.", citations: null },
        { type: "tool_use", id: "toolu_01", name: "git_status", input: {} },
        { type: "tool_use", id: "toolu_02", name: "git_diff", input: { staged: true } },
        { type: "tool_use", id: "toolu_03", name: "git_commit", input: { message: "wip" } },
        { type: "tool_use", id: "toolu_04", name: "git_log", input: { count: 1, colour: "red" } },
        { type: "tool_use", id: "toolu_05", name: "git_diff", input: { maxBytes: "lots" } },
      ],
      stop_reason: "tool_use",
    };
    const blocks = await adapter.toolResults(message);
    expect(blocks.map((block) => block.tool_use_id)).toEqual(["toolu_01", "toolu_02", "toolu_03", "toolu_04", "toolu_05"]);

    expect(blocks[0]).toEqual({ type: "tool_result", tool_use_id: "toolu_01", content: okText(await toolbox.execute("git_status", {})) });
    expect(blocks[0]?.content).toBe("On branch main\n3 paths changed (1 staged, 1 unstaged, 1 untracked):\n M src/app.ts\nA  src/new.ts\n?? TODO.md");
    expect(blocks[1]).toEqual({ type: "tool_result", tool_use_id: "toolu_02", content: okText(await toolbox.execute("git_diff", { staged: true })) });
    expect(blocks[2]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_03",
      is_error: true,
      content:
        'error (unknown_tool): There is no tool named "git_commit".\nhint: Available tools: git_status, git_diff, git_log, git_show, git_blame, git_context, load_instructions, git_changes.',
    });
    expect(blocks[3]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_04",
      is_error: true,
      content: errorText(await toolbox.execute("git_log", { count: 1, colour: "red" })),
    });
    expect(blocks[3]?.content).toContain('unknown field "colour"');
    expect(blocks[4]?.is_error).toBe(true);
    expect(blocks[4]?.content).toContain("error (invalid_input): Invalid input for git_diff: maxBytes:");
  });

  it("run gives each call's envelope and duration next to its block; includeData adds the data as JSON", async () => {
    const adapter = createAnthropicAdapter(toolbox, { includeData: true });
    const [call] = await adapter.run([{ type: "tool_use", id: "toolu_1", name: "git_status", input: {} }]);
    expect(call?.result.ok).toBe(true);
    expect(call?.tool).toBe("git_status");
    expect(call?.durationMs).toBeGreaterThanOrEqual(0);
    const data = call?.result.ok ? call.result.data : undefined;
    expect(call?.block).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: [
        { type: "text", text: okText(call?.result as ToolResult) },
        { type: "text", text: JSON.stringify(data) },
      ],
    });
    // Failures carry no data: the error text alone.
    const failed = await adapter.toolResult({ id: "toolu_2", name: "git_show", input: { commit: "no-such-ref" } });
    expect(failed.is_error).toBe(true);
    expect(typeof failed.content).toBe("string");
    expect(failed.content).toContain("error (bad_revision)");
  });

  it("with a prefix, calls come back under the prefixed names and an unprefixed one is unknown", async () => {
    const adapter = createAnthropicAdapter(toolbox, { prefix: "repo_", tools: ["git_status", "git_log"] });
    const [ok, unknown] = await adapter.toolResults([
      { type: "tool_use", id: "a", name: "repo_git_status", input: {} },
      { type: "tool_use", id: "b", name: "git_status", input: {} },
    ]);
    expect(ok?.is_error).toBeUndefined();
    expect(unknown).toEqual({
      type: "tool_result",
      tool_use_id: "b",
      is_error: true,
      content: 'error (unknown_tool): There is no tool named "git_status".\nhint: Available tools: repo_git_status, repo_git_log.',
    });
  });

  it("runs reads at once and any other tool alone, in the model's order", async () => {
    const events: string[] = [];
    // authorize runs inside each call: it records when calls overlap.
    const observed = createToolbox({
      root: repo.dir,
      authorize: async (tool) => {
        events.push(`start ${tool}`);
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
        events.push(`end ${tool}`);
        return true;
      },
    });
    const content = [
      { type: "tool_use", id: "1", name: "git_status", input: {} },
      { type: "tool_use", id: "2", name: "git_diff", input: {} },
      { type: "tool_use", id: "3", name: "git_log", input: { count: 1 } },
      { type: "tool_use", id: "4", name: "git_context", input: {} },
    ];
    await createAnthropicAdapter(observed).toolResults(content);
    expect(events.slice(0, 4)).toEqual(["start git_status", "start git_diff", "start git_log", "start git_context"]);

    // The same turn where git_log is listed as a write (a toolbox's listing decides what a call may overlap with).
    events.length = 0;
    const withWrite: Toolbox = {
      ...observed,
      tools: observed.tools.map((tool) => (tool.name === "git_log" ? { ...tool, permission: "workspace-write" } : tool)),
      execute: observed.execute,
      search: observed.search,
    };
    const blocks = await createAnthropicAdapter(withWrite).toolResults(content);
    expect(events).toEqual([
      "start git_status",
      "start git_diff",
      "end git_status",
      "end git_diff",
      "start git_log",
      "end git_log",
      "start git_context",
      "end git_context",
    ]);
    expect(blocks.map((block) => block.tool_use_id)).toEqual(["1", "2", "3", "4"]);
  });
});

describe("OpenAI Chat Completions: message.tool_calls", () => {
  it("answers each call with a tool message; JSON that does not parse, extra fields, unknown and custom tools are answers too", async () => {
    const adapter = createOpenAIAdapter(toolbox);
    const toolCalls = [
      { id: "call_1", type: "function", function: { name: "git_status", arguments: "{}" } },
      { id: "call_2", type: "function", function: { name: "git_diff", arguments: '{"staged": tru' } },
      { id: "call_3", type: "function", function: { name: "git_log", arguments: '{"count": 1, "oneline": true, "extra": 1}' } },
      { id: "call_4", type: "function", function: { name: "git_push", arguments: "{}" } },
      { id: "call_5", type: "custom", custom: { name: "shell", input: "git status" } },
      { id: "call_6", type: "function", function: { name: "git_status", arguments: "" } },
    ] as const;
    const messages = await adapter.toolMessages(toolCalls);
    const status = okText(await toolbox.execute("git_status", {}));
    expect(messages).toEqual([
      { role: "tool", tool_call_id: "call_1", content: status },
      {
        role: "tool",
        tool_call_id: "call_2",
        content: expect.stringMatching(
          /^error \(invalid_input\): The arguments of git_diff are not valid JSON \(.+\)\.\nhint: Send the arguments as one JSON object, e\.g\. \{\} or \{"path": "src"\}\.$/,
        ),
      },
      { role: "tool", tool_call_id: "call_3", content: errorText(await toolbox.execute("git_log", { count: 1, oneline: true, extra: 1 })) },
      {
        role: "tool",
        tool_call_id: "call_4",
        content:
          'error (unknown_tool): There is no tool named "git_push".\nhint: Available tools: git_status, git_diff, git_log, git_show, git_blame, git_context, load_instructions, git_changes.',
      },
      { role: "tool", tool_call_id: "call_5", content: expect.stringContaining('error (unknown_tool): There is no tool named "shell".') },
      { role: "tool", tool_call_id: "call_6", content: status },
    ]);
    expect(await adapter.toolMessages(undefined)).toEqual([]);
  });

  it("strict: null means absent, so a model's all-null call runs with the defaults", async () => {
    const adapter = createOpenAIAdapter(toolbox, { strict: true, tools: ["git_status", "git_diff"] });
    const [status, diff] = await adapter.runChat([
      { id: "c1", type: "function", function: { name: "git_status", arguments: '{"short":null,"path":null,"untracked":null}' } },
      {
        id: "c2",
        type: "function",
        function: {
          name: "git_diff",
          arguments: '{"staged":true,"commit":null,"commit2":null,"path":"src","maxBytes":null,"offset":null,"stat":null,"context":null}',
        },
      },
    ]);
    expect(status?.input).toEqual({});
    expect(status?.message.content).toBe(okText(await toolbox.execute("git_status", {})));
    expect(diff?.input).toEqual({ staged: true, path: "src" });
    expect(diff?.message.content).toBe(okText(await toolbox.execute("git_diff", { staged: true, path: "src" })));
    // Without strict a null is a value like any other, and the toolbox says what it expected.
    const [plain] = await createOpenAIAdapter(toolbox).toolMessages([
      { id: "c3", type: "function", function: { name: "git_status", arguments: '{"path":null}' } },
    ]);
    expect(plain?.content).toContain("error (invalid_input): Invalid input for git_status: path:");
  });

  it("includeData: the text and the data as two text parts", async () => {
    const [message] = await createOpenAIAdapter(toolbox, { includeData: true }).toolMessages([
      { id: "c1", type: "function", function: { name: "git_status", arguments: "{}" } },
    ]);
    const result = await toolbox.execute("git_status", {});
    expect(message?.content).toEqual([
      { type: "text", text: okText(result) },
      { type: "text", text: JSON.stringify(result.ok ? result.data : null) },
    ]);
  });
});

describe("OpenAI Responses: function_call output items", () => {
  it("answers each function_call of response.output with a function_call_output of the same call_id", async () => {
    const adapter = createOpenAIAdapter(toolbox);
    // As the Responses API returns it: reasoning and message items between the calls.
    const output = [
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", id: "fc_1", call_id: "call_a", name: "git_status", arguments: "{}", status: "completed" },
      { type: "message", id: "msg_1", role: "assistant", content: [], status: "completed" },
      { type: "function_call", id: "fc_2", call_id: "call_b", name: "git_show", arguments: "not json", status: "completed" },
      {
        type: "function_call",
        id: "fc_3",
        call_id: "call_c",
        name: "git_blame",
        arguments: '{"path":"src/app.ts","start_line":0}',
        status: "completed",
      },
    ];
    const items = await adapter.functionCallOutputs(output);
    expect(items.map((item) => item.call_id)).toEqual(["call_a", "call_b", "call_c"]);
    expect(items[0]).toEqual({ type: "function_call_output", call_id: "call_a", output: okText(await toolbox.execute("git_status", {})) });
    expect(items[1]?.output).toMatch(/^error \(invalid_input\): The arguments of git_show are not valid JSON/);
    expect(items[2]).toEqual({
      type: "function_call_output",
      call_id: "call_c",
      output: errorText(await toolbox.execute("git_blame", { path: "src/app.ts", start_line: 0 })),
    });
  });
});

describe("Vercel AI SDK: tool calls through the real generateText loop", () => {
  it("executes through the toolbox, answers failures as error-text, and the next step sees every result", async () => {
    const prompts: unknown[] = [];
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompts.push(options.prompt);
        if (prompts.length === 1) {
          return {
            content: [
              { type: "tool-call", toolCallId: "t1", toolName: "git_status", input: "{}" },
              { type: "tool-call", toolCallId: "t2", toolName: "git_log", input: '{"count":1,"extra":true}' },
              { type: "tool-call", toolCallId: "t3", toolName: "git_diff", input: '{"staged":true}' },
              // Unknown tools and input that is not JSON: the SDK answers them itself (tool-error parts) and goes on.
              { type: "tool-call", toolCallId: "t4", toolName: "git_commit", input: "{}" },
              { type: "tool-call", toolCallId: "t5", toolName: "git_status", input: "{bad" },
            ],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage,
            warnings: [],
          };
        }
        return { content: [{ type: "text", text: "Summary." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      },
    });
    const result = await generateText({ model, tools: aiSdkTools(toolbox, { jsonSchema }), stopWhen: stepCountIs(3), prompt: "What changed?" });
    expect(result.text).toBe("Summary.");

    // The program gets the whole envelope, typed data included.
    const outputs = result.steps[0]?.toolResults.map((toolResult) => toolResult.output as ToolResult);
    expect(outputs?.map((output) => output.ok)).toEqual([true, false, true]);
    expect(outputs?.[0]).toEqual(await toolbox.execute("git_status", {}));

    // The model reads the text, or the error's code, message and hint.
    const toolMessage = (prompts[1] as { role: string; content: unknown[] }[]).find((message) => message.role === "tool");
    expect(toolMessage?.content).toEqual([
      expect.objectContaining({ type: "tool-result", toolCallId: "t1", output: { type: "text", value: okText(outputs?.[0] as ToolResult) } }),
      expect.objectContaining({
        type: "tool-result",
        toolCallId: "t2",
        output: { type: "error-text", value: errorText(await toolbox.execute("git_log", { count: 1, extra: true })) },
      }),
      expect.objectContaining({
        type: "tool-result",
        toolCallId: "t3",
        output: { type: "text", value: okText(await toolbox.execute("git_diff", { staged: true })) },
      }),
      expect.objectContaining({ toolCallId: "t4", output: { type: "error-text", value: expect.stringContaining("unavailable tool 'git_commit'") } }),
      expect.objectContaining({ toolCallId: "t5", output: { type: "error-text", value: expect.stringContaining("JSON parsing failed") } }),
    ]);
  });
});
