// The repository snapshot (git_context) measured against its own git commands: the wall time of the parallel
// snapshot, the slowest single command in it, and the same commands run one after another. Every command is
// the exact hardened one the snapshot ran (recorded from one snapshot, then replayed through the same runner),
// on the same repository, interleaved with the snapshots so machine noise hits both alike. Repositories: the
// generated small and large ones (bench/repos.mjs), and a 2,000-file clone with everything a snapshot reports
// (upstream, stashes, remotes, a linked worktree). Part of `npm run bench`; leaves its section of BENCHMARKS.md
// in bench/.results/snapshot.json.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { renderSnapshot, snapshot, createToolbox } from "../dist/index.js";
import { gatherSnapshot } from "../dist/context/snapshot.js";
import { loadTokenCounter } from "../dist/context/tokens.js";
import { GitCaches } from "../dist/git/caches.js";
import { discoverRepository } from "../dist/git/discover.js";
import { Repository } from "../dist/git/repository.js";
import { GitRunner } from "../dist/git/run.js";
import { ensureRepository } from "./repos.mjs";
import { median } from "./shared.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 50);
const LARGE_ITERATIONS = Math.max(3, Math.round(ITERATIONS / 5));
const WARMUP = 5;
const here = dirname(fileURLToPath(import.meta.url));
const MAIN = join(here, "..", "dist", "bin", "gitctx.js");

/**
 * A repository of `files` files with 100 commits on origin/main, cloned; `feature` is 5 commits ahead and 3
 * behind; 20 files modified, 1 staged, 5 untracked; 2 stashes; a linked worktree; a second remote with credentials.
 */
function makeRepository(files) {
  const base = mkdtempSync(join(tmpdir(), "gitctx-bench-snapshot-"));
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    HOME: base,
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
  };
  const git = (cwd, ...args) => execFileSync("git", args, { cwd, env, stdio: "pipe" });
  const seed = join(base, "seed");
  mkdirSync(seed);
  git(seed, "-c", "init.defaultBranch=main", "init", "-q");
  const file = (i) => join(seed, `src/module${i % 20}/file${i}.ts`);
  for (let i = 0; i < files; i++) {
    mkdirSync(dirname(file(i)), { recursive: true });
    writeFileSync(file(i), `export const value${i} = ${i};\n`.repeat(20));
  }
  git(seed, "add", "-A");
  git(seed, "commit", "-qm", "initial");
  for (let c = 1; c < 100; c++) {
    writeFileSync(file(c * 7), `export const value = ${c};\n`);
    git(seed, "commit", "-qam", `change ${c}`);
  }
  const origin = join(base, "origin.git");
  git(base, "init", "-q", "--bare", origin);
  git(seed, "push", "-q", origin, "main");
  git(origin, "symbolic-ref", "HEAD", "refs/heads/main");
  const dir = join(base, "clone");
  git(base, "clone", "-q", origin, dir);
  git(dir, "checkout", "-q", "-b", "feature");
  for (let c = 0; c < 5; c++) {
    writeFileSync(join(dir, `feature${c}.ts`), `export const f = ${c};\n`);
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", `feature ${c}`);
  }
  for (let c = 0; c < 3; c++) {
    writeFileSync(file(1000 + c), "moved on\n");
    git(seed, "commit", "-qam", `upstream ${c}`);
  }
  git(seed, "push", "-q", origin, "main");
  git(dir, "fetch", "-q", "origin");
  for (let s = 0; s < 2; s++) {
    writeFileSync(join(dir, "src/module0/file0.ts"), `stash ${s}\n`);
    git(dir, "stash", "push", "-q", "-m", `experiment ${s}`);
  }
  for (let i = 0; i < files; i += files / 20) writeFileSync(join(dir, `src/module${i % 20}/file${i}.ts`), "changed\n");
  git(dir, "add", "src/module0/file0.ts");
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, `untracked${i}.txt`), "new\n");
  git(dir, "remote", "add", "fork", "https://bench:secret-token@git.example.com/bench/repo.git");
  git(dir, "worktree", "add", "-q", "--detach", join(base, "linked"));
  // Files written in the same second as the index are "racily clean": git must re-read them on every status,
  // and gitctx never writes the index back. A settled working copy has none; let the clock move on, then
  // refresh the index once, as any git status run by the user would.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
  git(dir, "status", "--porcelain");
  return { base, dir };
}

/** Records the git commands of one snapshot, then times snapshots and the same commands one after another. */
async function measure(label, dir, iterations) {
  // One repository handle, as a toolbox call has: discovery and the filter scan are done once, outside the timings.
  const runner = new GitRunner();
  const caches = new GitCaches(runner);
  const paths = await discoverRepository(dir, false);
  const repo = await Repository.open(runner, caches, paths, { trustRepository: false });

  recording = [];
  const recorded = await gatherSnapshot(repo);
  const commands = recording;
  recording = undefined;
  const failed = recorded.sections.filter((section) => !recorded[section].ok);
  if (failed.length > 0) throw new Error(`sections failed: ${failed.join(", ")}`);

  const snapshotTimes = [];
  const sequentialTimes = [];
  const perCommand = commands.map(() => []);
  for (let i = 0; i < iterations + WARMUP; i++) {
    const start = performance.now();
    await gatherSnapshot(repo);
    const snapshotMs = performance.now() - start;

    let total = 0;
    const times = [];
    for (const command of commands) {
      const t0 = performance.now();
      // Some exit non-zero by design (no upstream configured): the snapshot reads that as an answer.
      await repo.git(command.subcommand, command.args);
      const ms = performance.now() - t0;
      times.push(ms);
      total += ms;
    }
    if (i >= WARMUP) {
      snapshotTimes.push(snapshotMs);
      sequentialTimes.push(total);
      times.forEach((ms, index) => perCommand[index].push(ms));
    }
  }
  await repo.dispose();
  await caches.invalidate("privateIndex");
  runner.close();
  const rows = commands.map((command, index) => ({ name: `git ${command.subcommand} ${command.args.join(" ")}`, median: median(perCommand[index]) }));
  return {
    label,
    iterations,
    commands,
    rows,
    slowest: rows.reduce((a, b) => (b.median > a.median ? b : a)),
    snapshot: median(snapshotTimes),
    sequential: median(sequentialTimes),
  };
}

// Record the git commands of a snapshot while `recording` is set.
const original = Repository.prototype.git;
let recording;
Repository.prototype.git = function (subcommand, args, options) {
  recording?.push({ subcommand, args: [...args] });
  return original.call(this, subcommand, args, options);
};

const realistic = makeRepository(2_000);
const small = await ensureRepository("small");
const large = await ensureRepository("large");
const results = [
  await measure(`small: ${small.description}`, small.dir, ITERATIONS),
  await measure(`large: ${large.description}`, large.dir, LARGE_ITERATIONS),
  await measure(
    "clone: 2,000 files; `feature` 5 ahead of origin/main and 3 behind, 20 modified, 1 staged, 5 untracked, 2 stashes, 2 remotes, a linked worktree",
    realistic.dir,
    ITERATIONS,
  ),
];
const dir = realistic.dir;

// End to end on the clone: the library call that opens the repository itself, the git_context tool, the CLI.
const counter = await loadTokenCounter();
const endToEnd = { library: [], tool: [], render: [], mcp: [] };
const toolbox = createToolbox({ root: dir });
const mcp = new Client({ name: "gitctx-bench", version: "0" });
await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "--root", dir], stderr: "ignore" }));
for (let i = 0; i < ITERATIONS + WARMUP; i++) {
  let t0 = performance.now();
  const snap = await snapshot({ root: dir });
  const library = performance.now() - t0;
  t0 = performance.now();
  await renderSnapshot(snap);
  const render = performance.now() - t0;
  t0 = performance.now();
  const result = await toolbox.execute("git_context", {});
  const tool = performance.now() - t0;
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  t0 = performance.now();
  const overMcp = await mcp.callTool({ name: "git_context", arguments: {} });
  const mcpMs = performance.now() - t0;
  if (overMcp.isError) throw new Error(JSON.stringify(overMcp.content));
  if (i >= WARMUP) {
    endToEnd.library.push(library);
    endToEnd.render.push(render);
    endToEnd.tool.push(tool);
    endToEnd.mcp.push(mcpMs);
  }
}
await mcp.close();
const cli = [];
for (let i = 0; i < 10 + 2; i++) {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, [MAIN, "snapshot", "--root", dir], { encoding: "utf8" });
  const ms = performance.now() - t0;
  if (run.status !== 0) throw new Error(run.stderr);
  if (i >= 2) cli.push(ms);
}
const sample = (await renderSnapshot(await snapshot({ root: dir }))).text;
rmSync(realistic.base, { recursive: true, force: true });

const gitVersion = execFileSync("git", ["--version"]).toString().trim();
const fmt = (ms) => ms.toFixed(2);
const clip = (text) => (text.length > 110 ? `${text.slice(0, 107)}...` : text).replaceAll("|", "\\|");

function comparison(result) {
  const { commands, rows, slowest, snapshot: parallel, sequential } = result;
  return [
    `### ${result.label}`,
    "",
    `${result.iterations} rounds. The snapshot ran ${commands.length} git commands (recorded from one snapshot, replayed with the same hardened runner).`,
    "",
    "| case | median ms | ratio to the slowest command |",
    "|---|---:|---:|",
    `| snapshot: every section, in parallel (\`gatherSnapshot\`) | ${fmt(parallel)} | ${(parallel / slowest.median).toFixed(2)}x |`,
    `| slowest single command: \`${clip(slowest.name)}\` | ${fmt(slowest.median)} | 1.00x |`,
    `| the same ${commands.length} commands one after another | ${fmt(sequential)} | ${(sequential / slowest.median).toFixed(2)}x |`,
    "",
    "Each command alone (median ms, in the order the snapshot started them):",
    "",
    "| command | median ms |",
    "|---|---:|",
    ...rows.map((row) => `| \`${clip(row.name)}\` | ${fmt(row.median)} |`),
    "",
  ];
}

const markdown = [
  "## The repository snapshot against its own git commands",
  "",
  `Target: the parallel snapshot within 1.5x of its slowest git command. ${ITERATIONS} rounds (large: ${LARGE_ITERATIONS}) after ` +
    `${WARMUP} warm-up rounds, snapshots interleaved with the commands replayed one by one; medians in milliseconds. ` +
    `Every section was read, none failed. ${gitVersion}, ${cpus().length} cores.`,
  "",
  ...results.flatMap(comparison),
  "### End to end (the clone)",
  "",
  "| case | median ms |",
  "|---|---:|",
  `| \`snapshot({ root })\`: discovery, ownership and filter checks, every section | ${fmt(median(endToEnd.library))} |`,
  `| \`renderSnapshot\` at the default 2,000-token budget (tokenizer loaded) | ${fmt(median(endToEnd.render))} |`,
  `| \`git_context\` tool call (toolbox: snapshot + render) | ${fmt(median(endToEnd.tool))} |`,
  `| \`git_context\` over MCP stdio (SDK client, \`gitctx mcp\` child process) | ${fmt(median(endToEnd.mcp))} |`,
  `| \`gitctx snapshot\` as a process (Node start, tokenizer load, all of the above; 10 runs) | ${fmt(median(cli))} |`,
  "",
  `Rendered: ${counter(sample)} tokens at the default budget.`,
  "",
].join("\n");
const data = {
  repositories: results.map(({ label, iterations, rows, slowest, snapshot: parallel, sequential }) => ({
    label,
    iterations,
    snapshotMs: parallel,
    slowestCommand: slowest,
    sequentialMs: sequential,
    ratioToSlowest: parallel / slowest.median,
    commands: rows,
  })),
  endToEnd: {
    libraryMs: median(endToEnd.library),
    renderMs: median(endToEnd.render),
    toolMs: median(endToEnd.tool),
    mcpStdioMs: median(endToEnd.mcp),
    cliMs: median(cli),
  },
  tokens: counter(sample),
};
mkdirSync(join(here, ".results"), { recursive: true });
writeFileSync(join(here, ".results", "snapshot.json"), JSON.stringify({ title: "The repository snapshot", markdown, data }, null, 2));
console.log(markdown);
