/** What every command of the CLI shares: its streams and the exit codes. */

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** Picks the default format: text for a person at a terminal, JSON for everything else. */
  stdoutIsTerminal: boolean;
}

/** 0: the command did what was asked. 1: the tool answered with an error. 2: the command line is wrong. */
export const EXIT_OK = 0;
export const EXIT_TOOL_ERROR = 1;
export const EXIT_USAGE = 2;
/** A bug in gitctx (an unexpected exception): sysexits' EX_SOFTWARE, so no script mistakes it for 1 or 2. */
export const EXIT_INTERNAL = 70;
