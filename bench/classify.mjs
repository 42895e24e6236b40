// Median time the git command classifier takes per command line, over the labelled corpus of the tests
// (test/safety-corpus.ts). Pure classification only: no repository check, no git process.
// Part of `npm run bench`; alone: `npm run build && node bench/classify.mjs`. Leaves its section of BENCHMARKS.md
// in bench/.results/classify.json for bench/report.mjs.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);

// The corpus is TypeScript (it lives with the tests): transpile it on the fly.
const source = readFileSync(join(here, "..", "test", "safety-corpus.ts"), "utf8");
const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
const { CORPUS } = await import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}`);

let start = performance.now();
const { classifyCommand } = await import("../dist/index.js");
const importMs = performance.now() - start;
start = performance.now();
classifyCommand("git status");
const firstCallMs = performance.now() - start;

// Warm-up: every line a few times, so the JIT has seen them all.
for (let i = 0; i < 5; i++) for (const { line } of CORPUS) classifyCommand(line);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// Rounds interleave the lines so that machine noise hits all of them alike; each line's time is its median.
const samples = CORPUS.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  CORPUS.forEach(({ line }, i) => {
    const t0 = performance.now();
    classifyCommand(line);
    samples[i].push(performance.now() - t0);
  });
}
const perLine = samples.map(median);
const overall = median(perLine);
const p90 = [...perLine].sort((a, b) => a - b)[Math.floor(perLine.length * 0.9)];
const slowest = perLine.map((ms, i) => ({ ms, line: CORPUS[i].line })).sort((a, b) => b.ms - a.ms).slice(0, 3);

const markdown = `## The shell command classifier

No git process runs: \`classifyCommand\` alone, on ${cpus().length} cores.
${CORPUS.length} command lines of the test corpus, ${ROUNDS} interleaved rounds after 5 warm-up rounds.

| measure | ms |
|---|---:|
| median time per command line (median of each line's median) | ${overall.toFixed(4)} |
| 90th percentile of the lines' medians | ${p90.toFixed(4)} |
| import of gitctx (cold) | ${importMs.toFixed(1)} |
| first classification (loads the shell parser) | ${firstCallMs.toFixed(1)} |

Slowest lines: ${slowest.map((s) => `\`${s.line.replace(/\n/g, "\\n").slice(0, 60)}\` ${s.ms.toFixed(3)} ms`).join("; ")}.
`;
mkdirSync(join(here, ".results"), { recursive: true });
writeFileSync(
  join(here, ".results", "classify.json"),
  JSON.stringify({ title: "The shell command classifier", markdown, data: { lines: CORPUS.length, rounds: ROUNDS, medianMs: overall, p90Ms: p90, importMs, firstCallMs, slowest } }, null, 2),
);
process.stdout.write(markdown);
