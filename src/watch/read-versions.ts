/**
 * "Changed since you read it": the version of each file an agent read (size, modification time, inode and a
 * SHA-256 of the content), and which of them are different now, so a harness can refuse to overwrite an edit the
 * agent has not seen. A stat answers most checks; the content is hashed again only when the stat cannot tell:
 * same size but another time or inode (a `touch`, a formatter that rewrote the same bytes), or same size and time
 * after the watcher reported the file (timestamps can repeat for writes close together).
 */
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { isAbsolute, resolve, sep } from "node:path";
import { GitctxError } from "../errors.js";
import { streamRegularFile } from "../git/read-file.js";
import type { WatchEvent } from "./types.js";
import type { Watcher } from "./watcher.js";

export interface FileVersion {
  /** The path as given (relative to the root, or absolute). */
  path: string;
  absolute: string;
  size: number;
  /** Modification time, milliseconds since the epoch (fractional), and nanoseconds as a decimal string. */
  mtimeMs: number;
  mtimeNs: string;
  ino: number;
  sha256: string;
  /** When it was recorded (ms since the epoch). */
  recordedAt: number;
}

export type VersionStatus = "unchanged" | "modified" | "deleted";

export interface VersionCheck {
  path: string;
  status: VersionStatus;
  recorded: FileVersion;
  /** What is there now; `null` when the file is gone. `sha256` only when the content had to be hashed. */
  current: { size: number; mtimeMs: number; ino: number; sha256?: string } | null;
  /** `stat`: the stat decided; `hash`: the content was hashed because the stat was ambiguous. */
  decidedBy: "stat" | "hash";
}

export interface RecordOptions {
  /** The bytes the agent actually read; hashed instead of reading the file again. */
  content?: Uint8Array | string;
}

/**
 * Timestamps come from a clock that ticks coarsely: a file written again within this long of the version that
 * was recorded may keep the same time, so such a file is hashed when checked.
 */
const RACY_MS = 2_000;

/** A record, whether the watcher reported its file since, and when its content was last hashed. */
type Entry = FileVersion & { reported: boolean; verifiedAt: number };

function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The SHA-256 of a file, hashed a chunk at a time (a file of any size costs one chunk of memory, and a file swapped
 * for a FIFO meanwhile is not waited on); `undefined` when it is not a regular file any more. Symlinks are followed,
 * as the stat before it follows them.
 */
async function hashFile(path: string): Promise<string | undefined> {
  const hash = createHash("sha256");
  const read = await streamRegularFile(path, Number.MAX_SAFE_INTEGER, (chunk) => hash.update(chunk), { followSymlinks: true });
  return read === undefined ? undefined : hash.digest("hex");
}

export class ReadVersions {
  private readonly versions = new Map<string, Entry>();
  private detach: (() => void) | undefined;
  private rootOf: () => string;

  /**
   * `root`: what relative paths are relative to (a watcher's root when attached to one); a function for a root
   * that moves (a session's), asked at every call.
   */
  constructor(options: { root: string | (() => string); watcher?: Watcher }) {
    const given = options.root;
    if (typeof given === "string" && !isAbsolute(given))
      throw new GitctxError("invalid_input", `root must be an absolute path, got ${JSON.stringify(given)}.`);
    this.rootOf = typeof given === "string" ? () => given : given;
    if (options.watcher !== undefined) this.attach(options.watcher);
  }

  /** Listens to a watcher's events: a recorded file it reports is hashed when next checked, whatever its stat says. */
  attach(watcher: Watcher): void {
    this.detach?.();
    this.rootOf = () => watcher.status().location.root;
    this.detach = watcher.on((event) => this.noteEvent(event));
  }

  /** Stops listening. The records stay. */
  close(): void {
    this.detach?.();
    this.detach = undefined;
  }

  /** Marks the files an event names (every record, for a `bulk` event, which names only a sample). */
  noteEvent(event: WatchEvent): void {
    if (event.category === "git" || event.category === "watcher") return;
    if (event.kind === "bulk") {
      for (const version of this.versions.values()) version.reported = true;
      return;
    }
    for (const path of event.paths) {
      const version = this.versions.get(this.absolute(path));
      if (version !== undefined) version.reported = true;
    }
  }

  /** Records the version of `path` the agent read now (or the one whose bytes are `content`). */
  async record(path: string, options: RecordOptions = {}): Promise<FileVersion> {
    const absolute = this.absolute(path);
    let info;
    try {
      info = await stat(absolute, { bigint: true });
    } catch {
      throw new GitctxError(
        "path_not_found",
        `${path} does not exist, so no version of it can be recorded.`,
        "Record a file after reading it, with the path it was read from.",
      );
    }
    if (!info.isFile()) throw new GitctxError("invalid_input", `${path} is not a regular file.`);
    const content = options.content;
    const hash = content === undefined ? await hashFile(absolute) : sha256(content);
    if (hash === undefined) throw new GitctxError("invalid_input", `${path} is not a regular file.`);
    const version: FileVersion = {
      path,
      absolute,
      size: content === undefined ? Number(info.size) : typeof content === "string" ? Buffer.byteLength(content) : content.byteLength,
      mtimeMs: Number(info.mtimeNs) / 1e6,
      mtimeNs: info.mtimeNs.toString(),
      ino: Number(info.ino),
      sha256: hash,
      recordedAt: Date.now(),
    };
    this.versions.set(absolute, { ...version, reported: false, verifiedAt: version.recordedAt });
    return version;
  }

  forget(path: string): void {
    this.versions.delete(this.absolute(path));
  }

  get recorded(): FileVersion[] {
    return [...this.versions.values()].map(({ reported: _reported, verifiedAt: _verifiedAt, ...version }) => version);
  }

  /** Every recorded file (or those of `paths`) with whether it changed since it was recorded. */
  async check(paths?: Iterable<string>): Promise<VersionCheck[]> {
    const wanted =
      paths === undefined
        ? [...this.versions.values()]
        : [...paths].map((path) => this.versions.get(this.absolute(path))).filter((version) => version !== undefined);
    return Promise.all(wanted.map((version) => this.checkOne(version)));
  }

  /** Only the recorded files that are different now (modified or deleted). */
  async changedSince(paths?: Iterable<string>): Promise<VersionCheck[]> {
    return (await this.check(paths)).filter((check) => check.status !== "unchanged");
  }

  private async checkOne(entry: Entry): Promise<VersionCheck> {
    const { reported, verifiedAt, ...recorded } = entry;
    let info;
    try {
      info = await stat(entry.absolute, { bigint: true });
    } catch {
      return { path: entry.path, status: "deleted", recorded, current: null, decidedBy: "stat" };
    }
    if (!info.isFile()) return { path: entry.path, status: "deleted", recorded, current: null, decidedBy: "stat" };
    const current = { size: Number(info.size), mtimeMs: Number(info.mtimeNs) / 1e6, ino: Number(info.ino) };
    if (current.size !== entry.size) return { path: entry.path, status: "modified", recorded, current, decidedBy: "stat" };
    const sameStat = info.mtimeNs.toString() === entry.mtimeNs && current.ino === entry.ino;
    const racy = Math.abs(verifiedAt - entry.mtimeMs) < RACY_MS;
    if (sameStat && !reported && !racy) return { path: entry.path, status: "unchanged", recorded, current, decidedBy: "stat" };
    const hash = await hashFile(entry.absolute);
    if (hash === undefined) return { path: entry.path, status: "deleted", recorded, current: null, decidedBy: "hash" };
    if (hash === entry.sha256) {
      // Same bytes under a new stat: remember the stat, so the next check needs no hash.
      entry.mtimeNs = info.mtimeNs.toString();
      entry.mtimeMs = current.mtimeMs;
      entry.ino = current.ino;
      entry.reported = false;
      entry.verifiedAt = Date.now();
    }
    return {
      path: entry.path,
      status: hash === entry.sha256 ? "unchanged" : "modified",
      recorded,
      current: { ...current, sha256: hash },
      decidedBy: "hash",
    };
  }

  private absolute(path: string): string {
    const full = resolve(this.rootOf(), path);
    return sep === "/" ? full : full.split(sep).join("/");
  }
}
