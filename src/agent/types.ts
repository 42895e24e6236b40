/**
 * The agent loop's own vocabulary, independent of any model API: a provider turns the conversation so far into
 * the model's next turn (text, tool calls, or both); the loop runs the calls through the toolbox and feeds the
 * results back. A provider translates this to and from its API (see ./anthropic-provider.ts).
 */
import type { ToolInfo, ToolResult } from "../index.js";

export interface AgentToolCall {
  /** The provider's id for the call, echoed with its result. */
  id: string;
  /** The tool the model asked for; it may not exist. */
  name: string;
  input: unknown;
}

export interface AgentToolResult {
  callId: string;
  name: string;
  result: ToolResult;
}

export type AgentMessage =
  | { role: "user"; text: string }
  | { role: "assistant"; text: string; toolCalls: AgentToolCall[] }
  | { role: "tool"; results: AgentToolResult[] };

export interface ProviderRequest {
  /** The system context: instructions, the repository snapshot, the project's instruction files. */
  system: string;
  /** The tools offered this run. */
  tools: readonly ToolInfo[];
  /** The conversation: the task first, then each assistant turn and the results of its calls. */
  messages: readonly AgentMessage[];
  /** 1-based: the model turn being asked for. */
  step: number;
  maxSteps: number;
  signal?: AbortSignal;
}

export interface ProviderTurn {
  /** What the model said; the final answer when it asks for no tool. */
  text: string;
  toolCalls: AgentToolCall[];
  /** Tokens the provider reports for this turn, when it reports them. */
  usage?: { inputTokens?: number; outputTokens?: number };
}

export interface AgentProvider {
  /** Shown in output and transcripts, e.g. `scripted` or `anthropic claude-sonnet-4-5`. */
  readonly name: string;
  next(request: ProviderRequest): Promise<ProviderTurn>;
  /** The tool definitions as this provider sends them, for counting their tokens. Default: Anthropic's shape. */
  definitions?(tools: readonly ToolInfo[]): unknown[];
}

/** One piece of the system context and what it cost. */
export interface ContextPart {
  /** `preamble`, or the tool whose text it is (`git_context`, `load_instructions`). */
  name: string;
  text: string;
  /** o200k tokens of `text`. */
  tokens: number;
  durationMs: number;
  /** Whether the tool answered (a failed tool contributes its error text, so the model knows why). */
  ok: boolean;
  /** Set when the text was cut to fit the budget. */
  cut?: boolean;
}

export interface SystemContext {
  text: string;
  parts: ContextPart[];
  budget: number;
  tokens: number;
}

export type AgentEvent =
  | { type: "start"; task: string; provider: string; tools: string[]; system: SystemContext; maxSteps: number }
  | { type: "model"; step: number; durationMs: number; text: string; toolCalls: AgentToolCall[]; usage?: ProviderTurn["usage"] }
  | { type: "tool"; step: number; id: string; name: string; input: unknown; result: ToolResult; durationMs: number }
  | { type: "final"; step: number; text: string }
  | { type: "stop"; step: number; reason: "max_steps" | "provider_error"; message: string };

/** Where the time of one step went: the model, the tool calls (wall time of the turn's batch), and the loop itself. */
export interface StepTiming {
  step: number;
  totalMs: number;
  providerMs: number;
  toolsMs: number;
  /** What is left: building requests, bookkeeping, events. */
  loopMs: number;
  toolCalls: number;
}

export interface AgentRun {
  /** `final`: the model answered; `max_steps`: it was still calling tools; `provider_error`: the model API failed. */
  status: "final" | "max_steps" | "provider_error";
  /** The final answer (`final` only). */
  answer: string | undefined;
  /** The provider's error (`provider_error` only). */
  error?: string;
  steps: number;
  task: string;
  provider: string;
  system: SystemContext;
  tools: ToolInfo[];
  messages: AgentMessage[];
  events: AgentEvent[];
  timing: { totalMs: number; contextMs: number; steps: StepTiming[] };
}
