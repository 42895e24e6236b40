import { spawn } from "node:child_process";

/** What every process run reports, success or not. */
export interface ProcessResult {
  command: string[];
  /** `null` when the process did not exit on its own (killed, or never started). */
  exitCode: number | null;
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
  /** Why the process was stopped early, if it was. */
  stopped?: "timeout" | "aborted";
  /** Set when the process could not be started (e.g. ENOENT). */
  spawnError?: NodeJS.ErrnoException;
}

export interface SpawnCappedOptions {
  cwd: string;
  env: Record<string, string>;
  /** Stop once this many bytes of stdout (after `skipBytes`) are held. Default: unlimited. */
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
}

/** Fed each chunk of stdout in turn until it returns where in that chunk the header ends. */
export type HeaderScanner = (chunk: Buffer) => number | undefined;

const STDERR_CAP = 64 * 1024;

/**
 * Runs a program with an argv array (never a shell), holding at most `maxBytes` of its output in memory.
 * The child leads its own process group so a timeout, abort or cap kills everything it started.
 */
export function spawnCapped(file: string, args: string[], options: SpawnCappedOptions): Promise<ProcessResult> {
  const started = performance.now();
  const command = [file, ...args];
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
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
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      windowsHide: true,
    });

    const headerChunks: Buffer[] = [];
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
    let spawnError: NodeJS.ErrnoException | undefined;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };

    child.stdout.on("data", (chunk: Buffer) => {
      if (inHeader) {
        const end = options.header!(chunk);
        headerChunks.push(end === undefined ? chunk : chunk.subarray(0, end));
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
        child.stdout.destroy();
        killGroup();
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderrHeld >= STDERR_CAP) return;
      stderrChunks.push(chunk);
      stderrHeld += chunk.length;
    });

    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            // Once the cap was reached the output is complete for the caller: a late timer changes nothing.
            if (!overflow) stopped ??= "timeout";
            killGroup();
          }, options.timeoutMs)
        : undefined;
    const onAbort = (): void => {
      if (!overflow) stopped ??= "aborted";
      killGroup();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });

    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    child.on("close", (code) => {
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // Whatever git started must not outlive it (e.g. a helper still holding the pipe).
      killGroup();
      const all = Buffer.concat(chunks);
      const kept = overflow ? all.subarray(0, utf8Boundary(all, maxBytes)) : all;
      const stderr = Buffer.concat(stderrChunks).subarray(0, STDERR_CAP).toString("utf8");
      finish({
        exitCode: overflow || stopped !== undefined || spawnError !== undefined ? null : code,
        stdout: kept.toString("utf8"),
        header: Buffer.concat(headerChunks).toString("utf8"),
        stderr,
        truncated: overflow,
        returnedBytes: kept.length,
        skippedBytes: skipped,
        totalBytes: overflow || stopped !== undefined ? null : seen,
        ...(stopped !== undefined ? { stopped } : {}),
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    });
  });
}

function emptyResult(extra: Partial<ProcessResult>): Omit<ProcessResult, "command" | "durationMs"> {
  return {
    exitCode: null,
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
