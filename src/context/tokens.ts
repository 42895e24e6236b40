/**
 * Token counting with a real tokenizer: o200k (the encoding of GPT-4o and later OpenAI models), from
 * `gpt-tokenizer`. Its tables are large, so they are loaded on first use, never at import time. Character
 * counts are no substitute: chars/4 undercounts diffs and paths by up to 2x.
 */

export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

/**
 * The o200k counter, loaded once on first call. Special-token text (`<|endoftext|>`) counts as ordinary text.
 * Exact, but for runs of LONG_RUN_UNITS without white space, counted as their bytes (see countWithLongRuns):
 * the BPE merges of one run take time quadratic in its length, and repository text (an instruction file, a
 * minified line, a commit message) can be one run of megabytes.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then((tokenizer) => {
    // Repository text is data: a commit subject containing `<|endoftext|>` is counted, never refused.
    const options = { disallowedSpecial: new Set<string>() };
    const exact = (text: string): number => (text === "" ? 0 : tokenizer.countTokens(text, options));
    return (text: string): number => countWithLongRuns(exact, text);
  });
  return loading;
}

/** The number of o200k tokens in `text`. */
export async function countTokens(text: string): Promise<number> {
  return (await loadTokenCounter())(text);
}

/** UTF-16 code units without white space beyond which a run is not tokenized but counted as one token per byte. */
const LONG_RUN_UNITS = 1000;

/**
 * Tokens of `text`, an upper bound where it has very long runs without white space (a minified line, a message
 * of one repeated character): BPE merges within such a run take time quadratic in its length (a 260 KB run takes
 * minutes), so a run is counted as its bytes, which no tokenization exceeds, and replaced by one space. Fitting
 * stays safe, only cautious.
 */
export function countWithLongRuns(counter: TokenCounter, text: string): number {
  const runs = longRuns(text);
  if (runs.length === 0) return counter(text);
  let runBytes = 0;
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of runs) {
    runBytes += Buffer.byteLength(text.slice(start, end));
    parts.push(text.slice(at, start), " ");
    at = end;
  }
  parts.push(text.slice(at));
  return counter(parts.join("")) + runBytes;
}

/**
 * Where `text` has runs of at least LONG_RUN_UNITS code units that are not white space as JavaScript's `\s` has
 * it, as `[start, end)` pairs: what `/(?<!\S)\S{1000,}/g` matches, found in one pass (that pattern, even anchored
 * at a run's start, cost a 20 KB patch's answer 0.3 ms, a tenth of gitctx's whole overhead on it).
 */
export function longRuns(text: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const space = i === text.length || isSpace(text.charCodeAt(i));
    if (!space && start === -1) start = i;
    else if (space && start !== -1) {
      if (i - start >= LONG_RUN_UNITS) runs.push([start, i]);
      start = -1;
    }
  }
  return runs;
}

/** JavaScript's `\s`: the Unicode white space characters, the line terminators and the byte order mark. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
