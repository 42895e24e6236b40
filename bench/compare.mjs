// Side by side, in one run and on the same generated repositories: the read operations an agent calls most
// (status, diff, log, show, blame) through plain git spawned from Node (the floor), the gitctx library, gitctx
// over MCP stdio, simple-git, isomorphic-git and @cyanheads/git-mcp-server over MCP stdio. Every peer runs
// once per round in a rotating order, so the noise of a shared machine hits all alike; medians, p90 and ratios
// to plain git. Also o200k token counts of the answers and the growth from the small to the large repository.
// Writes bench/.results/compare.json ({ title, markdown, data }) for bench/report.mjs.
// Run after `npm run build`: `node bench/compare.mjs` (BENCH_QUICK=1 cuts the iterations for development).
import { fork, spawn } from "node:child_process";
import * as fs from "node:fs";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as isomorphicGit from "isomorphic-git";
import { simpleGit } from "simple-git";
import { createToolbox } from "../dist/index.js";
import { countTokens } from "../dist/context/tokens.js";
import { COMMIT_FORMAT } from "../dist/git/parse/log.js";
import { ensureRepository } from "./repos.mjs";
import { median, STATUS_ARGS } from "./shared.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, "..");
const gitctxMain = join(projectRoot, "dist", "bin", "gitctx.js");
const cyanheadsMain = join(projectRoot, "node_modules", "@cyanheads", "git-mcp-server", "dist", "index.js");

const QUICK = process.env.BENCH_QUICK === "1";
/**
 * Rounds per repository kind, so that the whole run stays within about ten minutes on two cores: a call on the
 * large repository takes up to a second, a blame of the long file seconds.
 */
const PLAN = {
  small: { iterations: QUICK ? 5 : 30, warmup: QUICK ? 1 : 3 },
  large: { iterations: QUICK ? 2 : 9, warmup: 1 },
  "long-file": { iterations: QUICK ? 2 : 5, warmup: 1 },
};
/**
 * A peer whose first call on an operation takes longer is measured that once, and a slow one joins only the
 * first rounds that fit its budget (at least 3): rounds of isomorphic-git's status of 100k files would take most
 * of the run.
 */
const FIRST_CALL_BUDGET_MS = 20_000;
const PEER_BUDGET_MS = 60_000;
const MIN_ROUNDS = 3;
const MCP_CALL_TIMEOUT_MS = 10 * 60_000;
const TARGET_RATIO = 1.15;

// One neutral git configuration for every peer (they all inherit this environment): no user or system config
// can change the work, no peer writes the fixture's index back (gitctx never does; the others would otherwise
// race each other for index.lock), and git's human output, whose tokens are counted, is English.
Object.assign(process.env, { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C.UTF-8" });

const PEERS = [
  { id: "git", name: "plain git" },
  { id: "gitctx", name: "gitctx library" },
  { id: "gitctxMcp", name: "gitctx MCP stdio" },
  { id: "simpleGit", name: "simple-git" },
  { id: "isomorphicGit", name: "isomorphic-git" },
  { id: "cyanheads", name: "cyanheads MCP" },
];
const PACKAGES = {
  gitctx: ".",
  "@modelcontextprotocol/sdk": "node_modules/@modelcontextprotocol/sdk",
  "simple-git": "node_modules/simple-git",
  "isomorphic-git": "node_modules/isomorphic-git",
  "@cyanheads/git-mcp-server": "node_modules/@cyanheads/git-mcp-server",
};

/**
 * isomorphic-git runs in a child process of this same file, timed there around the library call. In this
 * process its index cache and garbage (100k files) would grow the heap, and every later spawn() of git here,
 * by plain git, the gitctx library and simple-git alike, would pay for copying a larger address space.
 */
const ISOMORPHIC_CHILD = "--isomorphic-git-child";

function serveIsomorphicGit() {
  const caches = new Map(); // per repository: isomorphic-git's documented way to keep packfiles and the index between calls
  process.on("message", async ({ id, operation, dir }) => {
    try {
      if (!caches.has(dir)) caches.set(dir, {});
      const cache = caches.get(dir);
      const start = performance.now();
      const answer =
        operation === "status" ? await isomorphicGit.statusMatrix({ fs, dir, cache }) : await isomorphicGit.log({ fs, dir, depth: 20, cache });
      const ms = performance.now() - start;
      const figure =
        operation === "status" ? answer.filter(([, head, workdir, stage]) => !(head === 1 && workdir === 1 && stage === 1)).length : answer.length;
      process.send({ id, ms, figure });
    } catch (error) {
      process.send({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}

function startIsomorphicGit() {
  const child = fork(fileURLToPath(import.meta.url), [ISOMORPHIC_CHILD], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const pending = new Map();
  let next = 0;
  child.on("message", ({ id, ...reply }) => {
    const { resolve, reject } = pending.get(id);
    pending.delete(id);
    if (reply.error === undefined) resolve(reply);
    else reject(new Error(reply.error));
  });
  child.on("exit", (code) => {
    for (const { reject } of pending.values()) reject(new Error(`the isomorphic-git child exited with ${code}`));
    pending.clear();
  });
  return {
    /** Resolves to `{ ms, figure }`: the library call's own duration, and the figure checked against plain git. */
    call: (operation, dir) =>
      new Promise((resolve, reject) => {
        pending.set(++next, { resolve, reject });
        child.send({ id: next, operation, dir });
      }),
    close: () => child.kill(),
  };
}

function runGit(cwd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(Buffer.concat(out).toString())
        : reject(new Error(`git ${args[0]} exited ${code}: ${Buffer.concat(err).toString().trim()}`)),
    );
  });
}

/** An MCP client on a stdio child; the child's stderr is kept (its tail) to explain a crash. */
async function connectMcp(command, args, options = {}) {
  const transport = new StdioClientTransport({ command, args, stderr: "pipe", ...options });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr = (stderr + chunk).slice(-2000)));
  const client = new Client({ name: "gitctx-bench-compare", version: "1" });
  await client.connect(transport);
  return {
    async call(name, input) {
      let result;
      try {
        result = await client.callTool({ name, arguments: input }, undefined, { timeout: MCP_CALL_TIMEOUT_MS });
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; server stderr: ${stderr.slice(-300)}`);
      }
      const text = result.content?.map((part) => part.text ?? "").join("\n") ?? "";
      if (result.isError) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
      return { structured: result.structuredContent, text };
    },
    close: () => client.close(),
  };
}

async function gitctxCall(toolbox, name, input) {
  const result = await toolbox.execute(name, input);
  if (!result.ok) throw new Error(`${name} failed: ${result.error.code}: ${result.error.message}`);
  return result;
}

/** Porcelain v2 `-z` records: one per changed path; a rename record carries its old path as an extra field. */
function countPorcelainV2(output) {
  const fields = output.split("\0");
  let count = 0;
  for (let i = 0; i < fields.length; i++) {
    const kind = fields[i].slice(0, 2);
    if (kind === "1 " || kind === "u " || kind === "? ") count++;
    else if (kind === "2 ") {
      count++;
      i++;
    }
  }
  return count;
}

const countPatchFiles = (patch) => patch.match(/^diff --git /gm)?.length ?? 0;
const countPorcelainBlameLines = (output) => output.match(/^\t/gm)?.length ?? 0;
/** git --porcelain gives a commit's header once, with its first line: a parser that misses that drops lines. */
const countPorcelainBlameCommits = (output) => new Set(output.match(/^[0-9a-f]{40,64}(?= )/gm)).size;

function cyanheadsStatusPaths(status) {
  const paths = new Set([...status.untrackedFiles, ...status.conflictedFiles]);
  for (const group of [status.stagedChanges, status.unstagedChanges]) {
    for (const list of Object.values(group)) for (const path of list) paths.add(path);
  }
  return paths.size;
}

/** The gitctx library and gitctx over MCP answer with the same data (MCP's structuredContent). */
function gitctxPeers(ctx, name, input, figure) {
  return {
    gitctx: { run: () => gitctxCall(ctx.toolbox, name, input), figure: (result) => figure(result.data) },
    gitctxMcp: { run: () => ctx.gitctxMcp.call(name, input), figure: (result) => figure(result.structured) },
  };
}

const NO_DIFF_IN_ISOMORPHIC = "no diff";
const NO_BLAME_IN_ISOMORPHIC = "no blame";

function blameOperation(ctx, id, label, range) {
  const { dir, blamePath } = ctx.repo;
  const lineArgs = range === undefined ? [] : [`-L${range[0]},${range[1]}`];
  const args = ["blame", "--porcelain", ...lineArgs, "--", blamePath];
  const gitctxInput = range === undefined ? { path: blamePath } : { path: blamePath, start_line: range[0], end_line: range[1] };
  const cyanheadsInput = { path: dir, filePath: blamePath, ...(range === undefined ? {} : { startLine: range[0], endLine: range[1] }) };
  return {
    id,
    label,
    figureName: "lines blamed",
    command: args,
    peers: {
      git: { run: () => runGit(dir, args), figure: countPorcelainBlameLines, details: { "distinct commits": countPorcelainBlameCommits } },
      ...gitctxPeers(ctx, "git_blame", gitctxInput, (data) => data.lines.length),
      simpleGit: { run: () => ctx.simpleGit.raw(args), figure: countPorcelainBlameLines, label: "raw" },
      isomorphicGit: { na: NO_BLAME_IN_ISOMORPHIC },
      cyanheads: { run: () => ctx.cyanheads.call("git_blame", cyanheadsInput), figure: (result) => result.structured.lines.length },
    },
  };
}

function operationsFor(ctx) {
  const { kind, dir, showCommit, blameRange } = ctx.repo;
  const blameRangeOperation = blameOperation(ctx, "blameRange", "blame range", blameRange);
  if (kind === "long-file") {
    return [blameRangeOperation, blameOperation(ctx, "blameWhole", "blame whole file")];
  }
  const summaryArgs = ["diff", "--raw", "--numstat", "-z", "--no-abbrev", "-M", "-C"];
  const patchArgs = ["diff", "-M", "-C"];
  const logArgs = ["log", "-z", "-20", COMMIT_FORMAT];
  const showArgs = ["show", showCommit];
  return [
    {
      id: "status",
      label: "status",
      figureName: "changed paths",
      command: STATUS_ARGS,
      peers: {
        git: { run: () => runGit(dir, STATUS_ARGS), figure: countPorcelainV2 },
        ...gitctxPeers(ctx, "git_status", {}, (data) => data.entries.length),
        simpleGit: { run: () => ctx.simpleGit.status(), figure: (status) => status.files.length },
        isomorphicGit: { run: () => ctx.isomorphicGit.call("status", dir), timedInside: true },
        cyanheads: {
          run: () => ctx.cyanheads.call("git_status", { path: dir, includeUntracked: true }),
          figure: (result) => cyanheadsStatusPaths(result.structured),
        },
      },
    },
    {
      id: "diffSummary",
      label: "diff summary",
      figureName: "changed files",
      command: summaryArgs,
      peers: {
        git: { run: () => runGit(dir, summaryArgs), figure: (output) => output.split("\0").filter((field) => field.startsWith(":")).length },
        ...gitctxPeers(ctx, "git_diff", { stat: true }, (data) => data.files.length),
        simpleGit: { run: () => ctx.simpleGit.diffSummary(), figure: (summary) => summary.files.length },
        isomorphicGit: { na: NO_DIFF_IN_ISOMORPHIC },
        cyanheads: { run: () => ctx.cyanheads.call("git_diff", { path: dir, stat: true }), figure: (result) => result.structured.filesChanged },
      },
    },
    {
      id: "diffPatch",
      label: "diff patch",
      figureName: "changed files",
      command: patchArgs,
      peers: {
        git: { run: () => runGit(dir, patchArgs), figure: countPatchFiles },
        ...gitctxPeers(ctx, "git_diff", {}, (data) => data.files.length),
        simpleGit: { run: () => ctx.simpleGit.diff(), figure: countPatchFiles },
        isomorphicGit: { na: NO_DIFF_IN_ISOMORPHIC },
        cyanheads: { run: () => ctx.cyanheads.call("git_diff", { path: dir }), figure: (result) => countPatchFiles(result.structured.diff) },
      },
    },
    {
      id: "log",
      label: "log (20)",
      figureName: "commits",
      command: logArgs,
      peers: {
        git: { run: () => runGit(dir, logArgs), figure: (output) => Math.floor(output.split("\0").length / 11) },
        ...gitctxPeers(ctx, "git_log", { count: 20 }, (data) => data.commits.length),
        simpleGit: { run: () => ctx.simpleGit.log({ maxCount: 20 }), figure: (log) => log.all.length },
        isomorphicGit: { run: () => ctx.isomorphicGit.call("log", dir), timedInside: true },
        cyanheads: { run: () => ctx.cyanheads.call("git_log", { path: dir, maxCount: 20 }), figure: (result) => result.structured.commits.length },
      },
    },
    {
      id: "show",
      label: "show commit",
      figureName: "files in the commit's diff",
      command: showArgs,
      peers: {
        git: { run: () => runGit(dir, showArgs), figure: countPatchFiles },
        ...gitctxPeers(ctx, "git_show", { commit: showCommit }, (data) => data.diff.files.length),
        simpleGit: { run: () => ctx.simpleGit.show([showCommit]), figure: countPatchFiles },
        isomorphicGit: { na: "readCommit has no diff" },
        cyanheads: {
          run: () => ctx.cyanheads.call("git_show", { path: dir, object: showCommit }),
          figure: (result) => countPatchFiles(result.structured.content),
        },
      },
    },
    blameRangeOperation,
  ];
}

/** One call: its duration and the figure its answer gives (paths, files, commits or lines). */
async function sample(entry) {
  const start = performance.now();
  const answer = await entry.run();
  const ms = performance.now() - start;
  if (entry.timedInside) return answer;
  const details = Object.entries(entry.details ?? {}).map(([name, count]) => [name, count(answer)]);
  return { ms, figure: entry.figure(answer), details: details.length === 0 ? undefined : Object.fromEntries(details) };
}

function describeError(error, ctx) {
  const text = error instanceof Error ? error.message : String(error);
  return sanitize(text, ctx).replace(/\s+/g, " ").trim().slice(0, 240);
}

/** Markdown and results must not carry this machine's paths. */
function sanitize(text, ctx) {
  return text.replaceAll(ctx.repo.dir, "<repo>").replaceAll(projectRoot, ".").replaceAll(tmpdir(), "<tmp>");
}

function p90(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.9) - 1)];
}

/**
 * Checks every peer's first answer against plain git's, then runs rounds in which every peer is called once,
 * starting one peer later each round. Returns per peer: samples, median, p90, figure and any note or error.
 */
async function measure(ctx, operation, iterations, warmup) {
  const results = {};
  const active = [];
  for (const peer of PEERS) {
    const entry = operation.peers[peer.id];
    if (entry.na !== undefined) {
      results[peer.id] = { na: entry.na };
      continue;
    }
    try {
      const first = await sample(entry);
      const rounds = Math.min(iterations, Math.max(MIN_ROUNDS, Math.floor(PEER_BUDGET_MS / first.ms)));
      results[peer.id] = { samples: [], firstCallMs: first.ms, figure: first.figure, details: first.details, label: entry.label ?? null, rounds };
      if (first.ms > FIRST_CALL_BUDGET_MS) {
        results[peer.id].samples.push(first.ms);
        results[peer.id].rounds = 1;
        results[peer.id].budgetNote = `its first call took ${(first.ms / 1000).toFixed(1)} s, so it was measured once`;
      } else {
        active.push(peer.id);
        if (rounds < iterations)
          results[peer.id].budgetNote = `its first call took ${(first.ms / 1000).toFixed(1)} s, so it ran in the first ${rounds} rounds only`;
      }
    } catch (error) {
      results[peer.id] = { error: describeError(error, ctx) };
    }
  }
  const reference = results.git.figure;
  if (reference === 0) results.git = { error: `found no ${operation.figureName}: the repository is not what the benchmark expects` };
  if (results.git.error !== undefined) {
    // Without the floor there is nothing to compare with.
    for (const id of active) results[id] = { skipped: "plain git failed" };
    return results;
  }
  for (const peer of PEERS) {
    const result = results[peer.id];
    if (result.figure !== undefined && result.figure !== reference) {
      result.mismatch = `answered ${formatCount(result.figure)} ${operation.figureName} where plain git answers ${formatCount(reference)}`;
      for (const [name, count] of Object.entries(results.git.details ?? {})) {
        if (count === result.figure) result.mismatch += ` (as many as the ${name} in plain git's answer)`;
      }
    }
  }

  for (let round = 0; round < warmup - 1 + iterations; round++) {
    const shift = round % active.length;
    for (const id of [...active.slice(shift), ...active.slice(0, shift)]) {
      if (results[id].samples.length >= results[id].rounds) continue;
      try {
        const { ms } = await sample(operation.peers[id]);
        if (round >= warmup - 1) results[id].samples.push(ms);
      } catch (error) {
        results[id] = { error: describeError(error, ctx) };
        active.splice(active.indexOf(id), 1);
      }
    }
  }
  for (const result of Object.values(results)) {
    if (result.samples === undefined) continue;
    result.median = median(result.samples);
    result.p90 = p90(result.samples);
    result.ratio = result.median / results.git.median;
  }
  return results;
}

async function tokenCounts(ctx) {
  const { dir, blamePath, blameRange } = ctx.repo;
  const git = (...args) => runGit(dir, args);
  const cyanheadsText = async (calls) =>
    (await Promise.all(calls.map(([name, input]) => ctx.cyanheads.call(name, { path: dir, ...input })))).map((r) => r.text).join("\n");
  const gitctxText = async (name, input) => (await gitctxCall(ctx.toolbox, name, input)).text;
  const range = `${blameRange[0]},${blameRange[1]}`;
  const rows = [
    {
      id: "status",
      gitCommand: "git status",
      gitctx: () => gitctxText("git_status", {}),
      git: () => git("status"),
      cyanheads: () => cyanheadsText([["git_status", { includeUntracked: true }]]),
    },
    {
      id: "diff",
      gitCommand: "git diff",
      gitctx: () => gitctxText("git_diff", {}),
      git: () => git("diff"),
      cyanheads: () => cyanheadsText([["git_diff", {}]]),
    },
    {
      id: "log",
      gitCommand: "git log -20",
      gitctx: () => gitctxText("git_log", { count: 20 }),
      git: () => git("log", "-20"),
      cyanheads: () => cyanheadsText([["git_log", { maxCount: 20 }]]),
    },
    {
      id: "blame",
      gitCommand: `git blame -L ${range} <file>`,
      gitctx: () => gitctxText("git_blame", { path: blamePath, start_line: blameRange[0], end_line: blameRange[1] }),
      git: () => git("blame", `-L${range}`, "--", blamePath),
      cyanheads: () => cyanheadsText([["git_blame", { filePath: blamePath, startLine: blameRange[0], endLine: blameRange[1] }]]),
    },
    {
      id: "snapshot",
      gitCommand: "git status; git log -20; git branch -vv; git stash list; git remote -v; git worktree list",
      gitctx: () => gitctxText("git_context", {}),
      git: async () =>
        (
          await Promise.all([
            git("status"),
            git("log", "-20"),
            git("branch", "-vv"),
            git("stash", "list"),
            git("remote", "-v"),
            git("worktree", "list"),
          ])
        ).join("\n"),
      cyanheads: () =>
        cyanheadsText([
          ["git_status", { includeUntracked: true }],
          ["git_log", { maxCount: 20 }],
          ["git_branch", { mode: "list" }],
          ["git_stash", { mode: "list" }],
          ["git_remote", { mode: "list" }],
          ["git_worktree", { mode: "list" }],
        ]),
    },
  ];
  const counted = [];
  for (const row of rows) {
    const entry = { id: row.id, gitCommand: row.gitCommand };
    for (const source of ["gitctx", "git", "cyanheads"]) {
      try {
        entry[source] = await countTokens(await row[source]());
      } catch (error) {
        entry[source] = { error: describeError(error, ctx) };
      }
    }
    counted.push(entry);
  }
  return counted;
}

async function openContext(repo, scratch, isomorphicGitChild) {
  const env = { ...process.env, MCP_TRANSPORT_TYPE: "stdio", MCP_LOG_LEVEL: "error" };
  return {
    repo,
    toolbox: createToolbox({ root: repo.dir }),
    gitctxMcp: await connectMcp(process.execPath, [gitctxMain, "mcp", "--root", repo.dir]),
    // cwd outside the repository: the server may write logs next to where it runs.
    cyanheads: await connectMcp(process.execPath, [cyanheadsMain], { env, cwd: scratch }),
    simpleGit: simpleGit({ baseDir: repo.dir }),
    isomorphicGit: isomorphicGitChild,
  };
}

function versions() {
  const found = {};
  for (const [name, path] of Object.entries(PACKAGES)) {
    found[name] = JSON.parse(readFileSync(join(projectRoot, path, "package.json"), "utf8")).version;
  }
  return found;
}

// ---- markdown ----

function formatMs(ms) {
  if (ms < 10) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return Math.round(ms).toLocaleString("en-US");
}

const formatRatio = (ratio) => `${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(0)}×`;
const formatCount = (value) => (typeof value === "number" ? value.toLocaleString("en-US") : `error: ${value.error}`);
const showCommand = (args) =>
  `\`git ${args.map((arg) => (arg === COMMIT_FORMAT ? "--format=$F" : /^[0-9a-f]{40}$/.test(arg) ? "<showCommit>" : arg)).join(" ")}\``;

function repositoryTable(entry) {
  const notes = [];
  const note = (text) => {
    notes.push(text);
    return ` [${notes.length}]`;
  };
  const lines = [
    `### ${entry.kind}: ${entry.description}`,
    "",
    `${entry.iterations} rounds after ${entry.warmup} warm-up round${entry.warmup === 1 ? "" : "s"}` +
      "; each cell is the median in ms and, in brackets, the ratio to plain git's median.",
    "",
    `| operation | plain git command | plain git ms | ${PEERS.slice(1)
      .map((peer) => peer.name)
      .join(" | ")} |`,
    `|---|---|---:|${PEERS.slice(1)
      .map(() => "---:")
      .join("|")}|`,
  ];
  for (const operation of entry.operations) {
    const git = operation.peers.git;
    const cells = PEERS.slice(1).map((peer) => {
      const result = operation.peers[peer.id];
      if (result.na !== undefined) return `n/a: ${result.na}`;
      if (result.skipped !== undefined) return "–";
      if (result.error !== undefined) return `error${note(`${peer.name}, ${operation.label}: ${result.error}`)}`;
      let cell = `${formatMs(result.median)} (${formatRatio(result.ratio)})`;
      if (result.label) cell += ` ${result.label}`;
      if (result.budgetNote) cell += note(`${peer.name}, ${operation.label}: ${result.budgetNote}.`);
      if (result.mismatch) cell += note(`${peer.name}, ${operation.label}: ${result.mismatch}.`);
      return cell;
    });
    const floor = git.error === undefined ? formatMs(git.median) : `error${note(`plain git, ${operation.label}: ${git.error}`)}`;
    lines.push(`| ${operation.label} | ${showCommand(operation.command)} | ${floor} | ${cells.join(" | ")} |`);
  }
  lines.push("");
  for (const [index, text] of notes.entries()) lines.push(`[${index + 1}] ${text}  `);
  if (notes.length > 0) lines.push("");
  return lines;
}

function tokenTable(repositories) {
  const lines = [
    "## Tokens: the same information, as an agent would read it",
    "",
    "o200k tokens of gitctx's `text`, of git's own default human output (what an agent would run in a shell), and of " +
      "@cyanheads/git-mcp-server's answer (its JSON text) to the same calls. gitctx's diff is capped at 20,000 bytes " +
      "(with a summary of every file), the other two are the whole patch.",
    "",
    "| repository | information | gitctx | git (human) | git command | cyanheads MCP |",
    "|---|---|---:|---:|---|---:|",
  ];
  for (const entry of repositories) {
    if (entry.tokens === undefined) continue;
    for (const row of entry.tokens) {
      lines.push(
        `| ${entry.kind} | ${row.id} | ${formatCount(row.gitctx)} | ${formatCount(row.git)} | \`${row.gitCommand}\` | ${formatCount(row.cyanheads)} |`,
      );
    }
  }
  lines.push("");
  return lines;
}

function growthTable(small, large) {
  const peers = PEERS.filter((peer) => peer.id !== "git");
  const lines = [
    "## Growth: small to large",
    "",
    `The gitctx library's ratio to plain git on ${small.kind} and ${large.kind}, then for every peer the cost multiplier ` +
      `from ${small.kind} to ${large.kind} (median on ${large.kind} / median on ${small.kind}).`,
    "",
    `| operation | gitctx ratio, ${small.kind} | gitctx ratio, ${large.kind} | plain git × | ${peers.map((peer) => `${peer.name} ×`).join(" | ")} |`,
    `|---|---:|---:|---:|${peers.map(() => "---:").join("|")}|`,
  ];
  for (const operation of small.operations) {
    const other = large.operations.find((candidate) => candidate.id === operation.id);
    if (other === undefined) continue;
    const growth = (id) => {
      const before = operation.peers[id];
      const after = other.peers[id];
      if (before.median === undefined || after.median === undefined) return "–";
      return `${(after.median / before.median).toFixed(1)}×`;
    };
    const ratio = (result) => (result.ratio === undefined ? "–" : formatRatio(result.ratio));
    lines.push(
      `| ${operation.label} | ${ratio(operation.peers.gitctx)} | ${ratio(other.peers.gitctx)} | ${growth("git")} | ${peers.map((peer) => growth(peer.id)).join(" | ")} |`,
    );
  }
  lines.push("");
  return lines;
}

function findings(repositories) {
  const lines = ["## What the figures say", ""];
  let mcpOutranLibrary = false;
  const signed = (ms) => `${ms < 0 ? "−" : "+"}${formatMs(Math.abs(ms))}`;
  for (const entry of repositories) {
    const fastest = entry.operations.flatMap((operation) => {
      const [best] = PEERS.filter((peer) => peer.id !== "git" && operation.peers[peer.id].ratio !== undefined).sort(
        (a, b) => operation.peers[a.id].median - operation.peers[b.id].median,
      );
      return best === undefined ? [] : [`${operation.label}: ${best.name} (${formatRatio(operation.peers[best.id].ratio)})`];
    });
    lines.push(`- **${entry.kind}**, fastest after plain git: ${fastest.join("; ")}.`);
    const behind = entry.operations.filter((operation) => operation.peers.gitctx.ratio > TARGET_RATIO);
    lines.push(
      behind.length === 0
        ? `  The gitctx library is within the ${TARGET_RATIO}× target of plain git on every operation.`
        : `  The gitctx library is behind the ${TARGET_RATIO}× target on: ${behind
            .map(
              (operation) =>
                `${operation.label} (${formatRatio(operation.peers.gitctx.ratio)}, ${signed(operation.peers.gitctx.median - operation.peers.git.median)} ms)`,
            )
            .join("; ")}.`,
    );
    const overheads = entry.operations
      .filter((operation) => operation.peers.gitctxMcp.median !== undefined && operation.peers.gitctx.median !== undefined)
      .map((operation) => operation.peers.gitctxMcp.median - operation.peers.gitctx.median);
    if (overheads.length > 0) {
      mcpOutranLibrary ||= Math.min(...overheads) < 0;
      lines.push(
        `  gitctx over MCP stdio against the library in-process: ${signed(Math.min(...overheads))} to ${signed(Math.max(...overheads))} ms per call.`,
      );
    }
  }
  const wrong = repositories.flatMap((entry) =>
    entry.operations.flatMap((operation) =>
      PEERS.filter((peer) => operation.peers[peer.id].mismatch !== undefined).map(
        (peer) => `${peer.name}, ${entry.kind} ${operation.label}: ${operation.peers[peer.id].mismatch}`,
      ),
    ),
  );
  const failed = repositories.flatMap((entry) =>
    entry.operations.flatMap((operation) =>
      PEERS.filter((peer) => operation.peers[peer.id].error !== undefined).map((peer) => `${peer.name}, ${entry.kind} ${operation.label}`),
    ),
  );
  if (mcpOutranLibrary) {
    lines.push("", "Where gitctx over MCP stdio beat the library in-process, the JSON round trip cost less than this machine's run-to-run noise.");
  }
  if (wrong.length > 0) lines.push("", `Answers that differ from plain git's: ${wrong.join("; ")}.`);
  if (failed.length > 0) lines.push("", `Calls that failed (see the notes under the tables): ${failed.join("; ")}.`);
  lines.push("");
  return lines;
}

function renderMarkdown(data) {
  const byKind = Object.fromEntries(data.repositories.map((entry) => [entry.kind, entry]));
  const lines = [
    "## Side by side: gitctx, plain git and other git layers",
    "",
    "The same operations on the same repository through each peer, one call per peer per round in a rotating " +
      "order. Plain git is the floor: the single git command that does the same work as gitctx's git, spawned from " +
      "Node and read whole. gitctx runs one git process for each of these operations (its config scan and its " +
      "private index copy are kept between calls while the files they depend on are unchanged) and answers with " +
      "parsed data plus text, its patches capped at 20,000 bytes (the default); simple-git, isomorphic-git and cyanheads answer with their own " +
      "shapes, whole. The blame range is the `-L` of the command column. Every peer's answer was " +
      "checked against plain git's once per operation (same number of paths, files, commits or lines) and any " +
      "difference is noted. simple-git has no blame method: its blame is `git.raw([...])` (marked raw). " +
      "isomorphic-git has no diff and no blame (only walk() over trees, comparing blobs yourself), and its " +
      "readCommit gives a commit without its diff, so those cells are n/a. isomorphic-git runs in a child " +
      "process and is timed there, around the library call: its index cache for 100k files would otherwise grow " +
      "the benchmark's heap, and every later spawn of git (by plain git, the gitctx library and simple-git) " +
      "slows with the size of the process it forks from. " +
      "`$F` is gitctx's log format: `" +
      COMMIT_FORMAT.slice("--format=".length) +
      "`. All peers ran with " +
      "`GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_OPTIONAL_LOCKS=0`.",
    "",
  ];
  for (const entry of data.repositories) lines.push(...repositoryTable(entry));
  lines.push(...tokenTable(data.repositories));
  if (byKind.small && byKind.large) lines.push(...growthTable(byKind.small, byKind.large));
  lines.push(...findings(data.repositories));
  return lines.join("\n");
}

// ---- main ----

async function main() {
  const runStart = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), "gitctx-bench-compare-"));
  const isomorphicGitChild = startIsomorphicGit();
  const data = {
    quick: QUICK,
    targetRatio: TARGET_RATIO,
    firstCallBudgetMs: FIRST_CALL_BUDGET_MS,
    peers: PEERS,
    versions: { ...versions(), node: process.version, git: (await runGit(projectRoot, ["--version"])).trim() },
    repositories: [],
  };
  const withContext = async (repo, action) => {
    const ctx = await openContext(repo, scratch, isomorphicGitChild);
    try {
      return await action(ctx);
    } finally {
      await Promise.allSettled([ctx.gitctxMcp.close(), ctx.cyanheads.close()]);
    }
  };
  try {
    for (const kind of ["small", "large", "long-file"]) {
      const repo = await ensureRepository(kind);
      const plan = PLAN[kind];
      const entry = {
        kind,
        description: repo.description,
        files: repo.files,
        commits: repo.commits,
        blamePath: repo.blamePath,
        blameRange: repo.blameRange,
        showCommit: repo.showCommit,
        iterations: plan.iterations,
        warmup: plan.warmup,
        operations: [],
      };
      await withContext(repo, async (ctx) => {
        entry.description = sanitize(repo.description, ctx);
        for (const operation of operationsFor(ctx)) {
          const started = performance.now();
          const peers = await measure(ctx, operation, plan.iterations, plan.warmup);
          entry.operations.push({ id: operation.id, label: operation.label, figureName: operation.figureName, command: operation.command, peers });
          const summary = PEERS.map((peer) => `${peer.id} ${peers[peer.id].median === undefined ? "-" : formatMs(peers[peer.id].median)}`).join(", ");
          console.error(`${kind} ${operation.label}: ${summary} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
        }
      });
      data.repositories.push(entry);
    }
    // Last, once every timing is done: the tokenizer's tables would grow this process like isomorphic-git's cache.
    for (const entry of data.repositories.filter((candidate) => candidate.kind !== "long-file")) {
      entry.tokens = await withContext(await ensureRepository(entry.kind), tokenCounts);
    }
  } finally {
    isomorphicGitChild.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  data.totalSeconds = (performance.now() - runStart) / 1000;

  const markdown = renderMarkdown(data);
  mkdirSync(join(here, ".results"), { recursive: true });
  writeFileSync(join(here, ".results", "compare.json"), `${JSON.stringify({ title: "Side by side", markdown, data }, null, 2)}\n`);
  console.log(markdown);
  console.error(`compare.mjs: ${data.totalSeconds.toFixed(0)} s`);
}

if (process.argv[2] === ISOMORPHIC_CHILD) serveIsomorphicGit();
else await main();
