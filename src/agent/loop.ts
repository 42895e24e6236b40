/**
 * The agent loop: build the system context, offer the tools, then ask the provider for a turn, run the tool
 * calls it makes through the toolbox and feed the results back, until it answers without calling a tool or
 * `maxSteps` turns have been taken. A step is one model turn and the calls it made (as the AI SDK counts them):
 * the calls of the last step still run, so their results are in the record.
 *
 * Tool failures, unknown tools and invalid input are results the model reads, never exceptions; a provider that
 * fails ends the run with status `provider_error`. Only an abort (the caller's signal) rejects.
 */
import { createCatalog, runCalls, type ToolCatalog } from "../adapters/shared.js";
import type { Toolbox, ToolInfo } from "../index.js";
import { buildSystemContext } from "./context.js";
import type { AgentEvent, AgentMessage, AgentProvider, AgentRun, ProviderTurn, StepTiming } from "./types.js";

export const DEFAULT_MAX_STEPS = 8;

export interface RunAgentOptions {
  /** The session the agent works in: every tool call goes through it. */
  session: Toolbox;
  provider: AgentProvider;
  task: string;
  /** Most model turns. Default 8. */
  maxSteps?: number;
  /**
   * The tools to offer: `"all"` (default), `"search"` (those `toolbox.search` ranks for the task, best first;
   * all when none matches), or a list of names.
   */
  tools?: "all" | "search" | readonly string[];
  /** Most o200k tokens of the system context. Default 2,000. */
  contextBudget?: number;
  /** Called with each event as it happens (the run's `events` holds them all at the end). */
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
}

export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const started = performance.now();
  const { session: toolbox, provider, task, signal } = options;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`maxSteps must be a whole number of at least 1, not ${maxSteps}.`);
  const events: AgentEvent[] = [];
  const emit = (event: AgentEvent): void => {
    events.push(event);
    options.onEvent?.(event);
  };

  const system = await buildSystemContext(toolbox, {
    ...(options.contextBudget !== undefined ? { budget: options.contextBudget } : {}),
    ...(signal ? { signal } : {}),
  });
  const contextMs = performance.now() - started;
  const tools = offeredTools(toolbox, task, options.tools ?? "all");
  const catalog: ToolCatalog = createCatalog(toolbox, { tools: tools.map((tool) => tool.name) });
  const messages: AgentMessage[] = [{ role: "user", text: task }];
  const timings: StepTiming[] = [];
  emit({ type: "start", task, provider: provider.name, tools: tools.map((tool) => tool.name), system, maxSteps });

  const finish = (status: AgentRun["status"], steps: number, extra: { answer?: string; error?: string } = {}): AgentRun => ({
    status,
    answer: extra.answer,
    ...(extra.error !== undefined ? { error: extra.error } : {}),
    steps,
    task,
    provider: provider.name,
    system,
    tools,
    messages,
    events,
    timing: { totalMs: performance.now() - started, contextMs, steps: timings },
  });

  for (let step = 1; step <= maxSteps; step++) {
    const stepStarted = performance.now();
    signal?.throwIfAborted();
    let turn: ProviderTurn;
    const asked = performance.now();
    try {
      turn = await provider.next({ system: system.text, tools, messages, step, maxSteps, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      emit({ type: "stop", step, reason: "provider_error", message });
      return finish("provider_error", step, { error: message });
    }
    const providerMs = performance.now() - asked;
    emit({ type: "model", step, durationMs: providerMs, text: turn.text, toolCalls: turn.toolCalls, ...(turn.usage ? { usage: turn.usage } : {}) });
    messages.push({ role: "assistant", text: turn.text, toolCalls: turn.toolCalls });

    if (turn.toolCalls.length === 0) {
      timings.push(stepTiming(step, stepStarted, providerMs, 0, 0));
      emit({ type: "final", step, text: turn.text });
      return finish("final", step, { answer: turn.text });
    }

    const toolsStarted = performance.now();
    const outcomes = await runCalls(toolbox, catalog, turn.toolCalls, signal ? { signal } : {});
    const toolsMs = performance.now() - toolsStarted;
    for (const outcome of outcomes) {
      emit({ type: "tool", step, id: outcome.id, name: outcome.name, input: outcome.input, result: outcome.result, durationMs: outcome.durationMs });
    }
    messages.push({ role: "tool", results: outcomes.map((outcome) => ({ callId: outcome.id, name: outcome.name, result: outcome.result })) });
    timings.push(stepTiming(step, stepStarted, providerMs, toolsMs, outcomes.length));
  }
  emit({ type: "stop", step: maxSteps, reason: "max_steps", message: `Reached maxSteps (${maxSteps}) without a final answer.` });
  return finish("max_steps", maxSteps);
}

function stepTiming(step: number, started: number, providerMs: number, toolsMs: number, toolCalls: number): StepTiming {
  const totalMs = performance.now() - started;
  return { step, totalMs, providerMs, toolsMs, loopMs: Math.max(0, totalMs - providerMs - toolsMs), toolCalls };
}

function offeredTools(toolbox: Toolbox, task: string, choice: "all" | "search" | readonly string[]): ToolInfo[] {
  if (choice === "all") return [...toolbox.tools];
  if (choice === "search") {
    const ranked = toolbox.search(task);
    return ranked.length > 0 ? ranked : [...toolbox.tools];
  }
  // createCatalog refuses an unknown name with the list of the real ones.
  return createCatalog(toolbox, { tools: choice }).offered.map((tool) => tool.info);
}
