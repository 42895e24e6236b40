/**
 * A worktree of a hostile repository: plain `git worktree add` runs its smudge filter, process filter,
 * post-checkout hook and fsmonitor (each proven by a marker), gitctx runs none and says what the checkout lacks
 * (unfiltered files, LFS pointers, the hook) with the command to get it. And the repository guards (the command
 * classifier's repository check, `isGitInternalPath`) see a gitctx worktree's own git files.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyCommandInRepository, createToolbox, createWorktree, isGitInternalPath, removeWorktree, type GitctxError } from "../src/index.js";
import { fixtureEnv, makeRepo, markerNames, markerScript, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

const LFS_POINTER =
  "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";

/** Each program the repository names appends its name to the marker when it runs. */
function hostileRepo(): { repo: TestRepo; marker: string; ran: () => string[] } {
  const repo = makeRepo();
  repo.write("a.txt", "alpha\n");
  repo.write("data.dat", "data\n");
  repo.write("big.bin", LFS_POINTER);
  repo.write("more.bin", LFS_POINTER);
  repo.write(".gitattributes", "*.txt filter=smudger\n*.dat filter=processor\n*.bin filter=lfs diff=lfs merge=lfs -text\n");
  repo.commit("files");
  const traps = tempDir("gitctx-worktree-trap-");
  const marker = join(traps, "marker");
  const script = (name: string, body = "cat"): string => markerScript(traps, name, marker, body);
  repo.git(["config", "filter.smudger.smudge", script("smudge")]);
  repo.git(["config", "filter.smudger.clean", script("clean")]);
  repo.git(["config", "filter.processor.process", script("process")]);
  repo.git(["config", "filter.lfs.smudge", `${script("lfs-smudge")} %f`]);
  repo.git(["config", "filter.lfs.process", script("lfs-process")]);
  repo.git(["config", "core.fsmonitor", script("fsmonitor", "exit 1")]);
  markerScript(join(repo.dir, ".git", "hooks"), "post-checkout", marker);
  const ran = (): string[] => markerNames(marker);
  return { repo, marker, ran };
}

describe("a worktree of a hostile repository", () => {
  it("plain git worktree add runs the smudge filter, the process filter, the post-checkout hook and fsmonitor", () => {
    const { repo, ran } = hostileRepo();
    plainGit(repo.dir, ["worktree", "add", "-q", "-b", "plain", join(tempDir(), "plain")]);
    expect(ran()).toEqual(expect.arrayContaining(["fsmonitor", "post-checkout", "process", "smudge"]));
  });

  it("gitctx runs none of them, and says which filters it neutralised, the LFS pointers and the skipped hook", async () => {
    const { repo, ran } = hostileRepo();
    const created = await createWorktree({ root: repo.dir, name: "safe" });
    expect(ran()).toEqual([]);
    expect(readFileSync(join(created.path, "a.txt"), "utf8")).toBe("alpha\n");
    expect(readFileSync(join(created.path, "big.bin"), "utf8")).toBe(LFS_POINTER);
    const quoted = created.path;
    expect(created.filters).toHaveLength(3);
    expect(created.filters).toEqual(
      expect.arrayContaining([
        { driver: "smudger", files: 1, lfsPointers: 0, command: `cd ${quoted} && git rm -r -q --cached -- . && git reset -q --hard` },
        { driver: "processor", files: 1, lfsPointers: 0, command: `cd ${quoted} && git rm -r -q --cached -- . && git reset -q --hard` },
        { driver: "lfs", files: 2, lfsPointers: 2, command: `cd ${quoted} && git lfs pull` },
      ]),
    );
    const notes = created.notes.join("\n");
    expect(notes).toContain('Checked out 2 files without the repository\'s filter "lfs" (gitctx runs no filter), 2 of them LFS pointer files');
    expect(notes).toContain(`To apply it yourself: cd ${quoted} && git lfs pull`);
    expect(created.skippedHooks).toEqual([
      {
        hook: "post-checkout",
        path: join(realpathSync(repo.dir), ".git", "hooks", "post-checkout"),
        command: `cd ${quoted} && git hook run post-checkout -- ${"0".repeat(40)} ${created.base} 1`,
      },
    ]);
    expect(created.neutralised.map((setting) => setting.key)).toEqual(
      expect.arrayContaining(["filter.smudger.smudge", "filter.processor.process", "filter.lfs.smudge", "filter.lfs.process", "core.fsmonitor"]),
    );

    // Reopening, looking inside and removing run nothing either.
    await createWorktree({ root: repo.dir, name: "safe" });
    const removed = await removeWorktree({ root: repo.dir, name: "safe" });
    expect(removed.removed).toBe(true);
    expect(ran()).toEqual([]);
  });

  it("the commands it names do what they say: the filter and the hook run when the user runs them", async () => {
    const { repo, ran } = hostileRepo();
    // Only the smudge filter and the hook, so the user's own checkout below runs to its end.
    repo.git(["config", "--unset", "filter.processor.process"]);
    repo.git(["config", "--remove-section", "filter.lfs"]);
    const created = await createWorktree({ root: repo.dir, name: "manual" });
    expect(ran()).toEqual([]);
    const smudger = created.filters.find((filter) => filter.driver === "smudger")!;
    const run = spawnSync("sh", ["-c", smudger.command], { env: fixtureEnv(), encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(ran()).toContain("smudge");
    expect(spawnSync("sh", ["-c", created.skippedHooks[0]!.command], { env: fixtureEnv() }).status).toBe(0);
    expect(ran()).toContain("post-checkout");
  });

  it("enter_worktree in a session reports it too, and git_status inside runs nothing", async () => {
    const { repo, ran } = hostileRepo();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write" });
    try {
      const entered = await toolbox.execute("enter_worktree", { name: "tool" });
      if (!entered.ok) throw new Error(entered.error.message);
      expect(entered.data.unfilteredFiles).toBe(4);
      expect(entered.text).toContain("LFS pointer files");
      expect(entered.text).toContain("post-checkout hook");
      const status = await toolbox.execute("git_status", {});
      expect(status.ok).toBe(true);
      expect(ran()).toEqual([]);
    } finally {
      await toolbox.close();
    }
  });
});

describe("which checked-out files a neutralised filter would have changed", () => {
  /** A repository whose config names a smudge filter (it never runs: the trap only proves that). */
  function filteredRepo(): { repo: TestRepo; ran: () => string[] } {
    const repo = makeRepo();
    repo.write("a.txt", "alpha\n");
    repo.write("sub/b.txt", "beta\n");
    repo.write("c.dat", "gamma\n");
    const traps = tempDir("gitctx-worktree-trap-");
    const marker = join(traps, "marker");
    repo.git(["config", "filter.smudger.smudge", markerScript(traps, "smudge", marker, "cat")]);
    return { repo, ran: () => markerNames(marker) };
  }

  async function unfilteredIn(repo: TestRepo, name: string, home?: string): Promise<number> {
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write", userConfig: { HOME: home ?? tempDir("gitctx-home-") } });
    try {
      const entered = await toolbox.execute("enter_worktree", { name });
      if (!entered.ok) throw new Error(entered.error.message);
      return entered.data.unfilteredFiles;
    } finally {
      await toolbox.close();
    }
  }

  it("are found through every attributes file git reads: a macro, a nested .gitattributes, info/attributes, the user's", async () => {
    const { repo, ran } = filteredRepo();
    repo.write(".gitattributes", "[attr]smudged filter=smudger\n*.dat smudged\n");
    repo.write("sub/.gitattributes", "*.txt filter=smudger\n");
    repo.commit("files");
    expect(await unfilteredIn(repo, "macro-and-nested")).toBe(2);

    const bare = filteredRepo();
    bare.repo.commit("files");
    expect(await unfilteredIn(bare.repo, "none")).toBe(0);
    writeFileSync(join(bare.repo.dir, ".git", "info", "attributes"), "a.txt filter=smudger\n");
    expect(await unfilteredIn(bare.repo, "info-attributes")).toBe(1);
    rmSync(join(bare.repo.dir, ".git", "info", "attributes"));
    const home = tempDir("gitctx-home-");
    mkdirSync(join(home, ".config", "git"), { recursive: true });
    writeFileSync(join(home, ".config", "git", "attributes"), "*.txt filter=smudger\n");
    expect(await unfilteredIn(bare.repo, "user-attributes", home)).toBe(2);
    expect([...ran()]).toEqual([]);
  });

  it("are none when no attributes file names a filter, git-lfs set up in the user's config or not", async () => {
    const { repo } = filteredRepo();
    repo.write(".gitattributes", "*.txt text eol=lf\n");
    repo.commit("files");
    const home = tempDir("gitctx-home-");
    writeFileSync(
      join(home, ".gitconfig"),
      '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n',
    );
    expect(await unfilteredIn(repo, "plain", home)).toBe(0);
    // The same attributes with a filter named: found.
    repo.write(".gitattributes", "*.txt text eol=lf\n*.dat filter=lfs\n");
    repo.commit("lfs");
    expect(await unfilteredIn(repo, "lfs", home)).toBe(1);
  });
});

describe("the guards see a worktree's git files", () => {
  it("isGitInternalPath: the .git file, git's directory for the worktree (gitctx's record in it), the common directory", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "alpha\n");
    repo.commit("first");
    repo.write("node_modules/x.js", "x\n");
    const created = await createWorktree({ root: repo.dir, name: "guarded" });
    const admin = join(realpathSync(repo.dir), ".git", "worktrees", "guarded");
    expect(readdirSync(admin)).toContain("gitctx.json");
    const wt = created.path;
    expect(await isGitInternalPath(".git", wt)).toBe(true);
    expect(await isGitInternalPath(join(admin, "gitctx.json"), wt)).toBe(true);
    expect(await isGitInternalPath(join(admin, "locked"), wt)).toBe(true);
    expect(await isGitInternalPath(join(admin, "HEAD"), wt)).toBe(true);
    expect(await isGitInternalPath("../../../.git/config", wt)).toBe(true);
    expect(await isGitInternalPath("a.txt", wt)).toBe(false);
    // The link into the main checkout's node_modules is not a way into a git directory.
    expect(await isGitInternalPath("node_modules/x.js", wt)).toBe(false);
    // From the main checkout, the worktree's files are files, its .git is not.
    expect(await isGitInternalPath(".claude/worktrees/guarded/a.txt", repo.dir)).toBe(false);
    expect(await isGitInternalPath(".claude/worktrees/guarded/.git", repo.dir)).toBe(true);
  });

  it("the classifier's repository check reads the worktree's config (shared and its own) before allowing a read", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "alpha\n");
    repo.commit("first");
    const created = await createWorktree({ root: repo.dir, name: "classified" });
    expect((await classifyCommandInRepository("git status", { root: created.path })).verdict).toBe("allow");
    const marker = join(tempDir(), "marker");
    repo.git(["config", "core.fsmonitor", markerScript(tempDir(), "fsmonitor", marker, "exit 1")]);
    const shared = await classifyCommandInRepository("git status", { root: created.path });
    expect(shared.verdict).toBe("ask");
    expect(shared.reasons.join("\n")).toContain("core.fsmonitor");
    repo.git(["config", "--unset", "core.fsmonitor"]);
    // A setting of the worktree's own config.worktree counts too.
    repo.git(["config", "extensions.worktreeConfig", "true"]);
    plainGit(created.path, ["config", "--worktree", "core.fsmonitor", markerScript(tempDir(), "fsmonitor2", marker, "exit 1")]);
    const own = await classifyCommandInRepository("git diff", { root: created.path });
    expect(own.verdict).toBe("ask");
    expect(own.reasons.join("\n")).toContain("core.fsmonitor");
    expect(existsSync(marker)).toBe(false);
  });
});

/**
 * A submodule path that two `.gitmodules` entries name: git takes the last entry (it finds a submodule by its
 * path), so the name gitctx pointed at the local copy is not the one git acts on, and the other entry's config
 * (an `update = !command`, a URL outside) applied. The local copy of the first is what the attack borrows.
 */
function duplicatedSubmodule(): { repo: TestRepo; traps: string; marker: string } {
  const sub = makeRepo();
  sub.write("s.txt", "s\n").commit("sub");
  const repo = makeRepo();
  repo.write("a.txt", "one\n").commit("first");
  repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", "--name", "a", sub.dir, "sub"]);
  repo.commit("submodule");
  appendFileSync(join(repo.dir, ".gitmodules"), '[submodule "b"]\n\tpath = sub\n\turl = ./unused\n');
  repo.git(["commit", "-qam", "a second entry for the same path"]);
  const traps = tempDir("gitctx-worktree-trap-");
  return { repo, traps, marker: join(traps, "marker") };
}

describe("submodules of a new worktree that .gitmodules names twice", () => {
  it("an update command under the second name: plain git runs it, gitctx leaves the submodule empty and runs nothing", async () => {
    const { repo, traps, marker } = duplicatedSubmodule();
    repo.git(["config", "submodule.b.url", join(realpathSync(repo.dir), ".git", "modules", "a")]);
    repo.git(["config", "submodule.b.update", `!${markerScript(traps, "update", marker)}`]);
    const plain = join(tempDir("gitctx-worktree-plain-"), "plain");
    plainGit(repo.dir, ["worktree", "add", "-q", plain]);
    plainGit(plain, ["-c", "protocol.file.allow=always", "submodule", "update", "--init", "--", "sub"]);
    expect(markerNames(marker)).toEqual(["update"]);
    rmSync(marker);
    const created = await createWorktree({ root: repo.dir, name: "guarded" });
    expect(markerNames(marker)).toEqual([]);
    expect(created.submodules).toMatchObject([{ path: "sub", state: "left-empty" }]);
    expect(created.notes.join("\n")).toContain("more than one entry of .gitmodules names this path (a, b)");
  });

  it("a URL outside the workspace under the second name: the file transport gitctx allows would clone it; gitctx clones nothing", async () => {
    const { repo } = duplicatedSubmodule();
    const secret = makeRepo();
    secret.write("secret.txt", "TOPSECRET\n").commit("private");
    repo.git(["config", "submodule.b.url", secret.dir]);
    const plain = join(tempDir("gitctx-worktree-plain-"), "plain");
    plainGit(repo.dir, ["worktree", "add", "-q", plain]);
    // With the file transport allowed, as gitctx allows it for its one clone, git clones the outside repository
    // into the repository (then fails to check out a commit it lacks).
    plainGit(plain, ["-c", "protocol.file.allow=always", "submodule", "update", "--init", "--", "sub"]);
    const cloned = join(repo.dir, ".git", "worktrees", "plain", "modules", "b");
    expect(plainGit(repo.dir, [`--git-dir=${cloned}`, "show", "HEAD:secret.txt"]).stdout).toBe("TOPSECRET\n");
    const created = await createWorktree({ root: repo.dir, name: "guarded" });
    expect(created.submodules).toMatchObject([{ path: "sub", state: "left-empty" }]);
    expect(readdirSync(join(created.path, "sub"))).toEqual([]);
    expect(existsSync(join(repo.dir, ".git", "worktrees", "guarded", "modules", "b"))).toBe(false);
  });
});

describe("a worktree directory replaced by a symbolic link before its removal", () => {
  it("plain git worktree remove --force empties the directory the link names; gitctx refuses and leaves it whole", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "one\n").commit("first");
    const outside = tempDir("gitctx-worktree-outside-");
    const keep = (dir: string): void => {
      writeFileSync(join(dir, "precious.txt"), "keep me\n");
      // A .git file leading back to the worktree's record, so git takes the directory for the worktree.
      writeFileSync(join(dir, ".git"), `gitdir: ${join(realpathSync(repo.dir), ".git", "worktrees", "victim")}\n`);
    };
    const plainPath = join(realpathSync(repo.dir), ".claude", "worktrees", "victim");
    // Plain git first: its own worktree, swapped for a link.
    mkdirSync(join(repo.dir, ".claude", "worktrees"), { recursive: true });
    plainGit(repo.dir, ["worktree", "add", "-q", plainPath]);
    rmSync(plainPath, { recursive: true });
    symlinkSync(outside, plainPath);
    keep(outside);
    plainGit(repo.dir, ["worktree", "remove", "--force", plainPath]);
    expect(existsSync(join(outside, "precious.txt"))).toBe(false);
    rmSync(plainPath, { force: true });
    plainGit(repo.dir, ["worktree", "prune"]);
    // Then gitctx's own worktree of that name, swapped the same way.
    const created = await createWorktree({ root: repo.dir, name: "victim" });
    rmSync(created.path, { recursive: true });
    symlinkSync(outside, created.path);
    keep(outside);
    for (const discardChanges of [false, true]) {
      const error = await removeWorktree({ root: repo.dir, name: "victim", discardChanges }).catch((thrown: unknown) => thrown as GitctxError);
      expect(error).toMatchObject({ code: "unsafe_repository" });
      expect((error as GitctxError).message).toContain("is no longer the directory gitctx made: it is a symbolic link");
    }
    expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("keep me\n");
  });
});
