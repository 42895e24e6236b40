/** Refs read from the files git keeps them in, where a question needs no git process. */
import { join } from "node:path";
import { MAX_PACKED_REFS_BYTES, oversized } from "./file-limits.js";
import { watchFiles } from "./file-signature.js";
import { readWholeRegularFile } from "./read-file.js";
import { lstatQuietly } from "./stat-quietly.js";

/**
 * What a session found in each repository's `packed-refs`, per common directory, kept while the file keeps its
 * signature: the file of a large repository holds hundreds of thousands of lines, and git_log asks on every call
 * whether a notes ref is among them.
 */
export class PackedRefAnswers {
  private readonly kept = new Map<string, { signature: string; answers: Map<string, boolean> }>();

  invalidate(): void {
    this.kept.clear();
  }

  /**
   * Whether any of these refs (full names, `refs/tags/v1`) exists: as a loose file in the common directory, or as
   * a line of `packed-refs` (`<object id> <name>`). Names git keeps per worktree (`refs/bisect/`, `refs/worktree/`)
   * are not asked for here.
   */
  async anyExists(commonDir: string, refs: readonly string[]): Promise<boolean> {
    if (refs.some((ref) => lstatQuietly(join(commonDir, ...ref.split("/")))?.isFile() === true)) return true;
    const file = join(commonDir, "packed-refs");
    const { signatures, settled } = watchFiles([file]);
    const signature = signatures.get(file)!;
    const key = refs.join("\0");
    let kept = this.kept.get(commonDir);
    if (kept?.signature !== signature) kept = undefined;
    const known = kept?.answers.get(key);
    if (known !== undefined) return known;
    const read = signature === "missing" ? undefined : await readWholeRegularFile(file, MAX_PACKED_REFS_BYTES);
    if (read?.kind === "too_large") throw oversized(file, read.size);
    const bytes = read?.bytes;
    const found = bytes !== undefined && refs.some((ref) => bytes.includes(` ${ref}\n`));
    // Kept once settled: a file rewritten within the clock's tick could keep its signature (see file-signature.ts).
    if (settled) {
      if (kept === undefined) {
        kept = { signature, answers: new Map() };
        if (this.kept.size >= 256) this.kept.clear();
        this.kept.set(commonDir, kept);
      }
      if (kept.answers.size >= 1024) kept.answers.clear();
      kept.answers.set(key, found);
    }
    return found;
  }
}
