/**
 * The repository check of the classifier on real repositories: a read is allowed only when the repository's
 * config (includes followed, checked-out submodules included) names no program a read could run.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyCommand, classifyCommandInRepository, inspectRepository } from "../src/index.js";
import { fixtureEnv, makeRepo, markerNames as markerNamesOf, markerScript, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

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

/** A repository with a checked-out submodule at `lib`, and a directory for marker scripts that record every run in `marker`. */
function submoduleRepo(): { repo: TestRepo; lib: string; scripts: string; marker: string } {
  const sub = committedRepo();
  const repo = committedRepo();
  repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "lib"]);
  repo.commit("add submodule");
  const scripts = tempDir("gitctx-safety-scripts-");
  return { repo, lib: join(repo.dir, "lib"), scripts, marker: join(scripts, "marker") };
}

/** Makes HEAD a commit with a signature header: verifying it runs gpg.program, whatever the signature says. */
function signedCommit(repo: TestRepo): void {
  const tree = repo.git(["rev-parse", "HEAD^{tree}"]).trim();
  const signed = [
    `tree ${tree}`,
    `parent ${repo.head()}`,
    "author A <a@example.com> 1700000000 +0000",
    "committer A <a@example.com> 1700000000 +0000",
    "gpgsig -----BEGIN PGP SIGNATURE-----",
    " ",
    " iQEzBAABCAAdFiEE",
    " -----END PGP SIGNATURE-----",
    "",
    "signed",
    "",
  ].join("\n");
  const commit = repo.git(["hash-object", "-t", "commit", "-w", "--stdin"], { input: signed }).trim();
  repo.git(["update-ref", "HEAD", commit]);
}

function runs(marker: string): string[] {
  return existsSync(marker) ? readFileSync(marker, "utf8").trim().split("\n") : [];
}

describe("inspectRepository", () => {
  it("allows the reads of a plain repository", async () => {
    const repo = committedRepo();
    expect((await inspectRepository(repo.dir)).executableSettings).toEqual([]);
    const result = await classifyCommandInRepository("git status && git log -1", { root: repo.dir });
    expect(result.verdict).toBe("allow");
  });

  it("names core.fsmonitor, and plain git status really runs it", async () => {
    const { repo, marker } = fsmonitorRepo();
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings.map((s) => [s.key, s.scope])).toEqual([["core.fsmonitor", "local"]]);
    const result = await classifyCommandInRepository("git status", { root: repo.dir });
    expect(result.verdict).toBe("ask");
    expect(result.reasons).toContain(
      "git status: `git status` reads the index, and the repository's core.fsmonitor then runs a program on every read of the index (status, diff, ls-files, grep...)",
    );
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["status"]);
    expect(runs(marker).length).toBeGreaterThan(0);
  });

  it("follows include.path into a tracked file", async () => {
    const repo = committedRepo();
    repo.write("settings.cfg", '[core]\n\tpager = sh -c id\n[diff "bin"]\n\ttextconv = /tmp/evil\n');
    repo.git(["config", "include.path", "../settings.cfg"]);
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings.map((s) => [s.key, s.value])).toEqual([
      ["include.path", "../settings.cfg"],
      ["core.pager", "sh -c id"],
      ["diff.bin.textconv", "/tmp/evil"],
    ]);
    expect((await classifyCommandInRepository("git log -p", { root: repo.dir })).reasons).toContain(
      "git log -p: `git log` shows patches, and the repository's diff.bin.textconv then runs a program that converts files to text before diffing them",
    );
  });

  it("asks for an include whose condition reads the user's HOME or config, which the scan cannot judge as the shell will", async () => {
    // The repository lives under the user's HOME: `gitdir:~/` holds for the user's git, not for the scan.
    const home = tempDir("gitctx-safety-home-");
    const repo = makeRepo({ dir: join(home, "project") });
    repo.write("a.txt", "alpha\n").commit("first");
    const scripts = tempDir("gitctx-safety-scripts-");
    const marker = join(scripts, "marker");
    writeFileSync(join(repo.dir, ".git", "armed.inc"), `[core]\n\tfsmonitor = ${markerScript(scripts, "fsmonitor", marker)}\n`);
    repo.git(["config", "includeIf.gitdir:~/.path", "armed.inc"]);
    const result = await classifyCommandInRepository("git status", { root: repo.dir });
    expect(result.verdict).toBe("ask");
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["status"], { ...fixtureEnv(), HOME: home });
    expect(runs(marker).length).toBeGreaterThan(0);

    // hasconfig:remote.*.url: sees the remotes of the user's own config, which the scan does not read.
    const other = committedRepo();
    writeFileSync(join(other.dir, ".git", "armed.inc"), `[core]\n\tfsmonitor = ${markerScript(scripts, "fsmonitor2", marker)}\n`);
    other.git(["config", "includeIf.hasconfig:remote.*.url:https://example.invalid/**.path", "armed.inc"]);
    expect((await classifyCommandInRepository("git status", { root: other.dir })).verdict).toBe("ask");
    const userConfig = join(scripts, "user.gitconfig");
    writeFileSync(userConfig, '[remote "up"]\n\turl = https://example.invalid/x.git\n');
    plainGit(other.dir, ["status"], { ...fixtureEnv(), GIT_CONFIG_GLOBAL: userConfig });
    expect(runs(marker).some((line) => line.startsWith("fsmonitor2"))).toBe(true);

    // The same include under a condition the scan judges as git does (the branch) is read, and allowed when harmless.
    const plain = committedRepo();
    writeFileSync(join(plain.dir, ".git", "harmless.inc"), "[core]\n\tquotePath = false\n");
    plain.git(["config", "includeIf.onbranch:main.path", "harmless.inc"]);
    expect((await classifyCommandInRepository("git status", { root: plain.dir })).verdict).toBe("allow");
  });

  it("ignores settings that switch a program off, and those no read runs", async () => {
    const repo = committedRepo();
    repo.git(["config", "core.fsmonitor", "false"]);
    repo.git(["config", "pager.log", "false"]);
    repo.git(["config", "core.pager", "cat"]);
    repo.git(["config", "core.editor", "vim"]);
    repo.git(["config", "alias.st", "!sh -c id"]);
    repo.git(["config", "core.sshCommand", "ssh -v"]); // only a fetch runs it, and this is no partial clone
    expect((await inspectRepository(repo.dir)).executableSettings.map((s) => s.key)).toEqual(["core.editor", "core.sshcommand", "alias.st"]);
    expect(classifyCommand("git status", { repository: await inspectRepository(repo.dir) }).verdict).toBe("allow");
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
    // git writes a relative core.worktree into every submodule's config; it points at the submodule's own tree.
    expect((await inspectRepository(repo.dir)).executableSettings.map((s) => [s.key, s.scope])).toEqual([["core.worktree", "submodule lib"]]);
    expect((await inspectRepository(repo.dir)).executableSettings.map((s) => [s.key, s.inside])).toEqual([["core.worktree", true]]);
    const scripts = tempDir("gitctx-safety-scripts-");
    repo.git(["config", "core.fsmonitor", markerScript(scripts, "fsmonitor", join(scripts, "marker"))], { cwd: join(repo.dir, "lib") });
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings.map((s) => [s.key, s.scope])).toEqual([
      ["core.worktree", "submodule lib"],
      ["core.fsmonitor", "submodule lib"],
    ]);
    const full = await inspectRepository(repo.dir);
    expect(classifyCommand("git status", { repository: full }).verdict).toBe("ask");
    expect(classifyCommand("git log -1", { repository: full }).verdict).toBe("allow");
  });

  it("a driver of the user's global config that the repository's attributes select: plain git runs it, so the reads it fires ask", async () => {
    const home = tempDir("gitctx-safety-home-");
    const scripts = tempDir("gitctx-safety-scripts-");
    const marker = join(scripts, "marker");
    writeFileSync(
      join(home, ".gitconfig"),
      `[filter "lfs"]\n\tprocess = ${markerScript(scripts, "process", marker)}\n\trequired = false\n` +
        `[diff "conv"]\n\ttextconv = ${markerScript(scripts, "textconv", marker, "cat")}\n`,
    );
    const userConfig = { HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    const userEnv = { ...fixtureEnv(), HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") };
    // A repository whose attributes select neither: its reads stay allowed.
    const plain = committedRepo();
    expect(classifyCommand("git status", { repository: await inspectRepository(plain.dir, { userConfig }) }).verdict).toBe("allow");
    // A clone that brings `* filter=lfs diff=conv`.
    const repo = committedRepo();
    repo.write("a.bin", "bytes\n").commit("binary");
    repo.write(".gitattributes", "*.bin filter=lfs\n*.txt diff=conv\n").commit("attributes");
    repo.write("a.bin", "bytes\n"); // the same content, a new mtime: status cleans it to compare
    const facts = await inspectRepository(repo.dir, { userConfig });
    expect(facts.executableSettings.map((s) => [s.key, s.scope])).toEqual([
      ["filter.lfs.process", "global"],
      ["diff.conv.textconv", "global"],
    ]);
    for (const line of ["git status", "git log -p", "git diff"]) {
      const result = classifyCommand(line, { repository: facts });
      expect(result.verdict, line).toBe("ask");
      expect(result.reasons.join("\n"), line).toContain("of your global config, which the repository's attributes select");
    }
    expect(classifyCommand("git log --oneline -1", { repository: facts }).verdict).toBe("allow");
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["status"], userEnv);
    plainGit(repo.dir, ["log", "-p", "--", "a.txt"], userEnv);
    expect(markerNamesOf(marker)).toEqual(["process", "textconv"]);
  });

  it("a committed config file that includes ~/.gitconfig: plain git config --blob prints the user's secret, so it asks", async () => {
    const home = tempDir("gitctx-safety-home-");
    writeFileSync(join(home, ".gitconfig"), "[http]\n\textraHeader = Authorization: Bearer planted-secret-7\n");
    const repo = committedRepo();
    repo.write("evil.cfg", "[include]\n\tpath = ~/.gitconfig\n").commit("config");
    const facts = await inspectRepository(repo.dir);
    for (const line of ["git config --blob=HEAD:evil.cfg --list", "git config --blob=HEAD:evil.cfg --includes --get http.extraheader"]) {
      expect(classifyCommand(line, { cwd: repo.dir, repository: facts }).verdict, line).toBe("ask");
    }
    expect(classifyCommand("git config --blob=HEAD:evil.cfg --no-includes --list", { cwd: repo.dir, repository: facts }).verdict).toBe("allow");
    // git follows a blob's includes unless told --no-includes.
    expect(plainGit(repo.dir, ["config", "--blob=HEAD:evil.cfg", "--list"], { ...fixtureEnv(), HOME: home }).stdout).toContain("planted-secret-7");
    const own = plainGit(repo.dir, ["config", "--blob=HEAD:evil.cfg", "--no-includes", "--list"], { ...fixtureEnv(), HOME: home }).stdout;
    expect(own).toContain("include.path");
    expect(own).not.toContain("planted-secret-7");
  });

  it("a submodule's own post-index-change hook: plain git status runs it (status writes the submodule's index), so status asks", async () => {
    const { repo, lib, marker } = submoduleRepo();
    const hooksDir = join(repo.git(["rev-parse", "--absolute-git-dir"], { cwd: lib }).trim(), "hooks");
    writeFileSync(join(hooksDir, "post-index-change"), `#!/bin/sh\necho post-index-change >> '${marker}'\n`, { mode: 0o755 });
    writeFileSync(join(lib, "a.txt"), "alpha\n"); // the same content, a new mtime: the submodule's index is refreshed
    const facts = await inspectRepository(repo.dir);
    expect(facts.submoduleHooks?.lib).toContain("post-index-change");
    expect(facts.hooks).not.toContain("post-index-change");
    const result = classifyCommand("git status", { repository: facts });
    expect(result.verdict).toBe("ask");
    expect(result.reasons.join("\n")).toContain("recurses into the submodule lib, where git writes its index and runs its post-index-change hook");
    expect(classifyCommand("git log --oneline -1", { repository: facts }).verdict).toBe("allow");
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["status"]);
    expect(runs(marker)).toContain("post-index-change");
  });

  it("the user's relative core.hooksPath: plain git status runs the post-index-change hook the repository ships there, so status asks", async () => {
    const repo = committedRepo();
    const marker = join(tempDir("gitctx-safety-scripts-"), "marker");
    // Tracked, executable: a clone brings it. The user's own config points every repository's hooks at .githooks.
    repo.write(".githooks/post-index-change", `#!/bin/sh\necho post-index-change >> '${marker}'\n`);
    chmodSync(join(repo.dir, ".githooks", "post-index-change"), 0o755);
    repo.commit("hooks");
    const home = tempDir("gitctx-safety-home-");
    writeFileSync(join(home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
    const userConfig = { HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig"), GIT_CONFIG_NOSYSTEM: "1" };
    const facts = await inspectRepository(repo.dir, { userConfig });
    expect(facts.hooks).toContain("post-index-change");
    const result = classifyCommand("git status", { repository: facts });
    expect(result.verdict).toBe("ask");
    expect(result.reasons.join("\n")).toContain("post-index-change");
    // Without the user's setting the repository's own hooks directory is empty: status is a read.
    const plainUser = await inspectRepository(repo.dir, { userConfig: { HOME: tempDir("gitctx-safety-home-"), GIT_CONFIG_NOSYSTEM: "1" } });
    expect(plainUser.hooks).not.toContain("post-index-change");
    expect(classifyCommand("git status", { repository: plainUser }).verdict).toBe("allow");
    writeFileSync(join(repo.dir, "a.txt"), "alpha\n"); // the same content, a new mtime: status refreshes and writes the index
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["status"], { ...fixtureEnv(), HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") });
    expect(runs(marker)).toContain("post-index-change");
  });

  it("a core.hooksPath whose `..` follows a symbolic link: git looks for hooks where the link leads, and so does the check", async () => {
    const repo = committedRepo();
    const marker = join(tempDir("gitctx-safety-scripts-"), "marker");
    // Tracked: deep/hooks/post-index-change and lnk -> deep/dir. git reads lnk/../hooks as deep/hooks; as text
    // normalised it would be hooks/ at the top level, where nothing is.
    repo.write("deep/hooks/post-index-change", `#!/bin/sh\necho post-index-change >> '${marker}'\n`).write("deep/dir/.keep", "");
    chmodSync(join(repo.dir, "deep", "hooks", "post-index-change"), 0o755);
    symlinkSync("deep/dir", join(repo.dir, "lnk"));
    repo.commit("hooks");
    repo.git(["config", "core.hooksPath", "lnk/../hooks"]);
    const facts = await inspectRepository(repo.dir);
    expect(facts.hooks).toContain("post-index-change");
    expect(classifyCommand("git status", { repository: facts }).verdict).toBe("ask");
    writeFileSync(join(repo.dir, "a.txt"), "alpha\n"); // the same content, a new mtime: status refreshes and writes the index
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["status"]);
    expect(runs(marker)).toContain("post-index-change");
  });

  it("a submodule's diff.external: plain git show --submodule=diff runs it, every patch-showing read asks", async () => {
    const { repo, lib, scripts, marker } = submoduleRepo();
    repo.git(["config", "diff.external", markerScript(scripts, "external", marker)], { cwd: lib });
    writeFileSync(join(lib, "a.txt"), "changed\n");
    repo.git(["commit", "-qam", "change"], { cwd: lib });
    repo.git(["commit", "-qam", "move lib"]);
    const facts = await inspectRepository(repo.dir);
    for (const line of ["git show --submodule=diff", "git log -p -1", "git diff HEAD~1 HEAD", "git diff-tree -p --submodule=diff HEAD"]) {
      const result = classifyCommand(line, { repository: facts });
      expect(result.verdict, line).toBe("ask");
      expect(result.reasons.join("\n"), line).toContain("recurses into the submodule lib, where git runs a command of its own");
    }
    expect(classifyCommand("git log --oneline -1", { repository: facts }).verdict).toBe("allow");
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["show", "--submodule=diff"]);
    expect(runs(marker).length).toBeGreaterThan(0);
  });

  it("a -c value keeps its spaces: core.hooksPath=' /dev/null' is a hooks directory in the work tree, and plain git runs its hook", async () => {
    const repo = committedRepo();
    const scripts = tempDir("gitctx-safety-scripts-");
    const marker = join(scripts, "marker");
    // What a clone can bring: a tracked, executable hook under a directory named " ".
    repo.write(" /dev/null/post-index-change", `#!/bin/sh\necho post-index-change >> '${marker}'\n`, 0o755).commit("hooks");
    repo.write("a.txt", "alpha\n"); // the same content, a new mtime: status refreshes the index and writes it
    const facts = await inspectRepository(repo.dir);
    for (const line of ["git -c 'core.hooksPath= /dev/null' status", "git -c 'core.hooksPath= /dev/null' diff"]) {
      expect(classifyCommand(line, { cwd: repo.dir, repository: facts }).verdict, line).toBe("deny");
    }
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["-c", "core.hooksPath= /dev/null", "status"]);
    expect(runs(marker)).toContain("post-index-change");
  });

  it("a format name that is not built in is an alias: the user's pretty.<name> with %G? runs gpg.program in plain git, so it asks", async () => {
    const home = tempDir("gitctx-safety-home-");
    const scripts = tempDir("gitctx-safety-scripts-");
    const marker = join(scripts, "marker");
    writeFileSync(join(home, ".gitconfig"), `[pretty]\n\tsig = %G? %s\n[gpg]\n\tprogram = ${markerScript(scripts, "gpg", marker, "exit 1")}\n`);
    const repo = committedRepo();
    signedCommit(repo);
    const facts = await inspectRepository(repo.dir, { userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    for (const line of ["git log --format=sig", "git log --pretty=si -1", "git -c format.pretty=sig log"]) {
      expect(classifyCommand(line, { repository: facts }).verdict, line).toBe("ask");
    }
    expect(classifyCommand("git log --pretty=oneline", { repository: facts }).verdict).toBe("allow");
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["log", "--format=sig"], { ...fixtureEnv(), HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") });
    expect(runs(marker).length).toBeGreaterThan(0);
  });

  it("the line's --no-ext-diff and --no-textconv do not reach the git diff run inside a submodule: plain git runs its diff.external", async () => {
    const { repo, lib, scripts, marker } = submoduleRepo();
    repo.git(["config", "diff.external", markerScript(scripts, "external", marker)], { cwd: lib });
    repo.git(["config", "diff.bin.textconv", markerScript(scripts, "textconv", marker)], { cwd: lib });
    writeFileSync(join(lib, ".gitattributes"), "* diff=bin\n");
    writeFileSync(join(lib, "a.txt"), "changed\n");
    repo.git(["commit", "-qam", "change"], { cwd: lib });
    const facts = await inspectRepository(repo.dir);
    for (const line of [
      "git diff --no-ext-diff --no-textconv --submodule=diff",
      "git --no-pager diff --no-ext-diff --no-textconv --submodule=diff",
      "git log -p --no-textconv --submodule=diff -1",
    ]) {
      const result = classifyCommand(line, { repository: facts });
      expect(result.verdict, line).toBe("ask");
      expect(result.reasons.join("\n"), line).toContain("recurses into the submodule lib, where git runs a command of its own");
    }
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["diff", "--no-ext-diff", "--no-textconv", "--submodule=diff"]);
    expect(runs(marker).length).toBeGreaterThan(0);
  });

  it("a merge driver: plain git show --remerge-diff runs it, every read that re-merges asks", async () => {
    const repo = committedRepo();
    repo.git(["checkout", "-qb", "side"]);
    repo.write("a.txt", "side\n").commit("side");
    repo.git(["checkout", "-q", "main"]);
    repo.write("a.txt", "main\n").commit("main");
    plainGit(repo.dir, ["merge", "-q", "side"]);
    repo.write("a.txt", "both\n");
    repo.git(["commit", "-qam", "merge"]);
    const scripts = tempDir("gitctx-safety-scripts-");
    const marker = join(scripts, "marker");
    repo.git(["config", "merge.evil.driver", `${markerScript(scripts, "driver", marker)} %O %A %B`]);
    writeFileSync(join(repo.dir, ".git", "info", "attributes"), "* merge=evil\n");
    const facts = await inspectRepository(repo.dir);
    for (const line of [
      "git show --remerge-diff",
      "git log --remerge-diff -1",
      "git diff-tree --remerge-diff HEAD",
      "git log --diff-merges=remerge -1",
      "git show -m",
    ]) {
      const result = classifyCommand(line, { repository: facts });
      expect(result.verdict, line).toBe("ask");
      expect(result.reasons.join("\n"), line).toContain(
        "re-merges merge commits to show them, and the repository's merge.evil.driver then runs a merge driver program",
      );
    }
    expect(classifyCommand("git show", { repository: facts }).verdict).toBe("allow");
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["show", "--remerge-diff", "HEAD"]);
    expect(runs(marker).length).toBeGreaterThan(0);
  });

  it("--no-show-signature turns off log.showSignature only: a format.pretty with %G? still runs gpg.program, so the log asks", async () => {
    const repo = committedRepo();
    signedCommit(repo);
    const scripts = tempDir("gitctx-safety-scripts-");
    const marker = join(scripts, "marker");
    repo.git(["config", "gpg.program", markerScript(scripts, "gpg", marker, "exit 1")]);
    repo.git(["config", "format.pretty", "%G? %s"]);
    repo.git(["config", "pretty.sig", "%G? %s"]);
    const facts = await inspectRepository(repo.dir);
    for (const line of ["git log --no-show-signature", "git show --no-show-signature", "git log --format=sig --no-show-signature -1"]) {
      const result = classifyCommand(line, { repository: facts });
      expect(result.verdict, line).toBe("ask");
      expect(result.reasons.join("\n"), line).toMatch(/format\.pretty|pretty\.sig/);
    }
    expect(runs(marker)).toEqual([]);
    plainGit(repo.dir, ["log", "--no-show-signature"]);
    expect(runs(marker).length).toBeGreaterThan(0);
  });

  it("an include the repository makes is followed even with -c include.path=/dev/null: plain git prints what it includes", async () => {
    const repo = committedRepo();
    const outside = join(tempDir("gitctx-safety-outside-"), "team.cfg");
    writeFileSync(outside, "[secret]\n\tvalue = INCLUDED-OUTSIDE-SECRET\n");
    repo.git(["config", "include.path", outside]);
    const facts = await inspectRepository(repo.dir);
    const line = "git -c include.path=/dev/null config --local --includes --list";
    expect(plainGit(repo.dir, line.split(" ").slice(1)).stdout).toContain("INCLUDED-OUTSIDE-SECRET");
    expect(classifyCommand(line, { repository: facts }).verdict).toBe("ask");
    expect(classifyCommand(line, { repository: facts }).reasons.join("\n")).toContain(
      "the repository's include.path then includes config from another file",
    );
  });

  it("an include whose `..` follows a symbolic link out of the repository leads outside, as git reads it: reads ask", async () => {
    const repo = committedRepo();
    const outside = tempDir("gitctx-safety-outside-");
    mkdirSync(join(outside, "sub"));
    writeFileSync(join(outside, "team.cfg"), "[secret]\n\tvalue = INCLUDED-OUTSIDE-SECRET\n");
    symlinkSync(join(outside, "sub"), join(repo.dir, "lnk"));
    // Relative to .git/config, joined as text: .git/../lnk is the outside sub directory, and its .. is outside.
    repo.git(["config", "include.path", "../lnk/../team.cfg"]);
    expect(plainGit(repo.dir, ["config", "--local", "--includes", "--get", "secret.value"]).stdout).toContain("INCLUDED-OUTSIDE-SECRET");
    const facts = await inspectRepository(repo.dir);
    expect(facts.executableSettings?.find((setting) => setting.key === "include.path")?.inside).toBe(false);
    expect(classifyCommand("git log --oneline", { repository: facts }).verdict).toBe("ask");
    // The same spelling with no link leads to team.cfg in the work tree: inside, and reads stay allowed.
    const plain = committedRepo();
    plain.git(["config", "include.path", "../sub/../team.cfg"]);
    mkdirSync(join(plain.dir, "sub"));
    const plainFacts = await inspectRepository(plain.dir);
    expect(plainFacts.executableSettings?.find((setting) => setting.key === "include.path")?.inside).toBe(true);
    expect(classifyCommand("git log --oneline", { repository: plainFacts }).verdict).toBe("allow");
  });

  it("the user's url.*.insteadOf rules: git remote -v prints the token they hold, so URL-printing reads ask", async () => {
    const repo = committedRepo();
    repo.git(["remote", "add", "origin", "https://github.com/acme/shop.git"]);
    const home = tempDir("gitctx-safety-home-");
    writeFileSync(join(home, ".gitconfig"), '[url "https://x-access-token:GH-TOKEN-SECRET@github.com/"]\n\tinsteadOf = https://github.com/\n');
    const userEnv = { ...fixtureEnv(), HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") };
    expect(plainGit(repo.dir, ["remote", "-v"], userEnv).stdout).toContain("GH-TOKEN-SECRET");
    const facts = await inspectRepository(repo.dir, {
      userConfig: { HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig"), GIT_CONFIG_NOSYSTEM: "1" },
    });
    expect(facts.userUrlRewrites).toBe(true);
    for (const line of ["git remote -v", "git remote get-url origin", "git remote show -n origin"]) {
      const result = classifyCommand(line, { repository: facts });
      expect(result.verdict, line).toBe("ask");
      expect(result.reasons.join("\n"), line).toContain("rewritten by the user's url.*.insteadOf rules");
    }
    expect(classifyCommand("git remote", { repository: facts }).verdict).toBe("allow");
    const plainUser = await inspectRepository(repo.dir, { userConfig: { HOME: tempDir("gitctx-safety-home-"), GIT_CONFIG_NOSYSTEM: "1" } });
    expect(plainUser.userUrlRewrites).toBe(false);
    expect(classifyCommand("git remote -v", { repository: plainUser }).verdict).toBe("allow");
  });

  it("reports a root that is not a repository as a problem: reads ask", async () => {
    const dir = tempDir();
    const facts = await inspectRepository(dir);
    expect(facts.executableSettings).toEqual([]);
    expect(facts.problem).toBe(`${realpathSync(dir)} is not inside a git repository.`);
    const result = await classifyCommandInRepository("git status", { root: dir });
    expect(result.verdict).toBe("ask");
    expect(result.reasons).toEqual([
      `git status: the repository at ${dir} could not be checked: ${realpathSync(dir)} is not inside a git repository.`,
    ]);
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
    expect(result.reasons).toEqual([
      "git push --force: git push pushes to a remote",
      "git push --force: force-pushes, overwriting remote history (--force)",
    ]);
    expect((await classifyCommandInRepository("git log --output=/tmp/x", { root: dir })).verdict).toBe("deny");
  });
});

describe("the facts of gitctx check --root and the hook", () => {
  it("fills in every fact for a plain repository, and its reads are allowed", async () => {
    const repo = committedRepo();
    const top = realpathSync(repo.dir);
    const facts = await inspectRepository(repo.dir);
    expect({ ...facts, hooks: facts.hooks?.filter((h) => !h.endsWith(".sample")) }).toEqual({
      root: top,
      topLevel: top,
      executableSettings: [],
      partialClone: false,
      hooks: [],
      submoduleHooks: {},
      unscannedSubmodules: [],
      layoutProblems: [],
      stateProblems: [],
      userUrlRewrites: false,
    });
    expect(classifyCommand(`cd ${top} && git status && git log -1`, { cwd: top, repository: facts }).verdict).toBe("allow");
  });

  it("lists executable hooks, of core.hooksPath too; a post-index-change hook makes index-writing reads ask", async () => {
    const repo = committedRepo();
    const scripts = tempDir("gitctx-safety-scripts-");
    repo.write(".githooks/post-index-change", "#!/bin/sh\nexit 0\n", 0o755).write(".githooks/not-executable", "x\n", 0o644);
    repo.git(["config", "core.hooksPath", ".githooks"]);
    const facts = await inspectRepository(repo.dir);
    expect(facts.hooks).toEqual(["post-index-change"]);
    expect(classifyCommand("git status", { repository: facts }).verdict).toBe("ask");
    expect(classifyCommand("git log -1", { repository: facts }).verdict).toBe("allow");
    expect(scripts).toBeTruthy();
  });

  it("reports a partial clone: reads that read objects ask", async () => {
    const repo = committedRepo();
    repo.git(["config", "remote.origin.url", "ssh://example.invalid/x.git"]);
    repo.git(["config", "remote.origin.promisor", "true"]);
    const facts = await inspectRepository(repo.dir);
    expect(facts.partialClone).toBe(true);
    expect(classifyCommand("git log -1", { repository: facts }).verdict).toBe("ask");
    expect(classifyCommand("git rev-parse --show-toplevel", { repository: facts }).verdict).toBe("allow");
  });

  it("tells path settings inside the repository from those outside", async () => {
    const repo = committedRepo();
    repo.write(".git-blame-ignore-revs", "\n");
    repo.git(["config", "blame.ignoreRevsFile", ".git-blame-ignore-revs"]);
    expect(classifyCommand("git blame a.txt", { repository: await inspectRepository(repo.dir) }).verdict).toBe("allow");
    repo.git(["config", "blame.ignoreRevsFile", "/etc/passwd"]);
    expect(classifyCommand("git blame a.txt", { repository: await inspectRepository(repo.dir) }).verdict).toBe("ask");
    // A tracked symlink out of the repository is outside, whatever its name.
    repo.remove(".git-blame-ignore-revs").symlink(".git-blame-ignore-revs", "/etc/passwd");
    repo.git(["config", "blame.ignoreRevsFile", ".git-blame-ignore-revs"]);
    expect(classifyCommand("git blame a.txt", { repository: await inspectRepository(repo.dir) }).verdict).toBe("ask");
  });

  it("reports objects borrowed from outside and symlinked state files: every read asks", async () => {
    const other = committedRepo();
    const repo = committedRepo();
    const { writeFileSync, symlinkSync, rmSync } = await import("node:fs");
    writeFileSync(join(repo.dir, ".git", "objects", "info", "alternates"), `${join(realpathSync(other.dir), ".git", "objects")}\n`);
    // The repository's own checks (src/git/state-files.ts) refuse both: the facts carry the refusal as `problem`.
    const borrowed = await inspectRepository(repo.dir);
    expect(borrowed.problem).toContain("objects/info/alternates");
    expect(classifyCommand("git log -1", { repository: borrowed }).verdict).toBe("ask");
    rmSync(join(repo.dir, ".git", "objects", "info", "alternates"));
    const secret = join(tempDir(), "secret");
    writeFileSync(secret, "x\n");
    symlinkSync(secret, join(repo.dir, ".git", "MERGE_MSG"));
    const linked = await inspectRepository(repo.dir);
    expect(linked.problem).toContain("MERGE_MSG");
    expect(classifyCommand("git status", { repository: linked }).verdict).toBe("ask");
  });

  it("reports a root that is not a repository as a problem", async () => {
    const dir = tempDir();
    const facts = await inspectRepository(dir);
    expect(facts.problem).toBe(`${realpathSync(dir)} is not inside a git repository.`);
  });
});
