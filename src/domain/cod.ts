import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { IdSource } from '../ports/ids.js';
import type { Store } from '../ports/store.js';
import type { MerchantPrincipal } from './auth.js';
import { idCursorSchema } from './cursors.js';
import { AppError } from './errors.js';
import { assertPermitted } from './members/roles.js';
import type { LedgerEntry } from './types.js';
import { parseInput } from './validation.js';

const DAY_MS = 86_400_000;
/** A report covers at most a year; without `from`, the 30 days before `to`. */
const MAX_WINDOW_DAYS = 366;
const DEFAULT_WINDOW_DAYS = 30;

// .describe, not .openapi: this module may load before rest/openapi/registry.ts extends zod.
export const codReportQuerySchema = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional().describe('Start of the window, inclusive (default: 30 days before `to`; at most 366 days).'),
  to: z.iso.datetime({ offset: true }).optional().describe('End of the window, exclusive (default: now).'),
  after: idCursorSchema('led').optional().describe('The `next_cursor` of the previous page.'),
  first: z.coerce.number().int().min(1).max(100).default(50).describe('Lines per page (default 50, at most 100).'),
});

/** Cash handed over: by a courier to the platform, or paid out to a merchant — exactly one of the two. */
export const recordCodSettlementSchema = z
  .strictObject({
    courierId: z.string().trim().min(1).max(64).optional(),
    merchantId: z.string().trim().min(1).max(64).optional(),
    amount: z.number().int().min(1).max(100_000_000),
  })
  .refine((v) => (v.courierId === undefined) !== (v.merchantId === undefined), { message: 'give exactly one of courierId and merchantId', path: ['courierId'] });

/** One collection in a merchant's report: what the order expected and what the courier took. */
export interface CodReportLine {
  entryId: string;
  orderId: string;
  courierId: string | null;
  /** The order's cod_amount; null: the order gave none (amount unknown), never a mismatch. */
  expected: number | null;
  collected: number;
  mismatch: boolean;
  collectedAt: string;
}

export interface CodReport {
  from: string;
  to: string;
  /** CLP collected at doors, and paid out to the merchant, within the window. */
  collected: number;
  settled: number;
  /** Collected minus paid out, everything up to `to`: what the platform still owes the merchant. */
  outstanding: number;
  mismatches: number;
  lines: CodReportLine[];
  nextCursor: string | null;
}

/** A courier's cash in hand: collected at doors minus handed over. */
export interface CourierCash {
  courierId: string;
  collected: number;
  settled: number;
  balance: number;
}

const lineOf = (e: LedgerEntry): CodReportLine => ({
  entryId: e.id, orderId: e.orderId!, courierId: e.courierId ?? null, expected: e.expected ?? null, collected: e.amount,
  mismatch: e.expected != null && e.amount !== e.expected, collectedAt: e.at,
});

export type CodService = ReturnType<typeof createCodService>;

/**
 * Cash on delivery after the door (issue #30): the merchant's report, a courier's cash in hand, and
 * settlements (operators record them; the audited admin writes the audit entry). Collections are
 * written with the delivery itself (orders/cod.ts); settlements are live money only.
 */
export function createCodService(deps: { store: Store; clock: Clock; ids: IdSource }) {
  const { store, clock, ids } = deps;

  function window(from: string | undefined, to: string | undefined): { from: string; to: string } {
    const end = to ? new Date(to) : clock.now();
    const start = from ? new Date(from) : new Date(end.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS);
    if (start >= end) throw new AppError('VALIDATION_ERROR', 'from must be before to', { fields: [{ field: 'from', message: 'must be before to' }] });
    if (end.getTime() - start.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
      throw new AppError('VALIDATION_ERROR', `A report covers at most ${MAX_WINDOW_DAYS} days`, { fields: [{ field: 'from', message: `at most ${MAX_WINDOW_DAYS} days before to` }] });
    }
    return { from: start.toISOString(), to: end.toISOString() };
  }

  /** The merchant's (and mode's) collections in [from, to), their totals and the balance at `to`. */
  async function getCodReport(options: { principal: MerchantPrincipal; input: unknown }): Promise<CodReport> {
    assertPermitted(options.principal, 'read');
    const input = parseInput(codReportQuerySchema, options.input);
    const { from, to } = window(input.from, input.to);
    const { merchant: { id: merchantId }, mode } = options.principal;
    const [inWindow, upToEnd, entries] = await Promise.all([
      store.ledger.merchantCodSums({ merchantId, mode, from, to }),
      store.ledger.merchantCodSums({ merchantId, mode, to }),
      store.ledger.listCodCollections({ merchantId, mode, from, to, limit: input.first + 1, ...(input.after && { afterId: input.after }) }),
    ]);
    const page = entries.slice(0, input.first);
    return {
      from, to, collected: inWindow.collected, settled: inWindow.settled, outstanding: upToEnd.collected - upToEnd.settled, mismatches: inWindow.mismatches,
      lines: page.map(lineOf), nextCursor: entries.length > input.first ? page.at(-1)!.id : null,
    };
  }

  async function getCourierCash(options: { courierId: string }): Promise<CourierCash> {
    const sums = await store.ledger.courierCodSums({ courierId: options.courierId });
    return { courierId: options.courierId, collected: sums.collected, settled: sums.settled, balance: sums.collected - sums.settled };
  }

  /**
   * An operator records cash handed over: a live courier's cash to the platform, or a payout to a
   * merchant's live account. Never more than is held or owed (409 CONFLICT), checked by the store
   * in the same step as the write; test mode has no money.
   */
  async function recordCodSettlement(options: { input: unknown }): Promise<LedgerEntry> {
    const input = parseInput(recordCodSettlementSchema, options.input);
    const at = clock.now().toISOString();
    const entry: LedgerEntry = { id: ids.next('led'), merchantId: null, mode: 'live', orderId: null, kind: 'cod_settlement', amount: input.amount, at };
    if (input.courierId !== undefined) {
      const courier = await store.couriers.findById(input.courierId);
      if (!courier) throw new AppError('COURIER_NOT_FOUND', `No courier ${input.courierId}`);
      if (courier.mode !== 'live') throw new AppError('CONFLICT', 'A test courier holds no real cash: there is nothing to settle');
      entry.courierId = courier.id;
    } else {
      const merchant = await store.merchants.findById(input.merchantId!);
      if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', `No merchant ${input.merchantId}`);
      entry.merchantId = merchant.id;
    }
    const outcome = await store.ledger.settleCod(entry);
    if (!outcome.settled) {
      throw new AppError('CONFLICT', `The settlement (${input.amount} CLP) is more than is outstanding (${outcome.outstanding} CLP)`, { details: { outstanding: outcome.outstanding } });
    }
    return entry;
  }

  return { getCodReport, getCourierCash, recordCodSettlement };
}
