/**
 * Where the adapters and the agent loop sit: src/adapters/ and src/agent/ are at the top (L5), beside the CLI
 * and MCP. Nothing in the library imports them; the agent loop composes the adapters; the CLI reaches the
 * agent only through `gitctx demo`, with a dynamic import. No source file imports a vendor SDK except for
 * types (`import type`), which vanish from the build.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..", "src");
const VENDORS = ["@anthropic-ai/sdk", "openai", "ai"];

interface Edge {
  from: string;
  to: string;
  kind: "value" | "type" | "dynamic";
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** Every import of every source file: `to` is a path below src/ for a relative import, else the package name. */
function imports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    const from = relative(SRC, file);
    const add = (specifier: string, kind: Edge["kind"]): void => {
      const to = specifier.startsWith(".") ? relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, ".ts") : specifier;
      edges.push({ from, to, kind });
    };
    // The clause is braces, `* as name` or a default name: never free text, so prose in comments is not read as code.
    const clause = /^(?:import|export)\s+(type\s+)?(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*\{[^}]*\})?)\s+from\s+"([^"]+)"/gm;
    for (const match of text.matchAll(clause)) add(match[2] as string, match[1] ? "type" : "value");
    for (const match of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) add(match[1] as string, "dynamic");
  }
  return edges;
}

const edges = imports();
const inside = (path: string, folder: string): boolean => path.startsWith(`${folder}/`);

describe("the adapters' and the agent's place in the layers", () => {
  it("finds the imports it checks (the check can see an edge)", () => {
    expect(edges).toContainEqual({ from: "agent/loop.ts", to: "adapters/shared.ts", kind: "value" });
    expect(edges).toContainEqual({ from: "cli/demo-command.ts", to: "agent/index.ts", kind: "dynamic" });
  });

  it("only the adapters themselves and the agent loop import src/adapters/", () => {
    const importers = edges.filter((edge) => inside(edge.to, "adapters") && !inside(edge.from, "adapters") && !inside(edge.from, "agent"));
    expect(importers).toEqual([]);
  });

  it("only the agent itself and `gitctx demo` import src/agent/, the demo at run time only", () => {
    const importers = edges.filter((edge) => inside(edge.to, "agent") && !inside(edge.from, "agent"));
    expect(importers.map((edge) => `${edge.from} ${edge.kind}`).sort()).toEqual(["cli/demo-command.ts dynamic", "cli/demo-command.ts type"]);
  });

  it("the adapters and the agent never import the CLI or MCP", () => {
    const upward = edges.filter((edge) => (inside(edge.from, "adapters") || inside(edge.from, "agent")) && (inside(edge.to, "cli") || inside(edge.to, "mcp")));
    expect(upward).toEqual([]);
  });

  it("vendor SDKs are imported for their types only", () => {
    const vendor = edges.filter((edge) => VENDORS.some((name) => edge.to === name || edge.to.startsWith(`${name}/`)));
    expect(vendor.length).toBeGreaterThan(0);
    expect(vendor.filter((edge) => edge.kind !== "type")).toEqual([]);
  });
});
