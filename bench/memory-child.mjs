// One measurement for bench/memory.mjs, alone in a fresh process because peak RSS is per process:
// `node bench/memory-child.mjs <approach> <repository dir>` asks for the repository's whole unstaged diff in one
// way and prints { callMs, maxRssKiB, bytes, ... } (or { error }) as JSON on stdout.
// Approaches: baseline (asks nothing), gitctx, plain-git, simple-git.
import { spawn } from "node:child_process";

const [approach, dir] = process.argv.slice(2);

/** Each approach loads what it needs first, so the timed call is the diff alone. */
const APPROACHES = {
  baseline: async () => () => ({ bytes: 0 }),

  gitctx: async () => {
    const { createToolbox } = await import("../dist/index.js");
    const toolbox = createToolbox({ root: dir });
    return async () => {
      const result = await toolbox.execute("git_diff", {});
      if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
      return { bytes: result.data.returnedBytes, truncated: result.data.truncated, files: result.data.files.length };
    };
  },

  // What a naive wrapper does: keep every chunk, concatenate at the end.
  "plain-git": async () => () =>
    new Promise((resolve, reject) => {
      const child = spawn("git", ["diff"], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
      const chunks = [];
      child.stdout.on("data", (chunk) => chunks.push(chunk));
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve({ bytes: Buffer.concat(chunks).length }) : reject(new Error(`git diff exited ${code}`))));
    }),

  "simple-git": async () => {
    const { simpleGit } = await import("simple-git");
    return async () => ({ bytes: Buffer.byteLength(await simpleGit(dir).diff()) });
  },
};

if (!(approach in APPROACHES) || dir === undefined) {
  process.stderr.write(`usage: node bench/memory-child.mjs <${Object.keys(APPROACHES).join("|")}> <repository dir>\n`);
  process.exit(2);
}
const call = await APPROACHES[approach]();
const start = performance.now();
let outcome;
try {
  outcome = await call();
} catch (error) {
  outcome = { error: String(error?.message ?? error).slice(0, 300) };
}
const callMs = performance.now() - start;
process.stdout.write(JSON.stringify({ approach, callMs, maxRssKiB: process.resourceUsage().maxRSS, ...outcome }));
