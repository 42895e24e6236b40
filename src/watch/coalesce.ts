/**
 * Turning a burst of file notifications into few events: per path, what happened first and last nets out
 * (created then deleted is nothing, deleted then created is a change: an editor's save by rename), a delete and a
 * create of the same inode is a rename, and many files in one burst (a checkout) are one `bulk` event with counts
 * and a sample. Pure: the watcher feeds it and turns its output into numbered events.
 */
import type { BulkCounts, FileEventKind, WatchCategory, WatchEvent, WatchEventKind } from "./types.js";
import { formatCount } from "../text.js";

export type FileChangeKind = "add" | "change" | "unlink";

interface Pending {
  kind: FileChangeKind;
  ino: number | undefined;
}

/** Net effect of `first` then `next` on one path; `null` when nothing is left (created, then deleted). */
export function netChange(first: FileChangeKind, next: FileChangeKind): FileChangeKind | null {
  if (first === "add") return next === "unlink" ? null : "add";
  if (first === "unlink") return next === "unlink" ? "unlink" : "change";
  return next === "unlink" ? "unlink" : "change";
}

/** The file changes of one burst, by absolute path, in arrival order. */
export class ChangeBatch {
  private readonly pending = new Map<string, Pending>();
  /** When the first change of the burst arrived (ms since the epoch), for attributing it to a git event. */
  startedAt = 0;

  get size(): number {
    return this.pending.size;
  }

  note(path: string, kind: FileChangeKind, ino: number | undefined, now: number): void {
    if (this.pending.size === 0) this.startedAt = now;
    const known = this.pending.get(path);
    if (known === undefined) {
      this.pending.set(path, { kind, ino });
      return;
    }
    const net = netChange(known.kind, kind);
    if (net === null) this.pending.delete(path);
    else this.pending.set(path, { kind: net, ino: ino ?? known.ino });
  }

  take(): Map<string, Pending> {
    const taken = new Map(this.pending);
    this.pending.clear();
    return taken;
  }
}

export type FileCategory = Exclude<WatchCategory, "git" | "watcher">;

export interface FileEventContext {
  classify(path: string): FileCategory;
  /** The path as events show it (relative to the root, or absolute). */
  display(path: string): string;
  /** The inode a path had before it was deleted, if the watcher knew it. */
  inodeBefore(path: string): number | undefined;
  /** More files than this of one category in a burst make one `bulk` event. */
  bulkThreshold: number;
  /** How many paths a `bulk` event names. */
  sampleSize: number;
  /** The git event these files came with, if any. */
  cause?: { seq: number; kind: WatchEventKind };
}

export type UnnumberedEvent = Omit<WatchEvent, "seq" | "time">;

interface FileEvent {
  category: FileCategory;
  kind: Exclude<FileEventKind, "bulk">;
  /** Absolute; `[from, to]` for a rename. */
  paths: string[];
}

const VERB: Record<Exclude<FileEventKind, "bulk">, string> = { add: "created", change: "modified", unlink: "deleted", rename: "renamed" };
const NOUN: Record<FileCategory, [string, string]> = {
  instructions: ["instruction file", "instruction files"],
  rules: ["rule file", "rule files"],
  settings: ["settings file", "settings files"],
  source: ["file", "files"],
};

const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The events of one burst: instructions, rules and settings first (they make caches stale), then source. */
export function fileEvents(batch: Map<string, Pending>, context: FileEventContext): UnnumberedEvent[] {
  const unlinked = new Map<number, string>();
  for (const [path, change] of batch) {
    if (change.kind !== "unlink") continue;
    const ino = context.inodeBefore(path);
    if (ino !== undefined) unlinked.set(ino, path);
  }
  const renamedFrom = new Set<string>();
  const events: FileEvent[] = [];
  for (const [path, change] of [...batch].sort(([a], [b]) => byPath(a, b))) {
    if (change.kind === "add" && change.ino !== undefined && unlinked.has(change.ino)) {
      const from = unlinked.get(change.ino)!;
      unlinked.delete(change.ino);
      renamedFrom.add(from);
      const toCategory = context.classify(path);
      const category = toCategory !== "source" ? toCategory : context.classify(from);
      events.push({ category, kind: "rename", paths: [from, path] });
      continue;
    }
    events.push({ category: context.classify(path), kind: change.kind, paths: [path] });
  }
  const remaining = events.filter((event) => !(event.kind === "unlink" && renamedFrom.has(event.paths[0]!)));

  const out: UnnumberedEvent[] = [];
  const cause = context.cause === undefined ? {} : { cause: context.cause };
  for (const category of ["instructions", "rules", "settings", "source"] as const) {
    const mine = remaining.filter((event) => event.category === category);
    if (mine.length === 0) continue;
    if (mine.length > context.bulkThreshold) {
      out.push(bulkEvent(category, mine, context));
      continue;
    }
    for (const event of mine) {
      const shown = event.paths.map((path) => context.display(path));
      const noun = NOUN[category][0];
      const what = event.kind === "rename" ? `${shown[0]} -> ${shown[1]}` : shown[0];
      out.push({
        category,
        kind: event.kind,
        paths: shown,
        count: shown.length,
        summary: `${noun} ${VERB[event.kind]}: ${what}`,
        ...cause,
      });
    }
  }
  return out;
}

function bulkEvent(category: FileCategory, events: readonly FileEvent[], context: FileEventContext): UnnumberedEvent {
  const counts: BulkCounts = { added: 0, changed: 0, deleted: 0, renamed: 0 };
  const all: string[] = [];
  for (const event of events) {
    if (event.kind === "add") counts.added++;
    else if (event.kind === "change") counts.changed++;
    else if (event.kind === "unlink") counts.deleted++;
    else counts.renamed++;
    all.push(event.paths.at(-1)!);
  }
  const paths = all.slice(0, context.sampleSize).map((path) => context.display(path));
  const parts = [
    counts.added > 0 ? `${formatCount(counts.added)} created` : "",
    counts.changed > 0 ? `${formatCount(counts.changed)} modified` : "",
    counts.deleted > 0 ? `${formatCount(counts.deleted)} deleted` : "",
    counts.renamed > 0 ? `${formatCount(counts.renamed)} renamed` : "",
  ].filter((part) => part !== "");
  const noun = NOUN[category][events.length === 1 ? 0 : 1];
  const because = context.cause === undefined ? "" : ` with ${context.cause.kind.replace(/_/g, " ")} (#${context.cause.seq})`;
  const sample = paths.slice(0, 5).join(", ") + (events.length > 5 ? ", ..." : "");
  return {
    category,
    kind: "bulk",
    paths,
    count: events.length,
    summary: `${formatCount(events.length)} ${noun} changed${because} (${parts.join(", ")}): ${sample}`,
    counts,
    ...(context.cause === undefined ? {} : { cause: context.cause }),
  };
}
