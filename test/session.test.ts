/**
 * The session a toolbox is: what it owns (root, discovery, caches, the private directory, git processes), its
 * read/write gate, and that close() gives every piece back.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolbox, listTools } from "../src/index.js";
import { ReadWriteGate } from "../src/session/gate.js";
import { isAlive, makeRepo, tempDir } from "./fixtures/repo.js";
import { until } from "./fixtures/mcp.js";

/** Each test gets its own TMPDIR, so the private directories a toolbox makes can be counted exactly. */
let tmp: string;
let savedTmp: string | undefined;
beforeEach(() => {
  savedTmp = process.env.TMPDIR;
  tmp = tempDir("gitctx-session-tmp-");
  process.env.TMPDIR = tmp;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

function privateAreas(): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith("gitctx-private-"));
}

function dirtyRepo() {
  const repo = makeRepo();
  repo.write("a.txt", "one\n");
  repo.commit("first");
  repo.write("a.txt", "two\n");
  return repo;
}

/** A `git` that writes its pid to `pidFile`, then waits forever: a call through it hangs until it is stopped. */
function hangingGit(pidFile: string): string {
  const dir = tempDir("gitctx-hanging-git-");
  const path = join(dir, "git");
  writeFileSync(path, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 1000\n`);
  chmodSync(path, 0o755);
  return dir;
}

describe("close()", () => {
  it("removes the private directory (git's HOME and the index copies) and is safe to call twice", async () => {
    const repo = dirtyRepo();
    const toolbox = createToolbox({ root: repo.dir });
    expect(privateAreas()).toEqual([]);
    const diff = await toolbox.execute("git_diff", {});
    expect(diff.ok).toBe(true);
    // git's HOME and the private index copy `git diff` ran with live in the session's own directory.
    expect(privateAreas()).toHaveLength(1);
    expect(readdirSync(join(tmp, privateAreas()[0]!)).some((name) => name.startsWith("scratch-"))).toBe(true);
    await toolbox.close();
    expect(privateAreas()).toEqual([]);
    await toolbox.close();
    expect(toolbox.closed).toBe(true);
  });

  it("stops a call in flight: its git process is killed and it answers session_closed", async () => {
    const repo = dirtyRepo();
    const pidFile = join(tempDir(), "pid");
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: hangingGit(pidFile) });
    const call = toolbox.execute("git_status", {});
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"));
    const pid = Number(readFileSync(pidFile, "utf8"));
    await toolbox.close();
    const result = await call;
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("session_closed");
    await until(() => !isAlive(pid));
    expect(privateAreas()).toEqual([]);
  });

  it("answers every later call with session_closed at once", async () => {
    const repo = dirtyRepo();
    const toolbox = createToolbox({ root: repo.dir });
    await toolbox.close();
    const result = await toolbox.execute("git_status", {});
    expect(result).toEqual({
      ok: false,
      tool: "git_status",
      error: {
        code: "session_closed",
        message: "This toolbox was closed; it takes no more calls.",
        hint: "Create a new toolbox (createToolbox) for further calls.",
      },
    });
    expect(privateAreas()).toEqual([]);
  });

  it("leaves nothing when the toolbox never ran git", async () => {
    const toolbox = createToolbox({ root: tempDir() });
    expect(toolbox.tools.length).toBeGreaterThan(0);
    await toolbox.close();
    expect(privateAreas()).toEqual([]);
  });
});

describe("the session's root and repository", () => {
  it("keeps the root it was given and finds the repository lazily, once per root", async () => {
    const repo = dirtyRepo();
    mkdirSync(join(repo.dir, "src"));
    const toolbox = createToolbox({ root: join(repo.dir, "src") });
    try {
      expect(toolbox.root).toBe(join(repo.dir, "src"));
      expect(toolbox.originalRoot).toBe(toolbox.root);
      // Nothing was looked for yet: no git ran, so no private directory exists.
      expect(privateAreas()).toEqual([]);
      const paths = await toolbox.paths();
      expect(paths.prefix).toBe("src");
      expect(paths.topLevel).toBe(paths.commonDir.replace(/\/\.git$/, ""));
      expect(await toolbox.paths()).toBe(paths);
    } finally {
      await toolbox.close();
    }
  });

  it("reports not_a_repository outside a repository, and finds one made later", async () => {
    const dir = tempDir();
    const toolbox = createToolbox({ root: dir });
    try {
      const before = await toolbox.execute("git_status", {});
      expect(before.ok ? "ok" : before.error.code).toBe("not_a_repository");
      makeRepo({ dir });
      const after = await toolbox.execute("git_status", {});
      expect(after.ok).toBe(true);
    } finally {
      await toolbox.close();
    }
  });

  it("describes what each tool requires", () => {
    for (const tool of listTools()) expect(["none", "workspace", "repository"]).toContain(tool.requires);
    expect(listTools().find((tool) => tool.name === "git_status")?.requires).toBe("repository");
  });

  it("drops caches by name, and every cache with all", async () => {
    const repo = dirtyRepo();
    const toolbox = createToolbox({ root: repo.dir });
    try {
      const first = await toolbox.paths();
      await toolbox.invalidate("configScan");
      expect(await toolbox.paths()).toBe(first);
      await toolbox.invalidate("all");
      const again = await toolbox.paths();
      expect(again).not.toBe(first);
      expect(again).toEqual(first);
      expect((await toolbox.execute("git_diff", {})).ok).toBe(true);
      await toolbox.invalidate("privateIndex");
      expect((await toolbox.execute("git_diff", {})).ok).toBe(true);
    } finally {
      await toolbox.close();
    }
  });
});

describe("a call's input", () => {
  it("reads an empty input as the defaults on every call, never sharing one object between calls", async () => {
    const repo = dirtyRepo();
    const given: object[] = [];
    const read: unknown[] = [];
    const toolbox = createToolbox({
      root: repo.dir,
      authorize: (_tool, input) => {
        given.push(input as object);
        read.push({ ...(input as object) });
        // A caller's authorize may change what it is handed (its own call then runs so): no later call may see it.
        (input as { untracked?: string }).untracked = "no";
        return true;
      },
    });
    try {
      await toolbox.execute("git_status", {});
      await toolbox.execute("git_status");
      await toolbox.execute("git_status", { offset: 1 });
      const defaults = { short: true, untracked: "all", offset: 0 };
      expect(read).toEqual([defaults, defaults, { ...defaults, offset: 1 }]);
      expect(given[0]).not.toBe(given[1]);
      // A bad input is still refused, before authorize.
      const bad = await toolbox.execute("git_status", { untracked: "some" });
      expect(bad.ok ? undefined : bad.error.code).toBe("invalid_input");
      expect(read).toHaveLength(3);
    } finally {
      await toolbox.close();
    }
  });
});

describe("the read/write gate", () => {
  /** A task that records when it starts and ends, and finishes when told to. */
  function task(log: string[], name: string) {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    return {
      finish: () => finish(),
      run: async () => {
        log.push(`start ${name}`);
        await done;
        log.push(`end ${name}`);
      },
    };
  }

  it("runs reads together; a write waits for them, runs alone, and holds the calls that come after it", async () => {
    const gate = new ReadWriteGate();
    const log: string[] = [];
    const [r1, r2, w, r3] = [task(log, "r1"), task(log, "r2"), task(log, "w"), task(log, "r3")];
    const calls = [gate.read(r1.run), gate.read(r2.run), gate.write(w.run), gate.read(r3.run)];
    await until(() => log.length === 2);
    expect(log).toEqual(["start r1", "start r2"]);
    expect(gate.active).toBe(2);
    r1.finish();
    await until(() => log.includes("end r1"));
    // The write still waits for r2, and r3 waits behind the write.
    expect(log).toEqual(["start r1", "start r2", "end r1"]);
    r2.finish();
    await until(() => log.includes("start w"));
    expect(log.slice(3)).toEqual(["end r2", "start w"]);
    w.finish();
    await until(() => log.includes("start r3"));
    expect(log.slice(5)).toEqual(["end w", "start r3"]);
    r3.finish();
    await Promise.all(calls);
  });

  it("runs two writes one after the other, and lets a failing task free the gate", async () => {
    const gate = new ReadWriteGate();
    const log: string[] = [];
    const [w1, w2] = [task(log, "w1"), task(log, "w2")];
    const first = gate.write(w1.run);
    const failing = gate.write(async () => {
      log.push("fail");
      throw new Error("boom");
    });
    const second = gate.write(w2.run);
    await until(() => log.length === 1);
    expect(log).toEqual(["start w1"]);
    w1.finish();
    await expect(failing).rejects.toThrow("boom");
    await until(() => log.includes("start w2"));
    w2.finish();
    await Promise.all([first, second]);
    expect(log).toEqual(["start w1", "end w1", "fail", "start w2", "end w2"]);
    expect(gate.active).toBe(0);
  });

  it("shares the private index copy between concurrent diffs without ever removing one in use", async () => {
    // A copy was once retired (and deleted) between being picked and being counted as used: a concurrent
    // git diff then ran with a missing index and answered "no changes". Every round here changes the index, so
    // copies are made and retired while diffs are running.
    const repo = dirtyRepo();
    const toolbox = createToolbox({ root: repo.dir });
    try {
      for (let round = 0; round < 25; round++) {
        repo.write(`staged-${round}.txt`, `${round}\n`);
        repo.git(["add", `staged-${round}.txt`]);
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) => toolbox.execute("git_diff", i % 3 === 0 ? {} : i % 3 === 1 ? { stat: true } : { path: "a.txt" })),
        );
        for (const result of results) {
          expect(result.ok && result.data.files.map((file) => file.path)).toEqual(["a.txt"]);
        }
      }
    } finally {
      await toolbox.close();
    }
    expect(privateAreas()).toEqual([]);
  });

  it("serves real concurrent tool calls of one session in parallel, each with its own answer", async () => {
    const repo = dirtyRepo();
    const toolbox = createToolbox({ root: repo.dir });
    try {
      const alone = await toolbox.execute("git_status", {});
      const together = await Promise.all(Array.from({ length: 20 }, (_, i) => toolbox.execute(i % 2 === 0 ? "git_status" : "git_log", {})));
      for (const [i, result] of together.entries()) {
        expect(result.ok).toBe(true);
        if (i % 2 === 0) expect(result).toEqual(alone);
      }
    } finally {
      await toolbox.close();
    }
  });
});
