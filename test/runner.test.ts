/**
 * The hardened runner with real processes: output cap, UTF-8 cuts, continuation, timeout, abort, the
 * concurrency limit, and how the toolbox turns a missing git, a missing or foreign repository and a redirected
 * work tree into errors. Also the toolbox's own gate: unknown tools, permissions, strict input, discovery.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, GitctxError, PERMISSION_MODES, type ToolResult } from "../src/index.js";
import { Limiter } from "../src/git/limiter.js";
import { COMMAND_SETTINGS } from "../src/git/hardening.js";
import { GitRunner, type GitLocation, type UserConfigEnvironment } from "../src/git/run.js";
import { spawnCapped, utf8Boundary } from "../src/git/spawn.js";
import { permits } from "../src/types.js";
import { fixtureEnv, isAlive, livingProcesses, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
const SH_ENV = { PATH: "/usr/local/bin:/usr/bin:/bin" };

/** Waits (polling) until `condition` holds. Only a hung test can make it wait long; the test timeout ends that. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function readPid(file: string): number {
  return Number(readFileSync(file, "utf8").trim());
}

/** Whether no process mentioning `needle` is left, allowing killed ones the same grace as `ended`. */
async function noneLeft(needle: string): Promise<boolean> {
  for (let i = 0; i < 100 && livingProcesses(needle).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return livingProcesses(needle).length === 0;
}

/**
 * Whether the process whose pid is in `file` has ended. A process killed with SIGKILL can take a moment to
 * finish exiting after its pipes close, so this allows a grace of up to 5 s; one that was never killed (they
 * all sleep for 1000 s) is still alive after it.
 */
async function ended(file: string): Promise<boolean> {
  const pid = readPid(file);
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isAlive(pid);
}

/** A directory holding an executable `git` that is really this sh script. */
function fakeGit(body: string): string {
  const dir = tempDir("gitctx-fake-git-");
  writeFileSync(join(dir, "git"), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return dir;
}

/**
 * A `git` that behaves exactly like the real one, except that `git status` records its pid and the pid of a
 * child it starts in `dir`, then hangs forever.
 */
function gitWithHangingStatus(dir: string): string {
  return fakeGit(
    [
      'for arg in "$@"; do',
      '  if [ "$arg" = status ]; then',
      `    sleep 1000 & echo $! > '${dir}/child.pid'`,
      `    echo $$ > '${dir}/git.pid'`,
      "    wait; exit 0",
      "  fi",
      "done",
      `exec '${REAL_GIT}' "$@"`,
    ].join("\n"),
  );
}

function location(repo: TestRepo): GitLocation {
  return { gitDir: join(repo.dir, ".git"), workTree: repo.dir, cwd: repo.dir, filterDrivers: [] };
}

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\ntwo\n");
  repo.commit("first");
  return repo;
}

function errorOf(result: ToolResult): { code: string; message: string; hint?: string } {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.data)}`);
  return result.error;
}

describe("spawnCapped: the output cap", () => {
  it("stops reading at maxBytes and kills the whole process group of a program printing forever", async () => {
    const dir = tempDir();
    const script = `sleep 1000 & echo $! > '${dir}/child.pid'; echo $$ > '${dir}/main.pid'; exec yes 0123456789`;
    const result = await spawnCapped("/bin/sh", ["-c", script], { cwd: dir, env: SH_ENV, maxBytes: 1000 });
    expect(result).toMatchObject({
      command: ["/bin/sh", "-c", script],
      exitCode: null,
      stdout: "0123456789\n".repeat(91).slice(0, 1000),
      truncated: true,
      returnedBytes: 1000,
      skippedBytes: 0,
      totalBytes: null,
    });
    expect(result.stopped).toBeUndefined();
    expect(result.spawnError).toBeUndefined();
    expect(await ended(join(dir, "main.pid"))).toBe(true);
    expect(await ended(join(dir, "child.pid"))).toBe(true);
  });

  it("returns everything, untruncated with its total size, when the output is exactly maxBytes", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "f"), "x".repeat(1000));
    const result = await spawnCapped("cat", ["f"], { cwd: dir, env: SH_ENV, maxBytes: 1000 });
    expect(result).toMatchObject({ exitCode: 0, truncated: false, returnedBytes: 1000, totalBytes: 1000, stdout: "x".repeat(1000) });
  });

  it("cuts on a UTF-8 character boundary whatever the cap", async () => {
    const dir = tempDir();
    const text = "a\u00e9\u20ac\u{1F600}b".repeat(50); // 1-, 2-, 3- and 4-byte characters
    const bytes = Buffer.from(text, "utf8");
    writeFileSync(join(dir, "f"), bytes);
    for (let cap = 1; cap <= 24; cap++) {
      const result = await spawnCapped("cat", ["f"], { cwd: dir, env: SH_ENV, maxBytes: cap });
      // The longest run of whole characters that fits in the cap.
      let expected = "";
      for (const char of text) {
        if (Buffer.byteLength(expected + char) > cap) break;
        expected += char;
      }
      expect(result.stdout).toBe(expected);
      expect(result.returnedBytes).toBe(Buffer.byteLength(expected));
      expect(result.truncated).toBe(true);
      expect(result.stdout).not.toContain("\uFFFD");
    }
  });

  it("utf8Boundary steps back over a cut character and never past a whole one", () => {
    const bytes = Buffer.from("a\u{1F600}", "utf8"); // 61 f0 9f 98 80
    expect([0, 1, 2, 3, 4, 5, 6].map((limit) => utf8Boundary(bytes, limit))).toEqual([0, 1, 1, 1, 1, 5, 5]);
  });

  it("skipBytes continues exactly where the last window ended, with no gap or overlap", async () => {
    const dir = tempDir();
    const text = Array.from({ length: 300 }, (_, i) => `${i}:\u00e9\u20ac\u{1F600}\n`).join("");
    writeFileSync(join(dir, "f"), text);
    const total = Buffer.byteLength(text);
    const pages: string[] = [];
    let offset = 0;
    for (;;) {
      const page = await spawnCapped("cat", ["f"], { cwd: dir, env: SH_ENV, maxBytes: 97, skipBytes: offset });
      expect(page.skippedBytes).toBe(offset);
      expect(page.stdout).not.toContain("\uFFFD");
      pages.push(page.stdout);
      if (!page.truncated) {
        expect(page.totalBytes).toBe(total);
        expect(page.exitCode).toBe(0);
        break;
      }
      expect(page.returnedBytes).toBeGreaterThan(93); // at most a 4-byte character is held back
      expect(page.returnedBytes).toBeLessThanOrEqual(97);
      offset += page.returnedBytes;
    }
    expect(pages.join("")).toBe(text);
    expect(pages.length).toBeGreaterThan(1);
  });

  it("moves a skipBytes that lands inside a character forward to the next boundary", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "f"), "a\u20acb\u{1F600}c"); // 61 | e2 82 ac | 62 | f0 9f 98 80 | 63
    const inEuro = await spawnCapped("cat", ["f"], { cwd: dir, env: SH_ENV, skipBytes: 2 });
    expect(inEuro).toMatchObject({ stdout: "b\u{1F600}c", skippedBytes: 4, returnedBytes: 6, truncated: false, totalBytes: 10 });
    const inEmoji = await spawnCapped("cat", ["f"], { cwd: dir, env: SH_ENV, skipBytes: 6, maxBytes: 1 });
    expect(inEmoji).toMatchObject({ stdout: "c", skippedBytes: 9, returnedBytes: 1, truncated: false });
    const pastEnd = await spawnCapped("cat", ["f"], { cwd: dir, env: SH_ENV, skipBytes: 50 });
    expect(pastEnd).toMatchObject({ stdout: "", skippedBytes: 10, returnedBytes: 0, truncated: false, totalBytes: 10, exitCode: 0 });
  });

  it("keeps stderr and the exit code of a failing program", async () => {
    const result = await spawnCapped("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], { cwd: tempDir(), env: SH_ENV });
    expect(result).toMatchObject({ exitCode: 3, stdout: "out\n", stderr: "err\n", truncated: false, totalBytes: 4 });
  });

  it("reports a program that cannot be started with spawnError and a null exit code", async () => {
    const result = await spawnCapped("/nonexistent/gitctx-no-such-program", [], { cwd: tempDir(), env: SH_ENV });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError?.code).toBe("ENOENT");
    expect(result.stdout).toBe("");
  });
});

describe("spawnCapped: timeout and abort", () => {
  it("kills a process that hangs past timeoutMs, and everything it started", async () => {
    const dir = tempDir();
    const script = `sleep 1000 & echo $! > '${dir}/child.pid'; echo $$ > '${dir}/main.pid'; echo started; wait`;
    const result = await spawnCapped("/bin/sh", ["-c", script], { cwd: dir, env: SH_ENV, timeoutMs: 300 });
    expect(result).toMatchObject({ exitCode: null, stopped: "timeout", truncated: false, totalBytes: null, stdout: "started\n" });
    expect(await ended(join(dir, "main.pid"))).toBe(true);
    expect(await ended(join(dir, "child.pid"))).toBe(true);
  });

  it("kills the process when the signal aborts", async () => {
    const dir = tempDir();
    const controller = new AbortController();
    const running = spawnCapped("/bin/sh", ["-c", `sleep 1000 & echo $! > '${dir}/child.pid'; echo $$ > '${dir}/main.pid'; wait`], {
      cwd: dir,
      env: SH_ENV,
      signal: controller.signal,
    });
    await until(() => existsSync(join(dir, "main.pid")) && existsSync(join(dir, "child.pid")));
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ exitCode: null, stopped: "aborted", truncated: false, totalBytes: null });
    expect(await ended(join(dir, "main.pid"))).toBe(true);
    expect(await ended(join(dir, "child.pid"))).toBe(true);
  });

  it("does not start anything when the signal is already aborted", async () => {
    const dir = tempDir();
    const result = await spawnCapped("/bin/sh", ["-c", `echo $$ > '${dir}/main.pid'`], {
      cwd: dir,
      env: SH_ENV,
      signal: AbortSignal.abort(),
    });
    expect(result).toMatchObject({ exitCode: null, stopped: "aborted", stdout: "", returnedBytes: 0 });
    expect(existsSync(join(dir, "main.pid"))).toBe(false);
  });
});

describe("Limiter", () => {
  it("never runs more than its limit at once and starts waiting tasks in arrival order", async () => {
    const limiter = new Limiter(3);
    const releases: Array<() => void> = [];
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const tasks = Array.from({ length: 10 }, (_, i) =>
      limiter.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return i * 2;
      }),
    );
    await until(() => started.length === 3);
    expect(started).toEqual([0, 1, 2]);
    expect(limiter.active).toBe(3);
    for (let released = 0; released < 10; released++) {
      releases[released]!();
      await tasks[released]; // settles once the task's slot has been handed on or freed
      await until(() => started.length === Math.min(10, released + 4) && releases.length === started.length);
      expect(limiter.active).toBe(Math.min(3, 10 - released - 1));
    }
    expect(await Promise.all(tasks)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
    expect(limiter.active).toBe(0);
  });

  it("frees the slot of a task that fails", async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(limiter.active).toBe(0);
    expect(await limiter.run(() => Promise.resolve("next"))).toBe("next");
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => new Limiter(0)).toThrow(RangeError);
    expect(() => new Limiter(1.5)).toThrow(RangeError);
  });
});

describe("GitRunner with real git", () => {
  it("stops git cat-file of a large blob at the cap and leaves no git process behind", async () => {
    const repo = makeRepo();
    const line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"; // 64 bytes
    repo.write("big.txt", line.repeat(64 * 1024)); // 4 MiB
    repo.commit("big");
    const oid = repo.git(["rev-parse", "HEAD:big.txt"]).trim();
    const runner = new GitRunner();
    const result = await runner.run(location(repo), "cat-file", ["blob", oid], { maxBytes: 1000 });
    expect(result).toMatchObject({
      exitCode: null,
      stdout: line.repeat(16).slice(0, 1000),
      truncated: true,
      returnedBytes: 1000,
      totalBytes: null,
    });
    expect(result.stopped).toBeUndefined();
    expect(await noneLeft(repo.dir)).toBe(true);
    expect(runner.active).toBe(0);

    // The rest, from where the cap cut, with no gap: the blob's 1000th byte onwards.
    const next = await runner.run(location(repo), "cat-file", ["blob", oid], { maxBytes: 64, skipBytes: 1000 });
    expect(next).toMatchObject({ stdout: line.repeat(17).slice(1000, 1064), skippedBytes: 1000, truncated: true });
  });

  it("cuts a multi-byte blob on a character boundary", async () => {
    const repo = makeRepo();
    repo.write("u.txt", "\u20ac".repeat(1000)); // 3 bytes each
    repo.commit("euro");
    const oid = repo.git(["rev-parse", "HEAD:u.txt"]).trim();
    const result = await new GitRunner().run(location(repo), "cat-file", ["blob", oid], { maxBytes: 100 });
    expect(result).toMatchObject({ stdout: "\u20ac".repeat(33), returnedBytes: 99, truncated: true });
  });

  it("passes the hardened arguments and an environment that names every filter driver it was given", async () => {
    const dir = tempDir();
    const bin = fakeGit(`printf '%s\\n' "$@" > '${dir}/argv'; env > '${dir}/env'`);
    const runner = new GitRunner({ searchPath: bin });
    const result = await runner.run({ gitDir: "/r/.git", workTree: "/r", cwd: dir, filterDrivers: ["a=b"] }, "diff", ["--stat"]);
    expect(result.exitCode).toBe(0);
    const argv = readFileSync(join(dir, "argv"), "utf8").split("\n");
    expect(argv.slice(0, 3)).toEqual(["--no-pager", "--git-dir=/r/.git", "--work-tree=/r"]);
    // The pinned settings travel as git's own `-c` does, in GIT_CONFIG_PARAMETERS: no `-c` argument is left.
    expect(argv).not.toContain("-c");
    expect(argv.slice(argv.indexOf("diff"), -1)).toEqual(["diff", "--no-ext-diff", "--no-textconv", "--no-color", "-O/dev/null", "--stat"]);
    const env = readFileSync(join(dir, "env"), "utf8");
    expect(env).toContain("GIT_CONFIG_PARAMETERS='core.fsmonitor'='false' 'core.hooksPath'='/dev/null' ");
    // The mailmap settings first (a carried one of the user's comes later and wins), then the drivers'.
    expect(env).toContain("GIT_CONFIG_COUNT=6\n");
    expect(env).toContain("GIT_CONFIG_KEY_0=mailmap.file\n");
    expect(env).toContain("GIT_CONFIG_VALUE_0=\n");
    expect(env).toContain("GIT_CONFIG_KEY_2=filter.a=b.clean\n");
    expect(env).toContain("GIT_CONFIG_VALUE_5=false\n");
    expect(env).toContain("LC_ALL=C.UTF-8\n");
    expect(env).toContain(`PATH=${bin}:/usr/local/bin:/usr/bin:/bin\n`);
  });

  it("hands real git every pinned setting at command scope, where no override or repository setting wins", async () => {
    const repo = committedRepo();
    repo.git(["config", "color.ui", "always"]);
    repo.git(["config", "core.hooksPath", "hooks"]);
    const runner = new GitRunner();
    const options = { config: [["color.ui", "true"] as const] };
    const listed = await runner.run({ ...location(repo), filterDrivers: ["q'uote=d"] }, "config", ["--list", "--show-scope", "-z"], options);
    // With -z: scope, NUL, `key\nvalue`, NUL.
    const fields = listed.stdout.split("\0");
    const command = fields.filter((_, i) => i % 2 === 1 && fields[i - 1] === "command");
    // Quoting holds for a driver name with a quote and `=` (GIT_CONFIG_COUNT), then every pinned setting, in order.
    expect(command.slice(0, 7)).toEqual([
      "mailmap.file\n",
      "mailmap.blob\n",
      "filter.q'uote=d.clean\n",
      "filter.q'uote=d.smudge\n",
      "filter.q'uote=d.process\n",
      "filter.q'uote=d.required\nfalse",
      "color.ui\ntrue",
    ]);
    expect(command.slice(7)).toEqual(COMMAND_SETTINGS.map(([key, value]) => `${key.toLowerCase()}\n${value}`));
    for (const [key, value] of [
      ["color.ui", "false"],
      ["core.hooksPath", "/dev/null"],
    ]) {
      const read = await runner.run(location(repo), "config", ["--get", key!], options);
      expect(read.stdout, key).toBe(`${value}\n`);
    }
    runner.close();
  });

  it("hands git only the user-config variables of a userConfig object, never a GIT_* beside them", async () => {
    const dir = tempDir();
    const bin = fakeGit(`env > '${dir}/env'`);
    const runner = new GitRunner({ searchPath: bin });
    const userConfig = { HOME: "/home/u", GIT_CONFIG_PARAMETERS: "'core.pager'='less'", GIT_DIR: "/elsewhere" } as UserConfigEnvironment;
    await runner.run({ gitDir: "/r/.git", workTree: "/r", cwd: dir, filterDrivers: [] }, "config", ["--list"], { userConfig });
    const env = readFileSync(join(dir, "env"), "utf8");
    expect(env).toContain("HOME=/home/u\n");
    expect(env).toContain("GIT_CONFIG_PARAMETERS='core.fsmonitor'='false' ");
    expect(env).not.toContain("less");
    expect(env).not.toContain("GIT_DIR=");
  });

  it("times out a git that hangs, reporting stopped: timeout, and kills what it started", async () => {
    const dir = tempDir();
    const bin = fakeGit(`sleep 1000 & echo $! > '${dir}/child.pid'; echo $$ > '${dir}/git.pid'; wait`);
    const runner = new GitRunner({ searchPath: bin, timeoutMs: 300 });
    const result = await runner.run({ gitDir: dir, workTree: dir, cwd: dir, filterDrivers: [] }, "status", []);
    expect(result).toMatchObject({ exitCode: null, stopped: "timeout", truncated: false });
    expect(await ended(join(dir, "git.pid"))).toBe(true);
    expect(await ended(join(dir, "child.pid"))).toBe(true);
    expect(runner.active).toBe(0);
  });

  it("never runs more git processes than maxConcurrency, queueing the rest", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "running"));
    mkdirSync(join(dir, "go"));
    const bin = fakeGit(`touch '${dir}/running/'$$; while [ ! -e '${dir}/go/'$$ ]; do sleep 0.01; done; rm '${dir}/running/'$$; echo done`);
    const runner = new GitRunner({ searchPath: bin, maxConcurrency: 2 });
    const calls = Array.from({ length: 5 }, () => runner.run({ gitDir: dir, workTree: dir, cwd: dir, filterDrivers: [] }, "status", []));
    let mostRunning = 0;
    let mostActive = 0;
    const running = (): string[] => {
      const now = readdirSync(join(dir, "running"));
      mostRunning = Math.max(mostRunning, now.length);
      mostActive = Math.max(mostActive, runner.active);
      return now;
    };
    // Release the processes one at a time: each time, exactly two (or the last one) are running.
    for (let remaining = 5; remaining > 0; remaining--) {
      const expected = Math.min(2, remaining);
      await until(() => running().length >= expected && runner.active === expected);
      expect(running().length).toBe(expected);
      const pid = running()[0]!;
      writeFileSync(join(dir, "go", pid), "");
      await until(() => !running().includes(pid));
    }
    const results = await Promise.all(calls);
    expect(mostRunning).toBe(2);
    expect(mostActive).toBe(2);
    expect(results.map((result) => [result.exitCode, result.stdout])).toEqual(Array.from({ length: 5 }, () => [0, "done\n"]));
    expect(runner.active).toBe(0);
  });

  it("rejects with git_not_found when git is not on the search path", async () => {
    const runner = new GitRunner({ searchPath: tempDir() });
    const call = runner.run({ gitDir: "/x", workTree: "/x", cwd: tempDir(), filterDrivers: [] }, "status", []);
    await expect(call).rejects.toBeInstanceOf(GitctxError);
    await expect(call).rejects.toMatchObject({ code: "git_not_found", message: "git was not found on PATH." });
  });

  it("refuses a timeout that is not positive", () => {
    expect(() => new GitRunner({ timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("toolbox: timeout, abort and git_not_found", () => {
  it("fails a call with `timeout` when git hangs, and kills the git process", async () => {
    const repo = committedRepo();
    const dir = tempDir();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: gitWithHangingStatus(dir), timeoutMs: 300 });
    const result = await toolbox.execute("git_status", {});
    expect(result).toEqual({
      ok: false,
      tool: "git_status",
      error: {
        code: "timeout",
        message: "git status did not finish within 300 ms and was stopped.",
        hint: "Narrow the request (a path, a smaller count or range), or create the toolbox with a larger timeoutMs.",
      },
    });
    expect(await ended(join(dir, "git.pid"))).toBe(true);
    expect(await ended(join(dir, "child.pid"))).toBe(true);
    // Other tools, whose git does not hang, still answer within the same toolbox.
    const log = await toolbox.execute("git_log", { count: 1 });
    expect(log.ok && (log.data as { commits: Array<{ subject: string }> }).commits[0]!.subject).toBe("first");
  });

  it("refuses a config include that is a FIFO before git runs, where plain git blocks on it", async () => {
    const repo = committedRepo();
    const fifo = join(realpathSync(tempDir()), "hang");
    execFileSync("mkfifo", [fifo]);
    repo.git(["config", "include.path", fifo]);
    // Plain git opens the FIFO and waits for a writer that never comes.
    const plain = spawnSync("git", ["status"], { cwd: repo.dir, env: fixtureEnv(), timeout: 1_000 });
    expect(plain.error?.message).toMatch(/ETIMEDOUT/);
    const toolbox = createToolbox({ root: repo.dir, timeoutMs: 30_000 });
    const result = await toolbox.execute("git_status", {});
    expect(result.ok ? "ok" : result.error).toEqual({
      code: "unsafe_repository",
      message: `The repository's config includes ${fifo}, which is not a regular file (a FIFO or device): git would block or read without end.`,
      hint: "Inspect the repository's config (git config --list --show-origin) and remove that include.",
    });
    expect(await noneLeft(repo.dir)).toBe(true);
  });

  it("rejects with the signal's reason when the caller aborts, and kills the git process", async () => {
    const repo = committedRepo();
    const dir = tempDir();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: gitWithHangingStatus(dir) });
    const controller = new AbortController();
    const call = toolbox.execute("git_status", {}, { signal: controller.signal });
    await until(() => existsSync(join(dir, "git.pid")) && existsSync(join(dir, "child.pid")));
    const reason = new Error("the user pressed stop");
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(await ended(join(dir, "git.pid"))).toBe(true);
    expect(await ended(join(dir, "child.pid"))).toBe(true);
  });

  it("rejects at once for a signal that is already aborted", async () => {
    const repo = committedRepo();
    const reason = new Error("too late");
    await expect(createToolbox({ root: repo.dir }).execute("git_status", {}, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it("answers git_not_found when git is not on the search path", async () => {
    const repo = committedRepo();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: `${tempDir()}:relative/bin` });
    for (const [tool, input] of [
      ["git_status", {}],
      ["git_log", {}],
      ["git_blame", { path: "a.txt" }],
    ] as const) {
      expect(await toolbox.execute(tool, input)).toEqual({
        ok: false,
        tool,
        error: {
          code: "git_not_found",
          message: "git was not found on PATH.",
          hint: "Install git (https://git-scm.com/downloads) and make sure the `git` command is on the PATH of this process.",
        },
      });
    }
  });
});

describe("toolbox: finding the repository", () => {
  it("answers not_a_repository with a hint for a directory outside any repository", async () => {
    const dir = tempDir();
    const result = await createToolbox({ root: dir }).execute("git_status", {});
    expect(result).toEqual({
      ok: false,
      tool: "git_status",
      error: {
        code: "not_a_repository",
        message: `${realpathSync(dir)} is not inside a git repository.`,
        hint: "Point root at a directory inside a git working tree, or run `git init` there first.",
      },
    });
  });

  it("finds the repository once it has been created after a failed call", async () => {
    const dir = tempDir();
    const toolbox = createToolbox({ root: dir });
    expect(errorOf(await toolbox.execute("git_log", {})).code).toBe("not_a_repository");
    makeRepo({ dir });
    expect(await toolbox.execute("git_log", {})).toEqual({
      ok: true,
      tool: "git_log",
      data: { commits: [], hasMore: false, nextSkip: null, ref: null, range: null, limitedTo: null, shallowBoundary: [] },
      text: "No commits yet: the current branch has no history.",
    });
  });

  it("reads a bare repository's history, and answers not_a_repository for what needs a working tree", async () => {
    const bare = makeRepo({ bare: true });
    const toolbox = createToolbox({ root: bare.dir });
    expect((await toolbox.execute("git_log", {})).ok).toBe(true);
    expect(errorOf(await toolbox.execute("git_status", {}))).toEqual({
      code: "not_a_repository",
      message: `${realpathSync(bare.dir)} is a bare repository: it has no working tree, which git_status needs.`,
      hint: "git_log, git_show and git_blame with ref read its history. Otherwise point root at a checked-out working tree, e.g. a clone of it.",
    });
    await toolbox.close();
  });

  it("answers not_a_repository for a root inside a .git directory, naming the work tree to use", async () => {
    const repo = committedRepo();
    const real = realpathSync(repo.dir);
    expect(errorOf(await createToolbox({ root: join(repo.dir, ".git", "refs") }).execute("git_status", {}))).toEqual({
      code: "not_a_repository",
      message: `${real}/.git/refs is inside the git directory ${real}/.git, not in a working tree.`,
      hint: `Point root at ${real}, the working tree that contains it.`,
    });
  });

  it("answers not_a_repository for a root that does not exist or is a file", async () => {
    const missing = join(tempDir(), "nope");
    expect(errorOf(await createToolbox({ root: missing }).execute("git_status", {}))).toEqual({
      code: "not_a_repository",
      message: `The workspace root ${missing} does not exist.`,
      hint: "Point root at an existing directory.",
    });
    const repo = committedRepo();
    const file = join(repo.dir, "a.txt");
    expect(errorOf(await createToolbox({ root: file }).execute("git_status", {}))).toEqual({
      code: "not_a_repository",
      message: `The workspace root ${file} is not a directory.`,
      hint: "Point root at a directory.",
    });
  });

  it("works from a subdirectory root, with paths relative to that root and confined to it", async () => {
    const repo = makeRepo();
    repo.write("top.txt", "top\n").write("sub/inner.txt", "one\n");
    repo.commit("first");
    repo.write("top.txt", "top changed\n").write("sub/inner.txt", "one\ntwo\n");
    const toolbox = createToolbox({ root: join(repo.dir, "sub") });
    expect(toolbox.root).toBe(join(repo.dir, "sub"));

    // The workspace sees its own files, named relative to it like the caller's paths.
    const whole = await toolbox.execute("git_status", {});
    expect(whole.ok && (whole.data as { entries: Array<{ path: string }> }).entries.map((entry) => entry.path)).toEqual(["inner.txt"]);
    const scoped = await toolbox.execute("git_status", { path: "inner.txt" });
    expect(scoped.ok && (scoped.data as { entries: Array<{ path: string }> }).entries.map((entry) => entry.path)).toEqual(["inner.txt"]);
    const blame = await toolbox.execute("git_blame", { path: "inner.txt" });
    expect(blame.ok && (blame.data as { lines: Array<{ content: string }> }).lines.map((line) => line.content)).toEqual(["one", "two"]);
    expect(errorOf(await toolbox.execute("git_diff", { path: "../top.txt" })).code).toBe("path_outside_workspace");
  });

  it("works from a linked worktree and from a checked-out submodule", async () => {
    const repo = committedRepo();
    const worktree = join(tempDir(), "wt");
    repo.git(["worktree", "add", "-q", "-b", "side", worktree]);
    const fromWorktree = await createToolbox({ root: worktree }).execute("git_status", {});
    expect(fromWorktree.ok && (fromWorktree.data as { branch: { head: string } }).branch.head).toBe("side");

    const superRepo = makeRepo();
    superRepo.write("x.txt", "x\n");
    superRepo.commit("x");
    superRepo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", repo.dir, "sub"]);
    superRepo.commit("add sub");
    const fromSub = await createToolbox({ root: join(superRepo.dir, "sub") }).execute("git_log", { count: 1 });
    expect(fromSub.ok && (fromSub.data as { commits: Array<{ subject: string }> }).commits[0]!.subject).toBe("first");
    const fromSuper = await createToolbox({ root: superRepo.dir }).execute("git_status", {});
    expect(fromSuper.ok && (fromSuper.data as { clean: boolean }).clean).toBe(true);
  });
});

describe("toolbox: read-only calls leave the repository untouched", () => {
  it("git_diff of a stat-dirty file does not rewrite or lock .git/index, though plain git diff does", async () => {
    const repo = committedRepo();
    const index = join(repo.dir, ".git", "index");
    const identity = (): string[] => {
      const info = statSync(index, { bigint: true });
      return [String(info.ino), String(info.size), String(info.mtimeNs)];
    };
    // Plain git, even with GIT_OPTIONAL_LOCKS=0, writes the refreshed stat data back.
    utimesSync(join(repo.dir, "a.txt"), 946684800, 946684800);
    const before = identity();
    expect(plainGit(repo.dir, ["diff"], fixtureEnv({ GIT_OPTIONAL_LOCKS: "0" })).stdout).toBe("");
    expect(identity()).not.toEqual(before);

    utimesSync(join(repo.dir, "a.txt"), 978307200, 978307200);
    const untouched = identity();
    const toolbox = createToolbox({ root: repo.dir });
    for (const input of [{}, { commit: "HEAD" }, { stat: true }, { path: "a.txt" }]) {
      const result = await toolbox.execute("git_diff", input);
      expect(result.ok && (result.data as { files: unknown[] }).files).toEqual([]);
    }
    for (const tool of ["git_status", "git_blame"]) {
      expect((await toolbox.execute(tool, tool === "git_blame" ? { path: "a.txt" } : {})).ok).toBe(true);
    }
    expect(identity()).toEqual(untouched);
    expect(existsSync(`${index}.lock`)).toBe(false);
  });
});

describe("toolbox: ownership and core.worktree", () => {
  function chownTree(path: string, uid: number): void {
    chownSync(path, uid, uid);
    if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), uid);
  }

  it("refuses a repository that belongs to another user with unsafe_repository, unless trusted", async () => {
    const repo = committedRepo();
    repo.write("a.txt", "one\ntwo\nthree\n");
    chownTree(repo.dir, 65534);
    const real = realpathSync(repo.dir);
    expect(await createToolbox({ root: repo.dir }).execute("git_status", {})).toEqual({
      ok: false,
      tool: "git_status",
      error: {
        code: "unsafe_repository",
        message: `The repository at ${real} belongs to another user; its config could make git run that user's programs.`,
        hint: "Only if you trust this repository, create the toolbox with trustRepository: true.",
      },
    });
    const trusted = await createToolbox({ root: repo.dir, trustRepository: true }).execute("git_status", {});
    expect(trusted.ok && (trusted.data as { entries: Array<{ path: string; kind: string }> }).entries).toEqual([
      { path: "a.txt", origPath: null, index: ".", worktree: "M", kind: "modified", staged: false, unstaged: true },
    ]);
  });

  it("checks ownership on every call, not only when it first finds the repository", async () => {
    const repo = committedRepo();
    const toolbox = createToolbox({ root: repo.dir });
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    chownTree(join(repo.dir, ".git"), 65534);
    expect(errorOf(await toolbox.execute("git_status", {}))).toEqual({
      code: "unsafe_repository",
      message: `The repository at ${realpathSync(join(repo.dir, ".git"))} belongs to another user; its config could make git run that user's programs.`,
      hint: "Only if you trust this repository, create the toolbox with trustRepository: true.",
    });
  });

  it("refuses a core.worktree that points at a directory above the repository, so files outside never leak", async () => {
    // An index entry for a file outside the repository, and core.worktree at their common parent: plain git
    // would diff that file's content (here: a secret) against the index.
    const parent = tempDir();
    writeFileSync(join(parent, "secret.txt"), "TOP SECRET\n");
    const repo = makeRepo({ dir: join(parent, "repo") });
    repo.write("a.txt", "a\n");
    repo.commit("first");
    const blob = repo.git(["hash-object", "-w", "--stdin"], { input: "public\n" }).trim();
    repo.git(["update-index", "--add", "--cacheinfo", `100644,${blob},secret.txt`]);
    repo.git(["config", "core.worktree", parent]);
    expect(repo.git(["diff"])).toContain("+TOP SECRET");

    const toolbox = createToolbox({ root: repo.dir, trustRepository: true });
    for (const [tool, input] of [
      ["git_diff", {}],
      ["git_status", {}],
      ["git_blame", { path: "a.txt" }],
    ] as const) {
      const result = await toolbox.execute(tool, input);
      expect(errorOf(result)).toEqual({
        code: "unsafe_repository",
        message: `The repository's config points its work tree at ${realpathSync(parent)}, which does not hold its git directory ${realpathSync(repo.dir)}/.git (core.worktree); gitctx will not read files there.`,
        hint: "Inspect the repository's config: if core.worktree is not intended, remove it (git config --unset core.worktree).",
      });
      expect(JSON.stringify(result)).not.toContain("SECRET");
    }
  });

  it("refuses a core.worktree that points at a sibling directory", async () => {
    const parent = tempDir();
    mkdirSync(join(parent, "elsewhere"));
    const repo = makeRepo({ dir: join(parent, "repo") });
    repo.write("a.txt", "a\n");
    repo.commit("first");
    repo.git(["config", "core.worktree", join(parent, "elsewhere")]);
    expect(errorOf(await createToolbox({ root: repo.dir }).execute("git_status", {})).code).toBe("unsafe_repository");
  });
});

describe("toolbox: the gate before a tool runs", () => {
  const repo = committedRepo();

  it("answers unknown_tool listing the tools that exist", async () => {
    expect(await createToolbox({ root: repo.dir }).execute("git_push", {})).toEqual({
      ok: false,
      tool: "git_push",
      error: {
        code: "unknown_tool",
        message: 'There is no tool named "git_push".',
        hint: "Available tools: git_status, git_diff, git_log, git_show, git_blame, git_context, load_instructions, git_changes.",
      },
    });
  });

  it("orders permission modes read-only < workspace-write < danger-full-access", () => {
    expect(PERMISSION_MODES).toEqual(["read-only", "workspace-write", "danger-full-access"]);
    const table = PERMISSION_MODES.map((granted) => PERMISSION_MODES.map((required) => permits(granted, required)));
    expect(table).toEqual([
      [true, false, false],
      [true, true, false],
      [true, true, true],
    ]);
  });

  it("runs every read-only tool in every mode, and offers only the tools its mode permits", async () => {
    const offered: Record<string, string[]> = {};
    for (const mode of PERMISSION_MODES) {
      const toolbox = createToolbox({ root: repo.dir, mode });
      expect(toolbox.mode).toBe(mode);
      offered[mode] = toolbox.tools.map((tool) => tool.permission);
      expect((await toolbox.execute("git_log", { count: 1 })).ok).toBe(true);
      await toolbox.close();
    }
    const reads = Array<string>(8).fill("read-only");
    expect(offered).toEqual({
      "read-only": reads,
      "workspace-write": [...reads, "workspace-write", "workspace-write"],
      "danger-full-access": [...reads, "workspace-write", "workspace-write"],
    });
  });

  it("asks authorize with the parsed input and refuses with permission_denied on false or a reason", async () => {
    const asked: Array<[string, unknown]> = [];
    const verdicts: Array<boolean | string> = [false, "Blame is disabled in this session.", "", true];
    const toolbox = createToolbox({
      root: repo.dir,
      authorize: async (tool, input) => {
        asked.push([tool, input]);
        return verdicts.shift()!;
      },
    });
    expect(await toolbox.execute("git_status", {})).toEqual({
      ok: false,
      tool: "git_status",
      error: { code: "permission_denied", message: "The call to git_status was not authorized." },
    });
    expect(await toolbox.execute("git_blame", { path: "a.txt" })).toEqual({
      ok: false,
      tool: "git_blame",
      error: { code: "permission_denied", message: "Blame is disabled in this session." },
    });
    expect(errorOf(await toolbox.execute("git_log", { count: 1 })).message).toBe("The call to git_log was not authorized.");
    expect((await toolbox.execute("git_log", { count: 1 })).ok).toBe(true);
    // Invalid input and unknown tools are refused before authorize is consulted.
    expect(errorOf(await toolbox.execute("git_log", { count: 0 })).code).toBe("invalid_input");
    expect(errorOf(await toolbox.execute("nope", {})).code).toBe("unknown_tool");
    expect(asked).toEqual([
      ["git_status", { short: true, untracked: "all", offset: 0 }],
      ["git_blame", { path: "a.txt" }],
      ["git_log", { count: 1, oneline: false, skip: 0 }],
      ["git_log", { count: 1, oneline: false, skip: 0 }],
    ]);
  });

  it("answers invalid_input naming an unknown field and listing the accepted ones", async () => {
    const toolbox = createToolbox({ root: repo.dir });
    expect(await toolbox.execute("git_log", { count: 2, bogus: 1 })).toEqual({
      ok: false,
      tool: "git_log",
      error: {
        code: "invalid_input",
        message: 'Invalid input for git_log: unknown field "bogus".',
        hint: "git_log accepts: count, oneline, author, since, until, path, ref, skip, grep.",
      },
    });
    expect(errorOf(await toolbox.execute("git_status", { paths: "a", untracked: "some" })).message).toBe(
      'Invalid input for git_status: untracked: Invalid option: expected one of "all"|"normal"|"no"; unknown field "paths".',
    );
    expect(errorOf(await toolbox.execute("git_blame", {})).message).toBe(
      "Invalid input for git_blame: path: Invalid input: expected string, received undefined.",
    );
    expect(errorOf(await toolbox.execute("git_status", "status please")).code).toBe("invalid_input");
  });

  it("describes every tool with a strict JSON Schema", () => {
    const { tools } = createToolbox({ root: repo.dir });
    expect(tools.map((tool) => tool.name)).toEqual([
      "git_status",
      "git_diff",
      "git_log",
      "git_show",
      "git_blame",
      "git_context",
      "load_instructions",
      "git_changes",
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
      expect(tool.title).not.toBe("");
      expect(tool.description).toMatch(/Prefer this over/);
      expect(tool.keywords.length).toBeGreaterThan(0);
    }
    expect(tools.find((tool) => tool.name === "git_blame")!.inputSchema).toMatchObject({ required: ["path"] });
    expect(tools.find((tool) => tool.name === "git_show")!.inputSchema).toMatchObject({ required: ["commit"] });
  });

  it("search ranks by name, keywords and description", () => {
    const toolbox = createToolbox({ root: repo.dir });
    expect(toolbox.search("blame")[0]!.name).toBe("git_blame");
    expect(toolbox.search("git_diff")[0]!.name).toBe("git_diff");
    expect(toolbox.search("staged changes")[0]!.name).toMatch(/^git_(status|diff)$/);
    expect(toolbox.search("").map((tool) => tool.name)).toEqual(toolbox.tools.map((tool) => tool.name));
    expect(toolbox.search("kubernetes")).toEqual([]);
  });
});
