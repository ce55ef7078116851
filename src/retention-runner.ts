import type { Container } from './container.js';
import { nodeOwnerId } from './reconciler-runner.js';
import { startPeriodic } from './periodic.js';

/**
 * Runs the retention job every RETENTION_PRUNE_MS on whichever node holds its lease (JOB_LEASE_MS
 * long, renewed by a heartbeat while a run goes on, so a dead holder is replaced within about one
 * lease, and its work resumes at the next node's next period). Runs
 * never overlap; a failed run is logged and the next one tries again. `stop` ends the run in
 * progress after its current step and gives the lease up, so a restarted node (a new owner)
 * prunes at its first period instead of waiting for the lease to run out.
 */
export function startRetention(container: Container): { stop(): Promise<void> } {
  const { pruneMs, leaseMs } = container.config.retention;
  const owner = nodeOwnerId();
  const runs = startPeriodic({
    everyMs: pruneMs,
    run: async (signal) => {
      const report = await container.services.retention.pruneIfLeader({ owner, leaseMs, signal });
      if (report && Object.values(report).some((n) => n > 0)) container.logger.info(report, 'storage pruned');
    },
    failed: (error) => container.logger.warn({ err: error.message }, 'storage pruning failed'),
  });
  return {
    async stop() {
      await runs.stop();
      // Releases only this owner's lease: nothing happens when another node holds it.
      await container.services.retention.stepDown({ owner }).catch(() => {});
    },
  };
}
