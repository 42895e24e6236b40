/**
 * The user's own git settings that change answers are carried over, so gitctx says what plain git, run by that
 * user, says: line endings (Git for Windows sets core.autocrlf in its system config), the global ignore file,
 * includeIf for this repository; the repository's own setting still wins; a user setting that names a program
 * is never carried.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, type ToolResult, type UserConfigEnvironment } from "../src/index.js";
import { trap } from "./fixtures/hostile.js";
import { loggingGit } from "./fixtures/logging-git.js";
import { cloneRepo, fixtureEnv, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

/** A home directory with a global config, as the user's git finds it (`~/.gitconfig`). */
function userHome(gitconfig: string, files: Record<string, string> = {}): string {
  const home = tempDir("gitctx-user-home-");
  writeFileSync(join(home, ".gitconfig"), gitconfig);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(home, path, ".."), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return home;
}

/** Plain git as that user runs it: their HOME, no system config. */
function usersGit(repo: TestRepo, home: string, args: string[], extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...fixtureEnv(), HOME: home, GIT_CONFIG_NOSYSTEM: "1", ...extra };
  delete env.GIT_CONFIG_GLOBAL;
  return plainGit(repo.dir, args, env);
}

async function statusPaths(repo: TestRepo, userConfig: UserConfigEnvironment | false): Promise<string[]> {
  const toolbox = createToolbox({ root: repo.dir, userConfig });
  const result = await toolbox.execute("git_status", {});
  await toolbox.close();
  if (!result.ok) throw new Error(result.error.message);
  return result.data.entries.map((entry) => `${entry.index}${entry.worktree} ${entry.path}`);
}

/** What plain git status --porcelain=v2 lists, as `XY path`. */
function plainPaths(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => (line.startsWith("? ") ? `?? ${line.slice(2)}` : `${line.split(" ")[1]} ${line.split(" ").at(-1)}`));
}

/**
 * A clone of LF files made with core.autocrlf=true, as on Windows: the work tree holds CRLF files and the index
 * their sizes. The files are then touched, so git re-reads them (as it does after a fresh clone, whose files are
 * racily clean): with the user's setting the content matches, without it every file differs.
 */
function crlfCheckout(): TestRepo {
  const source = makeRepo();
  source.write("a.txt", "one\ntwo\n").write("b.txt", "three\n");
  source.commit("first");
  const repo = cloneRepo(source.dir, ["-c", "core.autocrlf=true"]);
  expect(readFileSync(join(repo.dir, "a.txt"), "utf8")).toBe("one\r\ntwo\r\n");
  const later = Math.floor(Date.now() / 1000) + 10;
  for (const file of ["a.txt", "b.txt"]) utimesSync(join(repo.dir, file), later, later);
  return repo;
}

describe("the user's settings that change answers", () => {
  it("core.autocrlf in the global config: a CRLF checkout is clean for the user, and for gitctx", async () => {
    const repo = crlfCheckout();
    const home = userHome("[core]\n\tautocrlf = true\n");
    expect(plainPaths(usersGit(repo, home, ["status", "--porcelain=v2"]).stdout)).toEqual([]);
    // The class: without the user's setting, every file reads as modified.
    expect(plainPaths(plainGit(repo.dir, ["status", "--porcelain=v2"]).stdout)).toEqual([".M a.txt", ".M b.txt"]);
    expect(await statusPaths(repo, false)).toEqual([".M a.txt", ".M b.txt"]);
    expect(await statusPaths(repo, { HOME: home, GIT_CONFIG_NOSYSTEM: "1" })).toEqual([]);
  });

  it("core.autocrlf in the system config (where Git for Windows sets it)", async () => {
    const repo = crlfCheckout();
    const system = join(tempDir(), "gitconfig");
    writeFileSync(system, "[core]\n\tautocrlf = true\n");
    const home = userHome("");
    const env = { HOME: home, GIT_CONFIG_SYSTEM: system };
    const plain = plainPaths(usersGit(repo, home, ["status", "--porcelain=v2"], { GIT_CONFIG_SYSTEM: system, GIT_CONFIG_NOSYSTEM: "" }).stdout);
    expect(plain).toEqual([]);
    expect(await statusPaths(repo, env)).toEqual(plain);
  });

  it("the repository's own setting wins over the user's", async () => {
    const repo = crlfCheckout();
    repo.git(["config", "core.autocrlf", "false"]);
    const home = userHome("[core]\n\tautocrlf = true\n");
    const plain = plainPaths(usersGit(repo, home, ["status", "--porcelain=v2"]).stdout);
    expect(plain).toEqual([".M a.txt", ".M b.txt"]);
    expect(await statusPaths(repo, { HOME: home, GIT_CONFIG_NOSYSTEM: "1" })).toEqual(plain);
  });

  it("the global ignore file, named or git's default ~/.config/git/ignore, hides what it hides for the user", async () => {
    for (const [gitconfig, files] of [
      ["[core]\n\texcludesFile = ~/.gitignore_global\n", { ".gitignore_global": ".DS_Store\n.idea/\n" }],
      ["", { ".config/git/ignore": ".DS_Store\n.idea/\n" }],
    ] as const) {
      const repo = makeRepo();
      repo.write("a.txt", "a\n").commit("first");
      repo.write(".DS_Store", "x").write(".idea/workspace.xml", "<x/>").write("notes.md", "n\n");
      const home = userHome(gitconfig, files);
      const plain = plainPaths(usersGit(repo, home, ["status", "--porcelain=v2", "--untracked-files=all"]).stdout);
      expect(plain).toEqual(["?? notes.md"]);
      expect(await statusPaths(repo, { HOME: home, GIT_CONFIG_NOSYSTEM: "1" })).toEqual(plain);
      expect(await statusPaths(repo, false)).toEqual(["?? .DS_Store", "?? .idea/workspace.xml", "?? notes.md"]);
    }
  });

  it("includeIf.gitdir in the global config applies to the repositories it names", async () => {
    const repo = crlfCheckout();
    const home = userHome(`[includeIf "gitdir:${repo.dir}/"]\n\tpath = ~/work.gitconfig\n`, { "work.gitconfig": "[core]\n\tautocrlf = true\n" });
    expect(plainPaths(usersGit(repo, home, ["status", "--porcelain=v2"]).stdout)).toEqual([]);
    expect(await statusPaths(repo, { HOME: home, GIT_CONFIG_NOSYSTEM: "1" })).toEqual([]);
  });

  it("the diff algorithm, log.follow, log.showRoot, core.abbrev and blame.showRoot: the answer of the user's git", async () => {
    const repo = makeRepo();
    const lines = (text: string): string => `${text.split(" ").join("\n")}\n`;
    repo.write("f", lines("{ d b e e } a c a d a d")).write("old.txt", "one\ntwo\nthree\n");
    const root = repo.commit("first");
    repo.write("old.txt", "one\ntwo\nthree\nfour\n").commit("second");
    repo.git(["mv", "old.txt", "new.txt"]);
    repo.commit("rename");
    repo.write("f", lines("{ e d } e e a c b a d a d"));
    const home = userHome(
      "[diff]\n\talgorithm = patience\n[log]\n\tfollow = true\n\tshowRoot = false\n[core]\n\tabbrev = 12\n[blame]\n\tshowRoot = true\n",
    );
    const users = (args: string[]): string => usersGit(repo, home, args).stdout;
    const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    const data = async <T>(result: Promise<ToolResult<T>>): Promise<T> => {
      const done = await result;
      if (!done.ok) throw new Error(done.error.message);
      return done.data;
    };
    try {
      // The class first: each setting changes plain git's answer.
      const counts = users(["diff", "--numstat", "--", "f"]).split("\t").slice(0, 2).map(Number);
      expect(plainGit(repo.dir, ["diff", "--numstat", "--", "f"]).stdout.split("\t").slice(0, 2).map(Number)).not.toEqual(counts);
      const file = (await data(toolbox.execute("git_diff", { stat: true }))).files.find((entry) => entry.path === "f")!;
      expect([file.additions, file.deletions]).toEqual(counts);
      const followed = users(["log", "--format=%H %h", "--", "new.txt"]).trim().split("\n");
      // The rename and the change before it (the first commit, with log.showRoot off, shows no file to follow).
      expect(followed).toHaveLength(2);
      const log = await data(toolbox.execute("git_log", { path: "new.txt" }));
      expect(log.commits.map((commit) => `${commit.hash} ${commit.shortHash}`)).toEqual(followed);
      expect(log.commits[0]!.shortHash).toHaveLength(12);
      expect(users(["show", "--format=", "--numstat", root]).trim()).toBe("");
      const shown = await data(toolbox.execute("git_show", { commit: root, format: "stat" }));
      expect(shown.kind === "commit" ? shown.diff?.files : undefined).toEqual([]);
      expect(plainGit(repo.dir, ["blame", "--porcelain", "new.txt"]).stdout).toContain("\nboundary\n");
      expect(users(["blame", "--porcelain", "new.txt"])).not.toContain("\nboundary\n");
      const blamed = await data(toolbox.execute("git_blame", { path: "new.txt" }));
      expect(blamed.commits[root]?.boundary).toBe(false);
    } finally {
      await toolbox.close();
    }
  });

  it("the user's url insteadOf rules: the remotes git_context shows are the URLs the user's git remote -v shows", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    repo.git(["remote", "add", "origin", "gh:me/repo.git"]);
    const home = userHome('[url "https://github.com/"]\n\tinsteadOf = gh:\n');
    const listed = usersGit(repo, home, ["remote", "-v"]).stdout;
    expect(listed).toContain("origin\thttps://github.com/me/repo.git (fetch)");
    const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    const result = await toolbox.execute("git_context", { sections: ["remotes"] });
    await toolbox.close();
    if (!result.ok) throw new Error(result.error.message);
    expect(JSON.stringify(result.data)).toContain("https://github.com/me/repo.git");
    expect(JSON.stringify(result.data)).not.toContain("gh:me/repo.git");
    // A URL that holds a line break would make git remote -v print a remote that is not there: it is shown as
    // the config has it instead.
    repo.git(["config", "remote.origin.url", "https://good.example/r.git\nupstream\thttps://evil.example/x (fetch)"]);
    expect(usersGit(repo, home, ["remote", "-v"]).stdout).toMatch(/^upstream\thttps:\/\/evil/m);
    const again = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    const spoofed = await again.execute("git_context", { sections: ["remotes"] });
    await again.close();
    if (!spoofed.ok) throw new Error(spoofed.error.message);
    const names = JSON.stringify(spoofed.data).match(/"name":"[^"]*"/g) ?? [];
    expect(names).not.toContain('"name":"upstream"');
    expect(names).toContain('"name":"origin"');
  });

  it("log.mailmap=false, the user's or the repository's: git_log and git_show give the names the commits record", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").write(".mailmap", "Real Name <real@example.com> <ada@example.com>\n").commit("first");
    const home = userHome("[log]\n\tmailmap = false\n");
    const users = usersGit(repo, home, ["log", "-1", "--format=%an|%ae"]).stdout.trim();
    // Raw, where git's default maps them: the setting is what changes the answer.
    expect(users).toBe("Ada Lovelace|ada@example.com");
    expect(plainGit(repo.dir, ["log", "-1"]).stdout).toContain("Author: Real Name <real@example.com>");
    const author = async (userConfig: UserConfigEnvironment | false): Promise<string> => {
      const toolbox = createToolbox({ root: repo.dir, userConfig });
      const log = await toolbox.execute("git_log", { count: 1 });
      const show = await toolbox.execute("git_show", { commit: "HEAD", format: "metadata" });
      await toolbox.close();
      if (!log.ok || !show.ok || show.data.kind !== "commit") throw new Error("expected answers");
      expect(show.data.commit.author.name).toBe(log.data.commits[0]!.author.name);
      return `${log.data.commits[0]!.author.name}|${log.data.commits[0]!.author.email}`;
    };
    expect(await author(false)).toBe("Real Name|real@example.com");
    expect(await author({ HOME: home, GIT_CONFIG_NOSYSTEM: "1" })).toBe(users);
    repo.git(["config", "log.mailmap", "false"]);
    expect(await author(false)).toBe(users);
    // A key without a value is true to git: carried as such, not as an empty (false) value.
    repo.git(["config", "--unset", "log.mailmap"]);
    expect(await author({ HOME: userHome("[log]\n\tmailmap\n"), GIT_CONFIG_NOSYSTEM: "1" })).toBe("Real Name|real@example.com");
  });

  it("the user's own diff driver: its hunk-header pattern and binary switch, as the user's git applies them", async () => {
    const repo = makeRepo();
    const numbers = Array.from({ length: 20 }, (_, i) => `${i + 1}`);
    repo.write(".gitattributes", "*.x diff=mine\n").write("f.x", `# SECTION one\n${numbers.join("\n")}\n`);
    repo.commit("first");
    repo.write("f.x", `# SECTION one\n${numbers.map((line) => (line === "15" ? "X" : line)).join("\n")}\n`);
    const pattern = userHome('[diff "mine"]\n\txfuncname = "^# .*"\n');
    const header = usersGit(repo, pattern, ["diff", "--", "f.x"]).stdout.match(/^@@ .*$/m)![0];
    expect(header).toBe("@@ -13,7 +13,7 @@ # SECTION one");
    expect(plainGit(repo.dir, ["diff", "--", "f.x"]).stdout).not.toContain("@@ # SECTION one");
    const patch = async (home: string): Promise<ToolResult<{ patch: string | null; files: Array<{ binary: boolean | null }> }>> => {
      const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
      const result = await toolbox.execute("git_diff", {});
      await toolbox.close();
      return result;
    };
    const withPattern = await patch(pattern);
    expect(withPattern.ok && withPattern.data.patch).toContain(header);
    const binary = userHome('[diff "mine"]\n\tbinary = true\n');
    expect(usersGit(repo, binary, ["diff", "--numstat", "--", "f.x"]).stdout).toMatch(/^-\t-\t/);
    const asBinary = await patch(binary);
    expect(asBinary.ok && asBinary.data.files[0]!.binary).toBe(true);
  });

  it("the repository's own diff algorithm applies too, as in plain git", async () => {
    const repo = makeRepo();
    const lines = (text: string): string => `${text.split(" ").join("\n")}\n`;
    repo.write("f", lines("{ d b e e } a c a d a d")).commit("first");
    repo.write("f", lines("{ e d } e e a c b a d a d"));
    repo.git(["config", "diff.algorithm", "patience"]);
    const counts = plainGit(repo.dir, ["diff", "--numstat", "--", "f"]).stdout.split("\t").slice(0, 2).map(Number);
    const toolbox = createToolbox({ root: repo.dir, userConfig: false });
    const result = await toolbox.execute("git_diff", { stat: true });
    await toolbox.close();
    if (!result.ok) throw new Error(result.error.message);
    expect(result.data.files.map((entry) => [entry.additions, entry.deletions])).toEqual([counts]);
  });

  it("diff.context, the user's or the repository's, sets the patches' context when the call gives none, as in plain git", async () => {
    const repo = makeRepo();
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
    repo.write("f", `${lines.join("\n")}\n`).commit("first");
    repo.write("f", `${lines.map((line, i) => (i === 9 || i === 29 ? `${line} changed` : line)).join("\n")}\n`);
    const commit = repo.commit("second");
    repo.write("f", `${lines.map((line, i) => (i === 19 ? `${line} again` : line)).join("\n")}\n`);
    const patchOf = async (root: string, userConfig: UserConfigEnvironment | false, tool: string, input: object): Promise<string> => {
      const toolbox = createToolbox({ root, userConfig });
      const result = (await toolbox.execute(tool, input)) as ToolResult<any>;
      await toolbox.close();
      if (!result.ok) throw new Error(result.error.message);
      return tool === "git_show" ? result.data.diff.patch : result.data.patch;
    };
    const home = userHome("[diff]\n\tcontext = 1\n");
    const userConfig = { HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    // The class first: the user's setting changes plain git's answer.
    const users = usersGit(repo, home, ["diff"]).stdout;
    expect(users).not.toBe(plainGit(repo.dir, ["diff"]).stdout);
    expect(await patchOf(repo.dir, userConfig, "git_diff", {})).toBe(users);
    expect(await patchOf(repo.dir, userConfig, "git_show", { commit })).toBe(usersGit(repo, home, ["show", "--format=", commit]).stdout);
    // A context the call gives still wins, and without the user's config git's 3 applies.
    expect(await patchOf(repo.dir, userConfig, "git_diff", { context: 5 })).toBe(usersGit(repo, home, ["diff", "-U5"]).stdout);
    expect(await patchOf(repo.dir, false, "git_diff", {})).toBe(plainGit(repo.dir, ["diff"]).stdout);
    // The repository's own value wins over the user's, in each form git reads (hexadecimal, a unit).
    for (const value of ["0", "7", "0x2", "1k"]) {
      repo.git(["config", "diff.context", value]);
      expect(await patchOf(repo.dir, userConfig, "git_diff", {}), value).toBe(usersGit(repo, home, ["diff"]).stdout);
      expect(await patchOf(repo.dir, userConfig, "git_diff", { commit: `${commit}~1..${commit}` }), value).toBe(
        usersGit(repo, home, ["diff", `${commit}~1..${commit}`]).stdout,
      );
    }
    repo.git(["config", "--unset", "diff.context"]);
  });

  it("one listing serves both scans when the repository's config includes nothing; else the repository's comes first, alone", async () => {
    const repo = crlfCheckout();
    const home = userHome("[core]\n\tautocrlf = true\n");
    const userConfig = { HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    const git = loggingGit();
    const toolbox = createToolbox({ root: repo.dir, userConfig, gitSearchPath: git.searchPath });
    const paths = async (): Promise<string[]> => {
      const result = await toolbox.execute("git_status", {});
      if (!result.ok) throw new Error(result.error.message);
      return result.data.entries.map((entry) => entry.path);
    };
    try {
      // The user's setting is carried all the same: the CRLF checkout is clean, as for the user's git.
      expect(await paths()).toEqual([]);
      expect(git.listings()).toEqual([{ privateHome: false }]);
      // An include could lead anywhere, the user's HOME included: the repository's config is listed alone first.
      repo.git(["config", "include.path", "../team.gitconfig"]);
      expect(await paths()).toEqual([]);
      expect(git.listings().slice(1)).toEqual([{ privateHome: true }, { privateHome: false }]);
    } finally {
      await toolbox.close();
    }
  });

  it("a user config git cannot read: the repository is still scanned, and the call answers without the user's settings", async () => {
    const t = trap();
    const repo = makeRepo();
    repo.write(".gitattributes", "*.txt filter=guard\n").write("a.txt", "a\n");
    repo.commit("first");
    repo.git(["config", "filter.guard.clean", t.script("clean", "cat")]);
    const later = Date.now() / 1000 + 5;
    utimesSync(join(repo.dir, "a.txt"), later, later);
    const home = userHome("[core\n\tautocrlf = true\n");
    expect(usersGit(repo, home, ["status"], {}).status).not.toBe(0);
    const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    try {
      const status = await toolbox.execute("git_status", {});
      expect(status.ok && status.data.neutralised).toEqual([{ key: "filter.guard.clean", scope: "local" }]);
      expect(t.lines()).toEqual([]);
    } finally {
      await toolbox.close();
    }
  });

  it("never carries a user setting that names a program", async () => {
    const t = trap();
    const repo = makeRepo();
    repo.write(".gitattributes", "*.txt filter=guard diff=guard\n").write("a.txt", "a\n");
    repo.commit("first");
    repo.write("a.txt", "b\n");
    const home = userHome(
      [
        `[core]\n\tfsmonitor = ${t.script("fsmonitor")}\n\tpager = ${t.script("pager")}\n\tautocrlf = true`,
        `[diff]\n\texternal = ${t.script("external")}`,
        `[filter "guard"]\n\tclean = ${t.script("clean", "cat")}`,
        `[diff "guard"]\n\ttextconv = ${t.script("textconv", "cat")}`,
      ].join("\n"),
    );
    const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    for (const [tool, input] of [
      ["git_status", {}],
      ["git_diff", {}],
      ["git_log", {}],
      ["git_show", { commit: "HEAD" }],
      ["git_context", {}],
    ] as const) {
      expect((await toolbox.execute(tool, input)).ok).toBe(true);
    }
    await toolbox.close();
    expect(t.lines()).toEqual([]);
    // The user's own git runs them all; gitctx ran none.
    usersGit(repo, home, ["status"]);
    expect(t.lines().some((line) => line.startsWith("fsmonitor") || line.startsWith("clean"))).toBe(true);
  });

  it("says so when a filter of the user's own config does not run: the user's git cleans what gitctx shows changed", async () => {
    const repo = makeRepo();
    repo.write(".gitattributes", "*.ipynb filter=strip\n").write("n.ipynb", "code\n");
    repo.commit("first");
    repo.write("n.ipynb", "code\nOUTPUT 42\n");
    const home = userHome(
      '[filter "strip"]\n\tclean = sed /OUTPUT/d\n[filter "off"]\n\tclean = cat\n[filter "lfs"]\n\tclean = git-lfs clean -- %f\n',
    );
    writeFileSync(join(home, ".gitconfig"), `${readFileSync(join(home, ".gitconfig"), "utf8")}[filter "off"]\n\tclean =\n`);
    // The user's git runs the filter: for them the notebook's content is unchanged (status still sees its new size).
    expect(usersGit(repo, home, ["diff", "--stat"]).stdout).toBe("");
    const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    try {
      const diff = await toolbox.execute("git_diff", {});
      if (!diff.ok) throw new Error(diff.error.message);
      expect(diff.data.files.map((file) => [file.path, file.additions])).toEqual([["n.ipynb", 1]]);
      expect(diff.text.split("\n")[1]).toBe(
        "Note: gitctx runs no filter of your own git config, so files your git would clean with one may show changes: filter.strip.clean (global).",
      );
      const status = await toolbox.execute("git_status", {});
      if (!status.ok) throw new Error(status.error.message);
      expect(status.data.entries.map((entry) => entry.path)).toEqual(["n.ipynb"]);
      // Only the driver still switched on is named; LFS is read by gitctx's own filter, not reported.
      expect(status.data.neutralised).toEqual([{ key: "filter.strip.clean", scope: "global" }]);
      expect(status.text).toContain(
        "Note: gitctx runs no filter of your own git config, so files your git would clean with one may show changes: filter.strip.clean (global)",
      );
      expect(status.text).not.toContain("this repository's config");
      const context = await toolbox.execute("git_context", {});
      expect(context.ok && context.data.snapshot.neutralised).toEqual([{ key: "filter.strip.clean", scope: "global" }]);
    } finally {
      await toolbox.close();
    }
  });
});
