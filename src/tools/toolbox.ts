import { z } from "zod";
import { GitctxError, type ToolErrorInfo } from "../errors.js";
import { discoverRepository, type RepositoryPaths } from "../git/discover.js";
import { Repository } from "../git/repository.js";
import { GitRunner } from "../git/run.js";
import { permits, type Authorize, type PermissionMode, type ToolResult } from "../types.js";
import { findTool, TOOLS } from "./registry.js";
import type { GitTool } from "./tool.js";

export interface ToolboxOptions {
  /** The workspace: the repository is the one containing it, and caller paths are confined to it. Default: cwd. */
  root?: string;
  /** The highest permission tools may need. Default `read-only`. */
  mode?: PermissionMode;
  /** Per git process, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Git processes running at once for this toolbox; more are queued. Default 8. */
  maxConcurrency?: number;
  /** Consulted before every call; a `false` or a string (the reason) refuses it. */
  authorize?: Authorize;
  /**
   * Use a repository owned by another user. Its config could name programs; gitctx neutralises the ones it
   * knows, but git's own ownership check exists for a reason. Default false.
   */
  trustRepository?: boolean;
  /**
   * The directories searched for the `git` binary, `:`-separated like PATH. Default: this process's PATH.
   * Useful to pin a particular git; without one there, every call fails with `git_not_found`.
   */
  gitSearchPath?: string;
}

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
  keywords: readonly string[];
}

export interface ExecuteOptions {
  /** Aborting kills the call's git processes; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface Toolbox {
  readonly root: string;
  readonly mode: PermissionMode;
  readonly tools: readonly ToolInfo[];
  execute(name: string, input?: unknown, options?: ExecuteOptions): Promise<ToolResult>;
  /** Tools ranked by how well name, keywords and description match the query; best first, non-matching left out. */
  search(query: string): ToolInfo[];
}

export function createToolbox(options: ToolboxOptions = {}): Toolbox {
  const root = options.root ?? process.cwd();
  const mode = options.mode ?? "read-only";
  const trust = options.trustRepository ?? false;
  const runner = new GitRunner({
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
    ...(options.gitSearchPath !== undefined ? { searchPath: options.gitSearchPath } : {}),
  });
  const tools = TOOLS.map(describeTool);
  // Discovery is cached once it succeeds; a failure is retried, since the caller may `git init` meanwhile.
  let discovered: Promise<RepositoryPaths> | undefined;
  const locate = (): Promise<RepositoryPaths> => {
    discovered ??= discoverRepository(runner, root, trust).catch((error: unknown) => {
      discovered = undefined;
      throw error;
    });
    return discovered;
  };

  async function execute(name: string, input: unknown = {}, callOptions: ExecuteOptions = {}): Promise<ToolResult> {
    const tool = findTool(name);
    if (tool === undefined) {
      return failure(name, {
        code: "unknown_tool",
        message: `There is no tool named "${name}".`,
        hint: `Available tools: ${TOOLS.map((t) => t.name).join(", ")}.`,
      });
    }
    if (!permits(mode, tool.permission)) {
      return failure(name, {
        code: "permission_denied",
        message: `${name} needs the ${tool.permission} permission; this toolbox runs in ${mode} mode.`,
        hint: `Create the toolbox with mode "${tool.permission}" (CLI: --mode ${tool.permission}) to allow it.`,
      });
    }
    const parsed = tool.inputSchema.safeParse(input ?? {});
    if (!parsed.success) return failure(name, describeInvalidInput(tool, parsed.error));
    if (options.authorize !== undefined) {
      const verdict = await options.authorize(name, parsed.data);
      if (verdict !== true) {
        return failure(name, {
          code: "permission_denied",
          message: typeof verdict === "string" && verdict !== "" ? verdict : `The call to ${name} was not authorized.`,
        });
      }
    }
    let repo: Repository | undefined;
    try {
      callOptions.signal?.throwIfAborted();
      const paths = await locate();
      repo = await Repository.open(runner, paths, trust, callOptions.signal);
      const output = await tool.run(parsed.data, {
        repo,
        ...(callOptions.signal !== undefined ? { signal: callOptions.signal } : {}),
      });
      return { ok: true, tool: name, data: output.data, text: output.text };
    } catch (error) {
      if (!(error instanceof GitctxError)) throw error;
      // The repository went away: look for it again next time rather than keep pointing at nothing.
      if (error.code === "not_a_repository") discovered = undefined;
      return failure(name, error.toInfo());
    } finally {
      await repo?.dispose();
    }
  }

  return {
    root,
    mode,
    tools,
    execute,
    search: (query) => searchTools(tools, query),
  };
}

function failure(tool: string, error: ToolErrorInfo): ToolResult {
  return { ok: false, tool, error };
}

function describeTool(tool: GitTool): ToolInfo {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>,
    ...(tool.outputSchema !== undefined
      ? { outputSchema: z.toJSONSchema(tool.outputSchema, { io: "output" }) as Record<string, unknown> }
      : {}),
    permission: tool.permission,
    keywords: tool.keywords,
  };
}

/** Names every bad field, so the model can fix its call in one go. */
function describeInvalidInput(tool: GitTool, error: z.ZodError): ToolErrorInfo {
  const problems = error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((key) => `"${key}"`).join(", ")}`;
    }
    const field = issue.path.length === 0 ? "input" : issue.path.join(".");
    return `${field}: ${issue.message}`;
  });
  const properties = Object.keys((z.toJSONSchema(tool.inputSchema, { io: "input" }) as { properties?: object }).properties ?? {});
  return {
    code: "invalid_input",
    message: `Invalid input for ${tool.name}: ${problems.join("; ")}.`,
    hint: properties.length === 0 ? `${tool.name} takes no arguments.` : `${tool.name} accepts: ${properties.join(", ")}.`,
  };
}

export function searchTools(tools: readonly ToolInfo[], query: string): ToolInfo[] {
  const terms = query.toLowerCase().split(/[^a-z0-9_]+/).filter(Boolean);
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
