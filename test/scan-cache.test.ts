/**
 * The config scan is kept between calls while the files it depends on are unchanged. These tests count the
 * scans through a `git` on the toolbox's search path that logs its arguments, and prove that every change that
 * could arm a filter driver (an include created later, a branch switch that satisfies `includeIf.onbranch`,
 * an edit of the config) is seen by the very next call: plain git runs the filter, the tools do not.
 */
import { chmodSync, existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createToolbox, type Toolbox } from "../src/index.js";
import { makeRepo, markerScript, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

/** A directory holding a `git` that appends its arguments to `log`, then runs the real git. */
function loggingGit(): { searchPath: string; scans: () => number } {
  const dir = tempDir("gitctx-logging-git-");
  const log = join(dir, "log");
  const real = (process.env.PATH ?? "").split(delimiter).map((entry) => join(entry, "git")).find((path) => existsSync(path));
  writeFileSync(join(dir, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(dir, "git"), 0o755);
  const scans = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((line) => / config --list /.test(line)).length : 0);
  return { searchPath: `${dir}:${process.env.PATH}`, scans };
}

/** The scan is only kept for files last changed more than 2 s ago (timestamps are too coarse to trust sooner). */
const settle = () => sleep(2_100);

/** a.txt under `filter=guard`, committed, then touched so `git status` re-reads it through the clean filter. */
function filteredRepo(): TestRepo {
  const repo = makeRepo();
  repo.write(".gitattributes", "*.txt filter=guard\n").write("a.txt", "one\n");
  repo.commit("first");
  return repo;
}

function touch(repo: TestRepo): void {
  const later = Date.now() / 1000 + 5;
  utimesSync(join(repo.dir, "a.txt"), later, later);
}

/**
 * Once a.txt is touched, git_status must re-read it, which would run the now armed clean filter: the tool names
 * the filter as neutralised and runs nothing, then plain git on the same repository runs it.
 */
async function expectNeutralisedThenFired(toolbox: Toolbox, repo: TestRepo, marker: string): Promise<void> {
  touch(repo);
  const status = await toolbox.execute("git_status", {});
  expect(status.ok && (status.data as { neutralised: unknown }).neutralised).toEqual([{ key: "filter.guard.clean", scope: "local" }]);
  expect(existsSync(marker)).toBe(false);
  plainGit(repo.dir, ["status"]);
  expect(readFileSync(marker, "utf8")).toBe("clean \n");
}

describe("the config scan cache", () => {
  it("scans once while nothing changes, and again after the config is edited", async () => {
    const repo = filteredRepo();
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    await settle();
    for (let i = 0; i < 3; i++) expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect(git.scans()).toBe(1);

    const trapDir = tempDir("gitctx-trap-");
    const marker = join(trapDir, "marker");
    repo.git(["config", "filter.guard.clean", markerScript(trapDir, "clean", marker, "cat")]);
    await expectNeutralisedThenFired(toolbox, repo, marker);
    expect(git.scans()).toBe(2);
  });

  it("sees an included file that did not exist when the scan was kept", async () => {
    const repo = filteredRepo();
    repo.git(["config", "include.path", "../team.gitconfig"]);
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    await settle();
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect(git.scans()).toBe(1);

    const trapDir = tempDir("gitctx-trap-");
    const marker = join(trapDir, "marker");
    repo.write("team.gitconfig", `[filter "guard"]\n\tclean = ${markerScript(trapDir, "clean", marker, "cat")}\n`);
    await expectNeutralisedThenFired(toolbox, repo, marker);
  });

  it("sees a branch switch that brings in an includeIf.onbranch file", async () => {
    const repo = filteredRepo();
    const trapDir = tempDir("gitctx-trap-");
    const marker = join(trapDir, "marker");
    writeFileSync(join(trapDir, "evil.gitconfig"), `[filter "guard"]\n\tclean = ${markerScript(trapDir, "clean", marker, "cat")}\n`);
    repo.git(["config", "includeIf.onbranch:evil.path", join(trapDir, "evil.gitconfig")]);
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    await settle();
    const before = await toolbox.execute("git_status", {});
    expect(before.ok && (before.data as { neutralised: unknown }).neutralised).toEqual([]);
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect(git.scans()).toBe(1);

    repo.git(["switch", "-q", "-c", "evil"]);
    await expectNeutralisedThenFired(toolbox, repo, marker);
  });

  it("does not keep a scan of files changed moments ago", async () => {
    const repo = filteredRepo();
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect(git.scans()).toBe(2);
  });
});
