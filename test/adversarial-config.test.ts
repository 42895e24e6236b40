/**
 * Config-driven execution, the vectors test/security.test.ts does not cover yet, each run against the whole
 * tool × parameter table (test/fixtures/hostile.ts `everyCall`): pagers under a pseudo-terminal, lazy fetch
 * through core.sshCommand / uploadpack / ext:: for every tool, a committed bare repository inside the work tree, a
 * hostile bare repository as the root,
 * blame.ignoreRevsFile and mailmap.file pointing at /etc/passwd, include.path to a tracked file setting every
 * vector at once, and GIT_EXEC_PATH / GIT_CONFIG_PARAMETERS / GIT_TRACE inherited. For each vector, plain git
 * is first shown to fall for it; then every combination runs and must answer exactly as it did before the
 * repository was armed, with no marker, no file written (trap, repository and .git listed before and after)
 * and no foreign text in any output.
 */
import { chmodSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, type ToolResult } from "../src/index.js";
import { everyCall, expectNoForeignText, gitUnderTty, listing, outcome, runAll, trap, type Trap } from "./fixtures/hostile.js";
import { fixtureEnv, makeRepo, plainGit, type TestRepo } from "./fixtures/repo.js";

const CALLS = everyCall();
/** Combinations actually run by this file (each vector runs the whole table twice: before and after arming). */
let combinationsRun = 0;

/** Results with what may legitimately differ between two runs taken out: clocks and the neutralised report. */
function normalise(result: ToolResult): unknown {
  const copy = JSON.parse(JSON.stringify(result)) as Record<string, any>;
  if (!copy.ok) return copy;
  const data = copy.data as Record<string, any>;
  delete data.neutralised;
  if (copy.tool === "git_context") {
    delete data.snapshot.takenAt;
    delete data.snapshot.neutralised;
    // Arming a lazy-fetch vector adds a remote: the one section that legitimately changes.
    delete data.snapshot.remotes;
    delete data.rendering;
    delete copy.text;
  }
  // The warning line that names what was neutralised is the one part of these texts that arming changes.
  if (copy.tool === "git_status" || copy.tool === "git_diff") copy.text = String(copy.text).replace(/\nWarning: this repository's config[^\n]*/, "");
  if (copy.tool === "git_blame") {
    // Lines not committed yet carry the time of the call.
    for (const commit of Object.values(data.commits as Record<string, any>)) {
      if (commit.uncommitted) commit.authorTime = commit.committerTime = null;
    }
    copy.text = "(blame text)";
  }
  return copy;
}

/**
 * a.txt in two commits, then modified; b.txt staged and stat-dirty (so status re-reads it: what runs filters,
 * fsmonitor and hooks). `content` adds files to the first commit.
 */
function baseRepo(content?: (repo: TestRepo) => void): TestRepo {
  const repo = makeRepo();
  repo.write("a.txt", "one\ntwo\nthree\n");
  content?.(repo);
  repo.commit("first");
  repo.write("a.txt", "one\n2\nthree\n");
  repo.commit("second");
  repo.write("b.txt", "bee\n");
  repo.git(["add", "b.txt"]);
  repo.write("a.txt", "one\n2\nthree\nfour\n");
  utimesSync(join(repo.dir, "b.txt"), 946684800, 946684800);
  return repo;
}

/**
 * Runs the whole table on the unarmed repository, arms it, runs the table again: same answers, no marker,
 * nothing written in the trap, the repository or anywhere listed in `watch`.
 */
async function proveTable(
  repo: TestRepo,
  t: Trap,
  arm: () => void,
  options: { foreign?: string[]; env?: Record<string, string>; watch?: string[]; trapPathIsContent?: boolean } = {},
): Promise<ToolResult[]> {
  const toolbox = createToolbox({ root: repo.dir });
  const before = await runAll(toolbox, CALLS);
  arm();
  const watched = [t.dir, repo.dir, ...(options.watch ?? [])];
  const listed = watched.map(listing);
  const saved = { ...process.env };
  Object.assign(process.env, options.env ?? {});
  let after: ToolResult[];
  try {
    after = await runAll(createToolbox({ root: repo.dir }), CALLS);
  } finally {
    for (const key of Object.keys(options.env ?? {})) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
  combinationsRun += 2 * CALLS.length;
  expect(t.lines()).toEqual([]);
  expect(watched.map(listing)).toEqual(listed);
  expect(after.map(normalise)).toEqual(before.map(normalise));
  // The trap's path is foreign text unless the repository itself holds it (a committed config file).
  expectNoForeignText(after, [...(options.trapPathIsContent ? [] : [t.dir]), "root:x:0", ...(options.foreign ?? [])]);
  return after;
}

describe("the tool × parameter table", () => {
  it("covers every tool with the combinations that change what git runs", () => {
    const perTool = Object.fromEntries(
      ["git_status", "git_diff", "git_log", "git_show", "git_blame", "git_context"].map((tool) => [
        tool,
        CALLS.filter(([name]) => name === tool).length,
      ]),
    );
    expect(perTool).toEqual({ git_status: 18, git_diff: 56, git_log: 48, git_show: 18, git_blame: 16, git_context: 26 });
    expect(CALLS.length).toBe(182);
  });
});

describe("pager.<cmd> and core.pager, which git starts only on a terminal", () => {
  const pagerKeys = ["core.pager", "pager.status", "pager.diff", "pager.log", "pager.show", "pager.blame"];

  function armPagers(repo: TestRepo, t: Trap): void {
    for (const key of pagerKeys) repo.git(["config", key, t.script(key, "cat >/dev/null")]);
  }

  it("plain git under a pseudo-terminal runs every one of them", () => {
    const t = trap();
    const repo = baseRepo();
    armPagers(repo, t);
    for (const args of [["status"], ["diff"], ["log", "-1"], ["show", "HEAD"], ["blame", "a.txt"]]) gitUnderTty(repo.dir, args);
    expect([...new Set(t.lines().map((line) => line.split(" ")[0]))].sort()).toEqual([
      "pager.blame",
      "pager.diff",
      "pager.log",
      "pager.show",
      "pager.status",
    ]);
    // core.pager is the one used when no pager.<cmd> is set.
    repo.git(["config", "--unset", "pager.log"]);
    rmSync(t.marker);
    gitUnderTty(repo.dir, ["log", "-1"]);
    expect(t.lines()).toEqual(["core.pager"]);
  });

  it("no tool runs a pager, and every answer is the one given before the repository was armed", async () => {
    const t = trap();
    const repo = baseRepo();
    const results = await proveTable(repo, t, () => armPagers(repo, t));
    const status = results[CALLS.findIndex(([tool, input]) => tool === "git_status" && Object.keys(input).length === 0)]!;
    expect(status.ok && (status.data as { neutralised: unknown }).neutralised).toEqual(pagerKeys.map((key) => ({ key, scope: "local" })));
  });
});

describe("a lazy fetch from a promisor remote, for every tool", () => {
  /** A partial clone whose blob of a.txt at HEAD~1 is missing (HEAD's stays, so most answers still exist). */
  function partialClone(): TestRepo {
    const repo = baseRepo();
    const blob = repo.git(["rev-parse", "HEAD~1:a.txt"]).trim();
    rmSync(join(repo.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    repo.git(["config", "core.repositoryformatversion", "1"]);
    repo.git(["config", "extensions.partialClone", "origin"]);
    repo.git(["config", "remote.origin.promisor", "true"]);
    return repo;
  }
  const remotes: Array<[string, (repo: TestRepo, t: Trap) => void, RegExp]> = [
    [
      "core.sshCommand with an ssh:// URL",
      (repo, t) => {
        repo.git(["config", "remote.origin.url", "ssh://git@example.invalid/repo.git"]);
        repo.git(["config", "core.sshCommand", t.script("ssh-command", "exit 1")]);
      },
      /^ssh-command /,
    ],
    [
      "remote.<r>.uploadpack",
      (repo, t) => {
        repo.git(["config", "remote.origin.url", makeRepo().dir]);
        repo.git(["config", "remote.origin.uploadpack", t.script("upload-pack", "exit 1")]);
      },
      /^upload-pack /,
    ],
    [
      "an ext:: URL",
      (repo, t) => {
        repo.git(["config", "remote.origin.url", `ext::${t.script("ext-remote", "exit 1")}`]);
        repo.git(["config", "protocol.ext.allow", "always"]);
      },
      /^ext-remote/,
    ],
  ];

  for (const [name, remote, line] of remotes) {
    it(`${name}: plain git fetches through it; no tool combination does`, async () => {
      const proof = trap();
      const shown = partialClone();
      remote(shown, proof);
      plainGit(shown.dir, ["show", "HEAD~1:a.txt"]);
      expect(proof.lines()[0]).toMatch(line);

      const t = trap();
      const repo = partialClone();
      // The missing object is missing both before and after arming: the table compares like with like.
      // (The remote's URL, an ext:: one naming the trap's script, is the repository's own config: context lists it.)
      const results = await proveTable(repo, t, () => remote(repo, t), { trapPathIsContent: true });
      // What needs the missing blob fails as git_failed (an object is missing); everything else answers.
      const failed = CALLS.filter((_, i) => outcome(results[i]!) === "git_failed").map(([tool]) => tool);
      expect(new Set(failed)).toEqual(new Set(["git_diff", "git_show", "git_blame"]));
      // Each says why, and what the user can do, rather than only git's "lazy fetching disabled".
      for (const result of results) {
        if (outcome(result) === "git_failed" && !result.ok) expect(result.error.message).toContain("this partial clone does not have");
      }
      expect(results.filter((r) => r.tool === "git_status" || r.tool === "git_log").every((r) => r.ok)).toBe(true);
      plainGit(repo.dir, ["show", "HEAD~1:a.txt"]);
      expect(t.lines()[0]).toMatch(line);
    });
  }
});

describe("a bare repository committed inside the work tree", () => {
  /** `inner.git/` is committed as ordinary files; its config names core.fsmonitor and points its work tree back up. */
  function withInnerBare(t: Trap): TestRepo {
    return baseRepo((repo) => {
      const inner = join(repo.dir, "inner.git");
      mkdirSync(join(inner, "objects"), { recursive: true });
      mkdirSync(join(inner, "refs", "heads"), { recursive: true });
      writeFileSync(join(inner, "objects", ".keep"), "");
      writeFileSync(join(inner, "refs", "heads", ".keep"), "");
      writeFileSync(join(inner, "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(
        join(inner, "config"),
        `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = ${t.script("inner-fsmonitor")}\n`,
      );
    });
  }

  it("plain git run inside it uses its config and runs the program", () => {
    const t = trap();
    const repo = withInnerBare(t);
    plainGit(join(repo.dir, "inner.git"), ["status"]);
    expect(t.lines()[0]).toMatch(/^inner-fsmonitor /);
  });

  it("a root at or inside it is refused by every tool (its config points its work tree away), and running from the top is harmless", async () => {
    const t = trap();
    const repo = withInnerBare(t);
    for (const root of [join(repo.dir, "inner.git"), join(repo.dir, "inner.git", "refs", "heads")]) {
      const toolbox = createToolbox({ root });
      const results = await runAll(toolbox, CALLS);
      combinationsRun += CALLS.length;
      expect(new Set(results.map((r) => (r.ok ? "ok" : `${r.error.code}: ${r.error.message}`)))).toEqual(
        new Set([
          root.endsWith("inner.git")
            ? `unsafe_repository: The repository's config points its work tree at ${repo.dir}, which does not hold its git directory ${root} (core.worktree); gitctx will not read files there.`
            : `not_a_repository: ${root} is inside the bare repository ${join(repo.dir, "inner.git")}: it has no working tree to inspect.`,
        ]),
      );
    }
    expect(t.lines()).toEqual([]);
    const results = await proveTable(repo, t, () => undefined, { trapPathIsContent: true });
    const status = results[0]!;
    expect(status.ok && (status.data as { neutralised: unknown[] }).neutralised).toEqual([]);
  });
});

describe("a hostile bare repository as the root", () => {
  /** A real bare clone whose config names an external diff and a pager: what plain git runs on a read there. */
  function hostileBare(t: Trap): string {
    const work = baseRepo();
    const bare = join(t.dir, "hostile.git");
    plainGit(work.dir, ["clone", "-q", "--bare", work.dir, bare]);
    plainGit(bare, ["config", "diff.external", t.script("bare-external-diff")]);
    plainGit(bare, ["config", "core.pager", t.script("bare-pager")]);
    plainGit(bare, ["config", "pager.log", t.script("bare-log-pager")]);
    return bare;
  }

  it("plain git reading it runs the program its config names", () => {
    const t = trap();
    const bare = hostileBare(t);
    plainGit(bare, ["diff", "HEAD~1", "HEAD"]);
    expect(t.lines()[0]).toMatch(/^bare-external-diff /);
  });

  it("every tool reads its history or refuses, and none of its programs runs", async () => {
    const t = trap();
    const bare = hostileBare(t);
    const before = listing(bare);
    const toolbox = createToolbox({ root: bare });
    const results = await runAll(toolbox, CALLS);
    combinationsRun += CALLS.length;
    await toolbox.close();
    expect(t.lines()).toEqual([]);
    expect(listing(bare)).toEqual(before);
    // The history tools answer; the work-tree tools refuse, saying why (and nothing else fails).
    const answered = new Set(results.filter((result) => result.ok).map((result) => result.tool));
    expect(answered).toEqual(new Set(["git_log", "git_show", "git_blame", "git_diff", "git_context"]));
    for (const result of results) {
      if (!result.ok)
        expect(result.error.code, JSON.stringify(result.error)).toMatch(/^(not_a_repository|path_not_found|bad_revision|invalid_input)$/);
    }
    expect(
      results
        .filter((result) => !result.ok && result.error.code === "not_a_repository")
        .every((result) => !result.ok && /is a bare repository: it has no working tree/.test(result.error.message)),
    ).toBe(true);
  });
});

describe("blame.ignoreRevsFile and mailmap.file naming /etc/passwd", () => {
  it("plain git blame reads the file: its text appears in git's messages or as an author", () => {
    const t = trap();
    const repo = baseRepo();
    repo.git(["config", "blame.ignoreRevsFile", "/etc/passwd"]);
    expect(plainGit(repo.dir, ["blame", "a.txt"]).stderr).toContain("root:x:0");
    repo.git(["config", "--unset", "blame.ignoreRevsFile"]);
    const mailmap = join(t.dir, "mailmap");
    writeFileSync(mailmap, "Foreign Name <ada@example.com>\n");
    repo.git(["config", "mailmap.file", mailmap]);
    expect(plainGit(repo.dir, ["blame", "--porcelain", "a.txt"]).stdout).toContain("author Foreign Name\n");
  });

  it("no tool reads either: every answer is the one given before", async () => {
    const t = trap();
    const repo = baseRepo();
    const mailmap = join(t.dir, "mailmap");
    writeFileSync(mailmap, "Foreign Name <ada@example.com>\n");
    await proveTable(
      repo,
      t,
      () => {
        repo.git(["config", "blame.ignoreRevsFile", "/etc/passwd"]);
        repo.git(["config", "mailmap.file", mailmap]);
        repo.git(["config", "mailmap.blob", "HEAD:a.txt"]);
      },
      { foreign: ["Foreign Name"] },
    );
  });
});

describe("include.path to a tracked file that sets every vector at once", () => {
  function armedByInclude(t: Trap): TestRepo {
    const hooks = join(t.dir, "hooks");
    mkdirSync(hooks);
    writeFileSync(join(hooks, "post-index-change"), `#!/bin/sh\n'${t.script("hook")}'\n`);
    chmodSync(join(hooks, "post-index-change"), 0o755);
    return baseRepo((repo) => {
      repo.write(".gitattributes", "*.txt diff=evil filter=evil\n");
      repo.write(
        "team.gitconfig",
        [
          "[core]",
          `\tfsmonitor = ${t.script("fsmonitor")}`,
          `\thooksPath = ${hooks}`,
          `\tpager = ${t.script("core-pager", "cat >/dev/null")}`,
          `\tsshCommand = ${t.script("ssh")}`,
          "[pager]",
          `\tlog = ${t.script("pager-log", "cat >/dev/null")}`,
          "[diff]",
          `\texternal = ${t.script("external")}`,
          '[diff "evil"]',
          `\ttextconv = ${t.script("textconv", 'cat "$1"')}`,
          '[filter "evil"]',
          `\tclean = ${t.script("clean", "cat")}`,
          `\tsmudge = ${t.script("smudge", "cat")}`,
          "[gpg]",
          `\tprogram = ${t.script("gpg", "exit 1")}`,
          "[log]",
          "\tshowSignature = true",
          "[blame]",
          "\tignoreRevsFile = /etc/passwd",
          '[remote "origin"]',
          "\turl = ssh://git@example.invalid/r.git",
          `\tuploadpack = ${t.script("uploadpack")}`,
          "",
        ].join("\n"),
      );
    });
  }
  const arm = (repo: TestRepo) => (): void => {
    repo.git(["config", "include.path", "../team.gitconfig"]);
  };

  it("plain git falls for each of them through the include", () => {
    const t = trap();
    const repo = armedByInclude(t);
    arm(repo)();
    plainGit(repo.dir, ["status"]);
    plainGit(repo.dir, ["diff"]);
    plainGit(repo.dir, ["log", "-p", "-1"]);
    gitUnderTty(repo.dir, ["log", "-1"]);
    expect([...new Set(t.lines().map((line) => line.split(" ")[0]))].sort()).toEqual([
      "clean",
      "external",
      "fsmonitor",
      "hook",
      "pager-log",
      "smudge",
      "textconv",
    ]);
  });

  it("no tool combination runs any of them, and git_status names every key as neutralised", async () => {
    const t = trap();
    const repo = armedByInclude(t);
    // The included file is committed: its text (the trap's paths) is the repository's own content.
    const results = await proveTable(repo, t, arm(repo), { trapPathIsContent: true });
    const keys = [
      "core.fsmonitor",
      "core.hookspath",
      "core.pager",
      "core.sshcommand",
      "pager.log",
      "diff.external",
      "diff.evil.textconv",
      "filter.evil.clean",
      "filter.evil.smudge",
      "gpg.program",
      "remote.origin.uploadpack",
    ];
    const status = results[0]!;
    expect(status.ok && (status.data as { neutralised: unknown }).neutralised).toEqual(keys.map((key) => ({ key, scope: "local" })));
    const warning = `Warning: this repository's config names programs git would run; gitctx neutralised them (none ran): ${keys.join(", ")}.`;
    expect(status.ok && status.text.split("\n").at(-1)).toBe(warning);
    // git_diff says it under its header: a file the neutralised filter would clean may show a change there.
    const diff = results[CALLS.findIndex(([tool, input]) => tool === "git_diff" && Object.keys(input).length === 0)]!;
    expect(diff.ok && diff.text.split("\n")[1]).toBe(warning);
  });
});

describe("GIT_EXEC_PATH, GIT_CONFIG_PARAMETERS, GIT_TRACE and GIT_EXTERNAL_DIFF inherited from the caller", () => {
  /** The base repository plus a checked-out submodule: `git status` starts a git for it from the exec path. */
  function withSubmodule(): TestRepo {
    const source = makeRepo();
    source.write("s.txt", "sub\n");
    source.commit("sub");
    return baseRepo((repo) => {
      repo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", source.dir, "sub"]);
    });
  }
  function variables(t: Trap): Record<string, string> {
    const execPath = join(t.dir, "execdir");
    mkdirSync(execPath);
    const realExecPath = plainGit(t.dir, ["--exec-path"]).stdout.trim();
    writeFileSync(join(execPath, "git"), `#!/bin/sh\n'${t.script("exec-path")}' "$@"\nexec '${realExecPath}/git' "$@"\n`);
    chmodSync(join(execPath, "git"), 0o755);
    return {
      GIT_EXEC_PATH: execPath,
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${t.script("env-fsmonitor")}'`,
      GIT_TRACE: join(t.dir, "trace"),
      GIT_TRACE2: join(t.dir, "trace2"),
      GIT_EXTERNAL_DIFF: t.script("env-external-diff"),
    };
  }

  it("plain git inheriting them runs the programs and writes the traces", () => {
    const t = trap();
    const repo = withSubmodule();
    const env = { ...fixtureEnv(), ...variables(t) };
    plainGit(repo.dir, ["status"], env);
    plainGit(repo.dir, ["diff"], env);
    expect([...new Set(t.lines().map((line) => line.split(" ")[0]))].sort()).toEqual(["env-external-diff", "env-fsmonitor", "exec-path"]);
    expect(listing(t.dir).filter((entry) => / trace2? /.test(entry)).length).toBe(2);
  });

  it("no tool combination lets them reach git", async () => {
    const t = trap();
    const repo = withSubmodule();
    const vars = variables(t);
    await proveTable(repo, t, () => undefined, { env: vars });
  });
});

describe("the count", () => {
  it("ran the table for every vector above", () => {
    // 1 pager + 3 lazy fetch + inner bare (2 roots + 1) + hostile bare root (1) + 1 blame/mailmap + 1 include + 1 environment.
    expect(combinationsRun).toBe(CALLS.length * (2 + 3 * 2 + 2 + 2 + 1 + 2 + 2 + 2));
    console.log(`adversarial-config: ${combinationsRun} tool × parameter combinations run (${CALLS.length} per table)`);
  });
});
