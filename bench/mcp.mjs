// The round trip of git_status over MCP: a real `gitctx mcp` child process driven by the SDK's Client over
// stdio, against calling the library in-process (and, to split the cost, the MCP server in-process over a
// linked in-memory transport). Interleaved, so the noise of a shared machine hits every case alike. Writes
// its section of bench/results.md (replacing an earlier one). Run with `npm run bench` (builds first, runs
// bench/run.mjs then this) or, after `npm run build`, `node bench/mcp.mjs`.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createToolbox } from "../dist/index.js";
import { createMcpServer } from "../dist/mcp/server.js";
import { makeRepository, median } from "./shared.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = 5;
const here = dirname(fileURLToPath(import.meta.url));
const main = join(here, "..", "dist", "cli", "main.js");
const version = JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8")).version;
const HEADER = "## git_status round trip: MCP over stdio against the library in-process";



async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

if (!existsSync(main)) throw new Error(`${main} does not exist: run "npm run build" first.`);
const dir = makeRepository(2000, "gitctx-bench-mcp-");

const toolbox = createToolbox({ root: dir });
const stdio = new Client({ name: "gitctx-bench", version });
await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [main, "mcp", "--root", dir], stderr: "ignore" }));
const memory = new Client({ name: "gitctx-bench", version });
const server = createMcpServer({ version, root: dir });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.server.connect(serverSide);
await memory.connect(clientSide);
for (const client of [stdio, memory]) await client.listTools(); // so each client checks structuredContent, as a real one may

const expected = await toolbox.execute("git_status", {});
if (!expected.ok) throw new Error(`git_status failed: ${JSON.stringify(expected.error)}`);
const cases = [
  { name: "library in-process: `toolbox.execute(\"git_status\")`", run: () => toolbox.execute("git_status", {}) },
  { name: "MCP in-process: SDK Client over a linked in-memory transport", run: () => memory.callTool({ name: "git_status", arguments: {} }) },
  { name: "MCP over stdio: SDK Client and a `gitctx mcp` child process", run: () => stdio.callTool({ name: "git_status", arguments: {} }) },
];
// The answers must be the same before their speed means anything.
for (const client of [stdio, memory]) {
  const result = await client.callTool({ name: "git_status", arguments: {} });
  if (JSON.stringify(result.structuredContent) !== JSON.stringify(expected.data)) throw new Error("MCP and library answers differ");
}

const samples = cases.map(() => []);
for (let i = 0; i < ITERATIONS + WARMUP; i++) {
  for (const [index, entry] of cases.entries()) {
    const ms = await time(entry.run);
    if (i >= WARMUP) samples[index].push(ms);
  }
}
await stdio.close();
await memory.close();
await server.close();
rmSync(dir, { recursive: true, force: true });

const medians = samples.map(median);
const gitVersion = execFileSync("git", ["--version"]).toString().trim();
const section = [
  HEADER,
  "",
  `Written by \`node bench/mcp.mjs\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${gitVersion}, ` +
    `${cpus().length} cores. The same 2,000-file repository with 22 changed paths; ${ITERATIONS} interleaved ` +
    `iterations per case after ${WARMUP} warm-up rounds; medians in milliseconds.`,
  "",
  "| case | median ms | ratio to the library |",
  "|---|---:|---:|",
  ...cases.map((entry, index) => `| ${entry.name} | ${medians[index].toFixed(2)} | ${(medians[index] / medians[0]).toFixed(2)}x |`),
  "",
  `Overhead of MCP over stdio per call: ${(medians[2] - medians[0]).toFixed(2)} ms (median difference); ` +
    `of which the protocol itself (in-memory transport): ${(medians[1] - medians[0]).toFixed(2)} ms.`,
  "",
].join("\n");

const resultsFile = join(here, "results.md");
const previous = existsSync(resultsFile) ? readFileSync(resultsFile, "utf8") : "# Benchmark results\n\n";
const start = previous.indexOf(HEADER);
let kept = previous;
if (start !== -1) {
  const next = previous.indexOf("\n## ", start + HEADER.length);
  kept = previous.slice(0, start) + (next === -1 ? "" : previous.slice(next + 1));
}
writeFileSync(resultsFile, `${kept.replace(/\n*$/, "\n\n")}${section}`);
console.log(section);
