import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import type { WebhookDelivery } from '../types.js';
import { parseInput } from '../validation.js';

export const listDeliveriesSchema = z.strictObject({
  endpoint_id: z.string().trim().min(1).max(64).optional(),
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  created_from: z.iso.datetime({ offset: true }).optional(),
  created_to: z.iso.datetime({ offset: true }).optional(),
  after: z.string().trim().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** Redeliver every failed delivery created in a time range (both bounds required, at most 31 days). */
export const redeliverFailedSchema = z
  .strictObject({ created_from: z.iso.datetime({ offset: true }), created_to: z.iso.datetime({ offset: true }) })
  .refine((v) => Date.parse(v.created_to) > Date.parse(v.created_from), { message: 'created_to must be after created_from', path: ['created_to'] })
  .refine((v) => Date.parse(v.created_to) - Date.parse(v.created_from) <= 31 * 86_400_000, { message: 'at most 31 days at once', path: ['created_to'] });

/**
 * Bulk redelivery is bounded: each requeued delivery can cost its endpoint a full retry schedule.
 * Per call at most `batch` failed deliveries (newest first; the answer says whether more remain),
 * and at most `perHour` calls per merchant and mode, counted in the rate-limit store (shared by
 * every node in distributed mode).
 */
export const REDELIVER_FAILED_LIMITS = { batch: 1000, perHour: 10 };

export type WebhookDeliveryLog = ReturnType<typeof createWebhookDeliveryLog>;

/** The merchant's view of deliveries: attempts, codes, latency, next retry; and redelivery. */
export function createWebhookDeliveryLog(deps: { store: Store; clock: Clock; rateLimiter: RateLimiter; limits?: typeof REDELIVER_FAILED_LIMITS }) {
  const { store, clock, rateLimiter } = deps;
  const limits = deps.limits ?? REDELIVER_FAILED_LIMITS;
  const scope = (p: MerchantPrincipal) => ({ merchantId: p.merchant.id, mode: p.mode });

  async function listDeliveries(options: { principal: MerchantPrincipal; input: unknown }) {
    const input = parseInput(listDeliveriesSchema, options.input);
    const rows = await store.webhooks.listDeliveries({
      limit: input.limit + 1,
      ...scope(options.principal),
      ...(input.endpoint_id && { endpointId: input.endpoint_id }),
      ...(input.status && { status: input.status }),
      ...(input.created_from && { createdFrom: new Date(input.created_from).toISOString() }),
      ...(input.created_to && { createdTo: new Date(input.created_to).toISOString() }),
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

  async function redeliver(options: { principal: MerchantPrincipal; id: string }) {
    const { delivery } = await getDelivery(options);
    await store.webhooks.requeue({ ids: [delivery.id], now: clock.now().toISOString(), ...scope(options.principal) });
    return (await store.webhooks.findDelivery({ id: delivery.id, ...scope(options.principal) }))!;
  }

  /** Requeues the failed deliveries of a time range, newest first, up to the per-call bound. */
  async function redeliverFailed(options: { principal: MerchantPrincipal; input: unknown }) {
    const input = parseInput(redeliverFailedSchema, options.input);
    const { merchantId, mode } = scope(options.principal);
    const budget = await rateLimiter.consume({ key: `redeliver-failed:${merchantId}:${mode}`, limitPerMin: limits.perHour, windowSeconds: 3600 });
    if (!budget.allowed) {
      const seconds = Math.max(1, Math.ceil(budget.resetMs / 1000));
      throw new AppError('RATE_LIMITED', `At most ${limits.perHour} bulk redeliveries per hour; retry in ${seconds} s`, { details: { retry_after_seconds: seconds } });
    }
    const failed = await store.webhooks.listDeliveries({
      merchantId, mode, status: 'failed', limit: limits.batch + 1,
      createdFrom: new Date(input.created_from).toISOString(), createdTo: new Date(input.created_to).toISOString(),
    });
    const ids = failed.slice(0, limits.batch).map((d) => d.id);
    // `status` again: a delivery requeued meanwhile by another call is not reset twice.
    const requeued = await store.webhooks.requeue({ merchantId, mode, ids, status: 'failed', now: clock.now().toISOString() });
    return { requeued, more: failed.length > limits.batch, limit: limits.batch };
  }

  return { listDeliveries, getDelivery, attemptsOf, redeliver, redeliverFailed };
}
