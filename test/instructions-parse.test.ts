/**
 * The pure parser of instruction files: frontmatter (strict YAML, the lenient reading of unquoted globs, never
 * code), rule metadata, and `@path` imports found by a Markdown lexer — never inside code, whatever the nesting.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  analyzeMarkdown,
  compileGlobs,
  parseFrontmatter,
  parseInstructions,
  ruleMetadata,
  splitFrontmatter,
  splitTopLevelCommas,
} from "../src/instructions/parse.js";
import { tempDir } from "./fixtures/repo.js";
import { workBudget } from "./fixtures/work.js";

const targets = (text: string): string[] => analyzeMarkdown(text).imports.map((entry) => entry.target);

describe("frontmatter", () => {
  it("splits a --- fenced block off and says on which line the body starts", () => {
    expect(splitFrontmatter("---\npaths: src/**\n---\n# Rule\n")).toEqual({ yaml: "paths: src/**\n", body: "# Rule\n", bodyLine: 4 });
    expect(splitFrontmatter("---\n---\nbody")).toEqual({ yaml: "", body: "body", bodyLine: 3 });
    expect(splitFrontmatter("# no frontmatter\n---\n")).toEqual({ yaml: undefined, body: "# no frontmatter\n---\n", bodyLine: 1 });
  });

  it("reads an unclosed fence as text and says so", () => {
    const split = splitFrontmatter("---\npaths: a\nno end\n");
    expect(split.yaml).toBeUndefined();
    expect(split.body).toBe("---\npaths: a\nno end\n");
    expect(split.problem).toMatch(/never closed/);
  });

  it("never runs ---js frontmatter (gray-matter would): it stays text", () => {
    const marker = join(tempDir(), "executed");
    const code = `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "pwned")`;
    const text = `---js\n${code}\n---\n# Rule\n`;
    // The attack: gray-matter's ---js engine evaluates that block; evaluating it here shows what it does.
    new Function("require", code)(createRequire(import.meta.url));
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    const parsed = parseInstructions(text, { rule: true });
    expect(existsSync(marker)).toBe(false);
    expect(parsed.content).toBe(text);
    expect(parsed.problems.join()).toMatch(/---js.*read as text/);
    expect(parsed.rule?.globs).toEqual([]);
  });

  it("parses strict YAML, lists and flow lists alike", () => {
    expect(parseFrontmatter('paths:\n  - "src/**/*.ts"\n  - lib/**\n')).toEqual({
      data: { paths: ["src/**/*.ts", "lib/**"] },
      lenient: false,
      problems: [],
    });
    expect(parseFrontmatter("description: Use it\nalwaysApply: false\n").data).toEqual({ description: "Use it", alwaysApply: false });
  });

  it("reads unquoted globs leniently where strict YAML refuses them", () => {
    const claude = parseFrontmatter("paths: **/*.ts\n");
    expect(claude.lenient).toBe(true);
    expect(claude.data).toEqual({ paths: "**/*.ts" });
    expect(claude.problems[0]).toMatch(/not valid YAML.*read leniently/);
    const cursor = parseFrontmatter("description: React components\nglobs: *.tsx, src/**\nalwaysApply: false\n");
    expect(cursor.data).toEqual({ description: "React components", globs: "*.tsx, src/**", alwaysApply: false });
    const list = parseFrontmatter("paths:\n  - **/*.test.ts\n  - '*.spec.ts'\n");
    expect(list.data).toEqual({ paths: ["**/*.test.ts", "*.spec.ts"] });
    expect(parseFrontmatter("paths: [**/*.ts, {a,b}/**]\n").data).toEqual({ paths: ["**/*.ts", "{a,b}/**"] });
  });

  it("caps alias expansion (a billion laughs is refused, not expanded)", () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      bomb.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(",")}]`);
    }
    const parsed = parseFrontmatter(`${bomb.join("\n")}\n`);
    expect(JSON.stringify(parsed.data).length).toBeLessThan(100_000);
  });
});

describe("rule metadata", () => {
  it("takes globs from paths, globs and applyTo, split on commas outside braces", () => {
    expect(ruleMetadata({ paths: ["src/**/*.ts", "./lib/**"] }, true).globs).toEqual(["src/**/*.ts", "lib/**"]);
    expect(ruleMetadata({ globs: "*.ts, src/{a,b}/**" }, false).globs).toEqual(["*.ts", "src/{a,b}/**"]);
    expect(ruleMetadata({ applyTo: "**/*.ts,**/*.tsx" }, false).globs).toEqual(["**/*.ts", "**/*.tsx"]);
    expect(splitTopLevelCommas("a,{b,c},d\\,e")).toEqual(["a", "{b,c}", "d\\,e"]);
  });

  it("decides when a rule applies", () => {
    expect(ruleMetadata({}, true).activation).toBe("always");
    expect(ruleMetadata({}, false).activation).toBe("on_request");
    expect(ruleMetadata({ description: "DB" }, false)).toMatchObject({ activation: "on_request", description: "DB" });
    expect(ruleMetadata({ alwaysApply: true, globs: "*.ts" }, false).activation).toBe("always");
    expect(ruleMetadata({ alwaysApply: "false", globs: "*.ts" }, false).activation).toBe("globs");
    expect(ruleMetadata({ alwaysApply: false }, true).activation).toBe("on_request");
  });

  it("reports values of the wrong type instead of guessing", () => {
    const meta = ruleMetadata({ paths: 5, globs: ["ok/**", 7], alwaysApply: "sometimes" }, true);
    expect(meta.globs).toEqual(["ok/**"]);
    expect(meta.problems).toEqual([
      "paths must be a glob or a list of globs, not number 5: ignored",
      "globs has an entry that is not a glob (number 7): ignored",
      'alwaysApply must be true or false, not string "sometimes": ignored',
    ]);
  });

  it("matches project-relative POSIX paths with dot files included", () => {
    const match = compileGlobs(["src/**/*.ts", "*.md"]);
    expect(match("src/a/b.ts")).toBe("src/**/*.ts");
    expect(match("src/.hidden/b.ts")).toBe("src/**/*.ts");
    expect(match("README.md")).toBe("*.md");
    expect(match("docs/README.md")).toBeUndefined();
  });
});

describe("imports: only in prose, found by a Markdown lexer", () => {
  it("finds @path at the start of a line or after whitespace, relative, ~/ and absolute", () => {
    expect(targets("@docs/a.md\nSee @./b.md, and @~/c.md; also @/abs/d.md.\n")).toEqual(["docs/a.md", "./b.md", "~/c.md", "/abs/d.md"]);
    expect(targets("Path with a space: @docs/my\\ file.md\n")).toEqual(["docs/my file.md"]);
  });

  it("ignores e-mail addresses and user@host", () => {
    expect(targets("Mail ada@example.com or ssh deploy@host.example; git@github.com:acme/x.git\n")).toEqual([]);
  });

  it("ignores code spans: `yarn workspace @scope/app`, `@README`", () => {
    expect(targets("Run `yarn workspace @scope/app build` and read `@README`, then @real.md\n")).toEqual(["real.md"]);
    expect(targets("Double ``code with ` and @x.md`` then @y.md\n")).toEqual(["y.md"]);
  });

  it("ignores fenced and indented code, and everything after an unterminated fence", () => {
    const text = [
      "Before @one.md",
      "",
      "```sh",
      "yarn workspace @scope/app test",
      "```",
      "",
      "    @indented.md",
      "",
      "~~~",
      "@tilde.md",
      "~~~",
      "",
      "After @two.md",
      "",
      "```",
      "@unterminated.md",
      "",
      "@still-code.md",
    ].join("\n");
    expect(targets(text)).toEqual(["one.md", "two.md"]);
  });

  it("sees code inside lists, quotes and tables, and prose there too", () => {
    const text = [
      "- item @list.md",
      "- item with `@span.md`",
      "",
      "  ```",
      "  @fenced-in-list.md",
      "  ```",
      "",
      "> quoted @quote.md",
      "> `@quoted-span.md`",
      "",
      "| a | b |",
      "|---|---|",
      "| @cell.md | `@cell-code.md` |",
      "",
      "**bold @bold.md** and [link @link.md](https://example.com)",
    ].join("\n");
    expect(targets(text)).toEqual(["list.md", "quote.md", "cell.md", "bold.md", "link.md"]);
  });

  it("ignores imports inside HTML, comments included", () => {
    expect(targets("<!-- @commented.md -->\n\ntext <!-- @inline.md --> and <span title=' @attr.md'>x</span> @ok.md\n")).toEqual(["ok.md"]);
  });

  it("reports the line of each import", () => {
    expect(analyzeMarkdown("# T\n\nSee @a.md\n\n- @b.md\n").imports).toEqual([
      { target: "a.md", offset: 9, line: 3 },
      { target: "b.md", offset: 18, line: 5 },
    ]);
  });

  it("never takes code for prose (property: an import written inside a code span or fence is never found)", () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9/._-]{0,12}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(word, fc.constantFrom("span", "fence", "prose", "indented")), { minLength: 1, maxLength: 8 }), (parts) => {
        const text = parts
          .map(([name, kind]) => {
            if (kind === "span") return `Run \`cmd @${name}\` now.`;
            if (kind === "fence") return `\`\`\`\n@${name}\n\`\`\``;
            if (kind === "indented") return `    @${name}`;
            return `See @${name} here.`;
          })
          .join("\n\n");
        const expected = parts.filter(([, kind]) => kind === "prose").map(([name]) => name.replace(/[.,;:!?)\]}>"']+$/, ""));
        expect(targets(text)).toEqual(expected.filter((name) => name !== ""));
      }),
      { numRuns: 300 },
    );
  });
});

describe("one file", () => {
  it("strips HTML block comments outside code, keeps them in code and inline", () => {
    const text =
      "# Title\n<!-- maintainer note: @secret.md -->\nKeep.\n\n<!--\nmulti\nline\n-->\n\n```html\n<!-- in code -->\n```\nInline <!-- stays --> here.\n<!-- unterminated\n";
    const parsed = parseInstructions(text);
    expect(parsed.content).toBe("# Title\nKeep.\n\n\n```html\n<!-- in code -->\n```\nInline <!-- stays --> here.\n<!-- unterminated\n");
    expect(parsed.imports).toEqual([]);
  });

  it("places each import after its line, with lines counted in the file as stored", () => {
    const parsed = parseInstructions("---\npaths: src/**\n---\n<!-- note -->\nUse @a.md for style.\nThen @b.md\n", { rule: true });
    expect(parsed.content).toBe("Use @a.md for style.\nThen @b.md\n");
    expect(parsed.imports).toEqual([
      { target: "a.md", line: 5, insertAt: 21 },
      { target: "b.md", line: 6, insertAt: 32 },
    ]);
    expect(parsed.rule?.globs).toEqual(["src/**"]);
  });

  it("reads CRLF files and a byte-order mark like any other", () => {
    const parsed = parseInstructions("\ufeff---\r\nglobs: *.ts\r\n---\r\nSee @x.md\r\n", { rule: true, unconditionalByDefault: false });
    expect(parsed.content).toBe("See @x.md\n");
    expect(parsed.rule?.globs).toEqual(["*.ts"]);
    expect(parsed.imports.map((entry) => entry.target)).toEqual(["x.md"]);
  });

  it("is pure: the parser imports nothing from node:", () => {
    const source = readFileSync(join(import.meta.dirname, "..", "src", "instructions", "parse.ts"), "utf8");
    const imports = [...source.matchAll(/^import[^"]*"([^"]+)"/gm)].map((match) => match[1]);
    expect(imports).toEqual(["marked", "./glob.js", "yaml"]);
  });
});

// The bound is on the characters analyzeMarkdown reads after lexing (see its meter), never on the time: the quadratic
// scans read some n²/2 of them, and the budget stops one as soon as it passes 4n.
describe("imports of a hostile instruction file, in work linear in its size", () => {
  it("a paragraph of 66,000 @a (minutes before: the rest of it kept and searched for each) or of @a\\_ escapes", () => {
    for (const [text, count] of [
      ["@a ".repeat(66_000), 66_000],
      ["@a\\_".repeat(50_000), 1],
      [" @a\\_".repeat(40_000), 40_000],
    ] as const) {
      const meter = workBudget(4 * text.length);
      expect(analyzeMarkdown(text, meter).imports).toHaveLength(count);
      expect(meter.steps).toBeGreaterThan(0);
    }
  });
});

describe("block comments of a hostile instruction file, in work linear in its size", () => {
  it("50,000 unterminated <!-- (20 s before: each searched the rest of the file for its -->), and 20,000 closed ones", () => {
    for (const [text, count] of [
      ["<!--".repeat(50_000), 0],
      ["<!-- ".repeat(40_000), 0],
      ["<!-- a -->\n\n".repeat(20_000), 20_000],
    ] as const) {
      const meter = workBudget(4 * text.length);
      expect(analyzeMarkdown(text, meter).blockComments).toHaveLength(count);
      expect(meter.steps).toBeGreaterThan(0);
    }
    expect(analyzeMarkdown("<!-- x <!-- y -->\n\n<!-- z -->").blockComments).toEqual([
      [0, 17],
      [19, 29],
    ]);
  });
});
