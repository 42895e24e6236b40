/**
 * MCP prompts: `system_context`, the repository snapshot (`git_context`) and the project's instruction files
 * (`load_instructions`) as one ready system context within a token budget. Both parts come from the toolbox like
 * any tool call, so the model reads what it would get by calling the tools, and each part sits under the name of
 * the tool that refreshes it (the layout the agent loop's system context uses too).
 */
import { ErrorCode, McpError, type GetPromptResult, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import { countTokens, DEFAULT_CONTEXT_BUDGET, DEFAULT_INSTRUCTIONS_BUDGET, formatError, type Toolbox } from "../index.js";
import { toolFailure } from "./resources.js";

export const SYSTEM_CONTEXT_PROMPT_NAME = "system_context";
/** Without a budget, each part gets its tool's default. */
export const DEFAULT_PROMPT_BUDGET = DEFAULT_CONTEXT_BUDGET + DEFAULT_INSTRUCTIONS_BUDGET;
/** Below this there is no room for both parts and their headings. */
export const MIN_PROMPT_BUDGET = 100;
export const MAX_PROMPT_BUDGET = 1_000_000;

export const SYSTEM_CONTEXT_PROMPT: Prompt = {
  name: SYSTEM_CONTEXT_PROMPT_NAME,
  title: "System context: repository and instructions",
  description:
    "One ready system context for working in this workspace: the repository snapshot (git_context: branch, changes, " +
    "base branch, recent commits...) and the project's instruction files (load_instructions: CLAUDE.md, AGENTS.md, " +
    `rules for the given paths), within a token budget (default ${DEFAULT_PROMPT_BUDGET}: the snapshot takes at most ` +
    `${DEFAULT_CONTEXT_BUDGET} tokens or half the budget, the instructions the rest). Use it as the system prompt or ` +
    "the first message. Outside a repository the snapshot part says so and the instructions still come.",
  arguments: [
    {
      name: "paths",
      description: "Comma-separated files about to be read or edited, relative to the workspace root (their rules and directories' files load too).",
      required: false,
    },
    {
      name: "budget",
      description: `Most o200k tokens of the whole text, from ${MIN_PROMPT_BUDGET} (default ${DEFAULT_PROMPT_BUDGET}).`,
      required: false,
    },
  ],
};

export const PROMPTS: readonly Prompt[] = [SYSTEM_CONTEXT_PROMPT];

export async function getPrompt(
  toolbox: Toolbox,
  name: string,
  args: Record<string, string> | undefined,
  signal: AbortSignal,
): Promise<GetPromptResult> {
  if (name !== SYSTEM_CONTEXT_PROMPT_NAME) {
    throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${name}"; gitctx offers ${PROMPTS.map((prompt) => prompt.name).join(", ")}.`);
  }
  const { paths, budget } = promptArguments(args ?? {});
  const text = await systemContext(toolbox, paths, budget, signal);
  return {
    description: `Repository snapshot and instruction files${paths === undefined ? "" : ` for ${paths.join(", ")}`}, within ${budget} tokens.`,
    messages: [{ role: "user", content: { type: "text", text } }],
  };
}

function promptArguments(args: Record<string, string>): { paths: string[] | undefined; budget: number } {
  const known = SYSTEM_CONTEXT_PROMPT.arguments!.map((argument) => argument.name);
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown argument ${unknown.map((key) => `"${key}"`).join(", ")} for ${SYSTEM_CONTEXT_PROMPT_NAME}; it takes ${known.join(" and ")}.`,
    );
  }
  const paths =
    args.paths === undefined
      ? undefined
      : args.paths
          .split(",")
          .map((path) => path.trim())
          .filter((path) => path !== "");
  let budget = DEFAULT_PROMPT_BUDGET;
  if (args.budget !== undefined && args.budget !== "") {
    const value = /^[0-9]+$/.test(args.budget.trim()) ? Number(args.budget.trim()) : Number.NaN;
    if (!(value >= MIN_PROMPT_BUDGET && value <= MAX_PROMPT_BUDGET)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `budget must be a whole number of tokens from ${MIN_PROMPT_BUDGET} to ${MAX_PROMPT_BUDGET}, got "${args.budget}".`,
      );
    }
    budget = value;
  }
  return { paths: paths === undefined || paths.length === 0 ? undefined : paths, budget };
}

function section(name: string, text: string): string {
  return `<${name}>\n${text.replace(/\n+$/, "")}\n</${name}>`;
}

/**
 * The snapshot first, with at most its default budget or half of the whole; the instructions get what it left.
 * Token counts of joined texts are not quite the sums of their parts, so the result is counted whole and the
 * instructions asked again for less in the rare case it is over.
 */
async function systemContext(toolbox: Toolbox, paths: string[] | undefined, budget: number, signal: AbortSignal): Promise<string> {
  const heading = await countTokens(section("git_context", ""));
  const snapshotBudget = Math.max(1, Math.min(DEFAULT_CONTEXT_BUDGET, Math.floor(budget / 2)) - heading);
  const snapshot = await toolbox.execute("git_context", { budget: snapshotBudget }, { signal });
  // A workspace that is no repository still has instructions: the part says why there is no snapshot.
  const snapshotPart = section("git_context", snapshot.ok ? snapshot.text : formatError(snapshot.error));
  const used = await countTokens(`${snapshotPart}\n\n`);
  let instructionsBudget = budget - used - (await countTokens(section("load_instructions", "")));
  for (;;) {
    const input = { ...(paths !== undefined ? { paths } : {}), budget: Math.max(1, instructionsBudget) };
    const instructions = await toolbox.execute("load_instructions", input, { signal });
    if (!instructions.ok) throw toolFailure(instructions.error);
    const text = `${snapshotPart}\n\n${section("load_instructions", instructions.text)}`;
    const over = (await countTokens(text)) - budget;
    if (over <= 0 || instructionsBudget <= 1) return text;
    instructionsBudget -= over;
  }
}
