/**
 * MCP resource subscriptions over stdio, against the spawned `gitctx mcp` (built CLI; `npm test` builds first):
 * the capability is declared, a subscription starts the connection's watcher (its inotify watches are counted
 * in /proc), an edit sends `notifications/resources/updated` for the resources it stales, a burst of events
 * is gathered into fewer notifications, and the last unsubscription stops the watcher.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ListRootsRequestSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer, type GitctxMcpServer } from "../src/mcp/server.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { MAIN, VERSION } from "./fixtures/cli.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";
import { DEADLINE_MS, waitFor } from "./fixtures/watch.js";

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} does not exist: run "npm run build" first (npm test does it for you).`);
});

const clients: Client[] = [];
const servers: GitctxMcpServer[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
});

interface Subscriber {
  client: Client;
  pid: number;
  /** Every resources/updated received, in order. */
  updates: string[];
}

async function connect(root: string): Promise<Subscriber> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp", "--root", root],
    cwd: tempDir(),
    env: { PATH: process.env.PATH ?? "", HOME: tempDir("gitctx-mcp-home-"), LC_ALL: "C" },
    stderr: "pipe",
  });
  const client = new Client({ name: "gitctx-test", version: "1.0.0" });
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
  });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid!, updates };
}

/** The inotify watches process `pid` holds (Linux /proc). */
function inotifyWatchesOf(pid: number): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (!link.includes("inotify")) continue;
    count += readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("inotify wd:")).length;
  }
  return count;
}

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\n").write("CLAUDE.md", "Rule one.\n").commit("first");
  return repo;
}

const count = (updates: string[], uri: string): number => updates.filter((update) => update === uri).length;

describe("resources/subscribe", () => {
  it("declares the capability, starts watching on the first subscription and stops on the last unsubscription", async () => {
    const repo = committedRepo();
    const { client, pid, updates } = await connect(repo.dir);
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true });
    expect(inotifyWatchesOf(pid)).toBe(0);

    await client.subscribeResource({ uri: "gitctx://context" });
    await client.subscribeResource({ uri: "gitctx://instructions?paths=a.txt" });
    expect(inotifyWatchesOf(pid)).toBeGreaterThan(0);

    // A source file stales the context, not the instructions.
    repo.write("a.txt", "two\n");
    await waitFor(() => count(updates, "gitctx://context") === 1, "the context's update");
    expect(count(updates, "gitctx://instructions?paths=a.txt")).toBe(0);
    expect((await client.readResource({ uri: "gitctx://context" })).contents[0]).toMatchObject({ uri: "gitctx://context" });

    // An instruction file stales both (it is a file of the work tree too).
    repo.write("CLAUDE.md", "Rule two.\n");
    await waitFor(() => count(updates, "gitctx://instructions?paths=a.txt") === 1, "the instructions' update");
    const read = await client.readResource({ uri: "gitctx://instructions?paths=a.txt" });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining("Rule two.") });
    await waitFor(() => count(updates, "gitctx://context") === 2, "the context's second update");

    await client.unsubscribeResource({ uri: "gitctx://context" });
    expect(inotifyWatchesOf(pid)).toBeGreaterThan(0);
    await client.unsubscribeResource({ uri: "gitctx://instructions?paths=a.txt" });
    await waitFor(() => inotifyWatchesOf(pid) === 0, "the watches to go with the last subscription");
  });

  it("gathers a burst of events into fewer notifications than events", async () => {
    const repo = committedRepo();
    const { client, updates } = await connect(repo.dir);
    await client.subscribeResource({ uri: "gitctx://context" });
    // git_changes counts the events of the same watcher.
    const start = await client.callTool({ name: "git_changes", arguments: {} });
    const since = (start.structuredContent as { seq: number }).seq;
    const written = Array.from({ length: 10 }, (_, i) => `burst/f${i}.txt`);
    for (const [i, path] of written.entries()) repo.write(path, `${i}\n`);
    let reported: string[] = [];
    for (const end = Date.now() + DEADLINE_MS; reported.length < written.length && Date.now() < end; ) {
      const answer = await client.callTool({ name: "git_changes", arguments: { since } });
      reported = (answer.structuredContent as { events: Array<{ paths: string[] }> }).events.flatMap((event) =>
        event.paths.filter((path) => path.startsWith("burst/")),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // One event per file: a failure names the files that were not reported.
    expect(reported.sort()).toEqual(written);
    const events = reported.length;
    await waitFor(() => count(updates, "gitctx://context") > 0, "the update");
    expect(count(updates, "gitctx://context")).toBeLessThan(events);
  });

  it("refuses an unknown resource, and a workspace that cannot be watched, naming the problem", async () => {
    const repo = committedRepo();
    const { client } = await connect(repo.dir);
    await expect(client.subscribeResource({ uri: "gitctx://other" })).rejects.toThrow(/Unknown resource gitctx:\/\/other/);
    await expect(client.subscribeResource({ uri: "gitctx://context?size=3" })).rejects.toThrow(/Unknown parameter "size"/);
    const outside = await connect(tempDir());
    await expect(outside.client.subscribeResource({ uri: "gitctx://instructions" })).rejects.toThrow(/error \(not_a_repository\)/);
  });
});

describe("subscriptions and the client's roots", () => {
  it("follow the workspace when the roots change: updated at once, then the new workspace's events", async () => {
    const a = committedRepo();
    const b = committedRepo();
    const roots = { uris: [pathToFileURL(a.dir).href] };
    const mcp = createMcpServer({ version: VERSION });
    servers.push(mcp);
    const client = new Client({ name: "gitctx-test", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.uris.map((uri) => ({ uri })) }));
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverTransport);
    await client.connect(clientTransport);
    clients.push(client);

    await client.subscribeResource({ uri: "gitctx://instructions" });
    a.write("CLAUDE.md", "A's rule two.\n");
    await waitFor(() => updates.length === 1, "the update in the first workspace");

    roots.uris = [pathToFileURL(b.dir).href];
    await client.sendRootsListChanged();
    await waitFor(() => updates.length === 2, "the update for the new workspace");
    const read = await client.readResource({ uri: "gitctx://instructions" });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining("Rule one.") });
    // The read opened the new workspace's session, and the subscription watches it now.
    b.write("CLAUDE.md", "B's rule two.\n");
    await waitFor(() => updates.length === 3, "the update in the new workspace");
    expect(updates).toEqual(["gitctx://instructions", "gitctx://instructions", "gitctx://instructions"]);
  });
});
