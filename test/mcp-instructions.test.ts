/**
 * Instruction files over MCP, driven by the SDK's own `Client`: the resource gitctx://instructions and the prompt
 * system_context, first in-process over a linked transport, then against the built server spawned over stdio (the
 * transport clients use), where `--home` decides whether the user's files are read. Every answer is checked
 * against the toolbox's own.
 */
import { existsSync, realpathSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { countTokens, createToolbox, type ToolboxOptions } from "../src/index.js";
import { DEFAULT_PROMPT_BUDGET, SYSTEM_CONTEXT_PROMPT } from "../src/mcp/prompts.js";
import { createMcpServer, type GitctxMcpServer } from "../src/mcp/server.js";
import { monorepo, writeTree } from "./fixtures/instructions.js";
import { MAIN, VERSION } from "./fixtures/cli.js";
import { tempDir } from "./fixtures/repo.js";

const clients: Client[] = [];
const servers: GitctxMcpServer[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
});

async function connect(options: Partial<ToolboxOptions> & { root: string }): Promise<Client> {
  const mcp = createMcpServer({ version: VERSION, ...options });
  const client = new Client({ name: "gitctx-test", version: "1.0.0" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverTransport);
  await client.connect(clientTransport);
  clients.push(client);
  servers.push(mcp);
  return client;
}

async function toolText(options: ToolboxOptions, name: string, input: Record<string, unknown>): Promise<string> {
  const toolbox = createToolbox(options);
  try {
    const result = await toolbox.execute(name, input);
    if (!result.ok) expect.fail(JSON.stringify(result.error));
    return result.text;
  } finally {
    await toolbox.close();
  }
}

function textOf(result: { contents: ReadonlyArray<Record<string, unknown>> }): string {
  expect(result.contents).toHaveLength(1);
  const text = result.contents[0]!.text;
  if (typeof text !== "string") expect.fail("the resource has no text");
  return text;
}

function promptText(result: { messages: Array<{ role: string; content: { type: string; text?: string } }> }): string {
  expect(result.messages).toHaveLength(1);
  expect(result.messages[0]!.role).toBe("user");
  expect(result.messages[0]!.content.type).toBe("text");
  return result.messages[0]!.content.text!;
}

describe("gitctx://instructions", () => {
  it("reads what load_instructions answers, with paths, budget and formats from the query", async () => {
    const m = monorepo();
    const client = await connect({ root: m.top });
    const cases: Array<[string, Record<string, unknown>]> = [
      ["gitctx://instructions", {}],
      [
        "gitctx://instructions?paths=packages/app/src/Button.tsx,packages/api/src/server.ts",
        { paths: ["packages/app/src/Button.tsx", "packages/api/src/server.ts"] },
      ],
      [
        "gitctx://instructions?paths=packages/app/src/Button.tsx&paths=x.test.ts&budget=80",
        { paths: ["packages/app/src/Button.tsx", "x.test.ts"], budget: 80 },
      ],
      [
        "gitctx://instructions?formats=cursor,copilot&paths=packages%2Fapp%2Fsrc%2FButton.tsx",
        { formats: ["cursor", "copilot"], paths: ["packages/app/src/Button.tsx"] },
      ],
    ];
    for (const [uri, input] of cases) {
      const expected = await toolText({ root: m.top }, "load_instructions", input);
      expect(await client.readResource({ uri }), uri).toEqual({ contents: [{ uri, mimeType: "text/plain", text: expected }] });
    }
  });

  it("answers in a workspace that is not a repository", async () => {
    const dir = writeTree(tempDir(), { "AGENTS.md": "Plain folder rules.\n" });
    const client = await connect({ root: dir });
    expect(textOf(await client.readResource({ uri: "gitctx://instructions" }))).toContain("--- AGENTS.md (project) ---\n│ Plain folder rules.\n");
  });

  it("refuses an unknown parameter, a bad budget and a path outside the workspace, naming the problem", async () => {
    const dir = tempDir();
    const client = await connect({ root: dir });
    await expect(client.readResource({ uri: "gitctx://instructions?path=a" })).rejects.toThrow(
      'Unknown parameter "path" in gitctx://instructions?path=a; only paths, budget and formats are accepted, e.g. gitctx://instructions?paths=src/app.ts&budget=4000.',
    );
    await expect(client.readResource({ uri: "gitctx://instructions?budget=-1" })).rejects.toThrow(
      'budget must be a whole number of tokens, got "-1" in gitctx://instructions?budget=-1.',
    );
    await expect(client.readResource({ uri: "gitctx://instructions?budget=0" })).rejects.toThrow(
      /error \(invalid_input\): Invalid input for load_instructions: budget: Too small/,
    );
    await expect(client.readResource({ uri: "gitctx://instructions?paths=../../etc/passwd" })).rejects.toThrow(
      `MCP error -32602: error (path_outside_workspace): paths[0] "../../etc/passwd" is outside the workspace ${realpathSync(dir)}.`,
    );
    await expect(client.readResource({ uri: "gitctx://instructions?formats=vim" })).rejects.toThrow(/formats\.0: Invalid option/);
  });
});

describe("the prompt system_context", () => {
  it("is listed with its arguments, and the prompts capability is declared", async () => {
    const client = await connect({ root: tempDir() });
    expect(client.getServerCapabilities()?.prompts).toEqual({});
    expect(await client.listPrompts()).toEqual({ prompts: [SYSTEM_CONTEXT_PROMPT] });
    expect(SYSTEM_CONTEXT_PROMPT.arguments?.map((argument) => [argument.name, argument.required])).toEqual([
      ["paths", false],
      ["budget", false],
    ]);
  });

  it("returns the snapshot and the instructions as one text, each under its tool's name", async () => {
    const m = monorepo();
    const client = await connect({ root: m.top });
    const text = promptText(await client.getPrompt({ name: "system_context", arguments: { paths: "packages/app/src/Button.tsx" } }));
    const snapshot = await toolText({ root: m.top }, "git_context", { budget: 2000 - (await countTokens("<git_context>\n\n</git_context>")) });
    expect(text.startsWith(`<git_context>\n${snapshot}\n</git_context>\n\n<load_instructions>\nInstruction files, most general first`)).toBe(true);
    expect(text).toContain("--- packages/app/CLAUDE.md (subdirectory, for packages/app/src/Button.tsx) ---\n│ App: React 19, CSS modules.\n");
    expect(text.endsWith("\n</load_instructions>")).toBe(true);
    expect(await countTokens(text)).toBeLessThanOrEqual(DEFAULT_PROMPT_BUDGET);
  });

  it("never exceeds the budget, and cuts the instructions saying what was left out", async () => {
    const m = monorepo();
    const client = await connect({ root: m.top, home: m.home, managedDir: m.managed });
    for (const budget of [100, 150, 240, 400, 777, 2000]) {
      const result = await client.getPrompt({
        name: "system_context",
        arguments: { paths: "packages/app/src/Button.tsx, packages/api/src/server.ts", budget: String(budget) },
      });
      const text = promptText(result);
      expect(await countTokens(text), `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(text).toContain("<load_instructions>");
      expect(result.description).toBe(
        `Repository snapshot and instruction files for packages/app/src/Button.tsx, packages/api/src/server.ts, within ${budget} tokens.`,
      );
    }
    const small = promptText(await client.getPrompt({ name: "system_context", arguments: { budget: "400" } }));
    const instructions = small.slice(small.indexOf("<load_instructions>"));
    expect(instructions).toMatch(
      /Left out to fit the budget of \d+ tokens, most general first: .*All of it: load_instructions with the same paths and "budget": \d+, or read the files\./,
    );
  });

  it("still gives the instructions outside a repository, with the reason there is no snapshot", async () => {
    const dir = writeTree(tempDir(), { "CLAUDE.md": "Notes folder: keep it tidy.\n" });
    const client = await connect({ root: dir });
    const text = promptText(await client.getPrompt({ name: "system_context" }));
    expect(text).toMatch(/^<git_context>\nerror \(not_a_repository\): .* is not inside a git repository\.\nhint: /);
    expect(text).toContain("<load_instructions>\nInstruction files, most general first");
    expect(text).toContain("Notes folder: keep it tidy.");
  });

  it("refuses an unknown prompt, an unknown argument, a bad budget and a path outside the workspace", async () => {
    const dir = tempDir();
    const client = await connect({ root: dir });
    await expect(client.getPrompt({ name: "context" })).rejects.toThrow('Unknown prompt "context"; gitctx offers system_context.');
    await expect(client.getPrompt({ name: "system_context", arguments: { root: "/" } })).rejects.toThrow(
      'Unknown argument "root" for system_context; it takes paths and budget.',
    );
    for (const budget of ["lots", "99", "1000001"]) {
      await expect(client.getPrompt({ name: "system_context", arguments: { budget } })).rejects.toThrow(
        `budget must be a whole number of tokens from 100 to 1000000, got "${budget}".`,
      );
    }
    await expect(client.getPrompt({ name: "system_context", arguments: { paths: "../x" } })).rejects.toThrow(
      /error \(path_outside_workspace\): paths\[0\] "\.\.\/x"/,
    );
  });
});

describe("gitctx mcp over stdio", () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} does not exist: run "npm run build" first (npm test does it for you).`);
  });

  async function stdio(args: string[], home: string): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, "mcp", ...args],
      cwd: tempDir(),
      env: { PATH: process.env.PATH ?? "", HOME: home, LC_ALL: "C" },
      stderr: "pipe",
    });
    const client = new Client({ name: "gitctx-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it("serves the resource and the prompt, and reads the user's files only with --home", async () => {
    const m = monorepo();
    // The server's own HOME holds user instruction files: without --home they stay unread.
    const plain = await stdio(["--root", m.top], m.home);
    const expected = await toolText({ root: m.top }, "load_instructions", { paths: ["packages/api/src/server.ts"] });
    expect(textOf(await plain.readResource({ uri: "gitctx://instructions?paths=packages/api/src/server.ts" }))).toBe(expected);
    expect(expected).not.toContain("User: British spelling.");
    expect(promptText(await plain.getPrompt({ name: "system_context" }))).not.toContain("User: British spelling.");
    const tool = await plain.callTool({ name: "load_instructions", arguments: {} });
    expect(JSON.stringify(tool)).not.toContain("British");

    const withHome = await stdio(["--root", m.top, "--home", m.home], tempDir());
    const text = textOf(await withHome.readResource({ uri: "gitctx://instructions" }));
    expect(text).toBe(await toolText({ root: m.top, home: m.home }, "load_instructions", {}));
    expect(text).toContain("--- ~/.claude/CLAUDE.md (user) ---\n│ User: British spelling.\n");
    expect(promptText(await withHome.getPrompt({ name: "system_context", arguments: { budget: "3000" } }))).toContain("User: British spelling.");
  });

  it("exits 2 when --home is not a directory, and says in its help that the home is read only when given", () => {
    const missing = join(tempDir(), "nobody");
    const run = spawnSync(process.execPath, [MAIN, "mcp", "--home", missing], {
      cwd: tempDir(),
      env: { PATH: process.env.PATH ?? "", LC_ALL: "C" },
      input: "",
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`error: --home ${missing} is not a directory.\n(run "gitctx mcp --help" for usage)\n`);
    const help = spawnSync(process.execPath, [MAIN, "mcp", "--help"], { encoding: "utf8" });
    expect(help.stdout).toContain("~/.claude/CLAUDE.md, ~/.claude/rules/ and ~/.codex/AGENTS.md are read only\nwith --home.");
  });
});
