import { z } from 'zod';
import { codReportQuerySchema } from '../../../src/domain/cod.js';
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
    collected: z.number().int().openapi({ description: 'CLP collected at doors within the window.' }),
    settled: z.number().int().openapi({ description: 'CLP paid out to you within the window.' }),
    outstanding: z.number().int().openapi({ description: 'Everything collected up to `to` minus everything paid out up to `to`: what is still owed to you.' }),
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
