/** Updates a slow subscription may have waiting; past this the oldest are dropped. */
export const SUBSCRIPTION_BUFFER = 100;

/**
 * Turns pushed updates into an async iterator (what GraphQL subscriptions consume). `start`
 * registers the push function and returns its unregister; it runs at once. The queue is bounded
 * (oldest dropped) so a slow consumer can never hold memory without limit. return() — also called
 * from outside, e.g. when graphql-ws completes an operation — unregisters exactly once and ends
 * any pending next().
 */
export function watchIterator<T>(start: (push: (value: T) => void) => () => void, limit = SUBSCRIPTION_BUFFER): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let done = false;
  const push = (value: T) => {
    if (done) return;
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value, done: false });
      return;
    }
    queue.push(value);
    if (queue.length > limit) queue.shift();
  };
  const stop = start(push);
  const finish = async (): Promise<IteratorResult<T>> => {
    if (!done) {
      done = true;
      stop();
    }
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
