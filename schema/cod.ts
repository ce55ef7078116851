import type { CodClaim, CodHandOver, CodPayout, CodReport, CodReportLine, CourierCash } from '../src/domain/cod.js';
import { COD_CLAIM_STATES, type CodCollection } from '../src/domain/types.js';
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

const CodClaimStatusRef = builder.enumType('CodClaimStatus', { values: ['counted', ...COD_CLAIM_STATES] as const });

const CodReportLineRef = builder.objectRef<CodReportLine>('CodReportLine').implement({
  fields: (t) => ({
    id: t.exposeID('entryId'),
    bookingId: t.exposeID('orderId'),
    courierId: t.exposeID('courierId', { nullable: true }),
    expected: t.exposeInt('expected', { nullable: true, description: "The order's codAmount; null when the order gave none (amount unknown)." }),
    collected: t.exposeInt('collected'),
    mismatch: t.exposeBoolean('mismatch'),
    status: t.field({ type: CodClaimStatusRef, description: 'Whether the claim counts: counted, pending_confirmation (far above the order\'s amount: counts nowhere yet), confirmed, rejected.', resolve: (l) => l.status }),
    handedOver: t.exposeInt('handedOver', { description: 'CLP the courier handed over against this claim so far.' }),
    collectedAt: t.field({ type: 'DateTime', resolve: (l) => l.collectedAt }),
  }),
});

const CodReportRef = builder.objectRef<CodReport>('CodReport').implement({
  description: 'CLP claimed, handed over and paid out within [from, to); outstanding and payable: balances at `to`.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (r) => r.from }),
    to: t.field({ type: 'DateTime', resolve: (r) => r.to }),
    collected: t.exposeInt('collected', { description: 'Claims that count (collected at doors), in the window.' }),
    pendingConfirmation: t.exposeInt('pendingConfirmation', { description: 'Claims waiting for an operator\'s confirmation, in the window: they count nowhere yet.' }),
    handedOver: t.exposeInt('handedOver', { description: 'Cash couriers handed to the operation for you, in the window.' }),
    settled: t.exposeInt('settled', { description: 'Paid out to you, in the window.' }),
    outstanding: t.exposeInt('outstanding', { description: 'Claims that count minus paid out, up to `to`.' }),
    payable: t.exposeInt('payable', { description: 'Handed over minus paid out, up to `to`: what can be paid out now.' }),
    mismatches: t.exposeInt('mismatches'),
    lines: t.field({ type: [CodReportLineRef], description: 'The window\'s collections, oldest first (one page).', resolve: (r) => r.lines }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as `after` for the next page; null on the last.' }),
  }),
});

const CourierCashRef = builder.objectRef<CourierCash>('CourierCash').implement({
  description: 'A courier\'s cash in hand: claims that count (collected at cash-on-delivery doors) minus handed over.',
  fields: (t) => ({
    collected: t.exposeInt('collected'),
    pendingConfirmation: t.exposeInt('pendingConfirmation', { description: 'Claims waiting for an operator\'s confirmation (far above the order\'s amount).' }),
    settled: t.exposeInt('settled', { description: 'Handed over to the operation.' }),
    balance: t.exposeInt('balance'),
  }),
});

const CodClaimRef = builder.objectRef<CodClaim>('CodClaim').implement({
  description: 'What a courier reported collected at a cash-on-delivery door: a claim until the cash is handed over.',
  fields: (t) => ({
    id: t.exposeID('id'),
    bookingId: t.exposeID('orderId'),
    merchantId: t.exposeID('merchantId'),
    courierId: t.exposeID('courierId', { nullable: true }),
    expected: t.exposeInt('expected', { nullable: true, description: 'The order\'s cod_amount (null: unknown).' }),
    collected: t.exposeInt('collected'),
    status: t.field({ type: CodClaimStatusRef, resolve: (c) => c.status }),
    collectedAt: t.field({ type: 'DateTime', resolve: (c) => c.collectedAt }),
  }),
});

const CodClaimPageRef = builder.objectRef<{ claims: CodClaim[]; nextCursor: string | null }>('CodClaimPage').implement({
  fields: (t) => ({
    claims: t.field({ type: [CodClaimRef], resolve: (p) => p.claims }),
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
  }),
});

const CodHandOverLineRef = builder.objectRef<CodHandOver['lines'][number]>('CodHandOverLine').implement({
  description: 'The part of a hand-over that covers one claim (one ledger line).',
  fields: (t) => ({ id: t.exposeID('id'), bookingId: t.exposeID('orderId'), merchantId: t.exposeID('merchantId'), amount: t.exposeInt('amount') }),
});

const CodHandOverRef = builder.objectRef<CodHandOver>('CodHandOver').implement({
  description: 'Cash a courier handed to the operation, and the claims it covered (oldest first).',
  fields: (t) => ({
    courierId: t.exposeID('courierId'),
    amount: t.exposeInt('amount'),
    at: t.field({ type: 'DateTime', resolve: (h) => h.at }),
    lines: t.field({ type: [CodHandOverLineRef], resolve: (h) => h.lines }),
  }),
});

const CodPayoutRef = builder.objectRef<CodPayout>('CodPayout').implement({
  description: 'A payout to a merchant, as written in the ledger.',
  fields: (t) => ({
    id: t.exposeID('id'),
    merchantId: t.exposeID('merchantId'),
    amount: t.exposeInt('amount'),
    at: t.field({ type: 'DateTime', resolve: (p) => p.at }),
  }),
});

const MONEY_KEY = 'Required: the same key with the same arguments records once and answers the same; other arguments: IDEMPOTENCY_KEY_REUSED. Printable ASCII, up to 255 characters, kept 24 h (shared with the REST Idempotency-Key of the same credentials).';

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
  adminCodClaims: t.field({
    type: CodClaimPageRef,
    authScopes: adminScopes('adminCodClaims'),
    description: 'Every merchant\'s cash-on-delivery claims in one status (default pending_confirmation: waiting for an operator), oldest first.',
    args: { status: t.arg({ type: CodClaimStatusRef }), courierId: t.arg.id(), first: t.arg.int(), after: t.arg.string() },
    resolve: (_r, args, ctx) => {
      const input = Object.fromEntries(Object.entries(args).filter(([, v]) => v != null).map(([k, v]) => [k, k === 'courierId' ? String(v) : v]));
      return ctx.services.cod.listCodClaims({ input });
    },
  }),
}));

const claimDecision = (decision: 'confirm' | 'reject') =>
  builder.mutationField(decision === 'confirm' ? 'adminConfirmCodClaim' : 'adminRejectCodClaim', (t) =>
    t.field({
      type: CodClaimRef,
      description: decision === 'confirm'
        ? 'Confirms a claim waiting for confirmation (far above its order\'s amount): it counts from now on. Admins only; audited.'
        : 'Rejects a claim waiting for confirmation: it never counts. Admins only; audited.',
      authScopes: adminScopes(decision === 'confirm' ? 'adminConfirmCodClaim' : 'adminRejectCodClaim'),
      errors: {},
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, args, ctx) => adminOf(ctx).resolveCodClaim({ input: { claimId: String(args.id), decision } }),
    }),
  );
claimDecision('confirm');
claimDecision('reject');

builder.mutationFields((t) => ({
  adminRecordCodHandOver: t.field({
    type: CodHandOverRef,
    description: 'Records cash a live courier handed to the operation: it covers the courier\'s claims that count, oldest first, never more than they hold (CONFLICT). Admins only; audited.',
    authScopes: adminScopes('adminRecordCodHandOver'),
    errors: {},
    args: { courierId: t.arg.id({ required: true }), amount: t.arg.int({ required: true }), idempotencyKey: t.arg.string({ required: true, description: MONEY_KEY }) },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).recordCodHandOver({ input: { courierId: String(args.courierId), amount: args.amount }, idempotencyKey: args.idempotencyKey }),
  }),
  adminRecordCodPayout: t.field({
    type: CodPayoutRef,
    description: 'Records a payout to a merchant\'s live account: at most the cash handed over for it minus what was paid out (COD_PAYOUT_EXCEEDS_CASH). Admins only; audited.',
    authScopes: adminScopes('adminRecordCodPayout'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), amount: t.arg.int({ required: true }), idempotencyKey: t.arg.string({ required: true, description: MONEY_KEY }) },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).recordCodPayout({ input: { merchantId: String(args.merchantId), amount: args.amount }, idempotencyKey: args.idempotencyKey }),
  }),
}));
