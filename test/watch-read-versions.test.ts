/**
 * "Changed since you read it": versions recorded when an agent reads a file, checked later by stat, and by
 * content hash where the stat cannot tell (same size and time after the watcher saw the file change, or a new
 * time on the same bytes). And `events(since)`, what `git_changes` answers, over a small ring.
 */
import { rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ReadVersions } from "../src/index.js";
import { makeRepo } from "./fixtures/repo.js";
import { locationOf, watch } from "./fixtures/watch.js";

/** Rewrites a file with other bytes of the same length and puts its old modification time back. */
function sneakyEdit(path: string, content: string): void {
  const before = statSync(path);
  writeFileSync(path, content);
  utimesSync(path, before.atime, before.mtime);
  expect(statSync(path).size).toBe(before.size);
  expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
}

describe("read versions", () => {
  it("tells unchanged, modified and deleted files apart, hashing only when the stat is ambiguous", async () => {
    const repo = makeRepo();
    repo
      .write("a.ts", "export const a = 1;\n")
      .write("b.ts", "export const b = 1;\n")
      .write("c.ts", "export const c = 1;\n")
      .write("d.ts", "export const d = 1;\n");
    // Old enough that a same-second rewrite is not racy by the clock alone.
    const old = new Date(Date.now() - 60_000);
    for (const name of ["a.ts", "b.ts", "c.ts", "d.ts"]) utimesSync(join(repo.dir, name), old, old);
    const versions = new ReadVersions({ root: locationOf(repo.dir).root });
    for (const name of ["a.ts", "b.ts", "c.ts", "d.ts"]) await versions.record(name);
    const recorded = versions.recorded.find((version) => version.path === "a.ts")!;
    expect(recorded).toMatchObject({ size: 20, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

    repo.write("b.ts", "export const b = 22;\n"); // another size
    rmSync(join(repo.dir, "c.ts"));
    repo.write("d.ts", "export const d = 1;\n"); // same bytes, new time: the hash says unchanged
    const checks = await versions.check();
    const byPath = Object.fromEntries(checks.map((check) => [check.path, [check.status, check.decidedBy]]));
    expect(byPath).toEqual({
      "a.ts": ["unchanged", "stat"],
      "b.ts": ["modified", "stat"],
      "c.ts": ["deleted", "stat"],
      "d.ts": ["unchanged", "hash"],
    });
    expect((await versions.changedSince()).map((check) => check.path).sort()).toEqual(["b.ts", "c.ts"]);
    // A stat confirmed by a hash is remembered: once it is not recent (racy) any more, checks need no hash.
    const older = new Date(Date.now() - 30_000);
    utimesSync(join(repo.dir, "d.ts"), older, older);
    expect((await versions.check(["d.ts"]))[0]).toMatchObject({ status: "unchanged", decidedBy: "hash" });
    expect((await versions.check(["d.ts"]))[0]).toMatchObject({ status: "unchanged", decidedBy: "stat" });

    // Same size and time, other bytes, and no watcher to report it: a stat cannot see it (the next test shows
    // the watcher closing that gap).
    sneakyEdit(join(repo.dir, "a.ts"), "export const a = 9;\n");
    expect((await versions.check(["a.ts"]))[0]).toMatchObject({ status: "unchanged", decidedBy: "stat" });
  });

  it("hashes a file the watcher reported even when its size and time look the same", async () => {
    const repo = makeRepo();
    repo.write("a.ts", "export const a = 1;\n").commit("initial");
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(repo.dir, "a.ts"), old, old);
    const { watcher, recorder } = await watch(repo);
    const versions = new ReadVersions({ root: watcher.status().location.root, watcher });
    await versions.record("a.ts", { content: "export const a = 1;\n" });

    const seq = recorder.seq;
    sneakyEdit(join(repo.dir, "a.ts"), "export const a = 9;\n");
    await recorder.next((event) => event.paths.includes("a.ts"), seq, "the edit");
    expect(await versions.changedSince()).toMatchObject([{ path: "a.ts", status: "modified", decidedBy: "hash" }]);
    versions.close();
  });

  it("refuses to record a file that is not there", async () => {
    const versions = new ReadVersions({ root: makeRepo().dir });
    await expect(versions.record("missing.ts")).rejects.toMatchObject({ code: "path_not_found" });
  });
});

describe("events(since)", () => {
  it("answers the events after a sequence number from a bounded ring, with a count of the dropped ones", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("initial");
    const { watcher, recorder } = await watch(repo, { ringSize: 2 });
    expect(watcher.events()).toEqual({ seq: 0, since: 0, events: [], dropped: 0, degraded: null });
    for (const name of ["one", "two", "three"]) {
      const seq = recorder.seq;
      repo.git(["branch", name]);
      await recorder.next((event) => event.kind === "refs_updated", seq, `branch ${name}`);
    }
    const all = watcher.events(0);
    expect(all.seq).toBe(3);
    expect(all.events.map((event) => event.seq)).toEqual([2, 3]);
    expect(all.dropped).toBe(1);
    expect(watcher.events(2)).toMatchObject({ since: 2, dropped: 0, events: [{ seq: 3 }] });
    expect(watcher.events(3).events).toEqual([]);
  });
});
