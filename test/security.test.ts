/**
 * The first security suite: one test per vector class by which a repository (or the caller's environment)
 * can make a read-only git command run a program or write a file. For every vector, plain `git` is first shown
 * to fall for it (so each test can fail), then every tool runs against the same kind of repository through
 * createToolbox and must answer correctly without the marker appearing; afterwards plain git run on that very
 * repository still falls for it, proving the tools faced an armed repository.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, type ToolResult } from "../src/index.js";
import { fixtureEnv, makeRepo, markerNames, markerScript, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";
import { dataOf } from "./fixtures/calls.js";

/** A directory outside the repository for the hostile scripts and the marker they write. */
interface Trap {
  dir: string;
  marker: string;
  /** An executable script that appends a line to the marker, then runs `body`. */
  script(name: string, body?: string): string;
}

function trap(): Trap {
  const dir = tempDir("gitctx-trap-");
  const marker = join(dir, "marker");
  return { dir, marker, script: (name, body) => markerScript(dir, name, marker, body) };
}

/** What a benign git printed for the repository before it was armed: the tools must answer exactly this. */
interface Expected {
  first: string;
  second: string;
  unstaged: string;
  staged: string;
  vsHead: string;
  stagedVsFirst: string;
  range: string;
  noContext: string;
}

interface Hostile {
  repo: TestRepo;
  trap: Trap;
  expected: Expected;
}

interface Vector {
  /** Content that belongs in the first commit (e.g. `.gitattributes`). */
  content?: (repo: TestRepo, trap: Trap) => void;
  /** Rewrites history after both commits (e.g. to sign one); runs before `expected` is taken. */
  rewrite?: (repo: TestRepo) => void;
  /** Arms the repository: config, hooks. After this, the fixture's own git is not used on it again. */
  arm: (repo: TestRepo, trap: Trap) => void;
  /** Plain git commands that fall for the vector. */
  plain: string[][];
}

/**
 * Two commits of a.txt, b.txt staged as a new file and then given an old mtime (so `git status` must re-read
 * it: that refresh is what runs a clean filter, fsmonitor, or, when the index is written back, a hook), and
 * a.txt modified in the working tree.
 */
function hostileRepo(vector: Vector): Hostile {
  const repo = makeRepo();
  const t = trap();
  repo.write("a.txt", "one\ntwo\nthree\n");
  vector.content?.(repo, t);
  repo.commit("first");
  repo.write("a.txt", "one\n2\nthree\n");
  repo.commit("second");
  vector.rewrite?.(repo);
  repo.write("b.txt", "bee\n");
  repo.git(["add", "b.txt"]);
  repo.write("a.txt", "one\n2\nthree\nfour\n");
  utimesSync(join(repo.dir, "b.txt"), 946684800, 946684800);
  const flags = ["-M", "-C"];
  const expected: Expected = {
    first: repo.git(["rev-parse", "HEAD~1"]).trim(),
    second: repo.git(["rev-parse", "HEAD"]).trim(),
    unstaged: repo.git(["diff", ...flags]),
    staged: repo.git(["diff", ...flags, "--cached"]),
    vsHead: repo.git(["diff", ...flags, "HEAD"]),
    stagedVsFirst: repo.git(["diff", ...flags, "--cached", "HEAD~1"]),
    range: repo.git(["diff", ...flags, "HEAD~1", "HEAD"]),
    noContext: repo.git(["diff", ...flags, "-U0", "--", "a.txt"]),
  };
  // `git diff` above wrote the refreshed index back; make b.txt stat-dirty again (a different mtime).
  utimesSync(join(repo.dir, "b.txt"), 978307200, 978307200);
  vector.arm(repo, t);
  return { repo, trap: t, expected };
}

function runPlain(hostile: Hostile, commands: string[][]): void {
  for (const args of commands) plainGit(hostile.repo.dir, args);
}

function markerLines(t: Trap): string[] {
  return existsSync(t.marker) ? readFileSync(t.marker, "utf8").trim().split("\n") : [];
}

const data = dataOf;

interface PatchData {
  patch: string | null;
  files: Array<{ path: string; additions: number | null; deletions: number | null }>;
}
interface StatusData {
  entries: Array<{ path: string; index: string; worktree: string }>;
}
interface LogData {
  commits: Array<{ hash: string; subject: string }>;
}
interface BlameData {
  lines: Array<{ hash: string; content: string }>;
}

/** Every tool, with the parameters that make git touch the vector, each checked against benign git's answer. */
async function runEveryTool(hostile: Hostile): Promise<void> {
  const { repo, expected } = hostile;
  const index = join(repo.dir, ".git", "index");
  const indexBefore = statSync(index, { bigint: true });
  const toolbox = createToolbox({ root: repo.dir });
  const call = (tool: string, input: Record<string, unknown>): Promise<ToolResult> => toolbox.execute(tool, input);
  const statusOf = (result: ToolResult): string[][] => data<StatusData>(result).entries.map((entry) => [entry.path, entry.index, entry.worktree]);

  expect(statusOf(await call("git_status", {}))).toEqual([
    ["a.txt", ".", "M"],
    ["b.txt", "A", "."],
  ]);
  const long = await call("git_status", { short: false, untracked: "normal" });
  expect(long.ok && long.text).toContain("new file:   b.txt");
  expect(statusOf(await call("git_status", { path: "b.txt", untracked: "no" }))).toEqual([["b.txt", "A", "."]]);

  const unstaged = data<PatchData>(await call("git_diff", {}));
  expect(unstaged.patch).toBe(expected.unstaged);
  expect(unstaged.files.map((file) => [file.path, file.additions, file.deletions])).toEqual([["a.txt", 1, 0]]);
  expect(data<PatchData>(await call("git_diff", { staged: true })).patch).toBe(expected.staged);
  expect(data<PatchData>(await call("git_diff", { commit: "HEAD" })).patch).toBe(expected.vsHead);
  expect(data<PatchData>(await call("git_diff", { commit: "HEAD~1", staged: true })).patch).toBe(expected.stagedVsFirst);
  expect(data<PatchData>(await call("git_diff", { commit: "HEAD~1", commit2: "HEAD" })).patch).toBe(expected.range);
  expect(data<PatchData>(await call("git_diff", { commit: "HEAD~1..HEAD" })).patch).toBe(expected.range);
  expect(data<PatchData>(await call("git_diff", { stat: true })).files.map((file) => file.path)).toEqual(["a.txt"]);
  expect(data<PatchData>(await call("git_diff", { path: "a.txt", context: 0 })).patch).toBe(expected.noContext);

  const history = [
    [expected.second, "second"],
    [expected.first, "first"],
  ];
  const subjects = (result: ToolResult): string[][] => data<LogData>(result).commits.map((commit) => [commit.hash, commit.subject]);
  expect(subjects(await call("git_log", {}))).toEqual(history);
  expect(subjects(await call("git_log", { path: "a.txt", ref: "HEAD" }))).toEqual(history);

  const shown = data<{ kind: string; diff: PatchData }>(await call("git_show", { commit: "HEAD" }));
  expect(shown.diff.patch).toBe(expected.range);
  expect(data<{ diff: PatchData }>(await call("git_show", { commit: "HEAD", format: "stat" })).diff.files.map((f) => f.path)).toEqual(["a.txt"]);
  expect(data<{ content: string }>(await call("git_show", { commit: "HEAD", path: "a.txt" })).content).toBe("one\n2\nthree\n");
  expect(data<{ content: string }>(await call("git_show", { commit: "HEAD~1", path: "a.txt" })).content).toBe("one\ntwo\nthree\n");

  const blameLines = (result: ToolResult): string[][] => data<BlameData>(result).lines.map((line) => [line.hash, line.content]);
  const uncommitted = "0".repeat(40);
  expect(blameLines(await call("git_blame", { path: "a.txt" }))).toEqual([
    [expected.first, "one"],
    [expected.second, "2"],
    [expected.first, "three"],
    [uncommitted, "four"],
  ]);
  expect(blameLines(await call("git_blame", { path: "a.txt", ref: "HEAD", start_line: 2 }))).toEqual([
    [expected.second, "2"],
    [expected.first, "three"],
  ]);
  expect(blameLines(await call("git_blame", { path: "b.txt" }))).toEqual([[uncommitted, "bee"]]);

  // Read-only means read-only: the index was neither rewritten nor locked.
  const indexAfter = statSync(index, { bigint: true });
  expect([indexAfter.ino, indexAfter.size, indexAfter.mtimeNs]).toEqual([indexBefore.ino, indexBefore.size, indexBefore.mtimeNs]);
  expect(existsSync(`${index}.lock`)).toBe(false);
}

/** One describe per vector: plain git falls for it; no tool does; plain git still falls for it afterwards. */
function vectorSuite(name: string, vector: Vector, markerLine: RegExp): void {
  describe(name, () => {
    it("plain git runs the repository's program", () => {
      const hostile = hostileRepo(vector);
      expect(markerLines(hostile.trap)).toEqual([]);
      runPlain(hostile, vector.plain);
      expect(markerLines(hostile.trap).length).toBeGreaterThan(0);
      expect(markerLines(hostile.trap)[0]).toMatch(markerLine);
    });

    it("no tool runs it, and every tool still answers exactly", async () => {
      const hostile = hostileRepo(vector);
      await runEveryTool(hostile);
      expect(existsSync(hostile.trap.marker)).toBe(false);
      // The repository was armed all along: plain git still falls for it.
      runPlain(hostile, vector.plain);
      expect(markerLines(hostile.trap)[0]).toMatch(markerLine);
    });
  });
}

const txtAttribute = (attribute: string) => (repo: TestRepo) => {
  repo.write(".gitattributes", `*.txt ${attribute}\n`);
};

vectorSuite(
  "core.fsmonitor naming a program",
  {
    arm: (repo, t) => repo.git(["config", "core.fsmonitor", t.script("fsmonitor")]),
    plain: [["status"]],
  },
  /^fsmonitor /,
);

vectorSuite(
  "a post-index-change hook in .git/hooks",
  {
    arm: (repo, t) => {
      const hook = join(repo.dir, ".git", "hooks", "post-index-change");
      writeFileSync(hook, `#!/bin/sh\n'${t.script("hook")}' "$@"\n`);
      chmodSync(hook, 0o755);
    },
    plain: [["status"]],
  },
  /^hook /,
);

vectorSuite(
  "a post-index-change hook in a directory named by core.hooksPath",
  {
    arm: (repo, t) => {
      const hooks = join(t.dir, "hooks");
      mkdirSync(hooks);
      writeFileSync(join(hooks, "post-index-change"), `#!/bin/sh\n'${t.script("hooks-path")}' "$@"\n`);
      chmodSync(join(hooks, "post-index-change"), 0o755);
      repo.git(["config", "core.hooksPath", hooks]);
    },
    plain: [["status"]],
  },
  /^hooks-path /,
);

vectorSuite(
  "diff.external",
  {
    arm: (repo, t) => repo.git(["config", "diff.external", t.script("external-diff")]),
    plain: [["diff"]],
  },
  /^external-diff a\.txt /,
);

vectorSuite(
  "a diff driver's command (diff.<driver>.command via .gitattributes)",
  {
    content: txtAttribute("diff=evil"),
    arm: (repo, t) => repo.git(["config", "diff.evil.command", t.script("driver-command")]),
    plain: [["diff"]],
  },
  /^driver-command a\.txt /,
);

vectorSuite(
  "a textconv driver (diff.<driver>.textconv via .gitattributes)",
  {
    content: txtAttribute("diff=conv"),
    arm: (repo, t) => repo.git(["config", "diff.conv.textconv", t.script("textconv", 'cat "$1"')]),
    plain: [["log", "-p", "-1"], ["blame", "a.txt"], ["diff"]],
  },
  /^textconv /,
);

vectorSuite(
  "a clean filter (filter.<driver>.clean via .gitattributes)",
  {
    content: txtAttribute("filter=evil"),
    arm: (repo, t) => repo.git(["config", "filter.evil.clean", t.script("clean", "cat")]),
    plain: [["status"]],
  },
  /^clean/,
);

vectorSuite(
  "a long-running filter process (filter.<driver>.process)",
  {
    content: txtAttribute("filter=proc"),
    arm: (repo, t) => repo.git(["config", "filter.proc.process", t.script("process", "exit 1")]),
    plain: [["status"]],
  },
  /^process/,
);

vectorSuite(
  "a clean filter whose driver name contains '=' (which -c cannot name)",
  {
    content: txtAttribute("filter=x=y"),
    arm: (repo, t) => repo.git(["config", "filter.x=y.clean", t.script("clean-eq", "cat")]),
    plain: [["status"]],
  },
  /^clean-eq/,
);

vectorSuite(
  "a clean filter defined in a tracked file the config includes",
  {
    content: (repo, t) => {
      txtAttribute("filter=included")(repo);
      repo.write("team.gitconfig", `[filter "included"]\n\tclean = ${t.script("included-clean", "cat")}\n`);
    },
    // include.path in .git/config is relative to .git: ../team.gitconfig is the tracked file.
    arm: (repo) => repo.git(["config", "include.path", "../team.gitconfig"]),
    plain: [["status"]],
  },
  /^included-clean/,
);

vectorSuite(
  "gpg.program with log.showSignature on a signed commit",
  {
    rewrite: (repo) => {
      // Give `second` a (fake) signature: verifying it is what runs gpg.program.
      const raw = repo.git(["cat-file", "commit", "HEAD"]);
      const split = raw.indexOf("\n\n");
      const signature = " -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEAAAA\n -----END PGP SIGNATURE-----";
      const signed = `${raw.slice(0, split)}\ngpgsig${signature}${raw.slice(split)}`;
      const oid = repo.git(["hash-object", "-t", "commit", "-w", "--stdin"], { input: signed }).trim();
      repo.git(["update-ref", "refs/heads/main", oid]);
    },
    arm: (repo, t) => {
      repo.git(["config", "log.showSignature", "true"]);
      repo.git(["config", "gpg.program", t.script("gpg", "exit 1")]);
    },
    plain: [["log", "-1"]],
  },
  /^gpg /,
);

describe("a clean filter, fsmonitor and hook defined only in a checked-out submodule's own repository", () => {
  /**
   * A superproject whose submodule `sub` defines, in its own .git/modules/sub, a clean filter for all its files,
   * core.fsmonitor and a post-index-change hook.
   */
  function hostileSuperproject(): { superRepo: TestRepo; t: Trap; subCommit: string } {
    const t = trap();
    const source = makeRepo();
    source.write("s.txt", "sub\n").write(".gitattributes", "* filter=subevil\n");
    source.commit("sub first");
    const superRepo = makeRepo();
    superRepo.write("x.txt", "x\n");
    superRepo.commit("x");
    superRepo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", source.dir, "sub"]);
    superRepo.commit("add sub");
    const subCommit = superRepo.git(["rev-parse", "HEAD:sub"]).trim();
    const sub = join(superRepo.dir, "sub");
    superRepo.git(["config", "filter.subevil.clean", t.script("sub-clean", "cat")], { cwd: sub });
    superRepo.git(["config", "core.fsmonitor", t.script("sub-fsmonitor")], { cwd: sub });
    const hook = join(superRepo.dir, ".git", "modules", "sub", "hooks", "post-index-change");
    writeFileSync(hook, `#!/bin/sh\n'${t.script("sub-hook")}'\n`);
    chmodSync(hook, 0o755);
    // A stat-dirty file inside the submodule: the `git status` git runs there must re-read it.
    utimesSync(join(superRepo.dir, "sub", "s.txt"), 946684800, 946684800);
    return { superRepo, t, subCommit };
  }

  const ran = (t: Trap): string[] => markerNames(t.marker);

  it("plain git status in the superproject runs all three", () => {
    const { superRepo, t } = hostileSuperproject();
    plainGit(superRepo.dir, ["status"]);
    expect(ran(t)).toEqual(["sub-clean", "sub-fsmonitor", "sub-hook"]);
  });

  it("no tool runs it (the scan follows checked-out submodules), and the tools still answer", async () => {
    const { superRepo, t, subCommit } = hostileSuperproject();
    const toolbox = createToolbox({ root: superRepo.dir });
    const status = await toolbox.execute("git_status", {});
    expect(data<StatusData>(status).entries).toEqual([]);
    for (const input of [{}, { staged: true }, { commit: "HEAD" }, { commit: "HEAD~1", commit2: "HEAD" }]) {
      const diff = await toolbox.execute("git_diff", input);
      expect(diff.ok).toBe(true);
    }
    const range = data<PatchData>(await toolbox.execute("git_diff", { commit: "HEAD~1", commit2: "HEAD" }));
    expect(range.files.map((file) => file.path)).toEqual([".gitmodules", "sub"]);
    expect(range.patch).toContain(`+Subproject commit ${subCommit}\n`);
    expect(data<LogData>(await toolbox.execute("git_log", {})).commits.map((c) => c.subject)).toEqual(["add sub", "x"]);
    expect(data<{ kind: string }>(await toolbox.execute("git_show", { commit: "HEAD" })).kind).toBe("commit");
    expect(data<{ type: string; submoduleCommit: string }>(await toolbox.execute("git_show", { commit: "HEAD", path: "sub" }))).toMatchObject({
      type: "submodule",
      submoduleCommit: subCommit,
    });
    expect(data<BlameData>(await toolbox.execute("git_blame", { path: "x.txt" })).lines.map((l) => l.content)).toEqual(["x"]);
    expect(existsSync(t.marker)).toBe(false);

    // The submodule is dirty when a file in it changes; seeing that also must not run its filter.
    writeFileSync(join(superRepo.dir, "sub", "s.txt"), "sub changed\n");
    const dirty = data<{ entries: Array<{ path: string; submodule?: { modified: boolean } }> }>(await toolbox.execute("git_status", {}));
    expect(dirty.entries.map((entry) => [entry.path, entry.submodule?.modified])).toEqual([["sub", true]]);
    expect(existsSync(t.marker)).toBe(false);

    plainGit(superRepo.dir, ["status"]);
    expect(ran(t)).toEqual(["sub-clean", "sub-fsmonitor", "sub-hook"]);
  });
});

describe("a lazy fetch from a promisor remote", () => {
  /** A partial clone whose blob of f.txt is missing, with a remote whose URL runs a command when fetched from. */
  function hostilePartialClone(remote: (repo: TestRepo, t: Trap) => void): { repo: TestRepo; t: Trap } {
    const t = trap();
    const repo = makeRepo();
    repo.write("f.txt", "content\n");
    repo.commit("one");
    const blob = repo.git(["rev-parse", "HEAD:f.txt"]).trim();
    rmSync(join(repo.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    repo.git(["config", "core.repositoryformatversion", "1"]);
    repo.git(["config", "extensions.partialClone", "origin"]);
    repo.git(["config", "remote.origin.promisor", "true"]);
    remote(repo, t);
    return { repo, t };
  }
  const extRemote = (repo: TestRepo, t: Trap): void => {
    repo.git(["config", "remote.origin.url", `ext::${t.script("ext-remote")}`]);
    repo.git(["config", "protocol.ext.allow", "always"]);
  };
  const uploadPackRemote = (repo: TestRepo, t: Trap): void => {
    const other = makeRepo();
    repo.git(["config", "remote.origin.url", other.dir]);
    repo.git(["config", "remote.origin.uploadpack", t.script("upload-pack", "exit 1")]);
  };

  for (const [name, remote, line] of [
    ["an ext:: remote URL", extRemote, /^ext-remote/],
    ["a remote's uploadpack command", uploadPackRemote, /^upload-pack/],
  ] as const) {
    it(`${name}: plain git show runs it; no tool does, and the missing object is reported as git_failed`, async () => {
      const proof = hostilePartialClone(remote);
      plainGit(proof.repo.dir, ["show", "HEAD:f.txt"]);
      expect(markerLines(proof.t)[0]).toMatch(line);

      const { repo, t } = hostilePartialClone(remote);
      const toolbox = createToolbox({ root: repo.dir });
      const file = await toolbox.execute("git_show", { commit: "HEAD", path: "f.txt" });
      expect(file.ok ? "ok" : file.error.code).toBe("git_failed");
      const show = await toolbox.execute("git_show", { commit: "HEAD" });
      expect(show.ok ? "ok" : show.error.code).toBe("git_failed");
      expect(data<LogData>(await toolbox.execute("git_log", {})).commits.map((c) => c.subject)).toEqual(["one"]);
      expect(data<StatusData>(await toolbox.execute("git_status", {})).entries).toEqual([]);
      await toolbox.execute("git_diff", { commit: "HEAD" });
      await toolbox.execute("git_blame", { path: "f.txt", ref: "HEAD" });
      expect(existsSync(t.marker)).toBe(false);
      plainGit(repo.dir, ["show", "HEAD:f.txt"]);
      expect(markerLines(t)[0]).toMatch(line);
    });
  }
});

describe("a ref value that is an option: --output=<file>", () => {
  const base: Vector = { arm: () => undefined, plain: [] };

  it("plain git given the value writes the file", () => {
    const { repo, trap: t } = hostileRepo(base);
    const out = join(t.dir, "out.patch");
    plainGit(repo.dir, ["diff", `--output=${out}`]);
    plainGit(repo.dir, ["log", `--output=${join(t.dir, "out.log")}`]);
    expect(existsSync(out)).toBe(true);
    expect(existsSync(join(t.dir, "out.log"))).toBe(true);
  });

  it("every tool refuses it as a revision, takes it literally as a path, and never writes the file", async () => {
    const hostile = hostileRepo(base);
    const { repo, trap: t } = hostile;
    const out = join(t.dir, "out");
    const value = `--output=${out}`;
    const toolbox = createToolbox({ root: repo.dir });
    const refused = (field: string) => ({
      code: "invalid_input",
      message: `${field} "${value}" starts with "-": revisions cannot look like options.`,
      hint: `Give ${field} as a commit hash, branch, tag or expression like HEAD~1.`,
    });
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ["git_diff", { commit: value }, "commit"],
      ["git_diff", { commit: value, staged: true }, "commit"],
      ["git_diff", { commit: "HEAD", commit2: value }, "commit2"],
      ["git_diff", { commit: `HEAD..${value}` }, "commit"],
      ["git_diff", { commit: `${value}...HEAD` }, "commit"],
      ["git_log", { ref: value }, "ref"],
      ["git_show", { commit: value }, "commit"],
      ["git_show", { commit: value, path: "a.txt" }, "commit"],
      ["git_blame", { path: "a.txt", ref: value }, "ref"],
    ];
    for (const [tool, input, field] of calls) {
      const result = await toolbox.execute(tool, input);
      expect(result.ok ? "ok" : result.error).toEqual(refused(field));
    }
    // Shorter spellings git would also accept as the option.
    for (const spelling of ["--outp=x", "-ox", "--no-index"]) {
      const result = await toolbox.execute("git_diff", { commit: spelling });
      expect(result.ok ? "ok" : result.error.code).toBe("invalid_input");
    }
    // As a path it is a literal file name after `--`: nothing by that name exists.
    const status = await toolbox.execute("git_status", { path: "--output=x" });
    expect(status.ok ? "ok" : status.error.code).toBe("path_not_found");
    expect(data<PatchData>(await toolbox.execute("git_diff", { path: "--output=x" })).files).toEqual([]);
    expect(data<LogData>(await toolbox.execute("git_log", { path: "--output=x" })).commits).toEqual([]);
    const blame = await toolbox.execute("git_blame", { path: "--output=x" });
    expect(blame.ok ? "ok" : blame.error.code).toBe("path_not_found");
    const show = await toolbox.execute("git_show", { commit: "HEAD", path: "--output=x" });
    expect(show.ok ? "ok" : show.error.code).toBe("path_not_found");
    // Free-text filters reach git as --author=<value>: a value, never an option.
    for (const field of ["author", "grep"]) {
      expect(data<LogData>(await toolbox.execute("git_log", { [field]: value })).commits).toEqual([]);
    }
    // (A fixed value here: digits in the random temporary path can make git's date parser read it as a date.)
    for (const field of ["since", "until"]) {
      const result = await toolbox.execute("git_log", { [field]: "--output=x" });
      expect(result.ok ? "ok" : result.error.code).toBe("invalid_input");
    }
    expect(existsSync(out)).toBe(false);
    expect(existsSync(join(repo.dir, "x"))).toBe(false);
  });
});

describe("a hand-made ref file literally named --output=<file>", () => {
  function withOptionRef(): Hostile {
    return hostileRepo({
      arm: (repo) => {
        // `git branch` refuses such a name; writing the ref file by hand does not.
        writeFileSync(join(repo.dir, ".git", "refs", "heads", "--output=pwned.txt"), `${repo.head()}\n`);
      },
      plain: [],
    });
  }

  it("plain git resolves it as a ref, and writes the file when the name is passed as it would be", () => {
    const { repo, expected } = withOptionRef();
    expect(plainGit(repo.dir, ["rev-parse", "--verify", "-q", "--end-of-options", "--output=pwned.txt"]).stdout).toBe(`${expected.second}\n`);
    plainGit(repo.dir, ["log", "--output=pwned.txt"]);
    expect(existsSync(join(repo.dir, "pwned.txt"))).toBe(true);
  });

  it("no tool writes the file: the bare name is refused, the full ref name works", async () => {
    const hostile = withOptionRef();
    const { repo, expected } = hostile;
    const toolbox = createToolbox({ root: repo.dir });
    for (const [tool, input] of [
      ["git_log", { ref: "--output=pwned.txt" }],
      ["git_diff", { commit: "--output=pwned.txt" }],
      ["git_show", { commit: "--output=pwned.txt" }],
      ["git_blame", { path: "a.txt", ref: "--output=pwned.txt" }],
    ] as const) {
      const result = await toolbox.execute(tool, input);
      expect(result.ok ? "ok" : result.error.code).toBe("invalid_input");
    }
    const full = "refs/heads/--output=pwned.txt";
    expect(data<LogData>(await toolbox.execute("git_log", { ref: full })).commits.map((c) => c.hash)).toEqual([expected.second, expected.first]);
    expect(data<PatchData>(await toolbox.execute("git_diff", { commit: full })).patch).toBe(expected.vsHead);
    expect(data<PatchData>(await toolbox.execute("git_diff", { commit: "HEAD~1", commit2: full })).patch).toBe(expected.range);
    expect(data<{ diff: PatchData }>(await toolbox.execute("git_show", { commit: full })).diff.patch).toBe(expected.range);
    expect(data<BlameData>(await toolbox.execute("git_blame", { path: "a.txt", ref: full })).lines.map((l) => l.content)).toEqual([
      "one",
      "2",
      "three",
    ]);
    await runEveryTool(hostile);
    expect(existsSync(join(repo.dir, "pwned.txt"))).toBe(false);
  });
});

describe("GIT_* variables inherited from the caller's environment", () => {
  /** Sets variables in this process for the duration of `body`, restoring the previous values after. */
  async function withEnv(vars: Record<string, string>, body: () => Promise<void> | void): Promise<void> {
    const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
    Object.assign(process.env, vars);
    try {
      await body();
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }

  function programVariables(t: Trap): Record<string, string> {
    const hooks = join(t.dir, "hooks");
    mkdirSync(hooks);
    writeFileSync(join(hooks, "post-index-change"), `#!/bin/sh\n'${t.script("env-hook")}'\n`);
    chmodSync(join(hooks, "post-index-change"), 0o755);
    return {
      GIT_EXTERNAL_DIFF: t.script("env-external-diff"),
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${t.script("env-fsmonitor")}'`,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.hooksPath",
      GIT_CONFIG_VALUE_0: hooks,
      GIT_TRACE: join(t.dir, "trace"),
      GIT_PAGER: t.script("env-pager"),
    };
  }

  it("plain git inheriting them runs the programs and writes the trace", async () => {
    const hostile = hostileRepo({ arm: () => undefined, plain: [] });
    const t = hostile.trap;
    await withEnv(programVariables(t), () => {
      plainGit(hostile.repo.dir, ["status"], { ...fixtureEnv(), ...process.env });
      plainGit(hostile.repo.dir, ["diff"], { ...fixtureEnv(), ...process.env });
    });
    const ran = markerLines(t).map((line) => line.split(" ")[0]);
    expect(ran).toContain("env-external-diff");
    expect(ran).toContain("env-fsmonitor");
    expect(ran).toContain("env-hook");
    expect(existsSync(join(t.dir, "trace"))).toBe(true);
  });

  it("no tool lets them reach git, and every tool still answers exactly", async () => {
    const hostile = hostileRepo({ arm: () => undefined, plain: [] });
    const t = hostile.trap;
    await withEnv(programVariables(t), () => runEveryTool(hostile));
    expect(existsSync(t.marker)).toBe(false);
    expect(existsSync(join(t.dir, "trace"))).toBe(false);
  });

  it("GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE pointing at another repository do not redirect the tools", async () => {
    const hostile = hostileRepo({ arm: () => undefined, plain: [] });
    const other = makeRepo();
    other.write("other.txt", "other\n");
    other.commit("the other repository");
    const redirect = {
      GIT_DIR: join(other.dir, ".git"),
      GIT_WORK_TREE: other.dir,
      GIT_INDEX_FILE: join(other.dir, ".git", "index"),
      GIT_OBJECT_DIRECTORY: join(other.dir, ".git", "objects"),
      GIT_NAMESPACE: "elsewhere",
      GIT_CEILING_DIRECTORIES: hostile.repo.dir,
    };
    await withEnv(redirect, async () => {
      const plain = plainGit(hostile.repo.dir, ["log", "-1", "--format=%s"], { ...fixtureEnv(), ...process.env });
      expect(plain.stdout).toBe("the other repository\n");
      await runEveryTool(hostile);
    });
  });
});
