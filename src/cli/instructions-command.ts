/**
 * `gitctx instructions`: the project's instruction files (CLAUDE.md, AGENTS.md, rules...) for the files an agent
 * is about to touch, as one text for a system prompt. A thin layer over the `load_instructions` tool, run through
 * a toolbox: validation, permission and the text are the tool's; `--format json` prints its result envelope.
 * The library is loaded inside the action, so the rest of the CLI does not pay for it.
 */
import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { EXIT_OK, EXIT_TOOL_ERROR, toolboxOptionsFromFlags, type CliIO } from "./common.js";

const HELP_AFTER = `
Layers, most general first: the managed directory, the user's files (only
with --home), the repository's top level down to --root, then the
directories below it that hold the --for paths, with the rules whose globs
match them. @imports are expanded in place. The text never exceeds the
budget; what does not fit is named at the end. --explain lists every path
looked at and why it was or was not loaded.

Nothing outside the project is read unless asked: without --home, the user's
~/.claude/CLAUDE.md and ~/.codex/AGENTS.md are left out.

Formats: claude (default), agents (default), gemini, cursor, copilot.

Examples:
  gitctx instructions
  gitctx instructions --for src/api/server.ts --for src/api/server.test.ts
  gitctx instructions --home ~ --formats claude,agents,cursor --explain
  gitctx instructions --root packages/app --budget 2000 --format json | jq .data.files

Exit codes:
  0  success (also when there are no instruction files)
  1  the tool answered with an error (e.g. a --for path outside the
     workspace, an unknown format, a budget out of range): the message and
     hint on stderr, or {"ok": false, ...} on stdout with --format json
  2  usage error: unknown option, --budget not a number, bad --format`;

interface InstructionsCommandOptions {
  root?: string;
  for?: string[];
  format: "text" | "json";
  explain?: boolean;
  budget?: number;
  formats?: string[];
  home?: string;
}

/** Adds `gitctx instructions` to the program. */
export function registerInstructionsCommand(program: Command, io: CliIO, setExitCode: (code: number) => void): void {
  program
    .command("instructions")
    .description("print the instruction files (CLAUDE.md, AGENTS.md, rules) that apply to the given paths")
    .option("--root <dir>", "the workspace: its repository's files apply, and paths are relative to it (default: the current directory)")
    .option("--for <path...>", "a file about to be read, edited or created (repeatable); loads its directories' files and matching rules")
    .addOption(
      new Option("--format <format>", "text: the instructions; json: the load_instructions result").choices(["text", "json"]).default("text"),
    )
    .option("--explain", "also list every path looked at and why it was or was not loaded")
    .option("--budget <tokens>", "most tokens of the text, o200k tokenizer (default: 10000)", parseBudget)
    .option("--formats <list>", "comma-separated formats to read (default: claude,agents)", parseList)
    .option("--home <dir>", "the user's home directory: also read ~/.claude/CLAUDE.md, ~/.claude/rules/, ~/.codex/AGENTS.md...")
    .showHelpAfterError('(run "gitctx instructions --help" for usage)')
    .addHelpText("after", HELP_AFTER)
    .action(async (options: InstructionsCommandOptions) => {
      const [{ createToolbox }, { formatJson, formatResultText, formatToolError }] = await Promise.all([
        import("../index.js"),
        import("./output.js"),
      ]);
      const input: Record<string, unknown> = {};
      if (options.for !== undefined) input.paths = options.for;
      if (options.formats !== undefined) input.formats = options.formats;
      if (options.budget !== undefined) input.budget = options.budget;
      if (options.explain === true) input.explain = true;
      const toolbox = createToolbox({
        ...toolboxOptionsFromFlags(options),
        // The loader wants it absolute; on a command line a relative one means from here.
        ...(options.home !== undefined ? { home: resolve(options.home) } : {}),
      });
      const result = await toolbox.execute("load_instructions", input).finally(() => toolbox.close());
      if (options.format === "json") io.stdout.write(formatJson(result));
      else if (result.ok) io.stdout.write(formatResultText(result));
      else io.stderr.write(formatToolError(result));
      setExitCode(result.ok ? EXIT_OK : EXIT_TOOL_ERROR);
    });
}

/** A whole number; whether it is in range is the tool's to say. */
function parseBudget(value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError("Expected a whole number of tokens, e.g. --budget 4000.");
  return Number(value);
}

function parseList(value: string): string[] {
  return value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}
