import type { Order, OrderStop } from '../src/domain/types.js';
import { DELIVERY_PIN_MAX_ATTEMPTS } from '../src/domain/orders/delivery.js';
import { courierSeesStopPhone } from '../src/domain/orders/contact-privacy.js';
import { builder } from './builder.js';
import { FailedAttemptReasonEnum } from './failed-attempts.js';
import { OrderRef, ProofRef, StopRef } from './orders.js';
import { RouteOrderEnum, StopStatusEnum } from './stop-inputs.js';

/** A stop with its order: its link and PIN are the order's to give. */
interface StopOfOrder {
  order: Order;
  stop: OrderStop;
}

const StopFailureRef = builder.objectRef<NonNullable<OrderStop['failure']>>('StopFailure').implement({
  fields: (t) => ({
    reason: t.field({ type: FailedAttemptReasonEnum, resolve: (f) => f.reason }),
    note: t.exposeString('note', { nullable: true }),
    photoUrl: t.string({ nullable: true, description: 'A signed, expiring link to the photo the courier uploaded.', resolve: (f, _a, ctx) => (f.photoProofId ? ctx.services.proofs.signedUrl(f.photoProofId) : null) }),
    courierId: t.exposeID('courierId'),
    at: t.field({ type: 'DateTime', resolve: (f) => f.at }),
  }),
});

const OrderStopRef = builder.objectRef<StopOfOrder>('OrderStop').implement({
  description: 'A drop-off of a multi-stop order (issue #30), in route order.',
  fields: (t) => ({
    id: t.id({ resolve: ({ stop }) => stop.id }),
    index: t.int({ description: 'Position in the route (0-based).', resolve: ({ stop }) => stop.index }),
    givenIndex: t.int({ description: 'Position in the stops as sent.', resolve: ({ stop }) => stop.givenIndex }),
    status: t.field({ type: StopStatusEnum, resolve: ({ stop }) => stop.status }),
    eta: t.field({ type: 'DateTime', description: 'The planned arrival at this stop.', resolve: ({ stop }) => stop.eta }),
    arrivedAt: t.field({ type: 'DateTime', nullable: true, resolve: ({ stop }) => stop.arrivedAt }),
    address: t.field({ type: StopRef, resolve: ({ stop }) => stop.location }),
    contactName: t.string({ resolve: ({ stop }) => stop.contact.name }),
    contactPhone: t.string({
      nullable: true,
      description: "The stop's contact phone; a courier sees it only while this stop is still open on its job.",
      resolve: ({ order, stop }, _a, ctx) => (ctx.courier && !courierSeesStopPhone(order, stop, ctx.courier.courier.id) ? null : stop.contact.phone),
    }),
    reference: t.string({ nullable: true, resolve: ({ stop }) => stop.reference }),
    trackingUrl: t.string({ description: "This stop's own public link: its status and the courier's progress toward it, never another stop's.", resolve: ({ order, stop }, _a, ctx) => ctx.services.trackingLinks.stopUrlOf(order, stop) }),
    proof: t.field({ type: ProofRef, nullable: true, resolve: ({ stop }) => stop.proof }),
    failure: t.field({ type: StopFailureRef, nullable: true, resolve: ({ stop }) => stop.failure }),
    deliveryPin: t.string({
      nullable: true,
      description: "This stop's PIN for its recipient: only to the order's merchant (null for a courier, and without one).",
      resolve: ({ order, stop }, _a, ctx) => (ctx.merchant?.merchant.id === order.merchantId ? (order.stopPins?.[stop.id]?.pin ?? null) : null),
    }),
    deliveryPinRequired: t.boolean({ resolve: ({ order, stop }) => !!order.stopPins?.[stop.id] }),
    deliveryPinLocked: t.boolean({ resolve: ({ order, stop }) => (order.stopPins?.[stop.id]?.failedAttempts ?? 0) >= DELIVERY_PIN_MAX_ATTEMPTS }),
  }),
});

builder.objectFields(OrderRef, (t) => ({
  stops: t.field({
    type: [OrderStopRef],
    nullable: true,
    description: 'A multi-stop order\'s drop-offs in route order (dropoff is the last); null for a single drop-off order.',
    resolve: (order) => order.stops?.map((stop) => ({ order, stop })) ?? null,
  }),
  route: t.field({ type: RouteOrderEnum, nullable: true, resolve: (order) => (order.stops ? (order.route ?? 'given') : null) }),
}));
