import type { Container } from './container.js';
import { nodeOwnerId } from './reconciler-runner.js';
import { startPeriodic } from './periodic.js';

/**
 * Runs the retention job every RETENTION_PRUNE_MS on whichever node holds its lease (three
 * periods long, so a dead holder is replaced within about that). Runs never overlap; a failed run
 * is logged and the next one tries again.
 */
export function startRetention(container: Container): { stop(): Promise<void> } {
  const { pruneMs } = container.config.retention;
  const owner = nodeOwnerId();
  return startPeriodic({
    everyMs: pruneMs,
    run: async () => {
      const report = await container.services.retention.pruneIfLeader({ owner, leaseMs: pruneMs * 3 });
      if (report && report.deliveries + report.orderEvents + report.leases > 0) container.logger.info(report, 'storage pruned');
    },
    failed: (error) => container.logger.warn({ err: error.message }, 'storage pruning failed'),
  });
}
