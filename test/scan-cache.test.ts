/**
 * The config scan is kept between calls while the files it depends on are unchanged. These tests count the
 * scans through a `git` on the toolbox's search path that logs its arguments, and prove that every change that
 * could arm a filter driver (an include created later, a branch switch that satisfies `includeIf.onbranch`,
 * an edit of the config) is seen by the very next call: plain git runs the filter, the tools do not.
 */
import { existsSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { settledAt } from "../src/git/file-signature.js";
import { createToolbox, type Toolbox } from "../src/index.js";
import { loggingGit } from "./fixtures/logging-git.js";
import { makeRepo, markerScript, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

/**
 * A scan is only kept once the files it read were last changed longer ago than the file system's timestamps can
 * tell apart (20 ms here): calls are repeated until one is answered without a new scan, which proves the scan
 * is kept from then on. Returns the scans made by then.
 */
async function untilKept(toolbox: Toolbox, scans: () => number): Promise<number> {
  for (;;) {
    const before = scans();
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    if (scans() === before) return before;
    await sleep(5);
  }
}

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

/** Defines the clean filter `guard` in the repository's config, one that touches the marker it returns. */
function armFilter(repo: TestRepo): string {
  const trapDir = tempDir("gitctx-trap-");
  const marker = join(trapDir, "marker");
  repo.git(["config", "filter.guard.clean", markerScript(trapDir, "clean", marker, "cat")]);
  return marker;
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
    const kept = await untilKept(toolbox, git.scans);
    for (let i = 0; i < 3; i++) expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect(git.scans()).toBe(kept);

    const marker = armFilter(repo);
    await expectNeutralisedThenFired(toolbox, repo, marker);
    expect(git.scans()).toBe(kept + 1);
  });

  /** With the scan kept, `file` gets a clean filter: the next call must see it (neutralised) and plain git fire it. */
  async function expectWriteSeen(repo: TestRepo, file: string): Promise<void> {
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    const kept = await untilKept(toolbox, git.scans);
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect(git.scans()).toBe(kept);

    const trapDir = tempDir("gitctx-trap-");
    const marker = join(trapDir, "marker");
    repo.write(file, `[filter "guard"]\n\tclean = ${markerScript(trapDir, "clean", marker, "cat")}\n`);
    await expectNeutralisedThenFired(toolbox, repo, marker);
  }

  it("sees an included file that did not exist when the scan was kept", async () => {
    const repo = filteredRepo();
    repo.git(["config", "include.path", "../team.gitconfig"]);
    await expectWriteSeen(repo, "team.gitconfig");
  });

  it("sees an edit of the file a relative include reaches through `..` after a symbolic link", async () => {
    // git reads `x/team.gitconfig` for `../lnk/../team.gitconfig` (`..` after the link `lnk` -> `x/y` is `x`): the
    // kept scan must watch that file, not `team.gitconfig` at the top level that the path names as text.
    const repo = filteredRepo();
    repo.write("x/y/.keep", "").write("x/team.gitconfig", "[gitctx]\n\tteam = 1\n").symlink("lnk", "x/y");
    writeFileSync(join(repo.dir, ".git", "info", "exclude"), "/x/\n/lnk\n");
    repo.git(["config", "include.path", "../lnk/../team.gitconfig"]);
    expect(plainGit(repo.dir, ["config", "gitctx.team"]).stdout).toBe("1\n");
    await expectWriteSeen(repo, "x/team.gitconfig");
  });

  it("sees a branch switch that brings in an includeIf.onbranch file", async () => {
    const repo = filteredRepo();
    const trapDir = tempDir("gitctx-trap-");
    const marker = join(trapDir, "marker");
    writeFileSync(join(trapDir, "evil.gitconfig"), `[filter "guard"]\n\tclean = ${markerScript(trapDir, "clean", marker, "cat")}\n`);
    repo.git(["config", "includeIf.onbranch:evil.path", join(trapDir, "evil.gitconfig")]);
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    const kept = await untilKept(toolbox, git.scans);
    const before = await toolbox.execute("git_status", {});
    // Neutralised before the switch too (a git process elsewhere could read it), and reported as not in effect here.
    expect(before.ok && (before.data as { neutralised: unknown }).neutralised).toEqual([
      { key: "filter.guard.clean", scope: "include not in effect here" },
    ]);
    expect(git.scans()).toBe(kept);

    repo.git(["switch", "-q", "-c", "evil"]);
    await expectNeutralisedThenFired(toolbox, repo, marker);
  });

  it("sees a file created later behind an include inside an include that is not in effect here", async () => {
    const repo = filteredRepo();
    const trapDir = tempDir("gitctx-trap-");
    const marker = join(trapDir, "marker");
    writeFileSync(join(trapDir, "outer.gitconfig"), `[include]\n\tpath = inner.gitconfig\n`);
    repo.git(["config", "includeIf.onbranch:evil.path", join(trapDir, "outer.gitconfig")]);
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    try {
      const kept = await untilKept(toolbox, git.scans);
      const before = await toolbox.execute("git_status", {});
      expect(before.ok && (before.data as { neutralised: unknown }).neutralised).toEqual([]);
      expect(git.scans()).toBe(kept);

      writeFileSync(join(trapDir, "inner.gitconfig"), `[filter "guard"]\n\tclean = ${markerScript(trapDir, "clean", marker, "cat")}\n`);
      const after = await toolbox.execute("git_status", {});
      expect(after.ok && (after.data as { neutralised: unknown }).neutralised).toEqual([
        { key: "filter.guard.clean", scope: "include not in effect here" },
      ]);
      repo.git(["switch", "-q", "-c", "evil"]);
      await expectNeutralisedThenFired(toolbox, repo, marker);
    } finally {
      await toolbox.close();
    }
  });

  it("keeps the scan while other git processes rewrite the index, and rescans after a config write at once", async () => {
    const repo = filteredRepo();
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    const kept = await untilKept(toolbox, git.scans);
    for (let i = 0; i < 5; i++) {
      // A plain `git status` after a touch rewrites .git/index (a refreshed entry): no reason to scan again.
      touch(repo);
      const indexBefore = statSync(join(repo.dir, ".git", "index")).ino;
      plainGit(repo.dir, ["status", "--porcelain"]);
      expect(statSync(join(repo.dir, ".git", "index")).ino).not.toBe(indexBefore);
      expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    }
    expect(git.scans()).toBe(kept);
    // A config written a moment ago is scanned, and scanned again while it is too fresh to be trusted.
    repo.git(["config", "gitctx.test", "1"]);
    expect((await toolbox.execute("git_status", {})).ok).toBe(true);
    expect(git.scans()).toBe(kept + 1);
  });
});

describe("a config rewritten with the same bytes", () => {
  it("keeps the scan when git rewrites the config unchanged (git branch -D), and still sees the next edit at once", async () => {
    const repo = filteredRepo();
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    try {
      const kept = await untilKept(toolbox, git.scans);
      const config = join(repo.dir, ".git", "config");
      for (let i = 0; i < 3; i++) {
        repo.git(["branch", `scratch-${i}`]);
        const before = { ino: statSync(config).ino, bytes: readFileSync(config) };
        // Deleting a branch makes git write its config anew (dropping any branch.<name> section): a new file.
        plainGit(repo.dir, ["branch", "-q", "-D", `scratch-${i}`]);
        expect(statSync(config).ino).not.toBe(before.ino);
        expect(readFileSync(config).equals(before.bytes)).toBe(true);
        expect((await toolbox.execute("git_status", {})).ok).toBe(true);
      }
      expect(git.scans()).toBe(kept);

      const marker = armFilter(repo);
      await expectNeutralisedThenFired(toolbox, repo, marker);
      expect(git.scans()).toBe(kept + 1);
    } finally {
      await toolbox.close();
    }
  });
  it("keeps it for an include rewritten with the same bytes, and sees one of the same size and time with other bytes", async () => {
    const repo = filteredRepo();
    const trapDir = tempDir("gitctx-trap-");
    const marker = join(trapDir, "marker");
    const armed = `[filter "guard"]\n\tclean = ${markerScript(trapDir, "clean", marker, "cat")}\n`;
    // The same length, naming a driver no file uses.
    const benign = armed.replace('"guard"', '"guarx"');
    repo.write("team.gitconfig", benign);
    repo.git(["config", "include.path", "../team.gitconfig"]);
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, gitSearchPath: git.searchPath });
    try {
      const kept = await untilKept(toolbox, git.scans);
      const include = join(repo.dir, "team.gitconfig");
      for (let i = 0; i < 2; i++) {
        // A new file renamed over the old one, as an editor or git writes it: same bytes.
        writeFileSync(`${include}.new`, benign);
        renameSync(`${include}.new`, include);
        expect((await toolbox.execute("git_status", {})).ok).toBe(true);
      }
      expect(git.scans()).toBe(kept);

      // Written in place with its old size and modification time: only its bytes (and ctime) tell.
      const before = statSync(include);
      writeFileSync(include, armed);
      utimesSync(include, before.atime, before.mtime);
      expect(statSync(include).size).toBe(before.size);
      await expectNeutralisedThenFired(toolbox, repo, marker);
      // Listed again: the repository's config and the user's settings (with an include they are two listings).
      expect(git.scans()).toBe(kept + 2);
    } finally {
      await toolbox.close();
    }
  });
});

describe("the config scan of a new worktree", () => {
  it("is the main worktree's listing when the config reads the same everywhere, and still sees a later edit", async () => {
    const repo = filteredRepo();
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write", gitSearchPath: git.searchPath });
    try {
      const kept = await untilKept(toolbox, git.scans);
      const entered = await toolbox.execute("enter_worktree", { name: "same" });
      if (!entered.ok) throw new Error(entered.error.message);
      expect((await toolbox.execute("git_status", {})).ok).toBe(true);
      expect(git.scans()).toBe(kept);

      const marker = armFilter(repo);
      const later = Date.now() / 1000 + 5;
      utimesSync(join(entered.data.worktreePath, "a.txt"), later, later);
      const status = await toolbox.execute("git_status", {});
      expect(status.ok && (status.data as { neutralised: unknown }).neutralised).toEqual([{ key: "filter.guard.clean", scope: "local" }]);
      expect(existsSync(marker)).toBe(false);
      plainGit(entered.data.worktreePath, ["status"]);
      expect(readFileSync(marker, "utf8")).toBe("clean \n");
    } finally {
      await toolbox.close();
    }
  });

  it("is listed by git when the config has an include or worktree config, whose answer may differ there", async () => {
    for (const [name, setUp] of [
      ["include", (repo: TestRepo) => repo.git(["config", "include.path", "../team.gitconfig"])],
      ["worktree-config", (repo: TestRepo) => repo.git(["config", "extensions.worktreeConfig", "true"])],
    ] as const) {
      const repo = filteredRepo();
      setUp(repo);
      const git = loggingGit();
      const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write", gitSearchPath: git.searchPath });
      try {
        const kept = await untilKept(toolbox, git.scans);
        expect((await toolbox.execute("enter_worktree", { name })).ok).toBe(true);
        expect(git.scans()).toBeGreaterThan(kept);
      } finally {
        await toolbox.close();
      }
    }
  });
});

describe("when a signature can be trusted", () => {
  const ms = 1_000_000n;
  const now = 1_700_000_000_000n * ms;

  it("trusts a file last changed 20 ms ago or more on a file system with fine timestamps", () => {
    expect(settledAt(now - 19n * ms + 7n, now - 19n * ms + 7n, now)).toBe(false);
    expect(settledAt(now - 20n * ms + 7n, now - 20n * ms - 7n, now)).toBe(true);
  });

  it("waits two seconds where timestamps are whole seconds, and distrusts a time in the future", () => {
    const second = 1_000_000_000n;
    expect(settledAt(now - second, now - second, now)).toBe(false);
    expect(settledAt(now - 2n * second, now - 2n * second, now)).toBe(true);
    expect(settledAt(now + 5n * ms + 1n, now + 5n * ms + 1n, now)).toBe(false);
  });
});
