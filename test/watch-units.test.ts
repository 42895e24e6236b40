/**
 * The watcher's pure parts against real git output where there is some: the index parser (versions 2, 3 and 4,
 * SHA-1 and SHA-256) checked against `git ls-files --stage`, the ignored-directories listing, path
 * classification, burst coalescing, the event ring, and the text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyPath, renderWatchChanges, type WatchEvent } from "../src/index.js";
import { ChangeBatch, fileEvents, netChange } from "../src/watch/coalesce.js";
import { changedIndexPaths, oidBytesFromConfig, parseIndex } from "../src/watch/index-file.js";
import { ignoredDirectoriesFromListing } from "../src/watch/ignored.js";
import { EventRing } from "../src/watch/ring.js";
import { makeRepo, tempDir, TestRepo } from "./fixtures/repo.js";
import { execFileSync } from "node:child_process";
import { fixtureEnv } from "./fixtures/repo.js";

function stageListing(repo: TestRepo): string[] {
  return repo
    .git(["ls-files", "--stage", "-z"])
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => {
      const [meta, path] = line.split("\t") as [string, string];
      const [mode, oid, stage] = meta.split(" ");
      return `${mode} ${oid} ${stage}\t${path}`;
    });
}

function parsedListing(repo: TestRepo, oidBytes = 20): string[] {
  const parsed = parseIndex(readFileSync(join(repo.dir, ".git", "index")), oidBytes);
  return parsed.entries.map(
    (entry) => `${entry.mode.toString(8).padStart(6, "0")} ${entry.oid} ${entry.stage}\t${Buffer.from(entry.path, "latin1").toString("utf8")}`,
  );
}

function indexRepo(): TestRepo {
  const repo = makeRepo();
  repo
    .write("a.txt", "a\n")
    .write("dir/b.txt", "b\n")
    .write("dir/sub/c.txt", "c\n")
    .write("dir/sub/cé ü.txt", "unicode\n")
    .write("run.sh", "#!/bin/sh\n", 0o755);
  repo.symlink("link", "a.txt");
  repo.commit("initial");
  return repo;
}

describe("the index parser", () => {
  it("reads a version 2 index as git lists it, and a version 4 one (prefix-compressed paths) the same", () => {
    const repo = indexRepo();
    expect(parseIndex(readFileSync(join(repo.dir, ".git", "index"))).version).toBe(2);
    expect(parsedListing(repo)).toEqual(stageListing(repo));
    const v2 = parseIndex(readFileSync(join(repo.dir, ".git", "index"))).digest;
    repo.git(["update-index", "--index-version", "4"]);
    expect(parseIndex(readFileSync(join(repo.dir, ".git", "index"))).version).toBe(4);
    expect(parsedListing(repo)).toEqual(stageListing(repo));
    // Same entries, another encoding: the same digest.
    expect(parseIndex(readFileSync(join(repo.dir, ".git", "index"))).digest).toBe(v2);
  });

  it("reads extended flags (version 3, intent-to-add) and conflict stages", () => {
    const repo = indexRepo();
    repo.write("later.txt", "later\n");
    repo.git(["add", "-N", "later.txt"]);
    const parsed = parseIndex(readFileSync(join(repo.dir, ".git", "index")));
    expect(parsed.version).toBe(3);
    expect(parsed.entries.find((entry) => entry.path === "later.txt")?.intentToAdd).toBe(true);
    expect(parsedListing(repo)).toEqual(stageListing(repo));

    const conflict = makeRepo();
    conflict.write("x.txt", "base\n").commit("base");
    conflict.git(["switch", "-q", "-c", "other"]);
    conflict.write("x.txt", "other\n").commit("other");
    conflict.git(["switch", "-q", "main"]);
    conflict.write("x.txt", "main\n").commit("main");
    try {
      conflict.git(["merge", "-q", "other"]);
    } catch {
      // The conflict is the point.
    }
    const stages = parseIndex(readFileSync(join(conflict.dir, ".git", "index"))).entries.map((entry) => entry.stage);
    expect(stages).toEqual([1, 2, 3]);
    expect(parsedListing(conflict)).toEqual(stageListing(conflict));
  });

  it("leaves stat data out of the digest: a refresh of the same entries digests the same, a staged change does not", () => {
    const repo = indexRepo();
    const before = parseIndex(readFileSync(join(repo.dir, ".git", "index")));
    repo.write("a.txt", "a\n"); // same bytes, new mtime
    repo.git(["update-index", "--refresh"]);
    const refreshed = parseIndex(readFileSync(join(repo.dir, ".git", "index")));
    expect(refreshed.digest).toBe(before.digest);
    repo.write("a.txt", "changed\n");
    repo.git(["add", "a.txt"]);
    const staged = parseIndex(readFileSync(join(repo.dir, ".git", "index")));
    expect(staged.digest).not.toBe(before.digest);
    expect(changedIndexPaths(before.entries, staged.entries)).toEqual(["a.txt"]);
  });

  it("reads a SHA-256 repository's index", () => {
    const dir = tempDir();
    execFileSync("git", ["-c", "init.defaultBranch=main", "init", "-q", "--object-format=sha256", dir], { env: fixtureEnv() });
    const repo = new TestRepo(dir);
    repo.write("a.txt", "a\n").commit("initial");
    const oidBytes = oidBytesFromConfig(readFileSync(join(dir, ".git", "config"), "utf8"));
    expect(oidBytes).toBe(32);
    expect(parsedListing(repo, oidBytes)).toEqual(stageListing(repo));
  });

  it("refuses what is not an index", () => {
    expect(() => parseIndex(Buffer.from("not an index at all"))).toThrow(/DIRC/);
  });
});

describe("ignored directories from git's listing", () => {
  it("keeps directories with nothing listed below them", () => {
    // What `git ls-files --others --ignored --exclude-standard --directory` prints for `build/` and `*.log`
    // ignored, with src/deep/ holding only an ignored build/ directory.
    const listing = ["a.log", "build/", "src/deep/", "src/deep/build/", "src/deep-er/", "logs/", "logs/x.log"];
    expect(ignoredDirectoriesFromListing(listing)).toEqual(["build/", "src/deep-er/", "src/deep/build/"]);
  });
});

describe("classification", () => {
  it.each([
    ["CLAUDE.md", false, "instructions"],
    ["packages/api/CLAUDE.md", false, "instructions"],
    ["CLAUDE.local.md", false, "instructions"],
    [".claude/CLAUDE.md", false, "instructions"],
    ["AGENTS.override.md", false, "instructions"],
    [".github/copilot-instructions.md", false, "instructions"],
    ["docs/imported-style.md", true, "instructions"],
    ["docs/imported-style.md", false, "source"],
    [".claude/rules/testing.md", false, "rules"],
    ["packages/api/.claude/rules/api.md", false, "rules"],
    [".cursor/rules/style.mdc", false, "rules"],
    [".github/instructions/ts.instructions.md", true, "rules"],
    [".claude/settings.json", false, "settings"],
    [".claude/settings.local.json", false, "settings"],
    [".mcp.json", false, "settings"],
    [".worktreeinclude", false, "settings"],
    ["src/app.ts", false, "source"],
    ["notes/CLAUDE.md.bak", false, "source"],
  ] as const)("%s (loaded: %s) is %s", (path, loaded, category) => {
    expect(classifyPath(path, loaded)).toBe(category);
  });
});

describe("bursts", () => {
  it("nets out what happened to a path", () => {
    expect(netChange("add", "unlink")).toBeNull();
    expect(netChange("unlink", "add")).toBe("change");
    expect(netChange("add", "change")).toBe("add");
    expect(netChange("change", "unlink")).toBe("unlink");
  });

  const context = {
    classify: (path: string) => classifyPath(path.slice(1), false),
    display: (path: string) => path.slice(1),
    inodeBefore: (path: string) => (path === "/old.ts" ? 42 : undefined),
    bulkThreshold: 3,
    sampleSize: 2,
  };

  it("pairs a deletion and a creation of the same inode as a rename, and cancels a file created and deleted", () => {
    const batch = new ChangeBatch();
    batch.note("/old.ts", "unlink", undefined, 1);
    batch.note("/new.ts", "add", 42, 2);
    batch.note("/tmp.swp", "add", 7, 3);
    batch.note("/tmp.swp", "unlink", undefined, 4);
    expect(fileEvents(batch.take(), context).map((event) => [event.kind, event.paths])).toEqual([["rename", ["old.ts", "new.ts"]]]);
  });

  it("makes more files than the threshold one bulk event with counts and a sample, instructions apart", () => {
    const batch = new ChangeBatch();
    for (const name of ["a", "b", "c", "d"]) batch.note(`/${name}.ts`, "add", undefined, 1);
    batch.note("/e.ts", "unlink", undefined, 1);
    batch.note("/CLAUDE.md", "change", undefined, 1);
    const events = fileEvents(batch.take(), { ...context, cause: { seq: 7, kind: "branch_switched" } });
    expect(events.map((event) => [event.category, event.kind, event.count])).toEqual([
      ["instructions", "change", 1],
      ["source", "bulk", 5],
    ]);
    expect(events[1]).toMatchObject({
      paths: ["a.ts", "b.ts"],
      counts: { added: 4, changed: 0, deleted: 1, renamed: 0 },
      cause: { seq: 7, kind: "branch_switched" },
    });
    expect(events[1]!.summary).toBe("5 files changed with branch switched (#7) (4 created, 1 deleted): a.ts, b.ts");
  });
});

describe("the event ring and its text", () => {
  const event = (seq: number): WatchEvent => ({
    seq,
    time: "2026-01-01T00:00:00.000Z",
    category: "source",
    kind: "change",
    paths: [`f${seq}.ts`],
    count: 1,
    summary: `file modified: f${seq}.ts`,
  });

  it("keeps the newest events and counts what a late caller missed", () => {
    const ring = new EventRing(3);
    for (let seq = 1; seq <= 5; seq++) ring.push(event(seq));
    expect(ring.since(0, 5)).toEqual({ events: [event(3), event(4), event(5)], dropped: 2 });
    expect(ring.since(3, 5)).toEqual({ events: [event(4), event(5)], dropped: 0 });
    expect(ring.since(5, 5)).toEqual({ events: [], dropped: 0 });
  });

  it("renders what git_changes answers", () => {
    expect(renderWatchChanges({ seq: 5, since: 1, events: [event(4), event(5)], dropped: 2, degraded: null })).toBe(
      [
        "4 changes since #1, up to #5:",
        "2 older events no longer held (the watcher keeps the most recent ones): read the current state with git_status or git_context.",
        "#4 source change: file modified: f4.ts",
        "#5 source change: file modified: f5.ts",
        "Next time, ask for changes since 5.",
      ].join("\n"),
    );
    expect(renderWatchChanges({ seq: 5, since: 5, events: [], dropped: 0, degraded: null })).toBe(
      "No changes since #5 (sequence 5).\nNext time, ask for changes since 5.",
    );
  });
});
