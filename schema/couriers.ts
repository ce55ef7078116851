import { advanceOrderCommandSchema, releaseOrderCommandSchema, reportPositionCommandSchema, setDutyCommandSchema } from '../src/domain/couriers.js';
import { AppError, GeofenceError } from '../src/domain/errors.js';
import { confirmDeliveryCommandSchema } from '../src/domain/orders/schemas.js';
import type { Courier } from '../src/domain/types.js';
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';
import { commandOf } from './commands.js';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './idempotency.js';
import { LatLngRef } from './locations.js';
import { DriverRef, OrderRef, OrderStatusEnum } from './orders.js';
import { LatLngInput } from './locations.js';
import { IdCheckInput } from './id-checks.js';
import { confirmReturnCommandSchema, reportFailedAttemptCommandSchema } from '../src/domain/orders/failed-attempts.js';
import { FailedAttemptReasonEnum } from './failed-attempts.js';
import { ORDER_STATUS_SETS } from '../src/domain/vocabulary.js';

export function courierOf(ctx: GraphQLContext): Courier {
  if (!ctx.courier) throw new AppError('INVALID_COURIER_TOKEN', 'Courier token missing or invalid');
  return ctx.courier.courier;
}

const CourierRef = builder.objectRef<Courier>('Courier').implement({
  description: "The calling courier's own profile and duty state.",
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    status: t.exposeString('status'),
    isTest: t.boolean({ resolve: (c) => c.mode === 'test' }),
    location: t.field({ type: LatLngRef, nullable: true, resolve: (c) => c.location }),
    shiftEndsAt: t.field({ type: 'DateTime', nullable: true, description: 'When the duty is planned to end (set going on duty); null: no planned end, or off duty.', resolve: (c) => c.shiftEndsAt }),
    driver: t.field({ type: DriverRef, resolve: (c) => c }),
    activeOrders: t.field({ type: [OrderRef], resolve: (c, _a, ctx) => ctx.services.couriers.activeOrders(c) }),
  }),
});

const PositionInput = builder.inputType('PositionInput', {
  fields: (t) => ({
    lat: t.float({ required: true }),
    lng: t.float({ required: true }),
    heading: t.float(),
    speedKmh: t.float(),
    accuracyM: t.float(),
    recordedAt: t.field({ type: 'DateTime', description: 'When the phone took the fix (a backlog after a dead zone): within the last 24 h; a fix older than the stored one is not stored.' }),
  }),
});

const CourierStatusEnum = builder.enumType('CourierOrderStatus', { values: ORDER_STATUS_SETS.courierMoves });

builder.queryFields((t) => ({
  courier: t.field({
    type: CourierRef,
    authScopes: { courier: true },
    resolve: (_r, _a, ctx) => ctx.services.couriers.getProfile({ courier: courierOf(ctx) }),
  }),
}));

builder.mutationFields((t) => ({
  courierSetDuty: t.field({
    type: CourierRef,
    authScopes: { courier: true },
    errors: {},
    description:
      'On or off duty (off is refused while busy). `shiftEndsAt`, going on duty (or already on duty, to change it; null clears it): the planned end, ' +
      'in the future and at most 16 h ahead. Dispatch offers nothing whose predicted pickup falls after it; once it passes, the courier goes off duty as soon as it carries nothing.',
    args: {
      onDuty: t.arg.boolean({ required: true }),
      shiftEndsAt: t.arg({ type: 'DateTime' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }),
    },
    resolve: (_r, { idempotencyKey, ...args }, ctx) => {
      const [courier, input] = [courierOf(ctx), commandOf(setDutyCommandSchema, args)];
      return ctx.services.couriers.setDuty({ courier, input, idempotencyKey: idempotencyKey ?? undefined });
    },
  }),
  courierReportPosition: t.field({
    type: [OrderRef],
    description: 'Orders whose arrival this position marked.',
    authScopes: { courier: true },
    errors: {},
    args: { input: t.arg({ type: PositionInput, required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: async (_r, { input: given, idempotencyKey }, ctx) => {
      const [courier, input] = [courierOf(ctx), commandOf(reportPositionCommandSchema, given)];
      const result = await ctx.services.couriers.reportPosition({ courier, input, idempotencyKey: idempotencyKey ?? undefined });
      return result.arrivals;
    },
  }),
  courierAdvanceOrder: t.field({
    type: OrderRef,
    authScopes: { courier: true },
    errors: {},
    args: {
      id: t.arg.id({ required: true }),
      status: t.arg({ type: CourierStatusEnum, required: true }),
      stopId: t.arg.id({ description: 'A multi-stop order arriving (arrived_dropoff): the stop, which must be the current one (default: the current one).' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }),
    },
    resolve: (_r, args, ctx) => {
      const [courier, ref] = [courierOf(ctx), String(args.id)];
      const input = commandOf(advanceOrderCommandSchema, { status: args.status, stop_id: args.stopId == null ? args.stopId : String(args.stopId) });
      return ctx.services.couriers.advanceOrder({ courier, ref, input, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
  courierReleaseOrder: t.field({
    type: OrderRef,
    authScopes: { courier: true },
    errors: {},
    args: { id: t.arg.id({ required: true }), reason: t.arg.string(), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_r, args, ctx) => {
      const [courier, ref, input] = [courierOf(ctx), String(args.id), commandOf(releaseOrderCommandSchema, { reason: args.reason })];
      return ctx.services.couriers.releaseOrder({ courier, ref, input, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
  courierConfirmDelivery: t.field({
    type: OrderRef,
    authScopes: { courier: true },
    errors: { types: [GeofenceError] },
    args: {
      id: t.arg.id({ required: true }),
      coords: t.arg({ type: LatLngInput, required: true }),
      photoUrl: t.arg.string({ description: 'An external https URL of the photo; or give photoProofId.' }),
      signatureUrl: t.arg.string({ description: 'An external https URL of the signature; or give signatureProofId.' }),
      photoProofId: t.arg.string({ description: 'A photo uploaded for this order (POST /api/v1/couriers/me/orders/{id}/proof?kind=photo); or give photoUrl.' }),
      signatureProofId: t.arg.string({ description: 'A signature uploaded for this order (…/proof?kind=signature); or give signatureUrl.' }),
      geofenceRadius: t.arg.float(),
      bypass: t.arg.boolean(),
      pin: t.arg.string({ description: "The recipient's 4-digit delivery PIN, when the order has one (deliveryPinRequired)." }),
      idCheck: t.arg({ type: IdCheckInput, description: "The recipient's ID (RUT and date of birth), when the order has idCheck." }),
      codCollected: t.arg.int({ description: 'The CLP collected, required on a cash-on-delivery order (a different amount than its codAmount is recorded as a mismatch).' }),
      stopId: t.arg.id({ description: 'A multi-stop order: the stop delivered, which must be the current one (default: the current one).' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }),
    },
    resolve: async (_r, { id, idempotencyKey, stopId, ...args }, ctx) => {
      const [courier, ref] = [courierOf(ctx), String(id)];
      const input = commandOf(confirmDeliveryCommandSchema, { driverId: courier.id, ...args, stopId: stopId == null ? stopId : String(stopId) });
      const result = await ctx.services.couriers.confirmDelivery({ courier, ref, input, idempotencyKey: idempotencyKey ?? undefined });
      return result.order;
    },
  }),
  courierReportFailedAttempt: t.field({
    type: OrderRef,
    description: "A failed delivery attempt: recorded (delivery_failed), then moved on by the order's failedAttemptPolicy (picked_up, returning or disposed).",
    authScopes: { courier: true },
    errors: {},
    args: {
      id: t.arg.id({ required: true }),
      reason: t.arg({ type: FailedAttemptReasonEnum, required: true }),
      note: t.arg.string(),
      photoProofId: t.arg.string({ description: 'A photo uploaded for this order (…/proof?kind=photo).' }),
      coords: t.arg({ type: LatLngInput, required: true }),
      stopId: t.arg.id({ description: 'A multi-stop order: the stop that failed, which must be the current one (default: the current one).' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }),
    },
    resolve: (_r, { id, idempotencyKey, stopId, ...args }, ctx) => {
      const [courier, ref, input] = [courierOf(ctx), String(id), commandOf(reportFailedAttemptCommandSchema, Object.assign({}, args, { stopId: stopId == null ? stopId : String(stopId) }))];
      return ctx.services.couriers.reportFailedAttempt({ courier, ref, input, idempotencyKey: idempotencyKey ?? undefined });
    },
  }),
  courierConfirmReturn: t.field({
    type: OrderRef,
    description: 'A returning order is back at the pickup: proven like a delivery, geofenced on the pickup; the order ends returned.',
    authScopes: { courier: true },
    errors: { types: [GeofenceError] },
    args: {
      id: t.arg.id({ required: true }),
      coords: t.arg({ type: LatLngInput, required: true }),
      photoUrl: t.arg.string(),
      signatureUrl: t.arg.string(),
      photoProofId: t.arg.string(),
      signatureProofId: t.arg.string(),
      geofenceRadius: t.arg.float(),
      bypass: t.arg.boolean(),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }),
    },
    resolve: (_r, { id, idempotencyKey, ...args }, ctx) => {
      const [courier, ref, input] = [courierOf(ctx), String(id), commandOf(confirmReturnCommandSchema, args)];
      return ctx.services.couriers.confirmReturn({ courier, ref, input, idempotencyKey: idempotencyKey ?? undefined });
    },
  }),
}));

export { OrderStatusEnum };
