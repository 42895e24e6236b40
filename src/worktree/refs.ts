/** Branches of the repository, read from the files git keeps them in (no git process needed to ask). */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { MAX_PACKED_REFS_BYTES, MAX_REF_LINE_BYTES, oversized } from "../git/file-limits.js";
import { forEachLine, readRegularFile } from "../git/read-file.js";
import { readdirQuietly } from "../git/stat-quietly.js";
import type { WorktreeLayout } from "./layout.js";
import type { AdminEntry } from "./record.js";

/** The path of the worktree that has `branch` checked out (`except` aside), if one does. */
export async function checkedOutAt(
  layout: WorktreeLayout,
  entries: readonly AdminEntry[],
  branch: string,
  except?: AdminEntry,
): Promise<string | undefined> {
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
  const file = join(commonDir, "packed-refs");
  let tip: string | undefined;
  const read = await forEachLine(file, MAX_PACKED_REFS_BYTES, MAX_REF_LINE_BYTES, (bytes) => {
    const line = bytes.toString("utf8");
    const space = line.indexOf(" ");
    if (space > 0 && line.slice(space + 1) === ref && /^[0-9a-f]{40,64}$/.test(line.slice(0, space))) tip = line.slice(0, space);
    return tip !== undefined;
  });
  if (read === "too_large") throw oversized(file, (await stat(file)).size);
  return tip;
}

/** Loose refs read at most when looking for another ref at a commit; past it git is asked instead. */
const MAX_LOOSE_REFS = 2_000;

/**
 * Whether `oid` is exactly where another branch, tag or remote-tracking ref points (`except` aside), read from
 * the ref files: then nothing reachable from it can be lost, and no git process is needed to say so (a fresh
 * worktree whose branch never moved is the common case). `undefined` when the files cannot tell.
 */
export async function atAnotherRef(commonDir: string, oid: string, except: string): Promise<boolean | undefined> {
  let read = 0;
  const walk = async (dir: string, ref: string): Promise<boolean | undefined> => {
    for (const entry of readdirQuietly(dir)) {
      const path = join(dir, entry.name);
      const name = `${ref}/${entry.name}`;
      if (entry.isDirectory()) {
        const found = await walk(path, name);
        if (found !== false) return found;
      } else if (entry.isFile() && name !== except && !name.endsWith(".lock")) {
        if (++read > MAX_LOOSE_REFS) return undefined;
        if ((await readRegularFile(path, 4096))?.toString("utf8").trim() === oid) return true;
      }
    }
    return false;
  };
  for (const ref of ["refs/heads", "refs/tags", "refs/remotes"]) {
    const found = await walk(join(commonDir, ...ref.split("/")), ref);
    if (found !== false) return found;
  }
  let previous = "";
  const scanned = await forEachLine(join(commonDir, "packed-refs"), MAX_PACKED_REFS_BYTES, MAX_REF_LINE_BYTES, (bytes) => {
    const line = bytes.toString("utf8");
    // `^<oid>` follows an annotated tag's line with the commit it points at.
    if (line.startsWith("^") ? line.slice(1) === oid && previous !== except : line.startsWith(`${oid} `) && line.slice(oid.length + 1) !== except)
      return true;
    if (!line.startsWith("^")) previous = line.slice(line.indexOf(" ") + 1);
    return false;
  });
  // Past the bound the files cannot tell; git is asked instead.
  return scanned === "stopped" ? true : scanned === "too_large" ? undefined : false;
}
