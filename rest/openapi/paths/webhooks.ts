import { z } from 'zod';
import { createEndpointSchema, listDeliveriesSchema, redeliverFailedSchema, updateEndpointSchema } from '../../wire/webhooks.js';
import { RETRY_DELAYS_MIN } from '../../../src/domain/webhooks/worker.js';
import { registerEndpoint, registry } from '../registry.js';
import {
  batchCreatedPayloadSchema,
  eventPayloadSchema,
  flatPayloadSchema,
  webhookDeliveryDetailResponseSchema,
  webhookDeliveryListResponseSchema,
  webhookDeliveryResponseSchema,
  webhookEndpointDeletedResponseSchema,
  webhookEndpointListResponseSchema,
  webhookEndpointResponseSchema,
  webhookHeaderParameters,
  webhookPublicKeysResponseSchema,
  webhookRequeuedResponseSchema,
} from '../responses-webhooks.js';

const endpointId = z.object({ id: z.string().openapi({ example: 'we_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }) });
const deliveryId = z.object({ id: z.string().openapi({ description: 'The delivery id (its `webhook-id`).', example: 'msg_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }) });
const common = { tags: ['Webhooks'], auth: 'apiKey' as const, access: 'settings' as const };

registerEndpoint({
  ...common,
  method: 'post',
  path: '/webhooks',
  idempotent: true,
  operationId: 'createWebhookEndpoint',
  summary: 'Register a webhook endpoint (in the key\'s mode)',
  description: `Live URLs must be \`https\` and must not resolve to private, loopback or link-local addresses (checked again on
every send). Sandbox URLs may be \`http\`; private addresses only where the operator allows them. \`events\` defaults to
order.status_changed and batch.created (plus order.courier_location when the merchant setting \`webhook_courier_location\` is on);
\`payload_shape\` defaults to the merchant setting \`webhook_payload_shape\`. At most 10 endpoints per mode (409 CONFLICT).`,
  body: createEndpointSchema,
  bodyExample: { url: 'https://shop.example.com/hooks/express-delivery', events: ['order.status_changed'], payload_shape: 'event' },
  responses: { 201: { description: 'Created', schema: webhookEndpointResponseSchema } },
  errors: ['CONFLICT'],
});

registerEndpoint({
  ...common,
  method: 'get',
  path: '/webhooks',
  operationId: 'listWebhookEndpoints',
  summary: "The merchant's webhook endpoints in the key's mode",
  responses: { 200: { description: 'The endpoints, oldest first', schema: webhookEndpointListResponseSchema } },
});

registerEndpoint({
  ...common,
  method: 'get',
  path: '/webhooks/public-keys',
  operationId: 'listWebhookPublicKeys',
  summary: 'The Ed25519 public keys that verify `v1a` webhook signatures',
  description: `Endpoints created with \`signing: asymmetric\` are signed \`webhook-signature: v1a,<base64 Ed25519>\` over Standard
Webhooks' signed content (\`<webhook-id>.<webhook-timestamp>.<raw body>\`) instead of the HMAC \`v1\`, so a receiver holds no
secret. The key pair is the merchant's (both modes), made and rotated with the API secret: after a rotation both the new key and
the previous one (until its \`expires_at\`) sign every delivery, space-separated, and both are listed here. Fetch this list when
a signature verifies with none of the keys you hold.`,
  responses: { 200: { description: 'The keys in force, newest first', schema: webhookPublicKeysResponseSchema } },
});

registerEndpoint({
  ...common,
  method: 'get',
  path: '/webhooks/:id',
  operationId: 'getWebhookEndpoint',
  summary: 'One webhook endpoint, with why it is disabled when it is',
  params: endpointId,
  responses: { 200: { description: 'The endpoint', schema: webhookEndpointResponseSchema } },
  errors: ['NOT_FOUND'],
});

registerEndpoint({
  ...common,
  method: 'patch',
  path: '/webhooks/:id',
  idempotent: true,
  operationId: 'updateWebhookEndpoint',
  summary: 'Change an endpoint; `enabled: true` re-enables one that was disabled',
  params: endpointId,
  body: updateEndpointSchema,
  bodyExample: { enabled: true },
  responses: { 200: { description: 'The updated endpoint', schema: webhookEndpointResponseSchema } },
  errors: ['NOT_FOUND'],
});

registerEndpoint({
  ...common,
  method: 'delete',
  path: '/webhooks/:id',
  operationId: 'deleteWebhookEndpoint',
  summary: 'Delete an endpoint; its pending deliveries fail',
  params: endpointId,
  responses: { 200: { description: 'Deleted', schema: webhookEndpointDeletedResponseSchema } },
  errors: ['NOT_FOUND'],
});

registerEndpoint({
  ...common,
  method: 'get',
  path: '/webhooks/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: 'The delivery log, newest first',
  description: 'Each delivery with its status, attempts, last status code, error and latency, and when the next retry is due.',
  query: listDeliveriesSchema,
  responses: { 200: { description: 'One page of deliveries', schema: webhookDeliveryListResponseSchema } },
});

registerEndpoint({
  ...common,
  method: 'get',
  path: '/webhooks/deliveries/:id',
  operationId: 'getWebhookDelivery',
  summary: 'One delivery and every attempt made',
  params: deliveryId,
  responses: { 200: { description: 'The delivery and its attempts', schema: webhookDeliveryDetailResponseSchema } },
  errors: ['NOT_FOUND'],
});

registerEndpoint({
  ...common,
  method: 'post',
  path: '/webhooks/deliveries/:id/redeliver',
  idempotent: true,
  operationId: 'redeliverWebhook',
  summary: 'Send one delivery again now (same webhook-id and body; the attempt count restarts)',
  params: deliveryId,
  responses: { 200: { description: 'Queued again', schema: webhookDeliveryResponseSchema } },
  errors: ['NOT_FOUND'],
});

registerEndpoint({
  ...common,
  method: 'post',
  path: '/webhooks/deliveries/redeliver-failed',
  idempotent: true,
  operationId: 'redeliverFailedWebhooks',
  summary: 'Send again the failed deliveries created in a time range (at most 31 days; 1,000 per call)',
  description:
    'Requeues at most 1,000 failed deliveries per call, newest first; `more` tells whether others remain (call again). ' +
    'At most 10 calls per hour per merchant and mode (across every node): beyond that, 429 `RATE_LIMITED` with `Retry-After`.',
  body: redeliverFailedSchema,
  bodyExample: { created_from: '2025-01-30T00:00:00Z', created_to: '2025-01-31T00:00:00Z' },
  responses: { 200: { description: 'How many were queued again', schema: webhookRequeuedResponseSchema } },
});

// --- What the merchant's server receives (OpenAPI 3.1 `webhooks`) -------------------------------

const DELIVERY_RULES = `Signed per Standard Webhooks (see the \`webhook-*\` header parameters). Answer any 2xx within 5 s;
anything else (redirects included: they are not followed) or no answer is retried ${RETRY_DELAYS_MIN.length} times after
${RETRY_DELAYS_MIN.join(', ')} minutes (±10 % jitter), about 24 h in all, then the delivery is \`failed\` (see the delivery log).
De-duplicate on \`webhook-id\`; order changes of one order by \`sequence\`.`;

const orderPayload = z.union([eventPayloadSchema, flatPayloadSchema]);
const acknowledged = { 200: { description: 'Any 2xx acknowledges the delivery.' } };
/** What every webhook operation shares: no credentials of ours (the receiver checks the signature headers), the headers, the body. */
const delivered = (schema: z.ZodType) => ({
  security: [],
  parameters: webhookHeaderParameters,
  request: { body: { required: true, content: { 'application/json': { schema } } } },
});

registry.registerWebhook({
  method: 'post',
  path: 'order.status_changed',
  operationId: 'webhookOrderStatusChanged',
  summary: 'An order changed status (creation and cancellation included)',
  description: `${DELIVERY_RULES}\n\nThe body follows the endpoint's \`payload_shape\`: \`event\` (spec shape 2) or \`flat\` (spec shape 1).`,
  tags: ['Webhooks'],
  ...delivered(orderPayload),
  responses: acknowledged,
});

registry.registerWebhook({
  method: 'post',
  path: 'order.courier_location',
  operationId: 'webhookOrderCourierLocation',
  summary: "The courier of an active order moved (opt-in; at most one per order every 20 s)",
  description: `${DELIVERY_RULES}\n\nThe \`event\` shape adds \`location\`; the \`flat\` shape adds \`lat\` and \`lng\`.`,
  tags: ['Webhooks'],
  ...delivered(orderPayload),
  responses: acknowledged,
});

registry.registerWebhook({
  method: 'post',
  path: 'order.eta_changed',
  operationId: 'webhookOrderEtaChanged',
  summary: 'The live delivery estimate of an active order moved by 3 minutes or more (opt-in; at most one per order every 2 minutes)',
  description: `${DELIVERY_RULES}\n\nThe estimate follows the courier's reported positions (road distance left at the vehicle's
speed plus the stops before this drop-off); this event is sent when it moves by 3 minutes or more from the estimate last
announced. Both shapes add \`eta\` (\`previous\`, \`current\`, \`reason\`); \`sequence\` is the order's current one (an ETA change
is not a status change). Subscribe by listing \`order.eta_changed\` in the endpoint's \`events\`.`,
  tags: ['Webhooks'],
  ...delivered(orderPayload),
  responses: acknowledged,
});

registry.registerWebhook({
  method: 'post',
  path: 'order.tip_added',
  operationId: 'webhookOrderTipAdded',
  summary: 'A tip was added to an order (POST /orders/{id}/tip, or GraphQL addTip)',
  description: `${DELIVERY_RULES}\n\nBoth shapes add \`tip\` (\`amount\` added now, \`total\` the order's tip since, \`currency\`);
\`sequence\` is the order's current one (a tip is not a status change), and the status-change details (proof, fees, attempts)
are not repeated. A tip set at creation is the order's \`tip\` from the start, with no event of its own. Also an event of the
merchant's feed (GET /events). Subscribe by listing \`order.tip_added\` in the endpoint's \`events\`.`,
  tags: ['Webhooks'],
  ...delivered(orderPayload),
  responses: acknowledged,
});

registry.registerWebhook({
  method: 'post',
  path: 'order.stop_status_changed',
  operationId: 'webhookOrderStopStatusChanged',
  summary: 'A stop of a multi-stop order changed status (pending → arrived → delivered or failed)',
  description: `${DELIVERY_RULES}\n\nSent with the order change that moved the stop (the same \`sequence\`), one per stop that moved.
Both shapes add \`stop\` (id, index in the route, status, ETA, proof once delivered, failure once failed, \`pin_verified\`)
and \`stops_total\`; the rest is the order as in order.status_changed. Subscribe by listing \`order.stop_status_changed\` in the endpoint's \`events\`.`,
  tags: ['Webhooks'],
  ...delivered(orderPayload),
  responses: acknowledged,
});

registry.registerWebhook({
  method: 'post',
  path: 'batch.created',
  operationId: 'webhookBatchCreated',
  summary: 'Consolidation created a batch of orders',
  description: DELIVERY_RULES,
  tags: ['Webhooks'],
  ...delivered(batchCreatedPayloadSchema),
  responses: acknowledged,
});
