import type { z } from "zod";
import type { Repository } from "../git/repository.js";
import type { PermissionMode } from "../types.js";

/** What a tool's `run` receives besides its input: the repository of this call and the caller's signal. */
export interface ToolContext {
  repo: Repository;
  signal?: AbortSignal;
}

export interface ToolOutput<T> {
  data: T;
  /** Compact text written for a model. */
  text: string;
}

/**
 * A tool is one file: name, description (saying when to prefer it over a shell command), strict zod input
 * schema, the permission it needs, and `run`. The JSON Schema is derived from the zod schema, never written.
 */
export interface GitTool<Schema extends z.ZodType = z.ZodType, T = unknown> {
  name: string;
  title: string;
  description: string;
  keywords: readonly string[];
  permission: PermissionMode;
  inputSchema: Schema;
  /**
   * Strict zod schema of `data` (checked against `T` with `Exact` in the tool's file). Its JSON Schema is offered
   * to callers as the tool's output schema (MCP `outputSchema`).
   */
  outputSchema?: z.ZodType;
  run(input: z.output<Schema>, context: ToolContext): Promise<ToolOutput<T>>;
}

/** Keeps the input type of `run` tied to the schema. */
export function defineTool<Schema extends z.ZodType, T>(tool: GitTool<Schema, T>): GitTool<Schema, T> {
  return tool;
}
