import type { z } from "zod";
import type { RepositoryPaths } from "../git/discover.js";
import type { Repository } from "../git/repository.js";
import type { InstructionsCache, LoadInstructionsOptions } from "../instructions/index.js";
import type { SessionEventName, SessionListener } from "../session/events.js";
import type { SessionWatch, SessionWatchOptions } from "../session/watch-handle.js";
import type { PermissionMode } from "../types.js";
import type { WorktreeSettings } from "../worktree/layout.js";

/**
 * What a tool needs before it can run. `none`: nothing (it starts no git and reads no file). `workspace`: the
 * workspace root must be an existing directory, which need not be in a repository. `repository`: the root must
 * be inside a repository gitctx may read.
 */
export type Requirement = "none" | "workspace" | "repository";

/** The caches a session keeps between calls, each invalidated by name (the watcher does, on the events that stale them). */
export const CACHE_NAMES = ["discovery", "stateFiles", "configScan", "userConfig", "privateIndex", "instructions"] as const;
export type CacheName = (typeof CACHE_NAMES)[number];

/**
 * What the embedding harness tells the instruction loader and no tool input may change: where the user's and
 * the administrator's files are, what not to load, which outside directories imports may reach.
 */
export type InstructionSources = Readonly<
  Pick<LoadInstructionsOptions, "home" | "managedDir" | "excludes" | "allowedImportDirs" | "walkAboveTopLevel">
>;

/** What a tool sees of the session it runs in. */
export interface ToolSession {
  /** The workspace the agent works in now (absolute; `enter_worktree` moves it). */
  readonly root: string;
  /** The workspace the session was created with. */
  readonly originalRoot: string;
  readonly mode: PermissionMode;
  /** How `enter_worktree` makes worktrees (the toolbox's `worktrees` option); defaults apply to what it leaves out. */
  readonly worktreeSettings: WorktreeSettings | undefined;
  /** Where the repository of the current root lives; rejects with `not_a_repository` outside one. Cached per root. */
  paths(): Promise<RepositoryPaths>;
  /**
   * The session's instruction files (`load_instructions` reads through it): a load with the same options is
   * answered from memory while no file it depends on changed. `invalidate("instructions")` empties it.
   */
  readonly instructions: InstructionsCache;
  /** The loader options the session was created with (toolbox options `home`, `managedDir`, ...). */
  readonly instructionSources: InstructionSources;
  /**
   * Listens to one of the session's events (`SessionEvents` in src/session/events.ts names them all, with their
   * payloads): `instructionsLoaded` after every load that read instruction files, `fileChanged` for every event
   * of the session's watcher once the caches it stales are dropped. Listeners run synchronously,
   * in registration order; one that throws is ignored. Returns a function that unregisters the listener.
   */
  on<E extends SessionEventName>(event: E, listener: SessionListener<E>): () => void;
  /**
   * A handle on the session's file watcher (see `SessionWatch`): the first handle starts it for the current root
   * (`options` apply then; a running watcher keeps its own), it follows the root and the instruction files the
   * session loads, its events drop the caches they make stale and are also sent as `fileChanged`, and it stops
   * when the last handle is closed or the session is. Outside a repository the handle's `ready` rejects.
   */
  watch(options?: SessionWatchOptions): SessionWatch;
  /** Drops one cache, or every cache, so the next call reads afresh. */
  invalidate(name: CacheName | "all"): Promise<void>;
  /**
   * Moves the current root (what `enter_worktree` and `exit_worktree` do): later calls work there. Only a tool
   * whose permission is above read-only may call it, inside its own call, when it runs alone at the gate; the
   * directory must exist. Listeners registered with `onRootChange` are told before the call returns.
   */
  moveRoot(root: string): Promise<void>;
  /** Calls `listener` with the new and the old root after every `moveRoot`. Returns a function that unregisters it. */
  onRootChange(listener: (root: string, previous: string) => void | Promise<void>): () => void;
  /**
   * Runs `cleanup` when the session closes (after its calls have stopped, before its private directory goes):
   * for what a tool holds beyond one call, such as the lock on a worktree the session is in. Returns a function
   * that unregisters it.
   */
  onClose(cleanup: () => void | Promise<void>): () => void;
}

/** What a tool's `run` receives besides its input. */
export interface ToolContext {
  session: ToolSession;
  /** The repository of the current root, opened on first use and shared by the rest of the call. */
  repo(): Promise<Repository>;
  signal?: AbortSignal;
}

export interface ToolOutput<T> {
  data: T;
  /** Compact text written for a model. */
  text: string;
}

/**
 * A tool is one file: name, description (saying when to prefer it over a shell command), strict zod input
 * schema, the permission it needs, what it requires, and `run`. The JSON Schema is derived from the zod schema,
 * never written.
 */
export interface Tool<Name extends string = string, Schema extends z.ZodType = z.ZodType, T = unknown> {
  name: Name;
  title: string;
  description: string;
  keywords: readonly string[];
  permission: PermissionMode;
  /**
   * Whether a call can destroy something (MCP's `destructiveHint`). Default: what the permission allows (a tool
   * that may write may overwrite); `false` for one that only adds, `true` for one that deletes.
   */
  destructive?: boolean;
  requires: Requirement;
  inputSchema: Schema;
  /**
   * Strict zod schema of `data` (checked against `T` with `Exact` in the tool's file). Its JSON Schema is offered
   * to callers as the tool's output schema (MCP `outputSchema`).
   */
  outputSchema?: z.ZodType;
  run(input: z.output<Schema>, context: ToolContext): Promise<ToolOutput<T>>;
}

/** Any tool, whatever its input and data: what the registry holds and the session runs after validation. */
// biome-ignore lint/suspicious/noExplicitAny: the input type is the tool's own and is checked by its schema at run time.
export type AnyTool = Tool<string, z.ZodType, any>;

/** Keeps the input type of `run` tied to the schema, and the name literal so the registry can type `execute`. */
export function defineTool<const Name extends string, Schema extends z.ZodType, T>(tool: Tool<Name, Schema, T>): Tool<Name, Schema, T> {
  return tool;
}
