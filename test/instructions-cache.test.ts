/**
 * What a session or a watcher needs from the loader: the exact list of files and directories a result depends
 * on (imported files included) with signatures, and a cache that answers from memory while they hold, sees
 * every kind of change, and never trusts a file changed too recently to show its next change.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileSignature } from "../src/git/file-signature.js";
import { InstructionsCache, isInstructionsResultCurrent, loadInstructions } from "../src/index.js";
import { monorepo, writeTree } from "./fixtures/instructions.js";
import { tempDir } from "./fixtures/repo.js";

describe("what a result depends on", () => {
  it("lists every directory listed and file read, imports included, with the signatures file-signature gives", async () => {
    const m = monorepo();
    writeTree(m.top, { "AGENTS.md": "See @docs/missing.md\n" });
    const result = await loadInstructions({ root: m.top, home: m.home, paths: ["packages/app/src/Button.tsx"] });
    const watched = new Map(result.watched.map((entry) => [entry.path, entry]));
    for (const dir of [
      m.top,
      join(m.top, ".claude"),
      join(m.top, ".claude/rules"),
      join(m.top, ".claude/rules/api"),
      join(m.top, "packages"),
      join(m.top, "packages/app"),
      join(m.top, "packages/app/src"),
      join(m.home, ".claude"),
    ]) {
      expect(watched.get(dir)?.kind, dir).toBe("directory");
    }
    for (const file of [
      "CLAUDE.md",
      "docs/style.md",
      ".claude/CLAUDE.md",
      "AGENTS.md",
      "CLAUDE.local.md",
      ".claude/rules/general.md",
      ".claude/rules/testing.md",
      "packages/app/CLAUDE.md",
    ]) {
      expect(watched.get(join(m.top, file))?.kind, file).toBe("file");
    }
    expect(watched.get(join(m.top, "docs/missing.md"))).toEqual({ path: join(m.top, "docs/missing.md"), kind: "missing", signature: "missing" });
    expect(watched.get(join(m.home, ".codex"))?.kind).toBe("directory");
    expect(watched.get(join(m.home, ".gemini"))).toBeUndefined();
    for (const entry of result.watched) expect(entry.signature, entry.path).toBe(await fileSignature(entry.path));
    expect(isInstructionsResultCurrent(result)).toBe(true);
    expect(result.operations.readdir).toBeGreaterThan(0);
  });
});

describe("InstructionsCache", () => {
  it("answers the same load from memory while nothing changed", async () => {
    const m = monorepo();
    const cache = new InstructionsCache({ settleMs: 0 });
    const options = { root: m.top, paths: ["packages/app/src/Button.tsx"] };
    const first = await cache.load(options);
    const second = await cache.load(options);
    expect(second).toBe(first);
    expect(cache.stats).toEqual({ hits: 1, loads: 1 });
  });

  it("sees an edited import, a new file in a watched directory, a created import target and a removed file", async () => {
    const m = monorepo();
    writeTree(m.top, { "AGENTS.md": "Later: @docs/later.md\n" });
    const cache = new InstructionsCache({ settleMs: 0 });
    const options = { root: m.top, paths: ["packages/app/src/Button.tsx"] };
    await cache.load(options);

    writeFileSync(join(m.top, "docs/style.md"), "Tabs, not spaces, from now on.\n");
    expect((await cache.load(options)).text).toContain("Tabs, not spaces, from now on.");

    writeFileSync(join(m.top, "packages/app/src/CLAUDE.md"), "Source folder rules.\n");
    expect((await cache.load(options)).files.map((file) => file.path)).toContain("packages/app/src/CLAUDE.md");

    writeFileSync(join(m.top, "docs/later.md"), "Written after the first load.\n");
    expect((await cache.load(options)).text).toContain("Written after the first load.");

    rmSync(join(m.top, "CLAUDE.local.md"));
    const last = await cache.load(options);
    expect(last.files.map((file) => file.path)).not.toContain("CLAUDE.local.md");
    expect(cache.stats).toEqual({ hits: 0, loads: 5 });
    expect(await cache.load(options)).toBe(last);
  });

  it("with revalidate: false trusts its copy until invalidate names a changed path", async () => {
    const m = monorepo();
    const cache = new InstructionsCache({ settleMs: 0 });
    const options = { root: m.top };
    const first = await cache.load(options, { revalidate: false });
    writeFileSync(join(m.top, "AGENTS.md"), "Changed behind the cache's back.\n");
    expect(await cache.load(options, { revalidate: false })).toBe(first);
    cache.invalidate([join(m.top, "unrelated", "file.ts")]);
    expect(await cache.load(options, { revalidate: false })).toBe(first);
    cache.invalidate([join(m.top, "AGENTS.md")]);
    expect((await cache.load(options, { revalidate: false })).text).toContain("Changed behind the cache's back.");
    writeFileSync(join(m.top, ".claude/rules/new.md"), "New rule.\n");
    cache.invalidate([join(m.top, ".claude/rules/new.md")]);
    expect((await cache.load(options, { revalidate: false })).text).toContain("New rule.");
    expect(cache.stats.loads).toBe(3);
    cache.invalidate();
    await cache.load(options, { revalidate: false });
    expect(cache.stats).toEqual({ hits: 2, loads: 4 });
  });

  it("does not reuse a result read within the settle window of a change", async () => {
    const dir = writeTree(tempDir(), { "AGENTS.md": "Fresh.\n" });
    // A window no slow machine outlasts between the write and the load (the default is the file system's 20 ms).
    const cache = new InstructionsCache({ settleMs: 60_000 });
    const first = await cache.load({ root: dir });
    expect(first.settled).toBe(false);
    const second = await cache.load({ root: dir });
    expect(second).not.toBe(first);
    expect(cache.stats).toEqual({ hits: 0, loads: 2 });
  });

  it("reuses unchanged listings and parsed files for a load with other paths", async () => {
    const m = monorepo();
    const cache = new InstructionsCache({ settleMs: 0 });
    await cache.load({ root: m.top, paths: ["packages/app/src/Button.tsx"] });
    const options = { root: m.top, paths: ["packages/app/src/Button.tsx", "packages/api/src/server.ts"] };
    const warm = await cache.load(options);
    const cold = await loadInstructions(options);
    expect(warm.text).toBe(cold.text);
    expect(warm.operations.readdir).toBeLessThan(cold.operations.readdir);
    expect(warm.operations.readdir).toBe(2);
  });
});
