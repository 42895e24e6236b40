/**
 * `gitctx check`: classifies a shell command line and answers with the verdict as the exit code (0 allow,
 * 3 ask, 4 deny), so scripts and harnesses can gate a command on it. A thin adapter over the safety classifier,
 * which it loads only when it runs.
 */
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import type { Classification, Verdict } from "../safety/classify.js";
import { EXIT_ALLOW, EXIT_ASK, EXIT_DENY, FORMATS, readAll, resolveFormat, type CliIO, type Format, type SetExitCode } from "./common.js";

export { EXIT_ALLOW, EXIT_ASK, EXIT_DENY } from "./common.js";

const VERDICT_EXIT: Record<Verdict, number> = { allow: EXIT_ALLOW, ask: EXIT_ASK, deny: EXIT_DENY };

/** Kept for the adapters that wrote against it: the CLI's own I/O. */
export type SafetyCommandIO = CliIO;

interface CheckOptions {
  root?: string;
  format?: Format;
  ignoreNonGit?: boolean;
  trustRepository?: boolean;
}

/** Adds `gitctx check` to `program`. */
export function registerCheckCommand(program: Command, io: CliIO, setExitCode: SetExitCode): void {
  program
    .command("check")
    .description("classify a shell command line that runs git: allow, ask or deny")
    .argument("<cmd>", 'the shell command line as one argument (quote it), or "-" to read it from stdin')
    .option(
      "--root <dir>",
      "the directory the line runs in: its repository is checked too, and reads are allowed only if nothing there can make them run a program",
    )
    .addOption(new Option("--format <format>", "output format (default: text at a terminal, json otherwise)").choices(FORMATS))
    .option("--ignore-non-git", "leave commands other than git out of the reasons (a line with one is still never allowed)")
    .option("--trust-repository", "check a repository owned by another user")
    .showHelpAfterError('(run "gitctx check --help" for usage)')
    .addHelpText(
      "after",
      `
Examples:
  gitctx check -- 'git log --oneline -n 5'
  gitctx check --root . --format text -- 'git status && git diff --stat'
  echo 'git push --force' | gitctx check -

Exit codes:
  0  allow: the command line only reads the repository
  3  ask: a mutation, or something the classifier cannot see through
  4  deny: reads or writes outside the repository, or runs a program
  2  usage error`,
    )
    .action(async (commandLine: string, options: CheckOptions) => {
      const line = commandLine === "-" ? await readAll(io.stdin) : commandLine;
      const classification = await classifyLine(line, options);
      const format = resolveFormat(options.format, io);
      if (format === "json") {
        const { formatJson } = await import("./output.js");
        io.stdout.write(formatJson(classification));
      } else {
        io.stdout.write(formatClassificationText(classification));
      }
      setExitCode(VERDICT_EXIT[classification.verdict]);
    });
}

async function classifyLine(line: string, options: CheckOptions): Promise<Classification> {
  const cwd = options.root === undefined ? undefined : resolve(options.root);
  // With --root, the repository's git processes start now and run while the parser loads (see the hook).
  const facts =
    cwd === undefined
      ? undefined
      : import("../guard/repository-check.js").then(({ inspectRepository }) =>
          inspectRepository(cwd, { trustRepository: options.trustRepository === true }),
        );
  facts?.catch(() => undefined);
  const [{ classifyCommand }, { useParserCodeCache }] = await Promise.all([import("../safety/classify.js"), import("./parser-cache.js")]);
  useParserCodeCache();
  const base = { ignoreNonGit: options.ignoreNonGit === true };
  if (cwd === undefined || facts === undefined) return classifyCommand(line, base);
  const pure = classifyCommand(line, { ...base, cwd });
  // The repository is checked only when its facts can change the answer: a line with a read (its facts may
  // also resolve a `cd` or `-C` to the work tree's top) that is not denied anyway.
  if (!pure.invocations.some((inv) => inv.read) || pure.verdict === "deny") return pure;
  return classifyCommand(line, { ...base, cwd, repository: await facts });
}

/** The verdict on the first line, then each command with its own verdict and reasons, then reasons of the whole line. */
export function formatClassificationText(classification: Classification): string {
  const lines: string[] = [classification.verdict];
  for (const inv of classification.invocations) {
    lines.push(`  ${inv.verdict.padEnd(5)} ${inv.source.replace(/\s+/g, " ")}`);
    for (const reason of inv.reasons) lines.push(`        - ${reason}`);
  }
  const perCommand = classification.invocations.flatMap((inv) => inv.reasons);
  for (const reason of classification.reasons) {
    if (!perCommand.some((r) => reason.endsWith(`: ${r}`))) lines.push(`  - ${reason}`);
  }
  return `${lines.join("\n")}\n`;
}

export { readAll };
