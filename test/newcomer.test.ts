/**
 * What a new user trips on, each on a real repository in that state: hints that name a flag the command that
 * printed them has (library, CLI, MCP), "Did you mean" for a mistyped tool, a detached HEAD at a tag, a merge in
 * progress, a submodule at another commit, the base branch itself, a staged symlink, and "which commits are on
 * my branch" with git_log ranges and @{base}. Plain git is run alongside where it says the same thing.
 */
import { spawnSync } from "node:child_process";
import { chownSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import type { GitLogData, GitStatusData } from "../src/index.js";
import { createMcpServer } from "../src/mcp/server.js";
import { MAIN, VERSION } from "./fixtures/cli.js";
import { switchableGit } from "./fixtures/mcp.js";
import { cloneRepo, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";
import { call, okOf } from "./fixtures/calls.js";

const ok = okOf;
const run = call;

function gitctx(args: string[], cwd: string, path = process.env.PATH ?? ""): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], {
    cwd,
    env: { PATH: path, HOME: tempDir("gitctx-home-"), LC_ALL: "C" },
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const clients: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function mcpCall(root: string, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const mcp = createMcpServer({ version: VERSION, root });
  const client = new Client({ name: "newcomer", version: "1.0.0" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverTransport);
  await client.connect(clientTransport);
  clients.push(client, mcp);
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
  return { text: result.content[0]!.text, isError: result.isError === true };
}

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), uid);
}

describe("every hint names what the face that printed it offers", () => {
  it("another user's repository: the library names the option, the CLI --trust-repository (which snapshot now takes), MCP the server flag", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    chownTree(repo.dir, 65534);
    const real = realpathSync(repo.dir);
    const message = `error (unsafe_repository): The repository at ${real} belongs to another user; its config could make git run that user's programs.`;
    const library = await run(repo.dir, "git_status");
    expect(library.ok ? "ok" : library.error.hint).toBe("Only if you trust this repository, create the toolbox with trustRepository: true.");

    for (const args of [["snapshot"], ["tool", "git_status", "--format", "text"]]) {
      expect(gitctx(args, repo.dir)).toEqual({
        status: 1,
        stdout: "",
        stderr: `${message}\nhint: Only if you trust this repository, pass --trust-repository.\n`,
      });
      const trusted = gitctx([...args, "--trust-repository"], repo.dir);
      expect(trusted.status).toBe(0);
    }
    expect(gitctx(["snapshot", "--trust-repository"], repo.dir).stdout.split("\n")[0]).toBe(`Git repository: ${real}`);
    expect(await mcpCall(repo.dir, "git_status")).toEqual({
      text: `${message}\nhint: Only if you trust this repository, start the server with --trust-repository.`,
      isError: true,
    });
  });

  it("a git process over its time limit: the CLI hint says --timeout, not timeoutMs", () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    const git = switchableGit();
    git.hang();
    const result = gitctx(
      ["tool", "git_status", "--format", "text", "--timeout", "300"],
      repo.dir,
      `${git.dir}${delimiter}${process.env.PATH ?? ""}`,
    );
    expect(result.status).toBe(1);
    // The first git to run (the config scan, before git status) is the one stopped.
    expect(result.stderr).toMatch(
      /^error \(timeout\): git \w+ did not finish within 300 ms and was stopped\.\nhint: Narrow the request \(a path, a smaller count or range\), or pass a larger --timeout \(in milliseconds\)\.\n$/,
    );
  });

  it("outside a repository: the CLI hint names --root, the MCP one --root and the client's roots", async () => {
    const dir = tempDir();
    const real = realpathSync(dir);
    expect(gitctx(["tool", "git_log", "--format", "text"], dir).stderr).toBe(
      `error (not_a_repository): ${real} is not inside a git repository.\nhint: Point --root at a directory inside a git working tree, or run \`git init\` there first.\n`,
    );
    expect((await mcpCall(dir, "git_log")).text).toBe(
      `error (not_a_repository): ${real} is not inside a git repository.\n` +
        "hint: Point the server at a directory inside a git working tree: start it with --root <dir>, or without --root open that folder " +
        "in the client (the server uses the client's first MCP root), or run `git init` there first.",
    );
  });

  it("a mistyped tool gets 'Did you mean' in the library, the CLI and MCP", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    const expected = 'There is no tool named "git_stauts". Did you mean git_status?';
    const library = await run(repo.dir, "git_stauts");
    expect(library.ok ? "ok" : library.error.message).toBe(expected);
    const cli = gitctx(["tool", "git_stauts", "--format", "text"], repo.dir);
    expect(cli.status).toBe(1);
    expect(cli.stderr.split("\n")[0]).toBe(`error (unknown_tool): ${expected}`);
    const mcp = await mcpCall(repo.dir, "git_stauts");
    expect(mcp.isError).toBe(true);
    expect(mcp.text.split("\n")[0]).toBe(`error (unknown_tool): ${expected}`);
  });

  it("a number out of range gets the range in the hint", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    const result = await run(repo.dir, "git_log", { count: 5000 });
    expect(result.ok ? "ok" : result.error.hint).toBe(
      "count takes a whole number from 1 to 1000. git_log accepts: count, oneline, author, since, until, path, ref, skip, grep.",
    );
  });
});

describe("states the text names", () => {
  it("a detached HEAD names the tag it is at, as git status does", async () => {
    const repo = makeRepo();
    const first = repo.write("a.txt", "a\n").commit("first");
    repo.git(["tag", "-a", "-m", "release", "v1.0"]);
    repo.git(["tag", "also-here"]);
    repo.write("a.txt", "b\n").commit("second");
    repo.git(["checkout", "-q", "--detach", "v1.0"]);
    expect(plainGit(repo.dir, ["status"]).stdout.split("\n")[0]).toBe("HEAD detached at v1.0");
    const status = ok<GitStatusData>(await run(repo.dir, "git_status"));
    expect(status.data.branch).toMatchObject({ detached: true, oid: first, tags: ["also-here", "v1.0"] });
    expect(status.text.split("\n")[0]).toBe(`HEAD detached at tag also-here, tag v1.0 (${first.slice(0, 12)})`);
    const context = ok(await run(repo.dir, "git_context"));
    expect(context.text.split("\n")[1]).toBe("Branch: none (detached HEAD at tag also-here, tag v1.0)");
  });

  it("a merge in progress names the branch being merged", async () => {
    const repo = makeRepo();
    repo.write("c.txt", "base\n").commit("base");
    repo.git(["checkout", "-q", "-b", "feature/login"]);
    const feature = repo.write("c.txt", "feature\n").commit("feature side");
    repo.git(["checkout", "-q", "main"]);
    repo.write("c.txt", "main\n").commit("main side");
    expect(() => repo.git(["merge", "-q", "feature/login"])).toThrow();
    expect(readFileSync(join(repo.dir, ".git", "MERGE_MSG"), "utf8").split("\n")[0]).toBe("Merge branch 'feature/login'");
    const context = ok(await run(repo.dir, "git_context"));
    expect(context.text).toContain(
      `In progress: merge of feature/login (${feature.slice(0, 12)}). Resolve conflicts, git add, git commit; or git merge --abort.`,
    );
  });

  it("a submodule checked out at another commit than recorded says so, where git says 'new commits'", async () => {
    const lib = makeRepo();
    lib.write("lib.txt", "1\n").commit("lib 1");
    lib.write("lib.txt", "2\n").commit("lib 2");
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.dir, "vendor/lib"]);
    repo.commit("add lib");
    repo.git(["checkout", "-q", "HEAD~1"], { cwd: join(repo.dir, "vendor", "lib") });
    expect(plainGit(repo.dir, ["status"]).stdout).toContain("modified:   vendor/lib (new commits)");
    const status = ok<GitStatusData>(await run(repo.dir, "git_status"));
    expect(status.text.split("\n").slice(1)).toEqual([
      "1 path changed (1 unstaged):",
      " M vendor/lib (submodule: checked out at another commit than the one recorded)",
    ]);
    const context = ok(await run(repo.dir, "git_context"));
    expect(context.text).toContain("   M vendor/lib (submodule: checked out at another commit than the one recorded)");
    expect(context.text).toMatch(/\n {2}vendor\/lib [0-9a-f]{12} \S+ \(checked out at another commit than the one recorded\)$/);
  });

  it("the 'whole change of this branch' line is left out on the base branch itself", async () => {
    const origin = makeRepo({ bare: true });
    const seed = makeRepo();
    seed.write("a.txt", "a\n").commit("first");
    seed.git(["push", "-q", origin.dir, "main"]);
    const clone = cloneRepo(origin.dir);
    clone.write("b.txt", "b\n").commit("on main");
    const onMain = ok(await run(clone.dir, "git_context"));
    expect(onMain.text).toContain("Base branch: origin/main");
    expect(onMain.text).not.toContain("Whole change of this branch");
    clone.git(["checkout", "-q", "-b", "feature"]);
    clone.write("c.txt", "c\n").commit("on feature");
    expect(ok(await run(clone.dir, "git_context")).text).toContain("Whole change of this branch");
  });

  it("a staged symlink reads as a symlink in git_status and git_diff", async () => {
    const repo = makeRepo();
    repo.write("target.txt", "t\n").commit("first");
    repo.symlink("link", "target.txt");
    repo.git(["add", "link"]);
    expect(plainGit(repo.dir, ["diff", "--cached"]).stdout).toContain("new file mode 120000");
    expect(
      ok(await run(repo.dir, "git_status"))
        .text.split("\n")
        .slice(1),
    ).toEqual(["1 path changed (1 staged):", "A  link (symlink)"]);
    expect(ok(await run(repo.dir, "git_diff", { staged: true })).text.split("\n")[1]).toBe("A link (symlink, +1 -0, 1 hunk)");
  });
});

describe("git_log: which commits are on my branch, without a shell", () => {
  function branchRepo(): { clone: TestRepo; mine: string[] } {
    const origin = makeRepo({ bare: true });
    const seed = makeRepo();
    seed.write("a.txt", "a\n").commit("first");
    seed.git(["push", "-q", origin.dir, "main"]);
    const clone = cloneRepo(origin.dir);
    clone.git(["checkout", "-q", "-b", "feature"]);
    const mine = [1, 2, 3].map((n) => clone.write(`f${n}.txt`, `${n}\n`).commit(`feature ${n}`)).reverse();
    // main moves on after the branch left it.
    seed.write("z.txt", "z\n").commit("main moves");
    seed.git(["push", "-q", origin.dir, "main"]);
    clone.git(["fetch", "-q", "origin"]);
    return { clone, mine };
  }

  it("A..B lists the commits on B that are not on A, as git log does", async () => {
    const { clone, mine } = branchRepo();
    const log = ok<GitLogData>(await run(clone.dir, "git_log", { ref: "origin/main..HEAD" }));
    expect(log.data.commits.map((commit) => commit.hash)).toEqual(mine);
    expect(plainGit(clone.dir, ["log", "--format=%H", "origin/main..HEAD"]).stdout.trim().split("\n")).toEqual(mine);
    expect(log.data.range).toEqual({ left: clone.git(["rev-parse", "origin/main"]).trim(), right: mine[0], symmetric: false });
    expect(log.text.split("\n")[0]).toBe("3 commits on HEAD that are not on origin/main, newest first:");
  });

  it("@{base}..HEAD is the commits of the branch since it left its base", async () => {
    const { clone, mine } = branchRepo();
    const log = ok<GitLogData>(await run(clone.dir, "git_log", { ref: "@{base}..HEAD", oneline: true }));
    expect(log.data.commits.map((commit) => commit.hash)).toEqual(mine);
    const mergeBase = clone.git(["merge-base", "HEAD", "origin/main"]).trim();
    expect(log.text.split("\n")[0]).toMatch(
      new RegExp(
        `^3 commits on HEAD that are not on @\\{base\\} \\(merge-base ${mergeBase.slice(0, 12)} of HEAD and origin/main, [^)]*\\), newest first:$`,
      ),
    );
  });

  it("A...B lists the commits on either side but not both; a range side that names nothing is bad_revision", async () => {
    const { clone } = branchRepo();
    const log = ok<GitLogData>(await run(clone.dir, "git_log", { ref: "origin/main...HEAD" }));
    expect(log.data.commits.map((commit) => commit.hash)).toEqual(
      plainGit(clone.dir, ["log", "--format=%H", "origin/main...HEAD"]).stdout.trim().split("\n"),
    );
    expect(log.data.commits).toHaveLength(4);
    const bad = await run(clone.dir, "git_log", { ref: "origin/mian..HEAD" });
    expect(bad.ok ? "ok" : [bad.error.code, bad.error.message]).toEqual([
      "bad_revision",
      'ref "origin/mian" does not name a commit in this repository.',
    ]);
    const empty = ok<GitLogData>(await run(clone.dir, "git_log", { ref: "HEAD..HEAD" }));
    expect(empty.text).toBe("No commits on HEAD that are not on HEAD.");
  });
});
