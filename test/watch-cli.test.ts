/**
 * `gitctx watch`, spawned from the built CLI (`npm test` builds first; after editing src/, run `npm run build`
 * before `npx vitest run test/watch-cli.test.ts`): one event per line on stdout (NDJSON or text) until SIGINT or
 * SIGTERM, which exit 0 with the watcher closed; what cannot be watched is exit 1, a bad command line exit 2.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WatchEvent } from "../src/index.js";
import { MAIN, PACKAGE_ROOT, requireBuiltCli } from "./fixtures/cli.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";
import { DEADLINE_MS, waitFor } from "./fixtures/watch.js";

requireBuiltCli();

const env = () => ({ PATH: process.env.PATH ?? "", HOME: tempDir("gitctx-cli-home-"), LC_ALL: "C" });

class Watching {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = "";
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [MAIN, "watch", ...args], { cwd: PACKAGE_ROOT, env: env() });
    this.child.stdout.on("data", (chunk: Buffer) => (this.stdout += chunk.toString("utf8")));
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
  }

  get lines(): string[] {
    return this.stdout.split("\n").filter((line) => line !== "");
  }

  /** Sends `signal` and waits for the exit (killed outright past the deadline, which fails the test). */
  async stop(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), DEADLINE_MS);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

const running: Watching[] = [];
afterEach(() => {
  for (const watching of running.splice(0)) if (watching.child.exitCode === null) watching.child.kill("SIGKILL");
});

function watchCli(args: string[]): Watching {
  const watching = new Watching(args);
  running.push(watching);
  return watching;
}

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\n").write("CLAUDE.md", "Rule one.\n").commit("first");
  return repo;
}

describe("gitctx watch", () => {
  it("prints one JSON event per line until SIGINT, then exits 0 with the watcher closed", async () => {
    const repo = committedRepo();
    const watching = watchCli(["--root", repo.dir, "--format", "ndjson"]);
    await waitFor(() => watching.stderr.includes("Ctrl-C stops"), "watching to start");
    expect(watching.stderr).toMatch(/^gitctx watch: watching \S+ \(\d+ watches\); Ctrl-C stops\n$/);

    repo.write("a.txt", "two\n");
    await waitFor(() => watching.lines.length >= 1, "the edit's line");
    repo.commit("second");
    await waitFor(() => watching.lines.some((line) => line.includes('"kind":"commit"')), "the commit's line");
    const events = watching.lines.map((line) => JSON.parse(line) as WatchEvent);
    expect(events[0]).toMatchObject({ seq: 1, category: "source", kind: "change", paths: ["a.txt"], count: 1 });
    expect(events.find((event) => event.kind === "commit")).toMatchObject({
      category: "git",
      summary: expect.stringMatching(/^commit [0-9a-f]{7} on main: second$/),
    });

    expect(await watching.stop("SIGINT")).toEqual({ code: 0, signal: null });
    expect(watching.stderr.split("\n").slice(1)).toEqual(["gitctx watch: SIGINT: stopping", "gitctx watch: stopped", ""]);
  });

  it("prints the events' text with --format text, and SIGTERM stops it the same way", async () => {
    const repo = committedRepo();
    const watching = watchCli(["--root", repo.dir, "--format", "text"]);
    await waitFor(() => watching.stderr.includes("Ctrl-C stops"), "watching to start");
    repo.write("CLAUDE.md", "Rule two.\n");
    // A name with a control character reaches the terminal escaped.
    repo.write("bell\u0007.txt", "ding\n");
    await waitFor(() => watching.lines.length >= 2, "two lines");
    expect(watching.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^#\d+ instructions change: instruction file modified: CLAUDE\.md$/),
        expect.stringMatching(/^#\d+ source add: .*bell\\x07\.txt/),
      ]),
    );
    expect(watching.stdout).not.toContain("\u0007");
    expect(await watching.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(watching.stderr).toContain("gitctx watch: SIGTERM: stopping\ngitctx watch: stopped\n");
  });

  it("exits 1 outside a repository and 2 for a --root that is not a directory", () => {
    const outside = spawnSync(process.execPath, [MAIN, "watch", "--root", tempDir()], { env: env(), encoding: "utf8" });
    expect(outside.status).toBe(1);
    expect(outside.stdout).toBe("");
    expect(outside.stderr).toMatch(/^error \(not_a_repository\): .* is not inside a git repository\.\nhint: /);

    const missing = join(tempDir(), "missing");
    const usage = spawnSync(process.execPath, [MAIN, "watch", "--root", missing], { env: env(), encoding: "utf8" });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toBe(`error: --root ${missing} is not a directory.\n(run "gitctx watch --help" for usage)\n`);
    const format = spawnSync(process.execPath, [MAIN, "watch", "--format", "json"], { env: env(), encoding: "utf8" });
    expect(format.status).toBe(2);
    expect(format.stderr).toMatch(/error: option '--format <format>' argument 'json' is invalid\. Allowed choices are ndjson, text\./);
  });
});
