/** Turning a git process that failed into an error the caller can act on. */
import { GitctxError } from "../errors.js";
import { showValue } from "../text.js";
import type { GitCallOptions, GitLocation, GitRunner, ProcessResult } from "./run.js";
import { OUTPUT_LIMIT_BYTES } from "./spawn.js";

/** The most of git's complaint an error quotes. */
const QUOTED_CHARS = 300;

/**
 * git's first line of complaint, fit to quote in an error: git's messages quote the files they choke on (a line
 * of packed-refs, shallow, grafts, alternates), which is repository text: it is cut to 300 characters and, when
 * it has a control character, quoted with escapes, so it can neither flood nor pass for gitctx's own words. (The
 * state-file checks keep those files from leading outside the repository in the first place.)
 */
export function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return showValue(line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}...` : line);
}

/** Maps a failed git call to `git_failed`, quoting git's own first line of complaint. */
export function gitFailure(what: string, stderr: string): GitctxError {
  const line = firstLine(stderr);
  if (/lazy fetching disabled/.test(stderr)) {
    // A partial clone (git clone --filter) lacks the object; plain git would fetch it, gitctx never touches the network.
    return new GitctxError(
      "git_failed",
      `${what} needs objects this partial clone does not have (it was cloned with --filter), and gitctx fetches nothing: ${line}`,
      "Run the same git command once in a shell (plain git fetches what is missing from the promisor remote), or make it a full clone: git fetch --refetch with the filter removed (git config --unset remote.origin.partialclonefilter).",
    );
  }
  return new GitctxError("git_failed", line === "" ? `${what} failed.` : `${what} failed: ${line}`);
}

/** The error for a git process the runner stopped at its time limit. */
export function timeoutError(what: string, timeoutMs: number): GitctxError {
  return new GitctxError("timeout", `${what} did not finish within ${timeoutMs} ms and was stopped.`, [
    "Narrow the request (a path, a smaller count or range), or ",
    { setting: "timeoutMs" },
    ".",
  ]);
}

export function spawnFailure(error: NodeJS.ErrnoException): GitctxError {
  return new GitctxError("git_failed", `git could not be started: ${error.message}`);
}

/** What an aborted call rejects with: the signal's own reason, as `AbortSignal.throwIfAborted` would. */
export function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** A git process stopped at a limit of gitctx's: its memory, or its output. */
export class LimitError extends GitctxError {
  constructor(
    readonly limit: "memory" | "output",
    message: string,
    hint: string,
  ) {
    super("too_large", message, hint);
  }
}

/** The error for a git process stopped at its memory limit or at the hard limit on output. */
export function tooLargeError(what: string, stopped: "memory" | "limit", memoryLimitBytes: number): LimitError {
  const mib = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MiB`;
  return new LimitError(
    stopped === "memory" ? "memory" : "output",
    stopped === "memory"
      ? `${what} needed more than ${mib(memoryLimitBytes)} of memory and was stopped (a file or object in the repository is far too large).`
      : `${what} printed more than ${mib(OUTPUT_LIMIT_BYTES)} and was stopped (an object in the repository is far too large).`,
    "Narrow the request (a path, a smaller count or range) so it avoids the oversized object.",
  );
}

/** The error for a git process stopped while it waited to open a FIFO (see `ProcessResult.stopped`). */
export function fifoError(what: string, path: string | undefined): GitctxError {
  return new GitctxError(
    "unsafe_repository",
    `${what} was stopped: it was opening ${path === undefined ? "a file that is a FIFO (a named pipe)" : `${path}, a FIFO (a named pipe)`}, where git reads a regular file, and would have waited for a writer forever.`,
    "gitctx reads no repository in this state. If the repository is yours, replace the FIFO with the file git expects (or remove it); more time would not help.",
  );
}

/** Runs git and turns a process stopped by a limit, the caller's signal or a failed start into an error. */
export async function runChecked(
  runner: GitRunner,
  location: GitLocation,
  subcommand: string,
  args: string[],
  options: GitCallOptions,
): Promise<ProcessResult> {
  const result = await runner.run(location, subcommand, args, options);
  if (result.stopped === "aborted") throw abortReason(options.signal);
  if (result.stopped === "timeout") throw timeoutError(`git ${subcommand}`, runner.timeoutFor(options));
  if (result.stopped === "memory" || result.stopped === "limit") throw tooLargeError(`git ${subcommand}`, result.stopped, runner.memoryLimitBytes);
  if (result.stopped === "fifo") throw fifoError(`git ${subcommand}`, result.blockedOn);
  if (result.spawnError !== undefined) throw spawnFailure(result.spawnError);
  return result;
}
