/** `gitctx tools` (list the tools) and `gitctx tool <name>` (run one): the toolbox is loaded when they run. */
import { Option, type Command } from "commander";
import { PERMISSION_MODES, type PermissionMode } from "../types.js";
import { readInput } from "./input.js";
import {
  EXIT_OK,
  EXIT_TOOL_ERROR,
  EXIT_USAGE,
  formatOption,
  parseTimeout,
  resolveFormat,
  toolboxOptionsFromFlags,
  type CliIO,
  type Format,
  type SetExitCode,
} from "./common.js";

export const EXIT_CODES_HELP = `
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

export function registerToolsCommand(program: Command, io: CliIO, setExitCode: SetExitCode): void {
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
    .action(async (options: { search?: string; format?: Format }) => {
      const [{ listTools }, { searchTools }, { formatJson, formatToolList }] = await Promise.all([
        import("../session/session.js"),
        import("../tools/catalog.js"),
        import("./output.js"),
      ]);
      // Every tool, with the permission it needs (`gitctx tool --mode` grants it).
      const tools = options.search === undefined ? listTools() : searchTools(listTools(), options.search);
      if (resolveFormat(options.format, io) === "json") {
        io.stdout.write(formatJson(tools));
      } else if (tools.length === 0) {
        io.stderr.write(`No tool matches "${options.search ?? ""}". Run "gitctx tools" to list them all.\n`);
      } else {
        io.stdout.write(formatToolList(tools));
      }
      setExitCode(EXIT_OK);
    });
}

interface ToolCommandOptions {
  input?: string;
  root?: string;
  mode?: PermissionMode;
  format?: Format;
  timeout?: number;
  trustRepository?: boolean;
}

export function registerToolCommand(program: Command, io: CliIO, setExitCode: SetExitCode): void {
  program
    .command("tool")
    .description("run one tool and print its result")
    .argument("<name>", 'the tool to run, e.g. git_status (see "gitctx tools")')
    .option("--input <json>", 'the tool\'s input as a JSON object, or "-" to read it from stdin (default: {})')
    .option("--root <dir>", "the workspace: the repository containing it is used, and paths are relative to it (default: the current directory)")
    .addOption(new Option("--mode <mode>", "the highest permission a tool may need (default: read-only)").choices(PERMISSION_MODES))
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

      const [{ createToolbox }, { formatJson, formatResultText, formatToolError }] = await Promise.all([
        import("../session/session.js"),
        import("./output.js"),
      ]);
      const toolbox = createToolbox(toolboxOptionsFromFlags(options));
      const result = await toolbox.execute(name, input.value).finally(() => toolbox.close());

      if (format === "json") io.stdout.write(formatJson(result));
      else if (result.ok) io.stdout.write(formatResultText(result));
      else io.stderr.write(formatToolError(result));
      setExitCode(result.ok ? EXIT_OK : EXIT_TOOL_ERROR);
    });
}
