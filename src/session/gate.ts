/**
 * The read/write gate of a session: reads run together; a write waits for the reads in flight, then runs alone,
 * and every call that arrives meanwhile (read or write) waits until it is done. Calls are served in arrival
 * order, so a stream of reads cannot starve a write, and two writes that move the session's root cannot
 * interleave.
 */
export class ReadWriteGate {
  private reading = 0;
  private writing = false;
  private readonly waiting: Array<{ write: boolean; start: () => void }> = [];

  /** Calls admitted and not yet finished. */
  get active(): number {
    return this.reading + (this.writing ? 1 : 0);
  }

  read<T>(task: () => Promise<T>): Promise<T> {
    return this.run(false, task);
  }

  write<T>(task: () => Promise<T>): Promise<T> {
    return this.run(true, task);
  }

  private async run<T>(write: boolean, task: () => Promise<T>): Promise<T> {
    if (this.canStart(write)) this.admit(write);
    else await new Promise<void>((start) => this.waiting.push({ write, start }));
    try {
      return await task();
    } finally {
      if (write) this.writing = false;
      else this.reading--;
      this.wakeWaiting();
    }
  }

  private canStart(write: boolean): boolean {
    // Anyone already waiting goes first: a new read may not overtake a write that waits for the reads to drain.
    if (this.writing || this.waiting.length > 0) return false;
    return !write || this.reading === 0;
  }

  private admit(write: boolean): void {
    if (write) this.writing = true;
    else this.reading++;
  }

  private wakeWaiting(): void {
    while (this.waiting.length > 0 && !this.writing) {
      const next = this.waiting[0]!;
      if (next.write && this.reading > 0) return;
      this.waiting.shift();
      this.admit(next.write);
      next.start();
      if (next.write) return;
    }
  }
}
