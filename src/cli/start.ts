/** The `gitctx` command. A thin adapter: parse arguments, call the library, print, set the exit code. */
import type { CliIO } from "./common.js";

/** Runs one command line (without `node` and the script) on this process's standard streams; resolves to the exit code. */
export async function startCli(argv: string[]): Promise<number> {
  // A reader that goes away (`gitctx tools | head -1`) is not an error worth a stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  const io: CliIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTerminal: process.stdout.isTTY === true,
  };
  // `gitctx hook claude-code` runs before every Bash command an agent runs: exactly that invocation skips the
  // option parser and the other commands' registrations. Anything else (`--help` too) goes through commander.
  if (argv.length === 2 && argv[0] === "hook" && argv[1] === "claude-code") {
    const { runClaudeCodeHook } = await import("./hook-command.js");
    return runClaudeCodeHook(io);
  }
  const { run } = await import("./program.js");
  return run(argv, io);
}
