import { realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, DEFAULT_INSTRUCTIONS_BUDGET, type ToolboxOptions, type ToolResult } from "../src/index.js";
import { cliEnv, type CliRun, requireBuiltCli, runCli } from "./fixtures/cli.js";
import { monorepo, writeTree } from "./fixtures/instructions.js";
import { tempDir } from "./fixtures/repo.js";

requireBuiltCli();

function gitctx(args: string[], options: { cwd?: string; home?: string } = {}): CliRun {
  return runCli(args, {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env: cliEnv(options.home !== undefined ? { HOME: options.home } : {}),
  });
}

async function tool(options: ToolboxOptions, input: Record<string, unknown>): Promise<ToolResult> {
  const toolbox = createToolbox(options);
  try {
    return await toolbox.execute("load_instructions", input);
  } finally {
    await toolbox.close();
  }
}

function textOf(result: ToolResult): string {
  if (!result.ok) expect.fail(JSON.stringify(result.error));
  return result.text;
}

/** The envelope without what depends on when and how the files were read (see `InstructionsResult.settled`). */
function timeless(value: unknown): unknown {
  const envelope = value as { ok: boolean; data?: Record<string, unknown> };
  if (envelope.data === undefined) return envelope;
  const { settled: _settled, operations: _operations, ...data } = envelope.data;
  return { ...envelope, data };
}

describe("gitctx instructions", () => {
  it("prints the tool's text for the paths given with --for, repeated or listed", async () => {
    const m = monorepo();
    const paths = ["packages/app/src/Button.tsx", "packages/api/src/server.ts"];
    const expected = textOf(await tool({ root: m.top }, { paths }));
    expect(expected).toContain("--- packages/app/CLAUDE.md (subdirectory, for packages/app/src/Button.tsx) ---");
    for (const args of [
      ["--for", paths[0]!, "--for", paths[1]!],
      ["--for", ...paths],
    ]) {
      expect(gitctx(["instructions", "--root", m.top, ...args])).toEqual({ status: 0, stdout: expected, stderr: "" });
    }
  });

  it("passes --formats, --budget and --explain, and takes the current directory as the workspace", async () => {
    const m = monorepo();
    const input = { paths: ["packages/app/src/Button.tsx"], formats: ["cursor", "copilot"], budget: 120, explain: true };
    const expected = textOf(await tool({ root: m.top }, input));
    expect(expected).toContain("Looked at ");
    const run = gitctx(["instructions", "--for", "packages/app/src/Button.tsx", "--formats", "cursor, copilot", "--budget", "120", "--explain"], {
      cwd: m.top,
    });
    expect(run).toEqual({ status: 0, stdout: expected, stderr: "" });
  });

  it("prints the whole result envelope with --format json", async () => {
    const m = monorepo();
    const expected = await tool({ root: m.top }, { paths: ["packages/api/src/server.ts"] });
    const run = gitctx(["instructions", "--root", m.top, "--for", "packages/api/src/server.ts", "--format", "json"]);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe("");
    expect(timeless(JSON.parse(run.stdout))).toEqual(timeless(JSON.parse(JSON.stringify(expected))));
  });

  it("reads the user's files only with --home, a relative one from the current directory", async () => {
    const m = monorepo();
    // The process's own HOME holds user files too: they are not read without --home.
    const plain = gitctx(["instructions", "--root", m.top], { home: m.home });
    expect(plain.status).toBe(0);
    expect(plain.stdout).not.toContain("User: British spelling.");
    const withHome = gitctx(["instructions", "--root", m.top, "--home", relative(m.base, m.home)], { cwd: m.base });
    expect(withHome).toEqual({ status: 0, stdout: textOf(await tool({ root: m.top, home: m.home }, {})), stderr: "" });
    expect(withHome.stdout).toContain("--- ~/.claude/CLAUDE.md (user) ---\n│ User: British spelling.\n");
  });

  it("works in a directory that is not a repository", () => {
    const dir = writeTree(tempDir(), { "AGENTS.md": "Plain folder.\n" });
    const run = gitctx(["instructions", "--format", "json"], { cwd: dir });
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { ok: true; data: { topLevel: string; files: Array<{ path: string }> } };
    expect(result.data.topLevel).toBe(realpathSync(dir));
    expect(result.data.files.map((file) => file.path)).toEqual(["AGENTS.md"]);
  });

  it("prints no-files as an answer, exit 0", () => {
    expect(gitctx(["instructions"], { cwd: tempDir() })).toEqual({
      status: 0,
      stdout: "No instruction files found (formats: claude, agents).\n",
      stderr: "",
    });
  });

  it("exits 1 with the tool's error: a path outside the workspace, an unknown format, a budget out of range, a missing root", () => {
    const dir = tempDir();
    expect(gitctx(["instructions", "--for", "../secret.md"], { cwd: dir })).toEqual({
      status: 1,
      stdout: "",
      stderr:
        `error (path_outside_workspace): paths[0] "../secret.md" is outside the workspace ${realpathSync(dir)}.\n` +
        "hint: Give a path relative to the workspace root that stays inside it (no ../, no absolute paths elsewhere, no symlinks leading out).\n",
    });
    const format = gitctx(["instructions", "--formats", "vim"], { cwd: dir });
    expect(format.status).toBe(1);
    expect(format.stderr).toMatch(
      /^error \(invalid_input\): Invalid input for load_instructions: formats\.0: Invalid option: expected one of "claude"\|"agents"\|"gemini"\|"cursor"\|"copilot"\.\n/,
    );
    const budget = gitctx(["instructions", "--budget", "0", "--format", "json"], { cwd: dir });
    expect(budget.status).toBe(1);
    expect(JSON.parse(budget.stdout)).toMatchObject({ ok: false, tool: "load_instructions", error: { code: "invalid_input" } });
    expect(budget.stderr).toBe("");
    const missing = gitctx(["instructions", "--root", join(dir, "gone")]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^error \(path_not_found\): /);
  });

  it("exits 2 on a usage error: --budget not a number, a bad --format, an unknown option, an argument", () => {
    const hint = '(run "gitctx instructions --help" for usage)\n';
    expect(gitctx(["instructions", "--budget", "lots"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: option '--budget <tokens>' argument 'lots' is invalid. Expected a whole number of tokens, e.g. --budget 4000.\n${hint}`,
    });
    expect(gitctx(["instructions", "--format", "xml"])).toEqual({
      status: 2,
      stdout: "",
      stderr: `error: option '--format <format>' argument 'xml' is invalid. Allowed choices are text, json.\n${hint}`,
    });
    expect(gitctx(["instructions", "--depth", "3"]).status).toBe(2);
    expect(gitctx(["instructions", "extra"]).status).toBe(2);
  });

  it("documents the default budget of the loader and that the home directory is read only when given", () => {
    const help = gitctx(["instructions", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(`o200k tokenizer (default: ${DEFAULT_INSTRUCTIONS_BUDGET})`);
    expect(help.stdout).toContain("Nothing outside the project is read unless asked: without --home");
  });
});
