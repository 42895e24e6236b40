/**
 * The README's promises that a reader checks first: one tools table with a row for every tool (a blank line
 * inside a Markdown table ends it), client snippets that work from a clone before the published form, the
 * license package.json names.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TOOLS } from "../src/tools/registry.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

describe("README", () => {
  it("has one tools table, its rows contiguous, a row for every tool", () => {
    const lines = README.split("\n");
    const header = lines.indexOf("| tool | parameters | what it answers |");
    expect(header).toBeGreaterThan(-1);
    let end = header;
    while (lines[end + 1]?.startsWith("|")) end++;
    const names = lines.slice(header + 2, end + 1).map((line) => /^\| `([a-z_]+)` \|/.exec(line)?.[1]);
    expect(names).toEqual(TOOLS.map((tool) => tool.name));
  });

  it("shows the from-a-clone form of every client snippet before the published npx form", () => {
    const mcp = README.slice(README.indexOf("## MCP server"), README.indexOf("## Safety for shell git"));
    const firstClone = mcp.indexOf("/absolute/path/to/gitctx/dist/bin/gitctx.js");
    expect(firstClone).toBeGreaterThan(-1);
    expect(mcp.indexOf("npx -y gitctx")).toBeGreaterThan(firstClone);
    // Every JSON config snippet runs the clone's build.
    for (const snippet of mcp.match(/```json\n[^\n]*\n```/g) ?? []) {
      if (snippet.includes('"command"'))
        expect(snippet, snippet).toContain('"command": "node", "args": ["/absolute/path/to/gitctx/dist/bin/gitctx.js"');
    }
  });
});

describe("package", () => {
  it("ships an MIT LICENSE, as package.json says", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string; files: string[] };
    expect(pkg.license).toBe("MIT");
    expect(pkg.files).toContain("LICENSE");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8").split("\n")[0]).toBe("MIT License");
  });
});
