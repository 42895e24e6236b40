/**
 * The git_changes tool: the first call starts watching and says so, later calls return what changed since a
 * sequence number (bounded, with what was dropped), the data matches the output schema, and a workspace that is
 * not a repository is an error the next call recovers from.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { GitChangesData, Toolbox, ToolResult } from "../src/index.js";
import { MAX_CHANGES } from "../src/tools/git-changes.js";
import { findTool } from "../src/tools/registry.js";
import { toolboxesClosedAfterEach } from "./fixtures/calls.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";
import { DEADLINE_MS } from "./fixtures/watch.js";

const toolboxAt = toolboxesClosedAfterEach();

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\n").commit("first");
  return repo;
}

const schema = findTool("git_changes")!.outputSchema!;

async function changes(toolbox: Toolbox, input: { since?: number } = {}): Promise<{ data: GitChangesData; text: string }> {
  const result = (await toolbox.execute("git_changes", input)) as ToolResult<GitChangesData>;
  if (!result.ok) expect.fail(JSON.stringify(result.error));
  // What the MCP client checks structuredContent against.
  expect(schema.parse(result.data)).toEqual(result.data);
  return result;
}

/** Calls git_changes until `match` holds for an answer (polling, with the watch tests' deadline). */
async function changesUntil(toolbox: Toolbox, input: { since?: number }, match: (data: GitChangesData) => boolean, what: string) {
  const end = Date.now() + DEADLINE_MS;
  for (;;) {
    const answer = await changes(toolbox, input);
    if (match(answer.data)) return answer;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the last answer was:\n${answer.text}`);
    await sleep(20);
  }
}

describe("git_changes", () => {
  it("starts watching on the first call, then answers what changed since a sequence number", async () => {
    const repo = committedRepo();
    const toolbox = toolboxAt(repo.dir);
    const first = await changes(toolbox);
    expect(first.data).toMatchObject({ started: true, seq: 0, since: 0, events: [], dropped: 0, degraded: null });
    expect(first.text).toBe(
      `Watching ${first.data.root} from now on: changes made before this call are not known (read them with git_status).\n` +
        "No changes yet (sequence 0).\nNext time, ask for changes since 0.",
    );

    repo.write("a.txt", "two\n");
    const edited = await changesUntil(toolbox, { since: 0 }, (data) => data.events.some((event) => event.kind === "change"), "the edit");
    expect(edited.data.started).toBe(false);
    expect(edited.data.events.find((event) => event.kind === "change")).toMatchObject({ category: "source", paths: ["a.txt"], count: 1 });
    expect(edited.text).toMatch(
      /^1 change since watching started, up to #\d+:\n#\d+ source change: file modified: a\.txt\nNext time, ask for changes since \d+\.$/,
    );

    const seq = edited.data.seq;
    repo.commit("second");
    const committed = await changesUntil(toolbox, { since: seq }, (data) => data.events.some((event) => event.kind === "commit"), "the commit");
    expect(committed.data.since).toBe(seq);
    expect(committed.data.events.every((event) => event.seq > seq)).toBe(true);
    expect(committed.data.events.find((event) => event.kind === "commit")).toMatchObject({
      category: "git",
      git: { toBranch: "main", toOid: repo.head() },
    });
    expect(committed.text).toContain(`since #${seq}, up to #${committed.data.seq}:`);

    const quiet = await changes(toolbox, { since: committed.data.seq });
    expect(quiet.data.events).toEqual([]);
    expect(quiet.text).toBe(
      `No changes since #${committed.data.seq} (sequence ${committed.data.seq}).\nNext time, ask for changes since ${committed.data.seq}.`,
    );
  });

  it(`lists at most the ${MAX_CHANGES} most recent changes and counts the others, and those the watcher no longer holds`, async () => {
    const repo = committedRepo();
    // Every file its own event (no bulk summary), and a ring that holds 150.
    const toolbox = toolboxAt(repo.dir, { watch: { bulkThreshold: 1000, ringSize: 150 } });
    await changes(toolbox);
    for (let i = 0; i < 180; i++) repo.write(`many/f${String(i).padStart(3, "0")}.txt`, `${i}\n`);
    const all = await changesUntil(toolbox, {}, (data) => data.seq >= 180, "180 events");
    expect(all.data.events).toHaveLength(MAX_CHANGES);
    expect(all.data.events.at(-1)!.seq).toBe(all.data.seq);
    // 30 no longer held by the ring, 50 held but older than the 100 listed.
    expect(all.data.dropped).toBe(all.data.seq - MAX_CHANGES);
    expect(all.text.split("\n").slice(0, 3)).toEqual([
      `Only the ${MAX_CHANGES} most recent changes are listed.`,
      `${all.data.seq} changes since watching started, up to #${all.data.seq}:`,
      `${all.data.seq - MAX_CHANGES} older events no longer held (the watcher keeps the most recent ones): read the current state with git_status or git_context.`,
    ]);
    const recent = await changes(toolbox, { since: all.data.seq - 5 });
    expect(recent.data.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5].map((i) => all.data.seq - 5 + i));
    expect(recent.data.dropped).toBe(0);
  });

  it("says so when since is ahead of the watcher", async () => {
    const repo = committedRepo();
    const toolbox = toolboxAt(repo.dir);
    await changes(toolbox);
    const ahead = await changes(toolbox, { since: 40 });
    expect(ahead.data).toMatchObject({ since: 40, seq: 0, events: [], dropped: 0 });
    expect(ahead.text.split("\n")[0]).toBe(
      "since 40 is after the newest change (0): it is not from this session's watcher. Ask for changes since 0, and read the current state with git_status.",
    );
  });

  it("is not_a_repository outside one, refuses bad input, and starts once the directory is a repository", async () => {
    const dir = tempDir();
    const toolbox = toolboxAt(dir);
    const outside = await toolbox.execute("git_changes", {});
    expect(outside.ok === false && outside.error.code).toBe("not_a_repository");
    const bad = await toolbox.execute("git_changes", { since: -1, until: 3 });
    expect(bad.ok === false && bad.error.code).toBe("invalid_input");
    makeRepo({ dir });
    expect((await changes(toolbox)).data.started).toBe(true);
  });
});
