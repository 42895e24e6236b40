/** What every command of the CLI shares: its streams and the exit codes. */
import { InvalidArgumentError } from "commander";
import type { PermissionMode, SettingWording, ToolboxOptions } from "../index.js";

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

/** The largest delay a Node timer honours; a longer one fires at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** `--timeout <ms>`: a whole number of milliseconds; commander prints the message as a usage error. */
export function parseTimeoutFlag(value: string): number {
  const ms = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw new InvalidArgumentError(`Expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, e.g. --timeout 30000.`);
  }
  return ms;
}
