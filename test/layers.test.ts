/**
 * The layers of DESIGN.md, enforced: every import in `src/` (type-only and dynamic ones included) goes to the same
 * layer or a lower one, the import graph has no cycle, nothing imports the adapters, and no tool imports the MCP
 * SDK. The check itself is tested on a planted graph, so a broken checker cannot pass silently.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** Folder (or file) → layer, most specific first. Paths are relative to `src/`, `/`-separated. */
const LAYERS: ReadonlyArray<[prefix: string, layer: number]> = [
  ["errors.ts", 0],
  ["types.ts", 0],
  ["text.ts", 0],
  ["git/parse/", 1],
  ["safety/", 1],
  ["instructions/parse.ts", 1],
  ["git/", 2],
  ["context/", 3],
  ["diff/", 3],
  ["instructions/", 3],
  ["worktree/", 3],
  ["watch/", 3],
  ["guard/", 3],
  ["session/", 4],
  ["tools/", 4],
  ["mcp/", 5],
  ["cli/", 5],
  ["adapters/", 5],
  ["agent/", 5],
  // The public entry re-exports the library; the CLI and MCP server build on it, so it sits just below them.
  ["index.ts", 4.5],
];

export function layerOf(file: string): number | undefined {
  return LAYERS.find(([prefix]) => file === prefix || (prefix.endsWith("/") && file.startsWith(prefix)))?.[1];
}

interface Edge {
  from: string;
  to: string;
}

/** Every edge that breaks a rule, as a sentence. */
export function violations(files: readonly string[], edges: readonly Edge[], external: readonly Edge[]): string[] {
  const problems: string[] = [];
  for (const file of files) if (layerOf(file) === undefined) problems.push(`${file} is in no layer`);
  for (const { from, to } of edges) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a !== undefined && b !== undefined && b > a) problems.push(`${from} (L${a}) imports ${to} (L${b}), a higher layer`);
    if (to.startsWith("adapters/") && !from.startsWith("adapters/")) problems.push(`${from} imports the adapter ${to}`);
  }
  for (const { from, to } of external) {
    if (from.startsWith("tools/") && to.startsWith("@modelcontextprotocol/")) problems.push(`${from} imports the MCP SDK (${to})`);
  }
  for (const cycle of cycles(files, edges)) problems.push(`import cycle: ${cycle.join(" -> ")}`);
  return problems;
}

/** The strongly connected components with more than one file (or a file importing itself), each as a path. */
function cycles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (next.get(file) ?? []).includes(file)) found.push([...component.reverse(), component[0]!]);
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(SRC, path).split(sep).join("/")] : [];
  });
}

/** Imports of every file: static, `import type`, `export ... from`, and `import()`. */
function importGraph(): { files: string[]; edges: Edge[]; external: Edge[] } {
  const files = sourceFiles(SRC);
  const edges: Edge[] = [];
  const external: Edge[] = [];
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(SRC, file), "utf8"), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith(".")) {
        external.push({ from: file, to: fileName });
        continue;
      }
      const target = relative(SRC, resolve(SRC, dirname(file), fileName)).split(sep).join("/").replace(/\.js$/, ".ts");
      edges.push({ from: file, to: target });
    }
  }
  return { files, edges, external };
}

describe("the layers", () => {
  it("has no upward import, no cycle, no import of the adapters and no MCP SDK in the tools", () => {
    const { files, edges, external } = importGraph();
    expect(files.length).toBeGreaterThan(40);
    expect(edges.length).toBeGreaterThan(100);
    expect(violations(files, edges, external)).toEqual([]);
  });

  it("catches a planted upward import, an adapter import, a cycle (type-only ones too) and the SDK in a tool", () => {
    const files = ["git/run.ts", "tools/git-status.ts", "cli/program.ts", "cli/check-command.ts", "adapters/openai.ts", "mystery.ts"];
    const edges: Edge[] = [
      { from: "git/run.ts", to: "tools/git-status.ts" },
      { from: "cli/program.ts", to: "cli/check-command.ts" },
      { from: "cli/check-command.ts", to: "cli/program.ts" },
      { from: "cli/program.ts", to: "adapters/openai.ts" },
    ];
    const external: Edge[] = [{ from: "tools/git-status.ts", to: "@modelcontextprotocol/sdk/types.js" }];
    expect(violations(files, edges, external)).toEqual([
      "mystery.ts is in no layer",
      "git/run.ts (L2) imports tools/git-status.ts (L4), a higher layer",
      "cli/program.ts imports the adapter adapters/openai.ts",
      "tools/git-status.ts imports the MCP SDK (@modelcontextprotocol/sdk/types.js)",
      "import cycle: cli/program.ts -> cli/check-command.ts -> cli/program.ts",
    ]);
  });
});
