import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Container } from './container.js';

/** Deliveries claimed per round; a full round is followed at once by another. */
const BATCH = 50;

/**
 * Runs the webhook worker: woken by the domain's watch whenever a change (on any node) may have
 * written deliveries, and by a slow timer for retries that fall due. Rounds never overlap.
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

  // Wake-ups are coalesced (at most one pending); the short pause lets a burst of changes settle into one round.
  const wakeUps = container.services.webhookWorker.watchWork();
  const listening = (async () => {
    for await (const _ of wakeUps) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      run();
    }
  })();
  const timer = setInterval(run, webhooks.pollMs);
  timer.unref();
  run();

  return {
    async stop() {
      stopped = true;
      await wakeUps.return?.();
      clearInterval(timer);
      await listening;
      await running;
    },
  };
}
