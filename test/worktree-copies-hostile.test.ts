/**
 * What a new worktree gets copies of, from a hostile main checkout. A `.claude` that is a link (an untracked one,
 * as an archive can hold) to the user's own `~/.claude`: a plain copy of `.claude/settings.json` reads through it
 * and brings the user's settings (an API key in their `env`) into the worktree; gitctx copies nothing reached
 * through a link. And a sparse file among the files a new worktree gets copies of: a repository unpacked from an archive can hold a
 * gitignored file of terabytes that takes no disk, and `.worktreeinclude` (the repository's own file) can select
 * it. A plain copy writes every byte (Node's copyFile keeps no holes): the disk fills and the call holds for as
 * long. gitctx leaves it out and says so.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ignore from "ignore";
import { describe, expect, it } from "vitest";
import { createWorktree } from "../src/index.js";
import { makeRepo, tempDir } from "./fixtures/repo.js";

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
  it("the ignore package holds the thread for seconds on one path; gitctx lets git match it, off the main thread", async () => {
    const repo = makeRepo();
    const pattern = `**/${"a/**/".repeat(5)}b`;
    repo.write(".gitignore", "build/\n").write(".worktreeinclude", `${pattern}\n*.env\n`).write("a.txt", "one\n").commit("first");
    const deep = join(repo.dir, "build", ...Array.from({ length: 60 }, () => "a"));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "c"), "x\n");
    writeFileSync(join(repo.dir, "build", "key.env"), "KEY=1\n");
    // The matcher gitctx used: one test of one path, seconds (each more `a/**/` multiplies it: hours at ten).
    const matcher = ignore().add(pattern);
    let started = performance.now();
    matcher.ignores(`build/${"a/".repeat(60)}c`);
    expect(performance.now() - started).toBeGreaterThan(1_000);

    // gitctx: the main thread keeps ticking while git matches, and the file the pattern selects is copied.
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 20);
    started = performance.now();
    try {
      const created = await createWorktree({ root: repo.dir, name: "work" });
      expect(created.copied).toEqual(["build/key.env"]);
    } finally {
      clearInterval(ticker);
    }
    expect(longest).toBeLessThan(1_000);
  });
});
