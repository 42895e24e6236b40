import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { createWorktree, renderSnapshot, snapshot } from "../src/index.js";
import { createMcpServer } from "../src/mcp/server.js";
import { type CliRun, requireBuiltCli, runCli, VERSION } from "./fixtures/cli.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

requireBuiltCli();

function project(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\n");
  repo.write(".gitignore", "node_modules/\n");
  repo.commit("first");
  repo.write("node_modules/pkg/index.js", "module.exports = 1;\n");
  return repo;
}

function gitctx(args: string[], cwd: string): CliRun {
  return runCli(args, { cwd });
}

describe("gitctx worktree", () => {
  it("create, list, remove refused then discarded, with exit codes; --dry-run changes nothing", () => {
    const repo = project();
    const top = realpathSync(repo.dir);
    const path = join(top, ".claude", "worktrees", "cli");
    const created = gitctx(["worktree", "create", "cli", "--format", "text"], repo.dir);
    expect(created).toEqual({
      status: 0,
      stdout:
        `Created the worktree cli at ${path} on the new branch worktree-cli (from ${repo.head().slice(0, 12)}).\n` +
        "- Linked node_modules to the main checkout's (shared, not copied; removing the worktree unlinks them and leaves them intact).\n",
      stderr: "",
    });
    const listed = gitctx(["worktree", "list", "--format", "text"], repo.dir);
    expect(listed.stdout).toBe(`${top}  main  [main; this one]\n${path}  worktree-cli  [gitctx cli]\n`);
    const json = JSON.parse(gitctx(["worktree", "list"], repo.dir).stdout) as { ok: boolean; data: Array<{ name: string | null; dirty: boolean }> };
    expect(json.ok).toBe(true);
    expect(json.data.map((w) => w.name)).toEqual([null, "cli"]);

    writeFileSync(join(path, "a.txt"), "changed\n");
    const refused = gitctx(["worktree", "remove", "cli", "--format", "text"], repo.dir);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(
      /^error \(uncommitted_changes\): The worktree cli .* has 1 uncommitted file; .*Files: M a\.txt\.\nhint: .*--discard-changes/,
    );
    const dry = gitctx(["worktree", "remove", "cli", "--discard-changes", "--dry-run", "--format", "text"], repo.dir);
    expect(dry).toMatchObject({ status: 0, stdout: `Would remove ${path} and delete the branch worktree-cli, discarding 1 uncommitted file.\n` });
    expect(existsSync(path)).toBe(true);
    const removed = gitctx(["worktree", "remove", "cli", "--discard-changes", "--format", "text"], repo.dir);
    expect(removed).toEqual({
      status: 0,
      stdout: `Removed the worktree cli (${path}) and its branch worktree-cli, discarding 1 file(s) and 0 commit(s).\n`,
      stderr: "",
    });
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(join(repo.dir, "node_modules", "pkg", "index.js"), "utf8")).toBe("module.exports = 1;\n");
  });

  it("cleanup --dry-run and cleanup, and usage errors exit 2", () => {
    const repo = project();
    expect(gitctx(["worktree", "create", "old", "--format", "json"], repo.dir).status).toBe(0);
    const dry = gitctx(["worktree", "cleanup", "--older-than", "0", "--dry-run", "--format", "text"], repo.dir);
    expect(dry).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Would remove 1:\n {2}old \(/) });
    expect(existsSync(join(repo.dir, ".claude", "worktrees", "old"))).toBe(true);
    const done = JSON.parse(gitctx(["worktree", "cleanup", "--older-than", "0"], repo.dir).stdout) as { data: { removed: Array<{ name: string }> } };
    expect(done.data.removed.map((w) => w.name)).toEqual(["old"]);
    expect(existsSync(join(repo.dir, ".claude", "worktrees", "old"))).toBe(false);
    expect(gitctx(["worktree", "cleanup", "--older-than", "soon"], repo.dir).status).toBe(2);
    expect(gitctx(["worktree", "create", "x", "--mode", "root"], repo.dir).status).toBe(2);
    const bad = gitctx(["worktree", "create", "bad name"], repo.dir);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, error: { code: "invalid_input" } });
  });
});

describe("worktree tools over MCP", () => {
  async function connect(root: string): Promise<{ client: Client; close: () => Promise<void> }> {
    const mcp = createMcpServer({ version: VERSION, root, mode: "workspace-write" });
    const client = new Client({ name: "gitctx-test", version: "1.0.0" });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverTransport);
    await client.connect(clientTransport);
    await client.listTools();
    return {
      client,
      close: async () => {
        await client.close();
        await mcp.close();
      },
    };
  }

  it("annotates exit_worktree destructive and enter_worktree not; a round trip works and a refusal is a tool error", async () => {
    const repo = project();
    const { client, close } = await connect(repo.dir);
    try {
      const { tools } = await client.listTools();
      const annotations = Object.fromEntries(tools.filter((tool) => tool.name.endsWith("_worktree")).map((tool) => [tool.name, tool.annotations]));
      expect(annotations).toEqual({
        enter_worktree: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        exit_worktree: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      });
      const entered = await client.callTool({ name: "enter_worktree", arguments: { name: "mcp" } });
      expect(entered.isError).toBeUndefined();
      const path = (entered.structuredContent as { worktreePath: string }).worktreePath;
      writeFileSync(join(path, "a.txt"), "changed\n");
      const status = await client.callTool({ name: "git_status", arguments: {} });
      expect((status.structuredContent as { branch: { head: string } }).branch.head).toBe("worktree-mcp");
      const refused = await client.callTool({ name: "exit_worktree", arguments: { action: "remove" } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/^error \(uncommitted_changes\)/);
      const removed = await client.callTool({ name: "exit_worktree", arguments: { action: "remove", discard_changes: true } });
      expect(removed.structuredContent).toMatchObject({ action: "remove", discardedFiles: 1, originalRoot: realpathSync(repo.dir) });
      expect(existsSync(path)).toBe(false);
      const back = await client.callTool({ name: "git_status", arguments: {} });
      expect((back.structuredContent as { branch: { head: string } }).branch.head).toBe("main");
    } finally {
      await close();
    }
  });

  it("releases the lock when the client goes", async () => {
    const repo = project();
    const { client, close } = await connect(repo.dir);
    await client.callTool({ name: "enter_worktree", arguments: { name: "gone" } });
    const lock = join(repo.dir, ".git", "worktrees", "gone", "locked");
    expect(existsSync(lock)).toBe(true);
    await close();
    expect(existsSync(lock)).toBe(false);
  });
});

describe("the snapshot's worktrees section", () => {
  it("marks gitctx's worktrees, and stale ones once unused for 7 days", async () => {
    const repo = project();
    const other = join(tempDir(), "other");
    repo.git(["worktree", "add", "-q", "-b", "other", other]);
    const created = await createWorktree({ root: repo.dir, name: "snap" });
    const now = await snapshot({ root: repo.dir, sections: ["worktrees"] });
    const flags = (s: typeof now): Array<[string, boolean, boolean]> =>
      // git lists linked worktrees in the order of its directory entries: sorted here.
      (s.worktrees!.ok ? s.worktrees!.value : []).map((w): [string, boolean, boolean] => [w.path, w.gitctx, w.stale]).sort();
    expect(flags(now)).toEqual(
      [
        [realpathSync(repo.dir), false, false],
        [realpathSync(other), false, false],
        [created.path, true, false],
      ].sort(),
    );
    const later = await snapshot({ root: repo.dir, sections: ["worktrees"], now: new Date(Date.now() + 8 * 24 * 60 * 60 * 1000) });
    expect(flags(later).find(([path]) => path === created.path)).toEqual([created.path, true, true]);
    const text = (await renderSnapshot(later)).text;
    expect(text).toContain(`${created.path} worktree-snap ${repo.head().slice(0, 12)} (gitctx, stale)`);
    expect(text).toContain("gitctx worktree cleanup removes the clean ones");
  });
});
