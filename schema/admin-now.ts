import type { Courier, Order } from '../src/domain/types.js';
import { OPS_NOW_CAP, type Capped, type OpsNow } from '../src/domain/operators/now.js';
import { adminScopes } from './admin-access.js';
import { AdminCourierRef } from './admin-couriers.js';
import { AdminOrderRef } from './admin-orders.js';
import { FailingEndpointRef } from './admin-webhooks.js';
import { builder } from './builder.js';
import { ModeEnum } from './merchants.js';

const COUNT = `How many, counted up to ${OPS_NOW_CAP}; \`more\` says there were more.`;

const NowOrdersRef = builder.objectRef<Capped<Order>>('AdminNowOrders').implement({
  fields: (t) => ({
    count: t.int({ description: COUNT, resolve: (c) => c.items.length }),
    more: t.exposeBoolean('more'),
    orders: t.field({ type: [AdminOrderRef], description: 'Newest first.', args: { first: t.arg.int({ description: `1–${OPS_NOW_CAP}, default 10.` }) }, resolve: (c, a) => c.items.slice(0, shown(a.first)) }),
  }),
});

const NowCouriersRef = builder.objectRef<Capped<Courier>>('AdminNowCouriers').implement({
  fields: (t) => ({
    count: t.int({ description: COUNT, resolve: (c) => c.items.length }),
    more: t.exposeBoolean('more'),
    couriers: t.field({ type: [AdminCourierRef], description: 'Busy first, then available, each in id order.', args: { first: t.arg.int({ description: `1–${OPS_NOW_CAP}, default 10.` }) }, resolve: (c, a) => c.items.slice(0, shown(a.first)) }),
  }),
});

const NowWebhooksRef = builder.objectRef<OpsNow['failingWebhooks']>('AdminNowWebhooks').implement({
  fields: (t) => ({
    count: t.int({ description: COUNT, resolve: (c) => c.items.length }),
    more: t.exposeBoolean('more'),
    endpoints: t.field({ type: [FailingEndpointRef], description: 'By merchant, then id.', args: { first: t.arg.int({ description: `1–${OPS_NOW_CAP}, default 10.` }) }, resolve: (c, a) => c.items.slice(0, shown(a.first)) }),
  }),
});

const shown = (first: number | null | undefined) => Math.min(Math.max(first ?? 10, 1), OPS_NOW_CAP);

const NowRef = builder.objectRef<OpsNow>('AdminNow').implement({
  description: 'What needs an operator now, in one mode (issue #38): every list read on an index, with a bound.',
  fields: (t) => ({
    mode: t.field({ type: ModeEnum, resolve: (n) => n.mode }),
    at: t.field({ type: 'DateTime', description: 'The instant lateness was judged at.', resolve: (n) => n.at }),
    lateOrders: t.field({ type: NowOrdersRef, description: 'In progress and past their ETA or delivery window end.', resolve: (n) => n.lateOrders }),
    unassignedOrders: t.field({ type: NowOrdersRef, description: 'New: no courier yet (scheduled ones included).', resolve: (n) => n.unassignedOrders }),
    couriersOnDuty: t.field({ type: NowCouriersRef, description: 'Available or busy (a sandbox run’s simulated couriers left out).', resolve: (n) => n.couriersOnDuty }),
    failingWebhooks: t.field({ type: NowWebhooksRef, description: 'Endpoints failing now or disabled with a reason.', resolve: (n) => n.failingWebhooks }),
  }),
});

const CourierNameRef = builder.objectRef<{ id: string; name: string }>('AdminCourierName').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

builder.queryFields((t) => ({
  adminNow: t.field({
    type: NowRef,
    authScopes: adminScopes('adminNow'),
    args: { mode: t.arg({ type: ModeEnum, required: true }) },
    resolve: (_r, args, ctx) => ctx.services.opsNow.readNow({ input: { mode: args.mode } }),
  }),
  adminCourierNames: t.field({
    type: [CourierNameRef],
    description: `Couriers' names by id (up to ${OPS_NOW_CAP} ids); an unknown id is left out.`,
    authScopes: adminScopes('adminCourierNames'),
    args: { ids: t.arg.idList({ required: true }) },
    resolve: (_r, args, ctx) => ctx.services.opsNow.nameCouriers({ input: { ids: args.ids.map(String) } }),
  }),
}));
