/**
 * Property: a git command line that contains a denied flag, in any spelling git accepts (full name, an
 * abbreviation, `=value` or a separate value, bundled after other short flags, quoted or escaped any way the
 * shell allows), is never allowed; with the flag spelled in full it is denied.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyCommand } from "../src/index.js";

interface DeniedFlag {
  /** Long name without `--`, or a single short letter. */
  name: string;
  /** Whether the flag takes a value (`--output=<file>`). "optional": only in the stuck form. */
  value: "none" | "required" | "optional";
}

interface Spec {
  sub: string;
  safe: string[];
  /** Short letters that take no value, so they can precede a denied letter in a bundle. */
  bundlable: string;
  denied: DeniedFlag[];
  /** Prefixes that are complete names of other, safe options (`--text` is not `--textconv`). */
  otherNames: string[];
}

const DIFF_SAFE = ["--stat", "-p", "--name-only", "-M", "--cached", "HEAD~1", "--color=never", "-U3", "--word-diff", "--no-ext-diff", "src/a.ts"];
const LOG_SAFE = [
  "--oneline",
  "-n",
  "5",
  "--graph",
  "-p",
  "--stat",
  "--format=%H",
  "HEAD",
  "main..HEAD",
  "--all",
  "--grep=fix",
  "-3",
  "--since=1.week",
];

const SPECS: Spec[] = [
  {
    sub: "log",
    safe: LOG_SAFE,
    bundlable: "pRwbazs",
    denied: [
      { name: "output", value: "required" },
      { name: "ext-diff", value: "none" },
      { name: "textconv", value: "none" },
      { name: "O", value: "required" },
    ],
    otherNames: ["text"],
  },
  {
    sub: "show",
    safe: ["HEAD", "--stat", "-s", "--format=%B", "--name-status", "HEAD~2"],
    bundlable: "pRwbazs",
    denied: [
      { name: "output", value: "required" },
      { name: "ext-diff", value: "none" },
      { name: "textconv", value: "none" },
      { name: "O", value: "required" },
    ],
    otherNames: ["text"],
  },
  {
    sub: "diff",
    safe: DIFF_SAFE,
    bundlable: "pRwbaz",
    denied: [
      { name: "output", value: "required" },
      { name: "no-index", value: "none" },
      { name: "ext-diff", value: "none" },
      { name: "textconv", value: "none" },
      { name: "O", value: "required" },
    ],
    otherNames: ["text", "no"],
  },
  {
    sub: "rev-list",
    safe: ["HEAD", "--count", "--all", "--max-count=3"],
    bundlable: "p",
    denied: [{ name: "output", value: "required" }],
    otherNames: [],
  },
  {
    sub: "grep",
    safe: ["-n", "-i", "needle", "-e", "pattern", "--cached", "-w", "--heading", "-3", "HEAD"],
    bundlable: "nilwvchHqz",
    denied: [
      { name: "open-files-in-pager", value: "optional" },
      { name: "no-index", value: "none" },
      { name: "textconv", value: "none" },
      { name: "O", value: "optional" },
      { name: "f", value: "required" },
    ],
    otherNames: ["text", "no"],
  },
  {
    sub: "blame",
    safe: ["-L", "1,5", "-w", "src/a.ts", "--porcelain", "-e", "HEAD"],
    bundlable: "wesltfnb",
    denied: [
      { name: "contents", value: "required" },
      { name: "ignore-revs-file", value: "required" },
      { name: "textconv", value: "none" },
      { name: "S", value: "required" },
    ],
    otherNames: ["text", "ignore-rev"],
  },
  {
    sub: "cat-file",
    safe: ["-p", "HEAD:a.txt", "--batch-check"],
    bundlable: "",
    denied: [
      { name: "textconv", value: "none" },
      { name: "filters", value: "none" },
    ],
    otherNames: [],
  },
  {
    sub: "ls-files",
    safe: ["-m", "--others", "--exclude-standard", "-z"],
    bundlable: "cdmoiskuz",
    denied: [
      { name: "exclude-from", value: "required" },
      { name: "X", value: "required" },
    ],
    otherNames: ["exclude"],
  },
];

const FILES = ["/tmp/pwned", "/etc/passwd", "x", "sh -c id", "../../a"];

/** Every way the shell lets a word be written; all give the same word to git. */
function quoteArb(word: string): fc.Arbitrary<string> {
  const plainSafe = /^[A-Za-z0-9_./=:,%~@+-]+$/.test(word) && !word.startsWith("~");
  const options: Array<fc.Arbitrary<string>> = [
    fc.constant(`'${word.replace(/'/g, `'\\''`)}'`),
    fc.constant(`"${word.replace(/(["\\$`])/g, "\\$1")}"`),
    fc.constant(`$'${[...word].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("")}'`),
  ];
  if (plainSafe) {
    options.push(fc.constant(word));
    options.push(
      fc.integer({ min: 0, max: Math.max(0, word.length - 1) }).map((k) => `${word.slice(0, k)}'${word.slice(k)}'`),
      fc.integer({ min: 0, max: Math.max(0, word.length - 1) }).map((k) => `${word.slice(0, k)}\\${word.slice(k)}`),
    );
  }
  return fc.oneof(...options);
}

/** The tokens of one denied flag, spelled any way git accepts. */
function spellings(spec: Spec, flag: DeniedFlag, full: boolean): fc.Arbitrary<string[]> {
  const file = fc.constantFrom(...FILES);
  if (flag.name.length === 1) {
    const prefix = spec.bundlable === "" ? fc.constant("") : fc.stringMatching(new RegExp(`^[${spec.bundlable}]{0,3}$`));
    if (flag.value === "none") return prefix.map((p) => [`-${p}${flag.name}`]);
    const stuck = fc.tuple(prefix, file).map(([p, f]) => [`-${p}${flag.name}${f}`]);
    if (flag.value === "optional")
      return fc.oneof(
        stuck,
        prefix.map((p) => [`-${p}${flag.name}`]),
      );
    return fc.oneof(
      stuck,
      fc.tuple(prefix, file).map(([p, f]) => [`-${p}${flag.name}`, f]),
    );
  }
  const names = full
    ? [flag.name]
    : Array.from({ length: flag.name.length - 1 }, (_, i) => flag.name.slice(0, i + 2)).filter((n) => !spec.otherNames.includes(n));
  const name = fc.constantFrom(...names);
  if (flag.value === "none") return name.map((n) => [`--${n}`]);
  const withEquals = fc.tuple(name, file).map(([n, f]) => [`--${n}=${f}`]);
  if (flag.value === "optional")
    return fc.oneof(
      withEquals,
      name.map((n) => [`--${n}`]),
    );
  return fc.oneof(
    withEquals,
    fc.tuple(name, file).map(([n, f]) => [`--${n}`, f]),
  );
}

function commandArb(full: boolean): fc.Arbitrary<string> {
  return fc
    .constantFrom(...SPECS)
    .chain((spec) =>
      fc.record({
        spec: fc.constant(spec),
        denied: fc.constantFrom(...spec.denied).chain((flag) => spellings(spec, flag, full)),
        safe: fc.subarray(spec.safe, { maxLength: Math.min(4, spec.safe.length) }),
        at: fc.nat(),
        globals: fc.subarray(["--no-pager", "-c color.ui=false", "--literal-pathspecs", "-P"], { maxLength: 2 }),
        env: fc.constantFrom("", "LC_ALL=C ", "TZ=UTC "),
      }),
    )
    .chain(({ spec, denied, safe, at, globals, env }) => {
      const position = at % (safe.length + 1);
      const words = [...safe.slice(0, position), ...denied, ...safe.slice(position)];
      return fc.tuple(...words.map(quoteArb)).map((quoted) => `${env}git ${globals.join(" ")} ${spec.sub} ${quoted.join(" ")}`.replace(/ +/g, " "));
    });
}

describe("denied flags in any spelling", () => {
  it("are never allowed (abbreviations, bundles, =/space values, quoting)", () => {
    fc.assert(
      fc.property(commandArb(false), (line) => {
        expect(classifyCommand(line).verdict, line).not.toBe("allow");
      }),
      { numRuns: 2000, seed: 20261129 },
    );
  });

  it("are denied when spelled in full", () => {
    fc.assert(
      fc.property(commandArb(true), (line) => {
        expect(classifyCommand(line).verdict, line).toBe("deny");
      }),
      { numRuns: 1000, seed: 20261130 },
    );
  });

  it("stay denied behind other commands and in pipelines", () => {
    fc.assert(
      fc.property(
        commandArb(true),
        fc.constantFrom("git status && ", "git log -1; ", "true || ", ""),
        fc.constantFrom(" | head", " 2>/dev/null", ""),
        (line, before, after) => {
          expect(classifyCommand(`${before}${line}${after}`, { ignoreNonGit: true }).verdict).toBe("deny");
        },
      ),
      { numRuns: 500, seed: 20261131 },
    );
  });
});
