import type { Container } from './container.js';
import { nodeOwnerId } from './reconciler-runner.js';

/**
 * Runs the retention job every RETENTION_PRUNE_MS on whichever node holds its lease (three
 * periods long, so a dead holder is replaced within about that). Runs never overlap; a failed run
 * is logged and the next one tries again.
 */
export function startRetention(container: Container): { stop(): Promise<void> } {
  const { pruneMs } = container.config.retention;
  const owner = nodeOwnerId();
  let running: Promise<void> | null = null;

  const run = () => {
    if (running) return;
    running = container.services.retention
      .pruneIfLeader({ owner, leaseMs: pruneMs * 3 })
      .then((report) => {
        if (report && report.deliveries + report.orderEvents + report.leases > 0) container.logger.info(report, 'storage pruned');
      })
      .catch((error: unknown) => container.logger.warn({ err: (error as Error).message }, 'storage pruning failed'))
      .finally(() => (running = null));
  };
  const timer = setInterval(run, pruneMs);
  timer.unref();
  run();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
