import { addTipCommandSchema, earningsQuerySchema, type CourierEarnings, type EarningsLine } from '../src/domain/orders/tips.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import { courierOf } from './couriers.js';
import { merchantOf } from './merchants.js';
import { OrderRef } from './orders.js';

/** Tips (issue #30 item 4): the order's tip, adding to it, and the courier's earnings. */
builder.objectField(OrderRef, 'tip', (t) =>
  t.int({
    description: "CLP: the courier's tip, set at creation plus every addTip (0: none). Live mode: charged to the merchant, paid to the courier; test mode: never charged.",
    resolve: (o) => o.tip ?? 0,
  }),
);

builder.objectField(OrderRef, 'tippable', (t) =>
  t.boolean({
    description: 'addTip would take a tip now: the order is on its way, failed an attempt or was delivered less than 24 h ago, and its tip is below 200,000.',
    resolve: (o, _a, ctx) => ctx.services.tips.isTippable({ order: o }),
  }),
);

const EarningsLineRef = builder.objectRef<EarningsLine>('CourierEarningsLine').implement({
  description: 'One delivered order of the courier.',
  fields: (t) => ({
    orderId: t.id({ resolve: (l) => l.order.id }),
    orderNumber: t.string({ resolve: (l) => l.order.orderNumber }),
    deliveredAt: t.field({ type: 'DateTime', resolve: (l) => l.deliveredAt }),
    dropoffAddress: t.string({ resolve: (l) => l.order.dropoff.address ?? l.order.dropoff.label }),
    deliveryPay: t.int({ nullable: true, description: 'CLP the tariff pays for the delivery: null, the tariff sets no courier pay (earnings are the tips).', resolve: (l) => l.deliveryPay }),
    tip: t.exposeInt('tip'),
  }),
});

const EarningsRef = builder.objectRef<CourierEarnings>('CourierEarnings').implement({
  description: 'What the courier earned in [from, to): delivered orders (oldest first, at most 500) and totals, CLP.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (e) => e.from }),
    to: t.field({ type: 'DateTime', resolve: (e) => e.to }),
    currency: t.string({ resolve: () => 'CLP' }),
    deliveries: t.field({ type: [EarningsLineRef], resolve: (e) => e.lines }),
    deliveryCount: t.int({ resolve: (e) => e.totals.deliveries }),
    totalDeliveryPay: t.int({ nullable: true, description: 'null: the tariff sets no courier pay.', resolve: (e) => e.totals.deliveryPay }),
    totalTips: t.int({ resolve: (e) => e.totals.tips }),
    totalEarnings: t.int({ resolve: (e) => e.totals.earnings }),
    truncated: t.exposeBoolean('truncated', { description: 'More than 500 deliveries fell in the range (the totals count the listed ones).' }),
  }),
});

builder.queryFields((t) => ({
  courierEarnings: t.field({
    type: EarningsRef,
    authScopes: { courier: true },
    errors: {},
    description: 'The calling courier\'s deliveries in [from, to) (at most 93 days apart) with their tips, and the totals.',
    args: { from: t.arg({ type: 'DateTime', required: true }), to: t.arg({ type: 'DateTime', required: true }) },
    resolve: (_r, args, ctx) => ctx.services.tips.courierEarnings({ courier: courierOf(ctx), input: commandOf(earningsQuerySchema, args) }),
  }),
}));

builder.mutationFields((t) => ({
  addTip: t.field({
    type: OrderRef,
    authScopes: { merchant: true },
    errors: {},
    description:
      "Adds to the courier's tip (CLP 1–200,000; the tip stays at most 200,000): on an order on its way or delivered, until 24 h after " +
      'the delivery (else TIP_NOT_ALLOWED). The idempotency key is required: the same key answers the same without tipping twice ' +
      '(shared with REST POST /orders/{id}/tip). Live mode: charged to the merchant, paid to the courier; test mode: never charged.',
    args: {
      id: t.arg.string({ required: true }),
      amount: t.arg.int({ required: true }),
      idempotencyKey: t.arg.string({ required: true, description: 'Required: printable ASCII, up to 255 characters, kept 24 h (as the REST Idempotency-Key header).' }),
    },
    resolve: (_r, args, ctx) => {
      const [principal, ref, input] = [merchantOf(ctx, 'operate'), args.id, commandOf(addTipCommandSchema, { amount: args.amount })];
      return ctx.services.tips.addTip({ principal, ref, input, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
}));
