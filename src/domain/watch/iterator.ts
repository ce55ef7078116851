/** Updates a slow subscription may have waiting; past this the oldest are dropped. */
export const SUBSCRIPTION_BUFFER = 100;

/**
 * A watch iterator's push form: `iterator[listen](sink)` hands what is waiting, then every later
 * update, straight to `sink` as it is pushed (no queue, no promise per update); return() still
 * stops it. For a consumer that takes updates synchronously and never calls next().
 */
export const listen = Symbol('watch.listen');

export type Listenable<T> = { [listen]: (sink: (value: T) => void) => void };

export function isListenable<T>(iterator: object): iterator is Listenable<T> {
  return typeof (iterator as Partial<Listenable<T>>)[listen] === 'function';
}

/**
 * Turns pushed updates into an async iterator (what GraphQL subscriptions consume). `start`
 * registers the push function and returns its unregister; it runs at once. The queue is bounded
 * (oldest dropped) so a slow consumer can never hold memory without limit. return() — also called
 * from outside, e.g. when graphql-ws completes an operation — unregisters exactly once and ends
 * any pending next().
 */
export function watchIterator<T>(start: (push: (value: T) => void) => () => void, limit = SUBSCRIPTION_BUFFER): AsyncIterableIterator<T> & Listenable<T> {
  const queue: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let listener: ((value: T) => void) | null = null;
  let done = false;
  const push = (value: T) => {
    if (done) return;
    if (listener) return listener(value);
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
    [listen](sink) {
      listener = sink;
      for (const value of queue.splice(0)) if (!done) sink(value);
    },
  };
}
