// Benchmark repositories, generated deterministically (seeded PRNG, fixed identities and timestamps, so the same
// commit ids come out on every machine) through `git fast-import`, and reused while bench/.repos/<kind>.json
// records the current GENERATOR_VERSION. Kinds: small, large, long-file, big-diff (see GENERATORS).
// Run `node bench/repos.mjs [kind...]` to generate them (all four by default); benchmarks call ensureRepository.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Raise it whenever a generator's output changes, so stale repositories are regenerated. */
const GENERATOR_VERSION = 1;

export const REPOSITORIES_DIR = join(dirname(fileURLToPath(import.meta.url)), ".repos");

const GENERATORS = {
  small: (dir) =>
    generateHistory(dir, {
      kind: "small",
      seed: 0x5eed0001,
      roots: ["src", "test", "docs", "scripts"],
      directories: 80,
      maxDepth: 4,
      files: 1_000,
      commits: 500,
      hotFiles: 30,
      dirty: { unstaged: 20, untracked: 5 },
    }),
  large: (dir) =>
    generateHistory(dir, {
      kind: "large",
      seed: 0x5eed0002,
      roots: packageRoots(60),
      directories: 7_000,
      maxDepth: 8,
      files: 100_000,
      commits: 20_000,
      hotFiles: 1_500,
      dirty: { unstaged: 50, untracked: 5 },
    }),
  "long-file": generateLongFile,
  "big-diff": generateBigDiff,
};

// ---------------------------------------------------------------------------------------------------------------
// Deterministic randomness and vocabulary

function random(seed) {
  let state = seed >>> 0;
  // mulberry32: tiny, fast, and identical on every platform, unlike Math.random.
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return {
    int,
    between: (low, high) => low + int(high - low + 1),
    pick: (items) => items[int(items.length)],
    chance: (p) => next() < p,
    seed: () => int(0x100000000),
  };
}

const VERBS = [
  "load",
  "parse",
  "render",
  "build",
  "resolve",
  "format",
  "merge",
  "split",
  "read",
  "write",
  "check",
  "update",
  "create",
  "remove",
  "find",
  "sort",
  "apply",
  "encode",
  "decode",
  "validate",
];
const NOUNS = [
  "user",
  "session",
  "token",
  "config",
  "request",
  "response",
  "cache",
  "entry",
  "record",
  "buffer",
  "stream",
  "layout",
  "theme",
  "route",
  "query",
  "schema",
  "event",
  "handler",
  "payload",
  "index",
  "module",
  "option",
  "result",
  "value",
  "field",
  "widget",
  "report",
  "account",
  "invoice",
  "upload",
];
const TYPES = ["string", "number", "boolean", "Date", "Record<string, unknown>", "unknown[]", "Map<string, number>", "Uint8Array", "Promise<void>"];
const DIRECTORY_WORDS = [
  "components",
  "hooks",
  "services",
  "models",
  "utils",
  "handlers",
  "routes",
  "adapters",
  "internal",
  "common",
  "shared",
  "lib",
  "helpers",
  "types",
  "config",
  "parsers",
  "formatters",
  "validators",
  "middleware",
  "providers",
  "stores",
  "views",
  "features",
  "plugins",
  "legacy",
  "v2",
  "io",
  "net",
  "auth",
  "cache",
  "billing",
  "search",
  "reports",
  "admin",
  "settings",
  "events",
  "jobs",
  "queue",
  "storage",
  "metrics",
];
const PACKAGE_SUFFIXES = ["core", "utils", "client", "server", "ui", "sdk", "cli", "store", "api", "worker"];
const COMMIT_KINDS = ["fix", "feat", "refactor", "chore", "docs", "test", "perf"];
const PEOPLE = [
  { name: "Alex Moreau", email: "alex.moreau@example.com", zone: "+0100" },
  { name: "Bea Lindqvist", email: "bea.lindqvist@example.com", zone: "+0200" },
  { name: "Chen Wei", email: "chen.wei@example.com", zone: "+0800" },
  { name: "Dara Okafor", email: "dara.okafor@example.com", zone: "+0000" },
  { name: "Emil Novak", email: "emil.novak@example.com", zone: "+0100" },
  { name: "Farah Haddad", email: "farah.haddad@example.com", zone: "+0300" },
  { name: "Gus Ramirez", email: "gus.ramirez@example.com", zone: "-0500" },
  { name: "Hana Sato", email: "hana.sato@example.com", zone: "+0900" },
];
/** 2020-01-01T00:00:00Z: history starts here and moves forward by minutes to hours per commit. */
const EPOCH = 1_577_836_800;

const capital = (word) => word[0].toUpperCase() + word.slice(1);
const identifier = (r) => r.pick(NOUNS) + capital(r.pick(NOUNS));
const sentence = (r, words) => Array.from({ length: words }, () => r.pick(r.chance(0.5) ? NOUNS : VERBS)).join(" ");

function codeLine(r) {
  switch (r.int(7)) {
    case 0:
      return `  const ${identifier(r)} = ${r.pick(VERBS)}${capital(r.pick(NOUNS))}(${r.pick(NOUNS)}, ${r.int(1000)});`;
    case 1:
      return `  if (${identifier(r)} === undefined) return ${r.pick(["null", "[]", "0", "false", '""'])};`;
    case 2:
      return `  // ${capital(sentence(r, r.between(4, 10)))}.`;
    case 3:
      return `  ${identifier(r)}.${r.pick(VERBS)}(${identifier(r)});`;
    case 4:
      return `  for (const ${r.pick(NOUNS)} of ${identifier(r)}) total += ${r.pick(NOUNS)}.${r.pick(NOUNS)}Count;`;
    case 5:
      return `  let ${identifier(r)}: ${r.pick(TYPES)} = ${r.pick(VERBS)}${capital(r.pick(NOUNS))}();`;
    default:
      return `  await ${r.pick(VERBS)}${capital(r.pick(NOUNS))}(${identifier(r)}, { ${r.pick(NOUNS)}: ${r.int(100)} });`;
  }
}

/** Dense code of ~20-byte lines: the long file is rewritten whole by each of its commits, so its size drives the cost. */
function terseLine(r) {
  switch (r.int(8)) {
    case 0:
      return "";
    case 1:
      return "  }";
    case 2:
      return `  ${r.pick(NOUNS)} += ${r.int(100)};`;
    case 3:
      return `  if (!${r.pick(NOUNS)}) {`;
    case 4:
      return `    return ${r.pick(NOUNS)};`;
    case 5:
      return `  ${r.pick(VERBS)}(${r.pick(NOUNS)});`;
    case 6:
      return `  const ${r.pick(NOUNS)}${r.int(100)} = ${r.pick(NOUNS)};`;
    default:
      return `  // ${sentence(r, 3)}`;
  }
}

const proseLine = (r) => `${capital(sentence(r, r.between(6, 14)))}.`;
const lineFor = (path) => (path.endsWith(".md") ? proseLine : codeLine);

/** TypeScript-looking lines: imports, then functions of a few statements each. */
function sourceLines(r, targetBytes) {
  const lines = [];
  for (let i = r.between(1, 4); i > 0; i--) lines.push(`import { ${identifier(r)} } from "../${r.pick(NOUNS)}/${r.pick(NOUNS)}.js";`);
  lines.push("");
  let bytes = lines.join("\n").length;
  while (bytes < targetBytes) {
    const block = [`export function ${r.pick(VERBS)}${capital(identifier(r))}(${r.pick(NOUNS)}: ${r.pick(TYPES)}): ${r.pick(TYPES)} {`];
    for (let i = r.between(2, 8); i > 0; i--) block.push(codeLine(r));
    block.push("}", "");
    lines.push(...block);
    bytes += block.join("\n").length + 1;
  }
  return lines;
}

function markdownLines(r, targetBytes) {
  const lines = [`# ${capital(sentence(r, 3))}`, ""];
  let bytes = 0;
  while (bytes < targetBytes) {
    const line = r.chance(0.15) ? "" : proseLine(r);
    lines.push(line);
    bytes += line.length + 1;
  }
  return lines;
}

/** A few hundred bytes to a few KB, log-uniform like real source trees. */
function fileContent(seed, path) {
  const r = random(seed);
  const target = Math.round(Math.exp(Math.log(300) + (r.int(1_000_000) / 1_000_000) * Math.log(4000 / 300)));
  return `${(path.endsWith(".md") ? markdownLines : sourceLines)(r, target).join("\n")}\n`;
}

/** Rewrites, inserts and deletes a few lines at random places, as a real edit does. */
function edit(r, content, path, operations) {
  const lines = content.split("\n");
  lines.pop(); // the empty string after the final newline
  const line = lineFor(path);
  for (let i = 0; i < operations; i++) {
    const at = r.int(lines.length + 1);
    const roll = r.int(10);
    if (roll < 5 && at < lines.length) {
      lines.splice(at, r.between(1, 2), ...Array.from({ length: r.between(1, 2) }, () => line(r)));
    } else if (roll < 8 || lines.length < 12) {
      lines.splice(at, 0, ...Array.from({ length: r.between(1, 3) }, () => line(r)));
    } else {
      lines.splice(Math.min(at, lines.length - 1), r.between(1, 2));
    }
  }
  return `${lines.join("\n")}\n`;
}

function packageRoots(count) {
  const r = random(0x9ac4a9e5);
  const names = new Set();
  while (names.size < count) names.add(`${r.pick(NOUNS)}-${r.pick(PACKAGE_SUFFIXES)}`);
  return [...names].flatMap((name) => [`packages/${name}/src`, `packages/${name}/test`]);
}

/** A directory tree grown by attaching each new directory to a random existing one (so depths spread out). */
function directoryTree(r, roots, count, maxDepth) {
  const directories = roots.map((path) => ({ path, depth: path.split("/").length, children: new Set() }));
  while (directories.length < count) {
    const parent = r.pick(directories);
    const name = r.pick(DIRECTORY_WORDS);
    if (parent.depth >= maxDepth || parent.children.has(name)) continue;
    parent.children.add(name);
    directories.push({ path: `${parent.path}/${name}`, depth: parent.depth + 1, children: new Set() });
  }
  return directories.map((directory) => directory.path);
}

function newFilePath(r, directories, taken) {
  for (;;) {
    const extension = r.chance(0.08) ? ".md" : r.chance(0.15) ? ".test.ts" : r.chance(0.1) ? ".tsx" : ".ts";
    const base = r.chance(0.5) ? `${r.pick(NOUNS)}-${r.pick(VERBS)}` : identifier(r);
    const path = `${r.pick(directories)}/${base}${extension}`;
    if (!taken.has(path)) return path;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// git plumbing

/** git with no system or global configuration, so nobody's settings leak into the fixture. */
function gitEnvironment(dir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: dir, LC_ALL: "C" };
}

function git(dir, ...args) {
  return execFileSync("git", args, { cwd: dir, env: gitEnvironment(dir), stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 })
    .toString()
    .trim();
}

function initRepository(dir) {
  mkdirSync(dir, { recursive: true });
  git(dir, "-c", "init.defaultBranch=main", "init", "-q");
}

/** The byte count of a git command's output, streamed: the big diff does not fit in a string. */
function outputBytes(dir, args) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: dir, env: gitEnvironment(dir), stdio: ["ignore", "pipe", "inherit"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => (bytes += chunk.length));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(bytes) : reject(new Error(`git ${args.join(" ")} exited ${code}`))));
  });
}

/**
 * Feeds `git fast-import` through its stdin in large chunks, waiting for the pipe to drain so a 100,000-file
 * import never sits in memory whole.
 */
class FastImport {
  constructor(dir) {
    this.child = spawn("git", ["fast-import", "--quiet", "--done"], { cwd: dir, env: gitEnvironment(dir), stdio: ["pipe", "ignore", "pipe"] });
    this.stderr = [];
    this.child.stderr.on("data", (chunk) => this.stderr.push(chunk));
    // A broken pipe shows up as the exit code and stderr below.
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => this.child.on("close", resolve));
    this.parts = [];
    this.pending = 0;
    this.commits = 0;
  }

  push(text) {
    this.parts.push(text);
    this.pending += text.length;
    return this.pending >= 1 << 22 ? this.flush() : undefined;
  }

  async flush() {
    const chunk = this.parts.join("");
    this.parts = [];
    this.pending = 0;
    if (this.child.stdin.write(chunk)) return;
    const died = this.exited.then((code) => {
      throw new Error(`git fast-import exited ${code}: ${Buffer.concat(this.stderr).toString()}`);
    });
    await Promise.race([once(this.child.stdin, "drain"), died]);
  }

  /** `changes` may be a generator, so a huge first commit is produced while it streams. */
  async commit({ author, time, message }, changes) {
    const ident = `${author.name} <${author.email}> ${time} ${author.zone}`;
    this.push(`commit refs/heads/main\nauthor ${ident}\ncommitter ${ident}\ndata ${Buffer.byteLength(message)}\n${message}\n`);
    for (const change of changes) {
      if (change.deleted) this.push(`D ${change.path}\n`);
      else if (change.renameTo !== undefined) this.push(`R ${change.path} ${change.renameTo}\n`);
      else await this.push(`M 100644 inline ${change.path}\ndata ${Buffer.byteLength(change.content)}\n${change.content}\n`);
    }
    await this.push("\n");
    this.commits++;
  }

  async close() {
    this.push("done\n");
    await this.flush();
    this.child.stdin.end();
    const code = await this.exited;
    if (code !== 0) throw new Error(`git fast-import exited ${code}: ${Buffer.concat(this.stderr).toString()}`);
  }
}

/** Authors and strictly increasing timestamps drawn from the kind's own PRNG. */
function signatures(r) {
  let time = EPOCH;
  return () => {
    time += r.between(300, 7_200);
    return { author: r.pick(PEOPLE), time };
  };
}

/** The working tree of HEAD; parallel checkout helps a little even on two cores. */
function checkOut(dir) {
  git(dir, "-c", "checkout.workers=0", "reset", "--hard", "-q");
}

/**
 * Refreshes the index once more than a second after the last write, as a settled checkout's would be: gitctx
 * never writes the index, so entries left "racily clean" would be re-hashed on every call and measure the fixture.
 */
async function settleIndex(dir, lastWrite) {
  const wait = lastWrite + 1_100 - Date.now();
  if (wait > 0) await sleep(wait);
  try {
    git(dir, "update-index", "-q", "--refresh");
  } catch (error) {
    if (error.status !== 1) throw error; // 1 only says some files are modified, which they are
  }
}

const commitOfIndex = (dir, commits, index) => git(dir, "rev-parse", `main~${commits - 1 - index}`);
const middleRange = (lines, length = 40) => {
  const start = Math.max(1, Math.floor(lines / 2) - length / 2);
  return [start, Math.min(lines, start + length - 1)];
};
/** Directories without tracked files do not exist in the checkout. */
function writeNewFile(path, content) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

const thousands = (n) => n.toLocaleString("en-US");

// ---------------------------------------------------------------------------------------------------------------
// small and large: many files, many small commits, a dirty working tree

async function generateHistory(dir, spec) {
  const r = random(spec.seed);
  const sign = signatures(r);
  const directories = directoryTree(r, spec.roots, spec.directories, spec.maxDepth);

  // Contents are regenerated from a per-file seed until a file is edited, so 100,000 originals never sit in memory.
  const seeds = new Map();
  const edited = new Map();
  const live = [];
  const position = new Map();
  const track = (path) => {
    position.set(path, live.length);
    live.push(path);
  };
  const untrack = (path) => {
    const at = position.get(path);
    const last = live.pop();
    if (last !== path) {
      live[at] = last;
      position.set(last, at);
    }
    position.delete(path);
    seeds.delete(path);
    edited.delete(path);
  };
  const contentOf = (path) => edited.get(path) ?? fileContent(seeds.get(path), path);

  for (const path of [".gitignore", "README.md", "package.json"]) seeds.set(path, r.seed());
  while (seeds.size < spec.files) seeds.set(newFilePath(r, directories, seeds), r.seed());
  for (const path of seeds.keys()) track(path);
  edited.set(".gitignore", "node_modules/\ndist/\ncoverage/\n*.log\n");
  edited.set("package.json", `{\n  "name": "bench-${spec.kind}",\n  "private": true,\n  "version": "1.0.0"\n}\n`);

  // A hot set takes most edits, as real histories concentrate on a few files: they give blame its history.
  const hot = new Set();
  while (hot.size < spec.hotFiles) {
    const path = r.pick(live);
    if (!path.endsWith(".md") && path.includes("/")) hot.add(path);
  }
  const hotList = [...hot];
  const edits = new Map();

  const importer = new FastImport(dir);
  await importer.commit(
    { ...sign(), message: "Initial import\n" },
    (function* () {
      for (const path of live) yield { path, content: contentOf(path) };
    })(),
  );

  let showCommitIndex;
  for (let index = 1; index < spec.commits; index++) {
    const changes = [];
    const touched = new Set();
    const roll = r.int(1000);
    let subject;
    if (roll < 10) {
      const path = newFilePath(r, directories, position);
      seeds.set(path, r.seed());
      track(path);
      touched.add(path);
      changes.push({ path, content: contentOf(path) });
      subject = `add ${path.split("/").pop()}`;
    } else if (roll < 30) {
      const path = r.pick(live);
      if (!hot.has(path) && path.includes("/")) {
        touched.add(path);
        if (roll < 20) {
          const to = newFilePath(r, directories, position);
          const content = contentOf(path);
          untrack(path);
          edited.set(to, content);
          track(to);
          touched.add(to);
          changes.push({ path, renameTo: to });
          subject = `move ${path.split("/").pop()} to ${to.split("/").at(-2)}`;
        } else {
          untrack(path);
          changes.push({ path, deleted: true });
          subject = `remove ${path.split("/").pop()}`;
        }
      }
    }
    const structural = changes.length > 0;
    const count = r.chance(0.05) ? r.between(5, 12) : r.between(1, 4);
    for (let i = 0; i < count; i++) {
      const path = r.chance(0.6) ? r.pick(hotList) : r.pick(live);
      if (touched.has(path)) continue;
      touched.add(path);
      const content = edit(r, contentOf(path), path, r.between(1, 4));
      edited.set(path, content);
      edits.set(path, (edits.get(path) ?? 0) + 1);
      changes.push({ path, content });
    }
    subject ??= `${r.pick(VERBS)} ${r.pick(NOUNS)} in ${changes[0].path.split("/").pop()}`;
    const area = changes[0].path.split("/").at(-2) ?? "repo";
    const modified = changes.length - (structural ? 1 : 0);
    if (showCommitIndex === undefined && index >= spec.commits / 2 && !structural && modified >= 3 && modified <= 5) showCommitIndex = index;
    await importer.commit({ ...sign(), message: `${r.pick(COMMIT_KINDS)}(${area}): ${subject}\n\n${capital(sentence(r, 12))}.\n` }, changes);
  }
  await importer.close();
  checkOut(dir);

  // The most edited hot file long enough for a 40-line range.
  const byEdits = hotList.filter((path) => position.has(path)).sort((a, b) => (edits.get(b) ?? 0) - (edits.get(a) ?? 0));
  const blamePath = byEdits.find((path) => contentOf(path).split("\n").length > 60) ?? byEdits[0];
  const blameLines = contentOf(blamePath).split("\n").length - 1;

  // The dirty working tree: unstaged edits, one staged edit and one staged new file, untracked files.
  const spare = live.filter((path) => path !== blamePath && !path.endsWith(".md") && path.includes("/"));
  const dirtied = new Set();
  while (dirtied.size < spec.dirty.unstaged + 1) dirtied.add(r.pick(spare));
  const [stagedEdit, ...unstaged] = [...dirtied];
  for (const path of dirtied) writeFileSync(join(dir, path), edit(r, contentOf(path), path, r.between(1, 3)));
  const stagedNew = newFilePath(r, directories, position);
  writeNewFile(join(dir, stagedNew), fileContent(r.seed(), stagedNew));
  git(dir, "add", "--", stagedEdit, stagedNew);
  const untracked = [];
  while (untracked.length < spec.dirty.untracked) {
    const path = newFilePath(r, directories, position);
    if (path === stagedNew || untracked.includes(path)) continue;
    untracked.push(path);
    writeNewFile(join(dir, path), fileContent(r.seed(), path));
  }
  await settleIndex(dir, Date.now());

  let deepest = 0;
  const populated = new Set();
  for (const path of live) {
    populated.add(dirname(path));
    deepest = Math.max(deepest, path.split("/").length - 1);
  }
  return {
    description:
      `${thousands(live.length)} files in ${thousands(populated.size)} directories up to ${deepest} deep, ` +
      `${thousands(spec.commits)} commits; dirty tree: ${unstaged.length} unstaged edits, 2 staged changes, ${untracked.length} untracked files`,
    files: live.length,
    commits: spec.commits,
    head: git(dir, "rev-parse", "HEAD"),
    blamePath,
    blameRange: middleRange(blameLines),
    blameFileCommits: (edits.get(blamePath) ?? 0) + 1,
    showCommit: commitOfIndex(dir, spec.commits, showCommitIndex),
    dirty: { unstaged, staged: [stagedEdit, stagedNew], untracked },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// long-file: one 20,000-line file with a deep history, for blame

const LONG_FILE = "src/engine/scheduler.ts";
const LONG_FILE_LINES = 20_000;
const LONG_FILE_COMMITS = 2_000;

async function generateLongFile(dir) {
  const r = random(0x5eed0003);
  const sign = signatures(r);
  const lines = Array.from({ length: LONG_FILE_LINES }, () => terseLine(r));
  const others = new Map(
    ["README.md", "src/index.ts", "src/engine/queue.ts", "src/engine/clock.ts", "test/scheduler.test.ts"].map((path) => [
      path,
      fileContent(r.seed(), path),
    ]),
  );
  const otherPaths = [...others.keys()];

  const importer = new FastImport(dir);
  await importer.commit({ ...sign(), message: "Initial import\n" }, [
    { path: LONG_FILE, content: `${lines.join("\n")}\n` },
    ...otherPaths.map((path) => ({ path, content: others.get(path) })),
  ]);
  let showCommitIndex;
  for (let index = 1; index < LONG_FILE_COMMITS; index++) {
    // Inserts and deletes balance, so the file stays near 20,000 lines while every region keeps changing.
    for (let i = r.between(2, 6); i > 0; i--) {
      const at = r.int(lines.length);
      const roll = r.int(4);
      if (roll < 2) lines.splice(at, r.between(1, 3), ...Array.from({ length: r.between(1, 3) }, () => terseLine(r)));
      else if (roll === 2) lines.splice(at, 0, ...Array.from({ length: r.between(1, 3) }, () => terseLine(r)));
      else lines.splice(at, r.between(1, 3));
    }
    const changes = [{ path: LONG_FILE, content: `${lines.join("\n")}\n` }];
    if (r.chance(0.1)) {
      for (const path of new Set([r.pick(otherPaths), r.pick(otherPaths)])) {
        others.set(path, edit(r, others.get(path), path, r.between(1, 3)));
        changes.push({ path, content: others.get(path) });
      }
    }
    if (showCommitIndex === undefined && index >= LONG_FILE_COMMITS / 2 && changes.length === 3) showCommitIndex = index;
    await importer.commit(
      { ...sign(), message: `${r.pick(COMMIT_KINDS)}(scheduler): ${r.pick(VERBS)} ${r.pick(NOUNS)} ${r.pick(NOUNS)}\n` },
      changes,
    );
  }
  await importer.close();
  checkOut(dir);
  await settleIndex(dir, Date.now());

  return {
    description: `${thousands(lines.length)}-line ${LONG_FILE} shaped by ${thousands(LONG_FILE_COMMITS)} commits, plus ${otherPaths.length} small files; clean tree`,
    files: 1 + otherPaths.length,
    commits: LONG_FILE_COMMITS,
    head: git(dir, "rev-parse", "HEAD"),
    blamePath: LONG_FILE,
    blameRange: middleRange(lines.length),
    showCommit: commitOfIndex(dir, LONG_FILE_COMMITS, showCommitIndex),
    lines: lines.length,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// big-diff: tracked files committed small, then grown in the working tree into a >= 500 MB unstaged diff

/**
 * Each tier is one directory, so git_diff's single `path` selects it; the whole change (no pathspec) is the
 * last tier. Lines only ever get appended, so git's diff does no real work and the figures measure the tools.
 */
const BIG_DIFF_PARTS = [
  { directory: "tier-1mb", files: 2, bytesPerFile: 500_000 },
  { directory: "tier-10mb", files: 10, bytesPerFile: 1_000_000 },
  { directory: "tier-100mb", files: 20, bytesPerFile: 5_000_000 },
  { directory: "bulk", files: 80, bytesPerFile: 5_000_000 },
];
const BIG_DIFF_COMMITS = 15;
const BIG_DIFF_NOTES = "notes/changelog.md";

async function generateBigDiff(dir) {
  const r = random(0x5eed0004);
  const sign = signatures(r);
  const grown = BIG_DIFF_PARTS.flatMap((part) =>
    Array.from({ length: part.files }, (_, i) => ({ path: `${part.directory}/part-${String(i).padStart(3, "0")}.txt`, bytes: part.bytesPerFile })),
  );
  const header = (path) => `# ${path}\n# Lines are appended below in the working tree.\n\n`;
  const small = new Map([
    [BIG_DIFF_NOTES, `${markdownLines(r, 9_000).join("\n")}\n`],
    ...["README.md", "src/app.ts", "src/store.ts", "src/render.ts", "src/api.ts"].map((path) => [path, fileContent(r.seed(), path)]),
  ]);
  const smallPaths = [...small.keys()];

  const importer = new FastImport(dir);
  await importer.commit({ ...sign(), message: "Initial import\n" }, [
    ...grown.map(({ path }) => ({ path, content: header(path) })),
    ...smallPaths.map((path) => ({ path, content: small.get(path) })),
  ]);
  for (let index = 1; index < BIG_DIFF_COMMITS; index++) {
    // Every commit edits the notes (blame's history); one in the middle edits three files (for git show).
    const paths = index === 7 ? [BIG_DIFF_NOTES, "src/app.ts", "src/store.ts"] : [BIG_DIFF_NOTES, ...(r.chance(0.3) ? [r.pick(smallPaths)] : [])];
    const changes = [...new Set(paths)].map((path) => {
      small.set(path, edit(r, small.get(path), path, r.between(2, 6)));
      return { path, content: small.get(path) };
    });
    await importer.commit({ ...sign(), message: `docs: ${r.pick(VERBS)} the ${r.pick(NOUNS)} notes\n` }, changes);
  }
  await importer.close();
  checkOut(dir);

  // Pure additions of ~80-byte lines, written a megabyte at a time.
  const pool = Array.from({ length: 1024 }, () => proseLine(r).slice(0, 70));
  let lineNumber = 0;
  for (const { path, bytes } of grown) {
    const fd = openSync(join(dir, path), "a");
    for (let written = header(path).length; written < bytes; ) {
      let chunk = "";
      while (chunk.length < 1 << 20 && written + chunk.length < bytes) chunk += `${String(lineNumber++).padStart(8, "0")} ${r.pick(pool)}\n`;
      writeSync(fd, chunk);
      written += chunk.length;
    }
    closeSync(fd);
  }
  await settleIndex(dir, Date.now());

  const tiers = [];
  for (const { directory } of BIG_DIFF_PARTS.slice(0, -1)) {
    tiers.push({
      label: directory.slice("tier-".length).toUpperCase().replace("MB", " MB"),
      pathspecs: [directory],
      diffBytes: await outputBytes(dir, ["diff", "--", directory]),
    });
  }
  const diffBytes = await outputBytes(dir, ["diff"]);
  tiers.push({ label: "whole change", pathspecs: [], diffBytes });
  const notesLines = small.get(BIG_DIFF_NOTES).split("\n").length - 1;

  return {
    description:
      `${grown.length} tracked files committed small and grown in the working tree by appended lines: an unstaged diff of ` +
      `${(diffBytes / 1e6).toFixed(1)} MB; ${BIG_DIFF_COMMITS} commits`,
    files: grown.length + smallPaths.length,
    commits: BIG_DIFF_COMMITS,
    head: git(dir, "rev-parse", "HEAD"),
    blamePath: BIG_DIFF_NOTES,
    blameRange: middleRange(notesLines),
    showCommit: commitOfIndex(dir, BIG_DIFF_COMMITS, 7),
    diffBytes,
    growthTiers: tiers,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Reuse, locking and the command line

const stampPath = (kind) => join(REPOSITORIES_DIR, `${kind}.json`);
const repositoryDir = (kind) => join(REPOSITORIES_DIR, kind);

function readStamp(kind) {
  try {
    const stamp = JSON.parse(readFileSync(stampPath(kind), "utf8"));
    if (stamp.generatorVersion !== GENERATOR_VERSION || !existsSync(join(repositoryDir(kind), ".git"))) return undefined;
    return { ...stamp.repository, dir: repositoryDir(kind) };
  } catch {
    return undefined;
  }
}

function processAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return true; // a lock being written right now
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** Two benchmarks may ask for the same kind at once; one generates, the other waits for its stamp. */
async function withLock(kind, action) {
  mkdirSync(REPOSITORIES_DIR, { recursive: true });
  const lock = join(REPOSITORIES_DIR, `${kind}.lock`);
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      let holder;
      try {
        holder = Number(readFileSync(lock, "utf8"));
      } catch {
        continue; // released meanwhile
      }
      if (processAlive(holder)) await sleep(500);
      else rmSync(lock, { force: true });
    }
  }
  try {
    return await action();
  } finally {
    rmSync(lock, { force: true });
  }
}

async function generate(kind) {
  return withLock(kind, async () => {
    const existing = readStamp(kind);
    if (existing !== undefined) return existing;
    const dir = repositoryDir(kind);
    rmSync(stampPath(kind), { force: true });
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`repos: generating ${kind}...\n`);
    const start = performance.now();
    initRepository(dir);
    const details = await GENERATORS[kind](dir);
    const repository = { kind, dir: `bench/.repos/${kind}`, ...details };
    const seconds = (performance.now() - start) / 1000;
    // Last, so an interrupted generation is never mistaken for a finished one.
    writeFileSync(
      stampPath(kind),
      `${JSON.stringify({ generatorVersion: GENERATOR_VERSION, generatedInSeconds: Number(seconds.toFixed(1)), repository }, null, 2)}\n`,
    );
    process.stderr.write(`repos: ${kind} generated in ${seconds.toFixed(1)} s\n`);
    generatedHere.add(kind);
    return { ...repository, dir };
  });
}

const ensured = new Map();
const generatedHere = new Set();

/** Generates the repository of this kind unless an up-to-date one exists; returns its description. */
export function ensureRepository(kind) {
  if (!(kind in GENERATORS)) return Promise.reject(new Error(`Unknown repository kind "${kind}"; known: ${Object.keys(GENERATORS).join(", ")}`));
  if (!ensured.has(kind)) ensured.set(kind, Promise.resolve(readStamp(kind) ?? generate(kind)));
  return ensured.get(kind);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const kinds = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(GENERATORS);
  const start = performance.now();
  for (const kind of kinds) {
    const kindStart = performance.now();
    const repository = await ensureRepository(kind);
    const seconds = ((performance.now() - kindStart) / 1000).toFixed(1);
    console.log(
      `${kind}: ${generatedHere.has(kind) ? "generated" : "up to date, reused"} in ${seconds} s; HEAD ${repository.head}; ${repository.description}`,
    );
  }
  console.log(`total: ${((performance.now() - start) / 1000).toFixed(1)} s`);
}
