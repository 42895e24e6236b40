/**
 * The layers of DESIGN.md, enforced: every import in `src/` (type-only and dynamic ones included) goes to the same
 * layer or a lower one, the import graph has no cycle, nothing but the agent loop imports the adapters, only the
 * demo command reaches the agent (at run time, by `import()`), no tool imports the MCP SDK, and vendor SDKs are
 * imported for their types only. The check itself is tested on a planted graph, so a broken checker cannot pass
 * silently.
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
  ["instructions/glob.ts", 1],
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
  /** `type`: `import type` / `export type` (erased from the build); `dynamic`: `import()`. Default: a value import. */
  kind?: "type" | "dynamic";
}

/** Vendor SDKs the adapters speak to: optional peers, never loaded by gitctx itself. */
const VENDORS = ["@anthropic-ai/sdk", "openai", "ai"];

/** Every edge that breaks a rule, as a sentence. */
export function violations(files: readonly string[], edges: readonly Edge[], external: readonly Edge[]): string[] {
  const problems: string[] = [];
  for (const file of files) if (layerOf(file) === undefined) problems.push(`${file} is in no layer`);
  for (const { from, to } of edges) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a !== undefined && b !== undefined && b > a) problems.push(`${from} (L${a}) imports ${to} (L${b}), a higher layer`);
    if (to.startsWith("adapters/") && !from.startsWith("adapters/") && !from.startsWith("agent/")) problems.push(`${from} imports the adapter ${to}`);
    if (to.startsWith("agent/") && !from.startsWith("agent/") && !(from === "cli/demo-command.ts" && edgeKind(from, to, edges) !== "value")) {
      problems.push(`${from} imports the agent ${to} (only gitctx demo may, at run time)`);
    }
  }
  for (const { from, to, kind } of external) {
    if (from.startsWith("tools/") && to.startsWith("@modelcontextprotocol/")) problems.push(`${from} imports the MCP SDK (${to})`);
    if (VENDORS.some((name) => to === name || to.startsWith(`${name}/`)) && kind !== "type") problems.push(`${from} loads the vendor SDK ${to}`);
  }
  for (const cycle of cycles(files, edges)) problems.push(`import cycle: ${cycle.join(" -> ")}`);
  return problems;
}

/** How `from` imports `to`: `value` if any of its imports of it is a plain one. */
function edgeKind(from: string, to: string, edges: readonly Edge[]): "value" | "type" | "dynamic" {
  const kinds = edges.filter((edge) => edge.from === from && edge.to === to).map((edge) => edge.kind ?? "value");
  return kinds.includes("value") ? "value" : kinds.includes("dynamic") ? "dynamic" : "type";
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

/** Imports of every file, read from its syntax tree: static, `import type`, `export ... from`, and `import()`. */
function importGraph(): { files: string[]; edges: Edge[]; external: Edge[] } {
  const files = sourceFiles(SRC);
  const edges: Edge[] = [];
  const external: Edge[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(SRC, file), "utf8"), ts.ScriptTarget.Latest, true);
    const add = (specifier: string, kind: Edge["kind"]): void => {
      const edge: Edge = specifier.startsWith(".")
        ? {
            from: file,
            to: relative(SRC, resolve(SRC, dirname(file), specifier))
              .split(sep)
              .join("/")
              .replace(/\.js$/, ".ts"),
          }
        : { from: file, to: specifier };
      if (kind !== undefined) edge.kind = kind;
      (specifier.startsWith(".") ? edges : external).push(edge);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const typeOnly = clause !== undefined && (clause.isTypeOnly || allNamedTypeOnly(clause.namedBindings, clause.name));
        add(node.moduleSpecifier.text, typeOnly ? "type" : undefined);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, node.isTypeOnly ? "type" : undefined);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument !== undefined && ts.isStringLiteral(argument)) add(argument.text, "dynamic");
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { files, edges, external };
}

/** `import { type A, type B } from "x"` erases like `import type`, when nothing else is imported. */
function allNamedTypeOnly(bindings: ts.NamedImportBindings | undefined, name: ts.Identifier | undefined): boolean {
  if (name !== undefined || bindings === undefined || !ts.isNamedImports(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

describe("the layers", () => {
  it("has no upward import, no cycle, no import of the adapters and no MCP SDK in the tools", () => {
    const { files, edges, external } = importGraph();
    expect(files.length).toBeGreaterThan(40);
    expect(edges.length).toBeGreaterThan(100);
    // The reader sees each kind of edge it judges.
    expect(edges).toContainEqual({ from: "agent/loop.ts", to: "adapters/shared.ts" });
    expect(edges).toContainEqual({ from: "cli/demo-command.ts", to: "agent/index.ts", kind: "dynamic" });
    expect(external.some((edge) => edge.kind === "type" && VENDORS.includes(edge.to))).toBe(true);
    expect(violations(files, edges, external)).toEqual([]);
  });

  it("catches a planted upward import, an adapter or agent import, a cycle (type-only ones too), the SDK in a tool and a vendor load", () => {
    const files = [
      "git/run.ts",
      "tools/git-status.ts",
      "cli/program.ts",
      "cli/check-command.ts",
      "adapters/openai.ts",
      "agent/loop.ts",
      "mystery.ts",
    ];
    const edges: Edge[] = [
      { from: "git/run.ts", to: "tools/git-status.ts" },
      { from: "cli/program.ts", to: "cli/check-command.ts" },
      { from: "cli/check-command.ts", to: "cli/program.ts", kind: "type" },
      { from: "cli/program.ts", to: "adapters/openai.ts" },
      { from: "cli/program.ts", to: "agent/loop.ts", kind: "dynamic" },
      { from: "agent/loop.ts", to: "adapters/openai.ts" },
    ];
    const external: Edge[] = [
      { from: "tools/git-status.ts", to: "@modelcontextprotocol/sdk/types.js" },
      { from: "adapters/openai.ts", to: "openai" },
      { from: "adapters/openai.ts", to: "@anthropic-ai/sdk", kind: "type" },
    ];
    expect(violations(files, edges, external)).toEqual([
      "mystery.ts is in no layer",
      "git/run.ts (L2) imports tools/git-status.ts (L4), a higher layer",
      "cli/program.ts imports the adapter adapters/openai.ts",
      "cli/program.ts imports the agent agent/loop.ts (only gitctx demo may, at run time)",
      "tools/git-status.ts imports the MCP SDK (@modelcontextprotocol/sdk/types.js)",
      "adapters/openai.ts loads the vendor SDK openai",
      "import cycle: cli/program.ts -> cli/check-command.ts -> cli/program.ts",
    ]);
  });
});
