import type { TrackingChange } from '../src/domain/tracking.js';
import type { CourierPositionUpdate, OrderStatusUpdate } from '../src/domain/watch/orders.js';
import { builder } from './builder.js';
import { merchantOf } from './merchants.js';
import { OrderRef, OrderStatusEnum } from './orders.js';
import { LatLngRef } from './locations.js';

builder.subscriptionType({});

const OrderStatusUpdateRef = builder.objectRef<OrderStatusUpdate>('OrderStatusUpdate').implement({
  fields: (t) => ({
    orderId: t.exposeID('orderId'),
    trackingNumber: t.exposeString('trackingNumber'),
    from: t.field({ type: OrderStatusEnum, nullable: true, resolve: (u) => u.from }),
    status: t.field({ type: OrderStatusEnum, resolve: (u) => u.status }),
    sequence: t.exposeInt('sequence'),
    at: t.field({ type: 'DateTime', resolve: (u) => u.at }),
    order: t.field({ type: OrderRef, nullable: true, resolve: (u) => u.order() }),
  }),
});

const CourierPositionRef = builder.objectRef<CourierPositionUpdate>('CourierPosition').implement({
  fields: (t) => ({
    orderId: t.exposeID('orderId'),
    location: t.field({ type: LatLngRef, resolve: (u) => u.location }),
    at: t.field({ type: 'DateTime', resolve: (u) => u.at }),
  }),
});

/** A public change and the reference it was asked by. */
type TrackingUpdate = { reference: string; change: TrackingChange };

const TrackingUpdateRef = builder.objectRef<TrackingUpdate>('TrackingUpdate').implement({
  description: "Public tracking: the order's status and the courier's position only, never customer data.",
  fields: (t) => ({
    reference: t.exposeString('reference'),
    status: t.field({ type: OrderStatusEnum, resolve: (u) => u.change.status }),
    location: t.field({ type: LatLngRef, nullable: true, resolve: (u) => (u.change.type === 'position' ? u.change.location : null) }),
    estimatedDeliveryTime: t.field({ type: 'DateTime', nullable: true, resolve: (u) => u.change.estimatedDeliveryAt }),
    at: t.field({ type: 'DateTime', resolve: (u) => u.change.at }),
  }),
});

// Each field only authenticates and hands over to one domain watch, which decides what the caller may see.
builder.subscriptionFields((t) => ({
  orderStatusChanged: t.field({
    type: OrderStatusUpdateRef,
    authScopes: { merchant: true },
    args: {
      id: t.arg.string({ required: true }),
      afterSequence: t.arg.int({
        description: "The sequence you already show (from the order's events): if the order has moved past it when the subscription starts, its current status is sent first.",
      }),
    },
    subscribe: (_r, args, ctx) =>
      ctx.services.orders.watch({ principal: merchantOf(ctx, 'operate'), ref: args.id, only: 'status', afterSequence: args.afterSequence ?? undefined }),
    resolve: (u) => u,
  }),
  courierPosition: t.field({
    type: CourierPositionRef,
    authScopes: { merchant: true },
    args: { id: t.arg.string({ required: true }) },
    subscribe: (_r, args, ctx) => ctx.services.orders.watch({ principal: merchantOf(ctx, 'operate'), ref: args.id, only: 'position' }),
    resolve: (u) => u,
  }),
  orderEvents: t.field({
    type: OrderStatusUpdateRef,
    description: "Every status change of the caller's orders (this merchant, this mode).",
    authScopes: { merchant: true },
    subscribe: (_r, _a, ctx) => ctx.services.orders.watchMerchant({ principal: merchantOf(ctx, 'operate') }),
    resolve: (u) => u,
  }),
  courierAssignments: t.field({
    type: OrderStatusUpdateRef,
    description: "Status changes of the calling courier's orders (new assignments included).",
    authScopes: { courier: true },
    subscribe: (_r, _a, ctx) => ctx.services.couriers.watchAssignments({ courier: ctx.courier! }),
    resolve: (u) => u,
  }),
  tracking: t.field({
    type: TrackingUpdateRef,
    description: 'Public: needs no credentials.',
    args: { reference: t.arg.string({ required: true }) },
    subscribe: (_r, args, ctx) => ctx.services.tracking.watch({ reference: args.reference }),
    resolve: (change, args) => ({ reference: args.reference.trim(), change }),
  }),
}));
