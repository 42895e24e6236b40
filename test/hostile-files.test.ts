/**
 * Files a hostile repository controls, round three: an index (or packed-refs, or a work tree file) of gigabytes
 * that would abort Node if read whole, alternates written the ways git reads and a naive check does not, and the
 * special files repository config and legacy remote files name. Each attack is first shown to work on plain git
 * (or, for a crash of the host, on the unbounded read gitctx used to make, in a child process), then gitctx is shown
 * to answer every tool with a typed error at once, or with what plain git answers without the hostile file.
 */
import { spawnSync } from "node:child_process";
import { realpathSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyCommandInRepository, createToolbox, createWatcher, type ToolResult } from "../src/index.js";
import { MAX_INDEX_BYTES } from "../src/git/file-limits.js";
import { forEachLine, readRegularFile, readWholeRegularFile } from "../src/git/read-file.js";
import { makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const TOOLS: Array<[string, Record<string, unknown>]> = [
  ["git_status", {}],
  ["git_diff", {}],
  ["git_log", { count: 3 }],
  ["git_show", { commit: "HEAD" }],
  ["git_blame", { path: "a.txt" }],
  ["git_context", {}],
  ["enter_worktree", { name: "probe" }],
];

function committed(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "alpha\n").write("b.txt", "beta\n");
  repo.commit("first");
  return repo;
}

/** Every tool, one after the other (enter_worktree writes), in a toolbox that may write. */
async function every(root: string): Promise<ToolResult[]> {
  const toolbox = createToolbox({ root, mode: "workspace-write" });
  try {
    const results: ToolResult[] = [];
    for (const [tool, input] of TOOLS) results.push(await toolbox.execute(tool, input));
    return results;
  } finally {
    await toolbox.close();
  }
}

function codes(results: ToolResult[]): string[] {
  return [...new Set(results.map((result) => (result.ok ? "ok" : result.error.code)))];
}

function message(result: ToolResult | undefined): string {
  return result === undefined || result.ok ? "" : result.error.message;
}

/** The hook's verdict on a plain read, and why. */
async function hook(root: string): Promise<{ verdict: string; reasons: string }> {
  const classified = await classifyCommandInRepository("git status", { root });
  return { verdict: classified.verdict, reasons: JSON.stringify(classified) };
}

const GIB = 1024 * 1024 * 1024;

/** The read gitctx made before: the file's size asked of one read call. Run in a child, it aborts Node. */
const UNBOUNDED_READ = `
const { open } = require("node:fs/promises");
(async () => {
  const handle = await open(process.argv[1], "r");
  const { size } = await handle.stat();
  const buffer = Buffer.allocUnsafe(size);
  await handle.read(buffer, 0, size, null);
  console.log("read", size);
})().catch((error) => { console.log("rejected", error.code); });
`;

describe("files of gigabytes that would crash the host", () => {
  it("a sparse 3 GiB .git/index: read whole it aborts Node; every tool, the watcher and the hook answer at once", async () => {
    const repo = committed();
    const index = join(repo.dir, ".git", "index");
    rmSync(index);
    truncateSync(writeEmpty(index), 3 * GIB);
    // Plain git refuses it as an index; read whole in one call, as gitctx did, it aborts the process.
    expect(plainGit(repo.dir, ["status"]).stderr).toMatch(/index file|bad signature/);
    const child = spawnSync(process.execPath, ["-e", UNBOUNDED_READ, index], { encoding: "utf8" });
    expect(child.signal).toBe("SIGABRT");
    expect(child.stderr).toContain("IsInt32");

    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain(`${join(realpathSync(repo.dir), ".git", "index")} is 3072 MiB, far larger than git ever makes it`);
    expect((await hook(repo.dir)).verdict).toBe("ask");
    expect((await hook(repo.dir)).reasons).toContain("3072 MiB");

    // The watcher reads the index itself: it starts, and sees the index as one it cannot read, without crashing.
    const watcher = createWatcher({ location: { root: realpathSync(repo.dir), topLevel: realpathSync(repo.dir), gitDir: realpathSync(join(repo.dir, ".git")) } });
    try {
      await watcher.ready;
      expect(watcher.status().state).toBe("watching");
    } finally {
      await watcher.close();
    }
  });

  it("the readers refuse a bound Node cannot read, and report a file past theirs instead of reading it", async () => {
    const big = join(tempDir(), "big");
    truncateSync(writeEmpty(big), 3 * GIB);
    await expect(readRegularFile(big, 3 * GIB)).rejects.toThrow(RangeError);
    expect(await readWholeRegularFile(big, MAX_INDEX_BYTES)).toEqual({ kind: "too_large", size: 3 * GIB });
    // A prefix is a prefix, read in chunks far below the 2^31-1 bytes of one call.
    expect((await readRegularFile(big, 16 * 1024 * 1024))?.length).toBe(16 * 1024 * 1024);
    expect(await forEachLine(big, 1024 * 1024, 64 * 1024, () => {})).toBe("too_large");
  });

  it("a sparse 3 GiB packed-refs (git maps it): the watcher starts, the tools refuse at once, never a crash", async () => {
    const repo = committed();
    const packed = join(repo.dir, ".git", "packed-refs");
    truncateSync(writeEmpty(packed), 3 * GIB);
    const child = spawnSync(process.execPath, ["-e", UNBOUNDED_READ, packed], { encoding: "utf8" });
    expect(child.signal).toBe("SIGABRT");
    const watcher = createWatcher({ location: { root: realpathSync(repo.dir), topLevel: realpathSync(repo.dir), gitDir: realpathSync(join(repo.dir, ".git")) } });
    try {
      await watcher.ready;
      expect(watcher.status().state).toBe("watching");
    } finally {
      await watcher.close();
    }
    // git reads it through (for seconds) and then fails on it; gitctx refuses it for its size before git runs.
    expect(plainGit(repo.dir, ["show", "-s"]).stderr).toContain("unterminated line in .git/packed-refs");
    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain("packed-refs is 3072 MiB");
  }, 180_000);

  it("a staged file swapped for a sparse 3 GiB one before the first commit: blame says too_large, the host lives", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "alpha\n");
    repo.git(["add", "a.txt"]);
    truncateSync(join(repo.dir, "a.txt"), 3 * GIB);
    const child = spawnSync(process.execPath, ["-e", UNBOUNDED_READ, join(repo.dir, "a.txt")], { encoding: "utf8" });
    expect(child.signal).toBe("SIGABRT");
    const toolbox = createToolbox({ root: repo.dir });
    const blame = await toolbox.execute("git_blame", { path: "a.txt" });
    const backwards = await toolbox.execute("git_blame", { path: "a.txt", start_line: 5, end_line: 2 });
    await toolbox.close();
    expect(blame.ok ? "ok" : blame.error.code).toBe("too_large");
    expect(message(blame)).toMatch(/a\.txt is 3072 MiB, more than the 128 MiB gitctx blames without history/);
    expect(backwards.ok ? "ok" : backwards.error.code).toBe("invalid_input");
  });

  it("blame before the first commit still reads a long file's window and its length exactly", async () => {
    const repo = makeRepo();
    repo.write("a.txt", Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    repo.git(["add", "a.txt"]);
    const toolbox = createToolbox({ root: repo.dir });
    const window = await toolbox.execute("git_blame", { path: "a.txt", start_line: 990, end_line: 1000 });
    const past = await toolbox.execute("git_blame", { path: "a.txt", start_line: 1001 });
    await toolbox.close();
    const lines = window.ok ? (window.data as { lines: Array<{ line: number; content: string }> }).lines : [];
    expect(lines.map((line) => line.content)).toEqual(Array.from({ length: 11 }, (_, i) => `line ${990 + i}`));
    expect(message(past)).toContain("has only 1000 lines");
  });
});

function writeEmpty(path: string): string {
  writeFileSync(path, "");
  return path;
}

