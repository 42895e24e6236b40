/**
 * Translation between the toolbox and MCP: a `ToolInfo` becomes an MCP tool definition, a `ToolResult` a
 * `CallToolResult`. Nothing here decides anything a tool does; the toolbox validates, authorizes and runs.
 */
import type { CallToolResult, Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { formatError, type PermissionMode, type ToolInfo, type ToolResult } from "../index.js";

type Hints = Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">>;

/**
 * What a tool's permission promises, in MCP's words. Only read-only tools are idempotent and harmless; a tool
 * allowed to write may overwrite (so it is marked destructive), and only full access may reach beyond the
 * workspace (the open world: network, other directories).
 */
const HINTS: Record<PermissionMode, Hints> = {
  "read-only": { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  "workspace-write": { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  "danger-full-access": { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
};

/** `destructive`, when the tool states it, overrides what the permission alone would say. */
export function toolAnnotations(permission: PermissionMode, destructive?: boolean): Hints {
  return destructive === undefined ? { ...HINTS[permission] } : { ...HINTS[permission], destructiveHint: destructive };
}

export function toMcpTool(info: ToolInfo): Tool {
  return {
    name: info.name,
    title: info.title,
    description: info.description,
    inputSchema: info.inputSchema as Tool["inputSchema"],
    ...(info.outputSchema !== undefined ? { outputSchema: objectRoot(info.outputSchema) } : {}),
    annotations: toolAnnotations(info.permission, info.destructive),
  };
}

/**
 * MCP wants `type: "object"` at the top of an output schema. A union of object shapes (git_show: a commit or a
 * file) has it only on each branch; stating it once more at the top changes nothing it accepts.
 */
function objectRoot(schema: Record<string, unknown>): Tool["outputSchema"] & object {
  if (schema.type === "object") return schema as Tool["outputSchema"] & object;
  const { $schema, ...rest } = schema;
  return { ...($schema !== undefined ? { $schema } : {}), type: "object", ...rest } as Tool["outputSchema"] & object;
}

/**
 * Success: the data as `structuredContent` plus the model text as one text block. A tool error: `isError` with
 * the code, message and hint in the text, which is all a model sees.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (result.ok) {
    const { data } = result;
    const structured = typeof data === "object" && data !== null && !Array.isArray(data);
    return {
      content: [{ type: "text", text: result.text }],
      ...(structured ? { structuredContent: data as Record<string, unknown> } : {}),
    };
  }
  return {
    content: [{ type: "text", text: formatError(result.error) }],
    isError: true,
  };
}
