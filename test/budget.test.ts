/**
 * The token budget's treatment of runs without white space: found in one pass, exactly where the pattern
 * `(?<!\S)\S{1000,}` finds them (JavaScript's `\s`, by UTF-16 code unit), on generated texts.
 */
import { describe, expect, it } from "vitest";
import { countWithLongRuns, longRuns } from "../src/context/tokens.js";

const PATTERN = /(?<!\S)\S{1000,}/g;
const SPACES = [
  " ",
  "\t",
  "\n",
  "\v",
  "\f",
  "\r",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
];
const OTHERS = ["a", "é", "\u0085", "\u180e", "\u200b", "\ud83d\ude00", "\ud800", "-", "0", "\u0000", "\u001f"];

/** A deterministic generator, so a failure can be reproduced. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function text(next: () => number): string {
  let out = "";
  while (out.length < 6000) {
    const pick = next();
    if (pick < 0.3) out += SPACES[Math.floor(next() * SPACES.length)];
    else {
      // Runs around the threshold: 990 to 1010 units, or short ones.
      const length = next() < 0.4 ? 990 + Math.floor(next() * 21) : Math.floor(next() * 50);
      const unit = OTHERS[Math.floor(next() * OTHERS.length)]!;
      out += unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
    }
  }
  return out;
}

describe("long runs without white space", () => {
  it("are found where the pattern finds them, every white space character of JavaScript's \\s included", () => {
    const next = random(7);
    let found = 0;
    for (let i = 0; i < 200; i++) {
      const sample = text(next);
      const expected = [...sample.matchAll(PATTERN)].map((match) => [match.index!, match.index! + match[0].length]);
      const runs = longRuns(sample);
      expect(runs).toEqual(expected);
      found += runs.length;
    }
    expect(found).toBeGreaterThan(100);
  });

  it("are counted as their bytes, the rest by the counter, each run replaced by one space", () => {
    const run = "x".repeat(1500);
    const seen: string[] = [];
    const counter = (value: string): number => {
      seen.push(value);
      return value.length;
    };
    expect(countWithLongRuns(counter, `a ${run} b é${"é".repeat(999)}`)).toBe("a   b  ".length + 1500 + 2000);
    expect(seen).toEqual(["a   b  "]);
    expect(countWithLongRuns(counter, "short text")).toBe(10);
  });
});
