/**
 * The watcher on real files: edits, creations, deletions and renames of source files, an editor's atomic save,
 * a large file written in chunks, and instruction files (a loaded one edited, a new one in a subdirectory).
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WatcherOptions, WatchEvent } from "../src/index.js";
import { makeRepo, type TestRepo } from "./fixtures/repo.js";
import { watch, waitFor } from "./fixtures/watch.js";

function sourceRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("src/app.ts", "export const app = 1;\n").write("README.md", "# demo\n").write("CLAUDE.md", "Be brief.\n").commit("initial");
  return repo;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(["directory", "file"] as const)("source files, %s granularity", (granularity) => {
  it("reports an edit, a creation, a rename and a deletion, one event each", async () => {
    const repo = sourceRepo();
    const { recorder } = await watch(repo, { granularity });

    let seq = recorder.seq;
    repo.write("src/app.ts", "export const app = 2;\n");
    const edit = await recorder.next((event) => event.category === "source", seq, "the edit");
    expect(edit).toMatchObject({ category: "source", kind: "change", paths: ["src/app.ts"], count: 1, summary: "file modified: src/app.ts" });

    seq = recorder.seq;
    repo.write("src/new.ts", "export const fresh = true;\n");
    const created = await recorder.next((event) => event.category === "source", seq, "the creation");
    expect(created).toMatchObject({ kind: "add", paths: ["src/new.ts"] });

    seq = recorder.seq;
    renameSync(join(repo.dir, "src/new.ts"), join(repo.dir, "src/renamed.ts"));
    const renamed = await recorder.next((event) => event.category === "source", seq, "the rename");
    expect(renamed).toMatchObject({
      kind: "rename",
      paths: ["src/new.ts", "src/renamed.ts"],
      count: 2,
      summary: "file renamed: src/new.ts -> src/renamed.ts",
    });

    seq = recorder.seq;
    rmSync(join(repo.dir, "src/renamed.ts"));
    const deleted = await recorder.next((event) => event.category === "source", seq, "the deletion");
    expect(deleted).toMatchObject({ kind: "unlink", paths: ["src/renamed.ts"] });

    // Nothing else was reported in between: one event per action.
    expect(recorder.events.filter((event) => event.category === "source").map((event) => event.kind)).toEqual(["change", "add", "rename", "unlink"]);
    // Events are plain data with increasing sequence numbers.
    const seqs = recorder.events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(JSON.parse(JSON.stringify(recorder.events))).toEqual(recorder.events);
  });

  it("reports an editor's atomic save (write a temporary file, rename it over the file) as one change", async () => {
    const repo = sourceRepo();
    const { recorder } = await watch(repo, { granularity });
    const seq = recorder.seq;
    // What vim, VS Code and JetBrains editors do with "safe write": a sibling temporary file renamed over the target.
    writeFileSync(join(repo.dir, "src/.app.ts.swp-tmp"), "export const app = 3;\n");
    renameSync(join(repo.dir, "src/.app.ts.swp-tmp"), join(repo.dir, "src/app.ts"));
    const event = await recorder.next((candidate) => candidate.category === "source", seq, "the atomic save");
    expect(event).toMatchObject({ kind: "change", paths: ["src/app.ts"] });
    // A later, unrelated change proves nothing about the temporary file is still on its way.
    const sentinel = recorder.seq;
    repo.write("sentinel.txt", "s\n");
    await recorder.next((candidate) => candidate.paths.includes("sentinel.txt"), sentinel, "the sentinel");
    expect(
      recorder
        .after(seq)
        .filter((candidate) => candidate.category === "source")
        .map((candidate) => candidate.paths),
    ).toEqual([["src/app.ts"], ["sentinel.txt"]]);
  });

  it("reports a large file written in chunks once, after the writes settle", async () => {
    const repo = sourceRepo();
    const { recorder } = await watch(repo, { granularity });
    const seq = recorder.seq;
    const fd = openSync(join(repo.dir, "big.bin"), "w");
    const chunk = Buffer.alloc(256 * 1024, 7);
    let lastWrite = 0;
    for (let i = 0; i < 12; i++) {
      writeSync(fd, chunk);
      lastWrite = Date.now();
      // Shorter than the 500 ms stability threshold: the file is still being written.
      await sleep(150);
    }
    closeSync(fd);
    const event = await recorder.next((candidate) => candidate.paths.includes("big.bin"), seq, "the large file");
    expect(event.kind).toBe("add");
    expect(Date.parse(event.time)).toBeGreaterThanOrEqual(lastWrite);
    const sentinel = recorder.seq;
    repo.write("sentinel.txt", "s\n");
    await recorder.next((candidate) => candidate.paths.includes("sentinel.txt"), sentinel, "the sentinel");
    expect(recorder.after(seq).filter((candidate) => candidate.paths.includes("big.bin"))).toHaveLength(1);
  });

  it("reports the files of a directory moved out of the tree as deleted, and of one moved in as created", async () => {
    const repo = sourceRepo();
    repo.write("pkg/one.ts", "1\n").write("pkg/deep/two.ts", "2\n").commit("pkg");
    const outside = makeRepo().dir;
    const { recorder } = await watch(repo, { granularity });
    let seq = recorder.seq;
    renameSync(join(repo.dir, "pkg"), join(outside, "pkg"));
    await waitFor(() => recorder.after(seq).filter((event) => event.kind === "unlink").length >= 2 || undefined, "both deletions");
    expect(
      recorder
        .after(seq)
        .flatMap((event) => event.paths)
        .sort(),
    ).toEqual(["pkg/deep/two.ts", "pkg/one.ts"]);

    seq = recorder.seq;
    renameSync(join(outside, "pkg"), join(repo.dir, "moved"));
    await waitFor(() => recorder.after(seq).filter((event) => event.kind === "add").length >= 2 || undefined, "both creations");
    expect(
      recorder
        .after(seq)
        .flatMap((event) => event.paths)
        .sort(),
    ).toEqual(["moved/deep/two.ts", "moved/one.ts"]);
  });
});

/**
 * Another process makes `count` directories under `under`, each with five files and a subdirectory with one,
 * every file written right after its directory's `mkdir`: the writes land while the watcher is still listing
 * the new directory and placing its watch (chokidar lists first, so a file made between the two was lost).
 * Returns the paths written.
 */
async function writeNewDirectories(dir: string, under: string, count: number): Promise<string[]> {
  const script = `
    const { mkdirSync, writeFileSync } = require("node:fs");
    const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end); };
    for (let i = 0; i < ${count}; i++) {
      mkdirSync("${under}/d" + i + "/deep", { recursive: true });
      for (let j = 0; j < 5; j++) { writeFileSync("${under}/d" + i + "/f" + j + ".txt", "x"); spin(1); }
      writeFileSync("${under}/d" + i + "/deep/g.txt", "x");
      spin(1);
    }`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", script], { cwd: dir, stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the writer exited with ${String(code)}`))));
  });
  return Array.from({ length: count }, (_, i) => [
    ...Array.from({ length: 5 }, (_, j) => `${under}/d${i}/f${j}.txt`),
    `${under}/d${i}/deep/g.txt`,
  ]).flat();
}

/** Every file of each round is reported once, as created; a failure names the files that were not. */
async function expectEveryNewFileReported(repo: TestRepo, options: Partial<WatcherOptions>): Promise<WatchEvent[]> {
  const { recorder } = await watch(repo, { bulkThreshold: 100_000, ...options });
  // Two rounds: one alone loses a file most of the time without the second listing, two almost always.
  for (const under of ["new", "more"]) {
    const seq = recorder.seq;
    const written = await writeNewDirectories(repo.dir, under, 150);
    const reported = (): string[] => recorder.after(seq).flatMap((event) => (event.kind === "add" ? event.paths : []));
    await waitFor(() => reported().length >= written.length || undefined, `${written.length} creations`).catch(() => undefined);
    expect(reported().sort()).toEqual(written.sort());
  }
  return recorder.events;
}

describe("files written into a directory as soon as it is made", () => {
  it.each(["directory", "file"] as const)("are all reported, at %s granularity", async (granularity) => {
    const repo = sourceRepo();
    await expectEveryNewFileReported(repo, { granularity });
  });

  it("are all reported while the tree is moved to polling at the watch cap, and after", async () => {
    const repo = sourceRepo();
    const events = await expectEveryNewFileReported(repo, { maxWatches: 4, pollingIntervalMs: 50 });
    expect(events.filter((event) => event.kind === "degraded")).toHaveLength(1);
  });
});

describe("instruction files", () => {
  it("classifies a loaded instruction file, its import outside the tree, and a new CLAUDE.md in a subdirectory", async () => {
    const repo = sourceRepo();
    const shared = makeRepo();
    shared.write("team.md", "Team rules.\n");
    const imported = join(shared.dir, "team.md");
    const { watcher, recorder } = await watch(repo, { instructionPaths: [join(repo.dir, "CLAUDE.md"), imported] });

    let seq = recorder.seq;
    repo.write("CLAUDE.md", "Be brief. Always.\n");
    const changed = await recorder.next((event) => event.paths.includes("CLAUDE.md"), seq, "the CLAUDE.md edit");
    expect(changed).toMatchObject({ category: "instructions", kind: "change", summary: "instruction file modified: CLAUDE.md" });

    seq = recorder.seq;
    writeFileSync(imported, "Team rules, revised.\n");
    const importedEvent = await recorder.next((event) => event.category === "instructions", seq, "the imported file's edit");
    // Outside the root: absolute.
    expect(importedEvent).toMatchObject({ kind: "change", paths: [imported.replace(/\\/g, "/")] });

    seq = recorder.seq;
    mkdirSync(join(repo.dir, "packages/api"), { recursive: true });
    repo.write("packages/api/CLAUDE.md", "API rules.\n");
    const created = await recorder.next((event) => event.paths.includes("packages/api/CLAUDE.md"), seq, "the new CLAUDE.md");
    expect(created).toMatchObject({ category: "instructions", kind: "add" });

    // The session adds it once its loader has read it; its edits stay instructions.
    await watcher.addPaths([join(repo.dir, "packages/api/CLAUDE.md")]);
    expect(watcher.status().instructionPaths).toContain(join(repo.dir, "packages/api/CLAUDE.md").replace(/\\/g, "/"));

    seq = recorder.seq;
    repo.write(".claude/rules/testing.md", "---\npaths: ['**/*.test.ts']\n---\nUse vitest.\n");
    repo.write(".mcp.json", "{}\n");
    const rule = await recorder.next((event) => event.category === "rules", seq, "the rule");
    const settings = await recorder.next((event) => event.category === "settings", seq, "the settings file");
    expect(rule.paths).toEqual([".claude/rules/testing.md"]);
    expect(settings.paths).toEqual([".mcp.json"]);
  });

  it("reports paths relative to the root when the root is a subdirectory, absolute outside it", async () => {
    const repo = sourceRepo();
    repo.write("packages/web/index.ts", "export {};\n").commit("web");
    const { watcher, recorder } = await watch(repo, {});
    await watcher.setRoot({ ...watcher.status().location, root: join(watcher.status().location.topLevel, "packages/web") });
    const seq = recorder.seq;
    repo.write("packages/web/index.ts", "export const web = 1;\n");
    repo.write("src/app.ts", "export const app = 9;\n");
    await waitFor(() => recorder.after(seq).filter((event) => event.category === "source").length >= 2 || undefined, "both edits");
    const paths = recorder
      .after(seq)
      .filter((event) => event.category === "source")
      .flatMap((event) => event.paths)
      .sort();
    expect(paths).toEqual([join(watcher.status().location.topLevel, "src/app.ts").replace(/\\/g, "/"), "index.ts"].sort());
  });
});
