/**
 * Which POSIX regular expressions git must never be given: the ones whose matching or compiling runs away. git
 * matches revisions' message searches (`:/<regex>`, `<rev>^{/<regex>}`), `git log --grep`/`--author` and a diff
 * driver's hunk-header pattern (`diff.<driver>.funcname`, `xfuncname`) with the C library's regex engine (glibc's
 * on Linux, or git's copy of it). Without back-references it runs in time proportional to the text; two things make
 * it run away (measured on git 2.39 with glibc):
 * - a **back-reference** (`\1` to `\9`) makes matching backtrack: `^(a*)*(a*)*(a*)*\1\2\3c` against a message of
 *   120 `a` burns a core for minutes;
 * - a **counted repetition** (`{m,n}`) is compiled by copying what it repeats, and the compiled form grows with the
 *   square of the copies: `a{1,32000}` takes 8 GB and 16 s to compile, `(a{1,1000}){1,1000}` over 13 GB.
 * So both are refused: back-references always, counted repetitions beyond {@link MAX_EXPANDED_ATOMS} copies in all
 * (nesting multiplies, repetitions add up). That bound keeps compiling under about 40 MB and a few milliseconds.
 */
import { formatCount } from "../text.js";

/** `extended` for ERE (`xfuncname`, revisions, `--extended-regexp`), `basic` for BRE (`funcname`). */
export type RegexSyntax = "extended" | "basic";

/** The atoms a pattern may have once every counted repetition is written out (`a{1,2000}` is 2,000). */
export const MAX_EXPANDED_ATOMS = 2_000;

/**
 * Why git's matching of `pattern` could run away (a phrase that follows the pattern's name: "has a
 * back-reference ..."), or `undefined` when it cannot. Conservative: an escaped digit is a back-reference wherever
 * it is outside a bracket expression, and a repetition's larger bound counts.
 */
export function regexHazard(pattern: string, syntax: RegexSyntax): string | undefined {
  const extended = syntax === "extended";
  // Each open group's expanded size so far, and the size of the last atom (what a repetition would repeat).
  const sizes: number[] = [0];
  let last = 0;
  const add = (size: number): void => {
    sizes[sizes.length - 1]! += size;
    last = size;
  };
  const repeat = (bound: number): void => {
    // The atom is counted once already; a repetition writes it out `bound` times in all.
    sizes[sizes.length - 1]! += last * (Math.max(bound, 1) - 1);
    last *= Math.max(bound, 1);
  };
  const close = (): void => {
    if (sizes.length === 1) return add(1); // An unmatched `)` is an ordinary character.
    const group = sizes.pop()!;
    add(Math.max(group, 1));
  };
  const interval = (at: number, closing: string): number | undefined => {
    const match = new RegExp(`^(\\d*)(?:,(\\d*))?${closing.replace(/[\\{}]/g, "\\$&")}`).exec(pattern.slice(at));
    if (match === null) return undefined;
    const low = match[1] === "" ? 0 : Number(match[1]);
    const high = match[2] === undefined || match[2] === "" ? low : Number(match[2]);
    repeat(Math.max(low, high));
    return at + match[0].length;
  };
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next !== undefined && /[1-9]/.test(next)) {
        return `has a back-reference (\\${next}): matching one can take time exponential in the length of the text`;
      }
      if (!extended && next === "(") sizes.push(0);
      else if (!extended && next === ")") close();
      else if (!extended && next === "{") {
        const end = interval(i + 2, "\\}");
        if (end !== undefined) {
          i = end;
          continue;
        }
        add(1);
      } else if (extended || !(next === "|" || next === "+" || next === "?")) add(1);
      i += 2;
      continue;
    }
    if (c === "[") {
      i = bracketEnd(pattern, i);
      add(1);
      continue;
    }
    if (extended && c === "(") {
      sizes.push(0);
      i++;
      continue;
    }
    if (extended && c === ")") {
      close();
      i++;
      continue;
    }
    if (extended && c === "{") {
      const end = interval(i + 1, "}");
      if (end !== undefined) {
        i = end;
        continue;
      }
    }
    // `*`, `+`, `?`, `|`, anchors: no copies. Anything else is one atom.
    if (!"*+?|^$".includes(c) || (!extended && (c === "+" || c === "?" || c === "|"))) add(1);
    i++;
  }
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total > MAX_EXPANDED_ATOMS) {
    return (
      `repeats so much that it is ${formatCount(total)} atoms long once its counted repetitions ({m,n}) are written out ` +
      `(at most ${formatCount(MAX_EXPANDED_ATOMS)}): git would need gigabytes of memory and seconds to compile it`
    );
  }
  return undefined;
}

/**
 * A hunk-header pattern as git reads one (`diff.<driver>.funcname`/`xfuncname`): several patterns, one a line,
 * each after an optional `!` that negates it. The hazard of the first that has one.
 */
export function hunkHeaderHazard(value: string, syntax: RegexSyntax): string | undefined {
  for (const line of value.split("\n")) {
    const hazard = regexHazard(line.startsWith("!") ? line.slice(1) : line, syntax);
    if (hazard !== undefined) return hazard;
  }
  return undefined;
}

/** The index just past the bracket expression that starts at `start` (`[]a]`, `[^]a]`, `[[:alpha:]]`); the end if unclosed. */
function bracketEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "]") return i + 1;
    if (c === "[" && (pattern[i + 1] === ":" || pattern[i + 1] === "." || pattern[i + 1] === "=")) {
      const closing = pattern.indexOf(`${pattern[i + 1]}]`, i + 2);
      i = closing === -1 ? pattern.length : closing + 2;
      continue;
    }
    i++;
  }
  return pattern.length;
}

/**
 * The regular expressions a caller's revision asks git to match against commit messages: the text after each
 * `:/` (`:/fix`, `A..:/fix`) and each `^{/` (`HEAD^{/fix}`), to the end of the revision. Conservative: a
 * `<rev>:/<path>` is scanned too, and a bad pattern there names no commit anyway.
 */
export function messageSearches(revision: string): string[] {
  const found: string[] = [];
  for (const marker of [":/", "^{/"]) {
    for (let at = revision.indexOf(marker); at !== -1; at = revision.indexOf(marker, at + 1)) found.push(revision.slice(at + marker.length));
  }
  return found;
}
