/** Schema pieces several tools share, so a parameter means the same thing everywhere. */
import * as z from "zod";
import { DEFAULT_MAX_BYTES, MAX_MAX_BYTES } from "../diff/read-patch.js";
import { DEFAULT_DIFF_CONTEXT } from "../git/repository.js";

export const pathField = z.string().describe("A file or directory relative to the workspace root; it must stay inside the workspace.");

export const maxBytesField = z
  .number()
  .int()
  .min(1)
  .max(MAX_MAX_BYTES)
  .describe(`Most bytes of patch or content to return (default ${DEFAULT_MAX_BYTES}). The summary always covers every file.`);

export const offsetField = z
  .number()
  .int()
  .min(0)
  .describe("Byte offset to continue from: pass the nextOffset of a truncated result to get the bytes that follow.");

export const contextField = z
  .number()
  .int()
  .min(0)
  .max(1000)
  .describe(
    `Lines of context around each change. Default: diff.context of the repository's config or yours, as plain git diff, else ${DEFAULT_DIFF_CONTEXT}.`,
  );

/** Copies as well as renames: off by default, as in git's own `git diff`, which is what a pull request page shows. */
export const copiesField = z
  .boolean()
  .default(false)
  .describe("Also detect copies, not only renames (slower; plain git diff, and a pull request page, detect renames only).");
