/**
 * A real model for the agent loop: Claude through the Anthropic Messages API, over `fetch` (no SDK). Each turn
 * is one `POST /v1/messages` with the system context, the tools (gitctx/anthropic's definitions) and the whole
 * conversation; tool results go back as `tool_result` blocks in a user message, one per `tool_use`, matched by
 * id (https://docs.anthropic.com/en/api/messages).
 */
import { toAnthropicTool, toolResultBlock } from "../adapters/anthropic.js";
import type { ToolInfo } from "../index.js";
import type { AgentMessage, AgentProvider, ProviderRequest, ProviderTurn } from "./types.js";

export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_VERSION = "2023-06-01";

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Default `claude-sonnet-4-5`. */
  model?: string;
  /** Default `https://api.anthropic.com` (the API's own `ANTHROPIC_BASE_URL` convention). */
  baseUrl?: string;
  /** Most tokens of each answer. Default 2,048. */
  maxTokens?: number;
  /** Per request, in milliseconds. Default 120,000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

export function anthropicProvider(options: AnthropicProviderOptions): AgentProvider {
  const model = options.model ?? DEFAULT_ANTHROPIC_MODEL;
  const url = `${(options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, "")}/v1/messages`;
  const send = options.fetch ?? fetch;
  const definitions = (tools: readonly ToolInfo[]) => tools.map((tool) => toAnthropicTool(tool));
  return {
    name: `anthropic ${model}`,
    definitions,
    async next(request: ProviderRequest): Promise<ProviderTurn> {
      const body = {
        model,
        max_tokens: options.maxTokens ?? 2_048,
        system: request.system,
        tools: definitions(request.tools),
        messages: toMessages(request.messages),
      };
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 120_000);
      const response = await send(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": options.apiKey, "anthropic-version": ANTHROPIC_VERSION },
        body: JSON.stringify(body),
        signal: request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]),
      });
      const text = await response.text();
      const payload = parse(text);
      if (!response.ok) {
        const detail = (payload as { error?: { type?: string; message?: string } } | undefined)?.error;
        throw new Error(
          `The Anthropic API answered ${response.status}${detail?.type ? ` (${detail.type})` : ""}: ${detail?.message ?? text.slice(0, 500)}`,
        );
      }
      const content = (payload as { content?: ContentBlock[] } | undefined)?.content;
      if (!Array.isArray(content)) throw new Error(`The Anthropic API answered without content: ${text.slice(0, 500)}`);
      const usage = (payload as { usage?: { input_tokens?: number; output_tokens?: number } }).usage;
      return {
        text: content
          .filter((block) => block.type === "text")
          .map((block) => block.text ?? "")
          .join(""),
        toolCalls: content
          .filter((block) => block.type === "tool_use")
          .map((block) => ({ id: String(block.id), name: String(block.name), input: block.input ?? {} })),
        ...(usage
          ? {
              usage: {
                ...(usage.input_tokens !== undefined ? { inputTokens: usage.input_tokens } : {}),
                ...(usage.output_tokens !== undefined ? { outputTokens: usage.output_tokens } : {}),
              },
            }
          : {}),
      };
    },
  };
}

/** The loop's conversation as Messages API messages: user and assistant turns alternate, results in user turns. */
export function toMessages(messages: readonly AgentMessage[]): { role: "user" | "assistant"; content: unknown }[] {
  return messages.map((message) => {
    switch (message.role) {
      case "user":
        return { role: "user", content: message.text };
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(message.text === "" ? [] : [{ type: "text", text: message.text }]),
            ...message.toolCalls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.input })),
          ],
        };
      case "tool":
        return { role: "user", content: message.results.map((result) => toolResultBlock(result.callId, result.result)) };
    }
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
