import type { CourierPositionMessage, OrderStatusMessage } from '../src/ports/event-bus.js';
import type { TrackingView } from '../src/domain/tracking.js';
import { busIterator } from '../realtime/bus-iterator.js';
import { builder } from './builder.js';
import { merchantOf } from './merchants.js';
import { OrderRef, OrderStatusEnum } from './orders.js';
import { LatLngRef } from './locations.js';

builder.subscriptionType({});

const OrderStatusUpdateRef = builder.objectRef<OrderStatusMessage>('OrderStatusUpdate').implement({
  fields: (t) => ({
    orderId: t.exposeID('orderId'),
    trackingNumber: t.exposeString('trackingNumber'),
    from: t.field({ type: OrderStatusEnum, nullable: true, resolve: (m) => m.from }),
    status: t.field({ type: OrderStatusEnum, resolve: (m) => m.status }),
    sequence: t.exposeInt('sequence'),
    at: t.field({ type: 'DateTime', resolve: (m) => m.at }),
    order: t.field({ type: OrderRef, nullable: true, resolve: (m, _a, ctx) => ctx.container.store.orders.findById(m.orderId) }),
  }),
});

const CourierPositionRef = builder.objectRef<CourierPositionMessage & { orderId: string }>('CourierPosition').implement({
  fields: (t) => ({
    orderId: t.exposeID('orderId'),
    location: t.field({ type: LatLngRef, resolve: (m) => m.location }),
    at: t.field({ type: 'DateTime', resolve: (m) => m.at }),
  }),
});

type TrackingUpdate = { reference: string; status: TrackingView['status']; location: TrackingView['pickup'] | null; estimatedDeliveryAt: string | null; at: string };

const TrackingUpdateRef = builder.objectRef<TrackingUpdate>('TrackingUpdate').implement({
  description: 'Public tracking: status and courier position only, never customer data.',
  fields: (t) => ({
    reference: t.exposeString('reference'),
    status: t.field({ type: OrderStatusEnum, resolve: (u) => u.status }),
    location: t.field({ type: LatLngRef, nullable: true, resolve: (u) => u.location }),
    estimatedDeliveryTime: t.field({ type: 'DateTime', nullable: true, resolve: (u) => u.estimatedDeliveryAt }),
    at: t.field({ type: 'DateTime', resolve: (u) => u.at }),
  }),
});

builder.subscriptionFields((t) => ({
  orderStatusChanged: t.field({
    type: OrderStatusUpdateRef,
    authScopes: { merchant: true },
    args: { id: t.arg.string({ required: true }) },
    subscribe: async (_r, args, ctx) => {
      const order = await ctx.container.services.orders.getOrder({ principal: merchantOf(ctx, 'operate'), ref: args.id });
      return busIterator(ctx.container.bus, (m) => (m.type === 'order.status_changed' && m.orderId === order.id ? m : undefined));
    },
    resolve: (m) => m,
  }),
  courierPosition: t.field({
    type: CourierPositionRef,
    authScopes: { merchant: true },
    args: { id: t.arg.string({ required: true }) },
    subscribe: async (_r, args, ctx) => {
      const order = await ctx.container.services.orders.getOrder({ principal: merchantOf(ctx, 'operate'), ref: args.id });
      return busIterator(ctx.container.bus, (m) =>
        m.type === 'courier.position' && m.mode === order.mode && m.orderIds.includes(order.id) ? Object.assign({}, m, { orderId: order.id }) : undefined,
      );
    },
    resolve: (m) => m,
  }),
  orderEvents: t.field({
    type: OrderStatusUpdateRef,
    description: "Every status change of the caller's orders (this merchant, this mode).",
    authScopes: { merchant: true },
    subscribe: (_r, _a, ctx) => {
      const { merchant, mode } = merchantOf(ctx, 'operate');
      return busIterator(ctx.container.bus, (m) => (m.type === 'order.status_changed' && m.merchantId === merchant.id && m.mode === mode ? m : undefined));
    },
    resolve: (m) => m,
  }),
  courierAssignments: t.field({
    type: OrderStatusUpdateRef,
    description: "Status changes of the calling courier's orders (new assignments included).",
    authScopes: { courier: true },
    subscribe: (_r, _a, ctx) => {
      const courierId = ctx.courier!.courier.id;
      return busIterator(ctx.container.bus, (m) => (m.type === 'order.status_changed' && m.courierId === courierId ? m : undefined));
    },
    resolve: (m) => m,
  }),
  tracking: t.field({
    type: TrackingUpdateRef,
    description: 'Public: needs no credentials.',
    args: { reference: t.arg.string({ required: true }) },
    subscribe: async (_r, args, ctx) => {
      const order = await ctx.container.services.tracking.findTrackedOrder(args.reference);
      return busIterator(ctx.container.bus, (m): TrackingUpdate | undefined => {
        if (m.type === 'order.status_changed' && m.orderId === order.id) {
          return { reference: args.reference, status: m.status, location: null, estimatedDeliveryAt: null, at: m.at };
        }
        if (m.type === 'courier.position' && m.mode === order.mode && m.orderIds.includes(order.id)) {
          return { reference: args.reference, status: 'picked_up', location: Object.assign({}, m.location, { label: 'courier' }), estimatedDeliveryAt: null, at: m.at };
        }
        return undefined;
      });
    },
    resolve: (u) => u,
  }),
}));
