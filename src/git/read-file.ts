/**
 * Reading a file a repository controls (a work tree file, a state file in the git directory) without letting
 * it lead elsewhere: the last component must not be a symlink (to /etc/passwd, say: its text would end up in a
 * result) and must be a regular file (a FIFO would block the call forever, beyond any git timeout).
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** The file's bytes (at most `maxBytes`), or `undefined` when it is missing, a symlink, or not a regular file. */
export async function readRegularFile(path: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer | undefined> {
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before fstat could refuse it.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const size = Math.min(info.size, maxBytes);
    const chunks: Buffer[] = [];
    let held = 0;
    for (;;) {
      const want = Math.min(Math.max(size - held, 64 * 1024), maxBytes - held);
      if (want <= 0) break;
      const buffer = Buffer.alloc(want);
      const { bytesRead } = await handle.read(buffer, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      held += bytesRead;
    }
    return Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}
