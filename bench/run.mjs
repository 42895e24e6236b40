// Benchmarks, apart from the tests: gitctx against plain git, side by side in one run, interleaved so the
// noise of a shared machine hits both alike. Medians and ratios go to bench/results.md.
// Run with `npm run bench` (it builds first). Figures depend on the machine; rerun rather than trust old ones.
import { execFileSync, spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToolbox } from "../dist/index.js";
import { makeRepository, median } from "./shared.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const here = dirname(fileURLToPath(import.meta.url));


function plainGit(cwd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(out).toString()) : reject(new Error(`git exited ${code}`))));
  });
}

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}


async function compare(label, cases) {
  const samples = cases.map(() => []);
  for (let i = 0; i < ITERATIONS + 5; i++) {
    for (const [index, entry] of cases.entries()) {
      const ms = await time(entry.run);
      if (i >= 5) samples[index].push(ms); // the first rounds warm caches and the JIT
    }
  }
  const medians = samples.map(median);
  return { label, rows: cases.map((entry, index) => ({ name: entry.name, median: medians[index], ratio: medians[index] / medians[0] })) };
}

const dir = makeRepository(2000);
const toolbox = createToolbox({ root: dir });
const check = await toolbox.execute("git_status", {});
if (!check.ok) throw new Error(`git_status failed: ${JSON.stringify(check.error)}`);

const results = [];
results.push(
  await compare("git_status on a 2,000-file repository with 22 changed paths", [
    { name: "plain `git status --porcelain=v2 -z` spawned from Node", run: () => plainGit(dir, ["status", "--porcelain=v2", "--branch", "-z"]) },
    { name: "gitctx `git_status` (library, parsed data + text)", run: () => toolbox.execute("git_status", {}) },
  ]),
);
results.push(
  await compare("git_diff (unstaged) on the same repository", [
    { name: "plain `git diff` spawned from Node", run: () => plainGit(dir, ["diff"]) },
    { name: "gitctx `git_diff` (summary of every file + capped patch)", run: () => toolbox.execute("git_diff", {}) },
  ]),
);
rmSync(dir, { recursive: true, force: true });

const gitVersion = execFileSync("git", ["--version"]).toString().trim();
const lines = [
  "# Benchmark results",
  "",
  `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${gitVersion}, ` +
    `${cpus().length} cores. ${ITERATIONS} interleaved iterations per case after 5 warm-up rounds; medians in milliseconds.`,
  "",
];
for (const result of results) {
  lines.push(`## ${result.label}`, "", "| case | median ms | ratio to plain git |", "|---|---:|---:|");
  for (const row of result.rows) lines.push(`| ${row.name} | ${row.median.toFixed(2)} | ${row.ratio.toFixed(2)}x |`);
  const overhead = result.rows[1].median - result.rows[0].median;
  lines.push("", `Overhead of gitctx per call: ${overhead.toFixed(2)} ms (median difference).`, "");
}
const report = lines.join("\n");
writeFileSync(join(here, "results.md"), report);
console.log(report);
