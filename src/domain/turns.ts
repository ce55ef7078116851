import { AppError } from './errors.js';

/**
 * A bounded turn queue for CPU-heavy work (password hashing, image re-encoding): at most
 * `concurrency` tasks run at once and `queueLimit` wait; one more is refused at once with 503
 * SERVICE_UNAVAILABLE and `busyMessage`, so a flood costs a refusal, not a growing queue.
 */
export function createTurns(options: { concurrency: number; queueLimit: number; busyMessage: string }) {
  let running = 0;
  const waiting: Array<() => void> = [];
  async function withTurn<T>(work: () => Promise<T>): Promise<T> {
    if (running >= options.concurrency) {
      if (waiting.length >= options.queueLimit) throw new AppError('SERVICE_UNAVAILABLE', options.busyMessage);
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running++;
    }
    try {
      return await work();
    } finally {
      // The turn passes straight to the next in line (running stays the same), or is given back.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  }
  return { withTurn, stats: () => ({ running, waiting: waiting.length }) };
}
