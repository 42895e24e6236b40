/** Refs read from the files git keeps them in, where a question needs no git process. */
import { join } from "node:path";
import { MAX_PACKED_REFS_BYTES, oversized } from "./file-limits.js";
import { watchFiles } from "./file-signature.js";
import { readWholeRegularFile } from "./read-file.js";
import { lstatQuietly } from "./stat-quietly.js";

/**
 * The packed refs asked about: names that look like an abbreviated object id where git's rules for a short name
 * look (`refs/<x>`, `refs/tags/<x>`, `refs/heads/<x>`, `refs/remotes/<x>`: is `2024` a tag?), and notes refs. A
 * large repository's `packed-refs` holds millions of lines; these are few, and are all that is kept of it.
 */
const KEPT = /^refs\/(?:(?:tags|heads|remotes)\/)?[0-9a-fA-F]{4,64}$|^refs\/notes\//;

/**
 * What a session found in each repository's `packed-refs`, per common directory: the names of KEPT's shapes,
 * kept while the file keeps a settled signature (git_log asks on every call whether a notes ref exists).
 */
export class PackedRefAnswers {
  private readonly kept = new Map<string, { signature: string; names: ReadonlySet<string> }>();

  invalidate(): void {
    this.kept.clear();
  }

  /**
   * Whether any of these refs (full names of KEPT's shapes) exists: as a loose file in the common directory, or as
   * a line of `packed-refs` (`<object id> <name>`). Names git keeps per worktree are not asked for here.
   */
  async anyExists(commonDir: string, refs: readonly string[]): Promise<boolean> {
    if (refs.some((ref) => !KEPT.test(ref))) throw new RangeError(`not a ref name PackedRefAnswers keeps: ${refs.join(", ")}`);
    if (refs.some((ref) => lstatQuietly(join(commonDir, ...ref.split("/")))?.isFile() === true)) return true;
    const file = join(commonDir, "packed-refs");
    const { signatures, settled } = watchFiles([file]);
    const signature = signatures.get(file)!;
    let names = this.kept.get(commonDir)?.signature === signature ? this.kept.get(commonDir)!.names : undefined;
    if (names === undefined) {
      names = signature === "missing" ? new Set() : await keptNames(file);
      // Kept once settled: a file rewritten within the clock's tick could keep its signature (see file-signature.ts).
      if (settled) {
        if (this.kept.size >= 256) this.kept.clear();
        this.kept.set(commonDir, { signature, names });
      }
    }
    return refs.some((ref) => names.has(ref));
  }
}

const NOTES_PREFIX = Buffer.from("refs/notes/");

/** The names of KEPT's shapes that `packed-refs` lists. */
async function keptNames(file: string): Promise<Set<string>> {
  const read = await readWholeRegularFile(file, MAX_PACKED_REFS_BYTES);
  if (read?.kind === "too_large") throw oversized(file, read.size);
  const names = new Set<string>();
  const bytes = read?.bytes;
  if (bytes === undefined) return names;
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end === -1 ? bytes.length : end;
    // `<object id> refs/...`: only lines whose name starts there, and then only the few of KEPT's shapes.
    const space = bytes.indexOf(0x20, start);
    // Decoded only when it could be of KEPT's shapes: short (`refs/remotes/` and 64 digits at most), or a notes ref.
    if (space !== -1 && space < stop && (stop - space - 1 <= 77 || bytes.subarray(space + 1, space + 12).equals(NOTES_PREFIX))) {
      const name = bytes.toString("utf8", space + 1, stop);
      if (KEPT.test(name)) names.add(name);
    }
    start = stop + 1;
  }
  return names;
}
