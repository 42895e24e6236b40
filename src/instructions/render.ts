/**
 * The loaded files as one text for a system prompt: each file under a header naming its path and scope, its lines
 * behind the content gutter (`│ `), closed by an end line, its imports expanded where they are written, most
 * general first. A file's own lines all start with the gutter and gitctx's (headers, end lines, notes) never do, so
 * no file can forge a header, pretend another file was loaded with another scope, or end early. Fitted to a token budget (o200k) by a
 * deterministic cut that keeps the more specific files (managed ones above all) and names what it left out and
 * how to get it. The text never has more tokens than the budget.
 */
import type { TokenCounter } from "../context/tokens.js";
import { contentLines, CONTENT_GUTTER, showInline, showPath, showValue } from "../text.js";
import type { InstructionFormat } from "./formats.js";
import type { CutFile, InstructionFile, OnRequestRule } from "./types.js";

export type ImportNode =
  | { kind: "file"; insertAt: number; file: InstructionFile; imports: ImportNode[] }
  /** An import that was not followed: said where it is written. */
  | { kind: "note"; insertAt: number; text: string };

/** A file found in a directory (not an import), with the tree of its imports. */
export interface RenderUnit {
  file: InstructionFile;
  imports: ImportNode[];
}

export interface RenderInput {
  units: readonly RenderUnit[];
  onRequest: readonly OnRequestRule[];
  budget: number;
  formats: readonly InstructionFormat[];
  count: TokenCounter;
}

export interface RenderOutput {
  text: string;
  tokens: number;
  fullTokens: number;
  cut: CutFile[];
  getAll: string | undefined;
}

/** Cut files named in the footer (most general first); the rest are counted, and all are in `cut`. */
const FOOTER_NAMES = 5;

export function renderInstructions(input: RenderInput): RenderOutput {
  const { units, onRequest, budget, count } = input;
  if (units.length === 0 && onRequest.length === 0) {
    const text = `No instruction files found (formats: ${input.formats.join(", ")}).\n`;
    const tokens = count(text);
    return tokens <= budget
      ? { text, tokens, fullTokens: tokens, cut: [], getAll: undefined }
      : { text: "", tokens: 0, fullTokens: tokens, cut: [], getAll: undefined };
  }
  const blocks = units.map(renderUnit);
  if (onRequest.length > 0) blocks.push(renderOnRequest(onRequest));
  const preamble =
    `Instruction files, most general first: a later file refines or overrides an earlier one. ` +
    `Each file's own lines start with "${CONTENT_GUTTER.trimEnd()}"; the lines between them are gitctx's.\n`;
  const all = blocks.map((_, index) => index);
  const full = compose(preamble, blocks, all, "");
  const fullTokens = count(full);
  if (fullTokens <= budget) return { text: full, tokens: fullTokens, fullTokens, cut: [], getAll: undefined };

  const getAll = `load_instructions with the same paths and "budget": ${fullTokens}, or read the files`;
  const blockTokens = blocks.map((block) => count(block));
  const managed = units.flatMap((unit, index) => (unit.file.layer === "managed" ? [index] : []));
  const others = units.flatMap((unit, index) => (unit.file.layer === "managed" ? [] : [index])).reverse();
  // Keep priority: managed files (policy), then the most specific files (last in the prompt) back to the most general.
  const priority = [...managed, ...others, ...(onRequest.length > 0 ? [units.length] : [])];
  const preambleTokens = count(preamble);

  // The short footer (counts only) is reserved while choosing; the footer naming the files replaces it when
  // it fits too. Keeping instructions matters more than naming the ones cut: `cut` names them all anyway.
  const short = (selected: readonly number[]): string => footer(units, onRequest, selected, blockTokens, budget, getAll, false);
  const named = (selected: readonly number[]): string => footer(units, onRequest, selected, blockTokens, budget, getAll, true);
  let remaining = budget - preambleTokens - count(short([]));
  const selected: number[] = [];
  const managedCount = managed.length;
  for (let rank = 0; rank < priority.length; rank++) {
    const index = priority[rank] as number;
    const cost = (blockTokens[index] as number) + 1;
    if (cost <= remaining) {
      selected.push(index);
      remaining -= cost;
    } else if (rank >= managedCount) {
      // Past the managed files the cut is a clean line: everything more specific than the first file that does
      // not fit is kept, that file and everything more general is left out (no general file kept over a
      // specific one that was too big).
      break;
    }
  }
  // Token counts are not exactly additive across joins: check the whole, dropping the least important until it fits.
  let text = compose(preamble, blocks, selected, short(selected));
  while (count(text) > budget && selected.length > 0) {
    selected.pop();
    text = compose(preamble, blocks, selected, short(selected));
  }
  const withNames = compose(preamble, blocks, selected, named(selected));
  if (count(withNames) <= budget) text = withNames;
  let tokens = count(text);
  let kept = new Set(selected);
  if (tokens > budget) {
    // Not even the preamble and the footer fit: the footer alone, or nothing at all.
    kept = new Set();
    text = short([]);
    tokens = count(text);
    if (tokens > budget) {
      text = "";
      tokens = 0;
    }
  }
  const cut: CutFile[] = units.flatMap((unit, index) =>
    kept.has(index)
      ? []
      : [{ path: unit.file.path, scope: unit.file.scope, tokens: blockTokens[index] as number, imports: importedPaths(unit.imports) }],
  );
  return { text, tokens, fullTokens, cut, getAll };
}

function compose(preamble: string, blocks: readonly string[], selected: readonly number[], footerText: string): string {
  const order = [...selected].sort((a, b) => a - b);
  const body = order.map((index) => blocks[index] as string).join("\n");
  return `${preamble}\n${body}${footerText === "" ? "" : `\n${footerText}`}`;
}

function footer(
  units: readonly RenderUnit[],
  onRequest: readonly OnRequestRule[],
  selected: readonly number[],
  blockTokens: readonly number[],
  budget: number,
  getAll: string,
  withNames: boolean,
): string {
  const kept = new Set(selected);
  const cut = units.flatMap((unit, index) => (kept.has(index) ? [] : [{ unit, tokens: blockTokens[index] as number }]));
  const parts: string[] = [];
  if (cut.length > 0) {
    const tokens = cut.reduce((sum, entry) => sum + entry.tokens, 0);
    const names = cut.slice(0, FOOTER_NAMES).map(({ unit }) => showPath(unit.file.path));
    const more = cut.length - names.length;
    const files = cut.length === 1 ? "1 file" : `${cut.length} files`;
    parts.push(withNames ? `${names.join(", ")}${more > 0 ? ` and ${more} more` : ""} (${tokens} tokens)` : `${files} (${tokens} tokens)`);
  }
  if (onRequest.length > 0 && !kept.has(units.length))
    parts.push(`the list of ${onRequest.length === 1 ? "1 rule" : `${onRequest.length} rules`} that apply on request`);
  if (parts.length === 0) return "";
  return `Left out to fit the budget of ${budget} tokens, most general first: ${parts.join("; ")}. All of it: ${getAll}.\n`;
}

function renderUnit(unit: RenderUnit): string {
  const body = expand(unit.file.content, unit.imports, unit.file);
  return `--- ${showPath(unit.file.path)} (${label(unit.file)}) ---\n${body}--- end of ${showPath(unit.file.path)} ---\n`;
}

/**
 * A file's lines behind the gutter, each import's block (its own header, lines and end line, at column 0) after
 * the line that imports it; blank lines at the start and end of the file dropped. Ends with a newline, or is "".
 */
function expand(content: string, imports: readonly ImportNode[], file: InstructionFile): string {
  const trimmed = content.replace(/^\n+/, "").replace(/\s+$/, "");
  // Imports are placed at the start of the line after theirs (or at the end); in the trimmed text, no further.
  const shift = content.length - content.replace(/^\n+/, "").length;
  const place = (node: ImportNode): number => Math.min(Math.max(node.insertAt - shift, 0), trimmed.length);
  let out = "";
  let at = 0;
  const lines = (part: string): void => {
    if (part !== "") out += `${contentLines(part)}\n`;
  };
  for (const node of imports) {
    lines(trimmed.slice(at, place(node)));
    at = place(node);
    if (node.kind === "note") {
      out += `--- ${showInline(node.text)} ---\n`;
      continue;
    }
    const inner = expand(node.file.content, node.imports, node.file);
    out += `--- ${showPath(node.file.path)} (${label(node.file)}) ---\n${inner}--- end of ${showPath(node.file.path)}, back in ${showPath(file.path)} ---\n`;
  }
  lines(trimmed.slice(at));
  return out;
}

function label(file: InstructionFile): string {
  // Globs, paths and names come from the repository (frontmatter, file names): each shown as one value.
  const parts: string[] = [file.scope === "ancestor" ? "above the repository" : file.scope];
  if (file.rule !== undefined && file.rule.activation === "globs") parts[0] = `${parts[0]} for ${file.rule.globs.map(showValue).join(", ")}`;
  else if (file.rule?.activation === "always" && file.scope === "managed") parts[0] = "managed rule";
  switch (file.reason.kind) {
    case "path":
      parts.push(`for ${showPath(file.reason.path)}`);
      break;
    case "rule_match":
      parts.push(`matches ${showPath(file.reason.path)}`);
      break;
    case "import":
      parts[0] = `imported by ${showPath(file.reason.by)} line ${file.reason.line}`;
      break;
    case "session_start":
      break;
  }
  if (file.alsoKnownAs.length > 0) parts.push(`also ${file.alsoKnownAs.map(showPath).join(", ")}`);
  return parts.join(", ");
}

function renderOnRequest(rules: readonly OnRequestRule[]): string {
  const lines = rules.map((rule) => `- ${showPath(rule.path)}${rule.description === undefined ? "" : `: ${showValue(rule.description)}`}`);
  return `Rules that apply on request (read one when its description fits the task):\n${lines.join("\n")}\n`;
}

function importedPaths(nodes: readonly ImportNode[]): string[] {
  return nodes.flatMap((node) => (node.kind === "file" ? [node.file.path, ...importedPaths(node.imports)] : []));
}
