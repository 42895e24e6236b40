/**
 * The MCP server in-process, driven by the SDK's own `Client` over a linked in-memory transport: the public
 * surface (pinned by a snapshot), every tool against the library's own answer, errors, MCP roots, 200
 * concurrent calls, and cancellation and disconnection killing git. No mocks: real git, real repositories.
 */
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createToolbox, PERMISSION_MODES } from "../src/index.js";
import { createMcpServer, type GitctxMcpServer, type McpServerOptions } from "../src/mcp/server.js";
import { toolAnnotations } from "../src/mcp/tools.js";
import { TOOLS } from "../src/tools/registry.js";

/** What a read-only server (the default) offers: no tool that writes. */
const READ_TOOLS = TOOLS.filter((tool) => tool.permission === "read-only");
import { VERSION } from "./fixtures/cli.js";
import {
  committedRepo,
  expectedMcpResult,
  gitProcessesIn,
  switchableGit,
  libraryResults,
  sampleCalls,
  sampleRepo,
  until,
  withoutClock,
} from "./fixtures/mcp.js";
import { makeRepo, tempDir } from "./fixtures/repo.js";

interface Connection {
  client: Client;
  mcp: GitctxMcpServer;
  log: string[];
  /** How often the client was asked for its roots. */
  rootRequests: () => number;
}

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) {
    await connection.client.close();
    await connection.mcp.close();
  }
});

/** A server and a client linked in memory; `roots` makes the client offer MCP roots (a list it can change). */
async function connect(options: Partial<McpServerOptions> = {}, roots?: { uris: string[] }): Promise<Connection> {
  const log: string[] = [];
  const mcp = createMcpServer({ version: VERSION, log: (line) => log.push(line), ...options });
  const client = new Client({ name: "gitctx-test", version: "1.0.0" }, roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } });
  let rootRequests = 0;
  if (roots !== undefined) {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      rootRequests++;
      return { roots: roots.uris.map((uri, i) => ({ uri, name: `root ${i}` })) };
    });
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverTransport);
  await client.connect(clientTransport);
  // Listing the tools makes the client check every structuredContent against the tool's outputSchema.
  await client.listTools();
  const connection = { client, mcp, log, rootRequests: () => rootRequests };
  open.push(connection);
  return connection;
}

describe("MCP surface", () => {
  it("pins initialize and tools/list: names, titles, schemas, annotations, instructions", async () => {
    const { client } = await connect({ root: tempDir() });
    const { tools } = await client.listTools();
    const surface = {
      serverInfo: { ...client.getServerVersion(), version: "<package version>" },
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
      tools,
    };
    await expect(`${JSON.stringify(surface, null, 2)}\n`).toMatchFileSnapshot("__snapshots__/mcp-surface.json");
    expect(client.getServerVersion()).toEqual({ name: "gitctx", title: "gitctx", version: VERSION });
  });

  it("registers every registry tool with its title, description, strict input schema, output schema and annotations", async () => {
    const { client } = await connect({ root: tempDir() });
    const { tools } = await client.listTools();
    const library = createToolbox().tools;
    expect(tools.map((tool) => tool.name)).toEqual(READ_TOOLS.map((tool) => tool.name));
    for (const [i, tool] of tools.entries()) {
      const info = library[i]!;
      expect(tool.title).toBe(info.title);
      expect(tool.description).toBe(info.description);
      expect(tool.inputSchema).toEqual(info.inputSchema);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(info.outputSchema, `${info.name} declares no outputSchema (src/tools/${info.name.replace("_", "-")}.ts)`).toBeDefined();
      expect(tool.outputSchema).toEqual(info.outputSchema!.type === "object" ? info.outputSchema : { type: "object", ...info.outputSchema });
      expect(tool.outputSchema!.additionalProperties ?? "a union of strict objects").not.toBe(true);
      expect(tool.annotations).toEqual(toolAnnotations(info.permission, info.destructive));
    }
  });

  it("derives all four annotations from the permission", () => {
    expect(PERMISSION_MODES.map((mode) => [mode, toolAnnotations(mode)])).toEqual([
      ["read-only", { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      ["workspace-write", { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }],
      ["danger-full-access", { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }],
    ]);
  });

  it("tells the model when to use the tools instead of git in a shell", async () => {
    const { client } = await connect({ root: tempDir() });
    const instructions = client.getInstructions()!.split("\n");
    expect(instructions[0]).toBe(
      `gitctx gives structured, bounded access to the git repository of the workspace (tools: ${READ_TOOLS.map((tool) => tool.name).join(", ")}).`,
    );
    expect(instructions[2]).toMatch(
      /^Use these tools instead of running git in a shell \(`git status`, `git diff`, `git log`, `git show`, `git blame`, \.\.\.\) /,
    );
    // A read-only server offers no tool that writes, and says so; one allowed to write does not.
    expect(instructions.join("\n")).toContain("These tools never change the repository");
    const writer = await connect({ root: tempDir(), mode: "workspace-write" });
    expect(writer.client.getInstructions()).not.toContain("These tools never change the repository");
    expect((await writer.client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
  });
});

describe("resources", () => {
  it("lists gitctx://context and gitctx://instructions", async () => {
    const { client } = await connect({ root: tempDir() });
    expect(await client.listResources()).toEqual({
      resources: [
        {
          uri: "gitctx://context",
          name: "context",
          title: "Repository context",
          description:
            "A compact picture of the repository for a system prompt: branch, HEAD, operation in progress, base branch, " +
            "changes, untracked files, recent commits, stashes, remotes, worktrees, submodules, fitted to 2,000 tokens. " +
            "Append ?budget=N for another token budget, e.g. gitctx://context?budget=500.",
          mimeType: "text/plain",
        },
        {
          uri: "gitctx://instructions",
          name: "instructions",
          title: "Instruction files",
          description:
            "The project's instruction files (CLAUDE.md, AGENTS.md, rules...) as one text for a system prompt, most general " +
            "first, imports expanded, fitted to 10,000 tokens. Append ?paths=a,b for the files about to be read or edited " +
            "(their directories' files and matching rules), budget=N for another token budget, formats=claude,agents,cursor " +
            "for other agents' files, e.g. gitctx://instructions?paths=src/app.ts&budget=4000.",
          mimeType: "text/plain",
        },
      ],
    });
  });

  it("reads the same text as git_context, with the default or a given budget", async () => {
    const { repo } = sampleRepo();
    const { client } = await connect({ root: repo.dir });
    const toolbox = createToolbox({ root: repo.dir });
    for (const [uri, input] of [
      ["gitctx://context", {}],
      ["gitctx://context?budget=60", { budget: 60 }],
    ] as const) {
      const expected = await toolbox.execute("git_context", input);
      if (!expected.ok) expect.fail(JSON.stringify(expected.error));
      expect(await client.readResource({ uri })).toEqual({ contents: [{ uri, mimeType: "text/plain", text: expected.text }] });
    }
  });

  it("refuses an unknown resource, an unknown parameter and a bad budget, naming the problem", async () => {
    const { repo } = sampleRepo();
    const { client } = await connect({ root: repo.dir });
    await expect(client.readResource({ uri: "gitctx://other" })).rejects.toThrow(
      "Unknown resource gitctx://other; gitctx offers gitctx://context (optionally ?budget=N) and gitctx://instructions (optionally ?paths=a,b&budget=N&formats=claude,agents).",
    );
    await expect(client.readResource({ uri: "gitctx://context?size=3" })).rejects.toThrow(
      'Unknown parameter "size" in gitctx://context?size=3; only budget is accepted, e.g. gitctx://context?budget=500.',
    );
    const lots = client.readResource({ uri: "gitctx://context?budget=lots" });
    await expect(lots).rejects.toThrow('budget must be a whole number of tokens, got "lots" in gitctx://context?budget=lots.');
    await expect(lots).rejects.toMatchObject({ code: -32602 });
    // In range or not is git_context's to say; its refusal is still the URI's fault: Invalid Params.
    for (const budget of ["0", "200001"]) {
      const refused = client.readResource({ uri: `gitctx://context?budget=${budget}` });
      await expect(refused).rejects.toThrow(/error \(invalid_input\): Invalid input for git_context: budget: Too (small|big)/);
      await expect(refused).rejects.toMatchObject({ code: -32602 });
    }
  });

  it("answers a workspace that is not a repository with the error as the resource's text, not a JSON-RPC error", async () => {
    const dir = tempDir();
    const { client } = await connect({ root: dir });
    const result = await client.readResource({ uri: "gitctx://context" });
    const text = result.contents[0] as { uri: string; mimeType: string; text: string; _meta: Record<string, unknown> };
    expect(text.uri).toBe("gitctx://context");
    expect(text.text).toMatch(
      /^error \(not_a_repository\): .* is not inside a git repository\.\nhint: Point the server at a directory inside a git working tree: start it with --root <dir>, or without --root open that folder in the client \(the server uses the client's first MCP root\), or run `git init` there first\.$/,
    );
    expect(text._meta["gitctx/error"]).toMatchObject({ code: "not_a_repository" });
  });

  it("lists the query forms of its resources as resource templates", async () => {
    const { client } = await connect({ root: tempDir() });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      "gitctx://context{?budget}",
      "gitctx://instructions{?paths,budget,formats}",
    ]);
    expect(resourceTemplates[0]).toEqual({
      uriTemplate: "gitctx://context{?budget}",
      name: "context-with-budget",
      title: "Repository context, other budget",
      description:
        "The repository context of gitctx://context fitted to budget o200k tokens instead of 2,000 (1 to 200000), e.g. gitctx://context?budget=500.",
      mimeType: "text/plain",
    });
  });
});

describe("tools/call", () => {
  it("answers every tool exactly as the library does: structuredContent is the data, the text block the model text", async () => {
    const { repo, first } = sampleRepo();
    const calls = sampleCalls(first);
    const expected = await libraryResults(repo.dir, calls);
    const { client } = await connect({ root: repo.dir });
    for (const [i, call] of calls.entries()) expect(withoutClock(await client.callTool(call))).toEqual(expected[i]);
    // The calls cover every tool, both result kinds of git_show and four kinds of failure (bad revision, invalid
    // input, an unknown tool, and the two worktree tools a read-only server refuses: permission_denied).
    expect(TOOLS.filter((tool) => !calls.some((call) => call.name === tool.name))).toEqual([]);
    expect(expected.filter((result) => result.isError === true).length).toBe(6);
  });

  it("puts the message and the hint of a tool error in the text, with isError and no structuredContent", async () => {
    const { repo } = sampleRepo();
    const { client } = await connect({ root: repo.dir });
    const result = await client.callTool({ name: "git_blame", arguments: { path: "missing.txt" } });
    expect(result).toEqual({
      content: [
        {
          type: "text",
          text:
            "error (path_not_found): missing.txt is not a file git tracks.\n" +
            "hint: Check the path with git_status or git_show on its directory; blame needs a file git tracks.",
        },
      ],
      isError: true,
    });
  });

  it("names every invalid field", async () => {
    const { repo } = sampleRepo();
    const { client } = await connect({ root: repo.dir });
    expect(await client.callTool({ name: "git_log", arguments: { count: "ten", since: "", extra: 1 } })).toEqual({
      content: [
        {
          type: "text",
          text:
            'error (invalid_input): Invalid input for git_log: count: Invalid input: expected number, received string; since: Too small: expected string to have >=1 characters; unknown field "extra".\n' +
            "hint: git_log accepts: count, oneline, author, since, until, path, ref, skip, grep.",
        },
      ],
      isError: true,
    });
  });

  it("treats a call without arguments as empty arguments", async () => {
    const { repo } = sampleRepo();
    const { client } = await connect({ root: repo.dir });
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_status", {}));
    expect(await client.callTool({ name: "git_status" })).toEqual(expected);
  });

  it("answers a repository with no commits and a clean tree as results, not errors", async () => {
    const repo = makeRepo();
    const { client } = await connect({ root: repo.dir });
    const status = await client.callTool({ name: "git_status", arguments: {} });
    expect(status.isError).toBeUndefined();
    expect(status.content).toEqual([
      { type: "text", text: "On branch main (no commits yet)\nWorking tree clean: nothing staged, nothing modified, no untracked files." },
    ]);
    expect(await client.callTool({ name: "git_log", arguments: {} })).toEqual({
      content: [{ type: "text", text: "No commits yet: the current branch has no history." }],
      structuredContent: { commits: [], hasMore: false, nextSkip: null, ref: null, range: null, limitedTo: null, shallowBoundary: [] },
    });
  });

  it("completes 200 concurrent calls on one connection with the right answers and leaves no git process behind", async () => {
    const { repo, first } = sampleRepo();
    // Not git_changes: its first answer says watching started, the others do not, and which is first is a race.
    const calls = sampleCalls(first).filter((call) => call.name !== "git_changes");
    const expected = await libraryResults(repo.dir, calls);
    const { client } = await connect({ root: repo.dir });
    const indexes = Array.from({ length: 200 }, (_, i) => i % calls.length);
    const results = await Promise.all(indexes.map((index) => client.callTool(calls[index]!)));
    expect(results.map(withoutClock)).toEqual(indexes.map((index) => expected[index]));
    expect(gitProcessesIn(repo.dir)).toEqual([]);
  });
});

describe("workspace root", () => {
  it("uses the client's first file:// root when there is no fixed root, and follows roots/list_changed", async () => {
    const a = sampleRepo().repo;
    const b = makeRepo();
    b.write("only-in-b.txt", "b\n");
    const roots = { uris: ["file://build-server/srv/repo", pathToFileURL(a.dir).href, pathToFileURL(b.dir).href] };
    const { client, log, rootRequests } = await connect({ cwd: tempDir() }, roots);
    const statusOf = async (dir: string) => expectedMcpResult(await createToolbox({ root: dir }).execute("git_status", {}));

    expect(await client.callTool({ name: "git_status", arguments: {} })).toEqual(await statusOf(a.dir));
    expect(await client.callTool({ name: "git_status", arguments: {} })).toEqual(await statusOf(a.dir));
    expect(rootRequests()).toBe(1);

    roots.uris = [pathToFileURL(b.dir).href];
    await client.sendRootsListChanged();
    expect(await client.callTool({ name: "git_status", arguments: {} })).toEqual(await statusOf(b.dir));
    expect(rootRequests()).toBe(2);
    expect(log).toEqual([
      `the workspace is ${a.dir} (the client's first local file:// root)`,
      `the workspace is ${b.dir} (the client's first local file:// root)`,
    ]);
  });

  it("uses the current directory when the client offers no roots, or none of them is a local file:// URI", async () => {
    const { repo } = sampleRepo();
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_status", {}));
    const withoutRoots = await connect({ cwd: repo.dir });
    expect(await withoutRoots.client.callTool({ name: "git_status", arguments: {} })).toEqual(expected);
    expect(withoutRoots.log).toEqual([`the client offers no roots: the workspace is the current directory ${repo.dir}`]);

    const remoteOnly = await connect({ cwd: repo.dir }, { uris: ["file://other-host/repo"] });
    expect(await remoteOnly.client.callTool({ name: "git_status", arguments: {} })).toEqual(expected);
    expect(remoteOnly.log).toEqual([`the client lists no local file:// root: the workspace is the current directory ${repo.dir}`]);
  });

  it("never asks for roots when the root is fixed", async () => {
    const { repo } = sampleRepo();
    const other = makeRepo();
    const expected = expectedMcpResult(await createToolbox({ root: repo.dir }).execute("git_status", {}));
    const { client, rootRequests } = await connect({ root: repo.dir }, { uris: [pathToFileURL(other.dir).href] });
    expect(await client.callTool({ name: "git_status", arguments: {} })).toEqual(expected);
    expect(rootRequests()).toBe(0);
  });
});

describe("cancellation and disconnection", () => {
  it("kills the call's git process when the client cancels the request", async () => {
    const repo = committedRepo();
    const git = switchableGit();
    const { client, mcp } = await connect({ root: repo.dir, gitSearchPath: git.dir });
    expect((await client.callTool({ name: "git_status", arguments: {} })).isError).toBeUndefined();
    git.hang();
    const controller = new AbortController();
    const call = client.callTool({ name: "git_status", arguments: {} }, undefined, { signal: controller.signal });
    await until(() => gitProcessesIn(repo.dir).length > 0);
    controller.abort(new Error("stop"));
    await expect(call).rejects.toThrow("stop");
    await until(() => gitProcessesIn(repo.dir).length === 0);
    // The connection is still usable.
    expect((await client.listTools()).tools.length).toBe(READ_TOOLS.length);
    await mcp.close();
  });

  it("kills the git processes of every call in flight when the client disconnects, and settles them before close resolves", async () => {
    const repo = committedRepo();
    const git = switchableGit();
    const { client, mcp } = await connect({ root: repo.dir, gitSearchPath: git.dir });
    expect((await client.callTool({ name: "git_status", arguments: {} })).isError).toBeUndefined();
    git.hang();
    const calls = [0, 1, 2].map(() => client.callTool({ name: "git_log", arguments: {} }));
    await until(() => gitProcessesIn(repo.dir).length === 3);
    await client.close();
    for (const call of calls) await expect(call).rejects.toThrow("Connection closed");
    await mcp.close();
    await until(() => gitProcessesIn(repo.dir).length === 0);
  });
});
