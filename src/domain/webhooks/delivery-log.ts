import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
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

export type WebhookDeliveryLog = ReturnType<typeof createWebhookDeliveryLog>;

/** The merchant's view of deliveries: attempts, codes, latency, next retry; and redelivery. */
export function createWebhookDeliveryLog(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
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

  async function redeliver(options: { principal: MerchantPrincipal; id: string }) {
    const { delivery } = await getDelivery(options);
    await store.webhooks.requeue({ ids: [delivery.id], now: clock.now().toISOString(), ...scope(options.principal) });
    return (await store.webhooks.findDelivery({ id: delivery.id, ...scope(options.principal) }))!;
  }

  async function redeliverFailed(options: { principal: MerchantPrincipal; input: unknown }) {
    const input = parseInput(redeliverFailedSchema, options.input);
    return store.webhooks.requeue({
      status: 'failed', now: clock.now().toISOString(),
      createdFrom: new Date(input.created_from).toISOString(), createdTo: new Date(input.created_to).toISOString(),
      ...scope(options.principal),
    });
  }

  return { listDeliveries, getDelivery, redeliver, redeliverFailed };
}
