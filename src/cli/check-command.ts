/**
 * `gitctx check`: classifies a shell command line and answers with the verdict as the exit code (0 allow,
 * 3 ask, 4 deny), so scripts and harnesses can gate a command on it. A thin adapter over the safety classifier.
 */
import { Command, Option } from "commander";
import { classifyCommand, classifyCommandInRepository, type Classification, type Verdict } from "../index.js";
import { formatJson, FORMATS, type Format } from "./output.js";

export const EXIT_ALLOW = 0;
export const EXIT_ASK = 3;
export const EXIT_DENY = 4;

const VERDICT_EXIT: Record<Verdict, number> = { allow: EXIT_ALLOW, ask: EXIT_ASK, deny: EXIT_DENY };

export interface SafetyCommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTerminal: boolean;
}

interface CheckOptions {
  root?: string;
  format?: Format;
  ignoreNonGit?: boolean;
  trustRepository?: boolean;
}

/** Adds `gitctx check` to `program`. */
export function registerCheckCommand(program: Command, io: SafetyCommandIO, setExitCode: (code: number) => void): void {
  program
    .command("check")
    .description("classify a shell command line that runs git: allow, ask or deny")
    .argument("<cmd>", 'the shell command line as one argument (quote it), or "-" to read it from stdin')
    .option("--root <dir>", "also check the repository containing this directory: reads are allowed only if its config runs no program")
    .addOption(new Option("--format <format>", "output format (default: text at a terminal, json otherwise)").choices(FORMATS))
    .option("--ignore-non-git", "do not let commands other than git make the verdict ask")
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
      const classification =
        options.root === undefined
          ? classifyCommand(line, { ignoreNonGit: options.ignoreNonGit === true })
          : await classifyCommandInRepository(line, {
              root: options.root,
              ignoreNonGit: options.ignoreNonGit === true,
              trustRepository: options.trustRepository === true,
            });
      const format = options.format ?? (io.stdoutIsTerminal ? "text" : "json");
      io.stdout.write(format === "json" ? formatJson(classification) : formatClassificationText(classification));
      setExitCode(VERDICT_EXIT[classification.verdict]);
    });
}

/** The verdict on the first line, then each command with its own verdict and reasons. */
export function formatClassificationText(classification: Classification): string {
  const lines: string[] = [classification.verdict];
  for (const inv of classification.invocations) {
    lines.push(`  ${inv.verdict.padEnd(5)} ${inv.source.replace(/\s+/g, " ")}`);
    for (const reason of inv.reasons) lines.push(`        - ${reason}`);
  }
  if (classification.invocations.length === 0) for (const reason of classification.reasons) lines.push(`  - ${reason}`);
  return `${lines.join("\n")}\n`;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
