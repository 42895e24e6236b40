/** The `--input` option: a JSON value on the command line, or `-` for standard input. */
import { readAll } from "./common.js";

export type InputResult = { ok: true; value: unknown } | { ok: false; message: string };

const EXAMPLE = `e.g. --input '{"path":"src"}', or --input - to read it from stdin`;

/** Parses the option's value; `undefined` (no option) stays undefined so the library applies its default. */
export async function readInput(option: string | undefined, stdin: NodeJS.ReadableStream): Promise<InputResult> {
  if (option === undefined) return { ok: true, value: undefined };
  if (option === "-") {
    const text = await readAll(stdin);
    if (text.trim() === "") {
      return {
        ok: false,
        message: `--input - read nothing from stdin. Pipe the tool's input into gitctx as a JSON object, e.g. echo '{"path":"src"}' | gitctx tool git_status --input -.`,
      };
    }
    return parse(text, "the JSON read from stdin (--input -)");
  }
  return parse(option, "--input");
}

function parse(text: string, source: string): InputResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `${source} is not valid JSON: ${reason}. Pass the tool's input as a JSON object, ${EXAMPLE}.` };
  }
}
