/**
 * The session's watcher, through the library: `session.watch()` as an async iterable and with `on`, the
 * `fileChanged` session event, handles that share one watcher (the last one's close stops it), the watcher
 * following the session's root and its instruction files, "changed since read", and a process that watches and
 * closes exiting by itself. Real files, real git; waits poll for the event with a deadline.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createToolbox, type FileChangedEvent, type InstructionsLoadedEvent, type Toolbox, type WatchEvent } from "../src/index.js";
import { PACKAGE_ROOT } from "./fixtures/cli.js";
import { gitProcessesIn } from "./fixtures/mcp.js";
import { toolboxesClosedAfterEach } from "./fixtures/calls.js";
import { fixtureEnv, makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";
import { DEADLINE_MS, inotifyWatches, moveRootAsAWriteTool, waitFor } from "./fixtures/watch.js";

const toolboxAt = toolboxesClosedAfterEach();

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\n").write("b.txt", "bee\n").commit("first");
  return repo;
}

/** Every `fileChanged` the session sends, and a wait for one that matches. */
function changes(toolbox: Toolbox): {
  events: FileChangedEvent[];
  next(match: (event: WatchEvent) => boolean, what: string): Promise<FileChangedEvent>;
} {
  const events: FileChangedEvent[] = [];
  toolbox.on("fileChanged", (event) => events.push(event));
  /** Events before it were matched already: each wait looks at what came after the last match. */
  let cursor = 0;
  return {
    events,
    next: async (match, what) => {
      const found = await waitFor(() => events.slice(cursor).find((event) => match(event.event)), what);
      cursor = events.indexOf(found) + 1;
      return found;
    },
  };
}

describe("session.watch()", () => {
  it("is an async iterable of classified events, with on(), and each event is also a fileChanged of the session", async () => {
    const repo = committedRepo();
    const toolbox = toolboxAt(repo.dir);
    const seen = changes(toolbox);
    const watch = toolbox.watch();
    expect(watch.started).toBe(true);
    await watch.ready;
    const heard: WatchEvent[] = [];
    watch.on((event) => heard.push(event));
    const iterated: WatchEvent[] = [];
    const reading = (async () => {
      for await (const event of watch) {
        iterated.push(event);
        if (event.kind === "commit") break;
      }
    })();

    repo.write("a.txt", "two\n");
    const edit = await seen.next((event) => event.kind === "change" && event.paths.includes("a.txt"), "the edit");
    expect(edit.event).toMatchObject({ category: "source", kind: "change", paths: ["a.txt"], count: 1 });
    expect(edit.root).toBe(realpathSync(repo.dir));
    expect(edit.invalidated).toEqual([]);
    repo.commit("second");
    await reading;
    expect(iterated.map((event) => event.kind)).toContain("change");
    expect(iterated.at(-1)).toMatchObject({ category: "git", kind: "commit" });
    expect(heard.map((event) => event.seq)).toEqual(expect.arrayContaining(iterated.map((event) => event.seq)));
    // Events are plain data.
    expect(JSON.parse(JSON.stringify(iterated))).toEqual(iterated);
    const commit = seen.events.find((event) => event.event.kind === "commit")!;
    expect(commit.invalidated).toEqual(["privateIndex"]);
    expect(watch.events(0).events.map((event) => event.seq)).toEqual(expect.arrayContaining(iterated.map((event) => event.seq)));
    await watch.close();
    expect(watch.closed).toBe(true);
  });

  it("is one watcher for every handle, stopped by the last close; a new handle starts a new one", async () => {
    const repo = committedRepo();
    const toolbox = toolboxAt(repo.dir);
    const first = toolbox.watch();
    const second = toolbox.watch();
    expect([first.started, second.started]).toEqual([true, false]);
    await Promise.all([first.ready, second.ready]);
    const watches = inotifyWatches().length;
    expect(watches).toBeGreaterThan(0);
    expect(first.status()).toEqual(second.status());

    const heard: WatchEvent[] = [];
    second.on((event) => heard.push(event));
    await first.close();
    expect(second.status()?.state).toBe("watching");
    repo.write("b.txt", "changed\n");
    await waitFor(() => heard.find((event) => event.paths.includes("b.txt")), "the edit, through the handle left");

    const iterator = second[Symbol.asyncIterator]();
    const pending = iterator.next();
    await second.close();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(second.status()).toBeNull();
    await waitFor(() => inotifyWatches().length < watches, "the watches to go");

    const third = toolbox.watch();
    expect(third.started).toBe(true);
    await third.ready;
    expect(third.events(0)).toMatchObject({ seq: 0, events: [], dropped: 0 });
  });

  it("rejects ready outside a repository and closes the handle; a later call tries again", async () => {
    const dir = tempDir();
    const toolbox = toolboxAt(dir);
    const watch = toolbox.watch();
    await expect(watch.ready).rejects.toMatchObject({ code: "not_a_repository" });
    expect(watch.closed).toBe(true);
    await expect(watch[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: "not_a_repository" });

    makeRepo({ dir });
    const again = toolbox.watch();
    expect(again.started).toBe(true);
    await again.ready;
    expect(again.status()?.state).toBe("watching");
  });

  it("makes the checks a tool makes before watching: a FIFO as info/exclude, on which git blocks, is refused", async () => {
    const repo = committedRepo();
    rmSync(join(repo.dir, ".git", "info", "exclude"), { force: true });
    execFileSync("mkfifo", [join(repo.dir, ".git", "info", "exclude")]);
    // The listing of ignored directories the watcher starts with would wait on it until killed.
    expect(
      spawnSync("git", ["ls-files", "--others", "--ignored", "--exclude-standard", "--directory"], {
        cwd: repo.dir,
        env: fixtureEnv(),
        timeout: 1_000,
      }).error?.message,
    ).toMatch(/ETIMEDOUT/);
    const toolbox = toolboxAt(repo.dir);
    const watch = toolbox.watch();
    await expect(watch.ready).rejects.toMatchObject({ code: "unsafe_repository", message: expect.stringContaining("is a FIFO") });
    expect(watch.closed).toBe(true);
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  });

  it("is refused once the session is closed, and the session's close ends every handle", async () => {
    const repo = committedRepo();
    const toolbox = createToolbox({ root: repo.dir });
    const watch = toolbox.watch();
    await watch.ready;
    const iterator = watch[Symbol.asyncIterator]();
    const pending = iterator.next();
    await toolbox.close();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(watch.closed).toBe(true);
    await expect(toolbox.watch().ready).rejects.toMatchObject({ code: "session_closed" });
  });
});

describe("the watcher follows the session", () => {
  it("moves with the root: root_changed, then paths relative to the new root", async () => {
    const repo = committedRepo();
    repo.write("pkg/c.txt", "see\n").commit("pkg");
    const toolbox = toolboxAt(repo.dir);
    const seen = changes(toolbox);
    const watch = toolbox.watch();
    await watch.ready;

    await moveRootAsAWriteTool(toolbox, join(repo.dir, "pkg"));
    const moved = await seen.next((event) => event.kind === "root_changed", "root_changed");
    expect(moved.event.category).toBe("watcher");
    // Everything the session keeps belongs to the old root.
    expect(moved.invalidated).toEqual(["discovery", "stateFiles", "configScan", "userConfig", "privateIndex", "instructions"]);
    expect(watch.status()?.location.root).toBe(realpathSync(join(repo.dir, "pkg")));

    repo.write("pkg/c.txt", "changed\n");
    const inside = await seen.next((event) => event.kind === "change", "the edit below the new root");
    expect(inside.event.paths).toEqual(["c.txt"]);
    expect(inside.root).toBe(realpathSync(join(repo.dir, "pkg")));
    repo.write("a.txt", "outside the new root\n");
    const outside = await seen.next((event) => event.kind === "change" && event.paths.some((path) => path.endsWith("/a.txt")), "the edit above it");
    expect(outside.event.paths).toEqual([join(realpathSync(repo.dir), "a.txt")]);
  });

  it("watches the instruction files the session loads, and reloads them when one changes: instructionsLoaded without a call", async () => {
    const repo = committedRepo();
    const home = tempDir("gitctx-home-");
    writeFileSync(join(home, "shared.md"), "Shared rule one.\n");
    repo.write("CLAUDE.md", "# Project\n\nUse tabs.\n\n@docs/style.md\n").write("docs/style.md", "Style one.\n").commit("instructions");
    const toolbox = toolboxAt(repo.dir, { allowedImportDirs: [home] });
    repo.write("CLAUDE.md", `# Project\n\nUse tabs.\n\n@docs/style.md\n@${join(home, "shared.md")}\n`);
    const loads: InstructionsLoadedEvent[] = [];
    toolbox.on("instructionsLoaded", (event) => loads.push(event));
    const watch = toolbox.watch();
    await watch.ready;
    const first = await toolbox.execute("load_instructions", {});
    expect(first.ok && first.text).toContain("Shared rule one.");
    expect(loads).toHaveLength(1);
    const real = (path: string) => realpathSync(path);
    await waitFor(
      () =>
        [real(join(repo.dir, "CLAUDE.md")), real(join(repo.dir, "docs/style.md")), real(join(home, "shared.md"))].every((path) =>
          watch.status()?.instructionPaths.includes(path),
        ),
      "the loaded files (the import outside the tree too) to be watched",
    );

    const seen = changes(toolbox);
    writeFileSync(join(home, "shared.md"), "Shared rule two.\n");
    const changed = await seen.next((event) => event.category === "instructions", "the change of the imported file outside the tree");
    expect(changed.instructions).toEqual([real(join(home, "shared.md"))]);
    // Reloaded at once: the embedder hears the new text before the agent asks.
    const reloaded = await waitFor(() => loads.find((event) => event.result.text.includes("Shared rule two.")), "the reload");
    expect(reloaded.files.map((file) => file.path)).toEqual(["CLAUDE.md", "docs/style.md", join(home, "shared.md")]);
    // The agent's next call is answered from what the reload read.
    const hits = toolbox.instructions.stats.hits;
    const next = await toolbox.execute("load_instructions", {});
    expect(next.ok && next.text).toContain("Shared rule two.");
    expect(toolbox.instructions.stats.hits).toBe(hits + 1);
  });
});

describe("changed since read", () => {
  it("records what the agent read and answers which files changed since, relative to the current root", async () => {
    const repo = committedRepo();
    const toolbox = toolboxAt(repo.dir);
    const watch = toolbox.watch();
    await watch.ready;
    await toolbox.reads.record("a.txt");
    await toolbox.reads.record("b.txt", { content: "bee\n" });
    expect(await toolbox.reads.changedSince()).toEqual([]);

    const seen = changes(toolbox);
    // The same size: only the content (hashed because the watcher reported the file) tells.
    repo.write("a.txt", "two\n");
    await seen.next((event) => event.paths.includes("a.txt"), "the edit");
    const changed = await toolbox.reads.changedSince();
    expect(changed.map((check) => [check.path, check.status])).toEqual([["a.txt", "modified"]]);
    repo.remove("b.txt");
    expect((await toolbox.reads.check(["b.txt"])).map((check) => check.status)).toEqual(["deleted"]);
  });
});

describe("a process that watches", () => {
  it("exits by itself once the session is closed: the watcher leaves no handle open", async () => {
    const repo = committedRepo();
    const script = `
      import { writeFileSync } from "node:fs";
      import { join } from "node:path";
      const { createToolbox } = await import(${JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, "dist", "index.js")).href)});
      const root = process.argv[1];
      const toolbox = createToolbox({ root });
      const watch = toolbox.watch();
      await watch.ready;
      const seen = new Promise((resolve) => watch.on((event) => { if (event.paths.includes("a.txt")) resolve(event); }));
      writeFileSync(join(root, "a.txt"), "changed\\n");
      const event = await seen;
      await toolbox.close();
      console.log(JSON.stringify({ kind: event.kind, closed: watch.closed }));
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script, repo.dir], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const timer = setTimeout(() => child.kill("SIGKILL"), DEADLINE_MS);
    const code = await exited;
    clearTimeout(timer);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ kind: "change", closed: true });
  });
});
