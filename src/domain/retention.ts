import { setImmediate, setTimeout } from 'node:timers/promises';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { whileHoldingLease } from './lease-holder.js';

export const RETENTION_LEASE = 'retention';
/**
 * Rows deleted per store call. Each call is one short transaction (on SQLite, synchronous: the
 * event loop waits for it), and the run yields to the event loop between calls, so no call holds
 * it for long at any store size (bench:growth measures the longest stall).
 */
export const PRUNE_BATCH = 100;
/**
 * Free pages given back to the filesystem per store call after the prune (SQLite: one
 * `incremental_vacuum` step, a few milliseconds; 1 MiB of 4 KiB pages).
 */
export const RECLAIM_STEP_PAGES = 256;
/** The longest pause between two steps (a step slowed by a busy machine does not stretch the run further). */
const MAX_REST_MS = 50;
/** Leases and courier-location slots are removed this long after they ran out. */
const EXPIRED_LEASE_MARGIN_MS = 3_600_000;
/** Expired quotes are kept a day (an order naming one gets QUOTE_EXPIRED, not QUOTE_NOT_FOUND); MongoDB's TTL index agrees. */
export const EXPIRED_QUOTE_MARGIN_MS = 86_400_000;

/** AUDIT_RETENTION_DAYS' default: two years. */
export const DEFAULT_AUDIT_RETENTION_MS = 730 * 86_400_000;

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
  /** Hosted proofs older than PROOF_RETENTION_DAYS, and expired courier app sessions and sign-in codes (issue #27). */
  proofs: number;
  /** Uploads no delivery referred to, removed PROOF_UNUSED_HOURS after they came (issue #39). */
  unusedProofs: number;
  /** Upload budget counters past their expiry (issue #39). */
  proofBudgets: number;
  courierSessions: number;
  /** Team members' sessions past their absolute expiry and set-password links past theirs. */
  members: number;
  /** Recipient notifications older than `notificationMs` (sent, failed or sandboxed alike). */
  notifications: number;
  /** Operators' sessions and set-password links past their expiry. */
  operators: number;
  /** Audit log entries older than `auditMs`. */
  audit: number;
  /** Free pages of the store's file given back to the filesystem after the prune (SQLite). */
  freedPages: number;
}

type Batched = Exclude<keyof RetentionReport, 'leases' | 'freedPages'>;

export type Retention = ReturnType<typeof createRetention>;

/**
 * Storage retention: webhook deliveries (and their attempts) older than `webhookMs`, the events of
 * orders that are over and older than `orderEventsMs` (the orders stay), run-out leases, and quotes
 * expired for a day. One node at a time runs it, under its own lease. On MongoDB the TTL indexes
 * remove deliveries and attempts too; this still runs there (order events depend on the order's
 * status, which a TTL index cannot see).
 *
 * A run is a sequence of bounded steps (`batchSize` rows each, found by a seek), with a turn of the
 * event loop between two steps. Every step commits on its own and never looks again at what an
 * earlier one did, so a run stopped anywhere (shutdown, crash, lease lost) loses nothing: the next
 * run goes on from there, and a run with nothing to delete costs a few seeks. Last, the pages the
 * prune freed go back to the filesystem in steps of RECLAIM_STEP_PAGES (store.reclaimSpace).
 */
export function createRetention(deps: {
  store: Store;
  clock: Clock;
  webhookMs: number;
  orderEventsMs: number;
  notificationMs?: number;
  auditMs?: number;
  batchSize?: number;
  /** One bounded step of hosted-proof retention (issue #27). */
  pruneProofs?: (options: { limit: number }) => Promise<number>;
  /** One bounded step of the unused-upload sweep (issue #39): how many it looked at, how many it removed. */
  sweepUnusedProofs?: (options: { limit: number }) => Promise<{ checked: number; removed: number }>;
}) {
  const { store, clock } = deps;
  const limit = deps.batchSize ?? PRUNE_BATCH;

  /**
   * One run. `signal`: stop after the step in progress. `keepGoing`: asked between steps (the
   * runner renews its lease there); false stops the run.
   */
  async function pruneStorage(options: { signal?: AbortSignal; keepGoing?: () => Promise<boolean> } = {}): Promise<RetentionReport> {
    const now = clock.now().getTime();
    const report: RetentionReport = { deliveries: 0, orderEvents: 0, leases: 0, quotes: 0, feedEvents: 0, idempotentWrites: 0, members: 0, notifications: 0, operators: 0, audit: 0, proofs: 0, unusedProofs: 0, proofBudgets: 0, courierSessions: 0, freedPages: 0 };
    const notificationsBefore = new Date(now - (deps.notificationMs ?? deps.webhookMs)).toISOString();
    const deliveriesBefore = new Date(now - deps.webhookMs).toISOString();
    const eventsBefore = new Date(now - deps.orderEventsMs).toISOString();
    const quotesBefore = new Date(now - EXPIRED_QUOTE_MARGIN_MS).toISOString();
    const nowIso = new Date(now).toISOString();
    const auditBefore = new Date(now - (deps.auditMs ?? DEFAULT_AUDIT_RETENTION_MS)).toISOString();
    /** A step answers how many rows it removed, or how many it looked at and removed (a batch may keep some). */
    const steps: Array<[Batched, () => Promise<number | { checked: number; removed: number }>]> = [
      ['deliveries', () => store.webhooks.prune({ createdBefore: deliveriesBefore, limit })],
      ['feedEvents', () => store.events.prune({ createdBefore: deliveriesBefore, limit })],
      ['idempotentWrites', () => store.idempotentWrites.prune({ before: nowIso, limit })],
      ['orderEvents', () => store.orders.pruneEvents({ createdBefore: eventsBefore, limit })],
      ['quotes', () => store.quotes.prune({ expiredBefore: quotesBefore, limit })],
      ['members', () => store.members.pruneExpired({ before: nowIso, limit })],
      ['notifications', () => store.notifications.prune({ createdBefore: notificationsBefore, limit })],
      ['operators', () => store.operators.pruneExpired({ before: nowIso, limit })],
      ['audit', () => store.audit.prune({ before: auditBefore, limit })],
      ['courierSessions', () => store.courierSessions.pruneExpired({ before: nowIso, limit })],
      ['proofs', () => deps.pruneProofs?.({ limit }) ?? Promise.resolve(0)],
      ['unusedProofs', () => deps.sweepUnusedProofs?.({ limit }) ?? Promise.resolve(0)],
      ['proofBudgets', () => store.proofBudgets.prune({ before: nowIso, limit })],
    ];
    const stopped = async () => options.signal?.aborted || (options.keepGoing && !(await options.keepGoing()));
    report.leases = await store.leases.pruneExpired({ olderThanMs: EXPIRED_LEASE_MARGIN_MS });
    let rest = 0;
    for (const [kind, step] of steps) {
      for (;;) {
        // As long a pause as the last step took: other work runs meanwhile, and so does the WAL
        // checkpointer, which then keeps up (a backlog is copied on the event loop, see checkpointer.ts).
        await (rest > 0 ? setTimeout(rest) : setImmediate());
        if (await stopped()) return report;
        const started = performance.now();
        const n = await step();
        rest = Math.min(performance.now() - started, MAX_REST_MS);
        report[kind] += typeof n === 'number' ? n : n.removed;
        if ((typeof n === 'number' ? n : n.checked) < limit) break;
      }
    }
    // What the prune freed goes back to the filesystem in steps as short as the prune's.
    for (;;) {
      await (rest > 0 ? setTimeout(rest) : setImmediate());
      if (await stopped()) return report;
      const started = performance.now();
      const freed = await store.reclaimSpace({ maxPages: RECLAIM_STEP_PAGES });
      rest = Math.min(performance.now() - started, MAX_REST_MS);
      report.freedPages += freed;
      if (freed < RECLAIM_STEP_PAGES) break;
    }
    return report;
  }

  /**
   * Prunes when this node holds (or takes) the lease; null when another node holds it. While the run
   * goes on a heartbeat renews the lease (every third of `leaseMs`); the run stops after its step in
   * progress if a renewal fails (src/domain/lease-holder.ts).
   */
  async function pruneIfLeader(options: { owner: string; leaseMs: number; signal?: AbortSignal }): Promise<RetentionReport | null> {
    return whileHoldingLease({
      leases: store.leases,
      name: RETENTION_LEASE,
      owner: options.owner,
      ttlMs: options.leaseMs,
      signal: options.signal,
      work: (signal) => pruneStorage({ signal }),
    });
  }

  /** Gives the lease up (at shutdown): another node, or this one restarted, prunes at its next period. */
  async function stepDown(options: { owner: string }): Promise<void> {
    await store.leases.release({ name: RETENTION_LEASE, owner: options.owner });
  }

  return { pruneStorage, pruneIfLeader, stepDown };
}
