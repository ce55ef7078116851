import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';

export const RETENTION_LEASE = 'retention';
/** Deliveries deleted per store call: each call is one short transaction. */
const PRUNE_BATCH = 1000;
/** Leases and courier-location slots are removed this long after they ran out. */
const EXPIRED_LEASE_MARGIN_MS = 3_600_000;
/** Expired quotes are kept a day (an order naming one gets QUOTE_EXPIRED, not QUOTE_NOT_FOUND); MongoDB's TTL index agrees. */
export const EXPIRED_QUOTE_MARGIN_MS = 86_400_000;

export interface RetentionReport {
  /** Webhook deliveries deleted, with their attempts. */
  deliveries: number;
  /** Orders (over, past the age) whose events were deleted. */
  orderEvents: number;
  /** Leases and slots long run out. */
  leases: number;
  /** Feed events older than the deliveries' retention (`webhookMs`). */
  feedEvents: number;
  /** Idempotency records of writes past their 24 h. */
  idempotentWrites: number;
  /** Quotes expired for more than a day. */
  quotes: number;
  /** Team members' sessions past their absolute expiry and set-password links past theirs. */
  members: number;
}

export type Retention = ReturnType<typeof createRetention>;

/**
 * Storage retention: webhook deliveries (and their attempts) older than `webhookMs`, the events of
 * orders that are over and older than `orderEventsMs` (the orders stay), run-out leases, and quotes
 * expired for a day. One
 * node at a time runs it, under its own lease. On MongoDB the TTL indexes remove deliveries and
 * attempts too; this still runs there (order events depend on the order's status, which a TTL
 * index cannot see).
 */
export function createRetention(deps: { store: Store; clock: Clock; webhookMs: number; orderEventsMs: number }) {
  const { store, clock } = deps;

  async function pruneStorage(): Promise<RetentionReport> {
    const now = clock.now().getTime();
    const report: RetentionReport = { deliveries: 0, orderEvents: 0, leases: 0, quotes: 0, feedEvents: 0, idempotentWrites: 0, members: 0 };
    const deliveriesBefore = new Date(now - deps.webhookMs).toISOString();
    for (;;) {
      const n = await store.webhooks.prune({ createdBefore: deliveriesBefore, limit: PRUNE_BATCH });
      report.deliveries += n;
      if (n < PRUNE_BATCH) break;
    }
    for (;;) {
      const n = await store.events.prune({ createdBefore: deliveriesBefore, limit: PRUNE_BATCH });
      report.feedEvents += n;
      if (n < PRUNE_BATCH) break;
    }
    for (;;) {
      const n = await store.idempotentWrites.prune({ before: new Date(now).toISOString(), limit: PRUNE_BATCH });
      report.idempotentWrites += n;
      if (n < PRUNE_BATCH) break;
    }
    report.orderEvents = await store.orders.pruneEvents({ createdBefore: new Date(now - deps.orderEventsMs).toISOString() });
    report.leases = await store.leases.pruneExpired({ olderThanMs: EXPIRED_LEASE_MARGIN_MS });
    const quotesBefore = new Date(now - EXPIRED_QUOTE_MARGIN_MS).toISOString();
    for (;;) {
      const n = await store.quotes.prune({ expiredBefore: quotesBefore, limit: PRUNE_BATCH });
      report.quotes += n;
      if (n < PRUNE_BATCH) break;
    }
    report.members = await store.members.pruneExpired({ before: new Date(now).toISOString() });
    return report;
  }

  /** Prunes when this node holds (or takes) the lease; null when another node holds it. */
  async function pruneIfLeader(options: { owner: string; leaseMs: number }): Promise<RetentionReport | null> {
    if (!(await store.leases.acquire({ name: RETENTION_LEASE, owner: options.owner, ttlMs: options.leaseMs }))) return null;
    return pruneStorage();
  }

  return { pruneStorage, pruneIfLeader };
}
