/**
 * The git command classifier against its labelled corpus (test/safety-corpus.ts), plus the shape of its
 * answers. The corpus test prints the figures the issue asks for: false allows and the share of safe reads allowed.
 */
import { describe, expect, it } from "vitest";
import { classifyCommand, READ_SUBCOMMANDS, type Classification } from "../src/index.js";
import { mayRunGit } from "../src/safety/may-run-git.js";
import { decodeAnsiC, parseShell } from "../src/safety/shell.js";
import { CORPUS, CORPUS_CONTEXT, corpusFigures, type Category } from "./safety-corpus.js";

describe("the labelled corpus", () => {
  const results = CORPUS.map((entry) => ({ entry, got: classifyCommand(entry.line, CORPUS_CONTEXT) }));

  it("has at least 300 command lines, each classified as labelled", () => {
    expect(CORPUS.length).toBe(903);
    const mismatches = results
      .filter(({ entry, got }) => got.verdict !== entry.verdict)
      .map(
        ({ entry, got }) =>
          `${entry.category} ${JSON.stringify(entry.line)}: expected ${entry.verdict}, got ${got.verdict} (${got.reasons.join("; ")})`,
      );
    expect(mismatches).toEqual([]);
  });

  it("allows nothing that is not a safe read (0 false allows) and reports the allowed share of safe reads", () => {
    const figures = corpusFigures(classifyCommand);
    const byCategory: Partial<Record<Category, number>> = {};
    for (const { entry } of results) byCategory[entry.category] = (byCategory[entry.category] ?? 0) + 1;
    console.log(
      `safety corpus: ${CORPUS.length} command lines ${JSON.stringify(byCategory)}; false allows: ${figures.falseAllows.length}; ` +
        `safe reads allowed: ${figures.allowedSafe}/${figures.safe} (${figures.share.toFixed(1)}%)`,
    );
    expect(figures.falseAllows).toEqual([]);
    expect(figures.safe).toBe(329);
    expect(figures.allowedSafe).toBe(317);
    expect(figures.share).toBeGreaterThanOrEqual(95);
  });

  it("denies every line labelled dangerous with a reason naming the option or setting", () => {
    for (const { entry, got } of results) {
      if (entry.verdict !== "deny") continue;
      expect(got.reasons.length, entry.line).toBeGreaterThan(0);
      expect(
        got.invocations.some((inv) => inv.verdict === "deny"),
        entry.line,
      ).toBe(true);
    }
  });
});

function only(classification: Classification): Classification["invocations"][number] {
  expect(classification.invocations).toHaveLength(1);
  return classification.invocations[0]!;
}

describe("classifyCommand", () => {
  it("reports one invocation per command with argv, subcommand, verdict and reasons", () => {
    const result = classifyCommand("git status && git push --force origin main | cat");
    expect(result.verdict).toBe("ask");
    expect(result.invocations.map((inv) => [inv.kind, inv.argv, inv.subcommand, inv.verdict, inv.read])).toEqual([
      ["git", ["git", "status"], "status", "allow", true],
      ["git", ["git", "push", "--force", "origin", "main"], "push", "ask", false],
      ["other", ["cat"], null, "ask", false],
    ]);
    expect(result.invocations[1]!.reasons).toEqual(["git push pushes to a remote", "force-pushes, overwriting remote history (--force)"]);
    expect(result.reasons).toEqual([
      "git push --force origin main: git push pushes to a remote",
      "git push --force origin main: force-pushes, overwriting remote history (--force)",
      "cat: `cat` is not a git command: outside the classifier's scope",
    ]);
  });

  it("never allows a line with a non-git command, even when asked to ignore them; gitVerdict has git's own verdict", () => {
    for (const line of ["git status; rm -rf /", "git log --oneline | head -20", "git status && npm test", "ls"]) {
      for (const ignoreNonGit of [true, false]) {
        const result = classifyCommand(line, { ignoreNonGit });
        expect(result.verdict, line).toBe("ask");
      }
    }
    expect(classifyCommand("git status; rm -rf /", { ignoreNonGit: true }).gitVerdict).toBe("allow");
    expect(classifyCommand("git status; rm -rf /", { ignoreNonGit: true }).reasons).toEqual([
      "not git, left to your own rules (a line with them is never allowed): `rm`",
    ]);
    expect(classifyCommand("ls").gitVerdict).toBeNull();
    expect(classifyCommand("git show HEAD:x.sh | sh", { ignoreNonGit: true }).gitVerdict).toBe("ask");
    expect(classifyCommand("git ls-files | xargs rm", { ignoreNonGit: true }).gitVerdict).toBe("ask");
    expect(classifyCommand("cd /tmp/x && git status", { ignoreNonGit: true }).gitVerdict).toBe("ask");
    expect(classifyCommand("export GIT_DIR=/x; git status", { ignoreNonGit: true }).gitVerdict).toBe("ask");
  });

  it("names force-like flags in the reasons of mutations", () => {
    const cases: Array<[string, string]> = [
      ["git reset --hard", "discards uncommitted changes (--hard)"],
      ["git push --force-with-lease", "force-pushes, overwriting remote history (--force-with-lease)"],
      ["git commit --no-verify -m x", "skips the commit hooks (--no-verify)"],
      ["git clean -x -f", "also deletes ignored files (-x)"],
      ["git clean -fd", "also deletes untracked directories (-d)"],
      ["git push --delete origin x", "deletes remote refs (--delete)"],
      ["git push origin :x", "deletes the remote ref x (:x)"],
      ["git branch -D x", "force-deletes branches, even unmerged ones (-D)"],
      ["git tag -d v1", "deletes tags (-d)"],
      ["git stash clear", "deletes every stash entry (git stash clear)"],
      ["git checkout -f main", "discards local changes (-f)"],
    ];
    for (const [line, reason] of cases) {
      const inv = only(classifyCommand(line));
      expect(inv.verdict, line).toBe("ask");
      expect(inv.reasons, line).toContain(reason);
    }
  });

  it("treats git's long-option abbreviations, bundles and value forms as git does", () => {
    expect(only(classifyCommand("git grep --open=vim x")).reasons).toEqual([
      "runs a program on the matching files (-O/--open-files-in-pager): --open=vim",
    ]);
    expect(only(classifyCommand("git grep -nOvim x")).reasons).toEqual(["runs a program on the matching files (-O/--open-files-in-pager): -nOvim"]);
    expect(only(classifyCommand("git blame --cont=/etc/passwd f")).verdict).toBe("deny");
    // Ambiguous between --no-index and the negation of --index: git refuses it, the classifier denies it.
    expect(only(classifyCommand("git grep --no-ind x")).verdict).toBe("deny");
    expect(only(classifyCommand("git status --porc")).verdict).toBe("allow");
    expect(only(classifyCommand("git log --porc")).verdict).toBe("ask"); // log accepts no abbreviation
    expect(only(classifyCommand("git grep -e --open-files-in-pager x")).verdict).toBe("deny"); // a value read as an option too
  });

  it("asks for a read only when the repository has a setting that read can fire", () => {
    const clean = { root: "/repo", topLevel: "/repo", executableSettings: [], hooks: [], submoduleHooks: {}, partialClone: false };
    const withSetting = (key: string, value: string | null, extra: object = {}) => ({
      ...clean,
      executableSettings: [{ key, value, scope: "local", what: "", ...extra }],
    });
    const fsmonitor = withSetting("core.fsmonitor", "/tmp/x");
    expect(classifyCommand("git status", { repository: fsmonitor }).reasons).toEqual([
      "git status: `git status` reads the index, and the repository's core.fsmonitor then runs a program on every read of the index (status, diff, ls-files, grep...)",
    ]);
    expect(classifyCommand("git log -1", { repository: fsmonitor }).verdict).toBe("allow");
    expect(classifyCommand("git -c core.fsmonitor=false status", { repository: fsmonitor }).verdict).toBe("allow");
    // An LFS-like clean filter: status compares stat-dirty files through it, log and diff --cached do not.
    const filter = withSetting("filter.lfs.process", "git-lfs filter-process");
    expect(classifyCommand("git status --porcelain", { repository: filter }).verdict).toBe("ask");
    expect(classifyCommand("git diff", { repository: filter }).verdict).toBe("ask");
    expect(classifyCommand("git diff --cached", { repository: filter }).verdict).toBe("allow");
    expect(classifyCommand("git log -p -1", { repository: filter }).verdict).toBe("allow");
    const textconv = withSetting("diff.bin.textconv", "/tmp/x");
    expect(classifyCommand("git log -1", { repository: textconv }).verdict).toBe("allow");
    expect(classifyCommand("git log -p -1", { repository: textconv }).verdict).toBe("ask");
    expect(classifyCommand("git log -p --no-textconv -1", { repository: textconv }).verdict).toBe("allow");
    expect(classifyCommand("git log --binary -1", { repository: textconv }).verdict).toBe("ask");
    expect(classifyCommand("git status", { repository: textconv }).verdict).toBe("allow");
    const showSignature = withSetting("log.showsignature", "true");
    expect(classifyCommand("git log -1", { repository: showSignature }).verdict).toBe("ask");
    expect(classifyCommand("git -c log.showSignature=false log -1", { repository: showSignature }).verdict).toBe("allow");
    expect(classifyCommand("git log -1", { repository: withSetting("format.pretty", "%h %G?") }).verdict).toBe("ask");
    expect(classifyCommand("git log -1", { repository: withSetting("pretty.short", "%h %s") }).verdict).toBe("allow");
    const recurse = {
      ...withSetting("submodule.recurse", "true"),
      executableSettings: [
        { key: "submodule.recurse", value: "true", scope: "local", what: "" },
        { key: "core.fsmonitor", value: "/x", scope: "submodule lib", what: "" },
      ],
    };
    expect(classifyCommand("git ls-files", { repository: recurse }).verdict).toBe("ask");
    const pager = withSetting("pager.log", "/tmp/x");
    expect(classifyCommand("git log -1", { repository: pager }).verdict).toBe("ask");
    expect(classifyCommand("git --no-pager log -1", { repository: pager }).verdict).toBe("allow");
    expect(classifyCommand("GIT_PAGER=cat git log -1", { repository: pager }).verdict).toBe("allow");
    expect(classifyCommand("git status", { repository: pager }).verdict).toBe("allow");
    const revs = withSetting("blame.ignorerevsfile", ".git-blame-ignore-revs", { inside: true });
    expect(classifyCommand("git blame a.txt", { repository: revs }).verdict).toBe("allow");
    expect(classifyCommand("git blame a.txt", { repository: withSetting("blame.ignorerevsfile", "/etc/passwd") }).verdict).toBe("ask");
    expect(classifyCommand("git status", { repository: clean }).verdict).toBe("allow");
    expect(classifyCommand("git --version", { repository: fsmonitor }).verdict).toBe("allow");
    expect(classifyCommand("git status", { repository: { root: "/x", executableSettings: [], problem: "not a repository" } }).reasons).toEqual([
      "git status: the repository at /x could not be checked: not a repository",
    ]);
  });

  it("fails closed on facts the repository check did not give, and on the problems it reports", () => {
    const clean = { root: "/repo", topLevel: "/repo", executableSettings: [], hooks: [], submoduleHooks: {}, partialClone: false };
    // An older check (root and settings only): hooks and partial clone are unknown.
    expect(classifyCommand("git status", { repository: { root: "/repo", executableSettings: [] } }).verdict).toBe("ask");
    expect(classifyCommand("git log -1", { repository: { root: "/repo", executableSettings: [] } }).verdict).toBe("ask");
    expect(classifyCommand("git status", { repository: { ...clean, hooks: ["post-index-change"] } }).verdict).toBe("ask");
    expect(classifyCommand("git log -1", { repository: { ...clean, hooks: ["post-index-change", "pre-commit"] } }).verdict).toBe("allow");
    expect(classifyCommand("git log -1", { repository: { ...clean, partialClone: true } }).verdict).toBe("ask");
    expect(classifyCommand("git status", { repository: { ...clean, unscannedSubmodules: ["lib/x"] } }).verdict).toBe("ask");
    expect(classifyCommand("git log -1", { repository: { ...clean, unscannedSubmodules: ["lib/x"] } }).verdict).toBe("allow");
    expect(classifyCommand("git log -1", { repository: { ...clean, layoutProblems: [".git points outside"] } }).verdict).toBe("ask");
    expect(classifyCommand("git log -1", { repository: { ...clean, stateProblems: ["HEAD is a symlink"] } }).verdict).toBe("ask");
    const sub = { ...clean, executableSettings: [{ key: "core.fsmonitor", value: "/x", scope: "submodule lib/x", what: "" }] };
    expect(classifyCommand("git status", { repository: sub }).verdict).toBe("ask");
    expect(classifyCommand("git ls-files", { repository: sub }).verdict).toBe("allow");
  });

  it("never throws, whatever the input", () => {
    for (const line of ["", " ", "\0", "git \0 status", "((", "'", "git log $'\\", "x".repeat(200_000), "git ${", "<<EOF"]) {
      const result = classifyCommand(line);
      expect(["allow", "ask"]).toContain(result.verdict);
    }
    expect(classifyCommand("").verdict).toBe("allow");
    expect(classifyCommand("git log 'x").reasons[0]).toMatch(/^the command line could not be parsed as shell: /);
  });

  it("lists the read commands of the issue", () => {
    for (const sub of [
      "status",
      "diff",
      "log",
      "show",
      "blame",
      "branch",
      "tag",
      "rev-parse",
      "rev-list",
      "merge-base",
      "describe",
      "ls-files",
      "ls-tree",
      "cat-file",
      "grep",
      "shortlog",
      "reflog",
      "for-each-ref",
      "remote",
      "stash",
      "worktree",
      "config",
    ]) {
      expect(READ_SUBCOMMANDS).toContain(sub);
    }
  });
});

describe("the shell adapter", () => {
  it("returns words after quote removal, with expansions named", () => {
    const parsed = parseShell("A=1 git lo\\g 'a b' \"c $d\" $'\\x41' *.ts >out 2>&1 <<EOF\nbody $(id)\nEOF");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const cmd = parsed.commands.find((c) => c.words[0]?.value === "git");
    const inner = parsed.commands.find((c) => c.words[0]?.value === "id");
    expect(cmd!.words.map((w) => w.value)).toEqual(["git", "log", "a b", undefined, "A", undefined]);
    expect(cmd!.words[3]!.dynamic).toEqual(["variable $d"]);
    expect(cmd!.words[5]!.dynamic).toEqual(["glob"]);
    expect(cmd!.assignments.map((a) => [a.name, a.value?.value])).toEqual([["A", "1"]]);
    expect(cmd!.redirects.map((r) => [r.op, r.fd, r.target.value])).toEqual([
      [">", undefined, "out"],
      [">&", "2", "1"],
      ["<<", undefined, "EOF"],
    ]);
    // The here-document body is expanded: the command substitution in it is a command of its own.
    expect(inner!.words.map((w) => w.value)).toEqual(["id"]);
    expect(inner!.context).toEqual(["here-document", "command substitution"]);
  });

  it("decodes $'...' as bash does", () => {
    expect(decodeAnsiC("\\x2d\\055\\u002d\\t\\'\\\\")).toBe("---\t'\\");
    expect(decodeAnsiC("\\cA")).toBe("\x01");
    expect(decodeAnsiC("\\q")).toBeUndefined();
    expect(decodeAnsiC("a\\x00b")).toBeUndefined();
  });

  it("leaves the process as it found it after loading the parser", () => {
    parseShell("true");
    expect(Error.stackTraceLimit).not.toBe(Infinity);
    expect(Object.hasOwn(globalThis, "require")).toBe(false);
  });
});

describe("mayRunGit", () => {
  it("is false only for lines in which no word can be or become git, and then the classifier finds no git either", () => {
    const noGit = ["ls -la", "npm test", "cat README.md | wc -l", "echo hello > out.txt", "make build && make test"];
    const maybe = [
      "git status",
      "g\\it status",
      "'g'it log",
      '"gi"t log',
      "$G status",
      "`which git` log",
      "/usr/bin/g?t log",
      "{g,}it log",
      "~/bin/tool",
      "GIT status",
      "eval 'git status'",
    ];
    for (const line of noGit) {
      expect(mayRunGit(line), line).toBe(false);
      expect(
        classifyCommand(line).invocations.every((inv) => inv.kind === "other"),
        line,
      ).toBe(true);
    }
    for (const line of maybe) expect(mayRunGit(line), line).toBe(true);
  });
});
