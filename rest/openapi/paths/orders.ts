import { z } from 'zod';
import { shopifyOrderSchema } from '../../../src/domain/integrations/storefront-orders.js';
import { idempotencyKeySchema } from '../../../src/domain/idempotency.js';
import { addTipBody, cancelOrderBody, consolidateBody, deliverOrderBody, listOrdersQueryString } from '../../wire/orders.js';
import { storefrontQuerySchema } from '../../routes/storefront.js';
import { registerEndpoint } from '../registry.js';
import { createOrderForms } from '../request-forms.js';
import {
  batchResponseSchema,
  consolidationResponseSchema,
  deliveryConfirmedResponseSchema,
  deliveryPinResetResponseSchema,
  cancellationPreviewResponseSchema,
  orderCancelledResponseSchema,
  orderCreatedSchema,
  orderDetailsResponseSchema,
  orderEventsResponseSchema,
  orderListResponseSchema,
  storefrontOrderResponseSchema,
  tipAddedResponseSchema,
} from '../responses-orders.js';

const orderRef = z.object({
  id: z.string().openapi({
    description: "booking_id, the merchant's reference_id or shop order id, the tracking number or the order number — looked up only among the caller's orders in the key's mode.",
    example: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7',
  }),
});

const idempotencyHeader = z.object({
  'Idempotency-Key': idempotencyKeySchema
    .optional()
    .openapi({
      description:
        'Printable ASCII, up to 255 characters. Kept 24 h per merchant and mode: repeating it with the same body returns the ' +
        'same order (200); with a different body, 422 IDEMPOTENCY_KEY_REUSED. Concurrent requests with one key create one order.',
      example: 'order-2025-01-31-0042',
    }),
});

registerEndpoint({
  method: 'post',
  path: '/orders',
  operationId: 'createOrder',
  summary: 'Create an order (booking); a courier is assigned or the order is queued',
  description: `One of the two documented request forms (\`oneOf\`):

- **Form A** (\`CreateOrderFormA\`): \`pickup\` and \`dropoff\` Address objects, \`reference_id\`, \`items\`.
- **Form B** (\`CreateOrderFormB\`): \`dropoff_address\` (text or an Address/\`{lat, lng}\` object), \`payment_mode\` (required with it),
  \`customer_rut\`, \`prep_time_mins\`, \`order_notes\`.

A body has \`dropoff\` or \`dropoff_address\`, never both; the other fields (and this API's additions below) are accepted in
either form. The pickup defaults to the merchant profile address.

\`customer_phone\` needs the country code. \`customer_rut\` is checked (modulo 11, \`K\`) and normalised; when it matches a
registered user the order is linked (\`isRegisteredUser: true\`). Live orders are charged to the merchant account; sandbox orders are not.
**201** when created; **200** with the same order (and \`Idempotent-Replayed: true\`) when the \`Idempotency-Key\` repeats with the same body.

**Bound quotes.** \`quote_id\` (from POST /shipping/quote, valid 15 minutes) with an optional \`rate_id\` (\`express\`, the default, or
\`batched\`) charges exactly the quoted rate. The quote must be the caller's own in the key's mode (any other id: 404 QUOTE_NOT_FOUND),
unexpired (409 QUOTE_EXPIRED), and for the same delivery: pickup and drop-off each within **100 m** of the quoted origin and
destination, and a weight in the **same price band** (the same vehicle class: bike ≤ 6 kg, motorcycle ≤ 20 kg, car ≤ 150 kg,
van ≤ 800 kg with the default tariff), else 422 QUOTE_MISMATCH naming the fields. A quote's pickup_after / deliver_before apply when
the order gives none.

**Scheduled deliveries.** \`pickup_after\` (ISO 8601 with offset, up to 7 days ahead) keeps the order \`new\` with
\`scheduled_pickup_at\`; it is dispatched once the window opens less the courier's approach time (the tariff's default approach,
10 minutes). \`deliver_before\` must leave room for the earliest possible delivery. Past times, times more than 7 days ahead or an
unreachable deadline: 422 DELIVERY_WINDOW_UNREACHABLE; a malformed date: 400 VALIDATION_ERROR.

**Delivery PIN.** \`delivery_pin: true\` issues a 4-digit \`delivery_pin\` (in this answer and the merchant's reads only) for the
recipient; confirming the delivery then needs it as \`pin\`.

**ID check at the door.** \`id_check: { required: true, min_age }\` (min_age 18–99, default 18) makes the courier check the
recipient's ID before the delivery: the deliver body then needs \`id_check\` (RUT and date of birth).

**Cash on delivery.** \`payment_mode: cash_on_delivery\` may give \`cod_amount\` (integer CLP, 1–10,000,000), the cash the courier
collects at the door; without it (the spec's Form B) the amount is unknown and the courier records what was collected.
\`cod_amount\` on a prepaid order is 400 VALIDATION_ERROR. The deliver body then needs \`cod_collected\`.`,
  tags: ['Orders'],
  auth: 'apiKey',
  headers: idempotencyHeader,
  replayed: [200],
  body: createOrderForms,
  bodyExample: {
    customer_name: 'Camila Rojas',
    customer_phone: '+56912345678',
    customer_rut: '12.345.678-5',
    dropoff_address: 'Av. Apoquindo 3000, Las Condes',
    payment_mode: 'prepaid',
    prep_time_mins: 10,
    order_notes: 'Depto 1204, conserjería',
  },
  responses: {
    201: { description: 'Created', schema: orderCreatedSchema },
    200: { description: 'The existing order of this Idempotency-Key (same body), answered again', schema: orderCreatedSchema },
  },
  errors: [
    'GEOCODING_FAILED', 'OUTSIDE_SERVICE_AREA', 'WEIGHT_EXCEEDS_CAPACITY', 'PARCEL_EXCEEDS_CAPACITY', 'IDEMPOTENCY_KEY_REUSED',
    'QUOTE_NOT_FOUND', 'QUOTE_EXPIRED', 'QUOTE_MISMATCH', 'DELIVERY_WINDOW_UNREACHABLE',
  ],
});

registerEndpoint({
  method: 'get',
  path: '/orders',
  operationId: 'listOrders',
  summary: "The caller's orders in the key's mode, newest first",
  tags: ['Orders'],
  auth: 'apiKey',
  query: listOrdersQueryString,
  responses: { 200: { description: 'One page of orders', schema: orderListResponseSchema } },
});

registerEndpoint({
  method: 'post',
  path: '/orders/consolidate',
  idempotent: true,
  operationId: 'consolidateOrders',
  summary: 'Group orders of one geohash zone into batches for a larger vehicle',
  description: `Takes the caller's orders not yet picked up (\`new\`, or \`assigned\` before the courier reached the pickup — those are
taken back from their couriers) whose pickup geohash starts with \`geohash_zone\`, and packs them into batches (2–8 orders) that fit
\`target_car_type\`'s capacity. Each batch is dispatched to one courier with that vehicle, or stays \`pending\` until one is free;
its orders carry its \`batch_id\`.`,
  tags: ['Orders'],
  auth: 'apiKey',
  body: consolidateBody,
  bodyExample: { geohash_zone: '66jcc', target_car_type: 'van' },
  responses: { 200: { description: 'The batches created', schema: consolidationResponseSchema } },
});

registerEndpoint({
  method: 'get',
  path: '/orders/:id',
  operationId: 'getOrder',
  summary: 'Order details (both documented forms), with the driver when assigned',
  tags: ['Orders'],
  auth: 'apiKey',
  params: orderRef,
  responses: { 200: { description: 'The order', schema: orderDetailsResponseSchema } },
  errors: ['ORDER_NOT_FOUND'],
});

registerEndpoint({
  method: 'get',
  path: '/orders/:id/events',
  operationId: 'listOrderEvents',
  summary: 'The status history of an order: one event per transition (who, when, where)',
  tags: ['Orders'],
  auth: 'apiKey',
  params: orderRef,
  responses: { 200: { description: 'Events in sequence order', schema: orderEventsResponseSchema } },
  errors: ['ORDER_NOT_FOUND'],
});

registerEndpoint({
  method: 'get',
  path: '/orders/:id/cancellation',
  operationId: 'previewCancellation',
  summary: 'What cancelling the order now would cost, and until when that holds',
  description: 'Free while `new`; the tariff\'s fee once a courier is assigned, a higher one once at the pickup; not cancellable after pickup. Test mode answers the same fees (never charged).',
  tags: ['Orders'],
  auth: 'apiKey',
  params: orderRef,
  responses: { 200: { description: 'The cancellation preview', schema: cancellationPreviewResponseSchema } },
  errors: ['ORDER_NOT_FOUND'],
});

registerEndpoint({
  method: 'post',
  path: '/orders/:id/cancel',
  idempotent: true,
  operationId: 'cancelOrder',
  summary: 'Cancel an order that is not picked up yet',
  description: 'Allowed from `new`, `assigned` and `arrived_pickup`; otherwise 409 ORDER_NOT_CANCELLABLE. Frees the courier; a live charge is reversed but for `cancellation_fee` (see GET /orders/{id}/cancellation).',
  tags: ['Orders'],
  auth: 'apiKey',
  params: orderRef,
  body: cancelOrderBody,
  bodyRequired: false,
  bodyExample: { reason: 'Customer changed the address' },
  responses: { 200: { description: 'Cancelled', schema: orderCancelledResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'ORDER_NOT_CANCELLABLE'],
});

registerEndpoint({
  method: 'post',
  path: '/orders/:id/tip',
  idempotent: true,
  operationId: 'addTip',
  summary: "Add to the courier's tip",
  description: `Adds \`amount\` (CLP, 1–200,000) to the order's \`tip\` (which stays at most 200,000 in all: more is 400 VALIDATION_ERROR on
\`amount\`). Allowed on an order on its way or delivered, until 24 h after the delivery; a cancelled order, one returning or
returned to the pickup or disposed, or one delivered over 24 h ago: 409 TIP_NOT_ALLOWED. **Requires \`Idempotency-Key\`**
(400 VALIDATION_ERROR without it): a retry with the same key answers the same without tipping twice (\`Idempotent-Replayed: true\`).
Live mode: a \`tip\` ledger entry charged to the merchant, paid to the courier; test mode records the tip on the order, never charged.
Sends \`order.tip_added\` to subscribed webhook endpoints and adds it to the event feed; the status does not change.`,
  tags: ['Orders'],
  auth: 'apiKey',
  params: orderRef,
  headers: z.object({
    // A fresh instance (the shared one predates the OpenAPI extension of zod).
    'Idempotency-Key': idempotencyKeySchema.clone().openapi({ description: 'Required here: the tip is added once per key (kept 24 h per merchant and mode).', example: 'tip-bk_01JHX3Z6-1' }),
  }),
  body: addTipBody,
  bodyExample: { amount: 2000 },
  responses: { 200: { description: 'The tip was added', schema: tipAddedResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'TIP_NOT_ALLOWED'],
});

registerEndpoint({
  method: 'post',
  path: '/orders/:id/deliver',
  idempotent: true,
  operationId: 'confirmDelivery',
  summary: 'Confirm the delivery with proof (geofence, photo, signature)',
  description: `\`driver_id\` must be the assigned courier (else 403 FORBIDDEN). The great-circle distance from \`coords\` to the drop-off
must be within \`geofence_radius\` metres (default 20), else 400 GEOFENCE_FAILED with \`error.details.distance_m\` and \`radius_m\`;
\`bypass: true\` skips the check and is recorded in the proof and the history. Allowed from \`arrived_dropoff\`, and from
\`picked_up\` (the arrival is recorded first); otherwise 409 INVALID_STATUS_TRANSITION.
An order created with \`delivery_pin: true\` also needs \`pin\` (the 4 digits the recipient gives): missing or wrong, 400
DELIVERY_PIN_INVALID (\`error.details.attempts_left\` after a wrong one); after 5 wrong ones the order is locked, 409
DELIVERY_PIN_LOCKED, until the merchant resets the PIN. Tries are counted atomically: concurrent ones never exceed 5.
An order created with \`id_check\` also needs \`id_check: { document_number, date_of_birth }\` (the recipient's RUT and birth date):
missing, 422 ID_CHECK_REQUIRED; a RUT with a wrong format or check digit, 422 ID_DOCUMENT_INVALID; under \`min_age\` on the delivery
date (America/Santiago), 422 ID_CHECK_FAILED. The proof records \`id_check\` with the RUT's last 4 characters only.
A cash-on-delivery order also needs \`cod_collected\` (the CLP collected): missing, 422 COD_COLLECTED_REQUIRED. A different amount than
its \`cod_amount\` is accepted and recorded as a mismatch (an order without \`cod_amount\`: recorded, \`expected: null\`, never a mismatch) (\`cod.mismatch: true\` on the order, its webhook and the COD report).`,
  tags: ['Orders'],
  auth: 'apiKey',
  params: orderRef,
  body: deliverOrderBody,
  bodyExample: {
    driver_id: 'cr_01JHX3Z6Q8R2V4N7W9Y1A3C5E7',
    coords: { lat: -33.4154, lng: -70.5837 },
    photo_url: 'https://cdn.example.com/pod/photo-123.jpg',
    signature_url: 'https://cdn.example.com/pod/signature-123.png',
    geofence_radius: 20,
  },
  responses: { 200: { description: 'Delivered: the stored proof', schema: deliveryConfirmedResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'GEOFENCE_FAILED', 'FORBIDDEN', 'INVALID_STATUS_TRANSITION', 'DELIVERY_PIN_INVALID', 'DELIVERY_PIN_LOCKED', 'ID_CHECK_REQUIRED', 'ID_DOCUMENT_INVALID', 'ID_CHECK_FAILED', 'COD_COLLECTED_REQUIRED'],
});

registerEndpoint({
  method: 'post',
  path: '/orders/:id/delivery-pin/reset',
  operationId: 'resetDeliveryPin',
  summary: 'Issue a new delivery PIN (unlocks a delivery locked after 5 wrong PINs)',
  description: `For an order created with \`delivery_pin: true\` that is not over yet: a new 4-digit PIN replaces the old one (which stops
working at once) and the wrong tries start again from 0. An order without a PIN: 409 CONFLICT; completed or cancelled: 409
INVALID_STATUS_TRANSITION.`,
  tags: ['Orders'],
  auth: 'apiKey',
  params: orderRef,
  responses: { 200: { description: 'The new PIN', schema: deliveryPinResetResponseSchema } },
  idempotent: true,
  errors: ['ORDER_NOT_FOUND', 'CONFLICT', 'INVALID_STATUS_TRANSITION'],
});

registerEndpoint({
  method: 'get',
  path: '/batches/:id',
  operationId: 'getBatch',
  summary: 'A batch created by consolidation',
  tags: ['Orders'],
  auth: 'apiKey',
  params: z.object({ id: z.string().openapi({ example: 'bt_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }) }),
  responses: { 200: { description: 'The batch', schema: batchResponseSchema } },
  errors: ['NOT_FOUND'],
});

registerEndpoint({
  method: 'post',
  path: '/storefront/webhooks/orders-create',
  operationId: 'receiveStorefrontOrder',
  summary: 'Storefront orders/create webhook (Shopify): paid orders become dispatches',
  description: `Register it for the \`orders/create\` topic. Authenticated by Shopify's signature (\`X-Shopify-Hmac-Sha256\`: base64
HMAC-SHA256 of the raw body with the storefront app's secret (merchant setting \`storefront_shared_secret\`) or the merchant's API
secret, and \`X-Shopify-Shop-Domain\` equal to the merchant's \`storefront_domain\`; Shopify sends no API key;
\`?mode=test\` selects the sandbox) or an API key. The body is Shopify's order as sent (only the fields below are read; integer ids
beyond 2^53 are kept exact). A paid, not cancelled order is dispatched (**201**) with \`ecommerce_order_id\` = the shop order id;
anything else — unpaid, cancelled, an address we cannot serve, or a redelivery of an order already received (even
with edited content: the dispatch made from the first is not changed) — is acknowledged with **200** and creates nothing.`,
  tags: ['Integrations'],
  auth: 'apiKeyOrStorefrontHmac',
  integration: 'storefront',
  query: storefrontQuerySchema,
  body: shopifyOrderSchema,
  bodyExample: {
    id: 450789469,
    name: '#1001',
    financial_status: 'paid',
    cancelled_at: null,
    shipping_address: { name: 'Camila Rojas', address1: 'Av. Apoquindo 3000', city: 'Las Condes', country_code: 'CL', phone: '+56912345678' },
    line_items: [{ name: 'Polera', quantity: 1, grams: 300 }],
  },
  responses: {
    201: { description: 'Dispatch created', schema: storefrontOrderResponseSchema },
    200: { description: 'Acknowledged; nothing created (see `reason`)', schema: storefrontOrderResponseSchema },
  },
});
