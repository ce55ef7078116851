import type { BusMessage, EventBus } from '../src/ports/event-bus.js';

/** Messages a slow subscription may have waiting; past this the oldest are dropped. */
export const SUBSCRIPTION_BUFFER = 100;

/**
 * Turns bus messages into an async iterator for a GraphQL subscription: only messages the
 * selector maps to a value are queued; the queue is bounded (oldest dropped) so a slow client
 * can never hold memory without limit; return() unsubscribes.
 */
export function busIterator<T>(bus: EventBus, select: (message: BusMessage) => T | undefined, limit = SUBSCRIPTION_BUFFER): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let done = false;
  const unsubscribe = bus.subscribe((message) => {
    if (done) return;
    const value = select(message);
    if (value === undefined) return;
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value, done: false });
      return;
    }
    queue.push(value);
    if (queue.length > limit) queue.shift();
  });
  const finish = async (): Promise<IteratorResult<T>> => {
    done = true;
    unsubscribe();
    queue.length = 0;
    if (waiting) waiting({ value: undefined, done: true });
    waiting = null;
    return { value: undefined, done: true };
  };
  return {
    next: () => {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    throw: async (error) => {
      await finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
