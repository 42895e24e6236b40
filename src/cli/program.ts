/**
 * The command-line surface, built with commander. Everything here translates: arguments become library calls,
 * results become output and an exit code. What a tool does, and whether a call is allowed, the library decides.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { createToolbox, PERMISSION_MODES, type PermissionMode } from "../index.js";
import { EXIT_INTERNAL, EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE, toolboxOptionsFromFlags, type CliIO } from "./common.js";
import { registerCheckCommand } from "./check-command.js";
import { registerDemoCommand } from "./demo-command.js";
import { registerHookCommand } from "./hook-command.js";
import { readInput } from "./input.js";
import { registerMcpCommand } from "./mcp-command.js";
import { FORMATS, formatJson, formatResultText, formatToolError, formatToolList, type Format } from "./output.js";
import { registerSnapshotCommand } from "./snapshot-command.js";

export type { CliIO } from "./common.js";
import { packageVersion } from "./version.js";

/** The largest delay a Node timer honours; a longer one fires at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

const EXIT_CODES_HELP = `
Exit codes:
  0  success
  1  the tool answered with an error: {"ok": false, ...} on stdout
     (in text format, the message and hint on stderr)
  2  usage error: unknown command or option, invalid --input JSON,
     bad --mode, --format or --timeout`;

const TOOLS_EXIT_CODES_HELP = `
Exit codes:
  0  success (also when no tool matches --search)
  2  usage error: unknown option, bad --format`;

/** Runs the CLI with `argv` (the arguments after the program name) and returns the exit code. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode = EXIT_OK;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    // Commander has already printed the message (or the help, or the version) when it throws.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`gitctx: internal error, please report it: ${detail}\n`);
    return EXIT_INTERNAL;
  }
  return exitCode;
}

function buildProgram(io: CliIO, setExitCode: (code: number) => void): Command {
  const program = new Command("gitctx")
    .description("Safe, structured git for AI coding agents and scripts.")
    .version(packageVersion(), "-V, --version", "print the version of gitctx")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show help for a command")
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride()
    .showHelpAfterError('(run "gitctx --help" for usage)')
    .addHelpText("after", EXIT_CODES_HELP);

  program
    .command("tools")
    .description("list the tools: name, permission, description, input schema")
    .option("--search <query>", "only tools matching the query, best match first")
    .addOption(formatOption())
    .showHelpAfterError('(run "gitctx tools --help" for usage)')
    .addHelpText(
      "after",
      `
Examples:
  gitctx tools --format text
  gitctx tools --search blame
${TOOLS_EXIT_CODES_HELP}`,
    )
    .action((options: { search?: string; format?: Format }) => {
      const toolbox = createToolbox();
      const tools = options.search === undefined ? toolbox.tools : toolbox.search(options.search);
      if (resolveFormat(options.format, io) === "json") {
        io.stdout.write(formatJson(tools));
      } else if (tools.length === 0) {
        io.stderr.write(`No tool matches "${options.search ?? ""}". Run "gitctx tools" to list them all.\n`);
      } else {
        io.stdout.write(formatToolList(tools));
      }
      setExitCode(EXIT_OK);
    });

  program
    .command("tool")
    .description("run one tool and print its result")
    .argument("<name>", 'the tool to run, e.g. git_status (see "gitctx tools")')
    .option("--input <json>", 'the tool\'s input as a JSON object, or "-" to read it from stdin (default: {})')
    .option("--root <dir>", "the workspace: the repository containing it is used, and paths are relative to it (default: the current directory)")
    .addOption(
      new Option("--mode <mode>", "the highest permission a tool may need (default: read-only)").choices(PERMISSION_MODES),
    )
    .addOption(formatOption())
    .option("--timeout <ms>", "stop any git process running longer than this (default: 60000)", parseTimeout)
    .option("--trust-repository", "use a repository owned by another user (its config could name that user's programs)")
    .showHelpAfterError('(run "gitctx tool --help" for usage)')
    .addHelpText(
      "after",
      `
Examples:
  gitctx tool git_status
  gitctx tool git_log --input '{"count": 5, "path": "src"}' --format text
  echo '{"commit": "HEAD"}' | gitctx tool git_show --input -
  gitctx tool git_diff --root packages/api --input '{"staged": true}'
${EXIT_CODES_HELP}`,
    )
    .action(async (name: string, options: ToolCommandOptions, command: Command) => {
      const format = resolveFormat(options.format, io);
      const input = await readInput(options.input, io.stdin);
      if (!input.ok) command.error(`error: ${input.message}`, { exitCode: EXIT_USAGE, code: "gitctx.invalidInput" });

      const toolbox = createToolbox(toolboxOptionsFromFlags(options));
      const result = await toolbox.execute(name, input.value).finally(() => toolbox.close());

      if (format === "json") io.stdout.write(formatJson(result));
      else if (result.ok) io.stdout.write(formatResultText(result));
      else io.stderr.write(formatToolError(result));
      setExitCode(result.ok ? EXIT_OK : EXIT_TOOL_ERROR);
    });

  registerMcpCommand(program, io, setExitCode);
  registerSnapshotCommand(program, io, setExitCode);
  registerCheckCommand(program, io, setExitCode);
  registerHookCommand(program, io, setExitCode);
  registerDemoCommand(program, io, setExitCode);

  return program;
}

interface ToolCommandOptions {
  input?: string;
  root?: string;
  mode?: PermissionMode;
  format?: Format;
  timeout?: number;
  trustRepository?: boolean;
}

function formatOption(): Option {
  return new Option("--format <format>", "output format (default: text at a terminal, json otherwise)").choices(FORMATS);
}

function resolveFormat(format: Format | undefined, io: CliIO): Format {
  return format ?? (io.stdoutIsTerminal ? "text" : "json");
}

function parseTimeout(value: string): number {
  const ms = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw new InvalidArgumentError(`Expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, e.g. --timeout 30000.`);
  }
  return ms;
}
