/**
 * The system context of an agent run, within a token budget: a short preamble, the repository snapshot (the
 * `git_context` tool's text) and, when the toolbox has a `load_instructions` tool, the project's instruction
 * files. Both come from the toolbox like any tool call, so the model reads exactly what it would get by
 * calling them itself.
 */
import { formatError } from "../errors.js";
import { loadTokenCounter, type TokenCounter } from "../context/tokens.js";
import type { Toolbox, ToolInfo } from "../index.js";
import type { ContextPart, SystemContext } from "./types.js";

export const DEFAULT_SYSTEM_BUDGET = 2_000;
const SNAPSHOT_TOOL = "git_context";
const INSTRUCTIONS_TOOL = "load_instructions";
/** With instruction files to load, the snapshot gets this share of what the preamble leaves. */
const SNAPSHOT_SHARE = 0.5;
/** Below this, a part is not worth asking for. */
const MIN_PART_BUDGET = 50;

export const PREAMBLE =
  "You are a coding agent working in a git repository. The repository context below was read at the start of " +
  "this task. Use the tools to look closer: they are read-only, structured and safe, so prefer them to running git " +
  "in a shell. Base every statement on what the tools return, and say so when something could not be read.";

export interface SystemContextOptions {
  /** Most o200k tokens of the whole system context. Default 2,000. */
  budget?: number;
  signal?: AbortSignal;
}

export async function buildSystemContext(toolbox: Toolbox, options: SystemContextOptions = {}): Promise<SystemContext> {
  const budget = options.budget ?? DEFAULT_SYSTEM_BUDGET;
  const count = await loadTokenCounter();
  const preamble: ContextPart = { name: "preamble", text: PREAMBLE, tokens: count(PREAMBLE), durationMs: 0, ok: true };
  const parts: ContextPart[] = [preamble];
  // Each part sits under its own heading; the separators are counted with it.
  let left = budget - preamble.tokens;
  const instructions = toolbox.tools.find((tool) => tool.name === INSTRUCTIONS_TOOL);
  const snapshot = toolbox.tools.find((tool) => tool.name === SNAPSHOT_TOOL);

  if (snapshot !== undefined && left >= MIN_PART_BUDGET) {
    const share = instructions === undefined ? left : Math.floor(left * SNAPSHOT_SHARE);
    const part = await toolPart(toolbox, snapshot, share, count, options.signal);
    parts.push(part);
    left -= part.tokens;
  }
  if (instructions !== undefined && left >= MIN_PART_BUDGET) {
    parts.push(await toolPart(toolbox, instructions, left, count, options.signal));
  }
  const text = parts.map((part) => (part.name === "preamble" ? part.text : section(part))).join("\n\n");
  return { text, parts, budget, tokens: count(text) };
}

function section(part: ContextPart): string {
  return `<${part.name}>\n${part.text}\n</${part.name}>`;
}

/**
 * A tool's text, fitted to `budget` tokens with its heading: through the tool's own `budget` parameter when it
 * has one, else cut at a line boundary with a note saying how to get the rest.
 */
async function toolPart(
  toolbox: Toolbox,
  tool: ToolInfo,
  budget: number,
  count: TokenCounter,
  signal: AbortSignal | undefined,
): Promise<ContextPart> {
  const overhead = count(section({ name: tool.name, text: "", tokens: 0, durationMs: 0, ok: true }));
  const room = Math.max(1, budget - overhead);
  const takesBudget = Object.hasOwn((tool.inputSchema.properties ?? {}) as object, "budget");
  const started = performance.now();
  const result = await toolbox.execute(tool.name, takesBudget ? { budget: room } : {}, signal === undefined ? {} : { signal });
  const durationMs = performance.now() - started;
  const raw = result.ok ? result.text : formatError(result.error);
  const fitted = fitTokens(raw, room, count, `[cut to ${room} tokens: call ${tool.name} for the rest]`);
  return {
    name: tool.name,
    text: fitted,
    tokens: count(section({ name: tool.name, text: fitted, tokens: 0, durationMs: 0, ok: true })),
    durationMs,
    ok: result.ok,
    ...(fitted === raw ? {} : { cut: true }),
  };
}

/** `text` if it fits `budget` tokens, else its longest run of whole first lines that fits with `note` after them. */
export function fitTokens(text: string, budget: number, count: TokenCounter, note: string): string {
  if (count(text) <= budget) return text;
  const lines = text.split("\n");
  let low = 0;
  let high = lines.length;
  // Binary search on the number of lines kept: token counts grow with every line.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (count([...lines.slice(0, mid), note].join("\n")) <= budget) low = mid;
    else high = mid - 1;
  }
  return [...lines.slice(0, low), note].join("\n");
}
