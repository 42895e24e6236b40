// Git LFS: what gitctx's own clean filter costs. A generated LFS repository (the user's `git lfs install` set-up,
// pointers in the index, content in the work tree) with every LFS file touched, so each git status and diff must
// re-read them through the clean filter. Side by side in one run, rounds rotating the order: plain `git status` /
// `git diff` with the real git-lfs (the user's answer; GIT_OPTIONAL_LOCKS=0 so it does not refresh the index and
// every round does the same work), gitctx's git_status / git_diff (one session, its filter computing the pointers),
// and gitctx with the user's config left out (no LFS: the filter switched off, as before; a wrong answer, shown for
// the cost). Medians in ms and ratios to plain git with git-lfs.
// Part of `npm run bench`; alone: `npm run build && node bench/lfs.mjs`. Writes bench/.results/lfs.json.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToolbox } from "../dist/index.js";
import { median } from "./shared.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const QUICK = process.env.BENCH_QUICK === "1";
const ROUNDS = QUICK ? 5 : 20;
/** LFS files and their sizes: many small ones (each a round trip of the filter protocol) and one large one. */
const FILES = [...Array.from({ length: 50 }, (_, i) => [`assets/img-${i}.bin`, 64 * 1024]), ["model.bin", 32 * 1024 * 1024]];
const gitLfs = spawnSync("git-lfs", ["version"], { encoding: "utf8" });
if (gitLfs.status !== 0) {
  process.stderr.write("lfs: git-lfs is not installed (apt-get install git-lfs); the plain git peer needs it. Skipped.\n");
  process.exit(0);
}

const base = mkdtempSync(join(tmpdir(), "gitctx-bench-lfs-"));
const home = join(base, "home");
mkdirSync(home);
writeFileSync(
  join(home, ".gitconfig"),
  '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n',
);
const env = {
  PATH: process.env.PATH,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  LC_ALL: "C.UTF-8",
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.com",
};
const dir = join(base, "repo");
const git = (args, extra = {}) =>
  execFileSync("git", args, { cwd: dir, env: { ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 });

function setUp() {
  execFileSync("git", ["-c", "init.defaultBranch=main", "init", "-q", dir], { env });
  writeFileSync(join(dir, ".gitattributes"), "*.bin filter=lfs diff=lfs merge=lfs -text\n");
  let seed = 1;
  for (const [path, size] of FILES) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4) bytes.writeUInt32LE((seed = (seed * 1103515245 + 12345) >>> 0), i);
    writeFileSync(join(dir, path), bytes);
  }
  git(["add", "-A"]);
  git(["commit", "-q", "-m", "assets"]);
  const later = Math.floor(Date.now() / 1000) + 60;
  for (const [path] of FILES) utimesSync(join(dir, path), later, later);
}

const time = async (work) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

setUp();
const lfsSession = createToolbox({ root: dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
const offSession = createToolbox({ root: dir, userConfig: false });
const call = async (toolbox, tool, check) => {
  const result = await toolbox.execute(tool, {});
  if (!result.ok) throw new Error(`${tool}: ${result.error.message}`);
  check?.(result.data);
};
const clean = (data) => {
  if (data.entries.length !== 0) throw new Error("gitctx reported touched LFS files as changed");
};
const peers = {
  "plain git status (git-lfs)": () => git(["status", "--porcelain=v2"], { GIT_OPTIONAL_LOCKS: "0" }),
  "gitctx git_status": () => call(lfsSession, "git_status", clean),
  "gitctx git_status, LFS off": () => call(offSession, "git_status"),
  "plain git diff (git-lfs)": () => git(["diff", "--stat"], { GIT_OPTIONAL_LOCKS: "0", GIT_INDEX_FILE: join(base, "index-copy") }),
  "gitctx git_diff": () => call(lfsSession, "git_diff"),
  "gitctx git_diff, new session": async () => {
    const toolbox = createToolbox({ root: dir, userConfig: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } });
    try {
      await call(toolbox, "git_diff");
    } finally {
      await toolbox.close();
    }
  },
};
const samples = Object.fromEntries(Object.keys(peers).map((name) => [name, []]));
const names = Object.keys(peers);
try {
  for (let round = -1; round < ROUNDS; round++) {
    // git diff writes its index back even with GIT_OPTIONAL_LOCKS=0: plain git's runs on a fresh copy each round,
    // as gitctx's runs on its private copy (which it keeps, as git keeps its own index: that is the point of it).
    execFileSync("cp", ["-p", join(dir, ".git", "index"), join(base, "index-copy")]);
    const order = names.map((_, i) => names[(i + round + 1) % names.length]);
    for (const name of order) {
      const ms = await time(peers[name]);
      if (round >= 0) samples[name].push(ms);
    }
  }
} finally {
  await lfsSession.close();
  await offSession.close();
  rmSync(base, { recursive: true, force: true });
}

const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
const status = medians["plain git status (git-lfs)"];
const diff = medians["plain git diff (git-lfs)"];
const row = (name, reference) => `| ${name} | ${medians[name].toFixed(0)} | ${(medians[name] / reference).toFixed(2)}x |`;
const markdown = `## Git LFS: gitctx's own clean filter against git-lfs

A generated LFS repository (${FILES.length - 1} files of 64 KiB and one of 32 MiB tracked by LFS, the user's
\`git lfs install\` set-up), every LFS file touched so that each status and diff re-reads all of them through the
clean filter. Plain git runs the real ${gitLfs.stdout.trim().split(" ")[0]} (with \`GIT_OPTIONAL_LOCKS=0\`, so it never
refreshes the index and each round does the same work); gitctx runs its own filter (one Node process per git
process, the pointers computed in it; nothing of the config runs). "LFS off" is gitctx with the user's config left
out: the filter switched off, as before this change, and a wrong answer (every touched file "modified"): shown for
what the filter costs. Plain \`git diff\` runs on a fresh copy of the index each round; gitctx's \`git_diff\` in one
session keeps its private copy, which git refreshed on the first call (as the user's own index would be), and in a
new session each round starts from the repository's index, doing plain git's work (twice: the file list, then the
patch). ${ROUNDS} rounds in
rotating order after one warm-up, medians in ms, ${cpus().length} cores shared with other work.

| call | median ms | ratio to plain git with git-lfs |
|---|---:|---:|
${row("plain git status (git-lfs)", status)}
${row("gitctx git_status", status)}
${row("gitctx git_status, LFS off", status)}
${row("plain git diff (git-lfs)", diff)}
${row("gitctx git_diff", diff)}
${row("gitctx git_diff, new session", diff)}
`;
mkdirSync(join(here, ".results"), { recursive: true });
writeFileSync(
  join(here, ".results", "lfs.json"),
  JSON.stringify({ title: "Git LFS", markdown, data: { rounds: ROUNDS, files: FILES.length, medians } }, null, 2),
);
process.stdout.write(markdown);
