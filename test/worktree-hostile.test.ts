/**
 * Config that applies only where a new worktree's git runs: an `includeIf` whose condition is false in the main
 * checkout (where the config is scanned) and true in the new worktree (its git directory under
 * `.git/worktrees/`, its branch `worktree-<name>`), or a `config.worktree` that `git worktree add` copies into the
 * new worktree, whose relative include then names another file. Plain `git worktree add` runs the smudge filter or
 * the post-checkout hook it names (a marker appears); enter_worktree runs neither, and what it reports is true of
 * the worktree it made.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GitCaches } from "../src/git/caches.js";
import { discoverRepository } from "../src/git/discover.js";
import { Repository } from "../src/git/repository.js";
import { GitRunner } from "../src/git/run.js";
import { createToolbox, removeWorktree, type GitStatusData, type ToolResult } from "../src/index.js";
import { makeRepo, markerNames, markerScript, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

interface Trap {
  repo: TestRepo;
  /** What ran, by the first word each program wrote to the marker. */
  ran: () => string[];
  /** What the trap defines, as git lists it where it applies. */
  key: string;
}

type Variant = (repo: TestRepo, traps: string, marker: string) => Pick<Trap, "key">;

/** A `[filter "trap"]` section whose smudge command appends `smudge` to the marker. */
function filterSection(traps: string, marker: string): string {
  return `[filter "trap"]\n\tsmudge = ${markerScript(traps, "smudge", marker, "cat")}\n`;
}

const smudgeUnder =
  (condition: string): Variant =>
  (repo, traps, marker) => {
    writeFileSync(join(repo.dir, ".git", "trap.inc"), filterSection(traps, marker));
    repo.git(["config", `includeIf.${condition}.path`, "trap.inc"]);
    return { key: "filter.trap.smudge" };
  };

const VARIANTS: Record<string, Variant> = {
  "onbranch:worktree-**": smudgeUnder("onbranch:worktree-**"),
  "gitdir:**/.git/worktrees/**": smudgeUnder("gitdir:**/.git/worktrees/**"),
  "gitdir/i: (matched case-insensitively)": smudgeUnder("gitdir/i:**/.GIT/WORKTREES/**"),
  "onbranch, then a plain include inside the included file": (repo, traps, marker) => {
    writeFileSync(join(repo.dir, ".git", "inner.inc"), filterSection(traps, marker));
    writeFileSync(join(repo.dir, ".git", "outer.inc"), "[include]\n\tpath = inner.inc\n");
    repo.git(["config", "includeIf.onbranch:worktree-*.path", "outer.inc"]);
    return { key: "filter.trap.smudge" };
  },
  "onbranch, a relative include whose `..` comes after a symbolic link (git resolves it where the link leads)": (repo, traps, marker) => {
    // git joins `../lnk/../trap.inc` to `.git/config`'s path as text, and the system reads `x/trap.inc`: `..`
    // after `lnk` is `x`, where the link leads. Resolved by text, the path names `trap.inc` at the top level,
    // where there is no file.
    mkdirSync(join(repo.dir, "x", "y"), { recursive: true });
    symlinkSync("x/y", join(repo.dir, "lnk"));
    writeFileSync(join(repo.dir, "x", "trap.inc"), filterSection(traps, marker));
    appendFileSync(join(repo.dir, ".git", "info", "exclude"), "/x/\n/lnk\n");
    repo.git(["config", "includeIf.onbranch:worktree-**.path", "../lnk/../trap.inc"]);
    return { key: "filter.trap.smudge" };
  },
  "a config.worktree whose relative include names another file once git copies it into the new worktree": (repo, traps, marker) => {
    // From .git/ the include leads two directories above the repository, where there is no file; from
    // .git/worktrees/<name>/ it leads to the repository's top level, where there is one (ignored, untracked).
    repo.git(["config", "extensions.worktreeConfig", "true"]);
    writeFileSync(join(repo.dir, ".git", "config.worktree"), "[include]\n\tpath = ../../../trap.inc\n");
    writeFileSync(join(repo.dir, "trap.inc"), filterSection(traps, marker));
    appendFileSync(join(repo.dir, ".git", "info", "exclude"), "/trap.inc\n");
    return { key: "filter.trap.smudge" };
  },
};

function trap(variant: Variant): Trap {
  // Two directories deep, so the config.worktree variant's include stays inside the temp directory.
  const repo = makeRepo({ dir: join(tempDir("gitctx-wt-hostile-"), "a", "b", "repo") });
  repo.write("a.txt", "alpha\n");
  repo.write(".gitattributes", "*.txt filter=trap\n");
  repo.commit("files");
  const traps = tempDir("gitctx-wt-trap-");
  const marker = join(traps, "marker");
  const set = variant(repo, traps, marker);
  const ran = (): string[] => markerNames(marker);
  return { repo, ran, ...set };
}

function data<T>(result: ToolResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.data;
}

describe.each(Object.entries(VARIANTS))("config that applies only in the new worktree: %s", (_name, variant) => {
  it("is not in effect in the main checkout, and plain git worktree add runs its program", () => {
    const { repo, ran, key } = trap(variant);
    // Where the config is scanned, git does not see the setting...
    expect(plainGit(repo.dir, ["config", "--get", key]).status).toBe(1);
    plainGit(repo.dir, ["status"]);
    expect(ran()).toEqual([]);
    // ...and where the checkout of a new worktree runs, it does.
    const added = plainGit(repo.dir, ["worktree", "add", "-q", "-b", "worktree-plain", join(tempDir(), "plain")]);
    expect(added.stderr).not.toContain("fatal");
    expect(ran()).not.toEqual([]);
  });

  it("enter_worktree runs nothing, reports what the worktree's own config names, and nothing runs inside or on exit", async () => {
    const { repo, ran, key } = trap(variant);
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      const entered = data(await toolbox.execute("enter_worktree", { name: "wt" }));
      expect(ran()).toEqual([]);
      expect(readFileSync(join(entered.worktreePath, "a.txt"), "utf8")).toBe("alpha\n");
      // The worktree's git would have run the filter: the result says so, as it does for any filter.
      expect(entered.unfilteredFiles).toBe(1);
      expect(entered.notes.join("\n")).toContain('without the repository\'s filter "trap"');
      const status = data(await toolbox.execute("git_status", {})) as GitStatusData;
      // Inside the worktree the setting is in effect, and reported as the worktree's git reads it.
      expect(status.neutralised.map((setting) => setting.key)).toContain(key);
      expect(status.clean).toBe(true);
      data(await toolbox.execute("git_diff", {}));
      data(await toolbox.execute("exit_worktree", { action: "remove" }));
      expect(ran()).toEqual([]);
    } finally {
      await toolbox.close();
    }
    expect(ran()).toEqual([]);
  });
});

describe("the main checkout's scan covers every include target, whatever its condition", () => {
  // The config.worktree variant names no file from the main checkout at all: only scanning the new worktree finds it.
  const conditional = Object.entries(VARIANTS).filter(([name]) => !name.startsWith("a config.worktree"));

  it.each(conditional)(
    "%s: a git process that checks out elsewhere, run through the main checkout's Repository, runs no filter",
    async (_name, variant) => {
      const { repo, ran } = trap(variant);
      const runner = new GitRunner();
      const caches = new GitCaches(runner);
      try {
        const main = await Repository.open(runner, caches, await discoverRepository(repo.dir, false), { trustRepository: false });
        expect(main.filterDrivers).toContain("trap");
        // `git worktree add` checks the new worktree out in a child git whose context is the new worktree's.
        const added = await main.git("worktree", ["add", "-q", "-b", "worktree-raw", "--", join(tempDir(), "raw")]);
        expect(added.exitCode).toBe(0);
        expect(ran()).toEqual([]);
        await main.dispose();
      } finally {
        caches.invalidate("privateIndex");
        runner.close();
      }
    },
  );

  it.each(conditional)("%s: git_status in the main checkout says the setting is in an include not in effect there", async (_name, variant) => {
    const { repo, ran } = trap(variant);
    const toolbox = createToolbox({ root: repo.dir });
    try {
      const status = await toolbox.execute("git_status", {});
      const found = data(status).neutralised;
      expect(found).toEqual([{ key: "filter.trap.smudge", scope: "include not in effect here" }]);
      expect(status.ok && status.text).toContain("filter.trap.smudge (include not in effect here)");
      expect(ran()).toEqual([]);
    } finally {
      await toolbox.close();
    }
  });

  it("a setting that is in effect is reported once, as in effect, however many includes name its file", async () => {
    const { repo } = trap(VARIANTS["onbranch:worktree-**"]!);
    repo.git(["config", "include.path", "trap.inc"]);
    const toolbox = createToolbox({ root: realpathSync(repo.dir) });
    try {
      expect(data(await toolbox.execute("git_status", {})).neutralised).toEqual([{ key: "filter.trap.smudge", scope: "local" }]);
    } finally {
      await toolbox.close();
    }
  });
});

describe("hooks under a condition that holds only in the new worktree", () => {
  it("git worktree add runs the main checkout's post-checkout hook, not the worktree's; gitctx runs neither and names the one git would have run", async () => {
    const { repo, ran } = trap((repo, traps, marker) => {
      markerScript(join(repo.dir, ".git", "hooks"), "post-checkout", marker);
      const hooks = join(traps, "hooks");
      mkdirSync(hooks);
      markerScript(hooks, "post-checkout", marker, `echo worktree-hook >> '${marker}'`);
      writeFileSync(join(repo.dir, ".git", "hooks.inc"), `[core]\n\thooksPath = ${hooks}\n`);
      repo.git(["config", "includeIf.gitdir:**/.git/worktrees/**.path", "hooks.inc"]);
      return { key: "core.hookspath" };
    });
    const plain = join(tempDir(), "plain");
    plainGit(repo.dir, ["worktree", "add", "-q", "-b", "worktree-plain", plain]);
    // The hook of the process that adds the worktree ran; the worktree's own hooks path applies to what runs there.
    expect(ran()).toEqual(["post-checkout"]);
    plainGit(plain, ["checkout", "-q", "-b", "elsewhere"]);
    expect(ran()).toEqual(["post-checkout", "worktree-hook"]);

    const { repo: other, ran: otherRan } = trap((repo, traps, marker) => {
      markerScript(join(repo.dir, ".git", "hooks"), "post-checkout", marker);
      const hooks = join(traps, "hooks");
      mkdirSync(hooks);
      markerScript(hooks, "post-checkout", marker);
      writeFileSync(join(repo.dir, ".git", "hooks.inc"), `[core]\n\thooksPath = ${hooks}\n`);
      repo.git(["config", "includeIf.gitdir:**/.git/worktrees/**.path", "hooks.inc"]);
      return { key: "core.hookspath" };
    });
    const toolbox = createToolbox({ root: other.dir, mode: "workspace-write" });
    try {
      const entered = data(await toolbox.execute("enter_worktree", { name: "wt" }));
      expect(entered.notes.join("\n")).toContain(
        `Did not run the repository's post-checkout hook (${join(realpathSync(other.dir), ".git", "hooks", "post-checkout")})`,
      );
      const status = data(await toolbox.execute("git_status", {})) as GitStatusData;
      expect(status.neutralised).toContainEqual({ key: "core.hookspath", scope: "local" });
      data(await toolbox.execute("exit_worktree", { action: "remove" }));
    } finally {
      await toolbox.close();
    }
    expect(otherRan()).toEqual([]);
  });
});

describe("a gitctx worktree whose commondir was rewritten to lead elsewhere", () => {
  /**
   * A gitctx worktree, then another repository beside it whose config names the filter, and the worktree's
   * commondir rewritten to `lnk/../.git`, which reaches that repository only as git resolves paths. Plain git in
   * the worktree then runs the filter (proven here, each time).
   */
  async function tampered(): Promise<{ repo: TestRepo; worktree: string; marker: string; touch: () => void }> {
    const repo = makeRepo();
    repo.write(".gitattributes", "*.txt filter=evil\n").write("a.txt", "alpha\n");
    repo.commit("first");
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    const made = await toolbox.execute("enter_worktree", { name: "n" });
    if (!made.ok) throw new Error(made.error.message);
    expect((await toolbox.execute("exit_worktree", { action: "keep" })).ok).toBe(true);
    await toolbox.close();
    const evil = join(repo.dir, "evil");
    mkdirSync(join(evil, "x"), { recursive: true });
    plainGit(repo.dir, ["clone", "-q", "--bare", repo.dir, join(evil, ".git")]);
    const traps = tempDir("gitctx-worktree-trap-");
    const marker = join(traps, "marker");
    plainGit(evil, ["--git-dir", join(evil, ".git"), "config", "filter.evil.clean", markerScript(traps, "clean", marker, "cat")]);
    symlinkSync(join(evil, "x"), join(repo.dir, "lnk"));
    writeFileSync(join(repo.dir, ".git", "worktrees", "n", "commondir"), "../../../lnk/../.git\n");
    const worktree = made.data.worktreePath;
    const touch = (): void => {
      const old = new Date(2019, 0, 1);
      utimesSync(join(worktree, "a.txt"), old, old);
    };
    touch();
    plainGit(worktree, ["status"]);
    expect(markerNames(marker)).toEqual(["clean"]);
    rmSync(marker);
    touch();
    return { repo, worktree, marker, touch };
  }

  it("enter_worktree refuses before handing it over, and the session stays where it was", async () => {
    const { repo, marker } = await tampered();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      const entered = await toolbox.execute("enter_worktree", { name: "n" });
      expect(entered.ok ? "ok" : entered.error.code).toBe("unsafe_repository");
      expect(toolbox.root).toBe(repo.dir);
      expect((await toolbox.execute("git_status", {})).ok).toBe(true);
      expect(markerNames(marker)).toEqual([]);
    } finally {
      await toolbox.close();
    }
  });

  it("removeWorktree refuses before its loss check runs git there, and leaves the worktree as it was", async () => {
    const { repo, worktree, marker } = await tampered();
    await expect(removeWorktree({ root: repo.dir, name: "n" })).rejects.toMatchObject({ code: "unsafe_repository" });
    expect(markerNames(marker)).toEqual([]);
    expect(existsSync(join(worktree, "a.txt"))).toBe(true);
  });
});
