/**
 * `gitctx demo "TASK"`: the agent loop on the repository, step by step, as the seed's mini harness prints it.
 * Offline by default, with the scripted provider; with ANTHROPIC_API_KEY set (or `--provider anthropic`),
 * Claude over the Messages API. The agent's modules load only when the command runs.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { AgentEvent, AgentProvider, AgentRun } from "../agent/index.js";
import { EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE, parseTimeout, toolboxOptionsFromFlags, type CliIO, type ToolboxFlags } from "./common.js";

// The exit codes of program.ts.
/** The run ended without a final answer (max steps, a provider error): the "tool error" code of every command. */
const EXIT_NOT_ANSWERED = EXIT_TOOL_ERROR;

const MAX_STEPS_LIMIT = 100;
const MAX_BUDGET = 200_000;

const HELP_AFTER = `
Each step is one model turn and the tool calls it made; the loop ends when the
model answers without calling a tool, or after --max-steps turns. The system
context is the repository snapshot (git_context) and the project's instruction
files (load_instructions, when the toolbox has it), within --budget tokens.

Providers:
  scripted   offline and deterministic: git_status, then the diff of what it
             found (capped at --max-bytes), then a summary written from the data
  anthropic  Claude over the Messages API; needs ANTHROPIC_API_KEY
             (--model, --base-url or ANTHROPIC_BASE_URL to change the target)
  The default is anthropic when ANTHROPIC_API_KEY is set, else scripted.

Examples:
  gitctx demo "check git status and summarize current diff"
  gitctx demo --context-report --transcript run.jsonl "what is staged?"
  gitctx demo --provider anthropic --model claude-sonnet-4-5 "review my changes"

Exit codes:
  0  the model gave a final answer
  1  no final answer: --max-steps reached, or the model API failed
  2  usage error: unknown option, bad --max-steps, --budget or --max-bytes,
     --provider anthropic without ANTHROPIC_API_KEY, or a --transcript that
     cannot be written`;

interface DemoOptions extends ToolboxFlags {
  maxSteps: number;
  provider?: "scripted" | "anthropic";
  model?: string;
  baseUrl?: string;
  tools: "all" | "search";
  budget?: number;
  maxBytes?: number;
  transcript?: string;
  contextReport?: boolean;
}

/** Adds `gitctx demo` to the program. */
export function registerDemoCommand(program: Command, io: CliIO, setExitCode: (code: number) => void): void {
  program
    .command("demo")
    .description("run an agent on a task in the repository and show each step (offline unless ANTHROPIC_API_KEY is set)")
    .argument("<task>", 'what to ask the agent, e.g. "check git status and summarize current diff"')
    .option("--root <dir>", "the workspace the agent works in (default: the current directory)")
    .option("--timeout <ms>", "stop any git process running longer than this (default: 60000)", parseTimeout)
    .option("--trust-repository", "work in a repository owned by another user (its config could name that user's programs)")
    .option("--max-steps <n>", "most model turns", (value) => parseWhole(value, 1, MAX_STEPS_LIMIT, "--max-steps 8"), 8)
    .addOption(
      new Option(
        "--provider <name>",
        "the model: scripted (offline) or anthropic (default: anthropic with ANTHROPIC_API_KEY, else scripted)",
      ).choices(["scripted", "anthropic"]),
    )
    .option("--model <id>", "the Claude model for --provider anthropic (default: claude-sonnet-4-5)")
    .option("--base-url <url>", "the Messages API's base URL (default: ANTHROPIC_BASE_URL, else https://api.anthropic.com)")
    .addOption(new Option("--tools <which>", "all tools, or those toolbox.search ranks for the task").choices(["all", "search"]).default("all"))
    .option("--budget <tokens>", "most o200k tokens of the system context (default: 2000)", (value) =>
      parseWhole(value, 100, MAX_BUDGET, "--budget 2000"),
    )
    .option("--max-bytes <n>", "the scripted provider's cap on each diff (default: 4000)", (value) =>
      parseWhole(value, 1, 10 * 1024 * 1024, "--max-bytes 4000"),
    )
    .option("--transcript <file>", "write the whole exchange to FILE as JSON lines")
    .option("--context-report", "print where the tokens went: system context, tool definitions, each result")
    .showHelpAfterError('(run "gitctx demo --help" for usage)')
    .addHelpText("after", HELP_AFTER)
    .action(async (task: string, options: DemoOptions, command: Command) => {
      const apiKey = process.env.ANTHROPIC_API_KEY;
      const providerName = options.provider ?? (apiKey ? "anthropic" : "scripted");
      if (providerName === "anthropic" && !apiKey) {
        command.error("error: --provider anthropic needs ANTHROPIC_API_KEY in the environment.", { exitCode: EXIT_USAGE, code: "gitctx.noApiKey" });
      }
      if (options.transcript !== undefined) {
        try {
          writeFileSync(options.transcript, "");
        } catch (error) {
          command.error(`error: cannot write the transcript to ${options.transcript}: ${(error as Error).message}`, {
            exitCode: EXIT_USAGE,
            code: "gitctx.transcript",
          });
        }
      }

      const [{ createToolbox }, agent] = await Promise.all([import("../index.js"), import("../agent/index.js")]);
      const provider: AgentProvider =
        providerName === "anthropic"
          ? agent.anthropicProvider({
              apiKey: apiKey as string,
              ...(options.model !== undefined ? { model: options.model } : {}),
              ...((options.baseUrl ?? process.env.ANTHROPIC_BASE_URL)
                ? { baseUrl: (options.baseUrl ?? process.env.ANTHROPIC_BASE_URL) as string }
                : {}),
            })
          : agent.scriptedProvider(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {});
      const session = createToolbox(toolboxOptionsFromFlags(options));
      const printer = stepPrinter(io, providerName !== "scripted" ? "" : apiKey ? " (offline)" : " (offline; set ANTHROPIC_API_KEY to use Claude)");
      const record = (line: unknown): void => {
        if (options.transcript !== undefined) appendFileSync(options.transcript, `${JSON.stringify(line)}\n`);
      };

      const run = await agent.runAgent({
        session,
        provider,
        task,
        maxSteps: options.maxSteps,
        tools: options.tools,
        ...(options.budget !== undefined ? { contextBudget: options.budget } : {}),
        onEvent: (event) => {
          printer(event);
          record(
            event.type === "start"
              ? {
                  ...event,
                  definitions: agent.providerDefinitions(
                    provider,
                    session.tools.filter((tool) => event.tools.includes(tool.name)),
                  ),
                }
              : event,
          );
        },
      });
      record({
        type: "end",
        status: run.status,
        steps: run.steps,
        answer: run.answer ?? null,
        ...(run.error !== undefined ? { error: run.error } : {}),
        timing: run.timing,
      });

      if (run.answer !== undefined) io.stdout.write(`\n${run.answer}\n`);
      io.stdout.write(`\n${summaryLine(run)}\n`);
      if (options.contextReport === true) io.stdout.write(`\n${agent.renderContextReport(await agent.contextReport(run, provider))}\n`);
      setExitCode(run.status === "final" ? EXIT_OK : EXIT_NOT_ANSWERED);
    });
}

/** Prints each event as a line, like the seed's harness: `Step 1 [model]: Model requested tool: git_status`. */
function stepPrinter(io: CliIO, providerNote: string): (event: AgentEvent) => void {
  let modelMs = 0;
  return (event) => {
    switch (event.type) {
      case "start": {
        const pieces = event.system.parts
          .map((part) => `${part.name} ${part.tokens}${part.cut ? " (cut)" : ""}${part.ok ? "" : " (failed)"}`)
          .join(", ");
        io.stdout.write(
          [
            `Task: ${event.task}`,
            `Provider: ${event.provider}${providerNote}`,
            `System context: ${event.system.tokens} tokens of ${event.system.budget} (${pieces})`,
            `Tools offered: ${event.tools.join(", ")}`,
            "",
          ].join("\n"),
        );
        return;
      }
      case "model":
        modelMs = event.durationMs;
        if (event.toolCalls.length > 0) {
          const names = event.toolCalls.map((call) => call.name).join(", ");
          io.stdout.write(
            `Step ${event.step} [model]: Model requested ${event.toolCalls.length === 1 ? "tool" : "tools"}: ${names} (${ms(event.durationMs)})\n`,
          );
        }
        return;
      case "tool":
        io.stdout.write(
          event.result.ok
            ? `Step ${event.step} [tool]: Tool completed: ${event.name} (${ms(event.durationMs)})\n`
            : `Step ${event.step} [tool]: Tool failed: ${event.name}: ${event.result.error.code} (${ms(event.durationMs)})\n`,
        );
        return;
      case "final":
        io.stdout.write(`Step ${event.step} [final]: Model returned a final answer. (${ms(modelMs)})\n`);
        return;
      case "stop":
        io.stdout.write(`Step ${event.step} [${event.reason === "max_steps" ? "stop" : "error"}]: ${event.message}\n`);
        return;
    }
  };
}

function summaryLine(run: AgentRun): string {
  const calls = run.timing.steps.reduce((sum, step) => sum + step.toolCalls, 0);
  const sum = (key: "providerMs" | "toolsMs" | "loopMs"): number => run.timing.steps.reduce((total, step) => total + step[key], 0);
  const outcome =
    run.status === "final"
      ? "final answer"
      : run.status === "max_steps"
        ? "no final answer (max steps reached)"
        : "no final answer (the model API failed)";
  return (
    `Done: ${outcome} after ${run.steps} ${run.steps === 1 ? "step" : "steps"} and ${calls} tool ${calls === 1 ? "call" : "calls"} in ${ms(run.timing.totalMs)} ` +
    `(model ${ms(sum("providerMs"))}, tools ${ms(sum("toolsMs"))}, system context ${ms(run.timing.contextMs)}, loop ${ms(sum("loopMs"))}).`
  );
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

function parseWhole(value: string, min: number, max: number, example: string): number {
  const number = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}, e.g. ${example}.`);
  return number;
}
