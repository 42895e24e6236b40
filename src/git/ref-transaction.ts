/**
 * A ref transaction git prepares now and commits later. `git update-ref --stdin` in transaction mode takes every
 * ref's lock and checks its old value at `prepare`, then waits for `commit` or `abort`; the end of its input aborts
 * too, so a caller that dies half-way leaves nothing changed. Between the two no other git process can move those
 * refs, so what the caller checked meanwhile (a worktree's removal loses no commit) still holds when it commits,
 * and the process has started while the caller's checks ran rather than after them.
 */
import { PassThrough } from "node:stream";
import type { Repository } from "./repository.js";
import type { ProcessResult } from "./spawn.js";

export interface PreparedRefTransaction {
  /** Commits the transaction; the result is git's (exit code 0: every change made, else none). */
  commit(): Promise<ProcessResult>;
  /** Aborts it, unless it was committed already: nothing changes. Never rejects. */
  abort(): Promise<void>;
}

/**
 * Starts `git update-ref --stdin -z` with `commands` (its `-z` fields, e.g. `delete refs/heads/x`, then the old
 * value) between `start` and `prepare`. The process runs outside the runner's concurrency limit: it waits for its
 * caller's other git calls, which must never wait for the slot it holds.
 */
export function prepareRefTransaction(
  repo: Repository,
  commands: readonly string[],
  options: { minTimeoutMs?: number } = {},
): PreparedRefTransaction {
  const input = new PassThrough();
  input.write(Buffer.from(`${["start", ...commands, "prepare"].join("\0")}\0`));
  const result = repo.git("update-ref", ["--stdin", "-z"], { input, outsideLimit: true, ...options });
  let ended = false;
  const end = (last: "commit" | "abort"): Promise<ProcessResult> => {
    if (!ended) {
      ended = true;
      input.end(Buffer.from(`${last}\0`));
    }
    return result;
  };
  return {
    commit: () => end("commit"),
    abort: async () => {
      await end("abort").catch(() => undefined);
    },
  };
}
