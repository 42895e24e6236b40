/**
 * The repository check of the classifier on real repositories: a read is allowed only when the repository's
 * config (includes followed, checked-out submodules included) names no program a read could run.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyCommandInRepository, inspectRepository } from "../src/index.js";
import { makeRepo, markerScript, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

function committedRepo(): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "alpha\n");
  repo.commit("first");
  return repo;
}

/** A repository whose core.fsmonitor is a script that records every run in `marker`. */
function fsmonitorRepo(): { repo: TestRepo; marker: string } {
  const repo = committedRepo();
  const scripts = tempDir("gitctx-safety-scripts-");
  const marker = join(scripts, "marker");
  repo.git(["config", "core.fsmonitor", markerScript(scripts, "fsmonitor", marker)]);
  return { repo, marker };
}

function runs(marker: string): string[] {
  return existsSync(marker) ? readFileSync(marker, "utf8").trim().split("\n") : [];
}

describe("inspectRepository", () => {
  it("finds nothing in a plain repository, and the read is allowed", async () => {
    const repo = committedRepo();
    expect(await inspectRepository(repo.dir)).toEqual({ root: realpathSync(repo.dir), executableSettings: [] });
    const result = await classifyCommandInRepository("git status && git log -1", { root: repo.dir });
    expect(result.verdict).toBe("allow");
    expect(result.invocations.map((inv) => inv.reasons)).toEqual([["git status only reads the repository"], ["git log only reads the repository"]]);
  });

  it("names core.fsmonitor, and plain git status really runs it", async () => {
    const { repo, marker } = fsmonitorRepo();
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings.map((s) => [s.key, s.scope])).toEqual([["core.fsmonitor", "local"]]);
    const result = await classifyCommandInRepository("git status", { root: repo.dir });
    expect(result.verdict).toBe("ask");
    expect(result.reasons).toEqual(["git status: running `git status` here may execute programs named by the repository's config: core.fsmonitor"]);
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["status"]);
    expect(runs(marker).length).toBeGreaterThan(0);
  });

  it("follows include.path into a tracked file", async () => {
    const repo = committedRepo();
    repo.write("settings.cfg", "[core]\n\tpager = sh -c id\n[diff \"bin\"]\n\ttextconv = /tmp/evil\n");
    repo.git(["config", "include.path", "../settings.cfg"]);
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings.map((s) => [s.key, s.value])).toEqual([
      ["core.pager", "sh -c id"],
      ["diff.bin.textconv", "/tmp/evil"],
    ]);
    expect((await classifyCommandInRepository("git log", { root: repo.dir })).reasons).toEqual([
      "git log: running `git log` here may execute programs named by the repository's config: core.pager, diff.bin.textconv",
    ]);
  });

  it("ignores settings that switch a program off, and those no read runs", async () => {
    const repo = committedRepo();
    repo.git(["config", "core.fsmonitor", "false"]);
    repo.git(["config", "pager.log", "false"]);
    repo.git(["config", "core.pager", "cat"]);
    repo.git(["config", "core.editor", "vim"]);
    repo.git(["config", "alias.st", "!sh -c id"]);
    repo.git(["config", "core.sshCommand", "ssh -v"]); // only a fetch runs it, and this is no partial clone
    expect((await inspectRepository(repo.dir)).executableSettings).toEqual([]);
    expect((await classifyCommandInRepository("git status", { root: repo.dir })).verdict).toBe("allow");
  });

  it("counts transport programs in a partial clone, where reads fetch missing objects", async () => {
    const repo = committedRepo();
    repo.git(["config", "core.sshCommand", "/tmp/evil-ssh"]);
    repo.git(["config", "remote.origin.url", "ssh://example.invalid/x.git"]);
    repo.git(["config", "remote.origin.promisor", "true"]);
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings.map((s) => s.key)).toEqual(["core.sshcommand"]);
  });

  it("names filter drivers", async () => {
    const repo = committedRepo();
    repo.git(["config", "filter.lfs.process", "git-lfs filter-process"]);
    repo.git(["config", "filter.lfs.required", "true"]);
    expect((await inspectRepository(repo.dir)).executableSettings.map((s) => s.key)).toEqual(["filter.lfs.process"]);
  });

  it("reads the config of checked-out submodules, which git status also runs", async () => {
    const sub = committedRepo();
    const repo = committedRepo();
    repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "lib"]);
    repo.commit("add submodule");
    expect((await inspectRepository(repo.dir)).executableSettings).toEqual([]);
    const scripts = tempDir("gitctx-safety-scripts-");
    repo.git(["config", "core.fsmonitor", markerScript(scripts, "fsmonitor", join(scripts, "marker"))], { cwd: join(repo.dir, "lib") });
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings.map((s) => [s.key, s.scope])).toEqual([["core.fsmonitor", "submodule lib"]]);
  });

  it("reports a root that is not a repository as a problem: reads ask", async () => {
    const dir = tempDir();
    const facts = await inspectRepository(dir);
    expect(facts.executableSettings).toEqual([]);
    expect(facts.problem).toBe(`${realpathSync(dir)} is not inside a git repository.`);
    const result = await classifyCommandInRepository("git status", { root: dir });
    expect(result.verdict).toBe("ask");
    expect(result.reasons).toEqual([`git status: the repository at ${dir} could not be checked: ${realpathSync(dir)} is not inside a git repository.`]);
  });

  it("refuses a bare repository at the root, which plain git would open (and run its config)", async () => {
    const bare = makeRepo({ bare: true });
    const facts = await inspectRepository(bare.dir);
    expect(facts.problem).toBe(`${realpathSync(bare.dir)} is a bare repository: it has no working tree to inspect.`);
    expect((await classifyCommandInRepository("git log", { root: bare.dir })).verdict).toBe("ask");
  });

  it("does not inspect anything for command lines without an allowed read", async () => {
    const dir = tempDir();
    const result = await classifyCommandInRepository("git push --force", { root: dir });
    expect(result.reasons).toEqual(["git push --force: git push pushes to a remote", "git push --force: force-pushes, overwriting remote history (--force)"]);
    expect((await classifyCommandInRepository("git log --output=/tmp/x", { root: dir })).verdict).toBe("deny");
  });
});
