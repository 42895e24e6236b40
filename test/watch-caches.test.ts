/**
 * The session's caches are fresh after every kind of event: the watcher drops what an event makes stale before
 * anyone hears of it, and the very next call reads afresh. Each test sets a watching session beside a control
 * session that does not watch, so it shows both halves: what the watcher does, and that without it the cache
 * would have stayed (the signature checks do not look at HEAD for the config scan, nor at HEAD for the index
 * copy, and drop nothing until the next call).
 *
 * What is counted: config scans (`git config --list`) and index copies (the `GIT_INDEX_FILE` each git ran with)
 * through a `git` on the session's search path that logs its environment and arguments, the index copies'
 * directories in each session's own TMPDIR, and the instruction loads announced (`instructionsLoaded`).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { GitCaches } from "../src/git/caches.js";
import { createToolbox, type FileChangedEvent, type InstructionsLoadedEvent, type Toolbox, type WatchEvent } from "../src/index.js";
import { loggingGit } from "./fixtures/logging-git.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";
import { moveRootAsAWriteTool, waitFor } from "./fixtures/watch.js";
import { invalidationFor } from "../src/session/watching.js";

interface Observed {
  toolbox: Toolbox;
  git: ReturnType<typeof loggingGit>;
  /** This session's TMPDIR: its private directory, and the index copies' directories in it. */
  tmp: string;
  changes: FileChangedEvent[];
  loads: InstructionsLoadedEvent[];
  /** Directories of index copies that exist right now. */
  copies(): number;
  /** Config listings the session keeps (what the next call would answer without scanning). */
  keptScans(): number;
}

const open: Toolbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolbox) => toolbox.close()));
});

/**
 * A session on `repo` with its own logging git and TMPDIR (its private directory is made on its first git call,
 * which is made here, so sessions made one after the other keep apart).
 */
async function observed(repo: TestRepo, watching: boolean): Promise<Observed> {
  const git = loggingGit();
  const tmp = tempDir("gitctx-caches-tmp-");
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
  open.push(toolbox);
  const changes: FileChangedEvent[] = [];
  const loads: InstructionsLoadedEvent[] = [];
  toolbox.on("fileChanged", (event) => changes.push(event));
  toolbox.on("instructionsLoaded", (event) => loads.push(event));
  try {
    expect((await toolbox.execute("git_diff", {})).ok).toBe(true);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  if (watching) await toolbox.watch().ready;
  const caches = (toolbox as unknown as { caches: GitCaches }).caches;
  return {
    toolbox,
    git,
    tmp,
    changes,
    loads,
    copies: () => {
      const area = readdirSync(tmp).find((name) => name.startsWith("gitctx-private-"));
      return area === undefined ? 0 : readdirSync(join(tmp, area)).filter((name) => name.startsWith("scratch-")).length;
    },
    keptScans: () => caches.configScans.listings.size,
  };
}

/**
 * Calls git_diff (which works on the index copy) until a call is answered without a new scan and with the copy it
 * had (the config and the index must have been left alone longer than the timestamps' trust window): from then
 * on both are kept.
 */
async function untilKept(session: Observed): Promise<void> {
  for (;;) {
    const scans = session.git.scans();
    const copies = session.git.indexFiles().length;
    expect((await session.toolbox.execute("git_diff", {})).ok).toBe(true);
    if (session.git.scans() === scans && session.git.indexFiles().length === copies) return;
    await sleep(5);
  }
}

/** The fileChanged of the first event after `from` that matches. */
function changeAfter(session: Observed, from: number, match: (event: WatchEvent) => boolean, what: string): Promise<FileChangedEvent> {
  return waitFor(() => session.changes.slice(from).find((change) => match(change.event)), what);
}

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\n").write("b.txt", "bee\n").commit("first");
  repo.write("a.txt", "two\n").commit("second");
  return repo;
}

/**
 * git_status and git_diff in one line (branch, HEAD, every path's state, the unstaged diff's files), for checking
 * that an answer is the current one: git_status scans the config, git_diff works on the index copy.
 */
async function statusLine(toolbox: Toolbox): Promise<string> {
  const status = await toolbox.execute("git_status", {});
  const diff = await toolbox.execute("git_diff", {});
  if (!status.ok) expect.fail(JSON.stringify(status.error));
  if (!diff.ok) expect.fail(JSON.stringify(diff.error));
  const data = status.data;
  const entries = data.entries.map((entry) => `${entry.index}${entry.worktree} ${entry.path}`).join(", ");
  const files = diff.data.files.map((file) => `${file.status} ${file.path} +${file.additions}-${file.deletions}`).join(", ");
  return `${data.branch.head ?? "(detached)"} ${data.branch.oid?.slice(0, 7) ?? ""} [${entries}] diff [${files}]`;
}

describe("the config scan", () => {
  it("config_changed: the scan is dropped when the event arrives, and the next call scans once", async () => {
    const repo = committedRepo();
    const watching = await observed(repo, true);
    await untilKept(watching);
    expect(watching.keptScans()).toBe(1);
    const scans = watching.git.scans();

    const from = watching.changes.length;
    repo.git(["config", "gitctx.test", "1"]);
    const change = await changeAfter(watching, from, (event) => event.kind === "config_changed", "config_changed");
    expect(change.invalidated).toEqual(["configScan", "userConfig"]);
    // Dropped before anyone asked: without the watcher the listing would be there until the next call.
    expect(watching.keptScans()).toBe(0);
    expect(watching.git.scans()).toBe(scans);
    expect((await watching.toolbox.execute("git_status", {})).ok).toBe(true);
    expect(watching.git.scans()).toBe(scans + 1);
  });

  it("branch_switched and detached: scanned again, where the signature check alone keeps the scan", async () => {
    const repo = committedRepo();
    const control = await observed(repo, false);
    const watching = await observed(repo, true);
    await untilKept(control);
    await untilKept(watching);

    for (const [command, kind] of [
      [["switch", "-q", "-c", "feature"], "branch_switched"],
      [["switch", "-q", "--detach", "HEAD~1"], "detached"],
    ] as const) {
      const scans = { control: control.git.scans(), watching: watching.git.scans() };
      const from = watching.changes.length;
      repo.git([...command]);
      const change = await changeAfter(watching, from, (event) => event.kind === kind, kind);
      expect(change.invalidated).toEqual(["configScan", "userConfig", "privateIndex"]);
      expect(change.instructions).toBe("all");
      expect(watching.keptScans()).toBe(0);
      const expected = await statusLine(watching.toolbox);
      expect(watching.git.scans()).toBe(scans.watching + 1);
      // The control session answers the same, without scanning: its scan stays until something it watches changes.
      expect(await statusLine(control.toolbox)).toBe(expected);
      expect(control.git.scans()).toBe(scans.control);
      await untilKept(watching);
    }
  });

  it("staged .gitmodules or a submodule: scanned again, where the signature check keeps the listing", async () => {
    const repo = committedRepo();
    const control = await observed(repo, false);
    const watching = await observed(repo, true);
    await untilKept(control);
    await untilKept(watching);

    let scans = { control: control.git.scans(), watching: watching.git.scans() };
    let from = watching.changes.length;
    repo.write(".gitmodules", '[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n');
    repo.git(["add", ".gitmodules"]);
    let change = await changeAfter(watching, from, (event) => event.kind === "staged" && event.paths.includes(".gitmodules"), "staged .gitmodules");
    expect(change.invalidated).toEqual(["privateIndex", "configScan"]);
    await statusLine(watching.toolbox);
    await statusLine(control.toolbox);
    expect(watching.git.scans()).toBe(scans.watching + 1);
    expect(control.git.scans()).toBe(scans.control);

    await untilKept(watching);
    await untilKept(control);
    const lib = makeRepo({ dir: join(repo.dir, "lib") });
    lib.write("l.txt", "lib\n").commit("lib");
    scans = { control: control.git.scans(), watching: watching.git.scans() };
    from = watching.changes.length;
    repo.git(["add", "lib"]);
    change = await changeAfter(watching, from, (event) => event.kind === "staged" && event.paths.includes("lib"), "the staged gitlink");
    expect(change.invalidated).toEqual(["privateIndex", "configScan"]);
    const expected = await statusLine(watching.toolbox);
    expect(await statusLine(control.toolbox)).toBe(expected);
    // Both list the new submodule's config (the index changed); only the watching one lists the repository's again.
    expect(watching.git.scans() - scans.watching).toBe(control.git.scans() - scans.control + 1);
  });
});

describe("the private index copy", () => {
  it("commit, reset, head moved, stash, a merge stopped and then finished: the copy goes when the event arrives", async () => {
    const repo = committedRepo();
    repo.git(["switch", "-q", "-c", "other"]);
    repo.write("b.txt", "theirs\n").commit("theirs");
    repo.git(["switch", "-q", "main"]);
    repo.write("b.txt", "ours\n").commit("ours");
    const control = await observed(repo, false);
    const watching = await observed(repo, true);

    const steps: Array<{ kind: string; run: () => void }> = [
      { kind: "commit", run: () => repo.write("a.txt", "three\n").commit("third") },
      { kind: "reset", run: () => repo.git(["reset", "-q", "--soft", "HEAD~1"]) },
      { kind: "head_moved", run: () => repo.git(["update-ref", "-m", "moved by a script", "HEAD", "HEAD@{1}"]) },
      { kind: "stash", run: () => (repo.write("a.txt", "work in progress\n"), repo.git(["stash", "-q"])) },
      { kind: "merge_started", run: () => expect(repo.git.bind(repo, ["merge", "-q", "--no-edit", "other"])).toThrow() },
      { kind: "merge_finished", run: () => (repo.write("b.txt", "resolved\n"), repo.git(["add", "b.txt"]), repo.git(["commit", "-q", "--no-edit"])) },
    ];
    for (const step of steps) {
      await untilKept(control);
      await untilKept(watching);
      expect([control.copies(), watching.copies()]).toEqual([1, 1]);
      const copies = { control: control.git.indexFiles().length, watching: watching.git.indexFiles().length };
      const from = watching.changes.length;
      step.run();
      const change = await changeAfter(watching, from, (event) => event.kind === step.kind, step.kind);
      expect(change.invalidated, step.kind).toContain("privateIndex");
      // Gone at once, before any call; the control session still holds its copy until its next call looks.
      expect([control.copies(), watching.copies()], step.kind).toEqual([1, 0]);
      const expected = await statusLine(watching.toolbox);
      expect(watching.git.indexFiles().length, step.kind).toBe(copies.watching + 1);
      expect(await statusLine(control.toolbox), step.kind).toBe(expected);
      if (step.kind === "reset" || step.kind === "head_moved") {
        // HEAD moved but the index file did not: without the watcher, the old copy is used again.
        expect(control.git.indexFiles().length, step.kind).toBe(copies.control);
      }
    }
  });
});

describe("the instruction files", () => {
  it("an edited instruction file, a new one in a subdirectory and a new rule are loaded again at once; the control hears nothing", async () => {
    const repo = committedRepo();
    repo.write("CLAUDE.md", "Root rule one.\n").write("src/app.ts", "app\n").commit("instructions");
    const control = await observed(repo, false);
    const watching = await observed(repo, true);
    const input = { paths: ["src/app.ts"] };
    for (const session of [control, watching]) expect((await session.toolbox.execute("load_instructions", input)).ok).toBe(true);
    expect([control.loads.length, watching.loads.length]).toEqual([1, 1]);

    const edits: Array<{ what: string; write: () => void; expect: string; category: string }> = [
      { what: "the edited CLAUDE.md", write: () => repo.write("CLAUDE.md", "Root rule two.\n"), expect: "Root rule two.", category: "instructions" },
      { what: "a new src/CLAUDE.md", write: () => repo.write("src/CLAUDE.md", "Source rule.\n"), expect: "Source rule.", category: "instructions" },
      {
        what: "a new rule for *.ts",
        write: () => repo.write(".claude/rules/ts.md", '---\npaths: ["**/*.ts"]\n---\nTypeScript rule.\n'),
        expect: "TypeScript rule.",
        category: "rules",
      },
    ];
    for (const edit of edits) {
      const from = watching.changes.length;
      const loads = watching.loads.length;
      edit.write();
      const change = await changeAfter(watching, from, (event) => event.category === edit.category, edit.what);
      expect(change.instructions, edit.what).not.toEqual([]);
      const reloaded = await waitFor(
        () => watching.loads.slice(loads).find((load) => load.result.text.includes(edit.expect)),
        `the reload after ${edit.what}`,
      );
      expect(reloaded.paths).toEqual(["src/app.ts"]);
      // The agent's next call gets what the reload read, from memory.
      const hits = watching.toolbox.instructions.stats.hits;
      const next = await watching.toolbox.execute("load_instructions", input);
      expect(next.ok && next.text, edit.what).toContain(edit.expect);
      expect(watching.toolbox.instructions.stats.hits).toBe(hits + 1);
    }
    // Without the watcher nothing was loaded again: the control session reads the files when next asked.
    expect(control.loads).toHaveLength(1);
    const late = await control.toolbox.execute("load_instructions", input);
    expect(late.ok && late.text).toContain("TypeScript rule.");
  });
});

describe("a root change", () => {
  it("drops everything the session keeps: scans, index copies, instruction loads, discovery", async () => {
    const repo = committedRepo();
    repo.write("pkg/CLAUDE.md", "Package rule.\n").write("pkg/c.txt", "see\n").commit("pkg");
    const watching = await observed(repo, true);
    await untilKept(watching);
    expect((await watching.toolbox.execute("load_instructions", {})).ok).toBe(true);
    expect([watching.keptScans(), watching.copies()]).toEqual([1, 1]);
    const hits = watching.toolbox.instructions.stats.hits;

    const from = watching.changes.length;
    await moveRootAsAWriteTool(watching.toolbox, join(repo.dir, "pkg"));
    const change = await changeAfter(watching, from, (event) => event.kind === "root_changed", "root_changed");
    expect(change.invalidated).toEqual(["discovery", "stateFiles", "configScan", "userConfig", "privateIndex", "instructions"]);
    expect([watching.keptScans(), watching.copies()]).toEqual([0, 0]);
    const loaded = await watching.toolbox.execute("load_instructions", {});
    expect(loaded.ok && loaded.text).toContain("Package rule.");
    expect(watching.toolbox.instructions.stats.hits).toBe(hits);
    expect((await watching.toolbox.paths()).root.endsWith("/pkg")).toBe(true);
  });
});

describe("invalidationFor", () => {
  const root = "/repo";
  const event = (fields: Partial<WatchEvent>): WatchEvent => ({
    seq: 1,
    time: "2026-01-01T00:00:00.000Z",
    category: "git",
    kind: "commit",
    paths: [],
    count: 0,
    summary: "",
    ...fields,
  });
  const noDirectories = () => false;

  it("maps every kind of event to the caches it makes stale", () => {
    const table: Array<[Partial<WatchEvent>, ReturnType<typeof invalidationFor>]> = [
      [{ kind: "config_changed" }, { caches: ["configScan", "userConfig"], instructions: [] }],
      [{ kind: "branch_switched" }, { caches: ["configScan", "userConfig", "privateIndex"], instructions: "all" }],
      [{ kind: "detached" }, { caches: ["configScan", "userConfig", "privateIndex"], instructions: "all" }],
      ...(
        [
          "commit",
          "reset",
          "head_moved",
          "stash",
          "merge_started",
          "merge_finished",
          "rebase_aborted",
          "cherry_pick_finished",
          "revert_started",
          "am_aborted",
          "bisect_finished",
        ] as const
      ).map((kind): [Partial<WatchEvent>, ReturnType<typeof invalidationFor>] => [{ kind }, { caches: ["privateIndex"], instructions: [] }]),
      [
        { kind: "staged", paths: ["a.txt"], count: 1 },
        { caches: ["privateIndex"], instructions: [] },
      ],
      [
        { kind: "unstaged", paths: ["sub/.gitmodules"], count: 1 },
        { caches: ["privateIndex", "configScan"], instructions: [] },
      ],
      // A sample: the paths left out may be a gitlink.
      [
        { kind: "staged", paths: ["a.txt"], count: 600 },
        { caches: ["privateIndex", "configScan"], instructions: [] },
      ],
      ...(["upstream_moved", "refs_updated", "fetch", "excludes_changed", "worktrees_changed"] as const).map(
        (kind): [Partial<WatchEvent>, ReturnType<typeof invalidationFor>] => [{ kind }, { caches: [], instructions: [] }],
      ),
      [
        { category: "instructions", kind: "change", paths: ["CLAUDE.md", "/home/u/.claude/CLAUDE.md"] },
        { caches: [], instructions: ["/repo/CLAUDE.md", "/home/u/.claude/CLAUDE.md"] },
      ],
      [
        { category: "rules", kind: "rename", paths: [".claude/rules/a.md", ".claude/rules/b.md"] },
        { caches: [], instructions: ["/repo/.claude/rules/a.md", "/repo/.claude/rules/b.md"] },
      ],
      [
        { category: "rules", kind: "bulk", paths: [".claude/rules/a.md"], count: 40 },
        { caches: [], instructions: "all" },
      ],
      [
        { category: "source", kind: "change", paths: ["a.txt"] },
        { caches: [], instructions: [] },
      ],
      [
        { category: "settings", kind: "change", paths: [".mcp.json"] },
        { caches: [], instructions: [] },
      ],
      [
        { category: "watcher", kind: "root_changed" },
        { caches: ["discovery", "stateFiles", "configScan", "userConfig", "privateIndex", "instructions"], instructions: "all" },
      ],
      [
        { category: "watcher", kind: "degraded" },
        { caches: [], instructions: [] },
      ],
    ];
    for (const [fields, expected] of table) expect(invalidationFor(event(fields), root, noDirectories), JSON.stringify(fields)).toEqual(expected);
  });

  it("tells a staged gitlink by the directory in the work tree", () => {
    const staged = event({ kind: "staged", paths: ["lib", "a.txt"], count: 2 });
    expect(invalidationFor(staged, root, (path) => path === "/repo/lib").caches).toEqual(["privateIndex", "configScan"]);
    expect(invalidationFor(staged, root, noDirectories).caches).toEqual(["privateIndex"]);
  });
});
