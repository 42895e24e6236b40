/**
 * How large a tool's default answer may be: every default answer fits {@link DEFAULT_TEXT_BUDGET} o200k tokens of
 * text. A size the caller gives (`limit`, `count`, `maxBytes`, `end_line`...) is honoured exactly; only the
 * defaults are fitted, and the text then says what it left out and the call that returns it.
 *
 * Counting needs the tokenizer, which takes a few hundred milliseconds to load, so it is loaded only for a text
 * that could be over: an o200k token is at least one byte, so a text of at most `budget` UTF-8 bytes fits.
 */
import { loadTokenCounter, type TokenCounter } from "../context/tokens.js";
import { escapeControls } from "../text.js";

export const DEFAULT_TEXT_BUDGET = 10_000;

/** A counter that loads the tokenizer only when a text is long enough to need it. */
export interface Measure {
  /** The tokens of `text`; for a text of at most `budget` bytes, its byte count (an upper bound) without counting. */
  tokens(text: string): Promise<number>;
  readonly budget: number;
}

export function measure(budget = DEFAULT_TEXT_BUDGET): Measure {
  let counter: TokenCounter | undefined;
  return {
    budget,
    async tokens(text: string): Promise<number> {
      // Measured as the session delivers it: with the repository's control characters escaped (\x1b...).
      const shown = escapeControls(text);
      const bytes = Buffer.byteLength(shown);
      if (bytes <= budget) return bytes;
      counter ??= await loadTokenCounter();
      return counter(shown);
    },
  };
}

/**
 * The largest `k` in `[min, max]` for which `build(k)` fits the budget, with its text; `min` when none does
 * (its text may then be over). `build` must grow with `k`. Tries `max` first: most answers fit whole.
 */
export async function largestFitting(build: (k: number) => string, min: number, max: number, size: Measure): Promise<{ k: number; text: string }> {
  const whole = build(max);
  if (max <= min || (await size.tokens(whole)) <= size.budget) return { k: max, text: whole };
  let low = min;
  let high = max - 1;
  let best: { k: number; text: string } | undefined;
  // Binary search on exact counts: a dozen counts of texts near the budget at most.
  while (low <= high) {
    const mid = (low + high) >> 1;
    const text = build(mid);
    if ((await size.tokens(text)) <= size.budget) {
      best = { k: mid, text };
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return best ?? { k: min, text: build(min) };
}

/**
 * The longest prefix of `bytes` (UTF-8) whose text fits `budget` tokens, cut after a newline when one is in reach,
 * else inside the first line (never inside a character). Returns the number of bytes kept: at least one character.
 * Bytes rather than a string, so that a continuation offset stays exact even where git printed invalid UTF-8.
 * `shown` is how the text will be shown (behind a gutter, say), so that what is counted is what the model gets.
 */
export async function fittingBytes(bytes: Buffer, budget: number, shown: (text: string) => string = (text) => text): Promise<number> {
  const size = measure(budget);
  const text = (end: number): string => shown(bytes.subarray(0, end).toString("utf8"));
  if ((await size.tokens(text(bytes.length))) <= budget) return bytes.length;
  const ends: number[] = [];
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) ends.push(at + 1);
  const byLines = await largestFitting((k) => text(k === 0 ? 0 : ends[k - 1]!), 0, ends.length, size);
  if (byLines.k > 0) return ends[byLines.k - 1]!;
  // Not even the first line fits: cut inside it, at a character boundary (not before a continuation byte).
  const boundaries: number[] = [];
  const lineEnd = ends[0] ?? bytes.length;
  for (let at = 1; at <= lineEnd; at++) if (at === bytes.length || (bytes[at]! & 0xc0) !== 0x80) boundaries.push(at);
  const byChars = await largestFitting((k) => text(boundaries[k - 1] ?? 0), 1, boundaries.length, size);
  return boundaries[byChars.k - 1] ?? lineEnd;
}

/** {@link fittingBytes} for a string: the number of UTF-16 code units of `text` kept. */
export async function fittingPrefix(text: string, budget: number): Promise<number> {
  const bytes = Buffer.from(text, "utf8");
  const kept = await fittingBytes(bytes, budget);
  return bytes.subarray(0, kept).toString("utf8").length;
}
