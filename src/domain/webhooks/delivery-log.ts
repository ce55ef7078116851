import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { idCursorSchema } from '../cursors.js';
import { AppError } from '../errors.js';
import type { WebhookDelivery } from '../types.js';
import { WEBHOOK_DELIVERY_STATUSES } from '../vocabulary.js';
import { assertPermitted } from '../members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from '../idempotency.js';

export const DELIVERY_PAGE_MAX = 100;

/** The delivery log, filtered (REST maps its query string onto it in rest/wire/webhooks.ts). */
export const listDeliveriesQuerySchema = z.strictObject({
  endpointId: z.string().trim().min(1).max(64).optional(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
  createdFrom: z.iso.datetime({ offset: true }).optional(),
  createdTo: z.iso.datetime({ offset: true }).optional(),
  /** The `next_cursor` of the previous page (a delivery id). */
  after: idCursorSchema('msg').optional(),
  limit: z.number().int().min(1).max(DELIVERY_PAGE_MAX).default(20),
});
export type ListDeliveriesQuery = z.output<typeof listDeliveriesQuerySchema>;

const datetime = z.iso.datetime({ offset: true });
/** The rules of a bulk redelivery's range (each transport names the fields its own way). */
export const REDELIVERY_RANGE_RULES = [
  { ok: (from: string, to: string) => Date.parse(to) > Date.parse(from), message: (names: [string, string]) => `${names[1]} must be after ${names[0]}` },
  { ok: (from: string, to: string) => Date.parse(to) - Date.parse(from) <= 31 * 86_400_000, message: () => 'at most 31 days at once' },
];

/** Redeliver every failed delivery created in a time range (both bounds required, at most 31 days). */
export const redeliverFailedCommandSchema = z.strictObject({ createdFrom: datetime, createdTo: datetime }).superRefine((v, ctx) => {
  for (const rule of REDELIVERY_RANGE_RULES) {
    if (!rule.ok(v.createdFrom, v.createdTo)) ctx.addIssue({ code: 'custom', message: rule.message(['createdFrom', 'createdTo']), path: ['createdTo'] });
  }
});
export type RedeliverFailedCommand = z.output<typeof redeliverFailedCommandSchema>;

/**
 * Bulk redelivery is bounded: each requeued delivery can cost its endpoint a full retry schedule.
 * Per call at most `batch` failed deliveries (newest first; the answer says whether more remain),
 * and at most `perHour` calls per merchant and mode, counted in the rate-limit store (shared by
 * every node in distributed mode).
 */
export const REDELIVER_FAILED_LIMITS = { batch: 1000, perHour: 10 };

export type WebhookDeliveryLog = ReturnType<typeof createWebhookDeliveryLog>;

/** The operations of the redelivery commands' idempotency records. */
export const REDELIVER = 'webhooks.redeliver';
export const REDELIVER_FAILED = 'webhooks.redeliverFailed';

/** The merchant's view of deliveries: attempts, codes, latency, next retry; and redelivery. */
export function createWebhookDeliveryLog(deps: { store: Store; clock: Clock; rateLimiter: RateLimiter; limits?: typeof REDELIVER_FAILED_LIMITS; idempotency: IdempotencyService }) {
  const { store, clock, rateLimiter, idempotency } = deps;
  const limits = deps.limits ?? REDELIVER_FAILED_LIMITS;
  const scope = (p: MerchantPrincipal) => ({ merchantId: p.merchant.id, mode: p.mode });

  async function listDeliveries(options: { principal: MerchantPrincipal; input: ListDeliveriesQuery }) {
    const { input } = options;
    const rows = await store.webhooks.listDeliveries({
      limit: input.limit + 1,
      ...scope(options.principal),
      ...(input.endpointId && { endpointId: input.endpointId }),
      ...(input.status && { status: input.status }),
      ...(input.createdFrom && { createdFrom: new Date(input.createdFrom).toISOString() }),
      ...(input.createdTo && { createdTo: new Date(input.createdTo).toISOString() }),
      ...(input.after && { after: input.after }),
    });
    const page = rows.slice(0, input.limit);
    return { deliveries: page, nextCursor: rows.length > input.limit ? page.at(-1)!.id : null };
  }

  async function getDelivery(options: { principal: MerchantPrincipal; id: string }) {
    const delivery = await store.webhooks.findDelivery({ id: options.id, ...scope(options.principal) });
    if (!delivery) throw new AppError('NOT_FOUND', 'No such webhook delivery');
    return { delivery, attempts: await store.webhooks.listAttempts(delivery.id) };
  }

  /** The attempts of a delivery the caller already holds (read through one of the calls above). */
  async function attemptsOf(options: { delivery: Pick<WebhookDelivery, 'id'> }) {
    return store.webhooks.listAttempts(options.delivery.id);
  }

  async function redeliver(options: { principal: MerchantPrincipal; id: string } & IdempotentCall) {
    const { principal, id } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, REDELIVER), request: { id } }, async () => {
      assertPermitted(principal, 'dispatch');
      const { delivery } = await getDelivery({ principal, id });
      await store.webhooks.requeue({ ids: [delivery.id], now: clock.now().toISOString(), ...scope(principal) });
      return (await store.webhooks.findDelivery({ id: delivery.id, ...scope(principal) }))!;
    });
  }

  /** Requeues the failed deliveries of a time range, newest first, up to the per-call bound. */
  async function redeliverFailed(options: { principal: MerchantPrincipal; input: RedeliverFailedCommand } & IdempotentCall) {
    const { principal, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, REDELIVER_FAILED), request: { input } }, () => requeueFailed({ principal, input }));
  }

  async function requeueFailed(options: { principal: MerchantPrincipal; input: RedeliverFailedCommand }) {
    assertPermitted(options.principal, 'dispatch');
    const { input } = options;
    const { merchantId, mode } = scope(options.principal);
    const budget = await rateLimiter.consume({ key: `redeliver-failed:${merchantId}:${mode}`, limitPerMin: limits.perHour, windowSeconds: 3600 });
    if (!budget.allowed) {
      const seconds = Math.max(1, Math.ceil(budget.resetMs / 1000));
      throw new AppError('RATE_LIMITED', `At most ${limits.perHour} bulk redeliveries per hour; retry in ${seconds} s`, { details: { retry_after_seconds: seconds } });
    }
    const failed = await store.webhooks.listDeliveries({
      merchantId, mode, status: 'failed', limit: limits.batch + 1,
      createdFrom: new Date(input.createdFrom).toISOString(), createdTo: new Date(input.createdTo).toISOString(),
    });
    const ids = failed.slice(0, limits.batch).map((d) => d.id);
    // `status` again: a delivery requeued meanwhile by another call is not reset twice.
    const requeued = await store.webhooks.requeue({ merchantId, mode, ids, status: 'failed', now: clock.now().toISOString() });
    return { requeued, more: failed.length > limits.batch, limit: limits.batch };
  }

  return { listDeliveries, getDelivery, attemptsOf, redeliver, redeliverFailed };
}
