/**
 * Argument injection: every string parameter of every tool fed option-like values, split options across two
 * parameters, control characters, hand-made ref files literally named like options, and hostile paths. Each
 * call must end in a clear error (invalid_input, bad_revision, path_outside_workspace, path_not_found) or a
 * harmless literal answer, never an effect: the output directory, the trap, the repository and .git are listed
 * before and after, and no output carries /etc/passwd's text.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createToolbox, type ToolResult } from "../src/index.js";
import { expectNoForeignText, listing, outcome, runAll, trap, type Call, type Trap } from "./fixtures/hostile.js";
import { makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";

let repo: TestRepo;
let t: Trap;
/** Where an injected --output would write: must stay empty. */
let out: string;
/** A directory outside the workspace that a symlink in it points to. */
let outside: string;
let head: string;
let pager: string;

/** Hand-made ref files named like options (`git branch` would refuse these names). */
const OPTION_REFS = ["--output=pwned.txt", "-Opwned.txt", "--no-index", "--exec-path=pwned"];

beforeAll(() => {
  t = trap();
  pager = t.script("pager");
  out = tempDir("gitctx-adv-out-");
  outside = tempDir("gitctx-adv-outside-");
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  repo = makeRepo();
  repo.write("a.txt", "one\ntwo\n");
  repo.commit("first");
  repo.write("a.txt", "one\n2\n");
  head = repo.commit("second");
  repo.write("a.txt", "one\n2\nthree\n");
  symlinkSync("/etc", join(repo.dir, "etc-link"));
  symlinkSync("/etc/passwd", join(repo.dir, "passwd-link"));
  symlinkSync(outside, join(repo.dir, "outside-link"));
  mkdirSync(join(repo.dir, ".git", "refs", "heads"), { recursive: true });
  for (const name of OPTION_REFS) writeFileSync(join(repo.dir, ".git", "refs", "heads", name), `${head}\n`);
});

function injectedValues(): string[] {
  return [
    `--output=${out}/o1`,
    "--output",
    `--outp=${out}/o2`,
    `-O${out}/o3`,
    `-nO${out}/o4`,
    "--no-index",
    "--contents=/etc/passwd",
    "--conte=/etc/passwd",
    "--ignore-revs-file=/etc/passwd",
    `--exec-path=${out}`,
    `--open-files-in-pager=${pager}`,
    "-p",
    "--",
    "a\u0000b",
    "a\nb",
    "a\tb",
    "\u001b[31mred",
    "a\u007fb",
    ...OPTION_REFS,
  ];
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** The string parameters of every tool, with the other parameters a call needs. */
const FIELDS: Array<{ tool: string; field: string; kind: "revision" | "path" | "filter" | "date"; base: Record<string, unknown> }> = [
  { tool: "git_status", field: "path", kind: "path", base: {} },
  { tool: "git_diff", field: "commit", kind: "revision", base: {} },
  { tool: "git_diff", field: "commit2", kind: "revision", base: { commit: "HEAD~1" } },
  { tool: "git_diff", field: "path", kind: "path", base: {} },
  { tool: "git_log", field: "ref", kind: "revision", base: {} },
  { tool: "git_log", field: "path", kind: "path", base: {} },
  { tool: "git_log", field: "author", kind: "filter", base: {} },
  { tool: "git_log", field: "grep", kind: "filter", base: {} },
  { tool: "git_log", field: "since", kind: "date", base: {} },
  { tool: "git_log", field: "until", kind: "date", base: {} },
  { tool: "git_show", field: "commit", kind: "revision", base: {} },
  { tool: "git_show", field: "path", kind: "path", base: { commit: "HEAD" } },
  { tool: "git_blame", field: "path", kind: "path", base: {} },
  { tool: "git_blame", field: "ref", kind: "revision", base: { path: "a.txt" } },
];

/** What a path that names nothing (taken literally) gets from each tool. */
const LITERAL_MISSING: Record<string, string> = {
  git_status: "path_not_found",
  git_diff: "ok",
  git_log: "ok",
  git_show: "path_not_found",
  git_blame: "path_not_found",
};

function expectedOutcome(tool: string, kind: string, value: string): string[] {
  switch (kind) {
    case "revision":
      if (value.startsWith("-") || CONTROL.test(value)) return ["invalid_input"];
      return ["bad_revision"];
    case "path":
      if (value.includes("\u0000")) return ["invalid_input"];
      return [LITERAL_MISSING[tool]!];
    case "filter":
      if (CONTROL.test(value)) return ["invalid_input"];
      // Any other text is a pattern: it matches no commit, or is not a valid expression.
      return ["ok", "invalid_input"];
    default:
      return CONTROL.test(value) ? ["invalid_input"] : ["ok", "invalid_input"];
  }
}

describe("option-like values in every string parameter", () => {
  it("plain git given such values writes files and reads /etc/passwd", () => {
    const scratch = tempDir();
    const dir = makeRepo().write("a.txt", "a\n");
    dir.commit("one");
    plainGit(dir.dir, ["log", `--output=${scratch}/log`]);
    plainGit(dir.dir, ["diff", `--output=${scratch}/diff`, "HEAD~0"]);
    expect(listing(scratch).map((line) => line.split(" ")[1])).toEqual(["diff", "log"]);
    expect(plainGit(dir.dir, ["blame", "--contents=/etc/passwd", "a.txt"]).stdout).toContain("root:x:0");
    // parse-options commands take abbreviations: --conte is --contents.
    expect(plainGit(dir.dir, ["blame", "--conte=/etc/passwd", "a.txt"]).stdout).toContain("root:x:0");
  });

  it("every tool refuses them or takes them literally; nothing is written, nothing foreign is read", async () => {
    const toolbox = createToolbox({ root: repo.dir });
    const calls: Call[] = [];
    const expected: string[][] = [];
    for (const { tool, field, kind, base } of FIELDS) {
      for (const value of injectedValues()) {
        calls.push([tool, { ...base, [field]: value }]);
        expected.push(expectedOutcome(tool, kind, value));
      }
    }
    // One option split over two parameters: `--output` in one, the file in the next.
    const split: Array<[string, Record<string, unknown>, string]> = [
      ["git_diff", { commit: "--output", commit2: `${out}/s1` }, "invalid_input"],
      ["git_diff", { commit: "HEAD", commit2: "--output", path: `${out}/s2` }, "invalid_input"],
      ["git_diff", { commit: `${out}/s3`, path: "--output" }, "bad_revision"],
      ["git_log", { ref: "--output", path: `${out}/s4` }, "invalid_input"],
      ["git_log", { path: "--output", ref: `${out}/s5` }, "bad_revision"],
      ["git_log", { author: "--output", grep: `${out}/s6` }, "ok"],
      ["git_show", { commit: "--output", path: `${out}/s7` }, "invalid_input"],
      ["git_blame", { path: "--output", ref: `${out}/s8` }, "bad_revision"],
      ["git_blame", { path: "--contents", ref: "/etc/passwd" }, "bad_revision"],
    ];
    for (const [tool, input, code] of split) {
      calls.push([tool, input]);
      expected.push([code]);
    }
    const before = [out, t.dir, repo.dir].map(listing);
    const results = await runAll(toolbox, calls);
    console.log(`adversarial-args: ${calls.length} injected tool × parameter × value calls`);
    expect(calls.length).toBe(FIELDS.length * injectedValues().length + split.length);
    const mismatches = calls
      .map((call, i) => ({ call, got: outcome(results[i]!), want: expected[i]! }))
      .filter(({ got, want }) => !want.includes(got));
    expect(mismatches).toEqual([]);
    expect([out, t.dir, repo.dir].map(listing)).toEqual(before);
    expect(listing(out)).toEqual([]);
    expect(t.lines()).toEqual([]);
    expectNoForeignText(results, ["root:x:0"]);
  });

  it("an option-named ref file is refused by its bare name and works by its full name", async () => {
    const toolbox = createToolbox({ root: repo.dir });
    for (const name of OPTION_REFS) {
      const full = `refs/heads/${name}`;
      const results = await runAll(toolbox, [
        ["git_log", { ref: name }],
        ["git_log", { ref: full, count: 1 }],
        ["git_diff", { commit: full, stat: true }],
        ["git_diff", { commit: `HEAD~1..${full}`, stat: true }],
        ["git_show", { commit: full, format: "metadata" }],
        ["git_blame", { path: "a.txt", ref: full }],
      ]);
      expect(results.map(outcome)).toEqual(["invalid_input", "ok", "ok", "ok", "ok", "ok"]);
      expect(results[1]!.ok && (results[1]!.data as { commits: Array<{ hash: string }> }).commits.map((c) => c.hash)).toEqual([head]);
      expect(results[3]!.ok && (results[3]!.data as { files: Array<{ path: string }> }).files.map((f) => f.path)).toEqual(["a.txt"]);
    }
    expect(listing(repo.dir).filter((line) => line.includes("pwned"))).toEqual(
      OPTION_REFS.filter((n) => n.includes("pwned")).map(() => expect.any(String)),
    );
    for (const file of ["pwned.txt", "pwned"]) expect(listing(repo.dir).some((line) => line.startsWith(`f ${file} `))).toBe(false);
  });
});

describe("hostile paths", () => {
  const PATH_TOOLS: Array<[string, Record<string, unknown>]> = [
    ["git_status", {}],
    ["git_diff", {}],
    ["git_log", {}],
    ["git_show", { commit: "HEAD" }],
    ["git_blame", {}],
  ];

  it("each answers exactly: outside the workspace is refused, pathspec magic and globs are literal names", async () => {
    const toolbox = createToolbox({ root: repo.dir });
    const outsideCode = [
      "path_outside_workspace",
      "path_outside_workspace",
      "path_outside_workspace",
      "path_outside_workspace",
      "path_outside_workspace",
    ];
    const literal = ["path_not_found", "ok", "ok", "path_not_found", "path_not_found"];
    const cases: Array<[string, string[]]> = [
      ["../a.txt", outsideCode],
      ["..", outsideCode],
      ["a.txt/../../x", outsideCode],
      ["/etc/passwd", outsideCode],
      [outside, outsideCode],
      ["etc-link", ["path_outside_workspace", "path_outside_workspace", "path_outside_workspace", "path_not_found", "path_outside_workspace"]],
      ["etc-link/passwd", outsideCode],
      // git_show reads the commit's tree, never the disk: a final symlink is just a name there (not committed here).
      ["passwd-link", ["path_outside_workspace", "path_outside_workspace", "path_outside_workspace", "path_not_found", "path_outside_workspace"]],
      ["outside-link", ["path_outside_workspace", "path_outside_workspace", "path_outside_workspace", "path_not_found", "path_outside_workspace"]],
      ["outside-link/secret.txt", outsideCode],
      [":(top)a.txt", literal],
      [":(glob)*.txt", literal],
      [":/", literal],
      [":/a.txt", literal],
      [":!a.txt", literal],
      ["*", literal],
      ["*.txt", literal],
      ["a.tx?", literal],
      ["[a].txt", literal],
      // The workspace's own file by absolute path, and by a path that wanders but stays inside.
      [join("/", "PLACEHOLDER"), []],
      ["./x/../a.txt", ["ok", "ok", "ok", "ok", "ok"]],
    ];
    cases[19] = [join(repo.dir, "a.txt"), ["ok", "ok", "ok", "ok", "ok"]];
    const calls: Call[] = [];
    for (const [path] of cases) for (const [tool, base] of PATH_TOOLS) calls.push([tool, { ...base, path }]);
    const before = [out, repo.dir, outside].map(listing);
    const results: ToolResult[] = await runAll(toolbox, calls);
    const got = cases.map(([path], i) => [path, results.slice(i * 5, i * 5 + 5).map(outcome)]);
    expect(got).toEqual(cases.map(([path, codes]) => [path, codes]));
    expect([out, repo.dir, outside].map(listing)).toEqual(before);
    expectNoForeignText(results, ["root:x:0", "secret\\n"]);
    // A literal "*" matched nothing, though every file would match it as a glob.
    const diff = results[cases.findIndex(([p]) => p === "*") * 5 + 1]!;
    expect(diff.ok && (diff.data as { files: unknown[] }).files).toEqual([]);
  });
});
