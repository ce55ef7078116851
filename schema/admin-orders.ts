import type { Order, OrderEvent } from '../src/domain/types.js';
import { adminOf, adminScopes } from './admin-access.js';
import { builder } from './builder.js';
import { ModeEnum } from './merchants.js';
import { OrderEventRef, OrderRef, OrderStatusEnum } from './orders.js';

/** An order as operators see it: any merchant's, with its merchant, mode and lateness. */
export const AdminOrderRef = builder.objectRef<Order>('AdminOrder').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    merchantId: t.exposeID('merchantId'),
    mode: t.field({ type: ModeEnum, resolve: (o) => o.mode }),
    status: t.field({ type: OrderStatusEnum, resolve: (o) => o.status }),
    courierId: t.exposeID('courierId', { nullable: true }),
    courierName: t.string({
      nullable: true,
      description: 'The courier’s name (one read by key); null without a courier.',
      resolve: async (o, _a, ctx) => (o.courierId ? ((await ctx.services.opsNow.nameCouriers({ input: { ids: [o.courierId] } }))[0]?.name ?? null) : null),
    }),
    merchantName: t.string({
      nullable: true,
      description: 'The merchant’s name (one read by key).',
      resolve: async (o, _a, ctx) => (await ctx.services.opsNow.nameMerchants({ input: { ids: [o.merchantId] } }))[0]?.name ?? null,
    }),
    late: t.boolean({ description: 'Past its ETA or delivery window end, and still in progress.', resolve: (o, _a, ctx) => ctx.services.operatorOrders.isLate(o) }),
    createdAt: t.field({ type: 'DateTime', resolve: (o) => o.createdAt }),
    order: t.field({ type: OrderRef, description: 'Every detail, as the merchant sees it (never its delivery PIN).', resolve: (o) => o }),
  }),
});

const AdminOrderDetailRef = builder.objectRef<{ order: Order; timeline: OrderEvent[] }>('AdminOrderDetail').implement({
  fields: (t) => ({
    order: t.field({ type: AdminOrderRef, resolve: (d) => d.order }),
    timeline: t.field({ type: [OrderEventRef], description: 'The order’s events, oldest first.', resolve: (d) => d.timeline }),
  }),
});

const AdminOrderPageRef = builder.objectRef<{ orders: Order[]; nextCursor: string | null }>('AdminOrderPage').implement({
  fields: (t) => ({
    orders: t.field({ type: [AdminOrderRef], resolve: (p) => p.orders }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as `after` for the next (older) page; null on the last. Also set on a partial page (the read stopped at its bound of 5,000 orders): more may match further back.',
    }),
  }),
});

/** The arguments without the ones left out (GraphQL gives null for those). */
const given = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

builder.queryFields((t) => ({
  adminOrders: t.field({
    type: AdminOrderPageRef,
    description:
      'Every merchant’s orders, newest first. late: past the ETA or window end and in progress. createdFrom inclusive, createdTo exclusive. A page reads at most 5,000 orders: past that a filter no index serves gives a partial page (fewer than `first`, maybe none) with a nextCursor; go on with it.',
    authScopes: adminScopes('adminOrders'),
    args: {
      status: t.arg({ type: [OrderStatusEnum] }),
      merchantId: t.arg.id(),
      mode: t.arg({ type: ModeEnum }),
      late: t.arg.boolean(),
      zone: t.arg.string({ description: 'A geohash prefix (2–6 characters) the pickup is in; sought on an index at 5 and 6 characters, tested on the orders read when shorter.' }),
      comuna: t.arg.string({ description: 'A comuna (adminComunas) the pickup is in: the geohash-5 cells it touches sought on their index, each order tested against the comuna; a page may be partial, with a cursor. Not with zone.' }),
      createdFrom: t.arg({ type: 'DateTime' }),
      createdTo: t.arg({ type: 'DateTime' }),
      first: t.arg.int(),
      after: t.arg.string(),
    },
    resolve: (_r, args, ctx) =>
      ctx.services.operatorOrders.listOrders({ input: given(Object.assign({}, args, { merchantId: args.merchantId == null ? null : String(args.merchantId) })) }),
  }),
  adminComunas: t.field({
    type: ['String'],
    description: 'The comunas adminOrders(comuna:) takes, alphabetically.',
    authScopes: adminScopes('adminComunas'),
    resolve: (_r, _a, ctx) => ctx.services.operatorOrders.comunaNames(),
  }),
  adminOrder: t.field({
    type: AdminOrderDetailRef,
    authScopes: adminScopes('adminOrder'),
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => ctx.services.operatorOrders.getOrder({ input: { orderId: String(args.id) } }),
  }),
}));

builder.mutationFields((t) => ({
  adminAssignOrder: t.field({
    type: AdminOrderRef,
    description: 'Gives a new order to a chosen courier: active, of the same mode, on duty and free, with a vehicle that carries it.',
    authScopes: adminScopes('adminAssignOrder'),
    errors: {},
    args: { orderId: t.arg.id({ required: true }), courierId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).assignOrder({ input: { orderId: String(args.orderId), courierId: String(args.courierId) } }),
  }),
  adminReleaseOrder: t.field({
    type: AdminOrderRef,
    description: 'An assigned order goes back to new and is dispatched again (not to the courier it left).',
    authScopes: adminScopes('adminReleaseOrder'),
    errors: {},
    args: { orderId: t.arg.id({ required: true }), reason: t.arg.string() },
    resolve: (_r, args, ctx) => adminOf(ctx).releaseOrder({ input: given({ orderId: String(args.orderId), reason: args.reason }) }),
  }),
  adminReassignOrder: t.field({
    type: AdminOrderRef,
    description: 'Release and assign in one step, while the order is assigned.',
    authScopes: adminScopes('adminReassignOrder'),
    errors: {},
    args: { orderId: t.arg.id({ required: true }), courierId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).reassignOrder({ input: { orderId: String(args.orderId), courierId: String(args.courierId) } }),
  }),
  adminCancelOrder: t.field({
    type: AdminOrderRef,
    description: 'Cancels on the merchant’s behalf: the merchant’s rules (new or assigned only) and webhooks.',
    authScopes: adminScopes('adminCancelOrder'),
    errors: {},
    args: { orderId: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).cancelOrder({ input: { orderId: String(args.orderId), reason: args.reason } }),
  }),
}));
