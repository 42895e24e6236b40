// The repository snapshot (git_context) measured against its own git commands: the wall time of the parallel
// snapshot, the slowest single command in it, and the same commands run one after another. Every command is
// the exact hardened one the snapshot ran (recorded from one snapshot, then replayed through the same runner),
// on the same repository, interleaved with the snapshots so machine noise hits both alike. Medians in ms go to
// bench/snapshot-results.md. Run with `npm run bench` (it builds first), or `node bench/snapshot.mjs` after a build.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderSnapshot, snapshot, createToolbox } from "../dist/index.js";
import { gatherSnapshot } from "../dist/context/snapshot.js";
import { loadTokenCounter } from "../dist/context/tokens.js";
import { discoverRepository } from "../dist/git/discover.js";
import { Repository } from "../dist/git/repository.js";
import { GitRunner } from "../dist/git/run.js";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = 5;
const here = dirname(fileURLToPath(import.meta.url));
const MAIN = join(here, "..", "dist", "cli", "main.js");

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

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Records the git commands of one snapshot, then times snapshots and the same commands one after another. */
async function measure(files) {
  const { base, dir } = makeRepository(files);
  // One repository handle, as a toolbox call has: discovery and the filter scan are done once, outside the timings.
  const runner = new GitRunner();
  const paths = await discoverRepository(runner, dir, false);
  const repo = await Repository.open(runner, paths, false);

  recording = [];
  const recorded = await gatherSnapshot(repo);
  const commands = recording;
  recording = undefined;
  const failed = recorded.sections.filter((section) => !recorded[section].ok);
  if (failed.length > 0) throw new Error(`sections failed: ${failed.join(", ")}`);

  const snapshotTimes = [];
  const sequentialTimes = [];
  const perCommand = commands.map(() => []);
  for (let i = 0; i < ITERATIONS + WARMUP; i++) {
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
  const rows = commands.map((command, index) => ({ name: `git ${command.subcommand} ${command.args.join(" ")}`, median: median(perCommand[index]) }));
  return {
    files,
    base,
    dir,
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

const large = await measure(20_000);
rmSync(large.base, { recursive: true, force: true });
const small = await measure(2_000);
const { base, dir } = small;

// End to end: the library call that opens the repository itself, the git_context tool (snapshot + render), the CLI.
const counter = await loadTokenCounter();
const endToEnd = { library: [], tool: [], render: [] };
const toolbox = createToolbox({ root: dir });
for (let i = 0; i < Math.min(ITERATIONS, 50) + WARMUP; i++) {
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
  if (i >= WARMUP) {
    endToEnd.library.push(library);
    endToEnd.render.push(render);
    endToEnd.tool.push(tool);
  }
}
const cli = [];
for (let i = 0; i < 10 + 2; i++) {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, [MAIN, "snapshot", "--root", dir], { encoding: "utf8" });
  const ms = performance.now() - t0;
  if (run.status !== 0) throw new Error(run.stderr);
  if (i >= 2) cli.push(ms);
}
const sample = (await renderSnapshot(await snapshot({ root: dir }))).text;
rmSync(base, { recursive: true, force: true });

const gitVersion = execFileSync("git", ["--version"]).toString().trim();
const fmt = (ms) => ms.toFixed(2);
const clip = (text) => (text.length > 110 ? `${text.slice(0, 107)}...` : text).replaceAll("|", "\\|");

function comparison(result) {
  const { commands, rows, slowest, snapshot: parallel, sequential } = result;
  return [
    `## ${result.files.toLocaleString("en")} files: the parallel snapshot against its own git commands`,
    "",
    `The snapshot ran ${commands.length} git commands (recorded from one snapshot, replayed with the same hardened runner).`,
    "",
    "| case | median ms | ratio to snapshot |",
    "|---|---:|---:|",
    `| snapshot: every section, in parallel (\`gatherSnapshot\`) | ${fmt(parallel)} | 1.00x |`,
    `| slowest single command: \`${clip(slowest.name)}\` | ${fmt(slowest.median)} | ${(slowest.median / parallel).toFixed(2)}x |`,
    `| the same ${commands.length} commands one after another | ${fmt(sequential)} | ${(sequential / parallel).toFixed(2)}x |`,
    "",
    `Parallel speed-up over sequential: ${(sequential / parallel).toFixed(2)}x; the snapshot takes ` +
      `${(parallel / slowest.median).toFixed(2)}x its slowest command.`,
    "",
    "Each command alone (median ms, in the order the snapshot started them):",
    "",
    "| command | median ms |",
    "|---|---:|",
    ...rows.map((row) => `| \`${clip(row.name)}\` | ${fmt(row.median)} |`),
    "",
  ];
}

const lines = [
  "# Snapshot benchmark",
  "",
  `Written by \`npm run bench\` (bench/snapshot.mjs) on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${gitVersion}, ` +
    `${cpus().length} cores. ${ITERATIONS} interleaved iterations after ${WARMUP} warm-up rounds; medians in milliseconds.`,
  "",
  "Each repository: 105 commits on `feature` (5 ahead of origin/main, 3 behind), 20 modified files, 1 staged,",
  "5 untracked, 2 stashes, 2 remotes, a linked worktree. Every section read, none failed.",
  "",
  ...comparison(small),
  ...comparison(large),
  "## End to end (2,000 files)",
  "",
  "| case | median ms |",
  "|---|---:|",
  `| \`snapshot({ root })\`: discovery, ownership and filter checks, every section | ${fmt(median(endToEnd.library))} |`,
  `| \`renderSnapshot\` at the default 2,000-token budget (tokenizer loaded) | ${fmt(median(endToEnd.render))} |`,
  `| \`git_context\` tool call (toolbox: snapshot + render) | ${fmt(median(endToEnd.tool))} |`,
  `| \`gitctx snapshot\` as a process (Node start, tokenizer load, all of the above; 10 runs) | ${fmt(median(cli))} |`,
  "",
  `Rendered: ${counter(sample)} tokens at the default budget.`,
  "",
];
const report = lines.join("\n");
writeFileSync(join(here, "snapshot-results.md"), report);
console.log(report);
