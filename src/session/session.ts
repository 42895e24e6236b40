/**
 * The session: the state one agent has while it works. It owns the current root (and the original one), the
 * discovery of the repository for that root (lazily, only for tools that need one), every cache, the read/write
 * gate, and the git runner with its private directory. `close()` gives all of it back.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { GitctxError, LIBRARY_SETTINGS, renderHint, type SettingWording, type ToolErrorInfo } from "../errors.js";
import { GIT_CACHE_NAMES, GitCaches, type GitCacheName } from "../git/caches.js";
import { discoverRepository, type RepositoryPaths } from "../git/discover.js";
import { Repository } from "../git/repository.js";
import { GitRunner, type UserConfigEnvironment } from "../git/run.js";
import { userConfigFromEnvironment } from "../git/user-config.js";
import { describeInvalidInput, describeTool, searchTools, unknownTool, type ToolInfo } from "../tools/catalog.js";
import { findTool, TOOLS, type ToolData, type ToolInput, type ToolName } from "../tools/registry.js";
import { CACHE_NAMES, type AnyTool, type CacheName, type InstructionSources, type ToolContext, type ToolSession } from "../tools/tool.js";
import { escapeControls } from "../text.js";
import { permits, type Authorize, type PermissionMode, type ToolResult } from "../types.js";
import { ReadVersions } from "../watch/read-versions.js";
import { SessionEventHub, type SessionEventName, type SessionListener } from "./events.js";
import type { WorktreeSettings } from "../worktree/layout.js";
import { ReadWriteGate } from "./gate.js";
import { SessionInstructionsCache } from "./instructions.js";
import type { SessionWatch, SessionWatchOptions } from "./watch-handle.js";
import { realDirectory, SessionWatching } from "./watching.js";

export interface ToolboxOptions {
  /** The workspace: the repository is the one containing it, and caller paths are confined to it. Default: cwd. */
  root?: string;
  /** The highest permission tools may need. Default `read-only`. */
  mode?: PermissionMode;
  /** Per git process, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Git processes running at once for this toolbox; more are queued. Default 8. */
  maxConcurrency?: number;
  /**
   * Where git finds the user's own config (global and system), whose settings that change answers (line endings,
   * the global ignore file, case and Unicode handling, symlinks, file modes...) are carried into every git
   * process, never one that names a program: see `CARRIED_SETTINGS`. Default: this process's HOME,
   * XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM, as the user's own git finds
   * it. `false`: none, as if the user had no config.
   */
  userConfig?: UserConfigEnvironment | false;
  /** Data-segment memory per git process (with what it starts); it is killed past that (`too_large`). Default 1 GiB. */
  memoryLimitBytes?: number;
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
  /**
   * The user's home directory, for the user layer of instruction files (`~/.claude/CLAUDE.md`,
   * `~/.claude/rules/`, `~/.codex/AGENTS.md`...) and `@~/...` imports. Default: none, so nothing outside the
   * project is read unless the embedder asks: a library (or a server) must not hand a model the private notes
   * of whoever runs it just because it runs in their account. Pass `os.homedir()` to read them.
   */
  home?: string;
  /** A directory of managed (administrator) instruction files, laid out like a project; never excluded. */
  managedDir?: string;
  /** Globs on absolute paths of instruction files not to load (the managed directory ignores them). */
  instructionExcludes?: readonly string[];
  /** Absolute directories outside the project that instruction imports and symlinks may reach. */
  allowedImportDirs?: readonly string[];
  /**
   * Also read instruction files in the directories above the repository's top level. Default false: those
   * directories belong to other projects or other users.
   */
  walkAboveTopLevel?: boolean;
  /**
   * How `enter_worktree` makes worktrees: where (default `.claude/worktrees`), the branch prefix (`worktree-`),
   * which directories are linked (`node_modules`, `.venv`, `vendor`), sparse paths, and whether the project's
   * `.claude/settings.json` may add to them (default not).
   */
  worktrees?: WorktreeSettings;
  /**
   * How error hints name the settings above ("create the toolbox with trustRepository: true"). A face that makes
   * toolboxes from its own options passes its words (the CLI: `--trust-repository`; the MCP server: its flags
   * and the client's roots), so that a hint names what the person reading it can actually change.
   */
  describeSetting?: SettingWording;
  /**
   * How the session's watcher watches once something starts it (`watch()`, `git_changes`, an MCP subscription):
   * stability threshold, watch cap, ring size... Default: the watcher's own defaults.
   */
  watch?: SessionWatchOptions;
}

export interface ExecuteOptions {
  /** Aborting kills the call's git processes; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * A toolbox is a session: the name is kept because callers build one to get tools, and that stays its main use;
 * what it holds (root, repository, caches, processes) lives as long as the toolbox and ends with `close()`.
 */
export interface Toolbox extends ToolSession {
  readonly tools: readonly ToolInfo[];
  /** Whether `close()` was called: every later call fails with `session_closed`. */
  readonly closed: boolean;
  execute<N extends ToolName>(name: N, input?: ToolInput<N>, options?: ExecuteOptions): Promise<ToolResult<ToolData<N>>>;
  execute(name: string, input?: unknown, options?: ExecuteOptions): Promise<ToolResult>;
  /** Tools ranked by how well name, keywords and description match the query; best first, non-matching left out. */
  search(query: string): ToolInfo[];
  /**
   * "Changed since you read it": record the version of a file the agent read (`reads.record(path)`, with the bytes
   * it was given as `content` when the harness has them), and ask which recorded files changed since
   * (`reads.changedSince()`). Relative paths are relative to the current root. A stat answers most checks; while
   * the session watches, a file the watcher reported is hashed again whatever its stat says. No tool records by
   * itself: the harness's own file reads are the ones an overwrite could lose.
   */
  readonly reads: ReadVersions;
  /**
   * Stops every call in flight (their git processes are killed and they answer `session_closed`), then removes
   * the private directory (git's HOME, index copies). Resolves when nothing is left; safe to call twice.
   */
  close(): Promise<void>;
}

/** The tool table described once: it does not depend on any session. */
let described: readonly ToolInfo[] | undefined;
/**
 * The tools a session in `mode` offers (default: every tool, whatever permission it needs), without making a
 * toolbox: what MCP lists and `gitctx tools` prints.
 */
export function listTools(mode?: PermissionMode): readonly ToolInfo[] {
  described ??= TOOLS.map((tool) => describeTool(tool));
  return mode === undefined ? described : described.filter((tool) => permits(mode, tool.permission));
}

function describedTool(tool: AnyTool): ToolInfo {
  return listTools().find((info) => info.name === tool.name)!;
}

export function createToolbox(options: ToolboxOptions = {}): Toolbox {
  return new Session(options);
}

export class Session implements Toolbox {
  readonly originalRoot: string;
  readonly mode: PermissionMode;
  private currentRoot: string;
  private readonly trust: boolean;
  private readonly userConfig: UserConfigEnvironment | undefined;
  private readonly runner: GitRunner;
  private readonly caches: GitCaches;
  private readonly gate = new ReadWriteGate();
  /** Discovery per root: kept once it succeeds; a failure is retried, since the caller may `git init` meanwhile. */
  private readonly discovered = new Map<string, Promise<RepositoryPaths>>();
  private readonly stopping = new AbortController();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;
  private readonly rootListeners = new Set<(root: string, previous: string) => void | Promise<void>>();
  private readonly cleanups = new Set<() => void | Promise<void>>();
  /** The call that holds the gate for writing, while it runs: the only one allowed to move the root. */
  private writer: string | undefined;
  private readonly events = new SessionEventHub();
  private readonly watching: SessionWatching;
  readonly reads: ReadVersions;
  readonly instructions: SessionInstructionsCache;
  readonly instructionSources: InstructionSources;

  constructor(private readonly options: ToolboxOptions) {
    this.originalRoot = resolve(options.root ?? process.cwd());
    this.currentRoot = this.originalRoot;
    this.mode = options.mode ?? "read-only";
    this.trust = options.trustRepository ?? false;
    this.userConfig = options.userConfig === false ? undefined : (options.userConfig ?? userConfigFromEnvironment());
    this.runner = new GitRunner({
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.maxConcurrency !== undefined ? { maxConcurrency: options.maxConcurrency } : {}),
      ...(options.gitSearchPath !== undefined ? { searchPath: options.gitSearchPath } : {}),
      ...(options.memoryLimitBytes !== undefined ? { memoryLimitBytes: options.memoryLimitBytes } : {}),
    });
    this.caches = new GitCaches(this.runner);
    this.instructions = new SessionInstructionsCache((result) => {
      this.events.emit("instructionsLoaded", { root: result.root, paths: result.paths, files: result.files, result });
      // Once the load answers, a change of any file it read is an event.
      return this.watching.syncInstructionPaths();
    });
    this.instructionSources = Object.freeze({
      ...(options.home !== undefined ? { home: options.home } : {}),
      ...(options.managedDir !== undefined ? { managedDir: options.managedDir } : {}),
      ...(options.instructionExcludes !== undefined ? { excludes: [...options.instructionExcludes] } : {}),
      ...(options.allowedImportDirs !== undefined ? { allowedImportDirs: [...options.allowedImportDirs] } : {}),
      ...(options.walkAboveTopLevel === true ? { walkAboveTopLevel: true } : {}),
    });
    this.reads = new ReadVersions({ root: () => realDirectory(this.currentRoot) });
    this.watching = new SessionWatching({
      paths: () => this.paths(),
      check: async () => {
        const repo = await this.openRepository(this.stopping.signal);
        await repo.dispose();
      },
      runner: this.runner,
      defaults: options.watch ?? {},
      instructions: this.instructions,
      reads: this.reads,
      invalidate: (name) => this.invalidate(name),
      emit: (event) => this.events.emit("fileChanged", event),
    });
    this.rootListeners.add(() => this.watching.followRoot());
    // Handed around as callbacks (an adapter's `execute: toolbox.execute`): they must not lose their session.
    this.execute = this.execute.bind(this);
    this.search = this.search.bind(this);
  }

  get root(): string {
    return this.currentRoot;
  }

  get worktreeSettings(): WorktreeSettings | undefined {
    return this.options.worktrees;
  }

  /**
   * The tools this session may run: those its mode permits. A model is offered nothing that could only answer
   * `permission_denied` (a read-only session lists no worktree tool); `execute` still explains a refusal.
   */
  get tools(): readonly ToolInfo[] {
    return listTools(this.mode);
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  search(query: string): ToolInfo[] {
    return searchTools(this.tools, query);
  }

  paths(): Promise<RepositoryPaths> {
    const root = this.currentRoot;
    let found = this.discovered.get(root);
    if (found === undefined) {
      found = discoverRepository(root, this.trust, { bare: true }).catch((error: unknown) => {
        this.discovered.delete(root);
        throw error;
      });
      this.discovered.set(root, found);
    }
    return found;
  }

  async invalidate(name: CacheName | "all"): Promise<void> {
    const names: readonly CacheName[] = name === "all" ? CACHE_NAMES : [name];
    for (const cache of names) {
      if (cache === "discovery") this.discovered.clear();
      else if (cache === "instructions") this.instructions.clear();
      else if ((GIT_CACHE_NAMES as readonly string[]).includes(cache)) this.caches.invalidate(cache as GitCacheName);
    }
  }

  execute<N extends ToolName>(name: N, input?: ToolInput<N>, options?: ExecuteOptions): Promise<ToolResult<ToolData<N>>>;
  execute(name: string, input?: unknown, options?: ExecuteOptions): Promise<ToolResult>;
  execute(name: string, input: unknown = {}, callOptions: ExecuteOptions = {}): Promise<ToolResult> {
    const call = this.call(name, input, callOptions.signal);
    this.inFlight.add(call);
    const forget = (): void => {
      this.inFlight.delete(call);
    };
    call.then(forget, forget);
    return call;
  }

  /**
   * Opens the repository of the current root for one call (or one library function): checks it may be read and
   * scans its config. The caller disposes of it.
   */
  async openRepository(signal: AbortSignal): Promise<Repository> {
    const paths = await this.paths();
    return Repository.open(this.runner, this.caches, paths, {
      trustRepository: this.trust,
      signal,
      ...(this.userConfig !== undefined ? { userConfig: this.userConfig } : {}),
    });
  }

  async moveRoot(root: string): Promise<void> {
    if (this.writer === undefined) {
      throw new Error("moveRoot may only be called by a tool above read-only, inside its own call (it must hold the gate alone).");
    }
    const target = resolve(root);
    const info = await stat(target).catch(() => undefined);
    if (info?.isDirectory() !== true) {
      throw new GitctxError("path_not_found", `Cannot move the workspace to ${target}: it is not an existing directory.`);
    }
    const previous = this.currentRoot;
    if (target === previous) return;
    this.currentRoot = target;
    for (const listener of this.rootListeners) await listener(target, previous);
  }

  watch(options: SessionWatchOptions = {}): SessionWatch {
    return this.watching.open(options);
  }

  onRootChange(listener: (root: string, previous: string) => void | Promise<void>): () => void {
    this.rootListeners.add(listener);
    return () => this.rootListeners.delete(listener);
  }

  on<E extends SessionEventName>(event: E, listener: SessionListener<E>): () => void {
    return this.events.on(event, listener);
  }

  onClose(cleanup: () => void | Promise<void>): () => void {
    this.cleanups.add(cleanup);
    return () => this.cleanups.delete(cleanup);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping.abort(closedError());
      await Promise.allSettled([...this.inFlight]);
      await this.watching.close().catch(() => undefined);
      // Last registered, first run: what was taken later may depend on what was taken before.
      for (const cleanup of [...this.cleanups].reverse()) {
        await Promise.resolve()
          .then(cleanup)
          .catch(() => undefined);
      }
      this.cleanups.clear();
      this.caches.invalidate("privateIndex");
      this.runner.close();
      this.discovered.clear();
      this.instructions.clear();
      this.events.clear();
    })();
    return this.closing;
  }

  private async call(name: string, input: unknown, callerSignal: AbortSignal | undefined): Promise<ToolResult> {
    if (this.closed) return failure(name, closedError().toInfo(this.words));
    const tool = findTool(name);
    if (tool === undefined) return failure(name, unknownTool(name, this.tools));
    if (!permits(this.mode, tool.permission)) {
      return failure(name, {
        code: "permission_denied",
        message: `${name} needs the ${tool.permission} permission; this toolbox runs in ${this.mode} mode.`,
        hint: renderHint([{ setting: "mode", value: tool.permission }, " to allow it."], this.words),
      });
    }
    const parsed = this.parseInput(tool, input);
    // The JSON Schemas are made only here (a call with good input needs none: they cost a fresh CLI process 20 ms).
    if (!parsed.success) return failure(name, describeInvalidInput(describedTool(tool), parsed.error));
    if (this.options.authorize !== undefined) {
      const verdict = await this.options.authorize(name, parsed.data);
      if (verdict !== true) {
        return failure(name, {
          code: "permission_denied",
          message: typeof verdict === "string" && verdict !== "" ? verdict : `The call to ${name} was not authorized.`,
        });
      }
    }
    if (tool.permission === "read-only") return this.gate.read(() => this.run(tool, parsed.data, callerSignal));
    return this.gate.write(async () => {
      this.writer = tool.name;
      try {
        return await this.run(tool, parsed.data, callerSignal);
      } finally {
        this.writer = undefined;
      }
    });
  }

  /**
   * The input as the tool's schema reads it. An empty input (`{}`, the commonest call: git_status, git_diff) reads
   * as the schema's defaults every time; it is parsed once per tool and handed out as a fresh copy. Parsing it
   * took a quick call 20 microseconds, a tenth of its overhead. Kept only when every default is a plain value, so
   * that nothing a caller's `authorize` or a tool could change is shared between calls.
   */
  private parseInput(tool: AnyTool, input: unknown): ReturnType<AnyTool["inputSchema"]["safeParse"]> {
    if (!isEmptyInput(input)) return tool.inputSchema.safeParse(input);
    let defaults = this.emptyInputs.get(tool.name);
    if (defaults === undefined) {
      const parsed = tool.inputSchema.safeParse({});
      if (!parsed.success || !Object.values(parsed.data as object).every(isPlainValue)) return parsed;
      defaults = parsed.data as Record<string, unknown>;
      this.emptyInputs.set(tool.name, defaults);
    }
    return { success: true, data: { ...defaults } } as ReturnType<AnyTool["inputSchema"]["safeParse"]>;
  }

  private readonly emptyInputs = new Map<string, Record<string, unknown>>();

  private async run(tool: AnyTool, input: unknown, callerSignal: AbortSignal | undefined): Promise<ToolResult> {
    // Closed while this call waited at the gate.
    if (this.closed) return failure(tool.name, closedError().toInfo(this.words));
    const signal = callerSignal === undefined ? this.stopping.signal : AbortSignal.any([callerSignal, this.stopping.signal]);
    let opened: Promise<Repository> | undefined;
    const context: ToolContext = {
      session: this,
      repo: () => {
        opened ??= this.openRepository(signal);
        return opened;
      },
      signal,
    };
    try {
      signal.throwIfAborted();
      if (tool.requires === "workspace") await this.checkWorkspace();
      else if (tool.requires === "repository") await context.repo();
      const output = await tool.run(input, context);
      // Whatever a tool put in its text, no control character of the repository's reaches the model or a terminal.
      return { ok: true, tool: tool.name, data: output.data, text: escapeControls(output.text) };
    } catch (thrown) {
      const error = fileSystemError(thrown);
      if (!(error instanceof GitctxError)) throw error;
      // The repository went away: look for it again next time rather than keep pointing at nothing.
      if (error.code === "not_a_repository") this.discovered.delete(this.currentRoot);
      return failure(tool.name, error.toInfo(this.words));
    } finally {
      const repo = await opened?.catch(() => undefined);
      await repo?.dispose();
    }
  }

  private async checkWorkspace(): Promise<void> {
    const info = await stat(this.currentRoot).catch(() => undefined);
    if (info?.isDirectory() === true) return;
    throw new GitctxError(
      "path_not_found",
      `The workspace root ${this.currentRoot} ${info === undefined ? "does not exist" : "is not a directory"}.`,
      [{ setting: "root", value: "an existing directory" }, "."],
    );
  }

  /** How this session's hints name its settings. */
  private get words(): SettingWording {
    return this.options.describeSetting ?? LIBRARY_SETTINGS;
  }
}

/**
 * What the file system says about a repository's own layout (a loop of symlinks, a directory that vanished, one
 * that may not be read) is an answer to the caller, never an exception out of `execute`: any such error that a
 * check did not turn into a GitctxError itself becomes one here.
 */
function fileSystemError(error: unknown): unknown {
  if (error instanceof GitctxError || !(error instanceof Error)) return error;
  const { code, path } = error as NodeJS.ErrnoException;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return error;
  const where = path === undefined ? "" : ` (${path})`;
  if (code === "EACCES" || code === "EPERM") {
    return new GitctxError("unsafe_repository", `gitctx may not read part of the repository${where}: ${code}.`, [
      "Fix the permissions, or ",
      { setting: "root", value: "another directory" },
      ".",
    ]);
  }
  return new GitctxError(
    "path_not_found",
    `A file or directory of the repository cannot be reached${where}: ${code}.`,
    "Check the repository for symbolic link loops or missing directories.",
  );
}

/** `undefined`, or an object literal without keys: what a call without arguments passes. */
function isEmptyInput(input: unknown): boolean {
  if (input === undefined || input === null) return true;
  return typeof input === "object" && Object.getPrototypeOf(input) === Object.prototype && Reflect.ownKeys(input).length === 0;
}

function isPlainValue(value: unknown): boolean {
  return value === null || (typeof value !== "object" && typeof value !== "function");
}

function closedError(): GitctxError {
  return new GitctxError(
    "session_closed",
    "This toolbox was closed; it takes no more calls.",
    "Create a new toolbox (createToolbox) for further calls.",
  );
}

function failure(tool: string, error: ToolErrorInfo): ToolResult {
  return { ok: false, tool, error };
}
