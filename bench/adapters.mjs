// What the adapters and the agent loop cost a model and a harness, in o200k tokens and milliseconds:
// 1. the tool definitions as each adapter emits them (and as MCP lists them), per request;
// 2. a typical demo exchange ("check git status and summarize current diff", the scripted provider: status,
//    then the staged and unstaged diffs capped at 4,000 bytes, then a summary) against the same exchange done
//    with a shell tool running `git status`, `git diff --staged` and `git diff`, on a small demo repository and on
//    the generated small benchmark repository (bench/repos.mjs: 20 modified, 5 untracked files);
// 3. the loop's own time per step (building requests, bookkeeping) against the provider and the tool calls.
// Part of `npm run bench`; alone: `npm run build && node bench/adapters.mjs`. Leaves its section of
// BENCHMARKS.md in bench/.results/adapters.json for bench/report.mjs.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateText, jsonSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createToolbox } from "../dist/index.js";
import { anthropicTools } from "../dist/adapters/anthropic.js";
import { openaiChatTools, openaiResponsesTools } from "../dist/adapters/openai.js";
import { aiSdkTools } from "../dist/adapters/ai-sdk.js";
import { toMcpTool } from "../dist/mcp/tools.js";
import { contextReport, runAgent, scriptedProvider, PREAMBLE } from "../dist/agent/index.js";
import { loadTokenCounter } from "../dist/context/tokens.js";
import { ensureRepository } from "./repos.mjs";
import { median } from "./shared.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 30);
const TASK = "check git status and summarize current diff";
const count = await loadTokenCounter();
const tokens = (value) => count(typeof value === "string" ? value : JSON.stringify(value));
const started = performance.now();

// ---- 1. definitions ----

/** What the AI SDK hands a provider for our tools, captured from the real generateText. */
async function aiSdkProviderTools(toolbox) {
  let offered = [];
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      offered = options.tools ?? [];
      return { content: [{ type: "text", text: "" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  await generateText({ model, tools: aiSdkTools(toolbox, { jsonSchema }), prompt: "x" });
  return offered;
}

const definitionsToolbox = createToolbox({ root: tmpdir() });
const strict = { strict: true, unsupported: "describe" };
const definitionSets = [
  { id: "anthropic", label: "Anthropic Messages `tools`", value: anthropicTools(definitionsToolbox) },
  { id: "anthropicStrict", label: "Anthropic, `strict: true` (constraints described)", value: anthropicTools(definitionsToolbox, strict) },
  { id: "openaiChat", label: "OpenAI Chat Completions `tools`", value: openaiChatTools(definitionsToolbox) },
  { id: "openaiChatStrict", label: "OpenAI Chat Completions, strict (constraints described)", value: openaiChatTools(definitionsToolbox, strict) },
  { id: "openaiResponses", label: "OpenAI Responses `tools`", value: openaiResponsesTools(definitionsToolbox) },
  { id: "openaiResponsesStrict", label: "OpenAI Responses, strict (constraints described)", value: openaiResponsesTools(definitionsToolbox, strict) },
  { id: "aiSdk", label: "Vercel AI SDK (as passed to the provider)", value: await aiSdkProviderTools(definitionsToolbox) },
  { id: "mcp", label: "MCP `tools/list` (with output schemas and annotations)", value: definitionsToolbox.tools.map(toMcpTool) },
  {
    id: "toolInfo",
    label: "`ToolInfo.inputSchema` as is (with `$schema`)",
    value: definitionsToolbox.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })),
  },
];
const definitions = definitionSets.map(({ id, label, value }) => ({
  id,
  label,
  tools: value.length,
  tokens: tokens(value),
  perTool: value.map((tool) => tokens(tool)),
}));
const toolNames = definitionsToolbox.tools.map((tool) => tool.name);

// ---- 2. the exchange, gitctx against the shell ----

const fixtureEnv = (home) => ({
  PATH: process.env.PATH,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_OPTIONAL_LOCKS: "0",
  LC_ALL: "C.UTF-8",
  GIT_AUTHOR_NAME: "Ada Lovelace",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Ada Lovelace",
  GIT_COMMITTER_EMAIL: "ada@example.com",
  GIT_AUTHOR_DATE: "1704067200 +0000",
  GIT_COMMITTER_DATE: "1704067200 +0000",
});

/** A small project mid-change: two files edited, one new file staged, one untracked. */
function demoRepository(base) {
  const dir = join(base, "demo");
  const env = fixtureEnv(base);
  const git = (...args) => execFileSync("git", args, { cwd: dir, env, stdio: "pipe" });
  const write = (path, text) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  mkdirSync(dir, { recursive: true });
  git("-c", "init.defaultBranch=main", "init", "-q");
  const lines = (n, f) => `${Array.from({ length: n }, (_, i) => f(i)).join("\n")}\n`;
  write(
    "src/cart.ts",
    lines(40, (i) => `export const item${i} = { id: ${i}, price: ${i * 3} };`),
  );
  write(
    "src/checkout.ts",
    lines(30, (i) => `export function step${i}(total: number): number { return total + ${i}; }`),
  );
  write("README.md", "# shop\n\nA small shop.\n");
  git("add", "-A");
  git("commit", "-qm", "Initial shop");
  write(
    "src/cart.ts",
    lines(40, (i) =>
      i % 10 === 3 ? `export const item${i} = { id: ${i}, price: ${i * 3}, tax: 0.2 };` : `export const item${i} = { id: ${i}, price: ${i * 3} };`,
    ),
  );
  write("README.md", "# shop\n\nA small shop, now with tax.\n");
  write("src/tax.ts", "export const TAX_RATE = 0.2;\nexport const withTax = (price: number): number => price * (1 + TAX_RATE);\n");
  git("add", "src/tax.ts");
  write("NOTES.md", "- check rounding\n");
  return dir;
}

function shellGit(dir, args) {
  return execFileSync("git", ["-c", "color.ui=never", ...args], { cwd: dir, env: fixtureEnv(tmpdir()), encoding: "utf8", maxBuffer: 1 << 30 });
}

// A shell tool as a harness defines it: one string parameter.
const SHELL_TOOL = {
  name: "bash",
  description: "Run a shell command in the repository and return its output (stdout and stderr).",
  input_schema: { type: "object", properties: { command: { type: "string", description: "The command line to run." } }, required: ["command"] },
};

async function gitctxExchange(dir, tools) {
  const run = await runAgent({ session: createToolbox({ root: dir }), provider: scriptedProvider(), task: TASK, tools });
  const report = await contextReport(run);
  const sum = (lines) => lines.reduce((total, line) => total + line.tokens, 0);
  return {
    run,
    tokens: {
      system: sum(report.system),
      definitions: sum(report.tools),
      results: sum(report.results),
      turns: sum(report.turns),
      lastRequest: report.lastRequest,
      allRequests: report.allRequests,
      calls: run.events.filter((event) => event.type === "tool").map((event) => event.name),
    },
  };
}

async function exchange(dir, label) {
  const { run, tokens: gitctx } = await gitctxExchange(dir, "all");
  // A harness that offers only what the task needs.
  const { tokens: narrow } = await gitctxExchange(dir, ["git_status", "git_diff"]);

  // The same three steps with a shell tool: status, then both diffs (whole: a shell does not cap them), then the
  // same answer. The system prompt is the preamble alone: no snapshot.
  const outputs = [shellGit(dir, ["status"]), shellGit(dir, ["diff", "--staged"]), shellGit(dir, ["diff"])];
  const calls = [{ command: "git status" }, { command: "git diff --staged" }, { command: "git diff" }].map((input) =>
    tokens({ name: "bash", input }),
  );
  const answer = tokens(run.answer ?? "");
  const system = count(PREAMBLE);
  const definitionsTokens = tokens([SHELL_TOOL]);
  const results = outputs.map((text) => count(text));
  const fixed = system + definitionsTokens;
  const task = count(TASK);
  const first = fixed + task;
  const second = first + calls[0] + results[0];
  const third = second + calls[1] + calls[2] + results[1] + results[2];
  const shell = {
    system,
    definitions: definitionsTokens,
    results: results.reduce((a, b) => a + b, 0),
    turns: calls.reduce((a, b) => a + b, 0) + answer,
    lastRequest: third,
    allRequests: first + second + third,
    outputBytes: outputs.reduce((total, text) => total + Buffer.byteLength(text), 0),
  };
  return { label, gitctx, narrow, shell, answer: run.answer };
}

const base = mkdtempSync(join(tmpdir(), "gitctx-bench-adapters-"));
let exchanges;
let overhead;
try {
  const demoDir = demoRepository(base);
  const small = await ensureRepository("small");
  exchanges = [
    await exchange(demoDir, "demo repository (2 edited, 1 staged, 1 untracked)"),
    await exchange(small.dir, `generated small repository (${small.files?.toLocaleString("en-US") ?? "1,000"} files, 20 edited, 5 untracked)`),
  ];

  // ---- 3. the loop's own time ----
  const toolbox = createToolbox({ root: demoDir });
  const steps = { provider: [], tools: [], loop: [], total: [], context: [], run: [] };
  for (let i = 0; i < 3; i++) await runAgent({ session: toolbox, provider: scriptedProvider(), task: TASK });
  for (let i = 0; i < RUNS; i++) {
    const run = await runAgent({ session: toolbox, provider: scriptedProvider(), task: TASK });
    steps.context.push(run.timing.contextMs);
    steps.run.push(run.timing.totalMs);
    for (const step of run.timing.steps) {
      steps.provider.push(step.providerMs);
      steps.loop.push(step.loopMs);
      steps.total.push(step.totalMs);
      if (step.toolCalls > 0) steps.tools.push(step.toolsMs);
    }
  }
  overhead = Object.fromEntries(Object.entries(steps).map(([key, values]) => [key, median(values)]));
} finally {
  rmSync(base, { recursive: true, force: true });
}

// ---- report ----

const fmt = (n) => n.toLocaleString("en-US");
const ms = (n) => (n < 1 ? n.toFixed(3) : n < 10 ? n.toFixed(2) : n.toFixed(1));
const anthropic = definitions.find((entry) => entry.id === "anthropic");
const raw = definitions.find((entry) => entry.id === "toolInfo");

const lines = [
  "## Adapters and the agent loop",
  "",
  `Tokens are o200k (\`gpt-tokenizer\`), of the JSON a request carries; ${cpus().length} cores. \`node bench/adapters.mjs\`.`,
  "",
  `### Tool definitions, per request (${toolNames.length} tools: ${toolNames.join(", ")})`,
  "",
  "| definitions | tokens | per tool |",
  "|---|---:|---|",
  ...definitions.map((entry) => `| ${entry.label} | ${fmt(entry.tokens)} | ${entry.perTool.map(fmt).join(", ")} |`),
  "",
  `Leaving out \`$schema\` saves ${fmt(raw.tokens - anthropic.tokens)} tokens per request. Strict variants add the \`null\` unions (OpenAI) and the ` +
    "constraints moved into descriptions; MCP also lists output schemas, which a model API never needs.",
  "",
  `### A demo exchange: "${TASK}"`,
  "",
  "The scripted provider's three steps (git_status; git_diff staged and unstaged, 4,000 bytes each at most; the answer) " +
    "against the same steps with a shell tool (`git status`, `git diff --staged`, `git diff`, whole). Every request resends " +
    "what came before, so the last request and the sum of all three requests are both given. gitctx's system prompt carries " +
    "the repository snapshot (`git_context`); the shell's has the same preamble and no snapshot.",
  "",
  "| repository | way | system | tool definitions | tool results | model turns | last request | all requests |",
  "|---|---|---:|---:|---:|---:|---:|---:|",
  ...exchanges.flatMap((entry) => [
    `| ${entry.label} | gitctx, all ${toolNames.length} tools | ${fmt(entry.gitctx.system)} | ${fmt(entry.gitctx.definitions)} | ${fmt(entry.gitctx.results)} | ${fmt(entry.gitctx.turns)} | ${fmt(entry.gitctx.lastRequest)} | ${fmt(entry.gitctx.allRequests)} |`,
    `| | gitctx, git_status and git_diff only | ${fmt(entry.narrow.system)} | ${fmt(entry.narrow.definitions)} | ${fmt(entry.narrow.results)} | ${fmt(entry.narrow.turns)} | ${fmt(entry.narrow.lastRequest)} | ${fmt(entry.narrow.allRequests)} |`,
    `| | shell | ${fmt(entry.shell.system)} | ${fmt(entry.shell.definitions)} | ${fmt(entry.shell.results)} (${fmt(entry.shell.outputBytes)} bytes) | ${fmt(entry.shell.turns)} | ${fmt(entry.shell.lastRequest)} | ${fmt(entry.shell.allRequests)} |`,
  ]),
  "",
  ...exchanges.map(
    (entry) =>
      `- ${entry.label}: tool results ${(entry.gitctx.results / entry.shell.results).toFixed(2)}x the shell's; the last request ${(entry.gitctx.lastRequest / entry.shell.lastRequest).toFixed(2)}x ` +
      `with all tools (their definitions: ${fmt(entry.gitctx.definitions)} tokens, the shell tool's: ${fmt(entry.shell.definitions)}), ${(entry.narrow.lastRequest / entry.shell.lastRequest).toFixed(2)}x with git_status and git_diff only.`,
  ),
  "",
  `### The loop's own time (median over ${RUNS} runs of the demo on the demo repository, after 3 warm-up runs)`,
  "",
  "| per step | ms |",
  "|---|---:|",
  `| the loop itself (requests, bookkeeping, events) | ${ms(overhead.loop)} |`,
  `| the provider (scripted: deciding from the results) | ${ms(overhead.provider)} |`,
  `| the tool calls of a step that makes them (wall time of the turn) | ${ms(overhead.tools)} |`,
  `| a whole step | ${ms(overhead.total)} |`,
  `| the system context, once per run (git_context and counting its tokens) | ${ms(overhead.context)} |`,
  `| a whole run (3 steps) | ${ms(overhead.run)} |`,
  "",
  `The loop costs ${((overhead.loop / overhead.tools) * 100).toFixed(2)}% of the tool calls it makes per step.`,
  "",
];
const markdown = lines.join("\n");
const totalSeconds = (performance.now() - started) / 1000;
mkdirSync(join(here, ".results"), { recursive: true });
writeFileSync(
  join(here, ".results", "adapters.json"),
  `${JSON.stringify({ title: "Adapters and the agent loop", markdown, data: { definitions, exchanges, overhead, runs: RUNS, totalSeconds } }, null, 2)}\n`,
);
process.stdout.write(markdown);
