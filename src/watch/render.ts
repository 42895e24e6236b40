/** The compact text a model reads for watch events: one line per event, and what to do when some were dropped. */
import { formatCount, plural } from "../text.js";
import type { DegradedState, WatchChanges, WatchEvent, WatcherStatus } from "./types.js";

/** `#12 git branch_switched: switched from main to branch feature at 1a2b3c4` */
export function renderWatchEvent(event: WatchEvent): string {
  return `#${event.seq} ${event.category} ${event.kind}: ${event.summary}`;
}

export function renderDegraded(degraded: DegradedState): string {
  return `Watching degraded since ${degraded.since}: ${degraded.message} ${degraded.hint}`;
}

/** The text of `git_changes`: the events since `since`, what was dropped, and whether watching is degraded. */
export function renderWatchChanges(changes: WatchChanges): string {
  const lines: string[] = [];
  if (changes.events.length === 0 && changes.dropped === 0) {
    lines.push(changes.since === 0 ? `No changes yet (sequence ${changes.seq}).` : `No changes since #${changes.since} (sequence ${changes.seq}).`);
  } else {
    const since = changes.since === 0 ? "since watching started" : `since #${changes.since}`;
    lines.push(`${plural(changes.events.length + changes.dropped, "change")} ${since}, up to #${changes.seq}:`);
    if (changes.dropped > 0) {
      lines.push(
        `${plural(changes.dropped, "older event")} no longer held (the watcher keeps the most recent ones): read the current state with git_status or git_context.`,
      );
    }
    for (const event of changes.events) lines.push(renderWatchEvent(event));
  }
  lines.push(`Next time, ask for changes since ${changes.seq}.`);
  if (changes.degraded !== null) lines.push(renderDegraded(changes.degraded));
  return lines.join("\n");
}

export function renderWatcherStatus(status: WatcherStatus): string {
  const lines = [
    `Watcher ${status.state}: ${status.location.root} (work tree ${status.location.topLevel})`,
    `${formatCount(status.watches)} native watches (cap ${formatCount(status.maxWatches)}), ${formatCount(status.polled)} polled; ${plural(status.instructionPaths.length, "instruction file")}; sequence ${status.seq}.`,
  ];
  if (status.ignoredDirectories.length > 0) {
    const shown = status.ignoredDirectories.slice(0, 10).join(", ");
    lines.push(
      `Left out (ignored by the repository): ${shown}${status.ignoredDirectories.length > 10 ? `, and ${status.ignoredDirectories.length - 10} more` : ""}.`,
    );
  }
  if (status.degraded !== null) lines.push(renderDegraded(status.degraded));
  for (const warning of status.warnings) lines.push(`Warning: ${warning}`);
  return lines.join("\n");
}
