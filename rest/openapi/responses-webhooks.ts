/**
 * Wire shapes of the webhook endpoint and delivery-log responses (rest/presenters/webhook.ts), of
 * the sandbox advance response, and of what we POST to merchants (both payload shapes and the
 * Standard Webhooks headers), for the OpenAPI document. Request schemas are the domain's own.
 */
import { z } from 'zod';
import { ORDER_STATUSES, VEHICLE_TYPES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_SIGNINGS } from '../../src/domain/types.js';
import { ETA_CHANGE_REASONS } from '../../src/domain/webhooks/payloads.js';
import { codCollectionSchema, stopEventSchema, deliveryProofSchema, failedAttemptSchema, latLngWireSchema } from './responses-orders.js';
import { absent, registry } from './registry.js';

const timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2025-01-31T14:05:00.000Z' });
const eventType = z.enum(WEBHOOK_EVENT_TYPES);
const bookingId = z.string().openapi({ description: 'The order identifier: `bk_` + ULID.', example: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' });
const sequence = z
  .number()
  .int()
  .min(1)
  .openapi({ description: 'Per-order sequence: 1 for the creation, +1 per transition; the `sequence` of GET /orders/{id}/events.' });

// --- What merchants receive: the bodies ----------------------------------------------------------

const webhookProof = deliveryProofSchema.optional().openapi({ description: 'The status change to `completed` (flat: `delivered`) only: the delivery proof, with its geofence outcome.' });

const webhookCancellationFee = z.number().int().min(0).optional().openapi({ description: 'The status change to `cancelled` only: CLP kept on cancelling (0: free), as in the cancel response. Test mode: computed the same, never charged.' });

/** A failed delivery attempt's changes (issue #30): the same fields in both shapes. */
const webhookAttemptFields = {
  failed_attempt: failedAttemptSchema.optional().openapi({ description: 'The changes to `delivery_failed`, `returning` and `disposed` only: the failed attempt that led to them.' }),
  attempts: z.number().int().min(1).optional().openapi({ description: 'With failed_attempt: the failed attempts of the order so far.' }),
  return_fee: z.number().int().min(0).optional().openapi({ description: "The change to `returning` only: CLP, the tariff's return fee. Test mode: computed the same, never charged." }),
  return_proof: deliveryProofSchema.optional().openapi({ description: 'The change to `returned` only: the proof at the pickup.' }),
};

/** A cash-on-delivery order's status changes (issue #30): the same fields in both shapes. */
const webhookCodFields = {
  cod_amount: z.number().int().nullable().optional().openapi({ description: 'Cash-on-delivery orders only: CLP the courier collects at the door; null when the order gave none (amount unknown).' }),
  cod: codCollectionSchema.optional().openapi({ description: 'Cash-on-delivery orders, from the change to `completed` (flat: `delivered`) on: what was collected; `mismatch: true` when it differs from cod_amount.' }),
};

/** order.stop_status_changed only (issue #30): the stop of a multi-stop order that moved. */
const webhookStopFields = {
  stop: stopEventSchema
    .extend({ pin_verified: z.boolean().openapi({ description: 'Delivered with the stop\'s own PIN (created with `delivery_pin: true`).' }) })
    .optional()
    .openapi({ description: 'order.stop_status_changed only: the stop that moved (never its PIN, address or contact).' }),
  stops_total: z.number().int().min(1).max(10).optional().openapi({ description: 'order.stop_status_changed only: how many stops the order has.' }),
};

/** order.eta_changed only: the live ETA moved. */
const etaChange = registry
  .register(
    'WebhookEtaChange',
    z.object({
      previous: timestamp.openapi({ description: 'The delivery estimate last announced (before any announcement: the one the order had when the live ETA began).' }),
      current: timestamp.openapi({ description: 'The new delivery estimate (the order\'s `estimated_delivery_time` now).' }),
      reason: z.enum(ETA_CHANGE_REASONS).openapi({
        description: '`pickup_delayed`: the parcel is not picked up yet and the estimate grew; `courier_position`: the courier\'s progress moved it.',
      }),
    }),
  )
  .optional()
  .openapi({ description: 'order.eta_changed only: the estimate moved by 3 minutes or more (at most once per order every 2 minutes).' });

/** order.tip_added only: the tip added now and the order's tip since. */
const tipAdded = registry
  .register(
    'WebhookTipAdded',
    z.object({
      amount: z.number().int().min(1).max(200_000).openapi({ description: 'CLP added now.', example: 2000 }),
      total: z.number().int().min(1).max(200_000).openapi({ description: "CLP: the order's tip after this addition (as `tip` in GET /orders/{id}).", example: 3000 }),
      currency: z.literal('CLP'),
    }),
  )
  .optional()
  .openapi({ description: 'order.tip_added only: a tip was added to the order (live mode: charged to the merchant, paid to the courier; test mode: never charged).' });

const driverImage = z.string().openapi({ description: 'URL of the courier image; empty string while no courier is assigned.' });

export const flatPayloadSchema = registry.register(
  'WebhookPayloadFlat',
  z
    .object({
      order_id: z
        .number()
        .int()
        .min(1_000_000_000)
        .max(9_999_999_999)
        .openapi({ description: 'The numeric order number (10 digits: a 64-bit integer).', example: 4820193746 }),
      ecommerce_order_id: z.string().openapi({ description: 'The shop order id; empty string when none.' }),
      booking_id: bookingId,
      reference: z.string().openapi({ description: "The merchant's reference_id, else the tracking number." }),
      status: z
        .enum([...ORDER_STATUSES.map((s) => (s === 'completed' ? 'delivered' : s))] as [string, ...string[]])
        .openapi({ description: 'The order status; `completed` is reported as `delivered` in this shape.' }),
      driver_name: z.string().openapi({ description: 'Empty string while no courier is assigned.' }),
      driver_phone: z.string(),
      driver_image: driverImage,
      vehicle_model: z.string().openapi({ example: 'Motorcycle' }),
      vehicle_number: z.string().openapi({ description: 'The plate.', example: 'ABCD12' }),
      tracking_url: z.string().openapi({ example: 'https://delivery.example.com/track/TRK7Q2M4X9' }),
      sequence,
      timestamp: timestamp.openapi({ description: 'When the change happened (or the courier position was taken).' }),
      lat: z.number().optional().openapi({ description: 'order.courier_location only: the courier position.' }),
      lng: z.number().optional().openapi({ description: 'order.courier_location only.' }),
      eta: etaChange,
      tip: tipAdded,
      proof: webhookProof,
      cancellation_fee: webhookCancellationFee,
      ...webhookAttemptFields,
      ...webhookCodFields,
      ...webhookStopFields,
      event: absent('Not in this shape: a flat body has no `event` (the `webhook-event` header names it), so `event` tells the three bodies apart.'),
    })
    .openapi({ description: 'Spec shape 1 (`payload_shape: flat`), plus `sequence` and `timestamp` (and `lat`/`lng` for positions, `eta` for ETA changes, `tip` for tips).' }),
);

export const eventPayloadSchema = registry.register(
  'WebhookPayloadEvent',
  z
    .object({
      event: z.enum(['order.status_changed', 'order.courier_location', 'order.eta_changed', 'order.tip_added', 'order.stop_status_changed']),
      booking_id: bookingId,
      status: z.enum(ORDER_STATUSES),
      timestamp,
      driver: z.object({ name: z.string(), phone: z.string() }).nullable().openapi({ description: 'null while no courier is assigned.' }),
      sequence,
      location: latLngWireSchema.optional().openapi({ description: 'order.courier_location only: the courier position.' }),
      eta: etaChange,
      tip: tipAdded,
      proof: webhookProof,
      cancellation_fee: webhookCancellationFee,
      ...webhookAttemptFields,
      ...webhookCodFields,
      ...webhookStopFields,
    })
    .openapi({ description: 'Spec shape 2 (`payload_shape: event`, the default), plus `sequence` (and `location` for positions, `eta` for ETA changes, `tip` for tips).' }),
);

export const batchCreatedPayloadSchema = registry.register(
  'WebhookPayloadBatchCreated',
  z
    .object({
      event: z.literal('batch.created'),
      batch_id: z.string().openapi({ example: 'bt_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
      order_ids: z.array(bookingId),
      vehicle_type: z.enum(VEHICLE_TYPES),
      geohash_zone: z.string().openapi({ example: '66jcc' }),
      timestamp,
    })
    .openapi({ description: 'Sent for batch.created whatever the payload shape.' }),
);

// --- Endpoints and the delivery log ------------------------------------------------------------

export const webhookEndpointSchema = registry.register(
  'WebhookEndpoint',
  z.object({
    id: z.string().openapi({ example: 'we_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
    url: z.string().openapi({ example: 'https://shop.example.com/hooks/express-delivery' }),
    description: z.string().nullable(),
    events: z.array(eventType),
    payload_shape: z.enum(['event', 'flat']).openapi({ description: '`event`: spec shape 2 (default); `flat`: spec shape 1.' }),
    signing: z.enum(WEBHOOK_SIGNINGS).openapi({
      description: '`symmetric` (default): `webhook-signature: v1,<HMAC-SHA256>` with the API secret; `asymmetric`: `v1a,<Ed25519>`, verified with the public keys of GET /webhooks/public-keys.',
    }),
    enabled: z.boolean(),
    disabled_reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why the endpoint is disabled: by the merchant, or automatically after failing for a sustained period.' }),
    failing_since: timestamp.nullable().openapi({ description: 'Start of the current run of failed attempts; null while healthy.' }),
    is_test: z.boolean().openapi({ description: 'true for a sandbox (test-key) endpoint.' }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const webhookDeliverySchema = registry.register(
  'WebhookDelivery',
  z.object({
    id: z.string().openapi({ description: 'The `webhook-id` header: unique per event and endpoint, stable across retries.', example: 'msg_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
    endpoint_id: z.string(),
    event: eventType,
    booking_id: bookingId.nullable().openapi({ description: 'The order; null for batch.created.' }),
    sequence: sequence.nullable().openapi({ description: 'The order sequence the payload carries; null for batch.created.' }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number().int().min(0),
    next_attempt_at: timestamp.nullable().openapi({ description: 'When the next attempt is due, while pending.' }),
    last_status_code: z.number().int().nullable().openapi({ description: 'HTTP status of the last attempt; null when it got no response.' }),
    last_error: z.string().nullable().openapi({ example: 'HTTP 500' }),
    last_latency_ms: z.number().int().min(0).nullable(),
    created_at: timestamp,
    delivered_at: timestamp.nullable(),
    payload: z.union([eventPayloadSchema, flatPayloadSchema, batchCreatedPayloadSchema]).openapi(
      {
        description:
          "The exact JSON body every attempt sends: the endpoint's `payload_shape` for an order event, `batch.created`'s own body otherwise. " +
          "Its `event` tells them apart: `batch.created`, an order event's type (`event` shape), or absent (`flat` shape).",
      },
      { unionPreferredType: 'oneOf' },
    ),
  }),
);

export const webhookAttemptSchema = registry.register(
  'WebhookAttempt',
  z.object({
    attempt: z.number().int().min(1),
    at: timestamp,
    status_code: z.number().int().nullable(),
    latency_ms: z.number().int().min(0),
    error: z.string().nullable().openapi({ example: 'timed out after 5000 ms' }),
  }),
);

export const webhookEndpointResponseSchema = registry.register(
  'WebhookEndpointResponse',
  z.object({ success: z.literal(true), endpoint: webhookEndpointSchema }),
);
export const webhookEndpointListResponseSchema = registry.register(
  'WebhookEndpointListResponse',
  z.object({ success: z.literal(true), endpoints: z.array(webhookEndpointSchema) }),
);
export const webhookEndpointDeletedResponseSchema = registry.register(
  'WebhookEndpointDeletedResponse',
  z.object({ success: z.literal(true), deleted: z.literal(true) }),
);
export const webhookDeliveryListResponseSchema = registry.register(
  'WebhookDeliveryListResponse',
  z.object({
    success: z.literal(true),
    deliveries: z.array(webhookDeliverySchema),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `after` for the next (older) page; null on the last page.' }),
  }),
);
export const webhookDeliveryDetailResponseSchema = registry.register(
  'WebhookDeliveryDetailResponse',
  z.object({ success: z.literal(true), delivery: webhookDeliverySchema, attempts: z.array(webhookAttemptSchema) }),
);
export const webhookDeliveryResponseSchema = registry.register(
  'WebhookDeliveryResponse',
  z.object({ success: z.literal(true), delivery: webhookDeliverySchema }),
);
export const webhookRequeuedResponseSchema = registry.register(
  'WebhookRequeuedResponse',
  z.object({
    success: z.literal(true),
    requeued: z.number().int().min(0).openapi({ description: 'How many failed deliveries were queued again.' }),
    more: z.boolean().openapi({ description: 'More failed deliveries remain in the range (beyond `limit`): call again for the next batch.' }),
    limit: z.number().int().min(1).openapi({ description: 'The most one call requeues (1,000), newest first.', example: 1000 }),
  }),
);

export const sandboxAdvanceResponseSchema = registry.register(
  'SandboxAdvanceResponse',
  z.object({ success: z.literal(true), booking_id: bookingId, status: z.enum(ORDER_STATUSES) }),
);

// --- What merchants receive: the headers -------------------------------------------------------

/**
 * The Standard Webhooks headers of every delivery: parameter components that each webhook
 * operation references (OpenAPI 3.1 `webhooks`: what the merchant's server receives).
 */
const header = (name: string, schema: z.ZodString | z.ZodEnum, description: string) => {
  const component = name.split('-').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  registry.registerParameter(component, schema.openapi({ param: { name, in: 'header', required: true, description } }));
  return { $ref: `#/components/parameters/${component}` };
};

/** The webhook operations' `parameters`: references to the header components (the generator would copy them inline). */
export const webhookPublicKeysResponseSchema = registry.register(
  'WebhookPublicKeys',
  z.object({
    success: z.literal(true),
    keys: z.array(
      z.object({
        id: z.string().openapi({ description: 'The key id (the id of the signing secret it was made with, and rotates with).', example: 'sec_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
        algorithm: z.literal('ed25519'),
        public_key: z.string().openapi({ description: 'The raw 32-byte Ed25519 public key, base64 (Standard Webhooks libraries take it as `whpk_<this>`).', example: 'MCowBQYDK2VwAyEA…' }),
        public_key_pem: z.string().openapi({ description: 'The same key as SPKI PEM: `crypto.createPublicKey(public_key_pem)` in Node.' }),
        created_at: timestamp,
        expires_at: timestamp.nullable().openapi({ description: 'Set on the previous key during a rotation\'s overlap: it still signs until then.' }),
      }),
    ).openapi({ description: 'The keys in force, newest first: `v1a` signatures are made with each of them.' }),
  }),
);

export const webhookHeaderParameters = [
  header('webhook-id', z.string().openapi({ example: 'msg_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }), 'Unique per event and endpoint, the same on every retry: the de-duplication key.'),
  header(
    'webhook-timestamp',
    z.string().regex(/^\d+$/).openapi({ example: '1738332300' }),
    'Unix seconds of this attempt. Reject deliveries more than 5 minutes away from your clock.',
  ),
  header(
    'webhook-signature',
    z.string().openapi({ example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }),
    'Space-separated `v1,<base64 HMAC-SHA256>` signatures over `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the ' +
      'base64-decoded part of your `whsec_` API secret; during a secret rotation, one per valid secret. Accept the delivery when ' +
      'any of them matches (constant-time comparison). Verify with any Standard Webhooks library. An endpoint with ' +
      '`signing: asymmetric` gets `v1a,<base64 Ed25519 signature>` over the same content instead, one per key of ' +
      'GET /webhooks/public-keys (current and previous during a rotation): accept when any verifies with a published key.',
  ),
  header('webhook-event', z.enum(WEBHOOK_EVENT_TYPES), 'The event type, for routing without parsing the body.'),
];
