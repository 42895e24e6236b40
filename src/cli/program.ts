/**
 * The command-line surface, built with commander. Everything here translates: arguments become library calls,
 * results become output and an exit code. What a tool does, and whether a call is allowed, the library decides.
 *
 * Start-up is kept small: this file and each `<name>-command.ts` import only commander and `shared.ts`; a
 * command's action imports what it uses when it runs. A new command is a `<name>-command.ts` exporting a
 * `RegisterCommand`, and one line in `COMMANDS`.
 */
import { Command, CommanderError } from "commander";
import { registerCheckCommand } from "./check-command.js";
import { registerDemoCommand } from "./demo-command.js";
import { registerHookCommand } from "./hook-command.js";
import { registerInstructionsCommand } from "./instructions-command.js";
import { registerMcpCommand } from "./mcp-command.js";
import { EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, type CliIO, type RegisterCommand } from "./common.js";
import { registerSnapshotCommand } from "./snapshot-command.js";
import { EXIT_CODES_HELP, registerToolCommand, registerToolsCommand } from "./tool-command.js";
import { registerWatchCommand } from "./watch-command.js";
import { registerWorktreeCommand } from "./worktree-command.js";
import { packageVersion } from "./version.js";

export { EXIT_INTERNAL, EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE, type CliIO } from "./common.js";

/** Every command, in the order `gitctx --help` lists them. */
const COMMANDS: readonly RegisterCommand[] = [
  registerToolsCommand,
  registerToolCommand,
  registerMcpCommand,
  registerSnapshotCommand,
  registerInstructionsCommand,
  registerWatchCommand,
  registerCheckCommand,
  registerHookCommand,
  registerDemoCommand,
  registerWorktreeCommand,
];

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
  for (const register of COMMANDS) register(program, io, setExitCode);
  return program;
}
