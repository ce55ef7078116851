/**
 * Wire shapes of the order, batch, courier and storefront-webhook responses (what
 * rest/presenters/order.ts and the courier and storefront routes produce), for the OpenAPI document.
 * Request schemas are never defined here: they are the domain's own zod schemas.
 */
import { z } from 'zod';
import { FAILED_ATTEMPT_POLICIES, FAILED_ATTEMPT_REASONS, GEOFENCE_OUTCOMES, LOCATION_PRECISIONS, ORDER_STATUSES, PAYMENT_MODES, RATE_IDS, ROUTE_ORDERS, STOP_STATUSES, VEHICLE_TYPES } from '../../src/domain/types.js';
import { registry } from './registry.js';
import { dimensionsBody } from '../wire/orders.js';

const timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2025-01-31T14:05:00.000Z' });
const orderStatus = z.enum(ORDER_STATUSES);
const vehicleType = z.enum(VEHICLE_TYPES);
export const locationPrecision = z.enum(LOCATION_PRECISIONS).openapi({
  description:
    'How exactly the point is known: `coordinates` (given by the caller), `street` (the street geocoder matched the house number), ' +
    '`locality` (only the comuna: its point). The geofence and arrivals by position apply only to `coordinates` and `street`.',
});

export const latLngWireSchema = registry.register(
  'LatLng',
  z.object({ lat: z.number().openapi({ example: -33.4214 }), lng: z.number().openapi({ example: -70.6033 }) }),
);

const bookingId = z.string().openapi({ description: 'The order identifier: `bk_` + ULID.', example: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' });

export const stopSchema = registry.register(
  'Stop',
  z
    .object({
      address: z.string().openapi({ description: 'The address as given, else what the geocoder matched (or "coordinates").' }),
      number: z.string().nullable(),
      instructions: z.string().nullable(),
      coords: latLngWireSchema,
      precision: locationPrecision,
    })
    .openapi({ description: 'A pickup or drop-off: the spec\'s Address resource, always with its coordinates.' }),
);

export const driverSchema = registry.register(
  'Driver',
  z
    .object({
      id: z.string().openapi({ description: 'The courier id: the `driver_id` of POST /orders/{id}/deliver.' }),
      name: z.string(),
      phone: z.string().openapi({ example: '+56912345678' }),
      vehicle_type: vehicleType,
      vehicle_plate: z.string().openapi({ example: 'ABCD12' }),
      current_location: latLngWireSchema.nullable().openapi({ description: 'Last reported position; null before the first report.' }),
    })
    .openapi({ description: 'The courier assigned to the order.' }),
);

/** What a courier collected at a cash-on-delivery order's door (issue #30). */
export const codCollectionSchema = registry.register(
  'CodCollection',
  z
    .object({
      expected: z.number().int().nullable().openapi({ description: "CLP the order asked for (its cod_amount); null when the order gave none (amount unknown: never a mismatch)." }),
      collected: z.number().int().openapi({ description: 'CLP the courier confirmed collecting.' }),
      mismatch: z.boolean().openapi({ description: 'true when collected differs from expected: accepted, recorded and flagged.' }),
      collected_at: timestamp,
    })
    .openapi({ description: 'The cash collected at the door of a cash-on-delivery order.' }),
);

export const deliveryProofSchema = registry.register(
  'DeliveryProof',
  z.object({
    driver_id: z.string(),
    coords: latLngWireSchema.openapi({ description: 'Where the courier confirmed the delivery.' }),
    distance_m: z.number().min(0).openapi({ description: 'Great-circle distance from coords to the drop-off, in metres.' }),
    radius_m: z.number().positive().openapi({ description: 'The geofence radius applied, in metres.' }),
    bypass: z.boolean().openapi({ description: 'true when the geofence check was skipped on purpose.' }),
    geofence: z.enum(GEOFENCE_OUTCOMES).openapi({
      description:
        '`passed`: within radius_m of a precise drop-off (precision `coordinates` or `street`); `bypassed`: skipped with `bypass: true`; ' +
        '`unverified`: the drop-off is known only to its comuna (precision `locality`), so the delivery was accepted unchecked — distance_m is still measured.',
    }),
    photo_url: z.string(),
    signature_url: z.string(),
    delivered_at: timestamp,
    id_check: z
      .object({
        verified: z.literal(true),
        min_age: z.number().int().min(18).max(99),
        document_last4: z.string().openapi({ description: "The RUT's last 4 characters (check digit included, no hyphen); the full number is never stored.", example: '6785' }),
        checked_at: timestamp,
      })
      .optional()
      .openapi({ description: "Orders created with id_check only: the recipient's ID was checked at the door." }),
  }),
);

export const failedAttemptSchema = registry.register(
  'FailedAttempt',
  z.object({
    reason: z.enum(FAILED_ATTEMPT_REASONS),
    note: z.string().nullable(),
    photo_url: z.string().nullable().openapi({ description: 'A signed, expiring link to the photo the courier uploaded; null without one.' }),
    coords: latLngWireSchema.openapi({ description: 'Where the courier reported the attempt.' }),
    courier_id: z.string(),
    at: timestamp,
    outcome: z.enum(['picked_up', 'returning', 'disposed']).openapi({ description: 'Where the policy moved the order: `picked_up` (retry later), `returning` or `disposed`.' }),
  }),
);

const stopFailureSchema = z.object({
  reason: z.enum(FAILED_ATTEMPT_REASONS),
  note: z.string().nullable(),
  photo_url: z.string().nullable().openapi({ description: 'A signed, expiring link to the photo the courier uploaded; null without one.' }),
  at: timestamp,
  courier_id: z.string(),
});

/** A stop as webhooks carry it (no PIN, no contact, no address). */
export const stopEventSchema = registry.register(
  'OrderStopEvent',
  z.object({
    id: z.string().openapi({ description: 'The stop id: `stp_` + ULID.' }),
    index: z.number().int().min(0).openapi({ description: 'Position in the route (0-based): the order the courier serves the stops in.' }),
    given_index: z.number().int().min(0).openapi({ description: 'Position in the `stops` array as sent.' }),
    status: z.enum(STOP_STATUSES).openapi({ description: '`pending` → `arrived` → `delivered` or `failed`.' }),
    eta: timestamp.openapi({ description: 'The planned arrival at this stop.' }),
    arrived_at: timestamp.nullable(),
    proof: deliveryProofSchema.nullable().openapi({ description: 'Once delivered: the proof at this stop.' }),
    failure: stopFailureSchema.nullable().openapi({ description: 'Once failed: why the courier could not deliver here.' }),
  }),
);

export const orderStopSchema = registry.register(
  'OrderStop',
  stopEventSchema.extend({
    address: stopSchema,
    contact_name: z.string(),
    contact_phone: z.string().nullable().openapi({ description: "The stop's contact. In the courier's view only while this stop is still open on its job; null after." }),
    reference: z.string().nullable(),
    items: z.array(z.record(z.string(), z.unknown())),
    tracking_url: z.string().openapi({ description: "This stop's own public tracking link: its status and the courier's progress toward it, never another stop's." }),
    delivery_pin: z.string().regex(/^\d{4}$/).nullable().openapi({ description: "This stop's PIN for its recipient (created with `delivery_pin: true`); the merchant's answers only." }),
    delivery_pin_locked: z.boolean(),
  }).openapi({ description: 'A drop-off of a multi-stop order.' }),
);

const multiStopFields = {
  route: z.enum(ROUTE_ORDERS).optional().openapi({ description: 'Multi-stop orders only: `given` (the stops as sent) or `optimized` (reordered when strictly shorter).' }),
  stops: z.array(orderStopSchema).optional().openapi({ description: 'Multi-stop orders only, in route order; `dropoff` is then the last stop. Absent on single drop-off orders.' }),
};

const creationFields = {
  booking_id: bookingId,
  status: orderStatus.openapi({ description: '`new` (queued for a courier) or `assigned` when a courier was found at once.' }),
  tracking_url: z.string().openapi({ description: 'Public tracking page.', example: 'https://api.example.com/track/EXD-7K2M-9QXA-4HTB' }),
  tracking_number: z.string().openapi({ example: 'EXD-7K2M-9QXA-4HTB' }),
  order_number: z.string().regex(/^\d+$/).openapi({ description: 'Random (not sequential) numeric order number.', example: '4820193746' }),
  estimated_pickup_time: timestamp,
  estimated_delivery_time: timestamp,
  is_registered_user: z.boolean(),
  isRegisteredUser: z.boolean().openapi({ description: "The spec's name of is_registered_user: the customer_rut matches a registered user." }),
  scheduled_pickup_at: timestamp.nullable().openapi({ description: 'The requested pickup_after (UTC); the order stays `new` until its window opens. null: as soon as possible.' }),
  deliver_before: timestamp.nullable().openapi({ description: 'The requested latest delivery time (UTC), checked reachable at creation; null when not asked.' }),
  batch_window_closes_at: timestamp.nullable().openapi({
    description:
      'Batched rate only: until then the order waits `new` for other batched orders of yours in its zone to ride with (a batch run may take it earlier); then it is dispatched, alone if nothing joined. Its estimates already include the wait. null for every other order.',
  }),
  delivery_pin: z
    .string()
    .regex(/^\d{4}$/)
    .nullable()
    .openapi({
      description:
        'The 4-digit PIN to pass to the recipient (created with `delivery_pin: true`; null otherwise). The courier must send it as `pin` to confirm the ' +
        "delivery. Only in the merchant's own answers: never on public tracking, in webhooks or in the courier's views.",
      example: '4821',
    }),
};

export const orderCreatedSchema = registry.register(
  'OrderCreatedResponse',
  z.object({ success: z.literal(true), ...creationFields }),
);

/** An order as every detail view shows it: the union of both documented detail forms. */
export const orderSchema = registry.register(
  'Order',
  z
    .object({
      ...creationFields,
      order_id: bookingId.openapi({ description: 'Form A name of booking_id.' }),
      reference_id: z.string().nullable().openapi({ description: "The merchant's own reference (for a storefront order, the shop order name)." }),
      ecommerce_order_id: z.string().nullable().openapi({ description: 'The shop order id, kept exactly (as a string).', example: '820982911946154508' }),
      is_test: z.boolean(),
      pickup: stopSchema,
      dropoff: stopSchema,
      customer_name: z.string(),
      customer_phone: z.string().nullable().openapi({
        description: "The recipient's phone. In the courier's view (`/couriers/me/orders`, its socket) only while the order is its open job on the way to the recipient: null once completed, cancelled, on the way back after a failed attempt, returned or disposed of.",
      }),
      customer_rut: z.string().nullable().openapi({ description: 'Normalised RUT (`12345678-5`).' }),
      payment_mode: z.enum(PAYMENT_MODES),
      items: z.array(z.record(z.string(), z.unknown())),
      order_notes: z.string().nullable(),
      total_weight_kg: z.number().min(0),
      dimensions: dimensionsBody.nullable().openapi({ description: "The parcel's outer size as given at creation (null: not given; the items' own sizes are in `items`)." }),
      vehicle_type: vehicleType,
      price: z.number().int().min(0).openapi({ description: 'CLP (integer pesos).' }),
      currency: z.literal('CLP'),
      prep_time_mins: z.number().int().min(0),
      quote_id: z.string().nullable().openapi({ description: 'The quote the order was booked from (its price is the quoted rate); null when priced at creation.' }),
      rate_id: z.enum(RATE_IDS).nullable().openapi({ description: 'The quoted rate booked (with quote_id).' }),
      delivery_pin_locked: z.boolean().openapi({ description: '5 wrong delivery PINs were tried: the delivery is refused (409 DELIVERY_PIN_LOCKED) until POST /orders/{id}/delivery-pin/reset.' }),
      id_check: z
        .object({ required: z.literal(true), min_age: z.number().int().min(18).max(99) })
        .nullable()
        .openapi({ description: "The courier checks the recipient's ID (RUT, age ≥ min_age) before the delivery; null when not asked." }),
      cod_amount: z.number().int().nullable().openapi({ description: 'Cash on delivery: CLP the courier collects at the door; null for prepaid orders and for cash on delivery of unknown amount (no cod_amount given).' }),
      cod: codCollectionSchema.nullable().openapi({ description: 'Once a cash-on-delivery order is delivered: what was collected (a mismatch flagged); null before and for prepaid orders.' }),
      driver: driverSchema.nullable().openapi({ description: 'The assigned courier (null while queued, and in lists).' }),
      batch_id: z.string().nullable(),
      proof: deliveryProofSchema.nullable(),
      cancellation: z.object({ reason: z.string().nullable(), at: timestamp }).nullable(),
      cancellation_fee: z.number().int().min(0).nullable().openapi({ description: 'CLP kept on cancelling (the tariff\'s fee for the status the order left); null unless cancelled. Test mode: computed the same, never charged.' }),
      failed_attempt_policy: z.enum(FAILED_ATTEMPT_POLICIES).openapi({ description: 'What a failed delivery attempt leads to: `retry` (up to 3 attempts, then the return), `return` (default) or `dispose`.' }),
      failed_attempts: z.array(failedAttemptSchema).openapi({ description: 'Failed delivery attempts, oldest first.' }),
      return_fee: z.number().int().min(0).nullable().openapi({ description: "CLP: the tariff's return fee, charged when the return leg started; null when there was none. Test mode: never charged." }),
      return_proof: deliveryProofSchema.nullable().openapi({ description: 'The proof at the pickup once `returned` (`delivered_at`: when it was handed back).' }),
      tip: z.number().int().min(0).max(200_000).openapi({ description: "CLP: the courier's tip, set at creation plus every POST /orders/{id}/tip (0: none). Live mode: charged to the merchant, paid to the courier; test mode: never charged.", example: 2000 }),
      created_at: timestamp,
      updated_at: timestamp,
      ...multiStopFields,
    })
    .openapi({ description: 'Order details: the fields of both documented forms (A: order_id, pickup, dropoff; B: booking_id, driver, tracking_url).' }),
);

export const orderDetailsResponseSchema = registry.register(
  'OrderDetailsResponse',
  z.object({ success: z.literal(true), ...orderSchema.shape }),
);

export const orderListResponseSchema = registry.register(
  'OrderListResponse',
  z.object({
    success: z.literal(true),
    orders: z.array(orderSchema).openapi({ description: 'Newest first.' }),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `after` for the next page; null on the last page.' }),
  }),
);

export const orderEventSchema = registry.register(
  'OrderEvent',
  z.object({
    id: z.string(),
    sequence: z.number().int().min(1).openapi({ description: '1, 2, 3… per order, in the order of the transitions.' }),
    from: orderStatus.nullable().openapi({ description: 'null for the creation.' }),
    status: orderStatus,
    actor: z.object({
      kind: z.enum(['merchant', 'courier', 'system', 'admin']),
      id: z.string().nullable(),
    }),
    location: latLngWireSchema.nullable().openapi({ description: 'Where it happened, when known (courier moves, delivery).' }),
    reason: z.string().nullable(),
    at: timestamp,
  }),
);

export const orderEventsResponseSchema = registry.register(
  'OrderEventsResponse',
  z.object({ success: z.literal(true), events: z.array(orderEventSchema) }),
);

export const orderCancelledResponseSchema = registry.register(
  'OrderCancelledResponse',
  z.object({
    success: z.literal(true),
    booking_id: bookingId,
    status: z.literal('cancelled'),
    message: z.string().openapi({ example: 'Order cancelled' }),
    reason: z.string().nullable(),
    cancellation_fee: z.number().int().min(0).openapi({ description: 'CLP kept (0: free); the rest of the price is reversed. Test mode: computed the same, never charged.', example: 990 }),
  }),
);

export const cancellationPreviewResponseSchema = registry.register(
  'CancellationPreviewResponse',
  z.object({
    success: z.literal(true),
    booking_id: bookingId,
    cancellable: z.boolean().openapi({ description: 'false once picked up (and when completed or cancelled): POST /cancel would answer 409 ORDER_NOT_CANCELLABLE.' }),
    fee: z.number().int().min(0).nullable().openapi({ description: 'CLP cancelling now would cost (never more than the price); null when not cancellable.', example: 990 }),
    currency: z.literal('CLP'),
    status: orderStatus.openapi({ description: 'The status the fee is read from: `new` free, `assigned` and `arrived_pickup` the tariff\'s fees.' }),
    valid_until: timestamp.nullable().openapi({ description: 'When the fee is expected to change (while assigned: the estimated pickup time, when the courier is due); null when unknown or never.' }),
  }),
);

export const deliveryPinResetResponseSchema = registry.register(
  'DeliveryPinResetResponse',
  z.object({
    success: z.literal(true),
    booking_id: bookingId,
    delivery_pin: z.string().regex(/^\d{4}$/).nullable().openapi({ description: 'The new PIN (the old one stops working); the tries start again. null on a multi-stop order (see stops).', example: '0937' }),
    message: z.string().openapi({ example: 'Delivery PIN reset' }),
    stops: z
      .array(z.object({ id: z.string(), delivery_pin: z.string().regex(/^\d{4}$/) }))
      .optional()
      .openapi({ description: "Multi-stop orders only, in route order: each stop's PIN (new for every stop still open)." }),
  }),
);

export const deliveryConfirmedResponseSchema = registry.register(
  'DeliveryConfirmedResponse',
  z.object({
    success: z.literal(true),
    booking_id: bookingId,
    status: z.enum(['completed', 'picked_up']).openapi({ description: '`completed`; a multi-stop order whose delivered stop was not its last goes on to the next stop: `picked_up`.' }),
    message: z.string().openapi({ example: 'Delivery confirmed' }),
    proof: deliveryProofSchema,
  }),
);

export const batchSchema = registry.register(
  'Batch',
  z.object({
    id: z.string(),
    status: z.enum(['pending', 'assigned', 'completed', 'cancelled']).openapi({ description: '`pending` until a courier with the vehicle takes it.' }),
    geohash_zone: z.string(),
    vehicle_type: vehicleType,
    order_ids: z.array(z.string()),
    total_weight_kg: z.number().min(0),
    courier_id: z.string().nullable(),
    is_test: z.boolean(),
    created_at: timestamp,
  }),
);

export const consolidationResponseSchema = registry.register(
  'ConsolidationResponse',
  z.object({
    success: z.literal(true),
    batches_created: z.number().int().min(0),
    batch_ids: z.array(z.string()),
    batches: z.array(batchSchema),
  }),
);

export const batchResponseSchema = registry.register('BatchResponse', z.object({ success: z.literal(true), batch: batchSchema }));

export const courierSchema = registry.register(
  'Courier',
  z.object({
    id: z.string(),
    name: z.string(),
    phone: z.string(),
    vehicle_type: vehicleType,
    vehicle_plate: z.string(),
    status: z.enum(['off_duty', 'available', 'busy']),
    is_test: z.boolean(),
    location: latLngWireSchema.nullable(),
    location_at: timestamp.nullable(),
    job: z.object({ kind: z.enum(['order', 'batch']), id: z.string() }).nullable().openapi({ description: 'The order or batch the courier is on while busy.' }),
    shift_ends_at: timestamp.nullable().openapi({ description: 'When the courier\'s duty is planned to end (set going on duty); null: no planned end, or off duty.' }),
  }),
);

export const courierResponseSchema = registry.register('CourierResponse', z.object({ success: z.literal(true), courier: courierSchema }));

export const courierCashSchema = registry.register(
  'CourierCash',
  z.object({
    currency: z.literal('CLP'),
    collected: z.number().int().openapi({ description: 'CLP claimed at doors that count, all time.' }),
    pending_confirmation: z.number().int().openapi({ description: 'CLP of claims far above their order\'s amount waiting for an operator: they count nowhere yet.' }),
    settled: z.number().int().openapi({ description: 'CLP handed over (recorded by an operator), all time.' }),
    balance: z.number().int().openapi({ description: 'Cash in hand: collected minus settled.' }),
  }),
);

export const courierSessionResponseSchema = registry.register(
  'CourierSessionResponse',
  z.object({ success: z.literal(true), courier: courierSchema, expires_at: z.string().openapi({ description: 'When the session ends, however used' }) }),
);

export const courierOrdersResponseSchema = registry.register(
  'CourierOrdersResponse',
  z.object({
    success: z.literal(true),
    orders: z
      .array(
        orderSchema.omit({ delivery_pin: true, delivery_pin_locked: true, stops: true }).extend({
          delivery_pin_required: z.boolean().openapi({ description: 'The recipient holds a delivery PIN: ask for it and send it as `pin` when confirming the delivery.' }),
          stops: z
            .array(orderStopSchema.omit({ delivery_pin: true, delivery_pin_locked: true }).extend({ delivery_pin_required: z.boolean() }))
            .optional()
            .openapi({ description: 'Multi-stop orders only, in route order: serve the first not delivered or failed.' }),
        }),
      )
      .openapi({ description: "The orders of the courier's current job (without the delivery PIN, which the recipient gives)." }),
  }),
);

export const courierArrivalsResponseSchema = registry.register(
  'CourierPositionResponse',
  z.object({
    success: z.literal(true),
    arrivals: z
      .array(z.object({ booking_id: bookingId, status: z.enum(['arrived_pickup', 'arrived_dropoff']) }))
      .openapi({ description: 'Orders whose arrival this position marked (within 50 m of the stop).' }),
  }),
);

export const orderStatusResponseSchema = registry.register(
  'OrderStatusResponse',
  z.object({ success: z.literal(true), booking_id: bookingId, status: orderStatus }),
);

export const failedAttemptResponseSchema = registry.register(
  'FailedAttemptResponse',
  z.object({
    success: z.literal(true), booking_id: bookingId,
    status: orderStatus.openapi({ description: 'Where the policy moved the order: `picked_up` (retry), `returning` or `disposed`.' }),
    attempts: z.number().int().openapi({ description: 'Failed attempts of this order so far.' }),
  }),
);

export const storefrontOrderResponseSchema = registry.register(
  'StorefrontOrderWebhookResponse',
  z.object({
    success: z.literal(true),
    created: z.boolean(),
    ignored: z.boolean().openapi({ description: 'true when acknowledged without a dispatch (unpaid, cancelled, or an address we cannot serve).' }),
    reason: z.string().nullable().openapi({ example: 'financial_status is pending, not paid' }),
    booking_id: z.string().nullable(),
    tracking_number: z.string().nullable(),
  }),
);

export const tipAddedResponseSchema = registry.register(
  'TipAddedResponse',
  z.object({
    success: z.literal(true),
    booking_id: bookingId,
    status: orderStatus.openapi({ description: 'Unchanged: a tip is not a status change.' }),
    amount: z.number().int().min(1).max(200_000).openapi({ description: 'CLP added by this request.', example: 2000 }),
    tip: z.number().int().min(1).max(200_000).openapi({ description: "CLP: the order's tip after it.", example: 3000 }),
    currency: z.literal('CLP'),
    message: z.string().openapi({ example: 'Tip added' }),
  }),
);

const earningsDelivery = registry.register(
  'CourierEarningsDelivery',
  z.object({
    booking_id: bookingId,
    order_number: z.string(),
    delivered_at: timestamp,
    dropoff_address: z.string(),
    delivery_pay: z.number().int().min(0).nullable().openapi({ description: "CLP the tariff pays the courier for the delivery: null, the tariff sets no courier pay (earnings are the tips)." }),
    tip: z.number().int().min(0).openapi({ description: 'CLP.' }),
  }),
);

export const courierEarningsResponseSchema = registry.register(
  'CourierEarningsResponse',
  z.object({
    success: z.literal(true),
    from: timestamp,
    to: timestamp,
    currency: z.literal('CLP'),
    deliveries: z.array(earningsDelivery).openapi({ description: 'Delivered in [from, to), oldest first; at most 500.' }),
    totals: z.object({
      deliveries: z.number().int().min(0),
      delivery_pay: z.number().int().min(0).nullable().openapi({ description: 'null: the tariff sets no courier pay.' }),
      tips: z.number().int().min(0),
      earnings: z.number().int().min(0).openapi({ description: 'CLP: delivery pay (none yet) plus tips.' }),
    }),
    truncated: z.boolean().openapi({ description: 'More than 500 deliveries fell in the range: ask for a shorter one (the totals count the listed ones).' }),
  }),
);
