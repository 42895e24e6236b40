// Memory and diff growth on the big-diff repository of bench/repos.mjs (an unstaged diff of >= 500 MB):
// 1. peak RSS and wall time of a fresh Node process asking for the whole diff through gitctx's git_diff (default
//    cap), plain `git diff` buffered whole, and simple-git, against an idle Node process (bench/memory-child.mjs);
// 2. git_diff's time at its default cap on diffs of ~1 MB to the whole, against plain `git diff` read whole.
// Medians of alternating runs go to bench/.results/memory.json as { title, markdown, data }.
// Run with `npm run build && node bench/memory.mjs` (generates the repository on first use).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToolbox } from "../dist/index.js";
import { ensureRepository } from "./repos.mjs";
import { median } from "./shared.mjs";

const MEMORY_ROUNDS = 3;
const GROWTH_ROUNDS = 5;
const CHILD_TIMEOUT_MS = 180_000;
const here = dirname(fileURLToPath(import.meta.url));
const CHILD = join(here, "memory-child.mjs");

const APPROACHES = [
  { id: "baseline", label: "Node doing nothing (baseline)" },
  { id: "gitctx", label: "gitctx `git_diff` (library, default cap)" },
  { id: "plain-git", label: "plain `git diff` spawned, chunks kept and `Buffer.concat`ed" },
  { id: "simple-git", label: "simple-git `diff()`" },
];

const log = (message) => process.stderr.write(`memory: ${message}\n`);
const mib = (kib) => (kib / 1024).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const mb = (bytes) => `${(bytes / 1e6).toFixed(bytes < 10e6 ? 2 : 1)} MB`;
const seconds = (ms) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);
const thousands = (n) => n.toLocaleString("en-US");
const medianOf = (samples, field) => {
  const values = samples.map((sample) => sample[field]).filter((value) => typeof value === "number");
  return values.length === 0 ? null : median(values);
};

const repository = await ensureRepository("big-diff");
const dir = repository.dir;

/** A fresh process per figure; its own process group, so a timeout also ends the git it started. */
function measureInChild(approach) {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(process.execPath, [CHILD, approach, dir], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid, "SIGKILL");
    }, CHILD_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const processMs = performance.now() - start;
      if (timedOut) return resolve({ approach, timedOut: true, processMs });
      try {
        resolve({ ...JSON.parse(stdout), processMs });
      } catch {
        resolve({ approach, error: `exited ${code ?? signal}: ${stderr.trim().slice(-300)}`, processMs });
      }
    });
  });
}

/** Plain git read whole, as a wrapper would, but counted rather than kept: this measures time, not memory. */
function plainDiffBytes(pathspecs) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["diff", "--", ...pathspecs], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => (bytes += chunk.length));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(bytes) : reject(new Error(`git diff exited ${code}`))));
  });
}

async function timed(action) {
  const start = performance.now();
  const value = await action();
  return { ms: performance.now() - start, value };
}

const totalStart = performance.now();
log(`repository big-diff: ${repository.description}`);
// The first read of half a gigabyte comes from disk; every measured run should find it in the page cache.
await plainDiffBytes([]);

const memorySamples = Object.fromEntries(APPROACHES.map(({ id }) => [id, []]));
for (let round = 0; round < MEMORY_ROUNDS; round++) {
  // Rotated each round, so no approach always runs right after the heaviest one.
  for (let i = 0; i < APPROACHES.length; i++) {
    const { id } = APPROACHES[(i + round) % APPROACHES.length];
    const sample = await measureInChild(id);
    memorySamples[id].push(sample);
    const figure = sample.timedOut
      ? "timed out"
      : sample.error
        ? `error: ${sample.error}`
        : `${mib(sample.maxRssKiB)} MiB, ${seconds(sample.callMs)}`;
    log(`memory round ${round + 1}/${MEMORY_ROUNDS} ${id}: ${figure}`);
  }
}
const memory = APPROACHES.map(({ id, label }) => {
  const samples = memorySamples[id];
  const succeeded = samples.filter((sample) => !sample.timedOut && sample.error === undefined);
  return {
    id,
    label,
    samples,
    succeeded: succeeded.length,
    maxRssKiB: medianOf(succeeded, "maxRssKiB"),
    callMs: medianOf(succeeded, "callMs"),
    processMs: medianOf(succeeded, "processMs"),
    bytes: succeeded[0]?.bytes ?? null,
    truncated: succeeded[0]?.truncated ?? null,
    errors: samples.filter((sample) => sample.error !== undefined).map((sample) => sample.error),
    timeouts: samples.filter((sample) => sample.timedOut).length,
  };
});

const toolbox = createToolbox({ root: dir });
async function gitctxDiff(pathspecs) {
  const result = await toolbox.execute("git_diff", pathspecs.length === 0 ? {} : { path: pathspecs[0] });
  if (!result.ok) throw new Error(`git_diff failed: ${result.error.code}: ${result.error.message}`);
  return result.data;
}
const growth = repository.growthTiers.map((tier) => ({ ...tier, gitctxMs: [], plainMs: [], returnedBytes: null, truncated: null, plainBytes: null }));
for (let round = -1; round < GROWTH_ROUNDS; round++) {
  for (const tier of growth) {
    // Which tool runs first alternates by round; round -1 only warms up.
    const runGitctx = async () => {
      const { ms, value } = await timed(() => gitctxDiff(tier.pathspecs));
      if (round >= 0) tier.gitctxMs.push(ms);
      tier.returnedBytes = value.returnedBytes;
      tier.truncated = value.truncated;
    };
    const runPlain = async () => {
      const { ms, value } = await timed(() => plainDiffBytes(tier.pathspecs));
      if (round >= 0) tier.plainMs.push(ms);
      tier.plainBytes = value;
    };
    if (round % 2 === 0) {
      await runGitctx();
      await runPlain();
    } else {
      await runPlain();
      await runGitctx();
    }
  }
  if (round >= 0) log(`growth round ${round + 1}/${GROWTH_ROUNDS} done`);
}
for (const tier of growth) {
  tier.gitctxMedianMs = median(tier.gitctxMs);
  tier.plainMedianMs = median(tier.plainMs);
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const byId = Object.fromEntries(memory.map((entry) => [entry.id, entry]));
const gitVersion = execFileSync("git", ["--version"]).toString().trim();
const title = `Memory and diff growth on a ${mb(repository.diffBytes)} diff`;

function memoryRow(entry) {
  const rss = entry.maxRssKiB === null ? "—" : mib(entry.maxRssKiB);
  const wall =
    entry.processMs === null
      ? "—"
      : entry.id === "baseline"
        ? seconds(entry.processMs)
        : `${seconds(entry.processMs)} (call ${seconds(entry.callMs)})`;
  let held;
  if (entry.succeeded === 0) held = entry.timeouts > 0 ? `timed out after ${CHILD_TIMEOUT_MS / 1000} s` : `failed: ${entry.errors[0]}`;
  else if (entry.id === "baseline") held = "—";
  else held = `${thousands(entry.bytes)}${entry.truncated === null ? "" : ` (truncated: ${entry.truncated})`}`;
  const note =
    entry.succeeded > 0 && entry.succeeded < entry.samples.length
      ? ` (${entry.samples.length - entry.succeeded} of ${entry.samples.length} runs failed)`
      : "";
  return `| ${entry.label} | ${rss} | ${wall} | ${held}${note} |`;
}

function findings() {
  const { gitctx, baseline } = byId;
  const plain = byId["plain-git"];
  const simple = byId["simple-git"];
  const sentences = [];
  if (gitctx.maxRssKiB !== null && plain.maxRssKiB !== null && baseline.maxRssKiB !== null) {
    sentences.push(
      `gitctx's peak RSS is ${mib(gitctx.maxRssKiB)} MiB for a ${mb(repository.diffBytes)} diff, ` +
        `${((gitctx.maxRssKiB / plain.maxRssKiB) * 100).toFixed(1)}% of buffering it whole from plain git (${mib(plain.maxRssKiB)} MiB) ` +
        `and ${mib(gitctx.maxRssKiB - baseline.maxRssKiB)} MiB above an idle Node process; ` +
        `it returned ${thousands(gitctx.bytes)} bytes of patch (truncated: ${gitctx.truncated}) in ${seconds(gitctx.callMs)}, against ${seconds(plain.callMs)} to read the whole diff.`,
    );
  } else {
    sentences.push(
      `Not every approach produced a figure: gitctx ${gitctx.succeeded}/${gitctx.samples.length}, plain git ${plain.succeeded}/${plain.samples.length}, baseline ${baseline.succeeded}/${baseline.samples.length} runs succeeded.`,
    );
  }
  if (simple.maxRssKiB !== null) {
    sentences.push(
      `simple-git's \`diff()\` returns the whole diff as one string and peaked at ${mib(simple.maxRssKiB)} MiB${gitctx.maxRssKiB === null ? "" : `, ${(simple.maxRssKiB / gitctx.maxRssKiB).toFixed(1)}x gitctx's peak`}.`,
    );
  } else {
    sentences.push(
      `simple-git's \`diff()\` gave no figure: ${simple.timeouts > 0 ? `it timed out after ${CHILD_TIMEOUT_MS / 1000} s` : `it failed with "${simple.errors[0]}"`}.`,
    );
  }
  const first = growth[0];
  const last = growth.at(-1);
  sentences.push(
    `From the ${mb(first.diffBytes)} to the ${mb(last.diffBytes)} diff (${(last.diffBytes / first.diffBytes).toFixed(0)}x the bytes), ` +
      `git_diff's median time at its default cap went from ${seconds(first.gitctxMedianMs)} to ${seconds(last.gitctxMedianMs)} (${(last.gitctxMedianMs / first.gitctxMedianMs).toFixed(1)}x), ` +
      `while reading plain \`git diff\` whole went from ${seconds(first.plainMedianMs)} to ${seconds(last.plainMedianMs)} (${(last.plainMedianMs / first.plainMedianMs).toFixed(1)}x).`,
  );
  return sentences.join(" ");
}

const markdown = [
  `## ${title}`,
  "",
  `Repository \`big-diff\` from \`bench/repos.mjs\`: ${repository.description}. Node ${process.version}, ${gitVersion}, ${cpus().length} cores.`,
  "",
  `### Peak memory asking for the whole unstaged diff`,
  "",
  `Each figure is the median of ${MEMORY_ROUNDS} fresh Node processes (approaches alternating); peak RSS is \`process.resourceUsage().maxRSS\` ` +
    "of the Node process (git's own memory is not included). Wall time is the whole process, with the diff call alone in brackets.",
  "",
  "| approach | peak RSS MiB | wall time | bytes returned/held |",
  "|---|---:|---:|---:|",
  ...memory.map(memoryRow),
  "",
  `### git_diff at its default cap as the diff grows`,
  "",
  `Median of ${GROWTH_ROUNDS} alternating runs in one process, after a warm-up round. Each tier is one directory passed as \`path\` ` +
    "(the last is the whole change, no path); plain `git diff -- <path>` is spawned from Node and read to the end.",
  "",
  "| diff size | git_diff (capped) ms | plain git diff (whole) ms | ratio | git_diff returned bytes |",
  "|---:|---:|---:|---:|---:|",
  ...growth.map(
    (tier) =>
      `| ${mb(tier.diffBytes)} | ${tier.gitctxMedianMs.toFixed(1)} | ${tier.plainMedianMs.toFixed(1)} | ${(tier.gitctxMedianMs / tier.plainMedianMs).toFixed(3)}x | ${thousands(tier.returnedBytes)} |`,
  ),
  "",
  findings(),
  "",
].join("\n");

const data = {
  date: new Date().toISOString(),
  node: process.version,
  git: gitVersion,
  cpus: cpus().length,
  repository: { ...repository, dir: `bench/.repos/${repository.kind}` },
  memory: { rounds: MEMORY_ROUNDS, childTimeoutMs: CHILD_TIMEOUT_MS, approaches: memory },
  growth: { rounds: GROWTH_ROUNDS, tiers: growth },
  totalSeconds: Number(((performance.now() - totalStart) / 1000).toFixed(1)),
};
const resultsDir = join(here, ".results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, "memory.json"), `${JSON.stringify({ title, markdown, data }, null, 2)}\n`);
process.stdout.write(markdown);
log(`done in ${data.totalSeconds} s; wrote bench/.results/memory.json`);
