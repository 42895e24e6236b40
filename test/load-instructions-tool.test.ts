/**
 * The load_instructions tool and the session around it: the tool answers what the library answers (minus the
 * contents the text repeats), in a repository or in a plain directory; its paths are confined like every
 * tool's; the embedder's loader options reach it and no input can change them; the session caches the result,
 * emits instructionsLoaded only when files were read, and invalidate("instructions") empties the cache.
 */
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createToolbox,
  loadInstructions,
  type InstructionsLoadedEvent,
  type InstructionsResult,
  type LoadInstructionsData,
  type ToolResult,
} from "../src/index.js";
import { loadInstructionsTool } from "../src/tools/load-instructions.js";
import { monorepo, writeTree } from "./fixtures/instructions.js";
import { makeRepo, tempDir } from "./fixtures/repo.js";

function expectOk(result: ToolResult): Extract<ToolResult, { ok: true }> {
  if (!result.ok) expect.fail(`expected success, got ${JSON.stringify(result.error)}`);
  return result;
}

/** The data the tool must give for a library result: without text and contents, `null` for `undefined`. */
function dataOf(result: InstructionsResult): unknown {
  const { text: _text, files, getAll, onRequest, ...rest } = result;
  return JSON.parse(
    JSON.stringify({
      ...rest,
      files: files.map(({ content: _content, rule, ...file }) =>
        rule === undefined ? file : { ...file, rule: { ...rule, alwaysApply: rule.alwaysApply ?? null, description: rule.description ?? null } },
      ),
      getAll: getAll ?? null,
      onRequest: onRequest.map((entry) => ({ ...entry, description: entry.description ?? null })),
    }),
  );
}

/** A result as the loader gives it, without what depends on when it was read (signatures, file-system calls). */
function stable(value: unknown): unknown {
  const { watched: _watched, operations: _operations, settled: _settled, ...rest } = value as Record<string, unknown>;
  return rest;
}

describe("load_instructions", () => {
  it("gives the library's text and its result minus the contents, which the output schema describes exactly", async () => {
    const m = monorepo();
    const toolbox = createToolbox({ root: m.top, home: m.home, managedDir: m.managed });
    const input = {
      paths: ["packages/app/src/Button.tsx", "packages/api/src/server.ts"],
      formats: ["claude", "agents", "cursor", "copilot"] as const,
      explain: true,
    };
    const result = expectOk(await toolbox.execute("load_instructions", { ...input, formats: [...input.formats] }));
    const library = await loadInstructions({
      root: m.top,
      home: m.home,
      managedDir: m.managed,
      topLevel: m.top,
      ...input,
      formats: [...input.formats],
    });
    expect(result.text).toBe(`${library.text}\n${library.explain}`);
    expect(stable(JSON.parse(JSON.stringify(result.data)))).toEqual(stable(dataOf(library)));
    const data = result.data as LoadInstructionsData;
    // The same files and directories, sorted by path: the loader lists them as its reads complete.
    const paths = data.watched.map((entry) => entry.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths).toEqual(library.watched.map((entry) => entry.path).sort());
    expect(JSON.stringify(data)).not.toContain("Components are function components.");
    expect(data.files.some((file) => file.rule !== undefined && file.rule.description === null)).toBe(true);
    // What MCP clients check structuredContent against: strict, so a field the schema misses fails here.
    expect(() => loadInstructionsTool.outputSchema!.parse(JSON.parse(JSON.stringify(data)))).not.toThrow();
    await toolbox.close();
  });

  it("states a cut in the data: getAll names the budget that gets everything", async () => {
    const m = monorepo();
    const toolbox = createToolbox({ root: m.top });
    const data = expectOk(await toolbox.execute("load_instructions", { paths: ["packages/app/src/Button.tsx"], budget: 60 }))
      .data as LoadInstructionsData;
    expect(data.cut.length).toBeGreaterThan(0);
    expect(data.getAll).toMatch(/^load_instructions with the same paths and "budget": \d+, or read the files$/);
    expect(data.tokens).toMatchObject({ budget: 60 });
    expect(data.tokens.rendered).toBeLessThanOrEqual(60);
    expect(() => loadInstructionsTool.outputSchema!.parse(JSON.parse(JSON.stringify(data)))).not.toThrow();
  });

  it("works in a directory that is not a repository: the root is the top, no git runs", async () => {
    const dir = writeTree(tempDir(), { "AGENTS.md": "Plain folder rules.\n", "notes/AGENTS.md": "Notes: short lines.\n" });
    // A git that fails loudly: the tool must not need one.
    const toolbox = createToolbox({ root: dir, gitSearchPath: tempDir("gitctx-no-git-") });
    const result = expectOk(await toolbox.execute("load_instructions", { paths: ["notes/today.md"] }));
    const data = result.data as LoadInstructionsData;
    expect(data.root).toBe(realpathSync(dir));
    expect(data.topLevel).toBe(realpathSync(dir));
    expect(data.files.map((file) => `${file.path} ${file.scope}`)).toEqual(["AGENTS.md project", "notes/AGENTS.md subdirectory"]);
    expect(result.text).toContain("--- notes/AGENTS.md (subdirectory, for notes/today.md) ---\n│ Notes: short lines.\n");
    // A repository tool in the same session still says there is none.
    const status = await toolbox.execute("git_status", {});
    expect(status.ok ? "ok" : status.error.code).toBe("not_a_repository");
  });

  it("walks from the repository's top level when the workspace is a subdirectory, paths relative to the workspace", async () => {
    const m = monorepo();
    const toolbox = createToolbox({ root: join(m.top, "packages", "app") });
    const data = expectOk(await toolbox.execute("load_instructions", { paths: ["src/Button.tsx"] })).data as LoadInstructionsData;
    expect(data.topLevel).toBe(realpathSync(m.top));
    expect(data.paths).toEqual(["src/Button.tsx"]);
    expect(data.files.map((file) => file.path)).toContain("../../CLAUDE.md");
    expect(data.files.map((file) => file.path)).toContain("CLAUDE.md");
  });

  it("answers an empty directory with no files, not an error", async () => {
    const result = expectOk(await createToolbox({ root: tempDir() }).execute("load_instructions", {}));
    expect(result.text).toBe("No instruction files found (formats: claude, agents).\n");
    expect((result.data as LoadInstructionsData).files).toEqual([]);
  });

  it("refuses paths outside the workspace: ../, an absolute path elsewhere, a symlink leading out", async () => {
    const base = tempDir();
    const outside = writeTree(join(base, "outside"), { "CLAUDE.md": "OUTSIDE-MARKER\n" });
    const root = writeTree(join(base, "root"), { "CLAUDE.md": "Inside.\n" });
    symlinkSync(outside, join(root, "ext"));
    // The attack: through the link, the outside file is right there.
    expect(readFileSync(join(root, "ext", "CLAUDE.md"), "utf8")).toBe("OUTSIDE-MARKER\n");
    const toolbox = createToolbox({ root });
    for (const [given, field] of [
      ["../outside/x.ts", "paths[0]"],
      [join(outside, "x.ts"), "paths[0]"],
      ["ext/x.ts", "paths[0]"],
    ] as const) {
      const result = await toolbox.execute("load_instructions", { paths: [given] });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe("path_outside_workspace");
        expect(result.error.message).toBe(`${field} "${given}" is outside the workspace ${realpathSync(root)}.`);
      }
      expect(JSON.stringify(result)).not.toContain("OUTSIDE-MARKER");
    }
    const second = await toolbox.execute("load_instructions", { paths: ["ok.ts", "../x"] });
    expect(second.ok ? "" : second.error.message).toMatch(/^paths\[1\] "\.\.\/x" is outside the workspace/);
    // A path inside that does not exist yet (a file about to be created) is fine.
    expectOk(await toolbox.execute("load_instructions", { paths: ["new/dir/file.ts", "."] }));
  });

  it("names every bad field of its input", async () => {
    const toolbox = createToolbox({ root: tempDir() });
    const result = await toolbox.execute("load_instructions", { paths: [""], formats: ["vim"], budget: 0, home: "/" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_input");
    expect(result.error.message).toContain("formats.0: Invalid option");
    expect(result.error.message).toContain("budget: Too small");
    expect(result.error.message).toContain('unknown field "home"');
    expect(result.error.hint).toBe("budget takes a whole number from 1 to 1000000. load_instructions accepts: paths, formats, budget, explain.");
    const empty = await toolbox.execute("load_instructions", { paths: [""] });
    expect(empty.ok ? "" : empty.error.message).toBe("paths[0] is empty.");
  });

  it("fails with path_not_found when the workspace root does not exist", async () => {
    const result = await createToolbox({ root: join(tempDir(), "gone") }).execute("load_instructions", {});
    expect(result.ok ? "ok" : result.error.code).toBe("path_not_found");
  });
});

describe("the embedder's loader options", () => {
  it("reads the user's home only when given as home", async () => {
    const m = monorepo();
    const without = expectOk(await createToolbox({ root: m.top }).execute("load_instructions", {}));
    expect(without.text).not.toContain("User: British spelling.");
    const withHome = expectOk(await createToolbox({ root: m.top, home: m.home }).execute("load_instructions", {}));
    expect(withHome.text).toContain("--- ~/.claude/CLAUDE.md (user) ---\n│ User: British spelling.\n");
  });

  it("passes managedDir, instructionExcludes, allowedImportDirs and walkAboveTopLevel to the loader", async () => {
    const m = monorepo();
    writeTree(m.base, { "work/CLAUDE.md": "Above the repository.\n", "team/conventions.md": "Team conventions.\n" });
    writeTree(m.top, { "AGENTS.md": `Agents: see @${join(m.base, "team", "conventions.md")}\n` });
    const plain = expectOk(await createToolbox({ root: m.top }).execute("load_instructions", { paths: ["packages/legacy/x.js"] }));
    expect(plain.text).toContain("Legacy: do not touch.");
    expect(plain.text).not.toContain("Managed: never commit secrets.");
    expect(plain.text).not.toContain("Above the repository.");
    expect(plain.text).not.toContain("Team conventions.");
    const toolbox = createToolbox({
      root: m.top,
      managedDir: m.managed,
      instructionExcludes: ["**/packages/legacy/**"],
      allowedImportDirs: [join(m.base, "team")],
      walkAboveTopLevel: true,
    });
    const configured = expectOk(await toolbox.execute("load_instructions", { paths: ["packages/legacy/x.js"] }));
    expect(configured.text).toContain("Managed: never commit secrets.");
    expect(configured.text).not.toContain("Legacy: do not touch.");
    expect(configured.text).toContain("Above the repository.");
    expect(configured.text).toContain("Team conventions.");
    expect(toolbox.instructionSources).toEqual({
      managedDir: m.managed,
      excludes: ["**/packages/legacy/**"],
      allowedImportDirs: [join(m.base, "team")],
      walkAboveTopLevel: true,
    });
    expect(Object.isFrozen(toolbox.instructionSources)).toBe(true);
  });

  it("reports a relative home as the loader's invalid_input", async () => {
    const result = await createToolbox({ root: tempDir(), home: "relative/home" }).execute("load_instructions", {});
    expect(result.ok ? "" : `${result.error.code}: ${result.error.message}`).toBe(
      'invalid_input: home must be an absolute path, got "relative/home".',
    );
  });
});

describe("the session's instructions", () => {
  it("emits instructionsLoaded with the files for every load that read files, never for a cache hit", async () => {
    const m = monorepo();
    const toolbox = createToolbox({ root: m.top });
    const events: InstructionsLoadedEvent[] = [];
    toolbox.on("instructionsLoaded", (event) => events.push(event));
    const input = { paths: ["packages/app/src/Button.tsx"] };
    const first = expectOk(await toolbox.execute("load_instructions", input));
    expect(events).toHaveLength(1);
    expect(events[0]!.root).toBe(realpathSync(m.top));
    expect(events[0]!.paths).toEqual(["packages/app/src/Button.tsx"]);
    expect(events[0]!.files.map((file) => file.path)).toEqual((first.data as LoadInstructionsData).files.map((file) => file.path));
    // The event carries the files with their contents (the tool's data leaves those out).
    expect(events[0]!.files[0]!.content).toContain("TypeScript strict mode everywhere.");
    // Fresh files are not trusted to show their next change (coarse timestamps), so the first calls may read
    // again; once they settle, the same call is a hit. Every load is one event, every hit none.
    for (let calls = 0; toolbox.instructions.stats.hits === 0; calls++) {
      expect(calls, "no cache hit in 10,000 calls").toBeLessThan(10_000);
      expectOk(await toolbox.execute("load_instructions", input));
    }
    expect(events).toHaveLength(toolbox.instructions.stats.loads);
    const loads = toolbox.instructions.stats.loads;
    expectOk(await toolbox.execute("load_instructions", input));
    expect(toolbox.instructions.stats.loads).toBe(loads);
    expect(events).toHaveLength(loads);
  });

  it("reads again after invalidate('instructions') or 'all', and after a change on disk", async () => {
    const m = monorepo();
    const toolbox = createToolbox({ root: m.top });
    const events: InstructionsLoadedEvent[] = [];
    toolbox.on("instructionsLoaded", (event) => events.push(event));
    await toolbox.execute("load_instructions", {});
    await toolbox.invalidate("instructions");
    await toolbox.execute("load_instructions", {});
    await toolbox.invalidate("all");
    await toolbox.execute("load_instructions", {});
    expect(events).toHaveLength(3);
    expect(toolbox.instructions.stats.hits).toBe(0);
    writeFileSync(join(m.top, "AGENTS.md"), "Agents: changed.\n");
    expect(expectOk(await toolbox.execute("load_instructions", {})).text).toContain("Agents: changed.");
    expect(events).toHaveLength(4);
  });

  it("unregisters a listener with the function on() returned, and ignores a listener that throws", async () => {
    const dir = writeTree(tempDir(), { "AGENTS.md": "Rules.\n" });
    const toolbox = createToolbox({ root: dir });
    const seen: string[] = [];
    toolbox.on("instructionsLoaded", () => {
      throw new Error("a broken logger");
    });
    const off = toolbox.on("instructionsLoaded", () => seen.push("a"));
    toolbox.on("instructionsLoaded", () => seen.push("b"));
    expectOk(await toolbox.execute("load_instructions", {}));
    off();
    off();
    await toolbox.invalidate("instructions");
    expectOk(await toolbox.execute("load_instructions", {}));
    expect(seen).toEqual(["a", "b", "b"]);
  });

  it("keeps one cache per session: another toolbox reads for itself", async () => {
    const dir = writeTree(tempDir(), { "AGENTS.md": "Rules.\n" });
    const a = createToolbox({ root: dir });
    const b = createToolbox({ root: dir });
    await a.execute("load_instructions", {});
    await b.execute("load_instructions", {});
    expect(a.instructions).not.toBe(b.instructions);
    expect(a.instructions.stats.loads).toBe(1);
    expect(b.instructions.stats.loads).toBe(1);
  });

  it("works in a repository whose instruction files are committed, ignored or untracked alike", async () => {
    const repo = makeRepo();
    repo.write(".gitignore", "CLAUDE.local.md\n").write("CLAUDE.md", "Committed.\n").commit("init");
    repo.write("CLAUDE.local.md", "Ignored, personal.\n").write("AGENTS.md", "Untracked.\n");
    mkdirSync(join(repo.dir, "empty-dir"));
    const text = expectOk(await createToolbox({ root: repo.dir }).execute("load_instructions", {})).text;
    expect(text).toContain("Committed.");
    expect(text).toContain("Ignored, personal.");
    expect(text).toContain("Untracked.");
  });
});
