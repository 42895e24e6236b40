import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { open, readFile, readlink } from "node:fs/promises";
import { constants } from "node:os";

/** What every process run reports, success or not. */
export interface ProcessResult {
  command: string[];
  /** `null` when the process did not exit on its own (killed, or never started). */
  exitCode: number | null;
  /** The returned part of stdout, as bytes: git's names, paths and config values are bytes. */
  bytes: Buffer;
  /** The same, decoded as UTF-8 (invalid sequences become U+FFFD): for output gitctx only shows. */
  stdout: string;
  stderr: string;
  durationMs: number;
  /** More output was available than was returned; the process was stopped once the cap was reached. */
  truncated: boolean;
  /** The leading part of stdout that `header` found, returned whole; `""` without `header`. */
  header: string;
  /** Bytes of stdout returned in `stdout` (after the header and `skipBytes`). */
  returnedBytes: number;
  /** Bytes actually skipped before the returned part (`skipBytes`, moved forward to a UTF-8 boundary). */
  skippedBytes: number;
  /** Total bytes of stdout after the header, known only when the process ran to its end. */
  totalBytes: number | null;
  /**
   * Why the process was stopped early, if it was: its time limit, the caller's signal, its memory limit, output
   * beyond the hard limit that no caller asked to cut (`limit`), or waiting to open a FIFO (`fifo`: a file git
   * reads, a `.gitignore` deep in the work tree say, is a named pipe no one writes; it would wait forever).
   */
  stopped?: "timeout" | "aborted" | "memory" | "limit" | "fifo";
  /** For `stopped: "fifo"`: the file the process was waiting to open, when it could be read. */
  blockedOn?: string;
  /** Set when the process could not be started (e.g. ENOENT), or its output could not be read. */
  spawnError?: NodeJS.ErrnoException;
}

export interface SpawnCappedOptions {
  cwd: string;
  env: Record<string, string>;
  /** Stop once this many bytes of stdout (after `skipBytes`) are held, and say so (`truncated`). */
  maxBytes?: number;
  /** Discard this many leading bytes of stdout (after the header) first (for continuation). */
  skipBytes?: number;
  /**
   * Finds a leading part of stdout that is held whole and returned apart, before the part that `skipBytes` and
   * `maxBytes` apply to: e.g. the summary records git prints before a patch.
   */
  header?: HeaderScanner;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Cut every field of the output (the bytes between two `separator` bytes) to `maxBytes`, as it streams, and
   * put a visible mark where a field was cut: a commit message of hundreds of MB then costs neither memory nor
   * the whole call, and the parsers see records of the usual shape. With a `header`, only the header is cut.
   */
  fieldLimit?: FieldLimit;
  /**
   * The most data-segment memory (Linux `VmData`: heap and private anonymous mappings, not mapped pack files)
   * the process and its children may use together; past it the group is killed (`stopped: "memory"`).
   */
  memoryLimitBytes?: number;
  /**
   * Bytes written to the process's stdin (which is then closed), or a stream piped to it as the caller writes (a
   * process that waits for what its caller decides next); without it stdin is closed from the start.
   */
  input?: Buffer | Readable;
}

export interface FieldLimit {
  /** The byte that ends a field: NUL for `-z` formats, LF for line-based ones. */
  separator: number;
  maxBytes: number;
}

/** Fed each chunk of stdout in turn until it returns where in that chunk the header ends. */
export type HeaderScanner = (chunk: Buffer) => number | undefined;

const STDERR_CAP = 64 * 1024;

/**
 * Output no caller can want whole, whatever it asked: past this the process is stopped (`stopped: "limit"`), so a
 * hostile repository (a commit message of hundreds of MB) can neither exhaust memory nor exceed the longest
 * string Node can make. Callers that page (`maxBytes`) stay far below it.
 */
export const OUTPUT_LIMIT_BYTES = 128 * 1024 * 1024;

/** How often a running process's memory is looked at once it has run this long; quick ones are never looked at. */
const MEMORY_POLL_MS = 50;

/**
 * Runs a program with an argv array (never a shell), holding at most `maxBytes` of its output in memory.
 * The child leads its own process group so a timeout, abort or cap kills everything it started. Never rejects,
 * and nothing in the child's callbacks can throw.
 */
export function spawnCapped(file: string, args: string[], options: SpawnCappedOptions): Promise<ProcessResult> {
  const started = performance.now();
  const command = [file, ...args];
  const asked = options.maxBytes;
  const maxBytes = Math.min(asked ?? OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES);
  const skipBytes = options.skipBytes ?? 0;

  return new Promise((resolve) => {
    const finish = (partial: Omit<ProcessResult, "command" | "durationMs">): void =>
      resolve({ command, durationMs: performance.now() - started, ...partial });

    if (options.signal?.aborted) {
      finish(emptyResult({ stopped: "aborted" }));
      return;
    }

    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: true,
      windowsHide: true,
    });
    if (options.input !== undefined && child.stdin !== null) {
      // A process that exits without reading all of it closes the pipe: its exit code says what happened.
      child.stdin.on("error", () => undefined);
      if (Buffer.isBuffer(options.input)) child.stdin.end(options.input);
      else options.input.pipe(child.stdin);
    }

    const headerChunks: Buffer[] = [];
    let headerHeld = 0;
    let inHeader = options.header !== undefined;
    const chunks: Buffer[] = [];
    let held = 0;
    let seen = 0;
    let skipped = 0;
    let skipping = skipBytes > 0;
    let overflow = false;
    const stderrChunks: Buffer[] = [];
    let stderrHeld = 0;
    let stopped: ProcessResult["stopped"];
    let blockedOn: string | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;

    const killGroup = (): void => {
      if (child.pid !== undefined) killQuietly(-child.pid);
    };
    const stop = (why: NonNullable<ProcessResult["stopped"]>): void => {
      stopped ??= why;
      killGroup();
    };

    const cutter = options.fieldLimit === undefined ? undefined : fieldCutter(options.fieldLimit);
    const onStdout = (chunk: Buffer): void => {
      if (inHeader) {
        const end = options.header!(chunk);
        const whole = end === undefined ? chunk : chunk.subarray(0, end);
        // With a header, only its fields are cut: the part after it (a patch) is paged by bytes instead.
        const part = cutter === undefined ? whole : cutter.push(whole);
        headerChunks.push(part);
        headerHeld += part.length;
        if (headerHeld > OUTPUT_LIMIT_BYTES) return stop("limit");
        if (end === undefined) return;
        inHeader = false;
        chunk = chunk.subarray(end);
      }
      seen += chunk.length;
      if (overflow) return;
      if (skipping) {
        const skipNow = Math.min(chunk.length, skipBytes - skipped);
        skipped += skipNow;
        chunk = chunk.subarray(skipNow);
        if (skipped === skipBytes) skipping = false;
        if (chunk.length === 0) return;
      }
      if (held === 0 && skipped > 0) {
        // A caller-chosen offset may land inside a character: move forward to the next boundary.
        let lead = 0;
        while (lead < chunk.length && lead < 3 && isContinuationByte(chunk[lead]!)) lead++;
        skipped += lead;
        chunk = chunk.subarray(lead);
        if (chunk.length === 0) return;
      }
      chunks.push(chunk);
      held += chunk.length;
      if (held > maxBytes) {
        overflow = true;
        child.stdout!.destroy();
        // Past the hard limit without a cap of the caller's, the output is not an answer but a failure.
        if (asked === undefined || asked > OUTPUT_LIMIT_BYTES) stop("limit");
        else killGroup();
      }
    };
    const cutAll = cutter !== undefined && options.header === undefined;
    child.stdout!.on(
      "data",
      guarded(
        (chunk: Buffer) => onStdout(cutAll ? cutter.push(chunk) : chunk),
        (error) => fail(error),
      ),
    );
    child.stderr!.on("data", (chunk: Buffer) => {
      if (stderrHeld >= STDERR_CAP) return;
      stderrChunks.push(chunk);
      stderrHeld += chunk.length;
    });

    const fail = (error: unknown): void => {
      spawnError ??= Object.assign(new Error(`reading the output of ${file} failed: ${String(error)}`), { code: "EOUTPUT" });
      killGroup();
    };

    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            // Once the cap was reached the output is complete for the caller: a late timer changes nothing.
            if (!overflow) stop("timeout");
            else killGroup();
          }, options.timeoutMs)
        : undefined;
    const watchdog =
      options.memoryLimitBytes !== undefined && child.pid !== undefined
        ? watchProcess(child.pid, options.memoryLimitBytes, {
            exceeded: () => stop("memory"),
            blocked: (path) => {
              blockedOn ??= path;
              stop("fifo");
            },
          })
        : undefined;
    const onAbort = (): void => {
      if (!overflow) stop("aborted");
      else killGroup();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });

    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError ??= error;
    });
    child.on("close", (code) => {
      // A field still open at the end of the output (no separator after it) gets its mark too.
      const mark = cutAll ? cutter.flush() : undefined;
      if (mark !== undefined) guarded(onStdout, fail)(mark);
      // Whatever git started must not outlive it (e.g. a helper still holding the pipe).
      killGroup();
      // The timers and the abort listener are let go once the caller has the result: on a quick call, removing a
      // listener from an AbortSignal cost more than the rest of this handler. Until then a late timer or abort
      // only kills a group that is gone, and changes nothing of a result already made.
      setImmediate(() => {
        if (timer !== undefined) clearTimeout(timer);
        watchdog?.stop();
        options.signal?.removeEventListener("abort", onAbort);
      });
      try {
        const all = Buffer.concat(chunks);
        const kept = overflow ? all.subarray(0, utf8Boundary(all, maxBytes)) : all;
        const stderr = stderrChunks.length === 0 ? "" : Buffer.concat(stderrChunks).subarray(0, STDERR_CAP).toString("utf8");
        const failed = overflow || stopped !== undefined || spawnError !== undefined;
        finish({
          exitCode: failed ? null : code,
          bytes: kept,
          stdout: kept.toString("utf8"),
          header: headerChunks.length === 0 ? "" : Buffer.concat(headerChunks).toString("utf8"),
          stderr,
          truncated: overflow,
          returnedBytes: kept.length,
          skippedBytes: skipped,
          totalBytes: overflow || stopped !== undefined ? null : seen,
          ...(stopped !== undefined ? { stopped } : {}),
          ...(blockedOn !== undefined ? { blockedOn } : {}),
          ...(spawnError !== undefined ? { spawnError } : {}),
        });
      } catch (error) {
        // Memory ran out assembling the output: a failed call, never an exception in a child-process callback.
        finish(emptyResult({ spawnError: Object.assign(new Error(`reading the output of ${file} failed: ${String(error)}`), { code: "EOUTPUT" }) }));
      }
    });
  });
}

/**
 * A transform of stdout chunks that keeps at most `limit.maxBytes` of each field and, where it dropped bytes,
 * ends the field with ` … [N more bytes not shown]` (N counted exactly, so a reader can tell how much is missing).
 */
function fieldCutter(limit: FieldLimit): { push(chunk: Buffer): Buffer; flush(): Buffer | undefined } {
  let fieldBytes = 0;
  let dropped = 0;
  const mark = (): Buffer => Buffer.from(` \u2026 [${dropped} more bytes not shown]`);
  const push = (chunk: Buffer): Buffer => {
    const parts: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      const end = chunk.indexOf(limit.separator, at);
      const segment = chunk.subarray(at, end === -1 ? chunk.length : end);
      const room = limit.maxBytes - fieldBytes;
      if (segment.length <= room) {
        parts.push(segment);
        fieldBytes += segment.length;
      } else {
        const kept = room > 0 ? utf8Boundary(segment, room) : 0;
        parts.push(segment.subarray(0, kept));
        fieldBytes += kept;
        dropped += segment.length - kept;
        fieldBytes = Math.max(fieldBytes, limit.maxBytes);
      }
      if (end === -1) break;
      if (dropped > 0) parts.push(mark());
      parts.push(chunk.subarray(end, end + 1));
      fieldBytes = 0;
      dropped = 0;
      at = end + 1;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  };
  return { push, flush: () => (dropped > 0 ? mark() : undefined) };
}

/** `handler`, with anything it throws handed to `onError` instead of escaping into the event loop. */
function guarded<T>(handler: (value: T) => void, onError: (error: unknown) => void): (value: T) => void {
  return (value) => {
    try {
      handler(value);
    } catch (error) {
      onError(error);
    }
  };
}

/**
 * SIGKILL to `pid` (a group when negative), ignoring that it is gone. After every call the group usually is, and
 * `process.kill` then builds an error object to throw, which took a quick call about 20 microseconds (more than
 * the rest of its ending). Node's own `process._kill`, which `process.kill` wraps, returns the error number
 * instead; where it is missing, `process.kill` is used.
 */
function killQuietly(pid: number): void {
  const raw = (process as { _kill?: (pid: number, signal: number) => number })._kill;
  if (typeof raw === "function") {
    raw.call(process, pid, constants.signals.SIGKILL);
    return;
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * Looks at `pid` and every process below it every 50 ms (Linux `/proc`; elsewhere it looks at nothing and the
 * timeout alone bounds the process): `exceeded` once their data segments together pass `limit`, and `blocked`
 * once one of them has been found twice in a row waiting to open a FIFO (the kernel's `wait_for_partner`), with
 * the path it is opening when that can be read. No read gitctx runs opens a FIFO: one that does waits for a
 * writer that never comes, so it is stopped at once rather than at its time limit.
 */
function watchProcess(pid: number, limit: number, on: { exceeded: () => void; blocked: (path: string | undefined) => void }): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let waiting: number | undefined;
  const check = async (): Promise<void> => {
    const group = await groupState(pid);
    if (stopped) return;
    if (group === undefined) return; // No /proc: nothing to look at.
    if (group.dataBytes > limit) {
      stopped = true;
      on.exceeded();
      return;
    }
    if (group.fifoWaiter !== undefined && group.fifoWaiter === waiting) {
      stopped = true;
      on.blocked(await openingPath(group.fifoWaiter));
      return;
    }
    waiting = group.fifoWaiter;
    timer = setTimeout(() => void check(), MEMORY_POLL_MS);
  };
  timer = setTimeout(() => void check(), MEMORY_POLL_MS);
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/** `VmData` of `pid` and its descendants in bytes, and one of them that waits to open a FIFO; `undefined` without /proc. */
async function groupState(pid: number): Promise<{ dataBytes: number; fifoWaiter: number | undefined } | undefined> {
  const status = await readFile(`/proc/${pid}/status`, "latin1").catch(() => undefined);
  if (status === undefined) return undefined;
  const match = /^VmData:\s+(\d+) kB$/m.exec(status);
  let dataBytes = match === null ? 0 : Number(match[1]) * 1024;
  const wchan = await readFile(`/proc/${pid}/wchan`, "latin1").catch(() => "");
  let fifoWaiter = FIFO_WAIT.test(wchan) ? pid : undefined;
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, "latin1").catch(() => "");
  for (const child of children.split(" ").filter((word) => word !== "")) {
    const state = await groupState(Number(child));
    dataBytes += state?.dataBytes ?? 0;
    fifoWaiter ??= state?.fifoWaiter;
  }
  return { dataBytes, fifoWaiter };
}

/** Where the kernel has a process wait in `open()` of a FIFO with no writer (fs/pipe.c; older kernels: fifo_open). */
const FIFO_WAIT = /^(wait_for_partner|fifo_open)$/;

/**
 * The path a process blocked in `openat()` is opening (x86-64 and arm64 Linux: `/proc/<pid>/syscall` gives the
 * call and the address of its path, `/proc/<pid>/mem` the bytes), relative to its working directory when it is.
 * Best effort: `undefined` when any of it cannot be read.
 */
async function openingPath(pid: number): Promise<string | undefined> {
  try {
    const [number, , address] = (await readFile(`/proc/${pid}/syscall`, "latin1")).trim().split(" ");
    const openat = process.arch === "x64" ? "257" : process.arch === "arm64" ? "56" : undefined;
    if (openat === undefined || number !== openat || address === undefined) return undefined;
    const mem = await open(`/proc/${pid}/mem`, "r");
    try {
      const buffer = Buffer.alloc(4096);
      // A user-space address (below 2^47 on both) is exact as a number.
      const { bytesRead } = await mem.read(buffer, 0, buffer.length, Number(address));
      const end = buffer.subarray(0, bytesRead).indexOf(0);
      if (end <= 0) return undefined;
      const path = buffer.subarray(0, end).toString("utf8");
      return path.startsWith("/") ? path : `${await readlink(`/proc/${pid}/cwd`).catch(() => ".")}/${path}`;
    } finally {
      await mem.close();
    }
  } catch {
    return undefined;
  }
}

function emptyResult(extra: Partial<ProcessResult>): Omit<ProcessResult, "command" | "durationMs"> {
  return {
    exitCode: null,
    bytes: Buffer.alloc(0),
    stdout: "",
    header: "",
    stderr: "",
    truncated: false,
    returnedBytes: 0,
    skippedBytes: 0,
    totalBytes: null,
    ...extra,
  };
}

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** The largest length `<= limit` that does not split a UTF-8 character of `bytes`. */
export function utf8Boundary(bytes: Uint8Array, limit: number): number {
  if (limit >= bytes.length) return bytes.length;
  let end = limit;
  // Step back over continuation bytes to the lead byte of the character the limit cuts into.
  while (end > 0 && end > limit - 3 && isContinuationByte(bytes[end]!)) end--;
  return end;
}
