/**
 * The instruction loader on real files: every layer in order, rules for reads and writes alike, imports (chains,
 * cycles, code, missing files, FIFOs), dedupe through symlinks, excludes, empty files and bad input.
 */
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GitctxError, loadInstructions, type InstructionsResult, type LoadInstructionsOptions } from "../src/index.js";
import { link, monorepo, writeTree, type Monorepo } from "./fixtures/instructions.js";
import { tempDir } from "./fixtures/repo.js";

const ALL_FORMATS = ["claude", "agents", "gemini", "cursor", "copilot"] as const;
const shape = (result: InstructionsResult): string[] => result.files.map((file) => `${file.path} ${file.scope}/${file.layer}`);
const candidate = (result: InstructionsResult, path: string) => result.candidates?.find((entry) => entry.path === path);

async function rejection(promise: Promise<unknown>): Promise<GitctxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GitctxError) return error;
    throw error;
  }
  throw new Error("expected the load to be refused");
}

describe("layers and order", () => {
  it("loads managed, user, top level down to the root, rules and subdirectories, general to specific", async () => {
    const m = monorepo();
    const result = await loadInstructions({
      root: m.top,
      home: m.home,
      managedDir: m.managed,
      formats: ALL_FORMATS,
      paths: ["packages/app/src/Button.tsx", "packages/api/src/server.ts", "packages/web/index.test.ts"],
    });
    expect(shape(result)).toEqual([
      `${m.managed}/CLAUDE.md managed/managed`,
      `${m.managed}/.claude/rules/policy.md managed/managed`,
      "~/.claude/CLAUDE.md user/user",
      "~/.codex/AGENTS.md user/user",
      "CLAUDE.md project/project",
      "docs/style.md import/project",
      ".claude/CLAUDE.md project/project",
      "AGENTS.md project/project",
      "GEMINI.md project/project",
      ".cursorrules project/project",
      ".github/copilot-instructions.md project/project",
      ".claude/rules/general.md rule/project",
      ".cursor/rules/always.mdc rule/project",
      ".claude/rules/api/docs.md rule/project",
      ".claude/rules/testing.md rule/project",
      ".cursor/rules/react.mdc rule/project",
      ".github/instructions/ts.instructions.md rule/project",
      "CLAUDE.local.md local/project",
      "packages/api/AGENTS.override.md subdirectory/subdirectory",
      "packages/app/CLAUDE.md subdirectory/subdirectory",
      "packages/app/AGENTS.md subdirectory/subdirectory",
      "packages/web/CLAUDE.md subdirectory/subdirectory",
    ]);
    const byPath = new Map(result.files.map((file) => [file.path, file]));
    expect(byPath.get("CLAUDE.md")?.reason).toEqual({ kind: "session_start" });
    expect(byPath.get("docs/style.md")?.reason).toEqual({ kind: "import", by: "CLAUDE.md", line: 3 });
    expect(byPath.get("packages/app/CLAUDE.md")?.reason).toEqual({ kind: "path", path: "packages/app/src/Button.tsx" });
    expect(byPath.get(".claude/rules/testing.md")?.reason).toEqual({ kind: "rule_match", path: "packages/web/index.test.ts", glob: "**/*.test.ts" });
    expect(byPath.get(".cursor/rules/react.mdc")?.rule).toEqual({
      globs: ["*.tsx", "packages/app/**"],
      activation: "globs",
      alwaysApply: false,
      description: "React components",
      matched: [{ path: "packages/app/src/Button.tsx", glob: "packages/app/**" }],
      base: ".",
    });
    expect(byPath.get(".github/instructions/ts.instructions.md")?.rule?.matched).toEqual([
      { path: "packages/app/src/Button.tsx", glob: "**/*.tsx" },
      { path: "packages/api/src/server.ts", glob: "**/*.ts" },
      { path: "packages/web/index.test.ts", glob: "**/*.ts" },
    ]);
    const claude = byPath.get("CLAUDE.md");
    expect(claude).toMatchObject({
      format: "claude",
      absolutePath: join(m.top, "CLAUDE.md"),
      realPath: join(m.top, "CLAUDE.md"),
      depth: 0,
      imports: ["docs/style.md"],
    });
    expect(claude?.bytes).toBe(
      Buffer.byteLength(
        "# Shop\n\nTypeScript strict mode everywhere. Style guide: @docs/style.md\n\n<!-- Maintainers: keep this file short. -->\nRun `yarn workspace @shop/app test` before you commit.\n",
      ),
    );
    expect(claude?.tokens).toBeGreaterThan(10);
    expect(result.onRequest).toEqual([
      { path: ".cursor/rules/db.mdc", format: "cursor", description: "Database migrations" },
      { path: ".github/instructions/manual.instructions.md", format: "copilot", description: "Release checklist" },
    ]);
    expect(result.refused).toEqual([]);
    expect(result.tokens.byLayer.managed).toBe(result.files.filter((file) => file.layer === "managed").reduce((sum, file) => sum + file.tokens, 0));
  });

  it("reads Claude Code's files and AGENTS.md by default, the other formats only when asked", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: m.top, explain: true });
    expect(result.formats).toEqual(["claude", "agents"]);
    expect(shape(result)).toEqual([
      "CLAUDE.md project/project",
      "docs/style.md import/project",
      ".claude/CLAUDE.md project/project",
      "AGENTS.md project/project",
      ".claude/rules/general.md rule/project",
      "CLAUDE.local.md local/project",
    ]);
    expect(result.candidates?.some((entry) => /GEMINI|cursor|github/.test(entry.path))).toBe(false);
    expect(result.candidates?.filter((entry) => entry.layer === "user").map((entry) => [entry.path, entry.status, entry.detail])).toEqual([
      ["~/.claude/CLAUDE.md", "skipped", "no home directory was given (option home)"],
      ["~/.codex/AGENTS.override.md", "skipped", "no home directory was given (option home)"],
      ["~/.codex/AGENTS.md", "skipped", "no home directory was given (option home)"],
    ]);
    expect(candidate(result, ".claude/rules/testing.md")).toMatchObject({
      status: "not_matched",
      detail: "rule for **/*.test.ts: no paths given: pass the files about to be read or edited",
    });
  });

  it("walks from the top level down to a root in a subdirectory, showing paths relative to the root", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: join(m.top, "packages", "app"), topLevel: m.top, paths: ["src/Button.tsx"] });
    expect(shape(result)).toEqual([
      "../../CLAUDE.md project/project",
      "../../docs/style.md import/project",
      "../../.claude/CLAUDE.md project/project",
      "../../AGENTS.md project/project",
      "../../.claude/rules/general.md rule/project",
      "../../CLAUDE.local.md local/project",
      "CLAUDE.md project/project",
      "AGENTS.md project/project",
    ]);
    expect(result.paths).toEqual(["src/Button.tsx"]);
    expect(result.topLevel).toBe(m.top);
  });

  it("without topLevel the root is the top: nothing above it is read", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: join(m.top, "packages", "app") });
    expect(shape(result)).toEqual(["CLAUDE.md project/project", "AGENTS.md project/project"]);
  });

  it("works in a directory that is not a repository", async () => {
    const dir = writeTree(tempDir(), { "AGENTS.md": "Plain directory.\n", "notes/AGENTS.md": "Notes.\n" });
    const result = await loadInstructions({ root: dir, paths: ["notes/todo.md"] });
    expect(shape(result)).toEqual(["AGENTS.md project/project", "notes/AGENTS.md subdirectory/subdirectory"]);
  });

  it("reads directories above the top level only with walkAboveTopLevel", async () => {
    const m = monorepo();
    writeTree(m.base, { "work/CLAUDE.md": "All my work projects: conventional commits.\n" });
    const above = join(m.base, "work", "CLAUDE.md");
    const plain = await loadInstructions({ root: m.top, explain: true });
    expect(plain.candidates?.some((entry) => entry.absolutePath === above)).toBe(false);
    const walked = await loadInstructions({ root: m.top, walkAboveTopLevel: true });
    const file = walked.files.find((entry) => entry.absolutePath === above);
    expect(file).toMatchObject({ path: above, scope: "ancestor", layer: "ancestor" });
    expect(walked.files.indexOf(file as never)).toBeLessThan(walked.files.findIndex((entry) => entry.path === "CLAUDE.md"));
    expect(walked.text).toContain(
      `--- ${above} (above the repository) ---\n│ All my work projects: conventional commits.\n--- end of ${above} ---\n`,
    );
  });

  it("uses AGENTS.override.md instead of AGENTS.md, unless the override is empty", async () => {
    const dir = writeTree(tempDir(), { "AGENTS.override.md": "", "AGENTS.md": "Shared.\n" });
    const result = await loadInstructions({ root: dir, explain: true });
    expect(candidate(result, "AGENTS.override.md")?.status).toBe("empty");
    expect(candidate(result, "AGENTS.md")?.status).toBe("loaded");
    writeFileSync(join(dir, "AGENTS.override.md"), "Override.\n");
    const overridden = await loadInstructions({ root: dir, explain: true });
    expect(candidate(overridden, "AGENTS.md")).toMatchObject({ status: "shadowed", detail: "AGENTS.override.md is loaded in its place" });
    expect(overridden.text).toContain("Override.");
    expect(overridden.text).not.toContain("Shared.");
  });

  it("reports empty files as empty and renders nothing for them", async () => {
    const dir = writeTree(tempDir(), { "CLAUDE.md": "", "AGENTS.md": "<!-- only a comment -->\n" });
    const result = await loadInstructions({ root: dir, explain: true });
    expect(result.files.map((file) => [file.path, file.empty])).toEqual([
      ["CLAUDE.md", true],
      ["AGENTS.md", true],
    ]);
    expect(candidate(result, "AGENTS.md")).toMatchObject({ status: "empty", detail: "empty once frontmatter and comments are removed" });
    expect(result.text).toBe("No instruction files found (formats: claude, agents).\n");
  });

  it("says when there are no instruction files at all: an answer, not an error", async () => {
    const result = await loadInstructions({ root: tempDir() });
    expect(result.files).toEqual([]);
    expect(result.text).toBe("No instruction files found (formats: claude, agents).\n");
  });

  it("points at a file whose name differs only in case", async () => {
    const dir = writeTree(tempDir(), { "claude.md": "lower case\n" });
    const result = await loadInstructions({ root: dir, explain: true });
    expect(candidate(result, "CLAUDE.md")).toMatchObject({ status: "missing", detail: "not found (there is claude.md: names are case-sensitive)" });
  });
});

describe("rules", () => {
  it("activate for any given path, read or written, including a file that does not exist yet", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: m.top, paths: ["src/brand-new.test.ts"] });
    expect(result.files.find((file) => file.path === ".claude/rules/testing.md")?.reason).toEqual({
      kind: "rule_match",
      path: "src/brand-new.test.ts",
      glob: "**/*.test.ts",
    });
  });

  it("match dot files and say which globs matched none of the paths", async () => {
    const dir = writeTree(tempDir(), {
      ".claude/rules/ci.md": '---\npaths: ["**/*.yml"]\n---\nPin action versions.\n',
      ".claude/rules/docs.md": "---\npaths: docs/**\n---\nDocs in British English.\n",
    });
    const result = await loadInstructions({ root: dir, paths: [".github/workflows/ci.yml"], explain: true });
    expect(result.files.map((file) => file.path)).toEqual([".claude/rules/ci.md"]);
    expect(candidate(result, ".claude/rules/docs.md")).toMatchObject({
      status: "not_matched",
      detail: "rule for docs/**: none of .github/workflows/ci.yml matches",
    });
  });

  it("in a subdirectory's .claude/rules are relative to that directory and load only for paths below it", async () => {
    const dir = writeTree(tempDir(), { "packages/app/.claude/rules/hooks.md": "---\npaths: src/hooks/**\n---\nHooks start with use.\n" });
    const result = await loadInstructions({ root: dir, paths: ["packages/app/src/hooks/useCart.ts", "src/hooks/other.ts"] });
    expect(result.files.map((file) => [file.path, file.scope, file.layer, file.rule?.base, file.rule?.matched])).toEqual([
      [
        "packages/app/.claude/rules/hooks.md",
        "rule",
        "subdirectory",
        "packages/app",
        [{ path: "packages/app/src/hooks/useCart.ts", glob: "src/hooks/**" }],
      ],
    ]);
  });

  it("from the user's ~/.claude/rules match paths relative to the project", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: m.top, home: m.home, paths: ["scripts/deploy.sh"] });
    expect(result.files.find((file) => file.path === "~/.claude/rules/shell.md")).toMatchObject({
      scope: "rule",
      layer: "user",
      reason: { kind: "rule_match", path: "scripts/deploy.sh", glob: "**/*.sh" },
    });
  });

  it("note frontmatter that strict YAML refused and was read leniently", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: m.top, paths: ["a.test.ts"] });
    expect(result.files.find((file) => file.path === ".claude/rules/testing.md")?.notes[0]).toMatch(
      /^frontmatter is not valid YAML \(.*\); read leniently$/,
    );
  });
});

describe("imports", () => {
  it("follow a chain to depth 4 and cut the fifth level, saying so", async () => {
    const dir = writeTree(tempDir(), {
      "CLAUDE.md": "Start @docs/one.md\n",
      "docs/one.md": "One @two.md\n",
      "docs/two.md": "Two @three.md\n",
      "docs/three.md": "Three @four.md\n",
      "docs/four.md": "Four @five.md\n",
      "docs/five.md": "FIVE-MARKER\n",
    });
    const result = await loadInstructions({ root: dir });
    expect(result.files.map((file) => [file.path, file.depth])).toEqual([
      ["CLAUDE.md", 0],
      ["docs/one.md", 1],
      ["docs/two.md", 2],
      ["docs/three.md", 3],
      ["docs/four.md", 4],
    ]);
    expect(result.refused).toMatchObject([
      {
        path: "docs/five.md",
        status: "too_deep",
        scope: "import",
        importedBy: { path: "docs/four.md", line: 1 },
        detail: "the import chain CLAUDE.md → docs/one.md → docs/two.md → docs/three.md → docs/four.md → docs/five.md is deeper than 4 levels: cut",
      },
    ]);
    expect(result.text).not.toContain("FIVE-MARKER");
    expect(result.text).toContain("--- @five.md (docs/four.md line 1) not loaded: too deep ---");
    const shallow = await loadInstructions({ root: dir, maxImportDepth: 1 });
    expect(shallow.files.map((file) => file.path)).toEqual(["CLAUDE.md", "docs/one.md"]);
  });

  it("cut a cycle and report it, loading each file once", async () => {
    const dir = writeTree(tempDir(), { "CLAUDE.md": "Root @a.md\n", "a.md": "A @b.md\n", "b.md": "B @a.md\n" });
    const result = await loadInstructions({ root: dir });
    expect(result.files.map((file) => file.path)).toEqual(["CLAUDE.md", "a.md", "b.md"]);
    expect(result.refused).toMatchObject([
      { path: "a.md", status: "cycle", detail: "import cycle a.md → b.md → a.md: cut", importedBy: { path: "b.md", line: 1 } },
    ]);
    expect(result.text.match(/^│ A @b\.md$/gm)).toHaveLength(1);
  });

  it("are never taken from code: spans, fences, an unterminated fence, e-mail addresses", async () => {
    const dir = writeTree(tempDir(), {
      "CLAUDE.md": [
        "Run `yarn workspace @scope/app dev`; read `@README` first; mail ops@example.com or ssh deploy@host.",
        "",
        "```sh",
        "npm i @scope/lib",
        "```",
        "",
        "Real: @real.md",
        "",
        "```",
        "@after-unterminated-fence.md",
        "",
      ].join("\n"),
      "real.md": "Real import.\n",
      "README.md": "README-MARKER\n",
      "after-unterminated-fence.md": "FENCE-MARKER\n",
      "scope/app": "SCOPE-MARKER\n",
    });
    const result = await loadInstructions({ root: dir, explain: true });
    expect(result.files.map((file) => file.path)).toEqual(["CLAUDE.md", "real.md"]);
    expect(result.refused).toEqual([]);
    expect(result.candidates?.filter((entry) => entry.scope === "import").map((entry) => entry.path)).toEqual(["real.md"]);
    for (const marker of ["README-MARKER", "FENCE-MARKER", "SCOPE-MARKER"]) expect(result.text).not.toContain(marker);
  });

  it("report a missing target, a directory and a FIFO, and read none of them", async () => {
    const dir = writeTree(tempDir(), { "CLAUDE.md": "See @missing.md\nSee @docs\nSee @pipe.md\n", "docs/x.md": "x\n" });
    execFileSync("mkfifo", [join(dir, "pipe.md")]);
    const result = await loadInstructions({ root: dir });
    expect(result.refused.map((entry) => [entry.path, entry.status, entry.detail])).toEqual([
      ["missing.md", "missing", "not found"],
      ["docs", "not_a_file", "a directory, not a file"],
      ["pipe.md", "not_a_file", "a FIFO, not a file"],
    ]);
    expect(result.text).toContain(
      "│ See @missing.md\n--- @missing.md (CLAUDE.md line 1) not loaded: not found ---\n│ See @docs\n--- @docs (CLAUDE.md line 2) not loaded: not a file ---\n",
    );
  });

  it("expand in place, relative to the importing file, and load a file imported twice once", async () => {
    const dir = writeTree(tempDir(), {
      "CLAUDE.md": "Intro.\nStyle: @docs/style.md and again @./docs/style.md\nTail.\n",
      "docs/style.md": "Style.\nSee @extra.md\n",
      "docs/extra.md": "Extra.\n",
    });
    const result = await loadInstructions({ root: dir, explain: true });
    expect(result.text).toBe(
      [
        `Instruction files, most general first: a later file refines or overrides an earlier one. Each file's own lines start with "│"; the lines between them are gitctx's.`,
        "",
        "--- CLAUDE.md (project) ---",
        "│ Intro.",
        "│ Style: @docs/style.md and again @./docs/style.md",
        "--- docs/style.md (imported by CLAUDE.md line 2) ---",
        "│ Style.",
        "│ See @extra.md",
        "--- docs/extra.md (imported by docs/style.md line 2) ---",
        "│ Extra.",
        "--- end of docs/extra.md, back in docs/style.md ---",
        "--- end of docs/style.md, back in CLAUDE.md ---",
        "--- @./docs/style.md (CLAUDE.md line 2): the same file as docs/style.md, included once ---",
        "│ Tail.",
        "--- end of CLAUDE.md ---",
        "",
      ].join("\n"),
    );
    expect(candidate(result, "docs/style.md")?.status).toBe("loaded");
    expect(result.candidates?.filter((entry) => entry.status === "duplicate")).toMatchObject([
      { path: "docs/style.md", importedBy: { path: "CLAUDE.md", line: 2 } },
    ]);
  });

  it("of AGENTS.md from CLAUDE.md (the usual way to share one file) load it once", async () => {
    const dir = writeTree(tempDir(), { "CLAUDE.md": "@AGENTS.md\n\nClaude only.\n", "AGENTS.md": "Everyone.\n" });
    const result = await loadInstructions({ root: dir, explain: true });
    expect(result.files.map((file) => [file.path, file.scope])).toEqual([
      ["CLAUDE.md", "project"],
      ["AGENTS.md", "import"],
    ]);
    expect(candidate(result, "AGENTS.md")).toMatchObject({ status: "loaded", scope: "import" });
    expect(result.candidates?.find((entry) => entry.path === "AGENTS.md" && entry.status === "duplicate")?.detail).toBe(
      "the same file as AGENTS.md (imported by CLAUDE.md line 1): loaded once",
    );
    expect(result.text.match(/Everyone\./g)).toHaveLength(1);
  });

  it("reach ~/ and the user's instruction directories, and other directories only when allowed", async () => {
    const base = tempDir();
    const home = writeTree(join(base, "home"), { ".claude/shared.md": "Shared from home.\n" });
    const shared = writeTree(join(base, "team"), { "conventions.md": "Team conventions.\n" });
    const project = writeTree(join(base, "project"), { "CLAUDE.md": `@~/.claude/shared.md\n@${shared}/conventions.md\n` });
    const refused = await loadInstructions({ root: project, home });
    expect(refused.files.map((file) => file.path)).toEqual(["CLAUDE.md", "~/.claude/shared.md"]);
    expect(refused.refused).toMatchObject([{ path: join(shared, "conventions.md"), status: "outside" }]);
    const allowed = await loadInstructions({ root: project, home, allowedImportDirs: [shared] });
    expect(allowed.files.map((file) => file.path)).toEqual(["CLAUDE.md", "~/.claude/shared.md", join(shared, "conventions.md")]);
    const noHome = await loadInstructions({ root: project });
    expect(noHome.refused[0]).toMatchObject({
      path: "@~/.claude/shared.md",
      status: "skipped",
      detail: "a ~/ import, and no home directory was given (option home)",
    });
  });
});

describe("dedupe and symlinks", () => {
  it("load a CLAUDE.md -> AGENTS.md symlink once, under both names", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: m.top, paths: ["packages/web/page.tsx"], explain: true });
    const web = result.files.find((file) => file.path === "packages/web/CLAUDE.md");
    expect(web).toMatchObject({ realPath: join(m.top, "packages/web/AGENTS.md"), alsoKnownAs: ["packages/web/AGENTS.md"], format: "claude" });
    expect(candidate(result, "packages/web/AGENTS.md")).toMatchObject({
      status: "duplicate",
      detail: "the same file as packages/web/CLAUDE.md: loaded once",
    });
    expect(result.text).toContain(
      "--- packages/web/CLAUDE.md (subdirectory, for packages/web/page.tsx, also packages/web/AGENTS.md) ---\n│ Web: Next.js.\n--- end of packages/web/CLAUDE.md ---\n",
    );
    expect(result.text.match(/Web: Next\.js\./g)).toHaveLength(1);
  });

  it("load a symlinked user file once, and a hard link too (same inode)", async () => {
    const m = monorepo();
    mkdirSync(join(m.top, "packages/app/.claude"), { recursive: true });
    link(m.top, "packages/app/CLAUDE.local.md", join(m.home, ".claude", "CLAUDE.md"));
    linkSync(join(m.top, "AGENTS.md"), join(m.top, "packages/app/.claude/CLAUDE.md"));
    const result = await loadInstructions({ root: m.top, home: m.home, paths: ["packages/app/x.ts"], explain: true });
    expect(candidate(result, "packages/app/CLAUDE.local.md")).toMatchObject({
      status: "duplicate",
      detail: "the same file as ~/.claude/CLAUDE.md: loaded once",
    });
    expect(candidate(result, "packages/app/.claude/CLAUDE.md")).toMatchObject({
      status: "duplicate",
      detail: "the same file as AGENTS.md: loaded once",
    });
    expect(result.files.find((file) => file.path === "~/.claude/CLAUDE.md")?.alsoKnownAs).toEqual(["packages/app/CLAUDE.local.md"]);
  });

  it("follow a symlinked directory that stays inside the project", async () => {
    const dir = writeTree(tempDir(), { "real/AGENTS.md": "Real dir.\n", ".claude/shared-rules/a.md": "Shared rule.\n" });
    link(dir, "alias", "real");
    link(dir, ".claude/rules", "shared-rules");
    const result = await loadInstructions({ root: dir, paths: ["alias/x.ts"] });
    expect(result.files.map((file) => [file.path, file.realPath])).toEqual([
      [".claude/rules/a.md", join(dir, ".claude/shared-rules/a.md")],
      ["real/AGENTS.md", join(dir, "real/AGENTS.md")],
    ]);
  });
});

describe("excludes", () => {
  it("skip matching files by absolute path, imports included, and report them", async () => {
    const m = monorepo();
    const options: LoadInstructionsOptions = {
      root: m.top,
      paths: ["packages/legacy/old.js"],
      excludes: ["**/packages/legacy/**", "**/docs/style.md"],
    };
    const result = await loadInstructions(options);
    expect(result.files.map((file) => file.path)).not.toContain("packages/legacy/CLAUDE.md");
    expect(result.refused.map((entry) => [entry.path, entry.status, entry.detail])).toEqual([
      ["docs/style.md", "excluded", "excluded by **/docs/style.md"],
      ["packages/legacy/CLAUDE.md", "excluded", "excluded by **/packages/legacy/**"],
    ]);
  });

  it("never apply to the managed directory", async () => {
    const m = monorepo();
    const result = await loadInstructions({ root: m.top, managedDir: m.managed, excludes: [`${m.managed}/**`, "**/CLAUDE.md"] });
    expect(result.files.filter((file) => file.layer === "managed").map((file) => file.path)).toEqual([
      `${m.managed}/CLAUDE.md`,
      `${m.managed}/.claude/rules/policy.md`,
    ]);
    expect(result.files.find((file) => file.path === "CLAUDE.md")).toBeUndefined();
  });
});

describe("bad input is a clear error", () => {
  const m: { value?: Monorepo } = {};
  const top = (): string => (m.value ??= monorepo()).top;
  it.each([
    [{ root: "relative/dir" }, "invalid_input", /root must be an absolute path/],
    [{ root: "/nonexistent/gitctx/dir" }, "path_not_found", /does not exist/],
    [{ paths: ["../outside.ts"] }, "path_outside_workspace", /outside the workspace/],
    [{ formats: ["claude", "windsurf"] }, "invalid_input", /Unknown instruction format "windsurf"/],
    [{ formats: [] }, "invalid_input", /formats must be a non-empty list/],
    [{ budget: 0 }, "invalid_input", /budget must be a positive whole number/],
    [{ budget: 2.5 }, "invalid_input", /budget must be a positive whole number/],
    [{ topLevel: "/" + "tmp-nonexistent-gitctx" }, "path_not_found", /topLevel .* does not exist/],
    [{ excludes: [""] }, "invalid_input", /excludes must be a non-empty glob/],
    [{ maxImportDepth: -1 }, "invalid_input", /maxImportDepth must be a whole number/],
  ] as Array<[Partial<LoadInstructionsOptions>, string, RegExp]>)("%j → %s", async (options, code, message) => {
    const error = await rejection(loadInstructions({ root: top(), ...options } as LoadInstructionsOptions));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it("a topLevel that does not hold the root", async () => {
    const error = await rejection(loadInstructions({ root: top(), topLevel: join(top(), "packages") }));
    expect(error).toMatchObject({ code: "invalid_input", hint: "topLevel is the top level of the repository that holds the root." });
  });
});
