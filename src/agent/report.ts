/**
 * Where an agent run's tokens went (o200k): each piece of the system context, each tool definition, the task,
 * each tool result as the model read it, and the model's own turns. Every request resends everything before
 * it, so the report gives both the size of the last request and the sum over all requests.
 */
import { toAnthropicTool } from "../adapters/anthropic.js";
import { resultParts } from "../adapters/shared.js";
import { loadTokenCounter } from "../context/tokens.js";
import type { ToolInfo } from "../index.js";
import type { AgentProvider, AgentRun } from "./types.js";

export interface ReportLine {
  label: string;
  tokens: number;
}

export interface ContextReport {
  system: ReportLine[];
  tools: ReportLine[];
  task: number;
  /** One line per tool call, in order: `step N name`. */
  results: ReportLine[];
  /** One line per model turn: its text and tool calls as sent back in the next request. */
  turns: ReportLine[];
  /** Tokens of the last request (everything the model was sent at the end). */
  lastRequest: number;
  /** Tokens of every request together. */
  allRequests: number;
}

/**
 * The tool definitions as `provider` sends them; for one that sends none of its own (the scripted provider),
 * Anthropic's, so its runs are counted as a real model would be sent them.
 */
export function providerDefinitions(provider: AgentProvider | undefined, tools: readonly ToolInfo[]): unknown[] {
  return provider?.definitions?.(tools) ?? tools.map((tool) => toAnthropicTool(tool));
}

export async function contextReport(run: AgentRun, provider?: AgentProvider): Promise<ContextReport> {
  const count = await loadTokenCounter();
  const definitions = providerDefinitions(provider, run.tools);
  const system = run.system.parts.map((part) => ({ label: part.cut ? `${part.name} (cut to fit)` : part.name, tokens: part.tokens }));
  const tools = definitions.map((definition, index) => ({
    label: run.tools[index]?.name ?? `tool ${index + 1}`,
    tokens: count(JSON.stringify(definition)),
  }));
  const task = count(run.task);

  const results: ReportLine[] = [];
  const turns: ReportLine[] = [];
  const fixed = sum(system) + sum(tools);
  // Request k carries the fixed part and the whole conversation before the k-th model turn.
  const requestSizes: number[] = [];
  let carried = 0;
  let step = 0;
  for (const message of run.messages) {
    if (message.role === "user") {
      carried += count(message.text);
    } else if (message.role === "assistant") {
      requestSizes.push(fixed + carried);
      step++;
      const tokens =
        count(message.text) + message.toolCalls.reduce((total, call) => total + count(JSON.stringify({ name: call.name, input: call.input })), 0);
      turns.push({
        label: `step ${step}${message.toolCalls.length === 0 ? " (final answer)" : `: ${message.toolCalls.map((call) => call.name).join(", ")}`}`,
        tokens,
      });
      carried += tokens;
    } else {
      for (const result of message.results) {
        const tokens = count(resultParts(result.result).join("\n"));
        results.push({ label: `step ${step} ${result.name}${result.result.ok ? "" : ` (error: ${result.result.error.code})`}`, tokens });
        carried += tokens;
      }
    }
  }
  return {
    system,
    tools,
    task,
    results,
    turns,
    lastRequest: requestSizes.at(-1) ?? fixed + task,
    allRequests: requestSizes.reduce((total, size) => total + size, 0),
  };
}

function sum(lines: readonly ReportLine[]): number {
  return lines.reduce((total, line) => total + line.tokens, 0);
}

/** The report as aligned text. */
export function renderContextReport(report: ContextReport): string {
  const rows: [string, number | string][] = [];
  const group = (title: string, lines: readonly ReportLine[]): void => {
    rows.push([title, sum(lines)]);
    for (const line of lines) rows.push([`  ${line.label}`, line.tokens]);
  };
  group("system context", report.system);
  group(`tool definitions (${report.tools.length})`, report.tools);
  rows.push(["task", report.task]);
  group(`tool results (${report.results.length})`, report.results);
  group(`model turns (${report.turns.length})`, report.turns);
  rows.push(["last request", report.lastRequest], ["all requests together", report.allRequests]);
  const width = Math.max(...rows.map(([label]) => label.length));
  const digits = Math.max(...rows.map(([, tokens]) => String(tokens).length));
  return ["Context report (o200k tokens):", ...rows.map(([label, tokens]) => `  ${label.padEnd(width)}  ${String(tokens).padStart(digits)}`)].join(
    "\n",
  );
}
