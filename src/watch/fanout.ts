/**
 * One stream of events handed to listeners and to async iterators: the watcher's own, and each of a session's
 * watch handles. A listener that throws harms no other; an iterator nobody reads holds at most `QUEUE_LIMIT`
 * events, dropping the oldest; after `end()` iterators finish once they have handed out what they hold.
 */
export class EventFanout<T> {
  private readonly listeners = new Set<(event: T) => void>();
  private readonly subscribers = new Set<{ queue: T[]; wake: (() => void) | undefined }>();
  private ended = false;

  /** `before`: what an iterator's first `next()` waits for (a handle's start). */
  constructor(private readonly before?: Promise<unknown>) {}

  /** The same function given twice is called twice, and each returned function removes its own. */
  on(listener: (event: T) => void): () => void {
    if (this.ended) return () => undefined;
    const entry = (event: T): void => listener(event);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  get isEnded(): boolean {
    return this.ended;
  }

  deliver(event: T): void {
    if (this.ended) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the others and the stream go on.
      }
    }
    for (const subscriber of this.subscribers) {
      subscriber.queue.push(event);
      if (subscriber.queue.length > QUEUE_LIMIT) subscriber.queue.shift();
      subscriber.wake?.();
    }
  }

  /** No more events: listeners dropped, iterators end once they have handed out what they hold. */
  end(): void {
    this.ended = true;
    this.listeners.clear();
    for (const subscriber of this.subscribers) subscriber.wake?.();
  }

  iterator(): AsyncIterator<T> {
    const subscriber: { queue: T[]; wake: (() => void) | undefined } = { queue: [], wake: undefined };
    this.subscribers.add(subscriber);
    const done = (): IteratorResult<T> => {
      this.subscribers.delete(subscriber);
      return { value: undefined, done: true };
    };
    return {
      next: async () => {
        await this.before;
        for (;;) {
          const event = subscriber.queue.shift();
          if (event !== undefined) return { value: event, done: false };
          if (this.ended) return done();
          await new Promise<void>((resolve) => {
            subscriber.wake = resolve;
          });
          subscriber.wake = undefined;
        }
      },
      return: async () => done(),
    };
  }
}

/** Events an iterator that is not read holds before it drops the oldest. */
const QUEUE_LIMIT = 10_000;
