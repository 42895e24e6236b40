/**
 * `gitctx watch`: the session's watcher on the command line, one event per line (NDJSON for programs, the
 * events' own one-line text for people) until SIGINT or SIGTERM, which close the watcher and exit 0. The
 * library is loaded inside the action, so the rest of the CLI does not pay for it.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { formatCount } from "../text.js";
import { EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE, type CliIO, type SetExitCode } from "./common.js";

const HELP_AFTER = `
Events: source files added, changed, deleted or renamed (a checkout of many
files is one bulk event with a count); instruction files, rules and agent
settings; and what git did, read from the git directory: branch switched,
detached, commit, reset, stash, merge/rebase/cherry-pick started, finished or
aborted, staged, unstaged, upstream moved, fetch, config changed. Paths are
relative to --root. A file's event comes once its writes have settled (500 ms).

The instruction files of --root are loaded once at the start, so that their
imports are reported as instructions too.

Examples:
  gitctx watch
  gitctx watch --root ~/src/project --format ndjson | jq -r .summary

Exit codes:
  0  SIGINT or SIGTERM stopped it (the watcher is closed)
  1  nothing can be watched there (e.g. not inside a git repository)
  2  usage error: unknown option, bad --format, --root not a directory`;

interface WatchCommandOptions {
  root?: string;
  format?: "ndjson" | "text";
  trustRepository?: boolean;
}

/** Adds `gitctx watch` to the program. */
export function registerWatchCommand(program: Command, io: CliIO, setExitCode: SetExitCode): void {
  program
    .command("watch")
    .description("print what changes in the workspace and its repository, one event per line, until interrupted")
    .option("--root <dir>", "the workspace to watch, in a git repository (default: the current directory)")
    .addOption(
      new Option(
        "--format <format>",
        "ndjson: one JSON event per line; text: one line per event (default: text at a terminal, ndjson otherwise)",
      ).choices(["ndjson", "text"]),
    )
    .option("--trust-repository", "use a repository owned by another user (its config could name that user's programs)")
    .showHelpAfterError('(run "gitctx watch --help" for usage)')
    .addHelpText("after", HELP_AFTER)
    .action(async (options: WatchCommandOptions, command: Command) => {
      const root = options.root === undefined ? undefined : resolve(options.root);
      if (root !== undefined && !isDirectory(root)) {
        command.error(`error: --root ${options.root} is not a directory.`, { exitCode: EXIT_USAGE, code: "gitctx.invalidWatchOptions" });
      }
      const [{ createToolbox, formatError, GitctxError, renderWatchEvent }, { escapeControls }] = await Promise.all([
        import("../index.js"),
        import("../text.js"),
      ]);
      const format = options.format ?? (io.stdoutIsTerminal ? "text" : "ndjson");
      const log = (line: string): void => {
        io.stderr.write(`gitctx watch: ${line}\n`);
      };
      const toolbox = createToolbox({
        ...(root !== undefined ? { root } : {}),
        ...(options.trustRepository === true ? { trustRepository: true } : {}),
      });
      const watch = toolbox.watch();
      let stopping = false;
      const onSignal = (signal: NodeJS.Signals): void => {
        if (stopping) {
          log(`${signal} again: exiting at once`);
          process.exit(128 + (signal === "SIGINT" ? 2 : 15));
        }
        stopping = true;
        log(`${signal}: stopping`);
        // Closing the session closes the watcher, which ends the loop below.
        void toolbox.close();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      try {
        try {
          await watch.ready;
        } catch (error) {
          if (!(error instanceof GitctxError)) throw error;
          if (error.code === "session_closed") return; // Interrupted while starting.
          io.stderr.write(`${formatError(error.toInfo())}\n`);
          setExitCode(EXIT_TOOL_ERROR);
          return;
        }
        // The loaded files (and their imports) become `instructions` events; a failure there changes nothing else.
        await toolbox.execute("load_instructions", {});
        const status = watch.status();
        if (status !== null) {
          const degraded = status.degraded === null ? "" : `; ${status.degraded.message}`;
          log(`watching ${status.location.root} (${formatCount(status.watches)} watches${degraded}); Ctrl-C stops`);
        }
        for await (const event of watch) {
          io.stdout.write(format === "ndjson" ? `${JSON.stringify(event)}\n` : `${escapeControls(renderWatchEvent(event))}\n`);
        }
        setExitCode(EXIT_OK);
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        await toolbox.close();
      }
      log("stopped");
    });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
