/** How results reach the terminal: JSON for programs, the tools' own `text` for people. */
// From their own modules, not the package index: this module is loaded by light commands (check) too.
import { formatError } from "../errors.js";
import type { ToolInfo, ToolResult } from "../index.js";

export { FORMATS, type Format } from "./common.js";

/** Pretty-printed JSON with a final newline: stable, diffable and readable by `jq` and people alike. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** One line per tool: name, permission, and the first sentence of its description, in aligned columns. */
export function formatToolList(tools: readonly ToolInfo[]): string {
  const nameWidth = Math.max(0, ...tools.map((tool) => tool.name.length));
  const permissionWidth = Math.max(0, ...tools.map((tool) => tool.permission.length));
  return tools
    .map((tool) => `${tool.name.padEnd(nameWidth)}  ${tool.permission.padEnd(permissionWidth)}  ${firstSentence(tool.description)}\n`)
    .join("");
}

/** The description up to the first `.`, `!` or `?` followed by white space or the end, on one line. */
export function firstSentence(description: string): string {
  const flat = description.replace(/\s+/g, " ").trim();
  const match = /^.*?[.!?](?=\s|$)/.exec(flat);
  return match === null ? flat : match[0];
}

/** The text of a successful result as it is, plus a final newline when it lacks one (empty text prints nothing). */
export function formatResultText(result: Extract<ToolResult, { ok: true }>): string {
  return result.text === "" || result.text.endsWith("\n") ? result.text : `${result.text}\n`;
}

/** A failed result for people, on stderr: what went wrong, with its code, and the hint when there is one. */
export function formatToolError(result: Extract<ToolResult, { ok: false }>): string {
  return `${formatError(result.error)}\n`;
}
