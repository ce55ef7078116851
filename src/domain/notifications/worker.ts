import type { Clock } from '../../ports/clock.js';
import type { Notifier } from '../../ports/notifier.js';
import type { Store } from '../../ports/store.js';
import { isPhoneChannel, refusalOf, type NotificationBudget, type NotificationRefusal } from './budget.js';
import { channelNotConfigured, type Notification, type NotificationBlockReason } from './types.js';

/** Minutes to wait after each failed attempt (scaled by `retryScale`). */
export const NOTIFICATION_RETRY_DELAYS_MIN = [1, 5, 15, 60, 180];

export interface NotificationWorkerConfig {
  /** Attempts in all before a notification is given up (failed). */
  maxAttempts: number;
  /** Multiplies the retry delays (tests shrink them). */
  retryScale: number;
  /** How long a claimed notification is held before another worker may take it. */
  leaseMs: number;
  /** Notifications claimed per poll at most. */
  batch: number;
}

/** The delay before retry n (1-based), with ±10 % jitter. */
export function notificationRetryDelayMs(retry: number, scale: number, random = Math.random): number {
  const minutes = NOTIFICATION_RETRY_DELAYS_MIN[Math.min(retry, NOTIFICATION_RETRY_DELAYS_MIN.length) - 1]!;
  return Math.round(minutes * 60_000 * scale * (0.9 + 0.2 * random()));
}

/** An error text with the recipient's address taken out (providers quote it back: "The 'To' number … is invalid"). */
export function withoutRecipient(error: string, recipient: string): string {
  const digits = recipient.replace(/\D/g, '');
  let text = error.split(recipient).join('[destinatario]');
  if (digits.length >= 6) text = text.split(digits).join('[destinatario]');
  return text.slice(0, 500);
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>;

/** What the worker tells its runner about each attempt: never the recipient, never the body. */
export interface NotificationAttemptReport {
  id: string;
  merchantId: string;
  channel: Notification['channel'];
  moment: Notification['moment'];
  attempt: number;
  outcome: 'sent' | 'retry' | 'failed' | 'blocked';
  error: string | null;
  /** A blocked message's refusal (the recipient masked). */
  refusal?: NotificationRefusal;
}

/**
 * Sends due live notifications: each is leased first (two workers never send the same attempt),
 * sent through the channel's adapter, then recorded under the lease: sent, retried with backoff,
 * or failed after `maxAttempts` (or at once for a permanent refusal, or a channel not configured).
 */
export function createNotificationWorker(deps: { store: Store; notifier: Notifier; clock: Clock; config: NotificationWorkerConfig; budget?: NotificationBudget }) {
  const { store, notifier, clock, config } = deps;

  /**
   * The send-time rules of the sending budget: a message of an order cancelled by now is dropped
   * (the cancellation's own message aside: it is judged when written); a first attempt on SMS or
   * WhatsApp takes a unit of the number's and the merchant's caps (retries are the same message).
   */
  async function blockReasonOf(n: Notification): Promise<NotificationBlockReason | null> {
    if (n.moment !== 'failed') {
      const order = await store.orders.findById(n.orderId);
      if (order?.status === 'cancelled') return 'cancelled_early';
    }
    if (deps.budget && n.attempts === 0 && isPhoneChannel(n.channel)) return deps.budget.take(n);
    return null;
  }

  async function attempt(n: Notification, owner: string): Promise<NotificationAttemptReport> {
    const blocked = await blockReasonOf(n);
    if (blocked) {
      await store.notifications.complete({ id: n.id, owner, attempts: n.attempts, status: 'blocked', blockReason: blocked, error: null, at: clock.now().toISOString(), nextAttemptAt: null });
      return { id: n.id, merchantId: n.merchantId, channel: n.channel, moment: n.moment, attempt: n.attempts, outcome: 'blocked', error: null, refusal: refusalOf(n, blocked) };
    }
    const number = n.attempts + 1;
    const configured = notifier.channels.includes(n.channel);
    const result = configured
      ? await notifier.send({ channel: n.channel, to: n.recipient, subject: n.subject, body: n.body, id: n.id })
      : { ok: false as const, error: channelNotConfigured(n.channel), permanent: true };
    const at = clock.now();
    const error = result.ok ? null : withoutRecipient(result.error, n.recipient);
    const giveUp = !result.ok && (result.permanent === true || number >= config.maxAttempts);
    const status = result.ok ? 'sent' : giveUp ? 'failed' : 'pending';
    await store.notifications.complete({
      id: n.id,
      owner,
      attempts: number,
      status,
      error,
      at: at.toISOString(),
      nextAttemptAt: status === 'pending' ? new Date(at.getTime() + notificationRetryDelayMs(number, config.retryScale)).toISOString() : null,
    });
    return { id: n.id, merchantId: n.merchantId, channel: n.channel, moment: n.moment, attempt: number, outcome: result.ok ? 'sent' : giveUp ? 'failed' : 'retry', error };
  }

  /** Claims what is due and sends it (in parallel); returns a report per attempt. */
  async function poll(options: { owner: string }): Promise<NotificationAttemptReport[]> {
    const due = await store.notifications.claimDue({ owner: options.owner, now: clock.now().toISOString(), leaseMs: config.leaseMs, limit: config.batch });
    return Promise.all(due.map((n) => attempt(n, options.owner)));
  }

  return { poll };
}
