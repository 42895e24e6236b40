// How large each tool's default answer is, in o200k tokens (the text a model reads), on generated repositories
// in the states that used to overflow a model's context: 3,256 modified files (the size of the v2.20..v2.45 diff
// of git/git), a 20,000-line file with a history, twenty commits with 6 KB messages, an untracked directory of
// 150 files. Every call is the tool's default (no size parameter). With GITCTX_BOUNDS_CLONE=<path to a clone>,
// the same calls also run on that clone (git/git, say: every tracked file is touched first, then restored).
// Part of `npm run bench`; leaves its section of BENCHMARKS.md in bench/.results/bounds.json.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens, createToolbox } from "../dist/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const BUDGET = 10_000;
const MANY_FILES = 3256;
const LONG_FILE_LINES = 20_000;

function gitEnv(home) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
    LC_ALL: "C.UTF-8",
  };
}

/** The generated repository: every state at once, each in its own part of the tree or history. */
function makeRepository(base) {
  const dir = join(base, "repo");
  mkdirSync(dir);
  const env = gitEnv(base);
  const git = (...args) => execFileSync("git", args, { cwd: dir, env, stdio: "pipe", maxBuffer: 1 << 30 });
  git("-c", "init.defaultBranch=main", "init", "-q");
  const write = (path, text) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const many = (i) => `src/subsystem-${String(i % 40).padStart(2, "0")}/component-${i}/implementation-${i}.c`;
  for (let i = 0; i < MANY_FILES; i++) write(many(i), `/* file ${i} */\nint value_${i}(void) { return ${i}; }\n`);
  const longLine = (n, round) => `static int line_${n}(struct context *ctx) { return ctx->values[${n}] + ${round}; }\n`;
  write("long.c", Array.from({ length: LONG_FILE_LINES }, (_, n) => longLine(n, 0)).join(""));
  git("add", "-A");
  git("commit", "-qm", "initial");
  // Blame gets several commits to name: each rewrites every 7th line of a slice of the long file.
  for (let round = 1; round <= 8; round++) {
    const lines = readFileSync(join(dir, "long.c"), "utf8").split("\n");
    for (let n = round; n < LONG_FILE_LINES; n += 7 * round) lines[n] = longLine(n, round).trimEnd();
    writeFileSync(join(dir, "long.c"), lines.join("\n"));
    git("commit", "-qam", `Rework the long file, round ${round}`);
  }
  // Twenty commits whose messages are 6 KB each (a changelog pasted into the message, say).
  const paragraph = (c, p) =>
    `Paragraph ${p} of commit ${c}: the rationale, the measurements before and after, the alternatives that were tried and why they were dropped, and the follow-up work this change enables.`;
  for (let c = 1; c <= 20; c++) {
    write(`notes/note-${c}.txt`, `note ${c}\n`);
    git("add", "-A");
    const body = Array.from({ length: 36 }, (_, p) => paragraph(c, p)).join("\n\n");
    git("commit", "-q", "-m", `Note ${c}`, "-m", body);
  }
  // One commit touching every one of the many files, then all of them modified again in the working tree.
  for (let i = 0; i < MANY_FILES; i++) write(many(i), `/* file ${i} */\nint value_${i}(void) { return ${i} + 1; }\n`);
  git("commit", "-qam", "Touch every component");
  for (let i = 0; i < MANY_FILES; i++) write(many(i), `/* file ${i} */\nint value_${i}(void) { return ${i} + 2; }\n`);
  // An untracked build directory of 150 files.
  for (let i = 0; i < 150; i++) write(`build/output/object-${i}.o.d`, `dep ${i}\n`);
  return dir;
}

const CALLS = [
  ["git_diff {}", "git_diff", {}],
  ["git_diff {stat:true}", "git_diff", { stat: true }],
  ["git_status {}", "git_status", {}],
  ["git_show {commit:HEAD}", "git_show", { commit: "HEAD" }],
  ["git_blame {path:long.c}", "git_blame", { path: "long.c" }],
  ["git_log {}", "git_log", {}],
  ["git_context {}", "git_context", {}],
];

async function measure(root, calls) {
  const toolbox = createToolbox({ root, timeoutMs: 600_000 });
  const rows = [];
  try {
    for (const [label, name, input] of calls) {
      const result = await toolbox.execute(name, input);
      const text = result.ok ? result.text : `error: ${result.error.code}: ${result.error.message}`;
      rows.push({ label, ok: result.ok, tokens: await countTokens(text), dataBytes: result.ok ? JSON.stringify(result.data).length : 0 });
    }
  } finally {
    await toolbox.close();
  }
  return rows;
}

/** The untracked section's share of the snapshot: the text with and without it. */
async function untrackedShare(root) {
  const toolbox = createToolbox({ root });
  try {
    const result = await toolbox.execute("git_context", { sections: ["untracked"], budget: 200_000 });
    return result.ok ? countTokens(result.text) : undefined;
  } finally {
    await toolbox.close();
  }
}

const base = mkdtempSync(join(tmpdir(), "gitctx-bench-bounds-"));
try {
  const repo = makeRepository(base);
  const generated = await measure(repo, CALLS);
  const untracked = await untrackedShare(repo);
  let clone;
  let cloneLabel = "";
  const clonePath = process.env.GITCTX_BOUNDS_CLONE;
  if (clonePath !== undefined && clonePath !== "") {
    const cloneCalls = [
      ["git_diff {}", "git_diff", {}],
      ["git_status {}", "git_status", {}],
      ["git_blame {path:revision.c}", "git_blame", { path: "revision.c" }],
      ["git_log {}", "git_log", {}],
      ["git_show {commit:v2.45.0}", "git_show", { commit: "v2.45.0" }],
      ["git_diff {commit:v2.20.0..v2.45.0}", "git_diff", { commit: "v2.20.0..v2.45.0" }],
      ["git_context {}", "git_context", {}],
    ];
    clone = await measure(clonePath, cloneCalls);
    const plain = (...args) => execFileSync("git", args, { cwd: clonePath, env: gitEnv(base), maxBuffer: 1 << 30 }).toString();
    cloneLabel = `a clone of ${basename(clonePath)} at ${plain("rev-parse", "--short", "HEAD").trim()} with ${plain("status", "--porcelain").split("\n").filter(Boolean).length.toLocaleString("en-US")} files modified`;
  }
  const over = (rows) => rows.filter((row) => row.tokens > BUDGET).length;
  const table = (rows) =>
    [
      "| call | o200k tokens of the text | JSON bytes of data |",
      "|---|---:|---:|",
      ...rows.map(
        (row) => `| \`${row.label}\` | ${row.tokens.toLocaleString("en-US")}${row.ok ? "" : " (error)"} | ${row.dataBytes.toLocaleString("en-US")} |`,
      ),
    ].join("\n");
  const markdown = [
    "## Output size of default calls",
    "",
    `Each tool called with its defaults on a generated repository: ${MANY_FILES.toLocaleString("en-US")} modified files (and a commit touching all of them),`,
    `a ${LONG_FILE_LINES.toLocaleString("en-US")}-line file rewritten by 8 commits, 20 commits with 6 KB messages, an untracked directory of 150 files.`,
    `Every default answer must fit ${BUDGET.toLocaleString("en-US")} o200k tokens; ${over(generated)} of ${generated.length} do not.`,
    "",
    table(generated),
    "",
    `The untracked directory alone, as the snapshot renders it (\`git_context {"sections":["untracked"]}\`): ${untracked} tokens.`,
    ...(clone === undefined ? [] : ["", `On ${cloneLabel} (${over(clone)} of ${clone.length} over the budget):`, "", table(clone)]),
    "",
    "Reproduce: `npm run build && node bench/bounds.mjs`; `GITCTX_BOUNDS_CLONE=/path/to/a/clone` adds the same calls on a",
    "clone (here git/git with `git clone --local`, the first 3,256 tracked files appended to, dotfiles restored).",
    "",
  ].join("\n");
  mkdirSync(join(here, ".results"), { recursive: true });
  writeFileSync(
    join(here, ".results", "bounds.json"),
    JSON.stringify({ title: "Output size", markdown, data: { generated, untracked, clone } }, null, 2),
  );
  process.stdout.write(markdown);
} finally {
  rmSync(base, { recursive: true, force: true });
}
