/**
 * What the CLI's commands share: exit codes, the I/O they write to, reading stdin, the `--timeout` and
 * `--format` options. Light on purpose: `program.ts` and every `<name>-command.ts` import it at start-up, and a
 * command loads what it really needs (the toolbox, the MCP server, the classifier) inside its action, with
 * `import()`, so `gitctx hook claude-code` never loads the MCP SDK or zod.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import type { PermissionMode, SettingWording, ToolboxOptions } from "../index.js";

/** 0: the command did what was asked. 1: the tool answered with an error. 2: the command line is wrong. */
export const EXIT_OK = 0;
export const EXIT_TOOL_ERROR = 1;
export const EXIT_USAGE = 2;
/** `gitctx check`: the verdict as the exit code. */
export const EXIT_ALLOW = 0;
export const EXIT_ASK = 3;
export const EXIT_DENY = 4;
/** A bug in gitctx (an unexpected exception): sysexits' EX_SOFTWARE, so no script mistakes it for 1 or 2. */
export const EXIT_INTERNAL = 70;

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** Picks the default format: text for a person at a terminal, JSON for everything else. */
  stdoutIsTerminal: boolean;
}

/** How a command sets the process's exit code (the last call wins). */
export type SetExitCode = (code: number) => void;

/** A command's registration: adds it (options, help, a lazy action) to the program. One line in program.ts. */
export type RegisterCommand = (program: Command, io: CliIO, setExitCode: SetExitCode) => void;

/** Everything on a stream, as UTF-8 text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** The largest delay a Node timer honours; a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** `--timeout <ms>`: a whole number of milliseconds a Node timer can wait. */
export function parseTimeout(value: string): number {
  const ms = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw new InvalidArgumentError(`Expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, e.g. --timeout 30000.`);
  }
  return ms;
}

export const FORMATS = ["json", "text"] as const;
export type Format = (typeof FORMATS)[number];

export function formatOption(): Option {
  return new Option("--format <format>", "output format (default: text at a terminal, json otherwise)").choices(FORMATS);
}

export function resolveFormat(format: Format | undefined, io: CliIO): Format {
  return format ?? (io.stdoutIsTerminal ? "text" : "json");
}

/** How a hint printed by the CLI names a setting: the flag of the command that printed it. */
export const CLI_SETTINGS: SettingWording = ({ setting, value }) => {
  switch (setting) {
    case "root":
      return `point --root at ${value ?? "another directory"}`;
    case "trustRepository":
      return "pass --trust-repository";
    case "timeoutMs":
      return "pass a larger --timeout (in milliseconds)";
    case "mode":
      return `pass --mode ${value ?? "workspace-write"}`;
  }
};

/**
 * The flags every command that makes a toolbox accepts (--root, --timeout, --trust-repository; --mode where
 * tools that write can run), so that every hint naming one of them names a flag the command has.
 */
export interface ToolboxFlags {
  root?: string;
  mode?: PermissionMode;
  timeout?: number;
  trustRepository?: boolean;
}

export function toolboxOptionsFromFlags(flags: ToolboxFlags): ToolboxOptions {
  const options: ToolboxOptions = { describeSetting: CLI_SETTINGS };
  if (flags.root !== undefined) options.root = flags.root;
  if (flags.mode !== undefined) options.mode = flags.mode;
  if (flags.timeout !== undefined) options.timeoutMs = flags.timeout;
  if (flags.trustRepository === true) options.trustRepository = true;
  return options;
}
