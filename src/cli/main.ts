#!/usr/bin/env node
/** The `gitctx` command. A thin adapter: parse arguments, call the library, print, set the exit code. */
import { run } from "./program.js";

// A reader that goes away (`gitctx tools | head -1`) is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  stdoutIsTerminal: process.stdout.isTTY === true,
});
