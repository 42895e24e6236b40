/**
 * Token counting with a real tokenizer: o200k (the encoding of GPT-4o and later OpenAI models), from
 * `gpt-tokenizer`. Its tables are large, so they are loaded on first use, never at import time. Character
 * counts are no substitute: chars/4 undercounts diffs and paths by up to 2x.
 */

export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

/** The o200k counter, loaded once on first call. Special-token text (`<|endoftext|>`) counts as ordinary text. */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then((tokenizer) => {
    // Repository text is data: a commit subject containing `<|endoftext|>` is counted, never refused.
    const options = { disallowedSpecial: new Set<string>() };
    return (text: string): number => (text === "" ? 0 : tokenizer.countTokens(text, options));
  });
  return loading;
}

/** The number of o200k tokens in `text`. */
export async function countTokens(text: string): Promise<number> {
  return (await loadTokenCounter())(text);
}
