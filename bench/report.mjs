// Assembles the benchmark report from the fragments the benchmarks leave in bench/.results/*.json
// ({ title, markdown, data }): BENCHMARKS.md at the repository root, bench/results.json (every figure, for
// tools) and bench/chart.svg (latency against plain git, per operation and peer, from the compare fragment).
// A fragment missing from bench/.results/ is carried from the last report (bench/results.json keeps each section's
// text and when it was measured), saying so, so one benchmark can be rerun alone; one never measured is named as
// missing. Run after the benchmarks: `node bench/report.mjs` (`npm run bench` runs everything).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { arch, cpus, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, "..");
const fragmentsDir = join(here, ".results");
/** The sections every full run should produce, in reading order; any other fragment follows them. */
const EXPECTED = ["overhead", "compare", "snapshot", "memory", "classify", "adapters", "instructions", "watch", "worktree", "bounds", "lfs"];
const PEER_PACKAGES = ["@modelcontextprotocol/sdk", "simple-git", "isomorphic-git", "@cyanheads/git-mcp-server", "ai"];

function readFragments() {
  const found = {};
  if (!existsSync(fragmentsDir)) return found;
  for (const file of readdirSync(fragmentsDir)
    .filter((name) => name.endsWith(".json"))
    .sort()) {
    const name = file.slice(0, -".json".length);
    try {
      found[name] = JSON.parse(readFileSync(join(fragmentsDir, file), "utf8"));
    } catch (error) {
      found[name] = { title: name, markdown: `## ${name}\n\nThe fragment bench/.results/${file} could not be read: ${error.message}\n`, data: null };
    }
  }
  return found;
}

function packageVersion(path) {
  try {
    return JSON.parse(readFileSync(join(projectRoot, path, "package.json"), "utf8")).version;
  } catch {
    return "not installed";
  }
}

function osName() {
  try {
    const pretty = readFileSync("/etc/os-release", "utf8").match(/^PRETTY_NAME="?([^"\n]*)"?$/m)?.[1];
    if (pretty !== undefined) return `${pretty} (kernel ${release()}, ${arch()})`;
  } catch {
    // Not Linux: the kernel release below is all there is.
  }
  return `${process.platform} ${release()} (${arch()})`;
}

function machine() {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? "unknown",
    cores: processors.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: osName(),
  };
}

function versions() {
  const found = {
    gitctx: packageVersion("."),
    node: process.version,
    git: execFileSync("git", ["--version"])
      .toString()
      .trim()
      .replace(/^git version /, ""),
  };
  for (const name of PEER_PACKAGES) found[name] = packageVersion(join("node_modules", name));
  return found;
}

// ---- chart ----

const CHART_PEERS = [
  { id: "gitctx", name: "gitctx library", color: "#0072B2" },
  { id: "gitctxMcp", name: "gitctx MCP stdio", color: "#56B4E9" },
  { id: "simpleGit", name: "simple-git", color: "#E69F00" },
  { id: "isomorphicGit", name: "isomorphic-git", color: "#009E73" },
  { id: "cyanheads", name: "cyanheads MCP", color: "#CC79A7" },
];
const CHART_LABELS = {
  status: "status",
  diffSummary: "diff summary",
  diffPatch: "diff patch",
  log: "log (20)",
  show: "show",
  blameRange: "blame range",
  blameWhole: "blame whole file",
};
const WIDTH = 800;
const PLOT_LEFT = 64;
const PLOT_RIGHT = WIDTH - 24;
const PLOT_HEIGHT = 210;
const BAR_WIDTH = 16;
const FONT = "font-family=\"-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\"";

const escapeXml = (text) => String(text).replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
const round = (value) => Math.round(value * 10) / 10;
const formatRatio = (ratio) => (ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(0));

/** Tick values 1-2-5 per decade covering [low, high]. */
function logTicks(low, high) {
  const ticks = [];
  for (let decade = Math.floor(Math.log10(low)); decade <= Math.ceil(Math.log10(high)); decade++) {
    for (const step of [1, 2, 5]) {
      const value = step * 10 ** decade;
      if (value >= low * 0.999 && value <= high * 1.001) ticks.push(value);
    }
  }
  return ticks;
}

function chart(compare, targetRatio) {
  const panels = compare.repositories.map((repository) => ({
    title: `${repository.kind}: ${repository.files?.toLocaleString("en-US") ?? "?"} files, ${repository.commits?.toLocaleString("en-US") ?? "?"} commits`,
    groups: repository.operations.map((operation) => ({
      label: CHART_LABELS[operation.id] ?? operation.label,
      bars: CHART_PEERS.map((peer) => ({
        peer,
        ratio: operation.peers[peer.id]?.ratio,
        limited: operation.peers[peer.id]?.budgetNote !== undefined,
      })),
    })),
  }));
  const ratios = panels.flatMap((panel) => panel.groups.flatMap((group) => group.bars.map((bar) => bar.ratio))).filter((ratio) => ratio > 0);
  const spread = Math.max(...ratios, targetRatio) / Math.min(...ratios, 1);
  // Linear when every ratio is within a small range; a log scale once one peer is orders of magnitude away.
  const logScale = spread > 8;
  const low = logScale ? Math.min(0.5, ...ratios.map((ratio) => ratio * 0.9)) : 0;
  const high = Math.max(...ratios, targetRatio) * (logScale ? 1.6 : 1.15);
  const ticks = logScale ? logTicks(low, high) : linearTicks(high);
  const y = (ratio, top) => {
    const share = logScale ? (Math.log10(ratio) - Math.log10(low)) / (Math.log10(high) - Math.log10(low)) : ratio / high;
    return round(top + PLOT_HEIGHT * (1 - share));
  };

  const parts = [];
  const titleHeight = 84;
  const panelHeight = PLOT_HEIGHT + 74;
  const height = titleHeight + panels.length * panelHeight + 10;
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ${FONT} font-size="12" role="img" aria-labelledby="chart-title">`,
    `<title id="chart-title">Median latency of each git layer relative to plain git, per operation and repository</title>`,
    `<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold" fill="#1f2328">Median latency relative to plain git (lower is better${logScale ? ", log scale" : ""})</text>`,
  );
  // Peers on the first line, the two reference lines on the second; about 7.2 px per character at 12 px.
  const legendRows = [
    CHART_PEERS.map((peer) => ({ ...peer, kind: "bar" })),
    [
      { name: "plain git = 1× (the floor)", kind: "floor" },
      { name: `${targetRatio}× target`, kind: "target" },
      { name: "* fewer rounds (slow)", kind: "note" },
    ],
  ];
  legendRows.forEach((items, row) => {
    const widths = items.map((item) => (item.kind === "note" ? 0 : 17) + item.name.length * 7.2 + 22);
    let x = (WIDTH - widths.reduce((sum, width) => sum + width, 0)) / 2;
    const yTop = 38 + row * 20;
    items.forEach((item, index) => {
      const left = round(x);
      x += widths[index];
      if (item.kind === "bar") parts.push(`<rect x="${left}" y="${yTop}" width="12" height="12" fill="${item.color}"/>`);
      if (item.kind === "floor")
        parts.push(`<line x1="${left}" y1="${yTop + 6}" x2="${left + 12}" y2="${yTop + 6}" stroke="#1f2328" stroke-width="2"/>`);
      if (item.kind === "target")
        parts.push(
          `<line x1="${left}" y1="${yTop + 6}" x2="${left + 12}" y2="${yTop + 6}" stroke="#cf222e" stroke-width="2" stroke-dasharray="4 3"/>`,
        );
      parts.push(`<text x="${item.kind === "note" ? left : left + 17}" y="${yTop + 10}" fill="#1f2328">${escapeXml(item.name)}</text>`);
    });
  });

  panels.forEach((panel, panelIndex) => {
    const top = titleHeight + panelIndex * panelHeight + 22;
    const bottom = top + PLOT_HEIGHT;
    parts.push(`<text x="${PLOT_LEFT}" y="${top - 8}" font-size="13" font-weight="bold" fill="#1f2328">${escapeXml(panel.title)}</text>`);
    for (const tick of ticks) {
      const ty = y(tick, top);
      parts.push(
        `<line x1="${PLOT_LEFT}" y1="${ty}" x2="${PLOT_RIGHT}" y2="${ty}" stroke="#d0d7de" stroke-width="1"/>`,
        `<text x="${PLOT_LEFT - 6}" y="${ty + 4}" text-anchor="end" font-size="11" fill="#57606a">${tick}×</text>`,
      );
    }
    parts.push(
      `<line x1="${PLOT_LEFT}" y1="${top}" x2="${PLOT_LEFT}" y2="${bottom}" stroke="#57606a" stroke-width="1"/>`,
      `<text transform="translate(16 ${round(top + PLOT_HEIGHT / 2)}) rotate(-90)" text-anchor="middle" font-size="11" fill="#57606a">× plain git's median</text>`,
    );
    const groupWidth = (PLOT_RIGHT - PLOT_LEFT) / Math.max(panel.groups.length, 1);
    const base = y(logScale ? 1 : 0, top);
    panel.groups.forEach((group, groupIndex) => {
      const center = PLOT_LEFT + groupWidth * (groupIndex + 0.5);
      const first = center - (CHART_PEERS.length * (BAR_WIDTH + 2)) / 2;
      group.bars.forEach((bar, barIndex) => {
        if (!(bar.ratio > 0)) return; // a peer without the operation, or one that failed, has no bar
        const x = round(first + barIndex * (BAR_WIDTH + 2));
        const end = y(bar.ratio, top);
        const [barTop, barHeight] = end < base ? [end, base - end] : [base, end - base];
        parts.push(
          `<rect x="${x}" y="${round(barTop)}" width="${BAR_WIDTH}" height="${round(Math.max(barHeight, 1))}" fill="${bar.peer.color}"><title>${escapeXml(`${bar.peer.name}, ${group.label}: ${formatRatio(bar.ratio)}× plain git${bar.limited ? " (fewer rounds: slow)" : ""}`)}</title></rect>`,
          // Above the bar's top: the end of a rising bar, the 1× line for one that falls (below it are the labels).
          `<text transform="translate(${round(x + BAR_WIDTH / 2 + 3.5)} ${round(Math.min(end, base) - 3)}) rotate(-90)" font-size="9.5" fill="#1f2328">${formatRatio(bar.ratio)}${bar.limited ? "*" : ""}</text>`,
        );
      });
      parts.push(`<text x="${round(center)}" y="${bottom + 18}" text-anchor="middle" fill="#1f2328">${escapeXml(group.label)}</text>`);
    });
    const floorY = y(1, top);
    const targetY = y(targetRatio, top);
    parts.push(
      `<line x1="${PLOT_LEFT}" y1="${floorY}" x2="${PLOT_RIGHT}" y2="${floorY}" stroke="#1f2328" stroke-width="1.5"/>`,
      `<line x1="${PLOT_LEFT}" y1="${targetY}" x2="${PLOT_RIGHT}" y2="${targetY}" stroke="#cf222e" stroke-width="1.5" stroke-dasharray="5 4"/>`,
    );
  });
  parts.push(
    `<text x="${WIDTH - 10}" y="${height - 8}" text-anchor="end" font-size="10" fill="#57606a">Bars start at plain git (1×); the figures are in BENCHMARKS.md.</text>`,
    "</svg>",
  );
  return `${parts.join("\n")}\n`;
}

function linearTicks(high) {
  const step = high <= 2 ? 0.25 : high <= 5 ? 0.5 : 1;
  const ticks = [];
  for (let value = 0; value <= high; value += step) ticks.push(Math.round(value * 100) / 100);
  return ticks;
}

/** Every tag closed in order: enough to catch a broken chart before GitHub shows a broken image. */
function assertWellFormed(svg) {
  const open = [];
  for (const [, closing, name, selfClosing] of svg.matchAll(/<(\/?)([a-zA-Z][\w:-]*)(?:\s[^<>]*?)?(\/?)>/g)) {
    if (selfClosing) continue;
    if (!closing) open.push(name);
    else if (open.pop() !== name) throw new Error(`chart.svg is not well-formed near </${name}>`);
  }
  if (open.length > 0) throw new Error(`chart.svg leaves <${open.join(">, <")}> open`);
  if (/&(?!#\d+;|amp;|lt;|gt;|quot;|apos;)/.test(svg)) throw new Error("chart.svg has an unescaped &");
}

// ---- report ----

function formatDuration(seconds) {
  return seconds < 90 ? `${Math.round(seconds)} s` : `${(seconds / 60).toFixed(1)} minutes`;
}

function machineBlock(info) {
  const rows = [
    ["date", info.generatedAt],
    ["cpu", `${info.machine.cpu}, ${info.machine.cores} cores`],
    ["memory", `${info.machine.memoryGiB} GiB`],
    ["os", info.machine.os],
    ...Object.entries(info.versions),
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`);
}

function renderReport(fragments, info, chartWritten) {
  const compare = fragments.compare?.data;
  const durations = Object.entries(fragments)
    .filter(([, fragment]) => typeof fragment.data?.totalSeconds === "number")
    .map(([name, fragment]) => `${name} ${formatDuration(fragment.data.totalSeconds)}`);
  const lines = [
    "# Benchmarks",
    "",
    "What gitctx costs over the git it runs, and how it compares with the other ways an agent reads git: plain " +
      "git spawned from Node (the floor), the gitctx library, gitctx over MCP stdio, simple-git, isomorphic-git and " +
      "@cyanheads/git-mcp-server over MCP stdio, side by side in one run on the same generated repositories " +
      "(small, large, one long file), rounds alternating between peers; medians and ratios to plain git, never " +
      "absolute thresholds. Also the tokens each answer costs a model, the repository snapshot, memory on a " +
      "very large diff, the command classifier, the agent loop's adapters, the instruction-file loader and file " +
      "watching, and the fixed cost of one call. Figures depend on the machine and its load: rerun rather " +
      "than trust old ones.",
    "",
    "## Reproduce",
    "",
    "```sh",
    "npm run bench",
    "```",
    "",
    "It builds, generates the repositories on first use (cached under `bench/.repos/`, which takes a while " +
      "once), runs each benchmark (each leaves its section in `bench/.results/`) and then `node bench/report.mjs`, " +
      "which writes this file, `bench/results.json` and `bench/chart.svg`." +
      (durations.length > 0 ? ` Run times here, repositories already generated: ${durations.join(", ")}.` : "") +
      " `BENCH_QUICK=1 node bench/compare.mjs` is a short development run.",
    "",
    "## Machine",
    "",
    "```",
    ...machineBlock(info),
    "```",
    "",
  ];
  if (chartWritten) {
    lines.push(
      "![Median latency of the gitctx library, gitctx over MCP, simple-git, isomorphic-git and cyanheads' MCP server relative to plain git, per operation](bench/chart.svg)",
      "",
    );
  }
  if (compare?.quick) lines.push("> These figures come from a quick run (`BENCH_QUICK=1`): too few rounds to trust.", "");
  const order = [...EXPECTED, ...Object.keys(fragments).filter((name) => !EXPECTED.includes(name))];
  for (const name of order) {
    const fragment = fragments[name];
    if (fragment === undefined) {
      lines.push(`## ${name}`, "", `Not measured in this run: bench/.results/${name}.json is missing.`, "");
      continue;
    }
    lines.push(withCarriedNote(fragment).replace(/\s+$/, ""), "");
  }
  return lines.join("\n");
}

/**
 * The sections of the last report that this run did not measure, as fragments marked with when they were measured.
 * A section of a report written before the text was kept has none to carry.
 */
function carriedFragments(measured) {
  const file = join(here, "results.json");
  if (!existsSync(file)) return {};
  const last = JSON.parse(readFileSync(file, "utf8"));
  const carried = {};
  for (const [name, markdown] of Object.entries(last.markdown ?? {})) {
    if (measured[name] !== undefined) continue;
    const measuredAt = last.measuredAt?.[name] ?? last.generatedAt;
    const measuredOn = last.measuredOn?.[name] ?? last.machine;
    carried[name] = { markdown, data: last.sections?.[name] ?? null, measuredAt, measuredOn };
  }
  return carried;
}

/** A carried section's text, with a line under its heading saying it was not rerun. */
function withCarriedNote(fragment) {
  if (fragment.measuredAt === undefined) return fragment.markdown;
  const [heading, ...rest] = fragment.markdown.split("\n");
  const on = fragment.measuredOn === undefined ? "" : ` on ${fragment.measuredOn.cpu}, ${fragment.measuredOn.cores} cores`;
  const note = `_Carried from the run of ${fragment.measuredAt}${on}: not rerun for this report, whose machine is described above._`;
  return [heading, "", note, ...rest].join("\n");
}

const measured = readFragments();
const generatedAt = new Date().toISOString();
const fragments = { ...measured, ...carriedFragments(measured) };
const info = { generatedAt, machine: machine(), versions: versions() };
const compare = fragments.compare?.data;
let chartWritten = false;
if (compare?.repositories?.length > 0) {
  const svg = chart(compare, compare.targetRatio ?? 1.15);
  assertWellFormed(svg);
  writeFileSync(join(here, "chart.svg"), svg);
  chartWritten = true;
}
writeFileSync(join(projectRoot, "BENCHMARKS.md"), renderReport(fragments, info, chartWritten));
const sections = Object.fromEntries(Object.entries(fragments).map(([name, fragment]) => [name, fragment.data]));
const markdown = Object.fromEntries(Object.entries(fragments).map(([name, fragment]) => [name, fragment.markdown]));
const measuredAt = Object.fromEntries(Object.entries(fragments).map(([name, fragment]) => [name, fragment.measuredAt ?? generatedAt]));
const measuredOn = Object.fromEntries(Object.entries(fragments).map(([name, fragment]) => [name, fragment.measuredOn ?? info.machine]));
writeFileSync(join(here, "results.json"), `${JSON.stringify({ ...info, measuredAt, measuredOn, sections, markdown }, null, 2)}\n`);
const missing = EXPECTED.filter((name) => fragments[name] === undefined);
console.error(
  `BENCHMARKS.md, bench/results.json${chartWritten ? ", bench/chart.svg" : ""} written${missing.length > 0 ? `; missing: ${missing.join(", ")}` : ""}.`,
);
