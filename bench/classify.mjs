// The shell command classifier: how good (false allows and the allowed share of safe reads on the labelled
// corpus of the tests, test/safety-corpus.ts), how fast per line (classifyCommand alone, no git process), and how
// fast the Claude Code hook and `gitctx tool git_status` start as fresh processes, side by side with `node -e 0`
// and plain git in one run.
// Part of `npm run bench`; alone: `npm run build && node bench/classify.mjs`. Leaves its section of BENCHMARKS.md
// in bench/.results/classify.json for bench/report.mjs.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { median } from "./shared.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const START_ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 21);
const MAIN = join(here, "..", "dist", "bin", "gitctx.js");

// The corpus is TypeScript (it lives with the tests): transpile it on the fly.
const source = readFileSync(join(here, "..", "test", "safety-corpus.ts"), "utf8");
const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
const { CORPUS, CORPUS_CONTEXT, corpusFigures } = await import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}`);

let start = performance.now();
const { classifyCommand } = await import("../dist/index.js");
const importMs = performance.now() - start;
start = performance.now();
classifyCommand("git status");
const firstCallMs = performance.now() - start;

const figures = corpusFigures(classifyCommand);

// Warm-up: every line a few times, so the JIT has seen them all.
for (let i = 0; i < 5; i++) for (const { line } of CORPUS) classifyCommand(line, CORPUS_CONTEXT);

// Rounds interleave the lines so that machine noise hits all of them alike; each line's time is its median.
const samples = CORPUS.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  CORPUS.forEach(({ line }, i) => {
    const t0 = performance.now();
    classifyCommand(line, CORPUS_CONTEXT);
    samples[i].push(performance.now() - t0);
  });
}
const perLine = samples.map(median);
const overall = median(perLine);
const p90 = [...perLine].sort((a, b) => a - b)[Math.floor(perLine.length * 0.9)];
const slowest = perLine
  .map((ms, i) => ({ ms, line: CORPUS[i].line }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 3);

// Start-up: fresh processes, interleaved round by round. A throwaway repository for the git cases.
const repo = mkdtempSync(join(tmpdir(), "gitctx-bench-hook-"));
// The processes' HOME: an empty directory of its own (the hook keeps its parser cache below it).
const home = mkdtempSync(join(tmpdir(), "gitctx-bench-home-"));
const quiet = { env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: repo }, stdio: "ignore" };
execFileSync("git", ["-c", "init.defaultBranch=main", "init", "-q", repo], quiet);
mkdirSync(join(repo, "src"));
for (let i = 0; i < 20; i++) writeFileSync(join(repo, "src", `f${i}.ts`), `export const x${i} = ${i};\n`);
execFileSync("git", ["-C", repo, "add", "-A"], quiet);
execFileSync("git", ["-C", repo, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "-m", "bench"], quiet);

const event = (command) => JSON.stringify({ tool_name: "Bash", tool_input: { command }, cwd: repo, hook_event_name: "PreToolUse" });
const cases = [
  { name: "node -e 0", argv: [process.execPath, "-e", "0"] },
  { name: "git status (plain git)", argv: ["git", "-C", repo, "status", "--porcelain"] },
  { name: "hook: non-git command (ls -la)", argv: [process.execPath, MAIN, "hook", "claude-code"], input: event("ls -la") },
  { name: "hook: git status (repository checked)", argv: [process.execPath, MAIN, "hook", "claude-code"], input: event("git status") },
  { name: "check --root: git status", argv: [process.execPath, MAIN, "check", "--root", repo, "--", "git status"] },
  { name: "tool git_status (fresh process)", argv: [process.execPath, MAIN, "tool", "git_status", "--root", repo] },
  // The command's first run for a user: no code cache yet (src/cli/code-cache.ts), so it compiles and writes one.
  { name: "tool git_status, first run (no code cache yet)", argv: [process.execPath, MAIN, "tool", "git_status", "--root", repo], freshHome: true },
];
const startSamples = cases.map(() => []);
const outputs = cases.map(() => "");
for (let round = 0; round < START_ROUNDS + 1; round++) {
  cases.forEach((c, i) => {
    const t0 = performance.now();
    const result = spawnSync(c.argv[0], c.argv.slice(1), {
      input: c.input ?? "",
      env: { ...process.env, HOME: c.freshHome === true ? mkdtempSync(join(home, "first-")) : home, XDG_CACHE_HOME: "" },
      encoding: "utf8",
    });
    const ms = performance.now() - t0;
    outputs[i] = result.stdout;
    if (round > 0) startSamples[i].push(ms); // the first round warms the file system cache
  });
}
rmSync(repo, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });
const startMedian = startSamples.map(median);
const [nodeMs, gitMs, hookNonGitMs, hookGitMs, checkMs, toolMs, toolFirstMs] = startMedian;
const hookDecision = JSON.parse(outputs[3] || "{}").hookSpecificOutput?.permissionDecision ?? "none";
const ratios = {
  hookNonGit: hookNonGitMs / nodeMs,
  hookGitStatus: hookGitMs / nodeMs,
  checkGitStatus: checkMs / nodeMs,
  toolGitStatus: toolMs / (nodeMs + gitMs),
  toolGitStatusFirstRun: toolFirstMs / (nodeMs + gitMs),
};
const verdict = (ratio, target) => (ratio <= target ? `within the target (at most ${target}x)` : `over the target of ${target}x`);

const markdown = `## The shell command classifier

${CORPUS.length} command lines of the labelled test corpus (test/safety-corpus.ts), classified in a clean repository
at \`/REPO\`: **${figures.falseAllows.length} false allows**; safe reads allowed: **${figures.allowedSafe}/${figures.safe}
(${figures.share.toFixed(1)}%)** (safe reads: every line labelled allow, plus the reads labelled ask). Every allowed line is
also run for real in hostile repositories by test/safety-execution.test.ts.

Per line, no git process: \`classifyCommand\` alone, on ${cpus().length} cores, ${ROUNDS} interleaved rounds after 5 warm-up rounds.

| measure | ms |
|---|---:|
| median time per command line (median of each line's median) | ${overall.toFixed(4)} |
| 90th percentile of the lines' medians | ${p90.toFixed(4)} |
| import of gitctx (cold) | ${importMs.toFixed(1)} |
| first classification (loads the shell parser) | ${firstCallMs.toFixed(1)} |

Slowest lines: ${slowest
  .map(
    (s) =>
      `\`${s.line
        .replace(/\n/g, "\\n")
        .replace(/[\r\x1b]/g, "?")
        .slice(0, 60)}\` ${s.ms.toFixed(3)} ms`,
  )
  .join("; ")}.

Start-up as fresh processes, ${START_ROUNDS} interleaved rounds (after one warm-up round), medians, in a repository of 20 files:

| process | ms | ratio |
|---|---:|---:|
${cases.map((c, i) => `| ${c.name} | ${startMedian[i].toFixed(1)} | ${i === 0 ? "1.00x node" : i === 1 ? "" : i >= 5 ? `${(startMedian[i] / (nodeMs + gitMs)).toFixed(2)}x (node + git)` : `${(startMedian[i] / nodeMs).toFixed(2)}x node`} |`).join("\n")}

The hook for a non-git command: ${ratios.hookNonGit.toFixed(2)}x \`node -e 0\`, ${verdict(ratios.hookNonGit, 2)}. The hook for \`git status\`
(answer: ${hookDecision}): ${ratios.hookGitStatus.toFixed(2)}x, ${verdict(ratios.hookGitStatus, 3)}. \`gitctx tool git_status\`:
${ratios.toolGitStatus.toFixed(2)}x \`node -e 0\` plus plain \`git status\`, ${verdict(ratios.toolGitStatus, 2)}; a user's very first call,
before the command's code cache exists, ${ratios.toolGitStatusFirstRun.toFixed(2)}x.
`;
mkdirSync(join(here, ".results"), { recursive: true });
writeFileSync(
  join(here, ".results", "classify.json"),
  JSON.stringify(
    {
      title: "The shell command classifier",
      markdown,
      data: {
        lines: CORPUS.length,
        falseAllows: figures.falseAllows,
        safeReads: figures.safe,
        allowedSafeReads: figures.allowedSafe,
        safeReadShare: figures.share,
        rounds: ROUNDS,
        medianMs: overall,
        p90Ms: p90,
        importMs,
        firstCallMs,
        slowest,
        startup: Object.fromEntries(cases.map((c, i) => [c.name, startMedian[i]])),
        ratios,
      },
    },
    null,
    2,
  ),
);
process.stdout.write(markdown);
