/**
 * Instruction files as text → typed data, with no file access: frontmatter, `@path` imports, HTML block
 * comments and rule metadata. What is code and what is prose is decided by a Markdown lexer (marked), never by
 * a regex: an `@scope/app` inside a code span or fence, or after an unterminated fence, is no import.
 *
 * marked rather than micromark: on the instruction files of bench/instructions.mjs marked lexes about 7x faster
 * and is one 52 KB file with no dependencies (micromark: 20 packages); the figures are in BENCHMARKS.md. marked's
 * tokens do not carry offsets, so each candidate is tagged with a unique marker before lexing and looked up in
 * the token it lands in: exact positions, whatever the nesting (lists, quotes, tables).
 */
import { Lexer, type Token } from "marked";
import { compileGlob, type WorkMeter } from "./glob.js";
import { parseDocument } from "yaml";

// ---- text ----

/** Text as the rest of the loader sees it: no byte-order mark, `\n` line ends. */
export function normalizeText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.includes("\r") ? body.replace(/\r\n?/g, "\n") : body;
}

// ---- frontmatter ----

export interface FrontmatterSplit {
  /** The YAML between the fences, or `undefined` when the file has no frontmatter. */
  yaml: string | undefined;
  body: string;
  /** 1-based line of the file on which `body` starts. */
  bodyLine: number;
  /** Why a fence-like start was not read as frontmatter. */
  problem?: string;
}

const CLOSING_FENCE = /^(?:---|\.\.\.)[ \t]*$/m;

/**
 * Splits a leading `---` … `---` block off. Only a bare `---` opens it: `---js` (gray-matter's executable
 * frontmatter) or `---toml` is text, never code, and never parsed.
 */
export function splitFrontmatter(text: string): FrontmatterSplit {
  const firstEnd = text.indexOf("\n");
  const firstLine = firstEnd === -1 ? text : text.slice(0, firstEnd);
  if (!firstLine.startsWith("---")) return { yaml: undefined, body: text, bodyLine: 1 };
  if (!/^---[ \t]*$/.test(firstLine)) {
    return {
      yaml: undefined,
      body: text,
      bodyLine: 1,
      problem: `starts with "${firstLine.slice(0, 40)}": only YAML frontmatter between bare --- lines is read, so the file is read as text`,
    };
  }
  if (firstEnd === -1)
    return { yaml: undefined, body: text, bodyLine: 1, problem: "frontmatter opened by --- is never closed: the file is read as text" };
  const rest = text.slice(firstEnd + 1);
  const close = CLOSING_FENCE.exec(rest);
  if (close === null)
    return { yaml: undefined, body: text, bodyLine: 1, problem: "frontmatter opened by --- is never closed: the file is read as text" };
  const yaml = rest.slice(0, close.index);
  let bodyStart = close.index + close[0].length;
  if (rest[bodyStart] === "\n") bodyStart++;
  // The opening fence, the YAML's lines (it ends with a newline, or is empty), the closing fence.
  return { yaml, body: rest.slice(bodyStart), bodyLine: 1 + countNewlines(yaml) + 1 + 1 };
}

function countNewlines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

export interface ParsedFrontmatter {
  data: Record<string, unknown>;
  /** `true` when strict YAML refused it and the line-based fallback read it (unquoted globs). */
  lenient: boolean;
  problems: string[];
}

/**
 * Strict YAML first (yaml@2: no code, alias expansion capped); when that fails, a line-based reading of
 * `key: value` and `key:` + `- item` lines, because `paths: **\/*.ts` and Cursor's `globs: *.ts, src/**` are not
 * YAML (`*` starts an alias) yet are what people write.
 */
export function parseFrontmatter(yaml: string): ParsedFrontmatter {
  const document = parseDocument(yaml, { prettyErrors: false, uniqueKeys: false });
  if (document.errors.length === 0) {
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      return { data: lenientYaml(yaml), lenient: true, problems: [`frontmatter is not valid YAML (${(error as Error).message}); read leniently`] };
    }
    if (value === null || value === undefined) return { data: {}, lenient: false, problems: [] };
    if (isPlainObject(value)) return { data: value, lenient: false, problems: [] };
    return { data: {}, lenient: false, problems: ["frontmatter is not a mapping of keys to values: ignored"] };
  }
  const reason = firstLine(document.errors[0]?.message ?? "invalid YAML");
  return { data: lenientYaml(yaml), lenient: true, problems: [`frontmatter is not valid YAML (${reason}); read leniently`] };
}

function firstLine(text: string): string {
  const end = text.indexOf("\n");
  return (end === -1 ? text : text.slice(0, end)).trim();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lenientYaml(yaml: string): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  let listKey: string | undefined;
  for (const line of yaml.split("\n")) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const item = /^\s+-\s*(.*)$/.exec(line) ?? (listKey !== undefined ? /^-\s+(.*)$/.exec(line) : null);
    if (item !== null && listKey !== undefined) {
      const list = data[listKey];
      if (Array.isArray(list)) list.push(unquote(item[1] ?? ""));
      continue;
    }
    const entry = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(line);
    if (entry === null) {
      listKey = undefined;
      continue;
    }
    const key = entry[1] as string;
    const value = (entry[2] ?? "").trim();
    if (value === "") {
      data[key] = [];
      listKey = key;
      continue;
    }
    listKey = undefined;
    if (value.startsWith("[") && value.endsWith("]")) data[key] = splitTopLevelCommas(value.slice(1, -1)).map(unquote);
    else if (value === "true" || value === "false") data[key] = value === "true";
    else data[key] = unquote(value);
  }
  return data;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length >= 2 && (trimmed[0] === '"' || trimmed[0] === "'") && trimmed.endsWith(trimmed[0])) return trimmed.slice(1, -1);
  return trimmed;
}

/** `a, {b,c}/d` → `a`, `{b,c}/d`: commas inside braces belong to the glob. */
export function splitTopLevelCommas(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") i++;
    else if (char === "{") depth++;
    else if (char === "}") depth = Math.max(0, depth - 1);
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

// ---- rules ----

/** When a rule applies: always, when a given path matches its globs, or only when asked for by name. */
export type RuleActivation = "always" | "globs" | "on_request";

export interface RuleMetadata {
  /** Globs from `paths` (Claude), `globs` (Cursor) and `applyTo` (Copilot), normalised to project-relative form. */
  globs: string[];
  alwaysApply: boolean | undefined;
  description: string | undefined;
  activation: RuleActivation;
  problems: string[];
}

const GLOB_KEYS = ["paths", "globs", "applyTo"] as const;

/**
 * Reads what a rule's frontmatter says about when it applies. A rule with neither globs nor `alwaysApply`
 * applies always when `unconditionalByDefault` (Claude's `.claude/rules/`), and only on request otherwise (a
 * Cursor rule with just a description is "agent requested"; a Copilot file without `applyTo` is attached by hand).
 */
export function ruleMetadata(data: Record<string, unknown>, unconditionalByDefault: boolean): RuleMetadata {
  const problems: string[] = [];
  const globs: string[] = [];
  for (const key of GLOB_KEYS) {
    const value = data[key];
    if (value === undefined || value === null) continue;
    const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
    if (items === undefined) {
      problems.push(`${key} must be a glob or a list of globs, not ${describeValue(value)}: ignored`);
      continue;
    }
    for (const item of items) {
      if (typeof item !== "string") {
        problems.push(`${key} has an entry that is not a glob (${describeValue(item)}): ignored`);
        continue;
      }
      for (const glob of splitTopLevelCommas(item)) {
        const normalised = normaliseGlob(glob);
        if (normalised !== "" && !globs.includes(normalised)) globs.push(normalised);
      }
    }
  }
  const always = data.alwaysApply;
  let alwaysApply: boolean | undefined;
  if (typeof always === "boolean") alwaysApply = always;
  else if (always === "true" || always === "false") alwaysApply = always === "true";
  else if (always !== undefined && always !== null) problems.push(`alwaysApply must be true or false, not ${describeValue(always)}: ignored`);
  const description = typeof data.description === "string" && data.description.trim() !== "" ? data.description.trim() : undefined;
  let activation: RuleActivation;
  if (alwaysApply === true) activation = "always";
  else if (globs.length > 0) activation = "globs";
  else if (alwaysApply === false) activation = "on_request";
  else activation = unconditionalByDefault ? "always" : "on_request";
  return { globs, alwaysApply, description, activation, problems };
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  return typeof value === "object" ? "a mapping" : `${typeof value} ${JSON.stringify(value)}`;
}

/** `./src/**` and `/src/**` mean `src/**` relative to the rule's project. */
export function normaliseGlob(glob: string): string {
  let result = glob.trim();
  while (result.startsWith("./")) result = result.slice(2);
  while (result.startsWith("/")) result = result.slice(1);
  return result;
}

export type GlobMatcher = (path: string) => string | undefined;

/**
 * A matcher returning the first glob that matches a POSIX path relative to the rule's project (dot files
 * included), or `undefined`. A glob that does not compile (see glob.ts) is reported in `problems` and never matches.
 */
export function compileGlobs(globs: readonly string[], problems: string[] = []): GlobMatcher {
  const compiled: Array<{ glob: string; test: (path: string) => boolean }> = [];
  for (const glob of globs) {
    try {
      compiled.push({ glob, test: compileGlob(glob) });
    } catch (error) {
      problems.push(`glob ${JSON.stringify(glob)} is invalid (${(error as Error).message}): it matches nothing`);
    }
  }
  return (path) => compiled.find((entry) => entry.test(path))?.glob;
}

// ---- Markdown: imports and comments ----

export interface ImportReference {
  /** The target as written after `@`, with `\ ` read as a space and trailing punctuation dropped. */
  target: string;
  /** Offset of the `@` in the analysed text. */
  offset: number;
  /** 1-based line of the `@` in the analysed text. */
  line: number;
}

export interface MarkdownAnalysis {
  imports: ImportReference[];
  /** `[start, end)` of each HTML comment that is (part of) a block-level HTML node, outside code. */
  blockComments: Array<[number, number]>;
  /** Why the structure could not be read (then no import is followed and no comment removed). */
  problem?: string;
}

/** `@` at the start of a line or after whitespace, then a path (`\ ` escapes a space). */
const IMPORT_CANDIDATE = /(?<!\S)@(?=\S)/g;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}>"']+$/;

/**
 * Finds the `@path` imports that are prose (not code, not HTML) and the block-level HTML comments. `meter` counts
 * the characters read after lexing: the text kept for each import to read its target from, and the text searched for
 * each comment's `-->` (marked's lexer is not counted).
 */
export function analyzeMarkdown(text: string, meter?: WorkMeter): MarkdownAnalysis {
  const imports: Array<{ offset: number }> = [];
  for (const match of text.matchAll(IMPORT_CANDIDATE)) imports.push({ offset: match.index });
  const comments: number[] = [];
  for (let at = text.indexOf("<!--"); at !== -1; at = text.indexOf("<!--", at + 4)) comments.push(at);
  if (imports.length === 0 && comments.length === 0) return { imports: [], blockComments: [] };

  // Tag each candidate with a marker the text does not contain, lex, and see which token each marker lands in.
  // A marker after `@` or `<!--` changes no block structure and no code span: it is a few letters mid-line.
  const mark = unusedCharacter(text);
  const insertions = [
    ...imports.map((entry, index) => ({ at: entry.offset + 1, tag: `${mark}i${index.toString(36)}${mark}` })),
    ...comments.map((offset, index) => ({ at: offset + 4, tag: `${mark}c${index.toString(36)}${mark}` })),
  ].sort((a, b) => a.at - b.at);
  let marked = "";
  let copied = 0;
  for (const { at, tag } of insertions) {
    marked += text.slice(copied, at) + tag;
    copied = at;
  }
  marked += text.slice(copied);

  // Where each marker landed, and for an import in prose the text that follows it up to the end of its inline
  // run: the target ends where the prose does (`**see @a.md**` names a.md, not a.md**).
  const landed = new Map<string, { context: MarkerContext; after: string }>();
  const markerPattern = new RegExp(`${mark}([ic][0-9a-z]+)${mark}`, "g");
  // Only the word after an import's marker is kept (what the target can be): the rest of the token, kept for every
  // marker in it, made a paragraph of 66,000 `@a` take minutes (each marker copied, then searched, all that follows).
  const note = (raw: string, context: MarkerContext, following: () => string = () => ""): void => {
    if (!raw.includes(mark)) return;
    for (const found of raw.matchAll(markerPattern)) {
      const id = found[1] as string;
      if (landed.has(id)) continue;
      const start = found.index + found[0].length;
      landed.set(id, { context, after: id.startsWith("i") ? wordAt(raw, start, following, meter) : "" });
    }
  };
  try {
    visitTokens(Lexer.lex(marked, { gfm: true }), note);
  } catch (error) {
    // marked lexes nested blocks recursively: 50,000 nested `>` quotes exhaust the stack. What is code there is
    // then unknown, so nothing in it is taken for an import.
    if (!(error instanceof RangeError)) throw error;
    return {
      imports: [],
      blockComments: [],
      problem: "its Markdown is nested too deeply to read (a stack overflow): none of its @imports was followed",
    };
  }

  const lineStarts = lineStartOffsets(text);
  const prose: ImportReference[] = [];
  imports.forEach(({ offset }, index) => {
    const where = landed.get(`i${index.toString(36)}`);
    if (where?.context !== "text") return;
    const written = /^(?:\\ |\S)+/.exec(where.after.replace(markerPattern, ""))?.[0] ?? "";
    const target = written.replace(TRAILING_PUNCTUATION, "").replace(/\\ /g, " ");
    if (target !== "") prose.push({ target, offset, line: lineOf(lineStarts, offset) });
  });
  const blockComments: Array<[number, number]> = [];
  // The first `-->` after each comment, found once for all: the comments come in order, so one found for an earlier
  // comment that lies past a later one's start is that one's too, and none after an earlier one means none after any
  // later one. Searched again from each, 50,000 unterminated `<!--` took 20 s.
  let close = -2;
  comments.forEach((offset, index) => {
    if (landed.get(`c${index.toString(36)}`)?.context !== "html_block") return;
    if (close !== -1 && close < offset + 4) {
      close = text.indexOf("-->", offset + 4);
      if (meter !== undefined) meter.steps += (close === -1 ? text.length : close + 3) - (offset + 4);
    }
    // An unterminated comment stays: hiding the rest of the file over a typo would be silent loss.
    if (close === -1) return;
    const previous = blockComments.at(-1);
    if (previous !== undefined && offset < previous[1]) return;
    blockComments.push([offset, close + 3]);
  });
  return { imports: prose, blockComments };
}

type MarkerContext = "text" | "code" | "html_block" | "html_inline" | "other";

type Note = (raw: string, context: MarkerContext, following?: () => string) => void;

function visitTokens(tokens: readonly Token[], note: Note): void {
  tokens.forEach((token, index) => visitToken(token, tokens, index, note));
}

function visitToken(token: Token, siblings: readonly Token[], index: number, note: Note): void {
  switch (token.type) {
    case "code":
    case "codespan":
      note(token.raw, "code");
      return;
    case "html":
      note(token.raw, token.block === true ? "html_block" : "html_inline");
      return;
    case "def":
    case "image":
      note(token.raw, "other");
      return;
    case "list":
      visitTokens(token.items as Token[], note);
      return;
    case "table":
      for (const cell of token.header as Array<{ tokens: Token[] }>) visitTokens(cell.tokens, note);
      for (const row of token.rows as Array<Array<{ tokens: Token[] }>>) for (const cell of row) visitTokens(cell.tokens, note);
      return;
  }
  const children = (token as { tokens?: Token[] }).tokens;
  if (children !== undefined && children.length > 0) {
    visitTokens(children, note);
    return;
  }
  if (!token.raw.includes("@")) return;
  // The run of prose this token starts: marked ends a text token at an escape (`a\\_b`) or at emphasis that a
  // path can hold (`a._/_`), and the path goes on; a code span, a link or HTML ends it.
  // Made only for a token whose import's word reaches its end (see wordAt), and only up to the first whitespace: made
  // for every token with an `@`, it walked every sibling after each, minutes over a paragraph of `@a\_`.
  const following = (): string => {
    let text = "";
    for (let next = index + 1; next < siblings.length; next++) {
      const sibling = siblings[next] as Token;
      let piece: string;
      if (sibling.type === "escape") piece = (sibling as { text: string }).text;
      else if (sibling.type === "text" || sibling.type === "em" || sibling.type === "strong" || sibling.type === "del") piece = sibling.raw;
      else break;
      text += piece;
      if (/\s/.test(piece)) break;
    }
    return text;
  };
  note(token.raw, "text", following);
}

/** What an import target can be: `\\ ` or any non-space, from `start` on. */
const WORD = /(?:\\ |\S)*/y;

/**
 * The word of `raw` from `start`, going on into `following` when it reaches the end of `raw`: the text an import's
 * target is read from (markers are stripped by the caller, and hold no whitespace).
 */
function wordAt(raw: string, start: number, following: () => string, meter: WorkMeter | undefined): string {
  WORD.lastIndex = start;
  const word = WORD.exec(raw)?.[0] ?? "";
  if (meter !== undefined) meter.steps += word.length;
  if (start + word.length < raw.length) return word;
  // Reaching the end: read again over the joint, where `\\` and a space may meet.
  const rest = `${raw.slice(start)}${following()}`;
  if (meter !== undefined) meter.steps += rest.length;
  WORD.lastIndex = 0;
  return WORD.exec(rest)?.[0] ?? "";
}

function unusedCharacter(text: string): string {
  for (let code = 0xe000; code <= 0xf8ff; code++) {
    const char = String.fromCharCode(code);
    if (!text.includes(char)) return char;
  }
  // 6,400 distinct private-use characters in one file: fall back to a two-character marker.
  for (let code = 0xe000; ; code++) {
    const pair = `\u{10fffd}${String.fromCharCode(code)}`;
    if (!text.includes(pair)) return pair;
  }
}

function lineStartOffsets(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return starts;
}

function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

// ---- one instruction file ----

export interface ParsedImport {
  target: string;
  /** 1-based line in the file as stored (frontmatter included). */
  line: number;
  /** Offset in `content` where the imported text goes: just after the line holding the import. */
  insertAt: number;
}

export interface ParsedInstructions {
  /** The text that goes into the prompt: no frontmatter, no block comments. */
  content: string;
  imports: ParsedImport[];
  /** Present when the file was parsed as a rule. */
  rule: RuleMetadata | undefined;
  problems: string[];
}

export interface ParseInstructionsOptions {
  /** Read frontmatter and rule metadata (rule files only). */
  rule?: boolean;
  /** For a rule: whether one without globs or `alwaysApply` applies always (see `ruleMetadata`). */
  unconditionalByDefault?: boolean;
}

/** An instruction file's text → what the loader renders and the imports it must resolve. */
export function parseInstructions(raw: string, options: ParseInstructionsOptions = {}): ParsedInstructions {
  const text = normalizeText(raw);
  const problems: string[] = [];
  let body = text;
  let bodyLine = 1;
  let rule: RuleMetadata | undefined;
  if (options.rule === true) {
    const split = splitFrontmatter(text);
    if (split.problem !== undefined) problems.push(split.problem);
    body = split.body;
    bodyLine = split.bodyLine;
    const frontmatter = split.yaml === undefined ? { data: {}, lenient: false, problems: [] } : parseFrontmatter(split.yaml);
    problems.push(...frontmatter.problems);
    rule = ruleMetadata(frontmatter.data, options.unconditionalByDefault ?? true);
    problems.push(...rule.problems);
  }
  const analysis = analyzeMarkdown(body);
  if (analysis.problem !== undefined) problems.push(analysis.problem);
  const { content, map } = removeRanges(body, analysis.blockComments);
  const imports = analysis.imports.map(({ target, offset, line }) => {
    const at = map(offset);
    const lineEnd = content.indexOf("\n", at);
    return { target, line: line + bodyLine - 1, insertAt: lineEnd === -1 ? content.length : lineEnd + 1 };
  });
  return { content, imports, rule, problems };
}

/**
 * Removes `[start, end)` ranges; a line left blank by a removal goes too, so a comment on lines of its own leaves
 * no gap. Returns a map from offsets outside the ranges to offsets in the result.
 */
function removeRanges(text: string, ranges: ReadonlyArray<readonly [number, number]>): { content: string; map: (offset: number) => number } {
  if (ranges.length === 0) return { content: text, map: (offset) => offset };
  const cuts: Array<[number, number]> = [];
  for (const [start, end] of ranges) {
    const lineStart = text.lastIndexOf("\n", start - 1) + 1;
    const newline = text.indexOf("\n", end);
    const lineEnd = newline === -1 ? text.length : newline;
    const blankBefore = text.slice(lineStart, start).trim() === "";
    const blankAfter = text.slice(end, lineEnd).trim() === "";
    if (blankBefore && blankAfter) cuts.push([lineStart, newline === -1 ? text.length : newline + 1]);
    else cuts.push([start, end]);
  }
  let content = "";
  let copied = 0;
  const kept: Array<{ from: number; shift: number }> = [];
  for (const [start, end] of cuts) {
    const from = Math.max(start, copied);
    content += text.slice(copied, from);
    copied = Math.max(copied, end);
    kept.push({ from: copied, shift: copied - content.length });
  }
  content += text.slice(copied);
  return {
    content,
    map: (offset) => {
      let shift = 0;
      for (const entry of kept) if (offset >= entry.from) shift = entry.shift;
      return offset - shift;
    },
  };
}
