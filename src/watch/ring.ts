/** The last N events, so "what changed since seq S" costs a slice, and a caller that asks too late learns how many it missed. */
import type { WatchEvent } from "./types.js";

export class EventRing {
  private readonly items: WatchEvent[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`the event ring needs a positive integer capacity, got ${capacity}`);
  }

  push(event: WatchEvent): void {
    this.items.push(event);
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
  }

  /** Events with `seq > since`, and how many of those are no longer held. `latest` is the newest seq issued. */
  since(since: number, latest: number): { events: WatchEvent[]; dropped: number } {
    const oldest = this.items[0]?.seq ?? latest + 1;
    const events = this.items.filter((event) => event.seq > since);
    const dropped = Math.max(0, Math.min(oldest - 1, latest) - Math.max(since, 0));
    return { events, dropped };
  }
}
