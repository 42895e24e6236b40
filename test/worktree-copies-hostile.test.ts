/**
 * What a new worktree gets copies of, from a hostile main checkout. A `.claude` that is a link (an untracked one,
 * as an archive can hold) to the user's own `~/.claude`: a plain copy of `.claude/settings.json` reads through it
 * and brings the user's settings (an API key in their `env`) into the worktree; gitctx copies nothing reached
 * through a link. And a sparse file among the files a new worktree gets copies of: a repository unpacked from an archive can hold a
 * gitignored file of terabytes that takes no disk, and `.worktreeinclude` (the repository's own file) can select
 * it. A plain copy writes every byte (Node's copyFile keeps no holes): the disk fills and the call holds for as
 * long. gitctx leaves it out and says so.
 */
import type { SpawnOptions } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { createWorktree } from "../src/index.js";
import { makeRepo, tempDir } from "./fixtures/repo.js";

// What ran where, without a clock: the argument lists of the processes gitctx spawned (still spawned for real).
const seen = vi.hoisted(() => ({ spawned: [] as string[][] }));
vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:child_process")>();
  const spawn = (command: string, args: readonly string[], options: SpawnOptions) => {
    seen.spawned.push([command, ...args]);
    return actual.spawn(command, args, options);
  };
  return { ...actual, spawn: spawn as typeof actual.spawn };
});

const SPARSE_BYTES = 64 * 1024 * 1024;

describe("a sparse file .worktreeinclude selects", () => {
  it("a plain copy allocates every byte of it; gitctx copies the others and leaves it out, saying so", async () => {
    const repo = makeRepo();
    repo.write(".gitignore", "*.env\n.claude/settings.local.json\n").write(".worktreeinclude", "*.env\n").write("a.txt", "one\n").commit("first");
    writeFileSync(join(repo.dir, "small.env"), "KEY=1\n");
    const big = join(repo.dir, "big.env");
    writeFileSync(big, "");
    truncateSync(big, SPARSE_BYTES);
    mkdirSync(join(repo.dir, ".claude"));
    const settings = join(repo.dir, ".claude", "settings.local.json");
    writeFileSync(settings, "");
    truncateSync(settings, SPARSE_BYTES);
    const source = statSync(big);
    expect(source.blocks * 512).toBeLessThan(SPARSE_BYTES / 2);
    // The naive copy: every byte written (a terabyte file would fill the disk).
    const plain = join(tempDir("gitctx-sparse-copy-"), "big.env");
    copyFileSync(big, plain);
    expect(statSync(plain).blocks * 512).toBeGreaterThanOrEqual(SPARSE_BYTES);

    const created = await createWorktree({ root: repo.dir, name: "work" });
    expect(readFileSync(join(created.path, "small.env"), "utf8")).toBe("KEY=1\n");
    expect(existsSync(join(created.path, "big.env"))).toBe(false);
    expect(existsSync(join(created.path, ".claude", "settings.local.json"))).toBe(false);
    expect(created.copied).toEqual(["small.env"]);
    expect(created.notes.join("\n")).toContain("Did not copy 1 sparse file (big.env)");
    expect(created.notes.join("\n")).toContain("Did not copy 1 sparse file (.claude/settings.local.json)");
  });
});

describe("a .claude directory that is a link out of the main checkout", () => {
  it("a plain copy of its settings reads the user's own; gitctx copies nothing through the link", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "one\n").commit("first");
    const home = tempDir("gitctx-home-");
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "settings.json"), '{"env":{"ANTHROPIC_API_KEY":"sk-secret"}}\n');
    symlinkSync(join(home, ".claude"), join(repo.dir, ".claude"));
    // The naive copy: the main checkout's path leads to the user's file.
    expect(readFileSync(join(repo.dir, ".claude", "settings.json"), "utf8")).toContain("sk-secret");
    // Outside .claude, so the worktrees directory itself is not reached through the link (that is refused).
    const created = await createWorktree({ root: repo.dir, name: "work", settings: { directory: ".worktrees" } });
    expect(existsSync(join(created.path, ".claude"))).toBe(false);
    expect(created.copied).toEqual([]);
  });
});

describe("a .worktreeinclude pattern a backtracking matcher takes minutes over", () => {
  it("gitctx hands it to git, a process of its own, and matches nothing on the main thread", async () => {
    const repo = makeRepo();
    const pattern = `**/${"a/**/".repeat(5)}b`;
    repo.write(".gitignore", "build/\n").write(".worktreeinclude", `${pattern}\n*.env\n`).write("a.txt", "one\n").commit("first");
    const deep = join(repo.dir, "build", ...Array.from({ length: 60 }, () => "a"));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "c"), "x\n");
    writeFileSync(join(repo.dir, "build", "key.env"), "KEY=1\n");
    // The matcher gitctx used, the ignore package, compiles the pattern to a backtracking regex: one test of this
    // path held the main thread about 5 s, and each more `a/**/` multiplies it (hours at ten). gitctx runs
    // `git ls-files --others --ignored --exclude=<pattern>` instead: git matches, in its own process, and the file
    // the pattern selects is copied.
    seen.spawned.length = 0;
    const created = await createWorktree({ root: repo.dir, name: "work" });
    expect(created.copied).toEqual(["build/key.env"]);
    const matching = seen.spawned.filter((argv) => argv.includes(`--exclude=${pattern}`));
    expect(matching).toHaveLength(1);
    expect(matching[0]).toEqual(expect.arrayContaining(["ls-files", "--others", "--ignored", "--exclude=*.env"]));
  });
});
