/**
 * `gitctx snapshot`: the repository context for a system prompt, on stdout. A thin layer over the `git_context`
 * tool: the text is its `text`, `--format json` prints its whole result envelope.
 */
import { type Command, Option } from "commander";
import type { ContextSection } from "../index.js";
import {
  EXIT_OK,
  EXIT_TOOL_ERROR,
  EXIT_USAGE,
  parseTimeout,
  toolboxOptionsFromFlags,
  type CliIO,
  type SetExitCode,
  type ToolboxFlags,
} from "./common.js";

const HELP_AFTER = `
Sections, most important first: branch, head, operation, indexLock, base,
status, untracked, commits, stashes, remotes, worktrees, submodules. Each is
read on its own, in parallel, from local state only (never the network); one
that cannot be read says why, and the others still arrive. The text never
exceeds the budget; what does not fit is named at the end with the tool call
that returns it.

Examples:
  gitctx snapshot
  gitctx snapshot --root ~/src/project --budget 800
  gitctx snapshot --sections base,status,untracked
  gitctx snapshot --format json | jq .data.snapshot.base

Exit codes:
  0  success
  1  no repository to describe (e.g. not a git repository): the message and
     hint on stderr, or {"ok": false, ...} on stdout with --format json
  2  usage error: unknown option, bad --budget, --sections or --format`;

interface SnapshotCommandOptions extends ToolboxFlags {
  budget?: string;
  sections?: string;
  format: "text" | "json";
}

/** Adds `gitctx snapshot` to the program. */
export function registerSnapshotCommand(program: Command, io: CliIO, setExitCode: SetExitCode): void {
  program
    .command("snapshot")
    .description("print the repository context for a system prompt, within a token budget")
    .option("--root <dir>", "the workspace: the repository containing it is described (default: the current directory)")
    // The default is DEFAULT_CONTEXT_BUDGET of src/context/render.ts, written out so that help loads no module.
    .option("--budget <tokens>", "most tokens of the text, o200k tokenizer (default: 2000)")
    .option("--sections <list>", "comma-separated sections to include (default: all)")
    .option("--timeout <ms>", "stop any git process running longer than this (default: 60000)", parseTimeout)
    .option("--trust-repository", "describe a repository owned by another user (its config could name that user's programs)")
    .addOption(new Option("--format <format>", "text: the context block; json: the git_context result").choices(["text", "json"]).default("text"))
    .showHelpAfterError('(run "gitctx snapshot --help" for usage)')
    .addHelpText("after", HELP_AFTER)
    .action(async (options: SnapshotCommandOptions, command: Command) => {
      // Validated here rather than in commander's parsers: the limits live with the tool, which loads only now.
      const [{ createToolbox, CONTEXT_SECTIONS }, { MAX_CONTEXT_BUDGET }, { formatJson, formatResultText, formatToolError }] = await Promise.all([
        import("../index.js"),
        import("../tools/git-context.js"),
        import("./output.js"),
      ]);
      const invalid = (flag: string, value: string, message: string): never =>
        command.error(`error: option '${flag}' argument '${value}' is invalid. ${message}`, {
          exitCode: EXIT_USAGE,
          code: "commander.invalidArgument",
        });
      const input: Record<string, unknown> = {};
      if (options.budget !== undefined) {
        const tokens = /^[0-9]+$/.test(options.budget) ? Number(options.budget) : Number.NaN;
        if (!(tokens >= 1 && tokens <= MAX_CONTEXT_BUDGET)) {
          invalid("--budget <tokens>", options.budget, `Expected a whole number of tokens from 1 to ${MAX_CONTEXT_BUDGET}, e.g. --budget 2000.`);
        }
        input.budget = tokens;
      }
      if (options.sections !== undefined) {
        const names = options.sections
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "");
        const unknown = names.filter((name) => !(CONTEXT_SECTIONS as readonly string[]).includes(name));
        if (names.length === 0 || unknown.length > 0) {
          invalid(
            "--sections <list>",
            options.sections,
            `${unknown.length > 0 ? `Unknown section${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}. ` : ""}Choose from ${CONTEXT_SECTIONS.join(", ")}, comma-separated.`,
          );
        }
        input.sections = names as ContextSection[];
      }
      const toolbox = createToolbox(toolboxOptionsFromFlags(options));
      const result = await toolbox.execute("git_context", input).finally(() => toolbox.close());
      if (options.format === "json") io.stdout.write(formatJson(result));
      else if (result.ok) io.stdout.write(formatResultText(result));
      else io.stderr.write(formatToolError(result));
      setExitCode(result.ok ? EXIT_OK : EXIT_TOOL_ERROR);
    });
}
