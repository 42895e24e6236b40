/**
 * Fitting a diff's answer (git_diff, git_show of a commit) to the text budget: a list of every changed file can be
 * longer than any patch window, so the list is paged like the patch (`fileOffset`, `fileLimit`), and a window
 * of the default size is cut where the budget ends (exactly: the next window starts there). The list gets at
 * least {@link FILE_LIST_SHARE} tokens, the patch at least {@link MIN_PATCH_TOKENS}; a size the caller gives is
 * honoured as given.
 */
import * as z from "zod";
import type { PatchRequest, PatchWindow } from "../diff/read-patch.js";
import { renderFileLine } from "../diff/render.js";
import { fittingBytes, largestFitting, measure } from "./budget.js";

/** Tokens the file list may always take, whatever the patch takes. */
export const FILE_LIST_SHARE = 2_500;
/** Tokens a default patch window keeps however long the rest of the answer is. */
export const MIN_PATCH_TOKENS = 1_000;
/** Room left for the lines around the list and the patch: the totals, the footers. */
const FOOTER_RESERVE = 250;

export const fileOffsetField = z
  .number()
  .int()
  .min(0)
  .describe("Skip this many changed files in the file list first: pass the nextFileOffset of a result to list the next files.");

export const fileLimitField = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .describe("Most changed files to list. Default: as many as fit the answer's token budget; the totals always count every file.");

export interface FileListRequest {
  fileOffset: number;
  /** `undefined`: as many as fit. */
  fileLimit: number | undefined;
}

/**
 * The `fitPatch` for a patch window of the default size: it keeps what the budget leaves after `fixed` (the text
 * before the file list, e.g. a commit's message) and the file list's share.
 */
export function patchFitter(
  fixed: (fields: readonly string[]) => string | Promise<string>,
  list: FileListRequest,
): NonNullable<PatchRequest["fitPatch"]> {
  return async (patch, files, fields) => {
    const size = measure();
    const end = list.fileLimit === undefined ? undefined : list.fileOffset + list.fileLimit;
    const listed = files.slice(list.fileOffset, end).map(renderFileLine).join("\n");
    const listTokens = await size.tokens(listed);
    const share = list.fileLimit === undefined ? Math.min(FILE_LIST_SHARE, listTokens) : listTokens;
    const room = size.budget - (await size.tokens(await fixed(fields))) - share - FOOTER_RESERVE;
    return fittingBytes(patch, Math.max(room, MIN_PATCH_TOKENS));
  };
}

/**
 * The window with `files` cut to one page: `fileLimit` files from `fileOffset`, or as many as fit the budget
 * beside `rest` (the rest of the answer: header and patch), and never less room than {@link FILE_LIST_SHARE}.
 */
export async function pageFiles(window: PatchWindow, list: FileListRequest, rest: string): Promise<PatchWindow> {
  const all = window.files;
  const start = Math.min(list.fileOffset, all.length);
  const available = all.length - start;
  let count: number;
  if (list.fileLimit !== undefined) {
    count = Math.min(list.fileLimit, available);
  } else {
    const size = measure();
    const room = Math.max(FILE_LIST_SHARE, size.budget - (await size.tokens(rest)) - FOOTER_RESERVE);
    const listed = (k: number): string =>
      all
        .slice(start, start + k)
        .map(renderFileLine)
        .join("\n");
    count = (await largestFitting(listed, Math.min(1, available), available, measure(room))).k;
  }
  const end = start + count;
  return { ...window, files: all.slice(start, end), fileOffset: list.fileOffset, nextFileOffset: end < all.length ? end : null };
}
