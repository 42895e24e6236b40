import type { ToolErrorInfo } from "./errors.js";

/** The envelope every tool call returns, in the library, the CLI (`--format json`) and MCP. */
export type ToolResult<T = unknown> = { ok: true; tool: string; data: T; text: string } | { ok: false; tool: string; error: ToolErrorInfo };

/** Permission modes, lowest first. A toolbox refuses a tool that needs a higher mode than its own. */
export const PERMISSION_MODES = ["read-only", "workspace-write", "danger-full-access"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export function permits(granted: PermissionMode, required: PermissionMode): boolean {
  return PERMISSION_MODES.indexOf(granted) >= PERMISSION_MODES.indexOf(required);
}

/**
 * Consulted before every tool call. Return `true` to allow, or `false` / a string (the reason) to refuse
 * with `permission_denied`.
 */
export type Authorize = (tool: string, input: unknown) => boolean | string | Promise<boolean | string>;
