import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Container } from './container.js';
import { startPeriodic } from './periodic.js';
import { startDispatchRounds } from './dispatch-round-runner.js';

/** This node's name in leases (host, process, and a random part so a restarted process is a new owner). */
export function nodeOwnerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Runs the dispatch reconciler every DISPATCH_RECONCILE_MS on whichever node holds its lease (the
 * lease lasts three rounds, so a dead holder is replaced within about that). Rounds never overlap;
 * a failed round (store unavailable) is logged and the next one tries again.
 */
export function startDispatchReconciler(container: Container): { stop(): Promise<void> } {
  const { reconcileMs } = container.config.dispatch;
  const owner = nodeOwnerId();
  let leading = false;
  const rounds = startPeriodic({
    everyMs: reconcileMs,
    run: async () => {
      const report = await container.services.reconciler.reconcileIfLeader({ owner, leaseMs: reconcileMs * 3 });
      if ((report !== null) !== leading) container.logger.info({ owner }, report ? 'dispatch reconciler: this node leads' : 'dispatch reconciler: another node leads');
      leading = report !== null;
      if (report && report.freed + report.repaired + report.dispatched > 0) container.logger.info(report, 'dispatch reconciled');
    },
    failed: (error) => container.logger.warn({ err: error.message }, 'dispatch reconciliation failed'),
  });
  // The periodic dispatch round (DISPATCH_POLICY=planned) runs beside it, under a lease of its own.
  const dispatchRounds = startDispatchRounds(container, owner);
  return {
    async stop() {
      await dispatchRounds.stop();
      await rounds.stop();
      // Another node takes over at its next round instead of after the lease runs out.
      if (leading) await container.services.reconciler.stepDown({ owner }).catch(() => {});
    },
  };
}
