/**
 * The tools as callers see them: descriptions with JSON Schemas derived from the zod schemas, ranked search,
 * and the error texts for a call that names no tool or gives bad input.
 */
import * as z from "zod";
import type { ToolErrorInfo } from "../errors.js";
import type { PermissionMode } from "../types.js";
import type { AnyTool, Requirement } from "./tool.js";

/** A tool as callers see it: everything needed to offer it to a model. */
export interface ToolInfo {
  name: string;
  title: string;
  description: string;
  /** JSON Schema of the input, derived from the zod schema (`additionalProperties: false`). */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of `data` on success, derived from the tool's zod output schema; absent when it declares none. */
  outputSchema?: Record<string, unknown>;
  permission: PermissionMode;
  /** Set when the tool says whether it can destroy something, which its permission alone would not tell. */
  destructive?: boolean;
  /** What must hold before it runs: nothing, an existing workspace directory, or a repository. */
  requires: Requirement;
  keywords: readonly string[];
}

export function describeTool(tool: AnyTool): ToolInfo {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>,
    ...(tool.outputSchema !== undefined ? { outputSchema: z.toJSONSchema(tool.outputSchema, { io: "output" }) as Record<string, unknown> } : {}),
    permission: tool.permission,
    ...(tool.destructive !== undefined ? { destructive: tool.destructive } : {}),
    requires: tool.requires,
    keywords: tool.keywords,
  };
}

/** Names every bad field, so the model can fix its call in one go. */
export function describeInvalidInput(tool: ToolInfo, error: z.ZodError): ToolErrorInfo {
  const problems = error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((key) => `"${key}"`).join(", ")}`;
    }
    const field = issue.path.length === 0 ? "input" : issue.path.join(".");
    return `${field}: ${issue.message}`;
  });
  const schemaProperties = (tool.inputSchema as { properties?: Record<string, { minimum?: number; maximum?: number }> }).properties ?? {};
  const properties = Object.keys(schemaProperties);
  // A number out of its range: the hint gives the range, so the next call can be right.
  const ranges = error.issues.flatMap((issue) => {
    if ((issue.code !== "too_big" && issue.code !== "too_small") || issue.path.length !== 1) return [];
    const field = String(issue.path[0]);
    const { minimum, maximum: given } = schemaProperties[field] ?? {};
    // zod states the safe-integer limit of every whole number: no limit a caller needs to hear of.
    const maximum = given === Number.MAX_SAFE_INTEGER ? undefined : given;
    if (minimum === undefined && maximum === undefined) return [];
    const range =
      minimum !== undefined && maximum !== undefined
        ? `from ${minimum} to ${maximum}`
        : minimum !== undefined
          ? `${minimum} or more`
          : `at most ${maximum}`;
    return [`${field} takes a whole number ${range}.`];
  });
  const accepts = properties.length === 0 ? `${tool.name} takes no arguments.` : `${tool.name} accepts: ${properties.join(", ")}.`;
  return {
    code: "invalid_input",
    message: `Invalid input for ${tool.name}: ${problems.join("; ")}.`,
    hint: [...new Set(ranges), accepts].join(" "),
  };
}

/** The error for a call of a tool that does not exist, suggesting the nearest name when one is close. */
export function unknownTool(name: string, tools: readonly ToolInfo[]): ToolErrorInfo {
  const names = tools.map((tool) => tool.name);
  const nearest = closestName(name, names);
  return {
    code: "unknown_tool",
    message: `There is no tool named "${name}".${nearest === undefined ? "" : ` Did you mean ${nearest}?`}`,
    hint: `Available tools: ${names.join(", ")}.`,
  };
}

/** The candidate within a third of the name's length in edits (case ignored), if exactly one is nearest. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  const limit = Math.max(1, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance) {
      tie = true;
    }
  }
  return bestDistance <= limit && !tie ? best : undefined;
}

/** Levenshtein distance, with an adjacent swap counting as one edit (`stauts` is one edit from `status`). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Tools ranked by how well name, keywords and description match the query; best first, non-matching left out. */
export function searchTools(tools: readonly ToolInfo[], query: string): ToolInfo[] {
  const terms = query
    .toLowerCase()
    .split(/[^a-z0-9_]+/)
    .filter(Boolean);
  if (terms.length === 0) return [...tools];
  const scored = tools.map((tool) => {
    const nameParts = tool.name.split("_");
    const description = tool.description.toLowerCase();
    let score = 0;
    for (const term of terms) {
      if (tool.name === term) score += 20;
      else if (nameParts.includes(term)) score += 10;
      if (tool.keywords.some((keyword) => keyword === term)) score += 5;
      else if (tool.keywords.some((keyword) => keyword.includes(term))) score += 2;
      if (description.includes(term)) score += 1;
    }
    return { tool, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((entry) => entry.tool);
}
