import type { Container } from './container.js';
import { startPeriodic } from './periodic.js';
import { nodeOwnerId } from './reconciler-runner.js';

/**
 * Runs the notification worker every NOTIFY_POLL_MS: due live notifications are leased and sent
 * (test-mode ones never are: they stay in the sandbox outbox). Each attempt is logged by id,
 * channel and moment, never with the recipient's phone or email or the message.
 */
export function startNotificationWorker(container: Container): { stop(): Promise<void> } {
  const { notifications } = container.config;
  if (!notifications.worker) return { stop: async () => {} };
  const owner = nodeOwnerId();
  const runs = startPeriodic({
    everyMs: notifications.pollMs,
    run: async () => {
      for (const report of await container.services.notificationWorker.poll({ owner })) {
        if (report.outcome === 'sent') container.logger.info(report, 'notification sent');
        else if (report.outcome === 'blocked') container.services.notificationRefusals.emit(report.refusal!);
        else container.logger.warn(report, report.outcome === 'failed' ? 'notification failed' : 'notification attempt failed');
      }
    },
    failed: (error) => container.logger.warn({ err: error.message }, 'notification poll failed'),
  });
  return { stop: () => runs.stop() };
}
