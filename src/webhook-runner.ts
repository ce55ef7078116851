import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Container } from './container.js';

/** Deliveries claimed per round; a full round is followed at once by another. */
const BATCH = 50;

/**
 * Runs the webhook worker: woken by the bus whenever a change may have written deliveries, and by
 * a slow timer for retries that fall due (and for changes made on other nodes). Rounds never overlap.
 */
export function startWebhookWorker(container: Container): { stop(): Promise<void> } {
  const { webhooks } = container.config;
  if (!webhooks.worker) return { stop: async () => {} };
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const round = async () => {
    do {
      again = false;
      while (!stopped && (await container.services.webhookWorker.runOnce({ owner, limit: BATCH })) === BATCH);
    } while (again && !stopped);
  };
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((error: unknown) => container.logger.warn({ err: (error as Error).message }, 'webhook round failed'))
      .finally(() => (running = null));
  };

  let wake: NodeJS.Timeout | null = null;
  const unsubscribe = container.bus.subscribe((message) => {
    if (message.type === 'courier.position' && message.orderIds.length === 0) return;
    wake ??= setTimeout(() => {
      wake = null;
      run();
    }, 5);
  });
  const timer = setInterval(run, webhooks.pollMs);
  timer.unref();
  run();

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      clearInterval(timer);
      if (wake) clearTimeout(wake);
      await running;
    },
  };
}
