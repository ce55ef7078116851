import { advanceOrderCommandSchema, releaseOrderCommandSchema, reportPositionCommandSchema, setDutyCommandSchema } from '../src/domain/couriers.js';
import { AppError, GeofenceError } from '../src/domain/errors.js';
import { confirmDeliveryCommandSchema } from '../src/domain/orders/schemas.js';
import type { Courier } from '../src/domain/types.js';
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';
import { commandOf } from './commands.js';
import { LatLngRef } from './locations.js';
import { DriverRef, OrderRef, OrderStatusEnum } from './orders.js';
import { LatLngInput } from './locations.js';

function courierOf(ctx: GraphQLContext): Courier {
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
  }),
});

const CourierStatusEnum = builder.enumType('CourierOrderStatus', { values: ['arrived_pickup', 'picked_up', 'arrived_dropoff'] as const });

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
    args: { onDuty: t.arg.boolean({ required: true }) },
    resolve: (_r, args, ctx) => ctx.services.couriers.setDuty({ courier: courierOf(ctx), input: commandOf(setDutyCommandSchema, args) }),
  }),
  courierReportPosition: t.field({
    type: [OrderRef],
    description: 'Orders whose arrival this position marked.',
    authScopes: { courier: true },
    errors: {},
    args: { input: t.arg({ type: PositionInput, required: true }) },
    resolve: async (_r, { input }, ctx) =>
      (await ctx.services.couriers.reportPosition({ courier: courierOf(ctx), input: commandOf(reportPositionCommandSchema, input) })).arrivals,
  }),
  courierAdvanceOrder: t.field({
    type: OrderRef,
    authScopes: { courier: true },
    errors: {},
    args: { id: t.arg.id({ required: true }), status: t.arg({ type: CourierStatusEnum, required: true }) },
    resolve: (_r, args, ctx) =>
      ctx.services.couriers.advanceOrder({ courier: courierOf(ctx), ref: String(args.id), input: commandOf(advanceOrderCommandSchema, { status: args.status }) }),
  }),
  courierReleaseOrder: t.field({
    type: OrderRef,
    authScopes: { courier: true },
    errors: {},
    args: { id: t.arg.id({ required: true }), reason: t.arg.string() },
    resolve: (_r, args, ctx) =>
      ctx.services.couriers.releaseOrder({ courier: courierOf(ctx), ref: String(args.id), input: commandOf(releaseOrderCommandSchema, { reason: args.reason }) }),
  }),
  courierConfirmDelivery: t.field({
    type: OrderRef,
    authScopes: { courier: true },
    errors: { types: [GeofenceError] },
    args: {
      id: t.arg.id({ required: true }),
      coords: t.arg({ type: LatLngInput, required: true }),
      photoUrl: t.arg.string({ required: true }),
      signatureUrl: t.arg.string({ required: true }),
      geofenceRadius: t.arg.float(),
      bypass: t.arg.boolean(),
    },
    resolve: async (_r, { id, ...args }, ctx) => {
      const courier = courierOf(ctx);
      const input = commandOf(confirmDeliveryCommandSchema, { driverId: courier.id, ...args });
      return (await ctx.services.couriers.confirmDelivery({ courier, ref: String(id), input })).order;
    },
  }),
}));

export { OrderStatusEnum };
