/**
 * The code caches of the command (`src/cli/code-cache.ts`): the bundle of the whole command (`gitctx-cli`) and the
 * shell parser (`mvdan-sh`, used by `gitctx check` and the hook). A cache is code that will run, so these tests
 * check where it is written, who may write it, that a cache of other content is never used, and that a run with
 * a cache answers exactly as a run without.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, PACKAGE_ROOT, requireBuiltCli, runCli } from "./fixtures/cli.js";
import { tempDir } from "./fixtures/repo.js";

requireBuiltCli();

const LINE = 'git log --author="$USER" -- "$F" | head';
const check = (cache: string) => runCli(["check", "--format", "json", "--", LINE], { env: cliEnv({ XDG_CACHE_HOME: cache }) });
const listing = (dir: string) => readdirSync(dir).sort();
const node = `node-${process.version}-${process.arch}`;

describe("the command's code caches", () => {
  it("are written once, private to the user, and give the same answers when used", () => {
    const cache = join(tempDir("gitctx-cache-home-"), "cache");
    const dir = join(cache, "gitctx");
    const first = check(cache);
    expect(first.status).toBe(3);
    const files = listing(dir);
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(new RegExp(`^gitctx-cli-${node}\\.[0-9a-f]{32}\\.\\d+-\\d+-\\d+\\.v8cache$`));
    expect(files[1]).toMatch(new RegExp(`^mvdan-sh-${node}\\..+\\.v8cache$`));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of files) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    const written = files.map((file) => statSync(join(dir, file)).mtimeMs);

    const second = check(cache);
    expect(second).toEqual(first);
    // Used, not written again.
    expect(listing(dir)).toEqual(files);
    expect(files.map((file) => statSync(join(dir, file)).mtimeMs)).toEqual(written);
  });

  it("replace a cache of the bundle's earlier content, and rewrite one that V8 rejects", () => {
    const cache = join(tempDir("gitctx-cache-home-"), "cache");
    const dir = join(cache, "gitctx");
    const first = check(cache);
    const current = listing(dir).find((file) => file.startsWith("gitctx-cli-"))!;
    const earlier = `gitctx-cli-${node}.${"0".repeat(32)}.v8cache`;
    const otherNode = `gitctx-cli-node-v0.0.0-${process.arch}.${"0".repeat(32)}.v8cache`;
    writeFileSync(join(dir, earlier), "stale", { mode: 0o600 });
    writeFileSync(join(dir, otherNode), "another Node's", { mode: 0o600 });
    writeFileSync(join(dir, current), "not a code cache", { mode: 0o600 });

    expect(check(cache)).toEqual(first);
    // The rejected cache is written anew; the earlier content's is gone; another Node's is not this one's to remove.
    expect(readFileSync(join(dir, current)).length).toBeGreaterThan(1000);
    expect(existsSync(join(dir, earlier))).toBe(false);
    expect(existsSync(join(dir, otherNode))).toBe(true);
    expect(check(cache)).toEqual(first);
  });

  it("are neither used nor written where HOME is relative: that is wherever the command runs, a clone perhaps", () => {
    const dir = tempDir("gitctx-cache-cwd-");
    const run = runCli(["check", "--format", "json", "--", LINE], { cwd: dir, env: cliEnv({ HOME: "." }) });
    expect(run.status).toBe(3);
    expect(existsSync(join(dir, ".cache"))).toBe(false);
  });

  it("are not read through a symbolic link", () => {
    const cache = join(tempDir("gitctx-cache-home-"), "cache");
    const dir = join(cache, "gitctx");
    const first = check(cache);
    const current = listing(dir).find((file) => file.startsWith("gitctx-cli-"))!;
    const elsewhere = join(tempDir("gitctx-cache-elsewhere-"), "cache");
    renameSync(join(dir, current), elsewhere);
    symlinkSync(elsewhere, join(dir, current));
    expect(check(cache)).toEqual(first);
    // Not used, so written anew in its place: a regular file again.
    expect(lstatSync(join(dir, current)).isFile()).toBe(true);
  });

  it("follow an edit of the bundle in place, even one that keeps its length", () => {
    // A copy of the built command (what a patch of an installed package edits); its own cache.
    const pkg = tempDir("gitctx-cache-pkg-");
    mkdirSync(join(pkg, "dist"));
    cpSync(join(PACKAGE_ROOT, "dist", "bin"), join(pkg, "dist", "bin"), { recursive: true });
    cpSync(join(PACKAGE_ROOT, "package.json"), join(pkg, "package.json"));
    const main = join(pkg, "dist", "bin", "gitctx.js");
    const env = cliEnv({ XDG_CACHE_HOME: join(tempDir("gitctx-cache-home-"), "cache") });
    const help = () => runCli(["--help"], { main, env }).stdout;
    expect(help()).toContain("Usage: gitctx");
    expect(help()).toContain("Usage: gitctx");
    const bundle = join(pkg, "dist", "bin", "gitctx.cjs");
    const text = readFileSync(bundle, "latin1");
    const patched = text.replace("Usage:", "USAGE:");
    expect(patched.length).toBe(text.length);
    writeFileSync(bundle, patched, "latin1");
    expect(help()).toContain("USAGE: gitctx");
  });

  it("are neither used nor written in a directory others can write", () => {
    const cache = join(tempDir("gitctx-cache-home-"), "cache");
    const dir = join(cache, "gitctx");
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    expect(check(cache).status).toBe(3);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("are not used when another user could have written them", () => {
    const cache = join(tempDir("gitctx-cache-home-"), "cache");
    const dir = join(cache, "gitctx");
    const first = check(cache);
    const current = listing(dir).find((file) => file.startsWith("gitctx-cli-"))!;
    // Writable by the group: not trusted, so compiled afresh and written again, private.
    writeFileSync(join(dir, current), "planted", { mode: 0o660 });
    chmodSync(join(dir, current), 0o660);
    expect(check(cache)).toEqual(first);
    expect(statSync(join(dir, current)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, current)).length).toBeGreaterThan(1000);
  });
});
