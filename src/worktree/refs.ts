/** Branches of the repository, read from the files git keeps them in (no git process needed to ask). */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { readRegularFile } from "../git/read-file.js";
import type { WorktreeLayout } from "./layout.js";
import type { AdminEntry } from "./record.js";

/** The path of the worktree that has `branch` checked out (`except` aside), if one does. */
export async function checkedOutAt(layout: WorktreeLayout, entries: readonly AdminEntry[], branch: string, except?: AdminEntry): Promise<string | undefined> {
  const wanted = `ref: refs/heads/${branch}`;
  const head = async (dir: string): Promise<string | undefined> => (await readRegularFile(join(dir, "HEAD"), 4096))?.toString("utf8").trim();
  if ((await head(layout.commonDir)) === wanted) return layout.mainTop;
  for (const entry of entries) {
    if (entry.adminDir !== except?.adminDir && (await head(entry.adminDir)) === wanted) return entry.path ?? entry.adminDir;
  }
  return undefined;
}

/** The commit a branch points at, read from its loose ref or `packed-refs`; `undefined` when there is no such branch. */
export async function branchTip(commonDir: string, branch: string): Promise<string | undefined> {
  const ref = `refs/heads/${branch}`;
  const loose = (await readRegularFile(join(commonDir, ...ref.split("/")), 4096))?.toString("utf8").trim();
  if (loose !== undefined && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
  const packed = await readFile(join(commonDir, "packed-refs"), "utf8").catch(() => "");
  for (const line of packed.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0 && line.slice(space + 1) === ref && /^[0-9a-f]{40,64}$/.test(line.slice(0, space))) return line.slice(0, space);
  }
  return undefined;
}
