// Creating and removing a worktree with gitctx (the library's createWorktree / removeWorktree: discovery, the
// config scan, hardened `git worktree add`, gitctx's record, node_modules linked, info/exclude; then the loss
// checks, unlinking, the ref transaction and `git worktree remove --force`) against plain `git worktree add` /
// `git worktree remove` as a user runs them, side by side in one run, interleaved so machine noise hits both.
// Repositories: the bench's small and large ones (bench/repos.mjs), each cloned once into a temp directory
// (objects hard-linked, as a local clone does; a --shared clone borrows them through alternates, which gitctx
// refuses) with a 500-file node_modules, so the shared repositories stay as the other benchmarks expect them.
// Part of `npm run bench`; alone: `npm run build && node bench/worktree.mjs [small|large...]`. Writes
// bench/.results/worktree.json.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToolbox, createWorktree, removeWorktree } from "../dist/index.js";
import { ensureRepository } from "./repos.mjs";
import { median } from "./shared.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const QUICK = process.env.BENCH_QUICK === "1";
// Multiples of three: each order of the rotation equally often. The large repository's checkouts vary severalfold
// from round to round with the disk's writeback, so it gets as many rounds as the run's time allows.
const ROUNDS = { small: QUICK ? 6 : 30, large: QUICK ? 3 : 12 };
const TARGET = 1.2;
const PEERS = ["plain", "gitctx", "session"];
// Plain git and gitctx (which reads the user's config from this process's environment) read the same user config:
// none. A machine's system config may set up git-lfs, say, which would give one of them work the other has not.
process.env.GIT_CONFIG_NOSYSTEM = "1";
process.env.GIT_CONFIG_GLOBAL = "/dev/null";
const env = { ...process.env, LC_ALL: "C.UTF-8" };
for (const name of Object.keys(env)) if (name.startsWith("GIT_") && !["GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL"].includes(name)) delete env[name];

const git = (cwd, ...args) => execFileSync("git", args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 });
const time = (work) => {
  const start = performance.now();
  const result = work();
  return result instanceof Promise ? result.then(() => performance.now() - start) : Promise.resolve(performance.now() - start);
};

/** A clone of the bench repository (objects hard-linked, HEAD checked out) with a node_modules to link. */
function prepare(kind, source) {
  const base = mkdtempSync(join(tmpdir(), `gitctx-bench-worktree-${kind}-`));
  const dir = join(base, "repo");
  git(base, "clone", "-q", source, dir);
  git(dir, "config", "user.name", "Bench");
  git(dir, "config", "user.email", "bench@example.com");
  for (let i = 0; i < 500; i++) {
    const file = join(dir, "node_modules", `pkg-${i % 50}`, `file-${i}.js`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `module.exports = ${i};\n`);
  }
  // node_modules and the worktrees directory ignored for both, so plain git's status checks see the same tree.
  appendFileSync(join(dir, ".git", "info", "exclude"), "node_modules/\n/.claude/worktrees/\n");
  mkdirSync(join(dir, ".claude", "worktrees"), { recursive: true });
  return { base, dir };
}

async function measure(kind) {
  const repository = await ensureRepository(kind);
  const { base, dir } = prepare(kind, repository.dir);
  const rounds = ROUNDS[kind];
  const samples = { plainAdd: [], gitctxCreate: [], enter: [], plainRemove: [], plainRemoveAndBranch: [], gitctxRemove: [], exit: [] };
  // One session for the whole run, as an agent has: enter_worktree and exit_worktree through the tools.
  const toolbox = createToolbox({ root: dir, mode: "workspace-write" });
  const ok = async (result) => {
    if (!result.ok) throw new Error(`${result.tool}: ${result.error.message}`);
  };
  try {
    for (let round = -1; round < rounds; round++) {
      const plainPath = join(dir, ".claude", "worktrees", `plain-${round + 1}`);
      const name = `gitctx-${round + 1}`;
      // Rotated, so each takes each place in turn: a removal right after another one of 100,000 files waits for
      // the disk more than one right after the creates (an order that only alternated kept gitctx in the middle).
      const order = PEERS.map((_, i) => PEERS[(round + 1 + i) % PEERS.length]);
      const creates = {};
      for (const who of order) {
        if (who === "plain") creates.plain = await time(() => git(dir, "worktree", "add", "-q", "-b", `plain-${round + 1}`, plainPath, "HEAD"));
        else if (who === "gitctx") creates.gitctx = await time(() => createWorktree({ root: dir, name }));
        else creates.session = await time(async () => ok(await toolbox.execute("enter_worktree", { name: `session-${round + 1}` })));
      }
      const removes = {};
      for (const who of order) {
        if (who === "plain") {
          const alone = await time(() => git(dir, "worktree", "remove", plainPath));
          const branch = await time(() => git(dir, "branch", "-q", "-D", `plain-${round + 1}`));
          removes.plain = alone;
          removes.plainAndBranch = alone + branch;
        } else if (who === "gitctx") {
          removes.gitctx = await time(() => removeWorktree({ root: dir, name }));
        } else {
          removes.session = await time(async () => ok(await toolbox.execute("exit_worktree", { action: "remove" })));
        }
      }
      if (round < 0) continue; // Warm-up: caches of the file system and of Node.
      samples.plainAdd.push(creates.plain);
      samples.gitctxCreate.push(creates.gitctx);
      samples.plainRemove.push(removes.plain);
      samples.plainRemoveAndBranch.push(removes.plainAndBranch);
      samples.gitctxRemove.push(removes.gitctx);
      samples.enter.push(creates.session);
      samples.exit.push(removes.session);
    }
  } finally {
    await toolbox.close();
    rmSync(base, { recursive: true, force: true });
  }
  const m = Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)]));
  // Each round's own ratio, gitctx against plain git measured in the same round (so under the same load), then
  // their median: a second view, steadier when the machine's speed drifts over the run.
  const paired = (mine, theirs) => median(samples[mine].map((value, i) => value / samples[theirs][i]));
  return {
    kind,
    description: repository.description,
    files: repository.files,
    rounds,
    medians: m,
    createRatio: m.gitctxCreate / m.plainAdd,
    removeRatio: m.gitctxRemove / m.plainRemove,
    removeRatioSameEnd: m.gitctxRemove / m.plainRemoveAndBranch,
    enterRatio: m.enter / m.plainAdd,
    exitRatio: m.exit / m.plainRemove,
    exitRatioSameEnd: m.exit / m.plainRemoveAndBranch,
    pairedRatios: {
      create: paired("gitctxCreate", "plainAdd"),
      removeSameEnd: paired("gitctxRemove", "plainRemoveAndBranch"),
      enter: paired("enter", "plainAdd"),
      exitSameEnd: paired("exit", "plainRemoveAndBranch"),
    },
  };
}

/** What starting one git process costs here (from this process): each peer pays it per process it starts. */
function launchCost() {
  const times = [];
  for (let i = 0; i < 21; i++) {
    const start = performance.now();
    git(tmpdir(), "--version");
    times.push(performance.now() - start);
  }
  return median(times);
}

const started = performance.now();
const launchMs = launchCost();
const results = [];
const kinds = process.argv.length > 2 ? process.argv.slice(2) : ["small", "large"];
for (const kind of kinds) {
  results.push(await measure(kind));
  process.stderr.write(`worktree: ${kind} done\n`);
}
const totalSeconds = (performance.now() - started) / 1000;

const ms = (value) => value.toFixed(0);
const ratio = (value) => `${value.toFixed(2)}x`;
const rows = results.flatMap((r) => [
  `| ${r.kind} (${r.files.toLocaleString("en-US")} files) | create | ${ms(r.medians.plainAdd)} | ${ms(r.medians.gitctxCreate)} (**${ratio(r.createRatio)}**) | ${ms(r.medians.enter)} (**${ratio(r.enterRatio)}**) |`,
  `| ${r.kind} | remove | ${ms(r.medians.plainRemove)}; with \`git branch -D\`: ${ms(r.medians.plainRemoveAndBranch)} | ${ms(r.medians.gitctxRemove)} (**${ratio(r.removeRatio)}**; ${ratio(r.removeRatioSameEnd)}) | ${ms(r.medians.exit)} (**${ratio(r.exitRatio)}**; ${ratio(r.exitRatioSameEnd)}) |`,
]);
const worst = Math.max(...results.flatMap((r) => [r.createRatio, r.removeRatioSameEnd, r.enterRatio, r.exitRatioSameEnd]));
const markdown = `## Worktrees: create and remove against plain git

Plain \`git worktree add -b <branch> <path> HEAD\` and \`git worktree remove <path>\` run as a user would, against
gitctx: the library's \`createWorktree\` / \`removeWorktree\` (each call a short session of its own: discovery and
the config scan included), and \`enter_worktree\` / \`exit_worktree {"action":"remove"}\` in one long-lived session
(as an agent calls them: the lock, the move of the session's root). gitctx's create runs \`git worktree add\`
hardened (it checks out itself: the repository has no worktree config), writes its record and links a 500-file
\`node_modules\`; its remove checks for losses (\`git status\` in the worktree and the commits no other ref has) while
git prepares the ref transaction that detaches the worktree and deletes the branch, commits it, unlinks, then runs
\`git worktree remove --force\`. Each repository is cloned once (objects hard-linked); rounds
interleave the three, rotating the order so each takes each place equally often, after one warm-up round. Medians in ms, ${cpus().length} cores
shared with other work. Target: at most ${TARGET}x.

| repository | operation | plain git | library (ratio) | session tools (ratio) |
|---|---|---:|---:|---:|
${rows.join("\n")}

Plain \`git worktree remove\` keeps the branch; gitctx also deletes the branch it made, so the second remove ratio
is against \`git worktree remove\` followed by \`git branch -D\` (the same end state). Worst of the create ratios
and same-end-state remove ratios: ${ratio(worst)} (${worst <= TARGET ? "within" : "above"} the ${TARGET}x target).

Each round's own ratio (gitctx against plain git in the same round, so under the same load), median over the
rounds, as a second view of the same samples: ${results
  .map(
    (r) =>
      `${r.kind}: create ${ratio(r.pairedRatios.create)} (library) and ${ratio(r.pairedRatios.enter)} (session), ` +
      `remove ${ratio(r.pairedRatios.removeSameEnd)} and ${ratio(r.pairedRatios.exitSameEnd)} (same end state)`,
  )
  .join("; ")}.

Starting one \`git --version\` from this process took ${launchMs.toFixed(1)} ms (median of 21) in this run: the unit
every peer pays per git process it starts from Node (a process git starts itself costs it far less). The library's
create starts two where plain git starts one: the config listing comes first, so every later process runs hardened
against what it names. Its remove starts four, three of them one after the other (the ref transaction starts
beside the status), where plain git starts two from Node (\`git worktree remove\`, which runs its own status, and
\`git branch -D\`). The session tools list the config once per session, as an agent's session does, and start one
process fewer per call.
`;
mkdirSync(join(here, ".results"), { recursive: true });
writeFileSync(
  join(here, ".results", "worktree.json"),
  JSON.stringify({ title: "Worktrees", markdown, data: { target: TARGET, launchMs, results, totalSeconds } }, null, 2),
);
process.stdout.write(markdown);
