import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import type { Readable } from "node:stream";
import { GitctxError } from "../errors.js";
import { globalArgs, hardenedEnv, subcommandArgs } from "./hardening.js";
import { LFS_FILTER_SOURCE } from "./lfs-filter.js";
import { Limiter } from "./limiter.js";
import { spawnCapped, type FieldLimit, type HeaderScanner, type ProcessResult } from "./spawn.js";

export type { ProcessResult } from "./spawn.js";

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CONCURRENCY = 8;
/**
 * Data-segment memory one git process (with what it starts) may use. Far above what git needs for any read of a
 * real repository (status of 100,000 files, blame of a long file, a log with rename detection), far below what a
 * hostile one can make it take (an attributes file that never ends grows git by about 1 GB/s).
 */
export const DEFAULT_MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;

export interface GitRunnerOptions {
  /** Per git process; the process is killed when it runs longer. Default 60 s. */
  timeoutMs?: number;
  /** Git processes running at once; more are queued. Default 8. */
  maxConcurrency?: number;
  /** The PATH searched for `git`. Default: the PATH of this process. */
  searchPath?: string;
  /** Data-segment memory per git process; it is killed past that. Default 1 GiB. */
  memoryLimitBytes?: number;
}

/** Where a git process runs: the repository's git directory and work tree (absent for bare repositories). */
export interface GitLocation {
  gitDir: string;
  workTree: string | undefined;
  /** Working directory of the process; relative pathspecs resolve from here. */
  cwd: string;
  /** Filter drivers defined by the repository's config, neutralised by the environment. */
  filterDrivers: readonly string[];
  /** Diff drivers whose hunk-header pattern the environment replaces with git's default rule (see regex.ts). */
  hunkHeaderDrivers?: readonly string[];
  /** An index file to use instead of the repository's own (`GIT_INDEX_FILE`). */
  indexFile?: string;
  /** The user's own settings that change answers, carried into the environment (see user-config.ts). */
  carried?: ReadonlyArray<readonly [key: string, value: string]>;
  /** Clean `filter=lfs` files with gitctx's own LFS filter, as the user's git does with git-lfs (see lfs.ts). */
  lfsFilter?: boolean;
}

/**
 * Where git finds the user's own config, for the one listing that reads it (`git config --global`/`--system`):
 * the caller's HOME and XDG_CONFIG_HOME, and GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM as the
 * caller set them. Every other git process sees none of it.
 */
export type UserConfigEnvironment = { [name in (typeof USER_CONFIG_VARIABLES)[number]]?: string };

/** The variables of UserConfigEnvironment: only these reach git, whatever else an object handed in holds. */
export const USER_CONFIG_VARIABLES = ["HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"] as const;

/**
 * The longest field (subject, body, name, blame line) a call keeps; longer ones are cut with a mark. A whole
 * screen of text is far less; a hostile commit message can be hundreds of MB.
 */
export const FIELD_LIMIT_BYTES = 256 * 1024;
/** Fields of a `-z` output (NUL-separated), and of a line-based one. */
export const NUL_FIELDS: FieldLimit = { separator: 0x00, maxBytes: FIELD_LIMIT_BYTES };
export const LINE_FIELDS: FieldLimit = { separator: 0x0a, maxBytes: FIELD_LIMIT_BYTES };

export interface GitCallOptions {
  maxBytes?: number;
  /** Cut each field of the output to a size, marking the cut (see `SpawnCappedOptions.fieldLimit`). */
  fieldLimit?: FieldLimit;
  /** Let this process read the user's own config files (the user-config listing only). */
  userConfig?: UserConfigEnvironment;
  skipBytes?: number;
  header?: HeaderScanner;
  signal?: AbortSignal;
  /** Bytes fed to git's stdin (`--stdin` modes), or a stream the caller goes on writing (see SpawnCappedOptions.input). */
  input?: Buffer | Readable;
  /**
   * Start at once, outside the concurrency limit: for a process that waits on its caller's other git calls (a
   * prepared ref transaction), which must never wait for a slot those calls hold or need.
   */
  outsideLimit?: boolean;
  /**
   * At least this long for this one process, when the runner's own limit is shorter: for work whose size is the
   * repository's, such as checking out or deleting a worktree of 100,000 files.
   */
  minTimeoutMs?: number;
  /**
   * Settings for this one process (and what it starts), given like `-c` but through GIT_CONFIG_COUNT so any key can
   * be named. The hardened settings cannot be overridden: they are in GIT_CONFIG_PARAMETERS, which git reads after.
   */
  config?: ReadonlyArray<readonly [key: string, value: string]>;
  /**
   * Let this one process (and what it starts) use the `file` transport, and only it: to clone a submodule from the
   * repository's own `.git/modules` without any network. Every other call allows no transport at all.
   */
  allowFileTransport?: boolean;
}

/** What a hardened environment is made from besides the runner's own private area (see GitRunner.environment). */
type EnvironmentInputs = readonly unknown[];

/**
 * Runs git hardened, one instance per toolbox: it owns the concurrency limit and the timeout. It never throws
 * for a git failure; a missing git binary is the one error it raises, since no result could describe it.
 */
export class GitRunner {
  readonly timeoutMs: number;
  readonly memoryLimitBytes: number;
  private readonly limiter: Limiter;
  private readonly searchPath: string;
  private gitPath: string | undefined;
  /** This runner's private directory: `home/` (kept empty) is git's HOME; scratch directories go beside it. */
  private area: string | undefined;
  private closed = false;

  constructor(options: GitRunnerOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${this.timeoutMs}`);
    this.memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
    if (!(this.memoryLimitBytes > 0)) throw new RangeError(`memoryLimitBytes must be positive, got ${this.memoryLimitBytes}`);
    this.limiter = new Limiter(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
    this.searchPath = options.searchPath ?? process.env.PATH ?? "";
    this.timeZone = process.env.TZ;
  }

  /** This process's `TZ` when the runner was made, passed on to git (see HardenedEnvOptions.timeZone). */
  private readonly timeZone: string | undefined;

  /** Git processes running right now. */
  get active(): number {
    return this.limiter.active;
  }

  /** Runs `git <hardened global args> <subcommand> <hardened subcommand args> <args...>`. */
  run(location: GitLocation, subcommand: string, args: string[], options: GitCallOptions = {}): Promise<ProcessResult> {
    const argv = [...globalArgs(location.gitDir, location.workTree), subcommand, ...subcommandArgs(subcommand), ...args];
    return this.spawn(argv, location, options);
  }

  /** Async so that a missing git rejects the returned promise like every other failure, never throws. */
  private async spawn(argv: string[], location: GitLocation, options: GitCallOptions): Promise<ProcessResult> {
    if (this.preparing !== undefined) await this.preparing;
    const git = this.locate();
    const env = this.environment(git, location, options);
    const start = (): Promise<ProcessResult> =>
      spawnCapped(git, argv, {
        cwd: location.cwd,
        env,
        timeoutMs: this.timeoutFor(options),
        memoryLimitBytes: this.memoryLimitBytes,
        ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
        ...(options.skipBytes !== undefined ? { skipBytes: options.skipBytes } : {}),
        ...(options.header !== undefined ? { header: options.header } : {}),
        ...(options.fieldLimit !== undefined ? { fieldLimit: options.fieldLimit } : {}),
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
        ...(options.input !== undefined ? { input: options.input } : {}),
      });
    return options.outsideLimit === true ? start() : this.limiter.run(start);
  }

  /**
   * The hardened environment of one process. The last one made is used again when it was made from the very same
   * inputs (the kept scan's arrays, the kept user settings), as for every quick call of a session on an unchanged
   * repository: building it was a tenth of such a call's overhead. Never mutated once made (spawn only reads it).
   */
  private environment(git: string, location: GitLocation, options: GitCallOptions): Record<string, string> {
    const inputs: EnvironmentInputs = [
      git,
      location.filterDrivers,
      location.hunkHeaderDrivers,
      location.lfsFilter === true,
      location.indexFile,
      location.carried,
      options.config,
      options.allowFileTransport === true,
      location.workTree === undefined,
    ];
    const last = this.lastEnvironment;
    // A closed runner has no private area any more: privateArea() below refuses, and so must this.
    if (!this.closed && options.userConfig === undefined && last !== undefined && inputs.every((input, i) => input === last.inputs[i])) {
      return last.env;
    }
    const env = hardenedEnv({
      gitDir: dirname(git),
      home: join(this.privateArea(), "home"),
      filterDrivers: location.filterDrivers,
      ...(location.hunkHeaderDrivers !== undefined ? { hunkHeaderDrivers: location.hunkHeaderDrivers } : {}),
      ...(location.lfsFilter === true ? { lfsFilter: this.lfsFilterCommand() } : {}),
      ...(location.indexFile !== undefined ? { indexFile: location.indexFile } : {}),
      ...(location.carried !== undefined ? { carried: location.carried } : {}),
      ...(options.config !== undefined ? { config: options.config } : {}),
      ...(options.allowFileTransport === true ? { allowFileTransport: true } : {}),
      ...(location.workTree === undefined ? { bare: true } : {}),
      ...(this.timeZone !== undefined ? { timeZone: this.timeZone } : {}),
    });
    if (options.userConfig !== undefined) {
      readUserConfig(env, options.userConfig);
      return env;
    }
    this.lastEnvironment = { inputs, env: Object.freeze(env) };
    return env;
  }

  private lastEnvironment: { inputs: EnvironmentInputs; env: Readonly<Record<string, string>> } | undefined;

  /** The time limit of one process: the runner's, or the call's minimum when that is longer. */
  timeoutFor(options: GitCallOptions): number {
    return Math.max(this.timeoutMs, options.minTimeoutMs ?? 0);
  }

  /**
   * Whether `name` is an executable on the PATH this runner searches (the caller's, by default). Looked up once
   * per runner: it is asked on every call (git-lfs, for the LFS note), and each look is an access() per PATH entry.
   */
  onSearchPath(name: string): boolean {
    let found = this.executables.get(name);
    if (found === undefined) {
      found = findExecutable(name, this.searchPath) !== undefined;
      this.executables.set(name, found);
    }
    return found;
  }

  private readonly executables = new Map<string, boolean>();

  /**
   * The shell command git runs as the `lfs` driver's process filter: this Node running gitctx's own filter,
   * written once into the private area (only this user can write there). git runs a filter command through
   * `sh -c`, so both paths are quoted.
   */
  private lfsFilterCommand(): string {
    const script = join(this.privateArea(), "lfs-filter.cjs");
    if (this.lfsFilterScript !== script) {
      writeFileSync(script, LFS_FILTER_SOURCE, { mode: 0o600 });
      this.lfsFilterScript = script;
    }
    return [process.execPath, script].map(shellQuote).join(" ");
  }

  private lfsFilterScript: string | undefined;

  /** A new empty directory in this runner's private area; the caller removes it (`close()` does at the latest). */
  scratchDirectory(): Promise<string> {
    return mkdtemp(join(this.privateArea(), "scratch-"));
  }

  /**
   * Removes the private area (git's HOME, every scratch directory). Git processes still running keep their
   * HOME until they exit; a runner is closed once its calls have settled. Safe to call more than once.
   */
  close(): void {
    this.closed = true;
    this.lastEnvironment = undefined;
    if (this.area === undefined) return;
    rmSync(this.area, { recursive: true, force: true });
    openAreas.delete(this.area);
    this.area = undefined;
  }

  /**
   * Makes the private area now, off the main thread, for a caller that will run git soon and has other work to do
   * first (a library function that is a short session of its own: discovery and the state-file check). Its first
   * git process then does not wait for the directory to be made, which took milliseconds on a busy disk. Settles
   * (never rejects) once it is made or given up; wait for it before `close()` to leave nothing behind.
   */
  prepareArea(): Promise<void> {
    if (this.area !== undefined || this.closed) return Promise.resolve();
    this.preparing ??= (async () => {
      const dir = await mkdtemp(join(tmpdir(), "gitctx-private-"));
      registerArea(dir);
      await mkdir(join(dir, "home"));
      if (this.area === undefined && !this.closed) {
        this.area = dir;
        return;
      }
      // Closed meanwhile, or an area was made without waiting (a scratch directory asked for first).
      rmSync(dir, { recursive: true, force: true });
      openAreas.delete(dir);
    })()
      .catch(() => undefined) // The area is then made when first needed, and that error is the caller's.
      .finally(() => {
        this.preparing = undefined;
      });
    return this.preparing;
  }

  private preparing: Promise<void> | undefined;

  private privateArea(): string {
    if (this.closed) throw new GitctxError("session_closed", "This toolbox was closed: it runs no more git processes.", "Create a new toolbox.");
    if (this.area === undefined) {
      const dir = mkdtempSync(join(tmpdir(), "gitctx-private-"));
      mkdirSync(join(dir, "home"));
      registerArea(dir);
      this.area = dir;
    }
    return this.area;
  }

  private locate(): string {
    this.gitPath ??= findExecutable("git", this.searchPath);
    if (this.gitPath === undefined) {
      throw new GitctxError(
        "git_not_found",
        "git was not found on PATH.",
        "Install git (https://git-scm.com/downloads) and make sure the `git` command is on the PATH of this process.",
      );
    }
    return this.gitPath;
  }
}

/** The hardened environment, opened to the user's own config files for one listing of them. */
function readUserConfig(env: Record<string, string>, user: UserConfigEnvironment): void {
  delete env.GIT_CONFIG_NOSYSTEM;
  delete env.GIT_CONFIG_GLOBAL;
  // Named one by one: a caller's object with GIT_CONFIG_PARAMETERS in it must not replace the pinned settings.
  for (const name of USER_CONFIG_VARIABLES) {
    const value = user[name];
    if (typeof value === "string") env[name] = value;
  }
}

/** One word for `sh -c`, whatever it holds. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}

/**
 * Private areas of runners not yet closed, removed when the process exits at the latest: one listener for all of
 * them, however many sessions come and go.
 */
const openAreas = new Set<string>();
let exitHookInstalled = false;

function registerArea(dir: string): void {
  openAreas.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const area of openAreas) rmSync(area, { recursive: true, force: true });
  });
}
