// The instruction loader on a generated monorepo of 2,000 directories with 200 instruction files and 50 rules:
// cold loads, warm loads from the session cache (signatures checked, and trusted as with a watcher), the file-
// system calls each makes, against a naive loader that walks every directory and reads what it finds with the
// same parser and tokenizer; tokens per layer; and the two Markdown lexers the parser could use (marked,
// micromark) on the same files, for speed and size. Rounds interleave the peers so machine noise hits all alike.
// Part of `npm run bench`; alone: `npm run build && node bench/instructions.mjs`. Leaves its section of
// BENCHMARKS.md in bench/.results/instructions.json for bench/report.mjs.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Lexer } from "marked";
import { parse as micromarkParse, postprocess as micromarkPostprocess, preprocess as micromarkPreprocess } from "micromark";
import { InstructionsCache, loadInstructions } from "../dist/index.js";
import { loadTokenCounter } from "../dist/context/tokens.js";
import { parseInstructions } from "../dist/instructions/parse.js";
import { median } from "./shared.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WARM_ROUNDS = ROUNDS * 20;
/** Raise it whenever the generated tree changes. */
const GENERATOR_VERSION = 1;
const ROOT = join(here, ".repos", `instructions-v${GENERATOR_VERSION}`);
const FORMATS = ["claude", "agents", "cursor"];

// ---- the generated monorepo ----

function random(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (n) => Math.floor(next() * n), pick: (items) => items[Math.floor(next() * items.length)], chance: (p) => next() < p };
}

const WORDS = [
  "test",
  "build",
  "module",
  "handler",
  "request",
  "cache",
  "schema",
  "route",
  "component",
  "hook",
  "store",
  "query",
  "token",
  "session",
  "config",
  "worker",
  "queue",
  "event",
  "report",
  "layout",
];

/** A realistic instruction file of 1-3 KB: headings, prose with code spans, lists, a fenced block, sometimes imports. */
function instructionText(r, title, imports) {
  const sentence = () => {
    const words = Array.from({ length: 8 + r.int(10) }, () => r.pick(WORDS));
    if (r.chance(0.4)) words.splice(r.int(words.length), 0, `\`npm run ${r.pick(WORDS)}\``);
    if (r.chance(0.15)) words.splice(r.int(words.length), 0, `\`yarn workspace @shop/${r.pick(WORDS)} ${r.pick(WORDS)}\``);
    return `${words.join(" ")}.`;
  };
  const lines = [`# ${title}`, ""];
  const sections = 2 + r.int(3);
  for (let s = 0; s < sections; s++) {
    lines.push(`## ${r.pick(WORDS)} ${r.pick(WORDS)}`, "", Array.from({ length: 2 + r.int(3) }, sentence).join(" "), "");
    for (let i = 0; i < 2 + r.int(4); i++) lines.push(`- ${sentence()}`);
    lines.push("");
    if (r.chance(0.5))
      lines.push("```sh", `npm run ${r.pick(WORDS)} -- --${r.pick(WORDS)}`, `npx ${r.pick(WORDS)} @scope/${r.pick(WORDS)}`, "```", "");
  }
  if (r.chance(0.3)) lines.push("<!-- maintainers: keep this file under 200 lines -->", "");
  for (const target of imports) lines.push(`See @${target} for details.`, "");
  return `${lines.join("\n")}\n`;
}

/**
 * `packages/p00..p19`, 9 directories in each, 10 in each of those: 2,000 directories below `packages/`, each leaf
 * with an index.ts. 200 instruction files: 4 at the top, CLAUDE.md + AGENTS.md in every package, AGENTS.md in
 * 78 second-level and CLAUDE.md in 78 third-level directories; 20 of them import one of 10 docs. 50 rules: 30
 * Claude rules (20 with `paths`) and 20 Cursor rules (15 with `globs`, 5 `alwaysApply`).
 */
function generate(root) {
  rmSync(root, { recursive: true, force: true });
  const r = random(0x1a57c0de);
  const write = (path, text) => {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  };
  const directories = [];
  const leaves = [];
  for (let p = 0; p < 20; p++) {
    const pkg = `packages/p${String(p).padStart(2, "0")}`;
    directories.push(pkg);
    for (let a = 0; a < 9; a++) {
      const second = `${pkg}/${WORDS[a]}`;
      directories.push(second);
      for (let b = 0; b < 10; b++) {
        const third = `${second}/${WORDS[10 + b]}`;
        directories.push(third);
        leaves.push(third);
        write(`${third}/index.ts`, `export const ${WORDS[b]} = ${p * 100 + a * 10 + b};\n`);
      }
    }
  }
  for (let d = 0; d < 10; d++) write(`docs/guide-${d}.md`, instructionText(r, `Guide ${d}`, []));
  let imports = 0;
  const instruction = (path, title) => {
    const withImport = imports < 20 && r.chance(0.15);
    if (withImport) imports++;
    const depth = path.split("/").length - 1;
    const target = `${"../".repeat(depth)}docs/guide-${r.int(10)}.md`;
    write(path, instructionText(r, title, withImport ? [target] : []));
  };
  let files = 0;
  for (const name of ["CLAUDE.md", "AGENTS.md", "CLAUDE.local.md", ".claude/CLAUDE.md"]) {
    instruction(name, `Shop ${name}`);
    files++;
  }
  for (let p = 0; p < 20; p++) {
    const pkg = `packages/p${String(p).padStart(2, "0")}`;
    instruction(`${pkg}/CLAUDE.md`, `Package ${p}`);
    instruction(`${pkg}/AGENTS.md`, `Package ${p} for agents`);
    files += 2;
  }
  const seconds = directories.filter((dir) => dir.split("/").length === 3);
  const thirds = directories.filter((dir) => dir.split("/").length === 4);
  for (let i = 0; i < 78; i++) {
    instruction(`${seconds[(i * 7) % seconds.length]}/AGENTS.md`, `Area ${i}`);
    instruction(`${thirds[(i * 23) % thirds.length]}/CLAUDE.md`, `Module ${i}`);
    files += 2;
  }
  for (let i = 0; i < 30; i++) {
    const frontmatter = i < 20 ? `---\npaths:\n  - "packages/p${String(i).padStart(2, "0")}/**/*.ts"\n---\n` : "";
    write(`.claude/rules/rule-${i}.md`, frontmatter + instructionText(r, `Rule ${i}`, []));
  }
  for (let i = 0; i < 20; i++) {
    const frontmatter =
      i < 15
        ? `---\ndescription: ${r.pick(WORDS)}\nglobs: packages/p${String(i).padStart(2, "0")}/${r.pick(WORDS)}/**, *.md\nalwaysApply: false\n---\n`
        : "---\nalwaysApply: true\n---\n";
    write(`.cursor/rules/rule-${i}.mdc`, frontmatter + instructionText(r, `Cursor rule ${i}`, []));
  }
  writeFileSync(
    join(root, ".generated"),
    JSON.stringify({ version: GENERATOR_VERSION, directories: directories.length + 1, files, rules: 50, imports }),
  );
  return { directories, leaves };
}

function ensureTree() {
  const marker = join(ROOT, ".generated");
  if (!existsSync(marker) || JSON.parse(readFileSync(marker, "utf8")).version !== GENERATOR_VERSION) generate(ROOT);
  const leaves = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const child = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (child.split("/").length === 4) leaves.push(child);
      walk(child);
    }
  };
  walk("packages");
  return { leaves: leaves.sort(), info: JSON.parse(readFileSync(marker, "utf8")) };
}

// ---- the naive loader: every directory, every name ----

const NAMES = ["CLAUDE.md", "AGENTS.override.md", "AGENTS.md", "CLAUDE.local.md"];

/**
 * Walks the whole tree, reads every instruction file and rule it meets, parses them, counts each file's tokens,
 * and joins them under headers into one text whose tokens it counts: what a loader returns, without imports,
 * dedupe, rule matching, confinement checks or signatures.
 */
async function naiveLoad(root, count) {
  let calls = 0;
  const found = [];
  const walk = async (dir) => {
    calls++;
    const entries = await readdir(dir, { withFileTypes: true });
    const subdirs = [];
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === ".git" || entry.name === "node_modules") continue;
        subdirs.push(path);
      } else if (
        NAMES.includes(entry.name) ||
        (dir.endsWith(join(".claude", "rules")) && entry.name.endsWith(".md")) ||
        (dir.endsWith(join(".cursor", "rules")) && entry.name.endsWith(".mdc")) ||
        path.endsWith(join(".claude", "CLAUDE.md"))
      ) {
        found.push(path);
      }
    }
    await Promise.all(subdirs.map(walk));
  };
  await walk(root);
  found.sort();
  const parts = await Promise.all(
    found.map(async (path) => {
      calls++;
      const parsed = parseInstructions(await readFile(path, "utf8"), { rule: path.includes(`${join(".claude", "rules")}`) || path.endsWith(".mdc") });
      return { path, content: parsed.content, tokens: count(parsed.content) };
    }),
  );
  const text = parts.map((part) => `--- ${part.path} ---\n${part.content}`).join("\n");
  return { files: found.length, calls, tokens: count(text) };
}

// ---- measuring ----

const ops = (result) => result.operations.readdir + result.operations.stat + result.operations.realpath + result.operations.open;

async function main() {
  const load = loadavg()[0];
  const { leaves, info } = ensureTree();
  // Files written less than 2 s ago are not trusted by the cache: wait until the tree has settled.
  const newest = statSync(join(ROOT, ".generated")).mtimeMs;
  if (Date.now() - newest < 2500) await sleep(2500 - (Date.now() - newest));
  const count = await loadTokenCounter();

  const spread = leaves.filter((_, index) => index % 90 === 0).map((leaf) => `${leaf}/index.ts`);
  const scenarios = [
    { id: "start", label: "session start (no paths)", paths: [] },
    { id: "some", label: `${spread.length} paths across the tree`, paths: spread },
    { id: "all", label: `a path in every one of the ${leaves.length} leaf directories`, paths: leaves.map((leaf) => `${leaf}/index.ts`) },
  ];
  const base = { root: ROOT, formats: FORMATS, budget: Number.POSITIVE_INFINITY };
  const samples = Object.fromEntries(scenarios.map((s) => [s.id, { cold: [], warm: [], trusted: [] }]));
  const naive = [];
  const caches = Object.fromEntries(scenarios.map((s) => [s.id, new InstructionsCache()]));
  const results = {};
  // Warm-up: every peer once.
  await naiveLoad(ROOT, count);
  for (const s of scenarios) {
    results[s.id] = await loadInstructions({ ...base, paths: s.paths });
    await caches[s.id].load({ ...base, paths: s.paths });
  }
  let naiveResult;
  for (let round = 0; round < ROUNDS; round++) {
    let t0 = performance.now();
    naiveResult = await naiveLoad(ROOT, count);
    naive.push(performance.now() - t0);
    for (const s of scenarios) {
      const options = { ...base, paths: s.paths };
      t0 = performance.now();
      results[s.id] = await loadInstructions(options);
      samples[s.id].cold.push(performance.now() - t0);
    }
  }
  for (let round = 0; round < WARM_ROUNDS; round++) {
    for (const s of scenarios) {
      const options = { ...base, paths: s.paths };
      let t0 = performance.now();
      const warm = await caches[s.id].load(options);
      samples[s.id].warm.push(performance.now() - t0);
      t0 = performance.now();
      await caches[s.id].load(options, { revalidate: false });
      samples[s.id].trusted.push(performance.now() - t0);
      if (warm !== (await caches[s.id].load(options, { revalidate: false }))) throw new Error("the warm load was not served from the cache");
    }
  }
  for (const s of scenarios)
    if (caches[s.id].stats.loads !== 1) throw new Error(`cache for ${s.id} loaded ${caches[s.id].stats.loads} times: the tree is not settled`);

  // ---- the lexers, on every instruction file of the tree ----
  const texts = [];
  const collect = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) collect(path);
      else if (entry.name.endsWith(".md") || entry.name.endsWith(".mdc")) texts.push(readFileSync(path, "utf8"));
    }
  };
  collect(ROOT);
  const lexers = {
    marked: (text) => Lexer.lex(text, { gfm: true }),
    micromark: (text) =>
      micromarkPostprocess(
        micromarkParse()
          .document()
          .write(micromarkPreprocess()(text, undefined, true)),
      ),
    parser: (text) => parseInstructions(text),
  };
  const lexSamples = { marked: [], micromark: [], parser: [] };
  for (const lex of Object.values(lexers)) for (const text of texts) lex(text);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, lex] of Object.entries(lexers)) {
      const t0 = performance.now();
      for (const text of texts) lex(text);
      lexSamples[name].push(performance.now() - t0);
    }
  }
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  const sizes = { marked: packageClosure("marked"), micromark: packageClosure("micromark") };

  // ---- report ----
  const fmt = (ms) => (ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
  const naiveMs = median(naive);
  const rows = scenarios.map((s) => {
    const result = results[s.id];
    const cold = median(samples[s.id].cold);
    return {
      id: s.id,
      label: s.label,
      files: result.files.length,
      tokens: result.tokens.full,
      byLayer: result.tokens.byLayer,
      calls: ops(result),
      operations: result.operations,
      watched: result.watched.length,
      coldMs: cold,
      warmMs: median(samples[s.id].warm),
      trustedMs: median(samples[s.id].trusted),
      coldRatio: cold / naiveMs,
    };
  });
  const all = rows.find((row) => row.id === "all");
  const lexMs = Object.fromEntries(Object.entries(lexSamples).map(([name, values]) => [name, median(values)]));
  const markdown = `## Instruction files

The loader (\`loadInstructions\`, formats ${FORMATS.join(", ")}, no budget) on a generated monorepo: ${info.directories.toLocaleString("en-US")} directories,
${info.files} instruction files (${info.imports} with an \`@\` import of one of 10 docs), 50 rules (30 Claude, 20 Cursor), on ${cpus().length} cores
(load average ${load.toFixed(1)} when the run started: other work shares them).
The naive loader walks every directory, reads every instruction file and rule it finds, parses them with the same
parser, counts each file's tokens and those of the text it joins them into (no imports, no dedupe, no rule
matching, no confinement checks, no signatures). Cold: a fresh load, nothing cached (the OS page cache is warm).
Warm: \`InstructionsCache.load\` with the same options, every watched file and directory stat'ed to check its
signature; trusted: the same with \`revalidate: false\`, as when a watcher invalidates the cache. Medians of
${ROUNDS} interleaved rounds (warm: ${WARM_ROUNDS}).

| load | files loaded | tokens | fs calls | watched paths | cold ms | cold / naive | warm ms | trusted ms |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.map((row) => `| ${row.label} | ${row.files} | ${row.tokens.toLocaleString("en-US")} | ${row.calls.toLocaleString("en-US")} | ${row.watched.toLocaleString("en-US")} | ${fmt(row.coldMs)} | ${row.coldRatio.toFixed(2)} | ${fmt(row.warmMs)} | ${fmt(row.trustedMs)} |`).join("\n")}
| naive walk of every directory | ${naiveResult.files} | ${naiveResult.tokens.toLocaleString("en-US")} | ${naiveResult.calls.toLocaleString("en-US")} | | ${fmt(naiveMs)} | 1.00 | | |

Targets: warm under 5 ms, cold within 2x of the naive walk. fs calls: readdir + stat + realpath + open (the
naive loader: readdir + read). Tokens per layer, every file loaded (the path in every leaf directory):
${Object.entries(all.byLayer)
  .map(([layer, tokens]) => `${layer} ${tokens.toLocaleString("en-US")}`)
  .join(", ")}.

The Markdown lexer for import detection, on the ${texts.length} Markdown files of the tree (${(bytes / 1024).toFixed(0)} KiB), all of them per round:

| lexer | ms per round | KiB on disk (package and its dependencies) | packages |
|---|---:|---:|---:|
| marked ${sizes.marked.version} (\`Lexer.lex\`) | ${fmt(lexMs.marked)} | ${sizes.marked.kib} | ${sizes.marked.packages} |
| micromark ${sizes.micromark.version} (\`parse\` + \`postprocess\`, events only) | ${fmt(lexMs.micromark)} | ${sizes.micromark.kib} | ${sizes.micromark.packages} |
| gitctx's \`parseInstructions\` (marked, only where an \`@\` or \`<!--\` could matter) | ${fmt(lexMs.parser)} | | |

marked is the one used: ${(lexMs.micromark / lexMs.marked).toFixed(1)}x faster here and ${sizes.micromark.packages - sizes.marked.packages} packages fewer; micromark's exact offsets
are matched by tagging each candidate before lexing (src/instructions/parse.ts).
`;
  mkdirSync(join(here, ".results"), { recursive: true });
  writeFileSync(
    join(here, ".results", "instructions.json"),
    JSON.stringify(
      {
        title: "Instruction files",
        markdown,
        data: {
          loadAverage: load,
          tree: info,
          rounds: ROUNDS,
          warmRounds: WARM_ROUNDS,
          scenarios: rows,
          naive: { ...naiveResult, ms: naiveMs },
          lexers: { ms: lexMs, sizes, files: texts.length, bytes },
        },
      },
      null,
      2,
    ),
  );
  process.stdout.write(markdown);
}

/** A package's version, and the size on disk and count of it and everything it depends on. */
function packageClosure(name) {
  const modules = join(here, "..", "node_modules");
  const seen = new Set();
  const queue = [name];
  let bytes = 0;
  while (queue.length > 0) {
    const next = queue.shift();
    if (seen.has(next)) continue;
    seen.add(next);
    const dir = join(modules, next);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    bytes += directorySize(dir);
    queue.push(...Object.keys(manifest.dependencies ?? {}));
  }
  const version = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")).version;
  return { version, kib: Math.round(bytes / 1024), packages: seen.size };
}

function directorySize(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += entry.name === "node_modules" ? 0 : directorySize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

await main();
