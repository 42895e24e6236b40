/**
 * The rendered instructions and the explain output, exactly (golden), and the budget: a deterministic cut that
 * keeps the most specific files, says what it cut and how to get it, and never exceeds the budget (property,
 * on the loader and on the renderer alone with arbitrary text).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenCounter } from "../src/context/tokens.js";
import {
  countTokens,
  loadInstructions,
  type InstructionFile,
  type InstructionLayer,
  type InstructionScope,
  type LoadInstructionsOptions,
} from "../src/index.js";
import { renderInstructions, type RenderUnit } from "../src/instructions/render.js";
import { monorepo, type Monorepo } from "./fixtures/instructions.js";

let m: Monorepo;
let options: LoadInstructionsOptions;
beforeAll(() => {
  m = monorepo();
  options = { root: m.top, home: m.home, paths: ["packages/app/src/Button.tsx", "src/cart.test.ts"], explain: true };
});

const PREAMBLE = `Instruction files, most general first: a later file refines or overrides an earlier one. Each file's own lines start with "│"; the lines between them are gitctx's.`;

const FULL_TEXT = `${PREAMBLE}

--- ~/.claude/CLAUDE.md (user) ---
│ User: British spelling.
--- end of ~/.claude/CLAUDE.md ---

--- ~/.codex/AGENTS.md (user) ---
│ Codex user: be terse.
--- end of ~/.codex/AGENTS.md ---

--- CLAUDE.md (project) ---
│ # Shop
│
│ TypeScript strict mode everywhere. Style guide: @docs/style.md
--- docs/style.md (imported by CLAUDE.md line 3) ---
│ Two-space indentation; no semicolons.
--- end of docs/style.md, back in CLAUDE.md ---
│
│ Run \`yarn workspace @shop/app test\` before you commit.
--- end of CLAUDE.md ---

--- .claude/CLAUDE.md (project) ---
│ Prefer small commits.
--- end of .claude/CLAUDE.md ---

--- AGENTS.md (project) ---
│ Agents: run the linter with \`npm run lint\`.
--- end of AGENTS.md ---

--- .claude/rules/general.md (rule) ---
│ Write tests for every change.
--- end of .claude/rules/general.md ---

--- .claude/rules/testing.md (rule for **/*.test.ts, matches src/cart.test.ts) ---
│ Tests use vitest and never sleep.
--- end of .claude/rules/testing.md ---

--- CLAUDE.local.md (local) ---
│ My sandbox database is on port 5433.
--- end of CLAUDE.local.md ---

--- packages/app/CLAUDE.md (subdirectory, for packages/app/src/Button.tsx) ---
│ App: React 19, CSS modules.
--- end of packages/app/CLAUDE.md ---

--- packages/app/AGENTS.md (subdirectory, for packages/app/src/Button.tsx) ---
│ App agents: run \`npm test -w app\`.
--- end of packages/app/AGENTS.md ---
`;

const EXPLAIN = `Looked at 31 paths (formats claude, agents; paths packages/app/src/Button.tsx, src/cart.test.ts):
  loaded       ~/.claude/CLAUDE.md: user, at session start, 5 tokens
  not_matched  ~/.claude/rules/shell.md: rule for **/*.sh: none of packages/app/src/Button.tsx, src/cart.test.ts matches
  missing      ~/.codex/AGENTS.override.md
  loaded       ~/.codex/AGENTS.md: user, at session start, 7 tokens
  loaded       CLAUDE.md: project, at session start, 31 tokens
  loaded       docs/style.md: import, imported by CLAUDE.md line 3, 9 tokens
  loaded       .claude/CLAUDE.md: project, at session start, 4 tokens
  missing      AGENTS.override.md
  loaded       AGENTS.md: project, at session start, 12 tokens
  loaded       .claude/rules/general.md: rule, at session start, 6 tokens
  not_matched  .claude/rules/api/docs.md: rule for packages/api/**: none of packages/app/src/Button.tsx, src/cart.test.ts matches
  loaded       .claude/rules/testing.md: rule, **/*.test.ts matches src/cart.test.ts, 8 tokens
  loaded       CLAUDE.local.md: local, at session start, 10 tokens
  missing      packages/{CLAUDE.md, .claude/CLAUDE.md, AGENTS.override.md, AGENTS.md, .claude/rules/, CLAUDE.local.md}
  loaded       packages/app/CLAUDE.md: subdirectory, for packages/app/src/Button.tsx, 9 tokens
  missing      packages/app/{.claude/CLAUDE.md, AGENTS.override.md}
  loaded       packages/app/AGENTS.md: subdirectory, for packages/app/src/Button.tsx, 11 tokens
  missing      packages/app/{.claude/rules/, CLAUDE.local.md}
  missing      packages/app/src/{CLAUDE.md, .claude/CLAUDE.md, AGENTS.override.md, AGENTS.md, .claude/rules/, CLAUDE.local.md}
`;

describe("golden output", () => {
  it("renders every file under a header naming its path and scope, imports in place", async () => {
    const result = await loadInstructions(options);
    expect(result.text).toBe(FULL_TEXT);
    expect(result.tokens.rendered).toBe(await countTokens(FULL_TEXT));
    expect(result.tokens.full).toBe(result.tokens.rendered);
    expect(result.cut).toEqual([]);
    expect(result.getAll).toBeUndefined();
  });

  it("explains every path it looked at", async () => {
    const result = await loadInstructions(options);
    expect(result.explain).toBe(EXPLAIN);
    expect(result.candidates?.length).toBe(31);
    expect(new Set(result.candidates?.map((candidate) => candidate.status))).toEqual(new Set(["loaded", "missing", "not_matched"]));
  });

  it("cuts the most general files to fit a budget, and says which and how to get them", async () => {
    const full = await loadInstructions(options);
    const result = await loadInstructions({ ...options, budget: 360 });
    expect(result.text).toBe(
      [
        PREAMBLE,
        "",
        FULL_TEXT.slice(FULL_TEXT.indexOf("--- .claude/CLAUDE.md")).trimEnd(),
        "",
        `Left out to fit the budget of 360 tokens, most general first: ~/.claude/CLAUDE.md, ~/.codex/AGENTS.md, CLAUDE.md (158 tokens). All of it: load_instructions with the same paths and "budget": ${full.tokens.full}, or read the files.`,
        "",
      ].join("\n"),
    );
    expect(result.cut).toEqual([
      { path: "~/.claude/CLAUDE.md", scope: "user", tokens: 31, imports: [] },
      { path: "~/.codex/AGENTS.md", scope: "user", tokens: 31, imports: [] },
      { path: "CLAUDE.md", scope: "project", tokens: 96, imports: ["docs/style.md"] },
    ]);
    expect(result.getAll).toBe(`load_instructions with the same paths and "budget": ${full.tokens.full}, or read the files`);
    expect(result.files.filter((file) => !file.included).map((file) => file.path)).toEqual([
      "~/.claude/CLAUDE.md",
      "~/.codex/AGENTS.md",
      "CLAUDE.md",
      "docs/style.md",
    ]);
    expect(result.candidates?.find((candidate) => candidate.path === "CLAUDE.md")).toMatchObject({
      status: "cut",
      detail: "project, at session start, 31 tokens; left out to fit the budget of 360 tokens",
    });
    const again = await loadInstructions({ ...options, budget: full.tokens.full });
    expect(again.text).toBe(FULL_TEXT);
  });

  it("keeps managed files above all, and says only the footer when nothing else fits", async () => {
    const withManaged = { ...options, managedDir: m.managed };
    const full = await loadInstructions(withManaged);
    // 215: both managed files fit (whatever the temp directory's name costs), the most specific other one does not.
    const tight = await loadInstructions({ ...withManaged, budget: 215 });
    expect(tight.files.filter((file) => file.included).map((file) => file.layer)).toEqual(["managed", "managed"]);
    expect(tight.text).toMatch(/^Left out to fit the budget of 215 tokens, most general first: 10 files \(\d+ tokens\)\. /m);
    const tiny = await loadInstructions({ ...withManaged, budget: 48 });
    expect(tiny.files.some((file) => file.included)).toBe(false);
    expect(tiny.text).toMatch(
      new RegExp(
        `^Left out to fit the budget of 48 tokens, most general first: 12 files \\(\\d+ tokens\\)\\. All of it: load_instructions with the same paths and "budget": ${full.tokens.full}, or read the files\\.\\n$`,
      ),
    );
    const none = await loadInstructions({ ...withManaged, budget: 5 });
    expect(none.text).toBe("");
    expect(none.tokens.rendered).toBe(0);
  });
});

describe("the budget is never exceeded", () => {
  it("by the loader, whatever the budget (property)", async () => {
    const full = await loadInstructions({ ...options, managedDir: m.managed, explain: false });
    const nonManaged = full.files.filter((file) => file.depth === 0 && file.layer !== "managed" && !file.empty).map((file) => file.path);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: full.tokens.full + 20 }), async (budget) => {
        const result = await loadInstructions({ ...options, managedDir: m.managed, explain: false, budget });
        expect(await countTokens(result.text)).toBeLessThanOrEqual(budget);
        expect(result.tokens.rendered).toBe(await countTokens(result.text));
        // The cut is a clean line: the non-managed files left out are the most general ones, in order.
        const cut = result.cut.map((entry) => entry.path).filter((path) => nonManaged.includes(path));
        expect(cut).toEqual(nonManaged.slice(0, cut.length));
        for (const file of result.files) if (file.included && file.depth === 0 && !file.empty) expect(result.text).toContain(`--- ${file.path} (`);
        if (budget >= full.tokens.full) expect(result.cut).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it("by the renderer alone, with arbitrary text and files (property)", async () => {
    const count = await loadTokenCounter();
    const scopes: InstructionScope[] = ["managed", "user", "project", "local", "subdirectory", "rule"];
    const unit = fc.record({
      path: fc.string({ minLength: 1, maxLength: 30 }),
      content: fc.string({ maxLength: 400, unit: "grapheme" }),
      scope: fc.constantFrom(...scopes),
      imported: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), fc.integer({ min: 1, max: 600 }), fc.boolean(), (specs, budget, withOnRequest) => {
        const units: RenderUnit[] = specs.map((spec) => {
          const file = fakeFile(spec.path, spec.content, spec.scope);
          const imports =
            spec.imported === undefined
              ? []
              : [
                  {
                    kind: "file" as const,
                    insertAt: Math.floor(spec.content.length / 2),
                    file: fakeFile(`${spec.path}.import`, spec.imported, "import"),
                    imports: [],
                  },
                ];
          return { file, imports };
        });
        const onRequest = withOnRequest ? [{ path: ".cursor/rules/db.mdc", format: "cursor" as const, description: "Database" }] : [];
        const rendered = renderInstructions({ units, onRequest, budget, formats: ["claude"], count });
        expect(count(rendered.text)).toBeLessThanOrEqual(budget);
        expect(rendered.tokens).toBe(count(rendered.text));
      }),
      { numRuns: 300 },
    );
  });
});

function fakeFile(path: string, content: string, scope: InstructionScope): InstructionFile {
  const layer: InstructionLayer = scope === "managed" ? "managed" : scope === "user" ? "user" : scope === "subdirectory" ? "subdirectory" : "project";
  return {
    path,
    absolutePath: `/x/${path}`,
    realPath: `/x/${path}`,
    format: "claude",
    scope,
    layer,
    reason: { kind: "session_start" },
    bytes: content.length,
    tokens: 0,
    empty: content.trim() === "",
    included: true,
    alsoKnownAs: [],
    depth: scope === "import" ? 1 : 0,
    imports: [],
    content,
    notes: [],
  };
}
