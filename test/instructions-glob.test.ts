/**
 * The glob matcher of instruction files (src/instructions/glob.ts): the same answers as picomatch with
 * `dot: true` (the matcher it replaces, and the one instruction files are written for) on every glob and path of
 * a grid, and an answer, where picomatch's compiled regex backtracks for minutes, on the patterns that make it.
 */
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlob, MAX_ALTERNATIVES } from "../src/instructions/glob.js";
import { workBudget } from "./fixtures/work.js";

const GLOBS = [
  "*.ts",
  "**/*.ts",
  "src/**/*.ts",
  "src/**",
  "src/*",
  "**",
  "*",
  "a/**/b",
  "**/test/**",
  "*.{ts,tsx}",
  "{src,lib}/**/*.{js,mjs}",
  "{a,{b,c}}/x",
  "a{,b}.md",
  "file{1..3}.md",
  "{a..c}.txt",
  "[a-c]*.md",
  "[^a]*.md",
  "x[]]y",
  "?.md",
  "??.md",
  "a?b*c",
  "**/.env",
  ".*",
  "*.md",
  "a**b",
  "**a",
  "x/**a",
  "a\\*b",
  "./src/*.ts",
  "/abs.ts",
  "!*.md",
  "!!*.md",
  "docs/",
  "*/",
  "a/*/b/**/c",
  "**/*-test.*",
  "src/**/index.ts",
  "[a*.md",
  "a[b[x]*",
  "{a",
  "{a,b",
  "{{a,b}",
  "{a,{b,c}",
  "x{}y{a,b}",
  "{x}{a,b}.md",
];

const PATHS = [
  "a.ts",
  "src/a.ts",
  "src/deep/b.ts",
  "src/deep/b.tsx",
  "lib/x.mjs",
  "lib/x.js",
  "src",
  "a",
  "a/b",
  "a/x/y/b",
  "a/b/c",
  "test/a",
  "x/test/y/z",
  "b/x",
  "c/x",
  "a.md",
  "ab.md",
  "file2.md",
  "file4.md",
  "b.txt",
  "bz.md",
  "x]y",
  ".env",
  "a/.env",
  ".hidden",
  "README.md",
  "axyb",
  "ax/yb",
  "xa",
  "x/ya",
  "a*b",
  "abs.ts",
  "docs/",
  "docs",
  "q/",
  "a/q/b/r/s/c",
  "src/x/y-test.ts",
  "src/index.ts",
  "a?b",
  "axbyc",
  "",
];

describe("compileGlob", () => {
  it("answers as picomatch with dot: true on every glob and path of the grid", () => {
    const differences: string[] = [];
    for (const glob of GLOBS) {
      const ours = compileGlob(glob);
      const theirs = picomatch(glob, { dot: true });
      for (const path of PATHS) {
        if (ours(path) !== theirs(path)) differences.push(`${JSON.stringify(glob)} ${JSON.stringify(path)}: picomatch ${theirs(path)}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it("reads [!...] as a negated class, as git, bash and gitignore do (picomatch reads ! there as a character)", () => {
    expect(compileGlob("[!a]*.md")("b.md")).toBe(true);
    expect(compileGlob("[!a]*.md")("a.md")).toBe(false);
  });

  it("answers on the patterns a backtracking matcher takes minutes over, for a path of long segments", () => {
    const long = "x".repeat(250);
    const path = `${long}/${long}/src/build-output-file-${"x".repeat(200)}.ts`;
    expect(compileGlob("**/*?*?*?*?*?*?*?*?*?*?*?*?*Q")(path)).toBe(false);
    expect(compileGlob("**/*a*a*a*a*a*a*a*a*a*a*a*a*b")(`${"a".repeat(250)}/${"a".repeat(250)}c`)).toBe(false);
    expect(compileGlob("**/a/**/a/**/a/**/a/**/a/**/b")(Array.from({ length: 200 }, () => "a").join("/"))).toBe(false);
    expect(compileGlob("**/*?*?*?*?*?*?*?*?*?*?*?*?*Q")(`${long}/xxxxxxxxxxxxQ`)).toBe(true);
  });

  it("compiles a glob of a repository's in work linear in its length: unclosed or nested braces and classes", () => {
    const n = 200_000;
    // Each took minutes to compile (scanned again from every `{` or `[`, some n²/2 characters read): 40,000 `[` held
    // the main thread 157 s. Compiling and testing a path now reads each character at most a few times: the meter
    // stops a scan at 4n, long before a quadratic one ends.
    for (const glob of [
      "{".repeat(n),
      "[".repeat(n),
      "[!".repeat(n / 2),
      "{,".repeat(n / 2),
      "{a".repeat(n / 2),
      `${"{".repeat(n / 2)}${"}".repeat(n / 2)}`,
    ]) {
      const meter = workBudget(4 * glob.length);
      let test: ((path: string) => boolean) | undefined;
      try {
        test = compileGlob(glob, meter);
      } catch {
        // Refused as invalid is an answer too (the meter's own error is caught here, and seen below).
      }
      test?.("src/a.ts");
      expect(meter.steps, glob.slice(0, 8)).toBeLessThanOrEqual(4 * glob.length);
    }
  });

  it("refuses, saying why, what it would read another way: extended globs, braces that expand without end", () => {
    expect(() => compileGlob("@(a|b).md")).toThrow(/extended globs/);
    expect(() => compileGlob("!(a).md")).toThrow(/extended globs/);
    expect(() => compileGlob("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}")).toThrow(`expand to more than ${MAX_ALTERNATIVES}`);
    expect(() => compileGlob("{1..100000}.md")).toThrow(/more than 256 values/);
  });
});
