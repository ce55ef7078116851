import type { CodReport, CodReportLine, CourierCash } from '../src/domain/cod.js';
import type { CodCollection, LedgerEntry } from '../src/domain/types.js';
import { adminOf, adminScopes } from './admin-access.js';
import { builder } from './builder.js';
import { courierOf } from './couriers.js';
import { merchantOf } from './merchants.js';
import { OrderRef } from './orders.js';

/** Cash on delivery (issue #30): the order's amount and collection, the merchant's report, a courier's cash, settlements. */
export const CodCollectionRef = builder.objectRef<CodCollection>('CodCollection').implement({
  description: 'The cash collected at the door of a cash-on-delivery order; mismatch when it differs from the order\'s codAmount.',
  fields: (t) => ({
    expected: t.exposeInt('expected', { nullable: true, description: "The order's codAmount; null when the order gave none (amount unknown: never a mismatch)." }),
    collected: t.exposeInt('collected'),
    mismatch: t.exposeBoolean('mismatch'),
    collectedAt: t.field({ type: 'DateTime', resolve: (c) => c.collectedAt }),
  }),
});

builder.objectFields(OrderRef, (t) => ({
  codAmount: t.int({ nullable: true, description: 'Cash on delivery: CLP the courier collects at the door; null for prepaid orders and for cash on delivery of unknown amount.', resolve: (o) => o.codAmount ?? null }),
  cod: t.field({ type: CodCollectionRef, nullable: true, description: 'Once delivered: what the courier collected (null before, and for prepaid orders).', resolve: (o) => o.codCollection ?? null }),
}));

const CodReportLineRef = builder.objectRef<CodReportLine>('CodReportLine').implement({
  fields: (t) => ({
    id: t.exposeID('entryId'),
    bookingId: t.exposeID('orderId'),
    courierId: t.exposeID('courierId', { nullable: true }),
    expected: t.exposeInt('expected', { nullable: true, description: "The order's codAmount; null when the order gave none (amount unknown)." }),
    collected: t.exposeInt('collected'),
    mismatch: t.exposeBoolean('mismatch'),
    collectedAt: t.field({ type: 'DateTime', resolve: (l) => l.collectedAt }),
  }),
});

const CodReportRef = builder.objectRef<CodReport>('CodReport').implement({
  description: 'CLP collected and paid out within [from, to); outstanding: everything collected minus paid out up to `to`.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (r) => r.from }),
    to: t.field({ type: 'DateTime', resolve: (r) => r.to }),
    collected: t.exposeInt('collected'),
    settled: t.exposeInt('settled'),
    outstanding: t.exposeInt('outstanding'),
    mismatches: t.exposeInt('mismatches'),
    lines: t.field({ type: [CodReportLineRef], description: 'The window\'s collections, oldest first (one page).', resolve: (r) => r.lines }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as `after` for the next page; null on the last.' }),
  }),
});

const CourierCashRef = builder.objectRef<CourierCash>('CourierCash').implement({
  description: 'A courier\'s cash in hand: collected at cash-on-delivery doors minus handed over.',
  fields: (t) => ({ collected: t.exposeInt('collected'), settled: t.exposeInt('settled'), balance: t.exposeInt('balance') }),
});

const CodSettlementRef = builder.objectRef<LedgerEntry>('CodSettlement').implement({
  description: 'Cash handed over, as written in the ledger: by a courier (courierId) or paid out to a merchant (merchantId).',
  fields: (t) => ({
    id: t.exposeID('id'),
    courierId: t.id({ nullable: true, resolve: (e) => e.courierId ?? null }),
    merchantId: t.exposeID('merchantId', { nullable: true }),
    amount: t.exposeInt('amount'),
    at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
  }),
});

builder.queryFields((t) => ({
  codReport: t.field({
    type: CodReportRef,
    authScopes: { merchant: true },
    errors: {},
    description: 'Cash on delivery: what couriers collected for you and what was paid out (from: default 30 days before to; to: default now).',
    args: { from: t.arg({ type: 'DateTime' }), to: t.arg({ type: 'DateTime' }), first: t.arg.int(), after: t.arg.string() },
    resolve: (_r, args, ctx) => {
      const input = Object.fromEntries(Object.entries(args).filter(([, v]) => v != null));
      return ctx.services.cod.getCodReport({ principal: merchantOf(ctx, 'profile'), input });
    },
  }),
  courierCash: t.field({
    type: CourierCashRef,
    authScopes: { courier: true },
    description: 'The calling courier\'s cash in hand.',
    resolve: (_r, _a, ctx) => ctx.services.cod.getCourierCash({ courierId: courierOf(ctx).id }),
  }),
}));

builder.mutationFields((t) => ({
  adminRecordCodSettlement: t.field({
    type: CodSettlementRef,
    description: 'Records cash handed over: a live courier\'s cash (courierId) or a payout to a merchant (merchantId), never more than is held or owed. Audited.',
    authScopes: adminScopes('adminRecordCodSettlement'),
    errors: {},
    args: { courierId: t.arg.id(), merchantId: t.arg.id(), amount: t.arg.int({ required: true }) },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).recordCodSettlement({
        input: { amount: args.amount, ...(args.courierId != null && { courierId: String(args.courierId) }), ...(args.merchantId != null && { merchantId: String(args.merchantId) }) },
      }),
  }),
}));
