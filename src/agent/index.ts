/**
 * The agent loop (`gitctx/agent`): `runAgent` with a scripted provider for offline use and tests, and Claude
 * over the Anthropic Messages API. The loop composes the toolbox with the adapters; nothing in the library
 * imports it.
 */
export { runAgent, DEFAULT_MAX_STEPS } from "./loop.js";
export type { RunAgentOptions } from "./loop.js";
export { buildSystemContext, fitTokens, DEFAULT_SYSTEM_BUDGET, PREAMBLE } from "./context.js";
export type { SystemContextOptions } from "./context.js";
export { scriptedProvider, readTask, DEFAULT_SCRIPTED_MAX_BYTES } from "./scripted.js";
export type { ScriptedProviderOptions, TaskPlan } from "./scripted.js";
export { anthropicProvider, toMessages, DEFAULT_ANTHROPIC_MODEL, DEFAULT_ANTHROPIC_BASE_URL, ANTHROPIC_VERSION } from "./anthropic-provider.js";
export type { AnthropicProviderOptions } from "./anthropic-provider.js";
export { contextReport, providerDefinitions, renderContextReport } from "./report.js";
export type { ContextReport, ReportLine } from "./report.js";
export type {
  AgentEvent,
  AgentMessage,
  AgentProvider,
  AgentRun,
  AgentToolCall,
  AgentToolResult,
  ContextPart,
  ProviderRequest,
  ProviderTurn,
  StepTiming,
  SystemContext,
} from "./types.js";
