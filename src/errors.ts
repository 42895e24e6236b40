/**
 * Errors a caller can fix are data, not exceptions thrown across the API: every tool turns them into
 * `{ ok: false, error }` with a hint the model can act on. Anything else that throws is a bug.
 */
import { escapeControls } from "./text.js";

export const ERROR_CODES = [
  "invalid_input",
  "unknown_tool",
  "permission_denied",
  "not_a_repository",
  "bad_revision",
  "path_outside_workspace",
  "path_not_found",
  "unsafe_repository",
  "timeout",
  "too_large",
  "git_not_found",
  "git_failed",
  "session_closed",
  "uncommitted_changes",
  "worktree_locked",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ToolErrorInfo {
  code: ErrorCode;
  message: string;
  hint?: string;
}

/**
 * A setting of the toolbox that a hint can tell the caller to change. Each face has its own words for it (the
 * library's option `trustRepository: true`, the CLI's `--trust-repository`, the MCP server's flags or the client's
 * roots), so a hint names the setting and the face words it: one hint text, right everywhere.
 */
export type ToolboxSetting = "root" | "trustRepository" | "timeoutMs" | "mode";

/** A piece of a hint that names a setting; `value`: what to set it to (a mode, or the directory root should name). */
export interface SettingRef {
  setting: ToolboxSetting;
  value?: string;
}

/** A hint: plain text, or text with the settings it names kept apart, e.g. `["Only if you trust it, ", { setting: "trustRepository" }, "."]`. */
export type Hint = string | readonly (string | SettingRef)[];

/**
 * How a face words "change this setting" in a hint: a phrase that can stand as a sentence's verb phrase
 * ("create the toolbox with trustRepository: true", "pass --trust-repository").
 */
export type SettingWording = (ref: SettingRef) => string;

/** The library's words: the options of `createToolbox`. */
export const LIBRARY_SETTINGS: SettingWording = ({ setting, value }) => {
  switch (setting) {
    case "root":
      return `point root at ${value ?? "another directory"}`;
    case "trustRepository":
      return "create the toolbox with trustRepository: true";
    case "timeoutMs":
      return "create the toolbox with a larger timeoutMs";
    case "mode":
      return `create the toolbox with mode "${value ?? "workspace-write"}"`;
  }
};

/** The hint's text in a face's words; a setting that opens the hint opens it with a capital. */
export function renderHint(hint: Hint, words: SettingWording = LIBRARY_SETTINGS): string {
  if (typeof hint === "string") return hint;
  return hint
    .map((part, i) => {
      if (typeof part === "string") return part;
      const phrase = words(part);
      return i === 0 ? `${phrase[0]!.toUpperCase()}${phrase.slice(1)}` : phrase;
    })
    .join("");
}

/** Thrown inside gitctx to abort a tool call with an error the caller can fix; caught at the tool boundary. */
export class GitctxError extends Error {
  readonly code: ErrorCode;
  /** The hint in the library's words. */
  readonly hint: string | undefined;
  /** The hint as given: a face re-words the settings it names (see {@link toInfo}). */
  readonly hintParts: Hint | undefined;

  constructor(code: ErrorCode, message: string, hint?: Hint) {
    super(message);
    this.name = "GitctxError";
    this.code = code;
    this.hintParts = hint;
    this.hint = hint === undefined ? undefined : renderHint(hint);
  }

  /** The error as a result carries it, its hint in `words` (default: the library's). */
  toInfo(words: SettingWording = LIBRARY_SETTINGS): ToolErrorInfo {
    return this.hintParts === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: renderHint(this.hintParts, words) };
  }
}

/**
 * The text of a tool error, the same everywhere a person or a model reads one (MCP, the CLI, the adapters):
 * `error (<code>): <message>`, then `hint: <hint>` on its own line when there is one.
 */
export function formatError(error: ToolErrorInfo): string {
  // A message may name a repository's path or ref: no control or bidi character of it reaches a model or terminal.
  return escapeControls(`error (${error.code}): ${error.message}${error.hint === undefined ? "" : `\nhint: ${error.hint}`}`);
}
