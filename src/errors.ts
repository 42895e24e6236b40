/**
 * Errors a caller can fix are data, not exceptions thrown across the API: every tool turns them into
 * `{ ok: false, error }` with a hint the model can act on. Anything else that throws is a bug.
 */
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

/** Thrown inside gitctx to abort a tool call with an error the caller can fix; caught at the tool boundary. */
export class GitctxError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, hint?: string) {
    super(message);
    this.name = "GitctxError";
    this.code = code;
    this.hint = hint;
  }

  toInfo(): ToolErrorInfo {
    return this.hint === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: this.hint };
  }
}

/**
 * The text of a tool error, the same everywhere a person or a model reads one (MCP, the CLI, the adapters):
 * `error (<code>): <message>`, then `hint: <hint>` on its own line when there is one.
 */
export function formatError(error: ToolErrorInfo): string {
  return `error (${error.code}): ${error.message}${error.hint === undefined ? "" : `\nhint: ${error.hint}`}`;
}
