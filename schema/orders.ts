import type { Batch, Courier, DeliveryProof, FailedAttempt, Order, OrderEvent, Stop } from '../src/domain/types.js';
import {
  cancelOrderCommandSchema,
  confirmDeliveryCommandSchema,
  consolidateCommandSchema,
  createOrderCommandSchema,
  listOrdersQuerySchema,
} from '../src/domain/orders/schemas.js';
import type { CancellationPreview } from '../src/domain/orders/cancellation.js';
import { DELIVERY_PIN_MAX_ATTEMPTS } from '../src/domain/orders/delivery.js';
import { DEFAULT_FAILED_ATTEMPT_POLICY } from '../src/domain/orders/failed-attempts.js';
import { isOrderCancellable } from '../src/domain/orders/state-machine.js';
import { courierSeesCustomerPhone } from '../src/domain/orders/contact-privacy.js';
import { FailedAttemptPolicyEnum, FailedAttemptReasonEnum } from './failed-attempts.js';
import { GEOFENCE_OUTCOMES, LOCATION_PRECISIONS, ORDER_STATUSES, PAYMENT_MODES, RATE_IDS, VEHICLE_TYPES } from '../src/domain/types.js';
import { noteCodeOf } from '../src/domain/orders/notes.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './idempotency.js';
import { LatLngInput, LatLngRef, LocationInput, toLocationInput } from './locations.js';
import { merchantOf } from './merchants.js';
import { DimensionsInput, DimensionsRef, OrderItemRef } from './parcels.js';
import { IdCheckInput, IdCheckRef, IdCheckRequirementInput, IdCheckRequirementRef } from './id-checks.js';
import { GeofenceError, ParcelCapacityError } from '../src/domain/errors.js';
import { RouteOrderEnum, StopInput, toStopInputs } from './stop-inputs.js';

export const OrderStatusEnum = builder.enumType('OrderStatus', { values: ORDER_STATUSES });
const PaymentModeEnum = builder.enumType('PaymentMode', { values: PAYMENT_MODES });
export const VehicleTypeEnum = builder.enumType('Vehicle', { values: VEHICLE_TYPES });
export const RateIdEnum = builder.enumType('RateId', { values: RATE_IDS });

export const LocationPrecisionEnum = builder.enumType('LocationPrecision', {
  values: LOCATION_PRECISIONS,
  description: 'coordinates: given by the caller; street: the street geocoder matched the house number; locality: only the comuna is known (its point).',
});
const GeofenceOutcomeEnum = builder.enumType('GeofenceOutcome', {
  values: GEOFENCE_OUTCOMES,
  description: 'passed: within the radius of a precise drop-off; bypassed: skipped on request; unverified: a locality-precision drop-off, accepted unchecked.',
});

const CancellationPreviewRef = builder.objectRef<CancellationPreview>('CancellationPreview').implement({
  description: 'Free while new; the tariff\'s fee once a courier is assigned, a higher one once at the pickup; not cancellable after pickup.',
  fields: (t) => ({
    cancellable: t.exposeBoolean('cancellable'),
    fee: t.exposeInt('fee', { nullable: true, description: 'CLP (never more than the price); null when not cancellable.' }),
    currency: t.exposeString('currency'),
    basis: t.field({ type: OrderStatusEnum, description: 'The status the fee is read from.', resolve: (p) => p.basis }),
    validUntil: t.field({ type: 'DateTime', nullable: true, description: 'When the fee is expected to change (the courier due at the pickup); null: unknown or never.', resolve: (p) => p.validUntil }),
  }),
});

export const StopRef = builder.objectRef<Stop>('Stop').implement({
  fields: (t) => ({
    address: t.string({ nullable: true, resolve: (s) => s.address ?? s.label }),
    number: t.exposeString('number', { nullable: true }),
    instructions: t.exposeString('instructions', { nullable: true }),
    lat: t.exposeFloat('lat'),
    lng: t.exposeFloat('lng'),
    geohash: t.exposeString('geohash'),
    precision: t.field({ type: LocationPrecisionEnum, resolve: (s) => s.precision }),
  }),
});

export const DriverRef = builder.objectRef<Courier>('Driver').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    phone: t.exposeString('phone'),
    vehicleType: t.field({ type: VehicleTypeEnum, resolve: (c) => c.vehicle }),
    vehiclePlate: t.exposeString('plate'),
    currentLocation: t.field({ type: LatLngRef, nullable: true, resolve: (c) => c.location }),
  }),
});

export const ProofRef = builder.objectRef<DeliveryProof>('DeliveryProof').implement({
  fields: (t) => ({
    driverId: t.exposeID('driverId'),
    coords: t.field({ type: LatLngRef, resolve: (p) => p.coords }),
    distanceM: t.exposeFloat('distanceM'),
    radiusM: t.exposeFloat('radiusM'),
    bypass: t.exposeBoolean('bypass'),
    geofence: t.field({ type: GeofenceOutcomeEnum, resolve: (p) => p.geofence }),
    photoUrl: t.string({ description: 'An external link, or a signed, expiring link to the hosted proof', resolve: (p, _a, ctx) => (p.photoProofId ? ctx.services.proofs.signedUrl(p.photoProofId) : p.photoUrl) }),
    signatureUrl: t.string({ resolve: (p, _a, ctx) => (p.signatureProofId ? ctx.services.proofs.signedUrl(p.signatureProofId) : p.signatureUrl) }),
    deliveredAt: t.field({ type: 'DateTime', resolve: (p) => p.deliveredAt }),
    idCheck: t.field({ type: IdCheckRef, nullable: true, resolve: (p) => p.idCheck ?? null }),
  }),
});

const FailedAttemptRef = builder.objectRef<FailedAttempt>('FailedAttempt').implement({
  fields: (t) => ({
    reason: t.field({ type: FailedAttemptReasonEnum, resolve: (a) => a.reason }),
    note: t.exposeString('note', { nullable: true }),
    photoUrl: t.string({ nullable: true, description: 'A signed, expiring link to the uploaded photo.', resolve: (a, _x, ctx) => (a.photoProofId ? ctx.services.proofs.signedUrl(a.photoProofId) : null) }),
    coords: t.field({ type: LatLngRef, resolve: (a) => a.coords }),
    courierId: t.exposeID('courierId'),
    at: t.field({ type: 'DateTime', resolve: (a) => a.at }),
    outcome: t.field({ type: OrderStatusEnum, resolve: (a) => a.outcome }),
  }),
});

export const OrderEventRef = builder.objectRef<OrderEvent>('OrderEvent').implement({
  fields: (t) => ({
    sequence: t.exposeInt('sequence'),
    from: t.field({ type: OrderStatusEnum, nullable: true, resolve: (e) => e.from }),
    status: t.field({ type: OrderStatusEnum, resolve: (e) => e.to }),
    actorKind: t.string({ resolve: (e) => e.actor.kind }),
    actorId: t.string({ nullable: true, resolve: (e) => e.actor.id }),
    location: t.field({ type: LatLngRef, nullable: true, resolve: (e) => e.location }),
    reason: t.exposeString('reason', { nullable: true }),
    reasonCode: t.string({
      nullable: true,
      description: "The note's code, to word it in the reader's language: a note the service wrote (consolidated, courierDisabled, operatorReleased, operatorReassigned, geofenceBypassed, geofenceUnverified, sandboxCancelled, sandboxDroppedOut) or a failed attempt's reason (recipient_absent…); null for a person's own words.",
      resolve: (e) => noteCodeOf(e.reason),
    }),
    at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
  }),
});

export const OrderRef = builder.objectRef<Order>('Order').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The booking id' }),
    orderNumber: t.exposeString('orderNumber'),
    trackingNumber: t.exposeString('trackingNumber'),
    trackingUrl: t.string({ resolve: (o, _a, ctx) => ctx.services.trackingLinks.urlOf(o) }),
    referenceId: t.exposeString('referenceId', { nullable: true }),
    ecommerceOrderId: t.exposeString('ecommerceOrderId', { nullable: true }),
    isTest: t.boolean({ resolve: (o) => o.mode === 'test' }),
    status: t.field({ type: OrderStatusEnum, resolve: (o) => o.status }),
    pickup: t.field({ type: StopRef, resolve: (o) => o.pickup }),
    dropoff: t.field({ type: StopRef, resolve: (o) => o.dropoff }),
    customerName: t.string({ resolve: (o) => o.customer.name }),
    customerPhone: t.string({
      nullable: true,
      description: "The recipient's phone; a courier sees it only while the order is its open job (null after delivery, on the way back, or once another courier has it).",
      resolve: (o, _a, ctx) => (ctx.courier && !courierSeesCustomerPhone(o, ctx.courier.courier.id) ? null : o.customer.phone),
    }),
    customerRut: t.string({ nullable: true, resolve: (o) => o.customer.rut }),
    isRegisteredUser: t.boolean({ resolve: (o) => o.customer.isRegisteredUser }),
    paymentMode: t.field({ type: PaymentModeEnum, resolve: (o) => o.paymentMode }),
    notes: t.exposeString('notes', { nullable: true }),
    weightKg: t.exposeFloat('weightKg'),
    dimensions: t.field({ type: DimensionsRef, nullable: true, resolve: (o) => o.dimensions ?? null }),
    items: t.field({ type: [OrderItemRef], description: 'The line items as sent (name, quantity, weight and sides where given).', resolve: (o) => o.items }),
    vehicleType: t.field({ type: VehicleTypeEnum, resolve: (o) => o.vehicleType }),
    price: t.exposeInt('price'),
    currency: t.exposeString('currency'),
    prepTimeMins: t.exposeInt('prepTimeMins'),
    estimatedPickupTime: t.field({ type: 'DateTime', resolve: (o) => o.estimatedPickupAt }),
    estimatedDeliveryTime: t.field({ type: 'DateTime', resolve: (o) => o.estimatedDeliveryAt }),
    scheduledPickupAt: t.field({ type: 'DateTime', nullable: true, description: 'The requested pickupAfter; the order stays new until its window opens.', resolve: (o) => o.scheduledPickupAt ?? null }),
    deliverBefore: t.field({ type: 'DateTime', nullable: true, resolve: (o) => o.deliverBefore ?? null }),
    batchWindowClosesAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Batched rate only: the order waits for batched orders in its zone to ride with until then, then goes (alone if nothing joined); its estimates include the wait.',
      resolve: (o) => o.batchWindow?.closesAt ?? null,
    }),
    quoteId: t.id({ nullable: true, description: 'The bound quote the order was priced from.', resolve: (o) => o.quote?.id ?? null }),
    rateId: t.field({ type: RateIdEnum, nullable: true, resolve: (o) => o.quote?.rateId ?? null }),
    deliveryPin: t.string({
      nullable: true,
      description: "The 4-digit PIN for the recipient: only to the order's merchant (null for a courier, and when the order has none).",
      resolve: (o, _a, ctx) => (ctx.merchant?.merchant.id === o.merchantId ? (o.deliveryPin?.pin ?? null) : null),
    }),
    deliveryPinRequired: t.boolean({ description: 'Confirming the delivery needs the recipient\'s PIN.', resolve: (o) => !!o.deliveryPin }),
    deliveryPinLocked: t.boolean({
      description: '5 wrong PINs were tried: the delivery is refused until the merchant resets the PIN (resetDeliveryPin).',
      resolve: (o) => !!o.deliveryPin && o.deliveryPin.failedAttempts >= DELIVERY_PIN_MAX_ATTEMPTS,
    }),
    idCheck: t.field({ type: IdCheckRequirementRef, nullable: true, resolve: (o) => o.idCheck ?? null }),
    driver: t.field({
      type: DriverRef,
      nullable: true,
      resolve: (order, _a, ctx) => ctx.services.orders.driverOf({ order }),
    }),
    batchId: t.exposeID('batchId', { nullable: true }),
    proof: t.field({ type: ProofRef, nullable: true, resolve: (o) => o.proof }),
    cancellable: t.boolean({ description: 'The order can still be cancelled: not yet picked up (new, assigned or at the pickup).', resolve: (o) => isOrderCancellable(o) }),
    cancellationReason: t.string({ nullable: true, resolve: (o) => o.cancellation?.reason ?? null }),
    cancellationFee: t.int({
      nullable: true,
      description: "CLP kept on cancelling (the rest of the price is reversed); null unless cancelled. Test mode: computed the same, never charged.",
      resolve: (o) => o.cancellation?.fee ?? null,
    }),
    cancellationPreview: t.field({
      type: CancellationPreviewRef,
      nullable: true,
      description: "What cancelling now would cost and until when: only to the order's merchant (null for anyone else).",
      resolve: (o, _a, ctx) => (ctx.merchant?.merchant.id === o.merchantId ? ctx.services.orders.cancellationOf({ order: o }) : null),
    }),
    failedAttemptPolicy: t.field({ type: FailedAttemptPolicyEnum, resolve: (o) => o.failedAttemptPolicy ?? DEFAULT_FAILED_ATTEMPT_POLICY }),
    failedAttempts: t.field({ type: [FailedAttemptRef], resolve: (o) => o.failedAttempts ?? [] }),
    returnFee: t.int({ nullable: true, description: "CLP: the tariff's return fee, charged when the return leg started; null without one. Test mode: never charged.", resolve: (o) => o.returnLeg?.fee ?? null }),
    returnProof: t.field({ type: ProofRef, nullable: true, description: 'The proof at the pickup once returned.', resolve: (o) => o.returnLeg?.proof ?? null }),
    events: t.field({ type: [OrderEventRef], resolve: (order, _a, ctx) => ctx.services.orders.eventsOf({ order }) }),
    createdAt: t.field({ type: 'DateTime', resolve: (o) => o.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (o) => o.updatedAt }),
  }),
});

export const BatchRef = builder.objectRef<Batch>('Batch').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.exposeString('status'),
    geohashZone: t.exposeString('geohashZone'),
    vehicleType: t.field({ type: VehicleTypeEnum, resolve: (b) => b.vehicleType }),
    totalWeightKg: t.exposeFloat('totalWeightKg'),
    courierId: t.exposeID('courierId', { nullable: true }),
    orders: t.field({
      type: [OrderRef],
      resolve: (batch, _a, ctx) => ctx.services.batches.ordersOf({ batch }),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (b) => b.createdAt }),
  }),
});

export const PageInfoRef = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>('PageInfo').implement({
  fields: (t) => ({ hasNextPage: t.exposeBoolean('hasNextPage'), endCursor: t.exposeString('endCursor', { nullable: true }) }),
});
const OrderEdgeRef = builder.objectRef<Order>('OrderEdge').implement({
  fields: (t) => ({ cursor: t.exposeString('id'), node: t.field({ type: OrderRef, resolve: (o) => o }) }),
});
const OrderConnectionRef = builder.objectRef<{ orders: Order[]; nextCursor: string | null }>('OrderConnection').implement({
  fields: (t) => ({
    edges: t.field({ type: [OrderEdgeRef], resolve: (c) => c.orders }),
    nodes: t.field({ type: [OrderRef], resolve: (c) => c.orders }),
    pageInfo: t.field({ type: PageInfoRef, resolve: (c) => ({ hasNextPage: c.nextCursor !== null, endCursor: c.nextCursor }) }),
  }),
});

builder.queryFields((t) => ({
  order: t.field({
    type: OrderRef,
    authScopes: { merchant: true },
    errors: {},
    description: 'An order by booking id, reference id, shop order id, tracking number or order number.',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => ctx.services.orders.getOrder({ principal: merchantOf(ctx, 'operate'), ref: args.id }),
  }),
  orders: t.field({
    type: OrderConnectionRef,
    authScopes: { merchant: true },
    errors: {},
    args: {
      first: t.arg.int(),
      after: t.arg.string(),
      status: t.arg({ type: [OrderStatusEnum] }),
      createdFrom: t.arg({ type: 'DateTime' }),
      createdTo: t.arg({ type: 'DateTime' }),
    },
    resolve: (_r, { first, ...args }, ctx) =>
      ctx.services.orders.listOrders({ principal: merchantOf(ctx, 'operate'), input: commandOf(listOrdersQuerySchema, { limit: first, ...args }) }),
  }),
  batch: t.field({
    type: BatchRef,
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => ctx.services.batches.getBatch({ principal: merchantOf(ctx, 'operate'), id: String(args.id) }),
  }),
  batches: t.field({
    type: [BatchRef],
    authScopes: { merchant: true },
    args: { first: t.arg.int(), after: t.arg.id() },
    resolve: (_r, args, ctx) =>
      ctx.services.batches.listBatches({
        principal: merchantOf(ctx, 'operate'),
        ...(args.first != null && { limit: args.first }),
        ...(args.after != null && { after: String(args.after) }),
      }),
  }),
}));

const OrderItemInput = builder.inputType('OrderItemInput', {
  fields: (t) => ({ name: t.string(), quantity: t.int(), weightKg: t.float(), lengthCm: t.float(), widthCm: t.float(), heightCm: t.float() }),
});

export const CreateOrderInput = builder.inputType('CreateOrderInput', {
  fields: (t) => ({
    pickup: t.field({ type: LocationInput }),
    dropoff: t.field({ type: LocationInput, description: 'One drop-off; a multi-stop order gives stops instead (exactly one of the two).' }),
    stops: t.field({ type: [StopInput], description: '1–10 drop-offs, served in route order (a multi-stop order; not with dropoff or quoteId).' }),
    route: t.field({ type: RouteOrderEnum, description: 'The visiting order of stops (default given).' }),
    customerName: t.string({ required: true }),
    customerPhone: t.string({ required: true }),
    customerEmail: t.string({ description: 'For email notifications to the recipient.' }),
    customerRut: t.string(),
    paymentMode: t.field({ type: PaymentModeEnum }),
    referenceId: t.string(),
    items: t.field({ type: [OrderItemInput] }),
    totalWeightKg: t.float(),
    dimensions: t.field({ type: DimensionsInput, description: "The whole parcel's outer size (else the items' sizes are summed)." }),
    prepTimeMins: t.int(),
    notes: t.string(),
    quoteId: t.id({ description: 'A quote of yours (15 minutes): the order is charged exactly its rate.' }),
    rateId: t.field({ type: RateIdEnum, description: 'The quoted rate to book (default express); only with quoteId.' }),
    pickupAfter: t.field({ type: 'DateTime', description: 'Scheduled pickup, up to 7 days ahead.' }),
    deliverBefore: t.field({ type: 'DateTime' }),
    deliveryPin: t.boolean({ description: 'Issue a 4-digit delivery PIN for the recipient.' }),
    idCheck: t.field({ type: IdCheckRequirementInput, description: "The courier checks the recipient's ID (RUT and age) before the delivery." }),
    codAmount: t.int({ description: 'Cash on delivery: CLP (1–10,000,000) the courier collects. Only with paymentMode cash_on_delivery (refused otherwise); without it the amount is unknown and the courier records what was collected.' }),
    failedAttemptPolicy: t.field({ type: FailedAttemptPolicyEnum, description: 'What a failed delivery attempt leads to (default return).' }),
    tip: t.int({ description: "The courier's tip, CLP 0–200,000 (more may be added with addTip until 24 h after the delivery)." }),
  }),
});

const DeliveryInput = builder.inputType('ConfirmDeliveryInput', {
  fields: (t) => ({
    driverId: t.id({ required: true }),
    coords: t.field({ type: LatLngInput, required: true }),
    photoUrl: t.string({ required: true }),
    signatureUrl: t.string({ required: true }),
    geofenceRadius: t.float(),
    bypass: t.boolean(),
    pin: t.string({ description: "The recipient's 4-digit delivery PIN, when the order has one." }),
    idCheck: t.field({ type: IdCheckInput, description: "The recipient's ID, when the order has idCheck." }),
    codCollected: t.int({ description: 'The CLP collected, required on a cash-on-delivery order (a different amount than its codAmount is recorded as a mismatch).' }),
    stopId: t.id({ description: 'A multi-stop order: the stop delivered, which must be the current one (default: the current one).' }),
  }),
});

const ConsolidationRef = builder.objectRef<Batch[]>('Consolidation').implement({
  fields: (t) => ({
    batchesCreated: t.int({ resolve: (b) => b.length }),
    batches: t.field({ type: [BatchRef], resolve: (b) => b }),
  }),
});

/** CreateOrderInput as the domain's command (also a sandbox run's order). */
export function createOrderCommandOf(input: typeof CreateOrderInput.$inferInput) {
  return commandOf(createOrderCommandSchema, Object.assign({}, input, {
    pickup: toLocationInput(input.pickup), dropoff: toLocationInput(input.dropoff), stops: toStopInputs(input.stops), quoteId: input.quoteId == null ? input.quoteId : String(input.quoteId),
    // Line items are kept as the merchant's own records, whose fields are snake_case (as in REST).
    items: input.items?.map(({ weightKg, lengthCm, widthCm, heightCm, ...item }) =>
      Object.assign(item, { weight_kg: weightKg, length_cm: lengthCm, width_cm: widthCm, height_cm: heightCm })),
  }));
}

builder.mutationFields((t) => ({
  createOrder: t.field({
    type: OrderRef,
    authScopes: { merchant: true },
    errors: { types: [ParcelCapacityError] },
    args: { input: t.arg({ type: CreateOrderInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: async (_r, { input, idempotencyKey }, ctx) => {
      const command = createOrderCommandOf(input);
      const result = await ctx.services.orders.createOrder({
        principal: merchantOf(ctx, 'operate'), input: command, ...(idempotencyKey != null && { idempotencyKey }),
      });
      return result.order;
    },
  }),
  cancelOrder: t.field({
    type: OrderRef,
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.string({ required: true }), reason: t.arg.string(), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_r, args, ctx) => {
      const [principal, ref, input] = [merchantOf(ctx, 'operate'), args.id, commandOf(cancelOrderCommandSchema, { reason: args.reason })];
      return ctx.services.orders.cancelOrder({ principal, ref, input, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
  confirmDelivery: t.field({
    type: OrderRef,
    authScopes: { merchant: true },
    errors: { types: [GeofenceError] },
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: DeliveryInput, required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: async (_r, { id: ref, input, idempotencyKey }, ctx) => {
      const command = commandOf(confirmDeliveryCommandSchema, Object.assign({}, input, { driverId: String(input.driverId), stopId: input.stopId == null ? input.stopId : String(input.stopId) }));
      const principal = merchantOf(ctx, 'operate');
      const result = await ctx.services.delivery.confirmDelivery({ principal, ref, input: command, idempotencyKey: idempotencyKey ?? undefined });
      return result.order;
    },
  }),
  resetDeliveryPin: t.field({
    type: OrderRef,
    authScopes: { merchant: true },
    errors: {},
    description: 'A new delivery PIN (the old one stops working; the wrong tries start again, unlocking the delivery).',
    args: { id: t.arg.string({ required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_r, args, ctx) => {
      const [principal, ref] = [merchantOf(ctx, 'operate'), args.id];
      return ctx.services.delivery.resetDeliveryPin({ principal, ref, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
  consolidateOrders: t.field({
    type: ConsolidationRef,
    authScopes: { merchant: true },
    errors: {},
    args: { geohashZone: t.arg.string({ required: true }), targetCarType: t.arg({ type: VehicleTypeEnum }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_r, { idempotencyKey, ...args }, ctx) => {
      const [principal, input] = [merchantOf(ctx, 'operate'), commandOf(consolidateCommandSchema, args)];
      return ctx.services.batches.consolidateOrders({ principal, input, idempotencyKey: idempotencyKey ?? undefined });
    },
  }),
}));
