/**
 * Glob matching for the paths instruction files name (`paths:` of a rule, Cursor's `globs`, Copilot's
 * `applyTo`, the `excludes` option), in time linear in the path for each pattern, whatever the pattern. These
 * globs come from the repository: a regex-compiling matcher (picomatch) backtracks without end on a pattern such
 * as `**\/*?*?*?*?*?*?*?*?*?*?*?*?*Q`, where one match took two minutes on the main thread.
 *
 * The syntax is picomatch's with `dot: true`, which instruction files are written for: `*` and `?` within one
 * path segment (a leading dot included), `**` as a whole segment for any number of segments, `[...]` classes
 * (`!` or `^` negates, `a-z` ranges, `\` escapes), `{a,b}` alternatives and `{1..3}` ranges (nested, at most
 * MAX_ALTERNATIVES in all), a leading `!` that negates the whole glob, a leading `./` ignored. Extended globs
 * (`@(a|b)`, `!(x)`...) are refused as invalid rather than read another way.
 *
 * Pure: text in, a predicate out.
 */

export type GlobTest = (path: string) => boolean;

/**
 * A count of work, for tests: the scans that went quadratic on a hostile input add a step for each character they
 * read (here the brace and class scans and the matching of a path; in parse.ts, the import and comment scans). A
 * test passes one to bound the work by the input's size, where a time limit fails on a busy machine and lets a
 * slow scan pass on a fast one. Production code passes none.
 */
export interface WorkMeter {
  steps: number;
}

/** Alternatives one glob's braces may expand to: `{a,b}{c,d}` is four. */
export const MAX_ALTERNATIVES = 256;

/** One character of a segment: a literal, `?`, a class, or a run of `*`. */
type Token =
  | { kind: "char"; char: string }
  | { kind: "any" }
  | { kind: "class"; negated: boolean; test: (char: string) => boolean }
  | { kind: "star" };

type Segment = { kind: "globstar" } | { kind: "tokens"; tokens: Token[] };

/**
 * Compiles `glob`; throws an Error saying what is wrong with an invalid one. `meter` counts the steps of compiling
 * and of every later test of a path.
 */
export function compileGlob(glob: string, meter?: WorkMeter): GlobTest {
  let body = glob;
  let negated = false;
  while (body.startsWith("!") && !body.startsWith("!(")) {
    negated = !negated;
    body = body.slice(1);
  }
  if (/(^|[^\\])[@!+*?]\(/.test(body)) throw new Error("extended globs (@(...), !(...), +(...), *(...), ?(...)) are not supported");
  const patterns = expandBraces(body, meter).map((alternative) => segments(alternative.replace(/^(\.\/)+/, ""), meter));
  const test = (path: string): boolean => {
    const parts = path.replace(/^(\.\/)+/, "").split("/");
    // A directory written with its trailing slash (`docs/`) is also that directory without it.
    const bare = parts.length > 1 && parts.at(-1) === "" ? parts.slice(0, -1) : undefined;
    return patterns.some((pattern) => matchSegments(pattern, parts, meter) || (bare !== undefined && matchSegments(pattern, bare, meter)));
  };
  // No glob matches the empty path, not even a negated one.
  return negated ? (path) => path !== "" && !test(path) : (path) => path !== "" && test(path);
}

/** `{a,b}` and `{1..3}` expanded, innermost first; a brace that is neither stays as it is. */
function expandBraces(glob: string, meter: WorkMeter | undefined): string[] {
  const open = findBrace(glob, meter);
  if (open === undefined) return [glob];
  const { start, end, options } = open;
  const out: string[] = [];
  for (const option of options) {
    for (const expanded of expandBraces(glob.slice(0, start) + option + glob.slice(end + 1), meter)) {
      out.push(expanded);
      if (out.length > MAX_ALTERNATIVES) throw new Error(`its braces expand to more than ${MAX_ALTERNATIVES} patterns`);
    }
  }
  return out;
}

/**
 * The first `{...}` that expands (a top-level comma, or a `x..y` range), with its alternatives. One pass with a
 * stack of the open braces: a scan forward from each `{` in turn took quadratic time on a glob of unclosed or
 * nested braces, and the globs are the repository's (60,000 `{` in a rule's `paths` held the main thread 13 s).
 */
function findBrace(glob: string, meter: WorkMeter | undefined): { start: number; end: number; options: string[] } | undefined {
  const open: Array<{ start: number; commas: number[] }> = [];
  let best: { start: number; end: number; commas: number[] } | undefined;
  for (let at = 0; at < glob.length; at++) {
    if (meter !== undefined) meter.steps++;
    const c = glob[at];
    if (c === "\\") {
      at++;
      continue;
    }
    if (c === "{") open.push({ start: at, commas: [] });
    else if (c === "," && open.length > 0) open[open.length - 1]!.commas.push(at);
    else if (c === "}" && open.length > 0) {
      const brace = open.pop()!;
      if (best !== undefined && best.start < brace.start) continue; // An earlier one already expands.
      if (brace.commas.length > 0 || isRange(glob, brace.start + 1, at)) best = { start: brace.start, end: at, commas: brace.commas };
    }
  }
  if (best === undefined) return undefined;
  const { start, end, commas } = best;
  if (commas.length === 0) return { start, end, options: rangeOptions(RANGE.exec(glob.slice(start + 1, end))!) };
  const cuts = [start, ...commas, end];
  return { start, end, options: cuts.slice(0, -1).map((cut, i) => glob.slice(cut + 1, cuts[i + 1])) };
}

const RANGE = /^(-?\d+)\.\.(-?\d+)$|^([a-zA-Z])\.\.([a-zA-Z])$/;

/** Whether `glob[from..to)` is a range; only a short text can be one (both ends within MAX_ALTERNATIVES of each other). */
function isRange(glob: string, from: number, to: number): boolean {
  return to - from <= 64 && RANGE.test(glob.slice(from, to));
}

function rangeOptions(range: RegExpExecArray): string[] {
  const numeric = range[1] !== undefined;
  const from = numeric ? Number(range[1]) : range[3]!.charCodeAt(0);
  const to = numeric ? Number(range[2]) : range[4]!.charCodeAt(0);
  if (Math.abs(to - from) >= MAX_ALTERNATIVES) throw new Error(`its range {${range[0]}} has more than ${MAX_ALTERNATIVES} values`);
  const step = from <= to ? 1 : -1;
  const options: string[] = [];
  for (let v = from; v !== to + step; v += step) options.push(numeric ? String(v) : String.fromCharCode(v));
  return options;
}

function segments(glob: string, meter: WorkMeter | undefined): Segment[] {
  return splitSegments(glob).map((segment) => (segment === "**" ? { kind: "globstar" } : { kind: "tokens", tokens: tokens(segment, meter) }));
}

/** Splits at every `/` outside a class (`[/]` never matches: git paths have none inside a segment). */
function splitSegments(glob: string): string[] {
  const out: string[] = [];
  let current = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\" && i + 1 < glob.length) {
      current += c + glob[++i];
      continue;
    }
    if (c === "/") {
      out.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  out.push(current);
  return out;
}

function tokens(segment: string, meter: WorkMeter | undefined): Token[] {
  const out: Token[] = [];
  // Once a `[` has no `]` after it, every later `[` of the segment is literal too: scanning on from each in turn took
  // quadratic time (40,000 `[` held the main thread over two minutes), and a later one could only close on a `]`
  // the first read as escaped or as a range's end.
  let unclosed = false;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "\\" && i + 1 < segment.length) out.push({ kind: "char", char: segment[++i]! });
    else if (c === "*") {
      // A run of stars, `**` inside a segment included, is one star: it never crosses a `/`.
      if (out.at(-1)?.kind !== "star") out.push({ kind: "star" });
    } else if (c === "?") out.push({ kind: "any" });
    else if (c === "[") {
      const parsed: ReturnType<typeof charClass> = unclosed ? undefined : charClass(segment, i, meter);
      unclosed ||= parsed === undefined;
      if (parsed === undefined) out.push({ kind: "char", char: c });
      else {
        out.push(parsed.token);
        i = parsed.end;
      }
    } else out.push({ kind: "char", char: c });
  }
  return out;
}

/** `[...]` starting at `start`: its test and the index of its `]`, or `undefined` when it is not closed. */
function charClass(segment: string, start: number, meter: WorkMeter | undefined): { token: Token; end: number } | undefined {
  let i = start + 1;
  const negated = segment[i] === "!" || segment[i] === "^";
  if (negated) i++;
  const ranges: Array<[string, string]> = [];
  let first = true;
  for (; i < segment.length; i++) {
    if (meter !== undefined) meter.steps++;
    let c = segment[i]!;
    if (c === "]" && !first) {
      const test = (char: string): boolean => ranges.some(([low, high]) => char >= low && char <= high);
      return { token: { kind: "class", negated, test }, end: i };
    }
    first = false;
    if (c === "\\" && i + 1 < segment.length) c = segment[++i]!;
    if (segment[i + 1] === "-" && i + 2 < segment.length && segment[i + 2] !== "]") {
      let high = segment[i + 2]!;
      i += 2;
      if (high === "\\" && i + 1 < segment.length) high = segment[++i]!;
      ranges.push([c, high]);
    } else ranges.push([c, c]);
  }
  return undefined;
}

/** Whether the glob's segments match the path's; `**` spans any number of them. O(glob segments × path segments). */
function matchSegments(pattern: readonly Segment[], parts: readonly string[], meter: WorkMeter | undefined): boolean {
  const memo = new Map<number, boolean>();
  const match = (i: number, j: number): boolean => {
    const key = i * (parts.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const segment = pattern[i];
    if (segment === undefined) result = j === parts.length;
    else if (segment.kind === "globstar") result = match(i + 1, j) || (j < parts.length && match(i, j + 1));
    else result = j < parts.length && matchTokens(segment.tokens, parts[j]!, meter) && match(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

/**
 * One segment against one path segment: the classic wildcard match that backs up only to the last star, which is
 * exact for tokens of width one and takes at most (tokens × characters) steps.
 */
function matchTokens(pattern: readonly Token[], text: string, meter: WorkMeter | undefined): boolean {
  const chars = [...text];
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < chars.length) {
    if (meter !== undefined) meter.steps++;
    const token = pattern[p];
    if (token !== undefined && token.kind !== "star" && matchesOne(token, chars[t]!)) {
      p++;
      t++;
    } else if (token?.kind === "star") {
      star = p++;
      resume = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (pattern[p]?.kind === "star") p++;
  return p === pattern.length;
}

function matchesOne(token: Exclude<Token, { kind: "star" }>, char: string): boolean {
  if (token.kind === "char") return token.char === char;
  if (token.kind === "any") return true;
  return token.test(char) !== token.negated;
}
