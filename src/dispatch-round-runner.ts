import type { Container } from './container.js';
import { startPeriodic } from './periodic.js';

/**
 * Runs the dispatch round (issue #37, src/domain/dispatch/planner.ts) every DISPATCH_ROUND_MS on
 * whichever node holds its lease (three rounds long, so a dead holder is replaced within about
 * that), as the reconciler runs. Nothing runs under DISPATCH_POLICY=greedy.
 */
export function startDispatchRounds(container: Container, owner: string): { stop(): Promise<void> } {
  const { policy } = container.config.dispatch;
  if (policy.kind !== 'planned') return { stop: async () => {} };
  let leading = false;
  const rounds = startPeriodic({
    everyMs: policy.roundMs,
    run: async () => {
      const report = await container.services.planner.planRoundIfLeader({ owner, leaseMs: policy.roundMs * 3 });
      leading = report !== null;
      if (report && report.committed > 0) container.logger.info(report, 'dispatch round committed');
    },
    failed: (error) => container.logger.warn({ err: error.message }, 'dispatch round failed'),
  });
  return {
    async stop() {
      await rounds.stop();
      if (leading) await container.services.planner.stepDown({ owner }).catch(() => {});
    },
  };
}
