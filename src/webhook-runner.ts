import type { Container } from './container.js';
import { nodeOwnerId } from './reconciler-runner.js';

export interface WebhookPollScheduler {
  /** Asks for a poll: runs one now, or marks one pending (at most one), never more often than minIntervalMs. */
  wake(): void;
  /**
   * Asks for a poll without the minimum interval (still one in flight and one pending): a send
   * ended, so a cap slot is free. These polls are bounded by the sends, not by the bus traffic.
   */
  wakeNow(): void;
  /** Polls started so far (what the tests and metrics count). */
  polls(): number;
  stop(): Promise<void>;
}

/**
 * Coalesces wake-ups into store polls: at most one poll in flight and one pending, and polls start
 * at least `minIntervalMs` apart, so a node's polls stay under 1000 / minIntervalMs per second
 * whatever the bus traffic. A full poll (as many claimed as there was room for) asks for another.
 */
export function createPollScheduler(options: { minIntervalMs: number; poll: () => Promise<{ full: boolean }>; failed: (error: unknown) => void }): WebhookPollScheduler {
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let pending = false;
  /** The pending poll was asked for by wakeNow. */
  let urgent = false;
  let stopped = false;
  let lastStart = -Infinity;
  let count = 0;

  const start = () => {
    timer = null;
    if (stopped) return;
    lastStart = Date.now();
    count++;
    running = options
      .poll()
      .then(({ full }) => {
        if (full) pending = true;
      })
      .catch(options.failed)
      .finally(() => {
        running = null;
        if (pending) {
          pending = false;
          if (urgent) wakeNow();
          else wake();
        }
      });
  };
  const wake = () => {
    if (stopped) return;
    if (running || timer) {
      pending = true;
      return;
    }
    const wait = lastStart + options.minIntervalMs - Date.now();
    if (wait > 0) timer = setTimeout(start, wait);
    else start();
  };
  const wakeNow = () => {
    if (stopped) return;
    if (running) {
      pending = true;
      urgent = true;
      return;
    }
    urgent = false;
    if (timer) clearTimeout(timer);
    start();
  };
  return {
    wake,
    wakeNow,
    polls: () => count,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/**
 * Runs the webhook worker: woken by the domain's watch whenever a change (on any node) may have
 * written deliveries, by a send ending (a slot is free), and by a slow timer for retries that fall
 * due; every wake-up goes through the scheduler, which bounds the store polls.
 */
export function startWebhookWorker(container: Container): { stop(): Promise<void>; polls(): number } {
  const { webhooks } = container.config;
  if (!webhooks.worker) return { stop: async () => {}, polls: () => 0 };
  const owner = nodeOwnerId();
  const worker = container.services.webhookWorker;
  const failed = (error: unknown) => container.logger.warn({ err: (error as Error).message }, 'webhook poll failed');
  // A send ending frees a node slot and a merchant/endpoint cap slot: due work held back by a cap
  // (one busy endpoint drains 4 at a time by default) is claimable at once, not at the next timer.
  const settled = () => scheduler.wakeNow();
  const scheduler: WebhookPollScheduler = createPollScheduler({
    minIntervalMs: webhooks.minPollMs,
    failed,
    poll: async () => {
      const { claimed, room } = await worker.poll({ owner, settled, failed });
      return { full: room > 0 && claimed === room };
    },
  });

  const wakeUps = worker.watchWork();
  const listening = (async () => {
    for await (const _ of wakeUps) scheduler.wake();
  })();
  const timer = setInterval(() => scheduler.wake(), webhooks.pollMs);
  timer.unref();
  scheduler.wake();

  return {
    polls: scheduler.polls,
    async stop() {
      await wakeUps.return?.();
      clearInterval(timer);
      await listening;
      await scheduler.stop();
      await worker.drain();
    },
  };
}
