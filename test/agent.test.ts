/**
 * The agent loop on real repositories: the scripted provider's paths (several calls in one turn, a tool error
 * and the recovery, an unknown tool, invalid arguments, maxSteps), the system context, the context report, and
 * the Anthropic provider against a local server that speaks the Messages API and checks what the client sends.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicTools } from "../src/adapters/anthropic.js";
import {
  anthropicProvider,
  buildSystemContext,
  contextReport,
  fitTokens,
  PREAMBLE,
  readTask,
  renderContextReport,
  runAgent,
  scriptedProvider,
  type AgentEvent,
  type AgentProvider,
  type AgentRun,
} from "../src/agent/index.js";
import { countTokens, createToolbox, formatError, type Toolbox, type ToolResult } from "../src/index.js";
import { loadTokenCounter } from "../src/context/tokens.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

let repo: TestRepo;
let toolbox: Toolbox;

/** One commit, then: src/app.ts edited (unstaged), src/new.ts added (staged), TODO.md untracked. */
beforeAll(() => {
  repo = makeRepo();
  repo.write("src/app.ts", "export const answer = 41;\n").write("README.md", "# app\n");
  repo.commit("Initial app");
  repo.write("src/app.ts", "export const answer = 42;\nexport const question = '?';\n");
  repo.write("src/new.ts", "export const fresh = true;\n");
  repo.git(["add", "src/new.ts"]);
  repo.write("TODO.md", "- ship it\n");
  toolbox = createToolbox({ root: repo.dir });
});

/** Each tool call of a run as `step name input -> ok | code`. */
function calls(run: AgentRun): string[] {
  return run.events
    .filter((event): event is Extract<AgentEvent, { type: "tool" }> => event.type === "tool")
    .map((event) => `${event.step} ${event.name} ${JSON.stringify(event.input)} -> ${event.result.ok ? "ok" : event.result.error.code}`);
}

const SUMMARY = [
  "On branch main: 3 paths changed (1 staged, 1 unstaged, 1 untracked).",
  "Staged: 1 file, +1 -0: src/new.ts (added, +1 -0).",
  "Unstaged: 1 file, +2 -1: src/app.ts (modified, +2 -1).",
  "Untracked (not in any diff): TODO.md.",
  "What is staged will go into the next commit; the rest will not until it is added.",
];

describe("the scripted provider", () => {
  it("status first, then both diffs of what status found in one turn, then a summary from the data", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "check git status and summarize current diff" });
    expect(run.status).toBe("final");
    expect(run.steps).toBe(3);
    expect(calls(run)).toEqual(["1 git_status {} -> ok", '2 git_diff {"staged":true,"maxBytes":4000} -> ok', '2 git_diff {"maxBytes":4000} -> ok']);
    expect(run.answer).toBe(SUMMARY.join("\n"));
    expect(run.events.map((event) => event.type)).toEqual(["start", "model", "tool", "model", "tool", "tool", "model", "final"]);
    // The results fed back are the toolbox's own.
    const toolMessage = run.messages.find((message) => message.role === "tool");
    expect(toolMessage).toEqual({
      role: "tool",
      results: [{ callId: "call_1_1", name: "git_status", result: await toolbox.execute("git_status", {}) }],
    });
  });

  it("a tool error and the recovery: a path that matches nothing is dropped and status asked again", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "summarize the changes in src/missing.ts" });
    expect(calls(run)).toEqual([
      '1 git_status {"path":"src/missing.ts"} -> path_not_found',
      "2 git_status {} -> ok",
      '3 git_diff {"staged":true,"maxBytes":4000} -> ok',
      '3 git_diff {"maxBytes":4000} -> ok',
    ]);
    expect(run.status).toBe("final");
    expect(run.answer).toBe(
      [...SUMMARY, '"src/missing.ts" matches nothing in the working tree or the index, so this covers the whole repository.'].join("\n"),
    );
  });

  it("a path that exists scopes status and diff to it", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "what changed in src/app.ts?" });
    expect(calls(run)).toEqual(['1 git_status {"path":"src/app.ts"} -> ok', '2 git_diff {"path":"src/app.ts","maxBytes":4000} -> ok']);
    expect(run.answer).toBe(
      [
        "On branch main: 1 path changed under src/app.ts (0 staged, 1 unstaged, 0 untracked).",
        "Unstaged: 1 file, +2 -1: src/app.ts (modified, +2 -1).",
        "Nothing is staged yet.",
      ].join("\n"),
    );
  });

  it("an unknown tool: the write the task asks for is not a tool here, and the model carries on", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "check the status and commit it" });
    expect(calls(run).slice(0, 2)).toEqual(['1 git_commit {"message":"Update"} -> unknown_tool', "1 git_status {} -> ok"]);
    const unknown = run.events.find((event): event is Extract<AgentEvent, { type: "tool" }> => event.type === "tool" && event.name === "git_commit");
    expect(formatError((unknown?.result as Extract<ToolResult, { ok: false }>).error)).toBe(
      'error (unknown_tool): There is no tool named "git_commit".\nhint: Available tools: git_status, git_diff, git_log, git_show, git_blame, git_context, load_instructions, git_changes.',
    );
    expect(run.status).toBe("final");
    expect(run.answer).toContain(
      "I did not commit: there is no git_commit tool (the tools here only read the repository). Run git commit yourself when you are ready.",
    );
  });

  it("invalid arguments: a cap the tool refuses, then the default cap", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "summarize the diff in 0 bytes" });
    expect(calls(run)).toEqual([
      "1 git_status {} -> ok",
      '2 git_diff {"staged":true,"maxBytes":0} -> invalid_input',
      '2 git_diff {"maxBytes":0} -> invalid_input',
      '3 git_diff {"staged":true,"maxBytes":4000} -> ok',
      '3 git_diff {"maxBytes":4000} -> ok',
    ]);
    expect(run.answer).toBe([...SUMMARY, "The diff tool refused a cap of 0 bytes; I used the default cap instead."].join("\n"));
  });

  it("a cap the task names is used, and a cut patch is reported with the offset to continue", async () => {
    const big = makeRepo();
    big.write("z.txt", "a\n").commit("a");
    big.write("z.txt", Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n"));
    big.write("b.txt", "b\n");
    big.git(["add", "b.txt"]);
    big.write("b.txt", "b\nc\n");
    const run = await runAgent({
      session: createToolbox({ root: big.dir }),
      provider: scriptedProvider(),
      task: "summarize the unstaged diff in 300 bytes",
    });
    const diff = run.events.find(
      (event): event is Extract<AgentEvent, { type: "tool" }> =>
        event.type === "tool" && event.name === "git_diff" && !(event.input as { staged?: boolean }).staged,
    );
    expect(diff?.input).toEqual({ maxBytes: 300 });
    const data = (diff?.result as Extract<ToolResult, { ok: true }>).data as { nextOffset: number; returnedBytes: number };
    expect(run.answer).toContain(
      `Unstaged: 2 files, +1 -0: b.txt (modified, +1 -0), z.txt (modified, lines not counted). The patch was cut at ${data.returnedBytes} bytes, so the lines of 1 file are not counted; git_diff with offset ${data.nextOffset} continues it.`,
    );
  });

  it("history words add git_log to the first turn", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "show recent commits and what is staged" });
    expect(calls(run).slice(0, 2)).toEqual(["1 git_status {} -> ok", '1 git_log {"count":5,"oneline":true} -> ok']);
    expect(run.answer?.split("\n").at(-1)).toMatch(/^Recent commits: [0-9a-f]{7} Initial app\.$/);
  });

  it("hitting maxSteps: the last step's calls still run, and there is no answer", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "check git status and summarize current diff", maxSteps: 2 });
    expect(run.status).toBe("max_steps");
    expect(run.answer).toBeUndefined();
    expect(run.steps).toBe(2);
    expect(calls(run)).toHaveLength(3);
    expect(run.events.at(-1)).toEqual({ type: "stop", step: 2, reason: "max_steps", message: "Reached maxSteps (2) without a final answer." });
    await expect(runAgent({ session: toolbox, provider: scriptedProvider(), task: "x", maxSteps: 0 })).rejects.toThrow(
      "maxSteps must be a whole number of at least 1, not 0.",
    );
  });

  it("a clean tree is one status call and an answer; outside a repository the answer says why", async () => {
    const clean = makeRepo();
    clean.write("a.txt", "a\n").commit("a");
    const run = await runAgent({ session: createToolbox({ root: clean.dir }), provider: scriptedProvider(), task: "status?" });
    expect(calls(run)).toEqual(["1 git_status {} -> ok"]);
    expect(run.answer).toBe("On branch main: the working tree is clean. Nothing is staged, modified or untracked.");

    const nowhere = await runAgent({ session: createToolbox({ root: tempDir() }), provider: scriptedProvider(), task: "status?" });
    expect(calls(nowhere)).toEqual(["1 git_status {} -> not_a_repository"]);
    expect(nowhere.status).toBe("final");
    expect(nowhere.answer).toMatch(/^I could not read the repository's status: /);
    expect(nowhere.system.parts[1]).toMatchObject({ name: "git_context", ok: false });
    expect(nowhere.system.parts[1]?.text).toMatch(/^error \(not_a_repository\): /);
  });

  it("reads the task's words", () => {
    expect(readTask("check git status and summarize current diff")).toEqual({
      path: undefined,
      maxBytes: undefined,
      history: false,
      write: undefined,
    });
    expect(readTask("diff of docs/guide.md in 2kb, then push")).toEqual({
      path: "docs/guide.md",
      maxBytes: 2048,
      history: false,
      write: { tool: "git_push", input: {} },
    });
    expect(readTask("Commit my changes to README.md")).toMatchObject({ path: "README.md", write: { tool: "git_commit" } });
    // "commits" is history, not a write; a URL is not a path.
    expect(readTask("list the last commits from https://example.com/x")).toMatchObject({ path: undefined, history: true, write: undefined });
  });
});

describe("the loop", () => {
  it("offers all tools, or those toolbox.search ranks for the task", async () => {
    const all = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "who wrote this line", maxSteps: 1 });
    expect(all.tools.map((tool) => tool.name)).toEqual(toolbox.tools.map((tool) => tool.name));
    const ranked = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "who wrote this line", maxSteps: 1, tools: "search" });
    expect(ranked.tools.map((tool) => tool.name)).toEqual(toolbox.search("who wrote this line").map((tool) => tool.name));
    expect(ranked.tools[0]?.name).toBe("git_blame");
    // A tool the run did not offer is unknown to the model, even though the toolbox has it.
    const narrow = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "status", tools: ["git_diff"] });
    expect(calls(narrow)).toEqual(["1 git_status {} -> unknown_tool"]);
  });

  it("a provider that fails ends the run with provider_error; an abort rejects", async () => {
    const failing: AgentProvider = {
      name: "failing",
      next: async () => {
        throw new Error("quota exceeded");
      },
    };
    const run = await runAgent({ session: toolbox, provider: failing, task: "status" });
    expect(run).toMatchObject({ status: "provider_error", error: "quota exceeded", answer: undefined, steps: 1 });
    const controller = new AbortController();
    const aborting: AgentProvider = {
      name: "aborting",
      next: async () => {
        controller.abort(new Error("stopped by the user"));
        throw new Error("aborted");
      },
    };
    await expect(runAgent({ session: toolbox, provider: aborting, task: "status", signal: controller.signal })).rejects.toThrow("aborted");
  });

  it("times each step: model, tools and the loop's own share add up to the step", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "check git status and summarize current diff" });
    expect(run.timing.steps.map((step) => step.toolCalls)).toEqual([1, 2, 0]);
    for (const step of run.timing.steps) {
      expect(step.providerMs + step.toolsMs + step.loopMs).toBeCloseTo(step.totalMs, 6);
      expect(step.loopMs).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("the system context", () => {
  it("is the preamble, git_context's text and load_instructions' text within the budget", async () => {
    const context = await buildSystemContext(toolbox);
    expect(context.parts.map((part) => part.name)).toEqual(["preamble", "git_context", "load_instructions"]);
    expect(context.text).toContain("<load_instructions>\nNo instruction files found (formats: claude, agents).\n\n</load_instructions>");
    expect(context.text.startsWith(`${PREAMBLE}\n\n<git_context>\nGit repository: `)).toBe(true);
    expect(context.text).toContain("Changes (1 staged, 1 unstaged):");
    expect(context.tokens).toBe(await countTokens(context.text));
    expect(context.tokens).toBeLessThanOrEqual(2_000);
    // Half of what the preamble leaves goes to the snapshot when there are instructions to load too.
    const small = await buildSystemContext(toolbox, { budget: 300 });
    expect(small.tokens).toBeLessThanOrEqual(300);
    expect(small.parts[1]?.text).toContain("Left out to fit");
  });

  it("fitTokens keeps whole first lines and says how to get the rest", async () => {
    const count = await loadTokenCounter();
    const text = Array.from({ length: 50 }, (_, i) => `line number ${i}`).join("\n");
    const fitted = fitTokens(text, 40, count, "[cut]");
    expect(count(fitted)).toBeLessThanOrEqual(40);
    expect(fitted.endsWith("\n[cut]")).toBe(true);
    expect(text.startsWith(fitted.slice(0, -"\n[cut]".length))).toBe(true);
    expect(fitTokens("short", 40, count, "[cut]")).toBe("short");
  });
});

describe("the context report", () => {
  it("counts each part, and the requests as the model received them", async () => {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: "check git status and summarize current diff" });
    const report = await contextReport(run);
    const count = await loadTokenCounter();
    expect(report.system.map((line) => line.label)).toEqual(["preamble", "git_context", "load_instructions"]);
    expect(report.system[0]?.tokens).toBe(count(PREAMBLE));
    expect(report.tools.map((line) => line.label)).toEqual(toolbox.tools.map((tool) => tool.name));
    expect(report.tools[0]?.tokens).toBe(count(JSON.stringify(anthropicTools(toolbox)[0])));
    expect(report.results.map((line) => line.label)).toEqual(["step 1 git_status", "step 2 git_diff", "step 2 git_diff"]);
    const status = await toolbox.execute("git_status", {});
    expect(report.results[0]?.tokens).toBe(count((status as Extract<ToolResult, { ok: true }>).text));
    expect(report.turns.map((line) => line.label)).toEqual(["step 1: git_status", "step 2: git_diff, git_diff", "step 3 (final answer)"]);
    const fixed = report.system.reduce((s, l) => s + l.tokens, 0) + report.tools.reduce((s, l) => s + l.tokens, 0);
    const turns = report.turns.map((line) => line.tokens);
    const results = report.results.map((line) => line.tokens);
    const first = fixed + report.task;
    const second = first + (turns[0] as number) + (results[0] as number);
    const third = second + (turns[1] as number) + (results[1] as number) + (results[2] as number);
    expect(report.lastRequest).toBe(third);
    expect(report.allRequests).toBe(first + second + third);
    const text = renderContextReport(report);
    expect(text.split("\n")[0]).toBe("Context report (o200k tokens):");
    expect(text).toMatch(/\n {2}tool definitions \(8\) +\d+\n {4}git_status +\d+\n/);
  });
});

// ---- the Anthropic provider against a local Messages API ----

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: { model: string; max_tokens: number; system: string; tools: { name: string }[]; messages: { role: string; content: unknown }[] };
}

describe("the Anthropic provider", () => {
  let server: Server;
  let baseUrl: string;
  const received: Received[] = [];
  let reply: (request: Received) => { status: number; body: unknown };

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const entry: Received = {
          method: request.method ?? "",
          url: request.url ?? "",
          headers: request.headers,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
        };
        received.push(entry);
        const { status, body } = reply(entry);
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const message = (content: unknown[], stopReason: string) => ({
    id: `msg_${received.length}`,
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: stopReason,
    usage: { input_tokens: 1000 + received.length, output_tokens: 20 },
  });

  it("sends the system context, the tools and tool_result blocks whose ids match the tool_use ids", async () => {
    received.length = 0;
    reply = (request) => {
      if (request.body.messages.length === 1) {
        return {
          status: 200,
          body: message(
            [
              { type: "text", text: "Looking." },
              { type: "tool_use", id: "toolu_A", name: "git_status", input: {} },
              { type: "tool_use", id: "toolu_B", name: "git_diff", input: { staged: true } },
              { type: "tool_use", id: "toolu_C", name: "git_rewrite_history", input: {} },
            ],
            "tool_use",
          ),
        };
      }
      return { status: 200, body: message([{ type: "text", text: "One file is staged: src/new.ts." }], "end_turn") };
    };
    const run = await runAgent({
      session: toolbox,
      provider: anthropicProvider({ apiKey: "test-key", baseUrl: `${baseUrl}/`, model: "claude-test", maxTokens: 512 }),
      task: "what is staged?",
    });
    expect(run.status).toBe("final");
    expect(run.answer).toBe("One file is staged: src/new.ts.");
    expect(run.provider).toBe("anthropic claude-test");
    expect(received).toHaveLength(2);

    const [first, second] = received as [Received, Received];
    expect(first.method).toBe("POST");
    expect(first.url).toBe("/v1/messages");
    expect(first.headers["x-api-key"]).toBe("test-key");
    expect(first.headers["anthropic-version"]).toBe("2023-06-01");
    expect(first.headers["content-type"]).toBe("application/json");
    expect(first.body.model).toBe("claude-test");
    expect(first.body.max_tokens).toBe(512);
    expect(first.body.system).toBe(run.system.text);
    expect(first.body.system).toContain("<git_context>\nGit repository: ");
    expect(first.body.tools).toEqual(anthropicTools(toolbox));
    expect(first.body.messages).toEqual([{ role: "user", content: "what is staged?" }]);

    expect(second.body.messages).toHaveLength(3);
    expect(second.body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "toolu_A", name: "git_status", input: {} },
        { type: "tool_use", id: "toolu_B", name: "git_diff", input: { staged: true } },
        { type: "tool_use", id: "toolu_C", name: "git_rewrite_history", input: {} },
      ],
    });
    const results = second.body.messages[2] as {
      role: string;
      content: { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
    };
    expect(results.role).toBe("user");
    expect(results.content.map((block) => block.tool_use_id)).toEqual(["toolu_A", "toolu_B", "toolu_C"]);
    expect(results.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_A",
      content: ((await toolbox.execute("git_status", {})) as Extract<ToolResult, { ok: true }>).text,
    });
    expect(results.content[2]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_C", is_error: true });
    expect(results.content[2]?.content).toMatch(/^error \(unknown_tool\): There is no tool named "git_rewrite_history"\./);
    // The usage the API reported is kept with each turn.
    expect(run.events.find((event) => event.type === "model")).toMatchObject({ usage: { inputTokens: 1001, outputTokens: 20 } });
  });

  it("an API error ends the run with provider_error and the API's message", async () => {
    received.length = 0;
    reply = () => ({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "max_tokens: must be positive" } } });
    const run = await runAgent({ session: toolbox, provider: anthropicProvider({ apiKey: "k", baseUrl }), task: "status" });
    expect(run.status).toBe("provider_error");
    expect(run.error).toBe("The Anthropic API answered 400 (invalid_request_error): max_tokens: must be positive");
    expect(received[0]?.body.model).toBe("claude-sonnet-4-5");
  });
});
