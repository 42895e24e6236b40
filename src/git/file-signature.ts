/**
 * Telling whether a file changed since gitctx last read it, without reading it: the results of work that
 * depends only on a few files (the config scan, the private index) are kept while those files stay the same.
 */
import { stat } from "node:fs/promises";

/**
 * Device, inode, size, mode and both timestamps (nanoseconds), or `missing`. git rewrites config, HEAD and the
 * index by renaming a new file over the old one, so the inode changes on every write it makes; an in-place edit
 * changes the ctime.
 */
export async function fileSignature(path: string): Promise<string> {
  return (await readSignature(path)).signature;
}

async function readSignature(path: string): Promise<{ signature: string; ctimeNs?: bigint }> {
  try {
    const info = await stat(path, { bigint: true });
    return { signature: `${info.dev}:${info.ino}:${info.size}:${info.mode}:${info.mtimeNs}:${info.ctimeNs}`, ctimeNs: info.ctimeNs };
  } catch {
    return { signature: "missing" };
  }
}

/**
 * Timestamps come from a clock that ticks in milliseconds, so two writes close together can leave a file with the
 * same size and times. A file changed this recently is not trusted to look different after its next change.
 */
const SETTLE_NS = 2_000_000_000n;

/** The signatures of `paths`, and whether every one of them was last changed long enough ago to be trusted. */
export async function watchFiles(paths: Iterable<string>): Promise<{ signatures: Map<string, string>; settled: boolean }> {
  const unique = [...new Set(paths)];
  const startedNs = BigInt(Date.now()) * 1_000_000n;
  const signatures = new Map<string, string>();
  let settled = true;
  await Promise.all(
    unique.map(async (path) => {
      const { signature, ctimeNs } = await readSignature(path);
      signatures.set(path, signature);
      if (ctimeNs !== undefined && startedNs - ctimeNs < SETTLE_NS) settled = false;
    }),
  );
  return { signatures, settled };
}

/** Whether every file still has the signature it had when watched. */
export async function unchanged(signatures: ReadonlyMap<string, string>): Promise<boolean> {
  const checks = await Promise.all([...signatures].map(async ([path, signature]) => (await fileSignature(path)) === signature));
  return checks.every(Boolean);
}
