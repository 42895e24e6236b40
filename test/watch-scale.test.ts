/**
 * The watcher at scale and at its limits: a 10,000-file checkout is one git event and one file event; a huge
 * ignored `node_modules` (and directories the repository ignores) cost no watches, counted by the kernel; a watch
 * cap reached degrades to polling that still reports changes; `close()` leaves nothing that keeps a process alive.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderWatchChanges } from "../src/index.js";
import { makeRepo, tempDir } from "./fixtures/repo.js";
import { inotifyWatches, watch, waitFor } from "./fixtures/watch.js";

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function writeMany(root: string, directories: number, perDirectory: number, content = "x\n"): void {
  for (let d = 0; d < directories; d++) {
    const dir = join(root, `d${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < perDirectory; f++) writeFileSync(join(dir, `f${f}.txt`), content);
  }
}

describe.each(["directory", "file"] as const)("bursts, %s granularity", (granularity) => {
  it("a checkout of 10,000 files is one branch_switched and one bulk file event", { timeout: 300_000 }, async () => {
    const repo = makeRepo();
    repo.write("README.md", "# big\n").commit("initial");
    repo.git(["switch", "-q", "-c", "big"]);
    writeMany(join(repo.dir, "gen"), 100, 100);
    repo.commit("ten thousand files");
    repo.git(["switch", "-q", "main"]);
    const { recorder } = await watch(repo, { granularity });

    const seq = recorder.seq;
    repo.git(["switch", "-q", "big"]);
    const bulk = await recorder.next((event) => event.kind === "bulk", seq, "the bulk event");
    const switched = recorder.after(seq).find((event) => event.kind === "branch_switched");
    expect(switched?.git).toMatchObject({ fromBranch: "main", toBranch: "big" });
    expect(bulk).toMatchObject({ category: "source", count: 10_000, counts: { added: 10_000, changed: 0, deleted: 0, renamed: 0 } });
    expect(bulk.paths.length).toBe(20);
    expect(bulk.cause).toEqual({ seq: switched!.seq, kind: "branch_switched" });
    expect(bulk.summary).toMatch(/^10,000 files changed with branch switched \(#\d+\) \(10,000 created\): gen\/d0\/f0\.txt, /);
    // Nothing else: one git event and one file event for the whole checkout.
    const sentinel = recorder.seq;
    repo.write("sentinel.txt", "s\n");
    await recorder.next((event) => event.paths.includes("sentinel.txt"), sentinel, "the sentinel");
    expect(recorder.after(seq).map((event) => event.kind)).toEqual(["branch_switched", "bulk", "add"]);
  });
});

describe("ignored directories", () => {
  it("places no watch in a 50,000-file ignored node_modules or in directories the repository ignores", { timeout: 300_000 }, async () => {
    const repo = makeRepo();
    repo.write(".gitignore", "output/\n*.log\n").write("src/app.ts", "export {};\n").write("src/gen/keep.md", "kept\n").commit("initial");
    writeMany(join(repo.dir, "node_modules"), 500, 100);
    writeMany(join(repo.dir, "output"), 10, 100);
    // An untracked directory holding only ignored files is listed by git, but not ignored itself.
    mkdirSync(join(repo.dir, "logs"));
    writeFileSync(join(repo.dir, "logs", "run.log"), "log\n");
    const ignoredInodes = new Set<number>();
    for (const dir of ["node_modules", "node_modules/d0", "node_modules/d499", "output", "output/d3"])
      ignoredInodes.add(statSync(join(repo.dir, dir)).ino);
    ignoredInodes.add(statSync(join(repo.dir, "node_modules/d7/f7.txt")).ino);

    const before = inotifyWatches().length;
    const { watcher, recorder } = await watch(repo);
    const status = watcher.status();
    // node_modules is left out by name; output/ because the repository ignores it; logs/ only holds ignored files.
    expect(status.ignoredDirectories).toEqual(["output"]);
    const watched = inotifyWatches();
    // The kernel's own list: no inode of the ignored trees among this process's watches.
    expect(watched.filter((ino) => ignoredInodes.has(ino))).toEqual([]);
    // A handful of watches for the tracked files, the logs directory and the git directory; not 51,000.
    expect(status.watches).toBeLessThan(60);
    expect(watched.length - before).toBeLessThanOrEqual(status.watches);

    const seq = recorder.seq;
    writeFileSync(join(repo.dir, "node_modules", "d1", "new.js"), "ignored\n");
    writeFileSync(join(repo.dir, "output", "d1", "new.txt"), "ignored\n");
    writeFileSync(join(repo.dir, "logs", "fresh.ts"), "seen\n");
    const seen = await recorder.next((event) => event.category === "source", seq, "the file in logs/");
    expect(seen.paths).toEqual(["logs/fresh.ts"]);
    const sentinel = recorder.seq;
    repo.write("sentinel.txt", "s\n");
    await recorder.next((event) => event.paths.includes("sentinel.txt"), sentinel, "the sentinel");
    expect(recorder.after(seq).flatMap((event) => event.paths)).toEqual(["logs/fresh.ts", "sentinel.txt"]);
  });
});

describe("ignore rules that change", () => {
  it("leaves a directory out once .gitignore names it, and no longer reports its files", { timeout: 120_000 }, async () => {
    const repo = makeRepo();
    repo.write("src/app.ts", "export {};\n").commit("initial");
    // A build's output, not yet ignored: watched like any untracked directory.
    repo.write("gen/out.js", "generated\n");
    const { watcher, recorder } = await watch(repo);
    expect(watcher.status().ignoredDirectories).toEqual([]);
    repo.write(".gitignore", "gen/\n");
    await waitFor(() => watcher.status().ignoredDirectories.includes("gen") || undefined, "gen/ to be left out");
    const seq = recorder.seq;
    repo.write("gen/out.js", "generated again\n");
    repo.write("src/app.ts", "export const app = 1;\n");
    await recorder.next((event) => event.paths.includes("src/app.ts"), seq, "the edit outside gen/");
    const sentinel = recorder.seq;
    repo.write("sentinel.txt", "s\n");
    await recorder.next((event) => event.paths.includes("sentinel.txt"), sentinel, "the sentinel");
    expect(recorder.after(seq).flatMap((event) => event.paths)).toEqual(["src/app.ts", "sentinel.txt"]);
  });
});

describe("degraded watching", () => {
  it("reaching the watch cap degrades to polling, says so in an event, in data and in text, and still reports changes", {
    timeout: 120_000,
  }, async () => {
    const repo = makeRepo();
    // One watch per directory: 40 directories need more than the cap of 20.
    writeMany(join(repo.dir, "src"), 40, 2);
    repo.commit("eighty files");
    const { watcher, recorder } = await watch(repo, { maxWatches: 20, pollingIntervalMs: 200 });

    const degraded = await recorder.next((event) => event.kind === "degraded", 0, "the degraded event");
    expect(degraded).toMatchObject({ category: "watcher", degraded: { reason: "watch_limit", mode: "polling", intervalMs: 200, maxWatches: 20 } });
    expect(degraded.summary).toMatch(/^Watching the work tree by polling every 200 ms: the watch cap \(20 watches\) was reached\./);
    const status = watcher.status();
    expect(status.degraded?.reason).toBe("watch_limit");
    // Polling stats every file and directory.
    expect(status.polled).toBeGreaterThanOrEqual(80);
    expect(status.watches).toBeLessThanOrEqual(20);

    const seq = recorder.seq;
    repo.write("src/d2/f1.txt", "edited while polling\n");
    repo.write("src/d35/new.txt", "created while polling\n");
    const edit = await recorder.next((event) => event.paths.includes("src/d2/f1.txt"), seq, "the edit, by polling");
    expect(edit).toMatchObject({ kind: "change", degraded: { reason: "watch_limit" } });
    await recorder.next((event) => event.paths.includes("src/d35/new.txt") && event.kind === "add", seq, "the creation, by polling");
    // Git events keep coming from the git directory's own watches.
    repo.git(["add", "-A"]);
    await recorder.next((event) => event.kind === "staged", seq, "git add");

    const text = renderWatchChanges(watcher.events(seq));
    expect(text).toContain("Watching degraded since");
    expect(text).toContain("Raise maxWatches");
    expect(watcher.events(0).degraded?.reason).toBe("watch_limit");
  });
});

describe("close", () => {
  it("leaves no handle open: a process that watched and closed exits by itself", { timeout: 120_000 }, async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    const entry = join(PACKAGE_ROOT, "dist", "index.js");
    expect(existsSync(entry)).toBe(true);
    const script = join(tempDir(), "watch-and-close.mjs");
    writeFileSync(
      script,
      [
        `import { writeFileSync, realpathSync } from "node:fs";`,
        `import { join } from "node:path";`,
        `const { createWatcher } = await import(${JSON.stringify(new URL(`file://${entry}`).href)});`,
        `const dir = realpathSync(process.argv[2]);`,
        `const watcher = createWatcher({ location: { root: dir, topLevel: dir, gitDir: join(dir, ".git") } });`,
        `await watcher.ready;`,
        `const seen = new Promise((resolve) => watcher.on((event) => event.paths.includes("a.txt") && resolve(event)));`,
        `writeFileSync(join(dir, "a.txt"), "b\\n");`,
        `const event = await seen;`,
        `const iterator = watcher[Symbol.asyncIterator]();`,
        `const pending = iterator.next();`,
        `await watcher.close();`,
        `const last = await pending;`,
        // Closed while still starting (reading git, walking the tree): nothing may be left behind either.
        `const early = createWatcher({ location: { root: dir, topLevel: dir, gitDir: join(dir, ".git") } });`,
        `await early.close();`,
        `await early.ready;`,
        `console.log(JSON.stringify({ kind: event.kind, iteratorDone: last.done, state: watcher.status().state, early: early.status().state }));`,
      ].join("\n"),
    );
    const child = spawn(process.execPath, [script, repo.dir], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => resolveExit(code)));
    let code: number | null | undefined;
    void exited.then((value) => (code = value));
    try {
      // Exits by itself once the watcher is closed: no handle left to keep the event loop alive.
      await waitFor(() => code !== undefined, "the child to exit by itself", 90_000);
    } finally {
      child.kill();
    }
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(stdout)).toEqual({ kind: "change", iteratorDone: true, state: "closed", early: "closed" });
  });
});
