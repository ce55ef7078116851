/** The REST wire form of the webhook commands and the delivery-log query, mapped in one step each; also the OpenAPI bodies. */
import { z } from 'zod';
import {
  DELIVERY_PAGE_MAX,
  listDeliveriesQuerySchema,
  REDELIVERY_RANGE_RULES,
  type ListDeliveriesQuery,
  type RedeliverFailedCommand,
} from '../../src/domain/webhooks/delivery-log.js';
import { createEndpointCommandSchema, type CreateEndpointCommand, type UpdateEndpointCommand } from '../../src/domain/webhooks/endpoints.js';
import { parseInput } from '../../src/domain/validation.js';

const endpoint = createEndpointCommandSchema.shape;
const endpointFields = {
  url: endpoint.url,
  description: endpoint.description,
  events: endpoint.events,
  payload_shape: endpoint.payloadShape,
  signing: endpoint.signing,
  enabled: endpoint.enabled,
};
export const createEndpointSchema = z.strictObject(endpointFields);
export const updateEndpointSchema = z
  .strictObject(endpointFields)
  .extend({ url: endpointFields.url.optional() })
  .refine((v) => Object.keys(v).length > 0, { message: 'at least one field is required' });

type EndpointBody = Partial<z.output<typeof createEndpointSchema>>;
const endpointCommand = (b: EndpointBody) => ({ url: b.url, description: b.description, events: b.events, payloadShape: b.payload_shape, signing: b.signing, enabled: b.enabled });

export function createEndpointCommand(body: unknown): CreateEndpointCommand {
  const b = parseInput(createEndpointSchema, body);
  return Object.assign(endpointCommand(b), { url: b.url });
}

export function updateEndpointCommand(body: unknown): UpdateEndpointCommand {
  return endpointCommand(parseInput(updateEndpointSchema, body));
}

const list = listDeliveriesQuerySchema.shape;
export const listDeliveriesSchema = z.strictObject({
  endpoint_id: list.endpointId,
  status: list.status,
  created_from: list.createdFrom,
  created_to: list.createdTo,
  after: list.after,
  limit: z.coerce.number().int().min(1).max(DELIVERY_PAGE_MAX).default(20),
});

export function listDeliveriesQuery(query: unknown): ListDeliveriesQuery {
  const q = parseInput(listDeliveriesSchema, query);
  return { endpointId: q.endpoint_id, status: q.status, createdFrom: q.created_from, createdTo: q.created_to, after: q.after, limit: q.limit };
}

const datetime = z.iso.datetime({ offset: true });
/** Redeliver every failed delivery created in a time range (both bounds required, at most 31 days). */
export const redeliverFailedSchema = z.strictObject({ created_from: datetime, created_to: datetime }).superRefine((v, ctx) => {
  for (const rule of REDELIVERY_RANGE_RULES) {
    if (!rule.ok(v.created_from, v.created_to)) ctx.addIssue({ code: 'custom', message: rule.message(['created_from', 'created_to']), path: ['created_to'] });
  }
});

export function redeliverFailedCommand(body: unknown): RedeliverFailedCommand {
  const b = parseInput(redeliverFailedSchema, body);
  return { createdFrom: b.created_from, createdTo: b.created_to };
}
