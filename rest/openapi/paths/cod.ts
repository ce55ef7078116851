import { z } from 'zod';
import { codReportQuerySchema } from '../../../src/domain/cod.js';
import { idempotencyKeySchema } from '../../../src/domain/idempotency.js';
import { codClaimsQueryString, codHandOverBody, codPayoutBody } from '../../wire/cod.js';
import { courierCashSchema } from '../responses-orders.js';
import { registry, registerEndpoint } from '../registry.js';

const timestamp = z.iso.datetime({ offset: true });

export const codReportLineSchema = registry.register(
  'CodReportLine',
  z.object({
    id: z.string().openapi({ description: 'The ledger line (led_…).' }),
    booking_id: z.string(),
    courier_id: z.string().nullable(),
    expected: z.number().int().nullable().openapi({ description: "CLP the order asked for (its cod_amount); null when the order gave none (amount unknown)." }),
    collected: z.number().int().openapi({ description: 'CLP the courier confirmed collecting.' }),
    mismatch: z.boolean(),
    status: z.enum(['counted', 'pending_confirmation', 'confirmed', 'rejected']).openapi({
      description: 'Whether the claim counts: `counted` from the start, `pending_confirmation` (far above cod_amount: counts nowhere until an operator confirms it), `confirmed`, `rejected` (never counts).',
    }),
    handed_over: z.number().int().openapi({ description: 'CLP the courier handed over against this claim so far.' }),
    collected_at: timestamp,
  }),
);

export const codReportSchema = registry.register(
  'CodReport',
  z.object({
    success: z.literal(true),
    from: timestamp,
    to: timestamp,
    currency: z.literal('CLP'),
    collected: z.number().int().openapi({ description: 'CLP couriers claim they collected at doors within the window (claims that count).' }),
    pending_confirmation: z.number().int().openapi({ description: 'CLP of claims within the window waiting for an operator (far above cod_amount): they count nowhere yet.' }),
    handed_over: z.number().int().openapi({ description: 'CLP couriers handed to the operation for you within the window.' }),
    settled: z.number().int().openapi({ description: 'CLP paid out to you within the window.' }),
    outstanding: z.number().int().openapi({ description: 'Claims that count up to `to` minus everything paid out up to `to`: what is still owed to you.' }),
    payable: z.number().int().openapi({ description: 'Handed over up to `to` minus paid out up to `to`: what can be paid out to you now.' }),
    mismatches: z.number().int().openapi({ description: 'Collections within the window whose amount differs from the order\'s cod_amount.' }),
    lines: z.array(codReportLineSchema).openapi({ description: 'The collections of the window, oldest first (one page).' }),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
  }),
);

registerEndpoint({
  method: 'get',
  path: '/cod/report',
  operationId: 'getCodReport',
  summary: 'Cash on delivery: what couriers collected for you and what was paid out',
  description: `Totals of the window [\`from\`, \`to\`) and its collections, a keyset page at a time (\`after\` = \`next_cursor\`).
A collection that differs from the order's \`cod_amount\` is counted in \`mismatches\` and flagged on its line; an order
created without \`cod_amount\` (amount unknown) shows \`expected: null\`, never a mismatch. Test keys report the
sandbox's collections; nothing is ever paid out in test mode.`,
  tags: ['Cash on delivery'],
  auth: 'apiKey',
  access: 'profile',
  query: codReportQuerySchema,
  responses: { 200: { description: 'The report', schema: codReportSchema } },
});

registerEndpoint({
  method: 'get',
  path: '/couriers/me/cash',
  operationId: 'getCourierCash',
  summary: 'The calling courier\'s cash in hand: collected at cash-on-delivery doors minus handed over',
  tags: ['Couriers'],
  auth: 'courierToken',
  responses: { 200: { description: 'Cash in hand', schema: z.object({ success: z.literal(true), cash: courierCashSchema }) } },
});

export const codClaimSchema = registry.register(
  'CodClaim',
  z.object({
    id: z.string().openapi({ description: 'The claim\'s ledger line (led_…).' }),
    booking_id: z.string(),
    merchant_id: z.string(),
    courier_id: z.string().nullable(),
    expected: z.number().int().nullable().openapi({ description: 'The order\'s cod_amount (null: unknown).' }),
    collected: z.number().int().openapi({ description: 'CLP the courier reported collecting.' }),
    status: z.enum(['counted', 'pending_confirmation', 'confirmed', 'rejected']),
    collected_at: timestamp,
  }),
);

export const codHandOverSchema = registry.register(
  'CodHandOver',
  z.object({
    courier_id: z.string(),
    amount: z.number().int(),
    currency: z.literal('CLP'),
    at: timestamp,
    lines: z.array(z.object({ id: z.string(), booking_id: z.string(), merchant_id: z.string(), amount: z.number().int() })).openapi({
      description: 'The claims the hand-over covered, oldest first: one ledger line each, naming the merchant the cash is for.',
    }),
  }),
);

export const codPayoutSchema = registry.register(
  'CodPayout',
  z.object({ id: z.string(), merchant_id: z.string(), amount: z.number().int(), currency: z.literal('CLP'), at: timestamp }),
);

const moneyKey = z.object({
  'Idempotency-Key': idempotencyKeySchema.clone().openapi({ description: 'Required here: recorded once per key (kept 24 h per credential); another body under the key is 422 IDEMPOTENCY_KEY_REUSED.', example: 'handover-cr_01-2026-12-07' }),
});

registerEndpoint({
  method: 'post',
  path: '/admin/cod/hand-overs',
  operationId: 'recordCodHandOver',
  summary: 'Operators: record cash a courier handed over',
  description: `Records \`amount\` CLP a live courier handed to the operation. It covers the courier's claims that count, oldest first
(one ledger line per claim, naming its merchant: that is the cash a merchant can be paid from); more than the courier holds is
409 CONFLICT (\`details.held\`). Requires \`Idempotency-Key\`: sent twice, recorded once. Audited as \`cod.hand_over\`.`,
  tags: ['Cash on delivery'],
  auth: 'adminToken',
  body: codHandOverBody,
  bodyExample: { courier_id: 'cr_01JHX3Z6', amount: 15000 },
  idempotent: true,
  headers: moneyKey,
  responses: { 201: { description: 'Recorded', schema: z.object({ success: z.literal(true), hand_over: codHandOverSchema }) } },
  errors: ['COURIER_NOT_FOUND', 'CONFLICT'],
});

registerEndpoint({
  method: 'post',
  path: '/admin/cod/payouts',
  operationId: 'recordCodPayout',
  summary: 'Operators: record a payout to a merchant',
  description: `Records a payout of \`amount\` CLP to a merchant's live account: at most the cash couriers handed over for it minus what
was paid out, else 409 COD_PAYOUT_EXCEEDS_CASH (\`details\`: payable, handed_over, paid_out). Requires \`Idempotency-Key\`. Audited as \`cod.pay_out\`.`,
  tags: ['Cash on delivery'],
  auth: 'adminToken',
  body: codPayoutBody,
  bodyExample: { merchant_id: 'mer_01JHX3Z6', amount: 15000 },
  idempotent: true,
  headers: moneyKey,
  responses: { 201: { description: 'Recorded', schema: z.object({ success: z.literal(true), payout: codPayoutSchema }) } },
  errors: ['MERCHANT_NOT_FOUND', 'COD_PAYOUT_EXCEEDS_CASH'],
});

registerEndpoint({
  method: 'get',
  path: '/admin/cod/claims',
  operationId: 'listCodClaims',
  summary: 'Operators: couriers\' claims in one status (default: waiting for confirmation)',
  tags: ['Cash on delivery'],
  auth: 'adminToken',
  query: codClaimsQueryString,
  responses: {
    200: { description: 'A page of claims, oldest first', schema: z.object({ success: z.literal(true), claims: z.array(codClaimSchema), next_cursor: z.string().nullable(), has_more: z.boolean() }) },
  },
});

for (const decision of ['confirm', 'reject'] as const) {
  registerEndpoint({
    method: 'post',
    path: `/admin/cod/claims/:id/${decision}`,
    operationId: decision === 'confirm' ? 'confirmCodClaim' : 'rejectCodClaim',
    summary: decision === 'confirm' ? 'Operators: confirm a claim far above its order\'s amount (it counts from now on)' : 'Operators: reject a claim far above its order\'s amount (it never counts)',
    description: 'Deciding again what was decided answers the claim again; the other decision, or a claim that never waited, is 409 CONFLICT. Audited.',
    tags: ['Cash on delivery'],
    auth: 'adminToken',
    params: z.object({ id: z.string() }),
    bodyRequired: false,
    responses: { 200: { description: 'The claim', schema: z.object({ success: z.literal(true), claim: codClaimSchema }) } },
    errors: ['NOT_FOUND', 'CONFLICT'],
  });
}
