/** Refs read from the files git keeps them in, where a question needs no git process. */
import { join } from "node:path";
import { MAX_PACKED_REFS_BYTES, MAX_REF_LINE_BYTES } from "./file-limits.js";
import { forEachLine } from "./read-file.js";
import { lstatQuietly } from "./stat-quietly.js";

/**
 * Whether any of these refs (full names, `refs/tags/v1`) exists: as a loose file in the common directory, or as a
 * line of `packed-refs`. Names git keeps per worktree (`refs/bisect/`, `refs/worktree/`) are not asked for here.
 */
export async function anyRefExists(commonDir: string, refs: readonly string[]): Promise<boolean> {
  if (refs.some((ref) => lstatQuietly(join(commonDir, ...ref.split("/")))?.isFile() === true)) return true;
  const wanted = new Set(refs);
  let found = false;
  await forEachLine(join(commonDir, "packed-refs"), MAX_PACKED_REFS_BYTES, MAX_REF_LINE_BYTES, (line) => {
    // `<object id> <name>`; peeled (`^...`) and header (`# ...`) lines hold no name.
    const space = line.indexOf(0x20);
    found = space > 0 && wanted.has(line.subarray(space + 1).toString("utf8"));
    return found;
  });
  return found;
}
