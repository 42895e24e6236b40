/**
 * Properties over command lines generated from the shell grammar: braces, globs, tildes, variables, command and
 * arithmetic substitution, quotes and escapes, `--` in every position, arithmetic and subscript constructs,
 * control bytes. No line with a word whose expansion is not a single, known string where git reads an option,
 * a value or a path is ever allowed; and whatever the shell adapter calls literal, bash itself expands to
 * exactly that one word (checked by running bash on every generated word).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyCommand } from "../src/index.js";
import { mayRunGit } from "../src/safety/may-run-git.js";
import { parseShell } from "../src/safety/shell.js";
import { tempDir } from "./fixtures/repo.js";
import { CORPUS_CONTEXT } from "./safety-corpus.js";

/** Read commands with arguments that are allowed on their own, so that only the inserted word can spoil them. */
const BASES: Array<{ sub: string; args: string[] }> = [
  { sub: "log", args: ["--oneline", "-n", "5", "HEAD", "--", "src"] },
  { sub: "show", args: ["--stat", "HEAD~1", "--", "a.txt"] },
  { sub: "diff", args: ["--cached", "--stat", "--", "a.txt"] },
  { sub: "status", args: ["--short", "--", "src"] },
  { sub: "grep", args: ["-n", "-e", "needle", "--", "src"] },
  { sub: "blame", args: ["-L", "1,2", "--", "a.txt"] },
  { sub: "ls-files", args: ["-m", "--", "src"] },
  { sub: "branch", args: ["--list", "main"] },
  { sub: "rev-parse", args: ["--abbrev-ref", "HEAD"] },
  { sub: "for-each-ref", args: ["--count=3", "refs/heads"] },
  { sub: "cat-file", args: ["-t", "HEAD"] },
  { sub: "config", args: ["--get", "user.name"] },
];

/** Words the shell expands into something not known before it runs: never a single known string. */
const unknownWord: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("$X", "${X}", "$1", "$@", "$*", "${X:-a}", "${X/a/b}", "${#X}", "$(id)", "`id`", "$((1+1))", "<(id)", "$[1]"),
  fc.constantFrom("*", "*.ts", "?", "src/*", "[ab]", "a[bc]d", "--outp*", "-?", "@(a|b)", "!(x)", "+(y)"),
  fc.constantFrom("{a,b}", "{1..3}", "--{output,x}=/tmp/x", "{HEAD,--output=/tmp/x}", "x{a,'b'}", "{'a',b}", "-{O,n}x", "{a,$X}"),
  fc.constantFrom("~", "~/x", "~root", "x=~", "--since=~", "a:~", "--x=~/y"),
  fc
    .tuple(fc.constantFrom("--author=", "-n", "--", "-", "HEAD", "src/", ""), fc.constantFrom("$X", "$(id)", "*", "{a,b}", "`id`", "$((1))"))
    .map(([a, b]) => `${a}${b}`),
  fc.constantFrom("'a'$X", '"a"$X', "a\\ $X", "$'\\x41'$X", '"$X"$Y', "\"$X\"'*'$Z"),
);

const controlByte = fc.constantFrom("\r", "\x1b", "\x0b", "\x0c", "\x01", "\x7f", "\x08");

/** Constructs that execute the contents of strings (arithmetic, subscripts), placed before or after the git command. */
const executingConstruct = fc.constantFrom(
  "(( 'a[$(id)]' ))",
  "let x=1",
  "[[ -v 'a[$(id)]' ]]",
  "[[ x -eq 1 ]]",
  "[[ 1 -lt 2 ]]",
  "echo $((1))",
  "a[1]=x",
  "declare -i y",
  "echo ${a[0]}",
  "echo ${x:1}",
  "for ((i=0;i<1;i++)); do :; done",
);

function line(base: { sub: string; args: string[] }, insert: string, at: number): string {
  const args = [...base.args];
  args.splice(at % (args.length + 1), 0, insert);
  return `git ${base.sub} ${args.join(" ")}`;
}

describe("command lines from the grammar", () => {
  it("the base lines are allowed (so the inserted word is what any refusal is about)", () => {
    for (const base of BASES) expect(classifyCommand(line(base, "", 0).replace(/ {2,}/g, " "), CORPUS_CONTEXT).verdict, base.sub).toBe("allow");
  });

  it("never allows a line with a word the shell expands unknowably, wherever it stands", () => {
    fc.assert(
      fc.property(fc.constantFrom(...BASES), unknownWord, fc.nat(), (base, word, at) => {
        const generated = line(base, word, at);
        expect(classifyCommand(generated, CORPUS_CONTEXT).verdict, generated).not.toBe("allow");
      }),
      { numRuns: 3000, seed: 20261201 },
    );
  });

  it("never allows a quoted parameter where git reads options (first after the subcommand, or before the command)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...BASES), fc.constantFrom('"$X"', '"${X}"', '-"$X"', '--"$X"', '"-$X"', '"$1"'), (base, word) => {
        const generated = line(base, word, 0);
        expect(classifyCommand(generated, CORPUS_CONTEXT).verdict, generated).not.toBe("allow");
        const global = `git ${word} ${base.sub} ${base.args.join(" ")}`;
        expect(classifyCommand(global, CORPUS_CONTEXT).verdict, global).not.toBe("allow");
      }),
      { numRuns: 300, seed: 20261202 },
    );
  });

  it("never allows a line with a control byte other than tab and newline, wherever it is", () => {
    fc.assert(
      fc.property(fc.constantFrom(...BASES), controlByte, fc.nat(), (base, byte, at) => {
        const text = line(base, "", 0).replace(/ {2,}/g, " ");
        const position = at % (text.length + 1);
        const generated = `${text.slice(0, position)}${byte}${text.slice(position)}`;
        expect(classifyCommand(generated, CORPUS_CONTEXT).verdict, JSON.stringify(generated)).not.toBe("allow");
      }),
      { numRuns: 1000, seed: 20261203 },
    );
  });

  it("never allows a line with a construct that evaluates arithmetic or subscripts", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BASES),
        executingConstruct,
        fc.constantFrom("; ", " && ", " || "),
        fc.boolean(),
        (base, construct, joiner, before) => {
          const git = line(base, "", 0).replace(/ {2,}/g, " ");
          const generated = before ? `${construct}${joiner}${git}` : `${git}${joiner}${construct}`;
          expect(classifyCommand(generated, CORPUS_CONTEXT).verdict, generated).not.toBe("allow");
        },
      ),
      { numRuns: 500, seed: 20261204 },
    );
  });

  it("calls a word literal only when bash expands it to exactly that one word", () => {
    // Words from pieces: plain text, shell-special characters, every kind of quoting and escaping, expansions.
    const piece = fc.oneof(
      fc.stringMatching(/^[a-zA-Z0-9_./:=@%+,-]{1,4}$/),
      fc.constantFrom("*", "?", "[a]", "{", "}", ",", "..", "~", "=", ":", "!", "#", "^", "-", "--", "@", "%"),
      fc.constantFrom("'a b'", "'*'", "'{a,b}'", "'~'", "'$X'", "''", '""', '"a b"', '"*"', '"~"', '"{a,b}"', '"\\$X"', '"\\\\"', '"\\`"'),
      fc.constantFrom("\\*", "\\ ", "\\{", "\\~", "\\$X", "\\\\", "\\'", '\\"', "\\,"),
      fc.constantFrom("$'\\x41'", "$'\\t'", "$'a\\'b'", "$'\\u00e9'", "$'{a,b}'", "$'~'"),
      fc.constantFrom("$X", '"$X"', "${X}", '"${X}"', "$(echo a)", "`echo a`", "$((1+1))"),
    );
    const words = fc.sample(
      fc.array(piece, { minLength: 1, maxLength: 5 }).map((pieces) => pieces.join("")),
      { numRuns: 800, seed: 20261205 },
    );
    const dir = tempDir("gitctx-grammar-");
    mkdirSync(join(dir, "home"));
    for (const name of ["a", "b", "ab", "a b", "x.ts"]) writeFileSync(join(dir, name), "");
    const candidates = words.filter((word) => {
      const parsed = parseShell(`: ${word}`);
      return parsed.ok && parsed.commands.length === 1 && parsed.commands[0]!.words.length === 2;
    });
    // Literal, in a line the adapter finds no hazard in (a hazard, such as a `#` the parser takes for a comment
    // where bash does not, makes the line `ask` whatever its words say).
    const literal = candidates.filter((word) => {
      const parsed = parseShell(`: ${word}`);
      return parsed.ok && parsed.hazards.length === 0 && parsed.commands[0]!.words[1]!.kind === "literal";
    });
    expect(literal.length).toBeGreaterThan(100);
    // One bash for all of them: each word's expansion, NUL-separated, then a record separator.
    const script = literal.map((word) => `printf '%s\\0' ${word}; printf '\\1\\0'`).join("\n");
    const result = spawnSync("bash", ["-c", script], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: join(dir, "home"), X: "x y", LC_ALL: "C" },
      encoding: "utf8",
    });
    const records = result.stdout.split("\u0001\u0000");
    const mismatches: string[] = [];
    literal.forEach((word, i) => {
      const parsed = parseShell(`: ${word}`);
      const value = parsed.ok ? parsed.commands[0]!.words[1]!.value : undefined;
      const fields = (records[i] ?? "").split("\u0000").slice(0, -1);
      if (fields.length !== 1 || fields[0] !== value)
        mismatches.push(`${JSON.stringify(word)}: parser ${JSON.stringify(value)}, bash ${JSON.stringify(fields)}`);
    });
    expect(mismatches).toEqual([]);
  });
});

describe("whole lines, parser against bash", () => {
  it("sees exactly the git invocations bash runs, with the same arguments, wherever it calls them literal", () => {
    // A git that records its arguments (NUL-separated, one record per run) and nothing else on PATH but sh.
    const dir = tempDir("gitctx-grammar-lines-");
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const record = join(dir, "record");
    writeFileSync(join(bin, "git"), `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done >> '${record}'\nprintf '\\1\\0' >> '${record}'\n`, {
      mode: 0o755,
    });
    const token = fc.oneof(
      fc.constantFrom("log", "status", "-1", "--oneline", "a b", "x"),
      fc.constantFrom("'#'", '"#"', "\\#", "x#y", "'a'#b", '""#c', "#", "# c", "'x'#;", "a\\;b", "';'", "'&&'"),
      fc.constantFrom(";", " ; ", "&&", "||", "|", "\n", "\\\n", "\t", "&"),
      fc.constantFrom("$'a\\nb'", "$'\\''", '"a\\"b"', "'it''s'", "\\'", '\\"', "a\\ b", "$'#'", "$'\\x23'"),
    );
    const lines = fc.sample(
      fc.array(token, { minLength: 1, maxLength: 7 }).map((tokens) => `git ${tokens.join(" ")}`),
      { numRuns: 400, seed: 20261206 },
    );
    const mismatches: string[] = [];
    let compared = 0;
    for (const line of lines) {
      const parsed = parseShell(line);
      if (!parsed.ok || parsed.hazards.length > 0) continue;
      const background = parsed.commands.some((c) => c.context.length > 0);
      if (background) continue;
      const gitCalls = parsed.commands.filter((c) => c.words[0]?.value === "git");
      if (!gitCalls.every((c) => c.words.every((w) => w.kind === "literal"))) continue;
      if (parsed.commands.some((c) => c.words[0]?.value !== "git")) continue;
      compared++;
      spawnSync("rm", ["-f", record]);
      spawnSync("bash", ["-c", line], { cwd: dir, env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, LC_ALL: "C" }, stdio: "ignore", timeout: 10_000 });
      let text = "";
      try {
        text = spawnSync("cat", [record], { encoding: "utf8" }).stdout;
      } catch {
        text = "";
      }
      const ran = text
        .split("\u0001\u0000")
        .slice(0, -1)
        .map((r) => r.split("\u0000").slice(0, -1));
      const expected = gitCalls.map((c) => c.words.slice(1).map((w) => w.value!));
      // `&&`/`||` after a failing git may skip later ones (the recorder succeeds, so none is skipped here).
      if (JSON.stringify(ran) !== JSON.stringify(expected))
        mismatches.push(`${JSON.stringify(line)}: parser ${JSON.stringify(expected)}, bash ${JSON.stringify(ran)}`);
    }
    expect(compared).toBeGreaterThan(150);
    expect(mismatches).toEqual([]);
  }, 120_000);
});

describe("the hook's shortcut", () => {
  it("mayRunGit is false only where the classifier finds no git and no indirect invocation", () => {
    const chars = fc.constantFrom(..."gitGITxs -;|&<>'\"\\\n()=/.".split(""), "git", "g", "it", "sh -c ", "env ", "xargs ");
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 20 }).map((parts) => parts.join("")),
        (text) => {
          if (mayRunGit(text)) return;
          const found = classifyCommand(text).invocations.filter((inv) => inv.kind === "git" || inv.kind === "indirect");
          expect(found, JSON.stringify(text)).toEqual([]);
        },
      ),
      { numRuns: 3000, seed: 20261207 },
    );
  });
});
