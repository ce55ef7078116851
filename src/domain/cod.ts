import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { IdSource } from '../ports/ids.js';
import type { CourierCodBook, Store } from '../ports/store.js';
import type { MerchantPrincipal } from './auth.js';
import { idCursorSchema } from './cursors.js';
import { AppError } from './errors.js';
import { assertPermitted } from './members/roles.js';
import { COD_CLAIM_STATES, type CodClaimState, type LedgerEntry } from './types.js';
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

const amountSchema = z.number().int().min(1).max(100_000_000);
const idSchema = z.string().trim().min(1).max(64);

/** A courier hands cash to the operation (issue #39): it covers the courier's oldest claims first. */
export const recordCodHandOverSchema = z.strictObject({ courierId: idSchema, amount: amountSchema });
/** A payout to a merchant's live account: at most the cash handed over for it minus what was paid out. */
export const recordCodPayoutSchema = z.strictObject({ merchantId: idSchema, amount: amountSchema });
/** An operator's word on a claim far above its order's amount. */
export const resolveCodClaimSchema = z.strictObject({ claimId: idSchema, decision: z.enum(['confirm', 'reject']) });
export const listCodClaimsSchema = z.strictObject({
  status: z.enum(COD_CLAIM_STATES).default('pending_confirmation'),
  courierId: idSchema.optional(),
  after: idCursorSchema('led').optional(),
  first: z.coerce.number().int().min(1).max(100).default(50),
});

/** Where a claim stands: `counted` from the start, or the operator's states (types.ts COD_CLAIM_STATES). */
export type CodClaimStatus = 'counted' | CodClaimState;
export const codClaimStatusOf = (e: LedgerEntry): CodClaimStatus => e.codState ?? 'counted';

/** One collection in a merchant's report: what the order expected and what the courier took. */
export interface CodReportLine {
  entryId: string;
  orderId: string;
  courierId: string | null;
  /** The order's cod_amount; null: the order gave none (amount unknown), never a mismatch. */
  expected: number | null;
  collected: number;
  mismatch: boolean;
  /** Whether the claim counts (issue #39). */
  status: CodClaimStatus;
  /** CLP the courier handed over against this claim so far. */
  handedOver: number;
  collectedAt: string;
}

/** A courier's claim as operators see it (issue #39). */
export interface CodClaim {
  id: string;
  orderId: string;
  merchantId: string;
  courierId: string | null;
  expected: number | null;
  collected: number;
  status: CodClaimStatus;
  collectedAt: string;
}

/** One hand-over: what the courier gave and the claims it covered, oldest first (one ledger line each). */
export interface CodHandOver {
  courierId: string;
  amount: number;
  at: string;
  lines: { id: string; orderId: string; merchantId: string; amount: number }[];
}

/** A payout to a merchant, as written in the ledger. */
export interface CodPayout {
  id: string;
  merchantId: string;
  amount: number;
  at: string;
}

export interface CodReport {
  from: string;
  to: string;
  /** Within the window: claims that count, claims waiting for confirmation, cash handed over, paid out (CLP). */
  collected: number;
  pendingConfirmation: number;
  handedOver: number;
  settled: number;
  /** Claims that count minus paid out, everything up to `to`: what the platform still owes the merchant. */
  outstanding: number;
  /** Handed over minus paid out, everything up to `to`: what can be paid out now. */
  payable: number;
  mismatches: number;
  lines: CodReportLine[];
  nextCursor: string | null;
}

/** A courier's cash in hand: claims that count minus handed over; claims waiting for an operator apart. */
export interface CourierCash {
  courierId: string;
  collected: number;
  pendingConfirmation: number;
  settled: number;
  balance: number;
}

const lineOf = (e: LedgerEntry, handedOver: Map<string, number>): CodReportLine => ({
  entryId: e.id, orderId: e.orderId!, courierId: e.courierId ?? null, expected: e.expected ?? null, collected: e.amount,
  mismatch: e.expected != null && e.amount !== e.expected, status: codClaimStatusOf(e), handedOver: handedOver.get(e.orderId!) ?? 0, collectedAt: e.at,
});

const claimOf = (e: LedgerEntry): CodClaim => ({
  id: e.id, orderId: e.orderId!, merchantId: e.merchantId!, courierId: e.courierId ?? null, expected: e.expected ?? null, collected: e.amount,
  status: codClaimStatusOf(e), collectedAt: e.at,
});

/**
 * Which claims a hand-over of `amount` covers (pure; the store runs it on the book it locked): the
 * courier's claims that count, oldest first, each up to what is still open on it — after the
 * courier's hand-overs from before issue #39, which cover the oldest claims. More than the courier
 * holds: 409 CONFLICT (`details.held`), nothing written.
 */
export function planCodHandOver(options: { book: CourierCodBook; courierId: string; amount: number; at: string; ids: IdSource }): LedgerEntry[] {
  let legacy = options.book.legacyHandedOver;
  let left = options.amount;
  let held = 0;
  const lines: LedgerEntry[] = [];
  for (const { claim, handedOver } of options.book.claims) {
    let open = Math.max(0, claim.amount - handedOver);
    const covered = Math.min(legacy, open);
    legacy -= covered;
    open -= covered;
    held += open;
    const take = Math.min(open, left);
    if (take <= 0) continue;
    lines.push({ id: options.ids.next('led'), merchantId: claim.merchantId, mode: 'live', orderId: claim.orderId, kind: 'cod_handover', amount: take, courierId: options.courierId, at: options.at });
    left -= take;
  }
  if (left > 0) {
    throw new AppError('CONFLICT', `The hand-over (${options.amount} CLP) is more than the courier holds in claims that count (${held} CLP)`, { details: { held } });
  }
  return lines;
}

export type CodService = ReturnType<typeof createCodService>;

/**
 * Cash on delivery after the door (issue #30; cash that follows cash, issue #39): the merchant's
 * report, a courier's cash in hand, and the operators' writes — hand-overs, payouts, decisions on
 * claims far above their order's amount (the audited admin writes the audit entry and runs them
 * under an idempotency key). Claims are written with the delivery itself (orders/cod.ts); hand-overs
 * and payouts are live money only.
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

  /** The merchant's (and mode's) collections in [from, to), their totals and the balances at `to`. */
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
    const handedOver = await store.ledger.handedOverByOrder({ orderIds: page.map((e) => e.orderId!) });
    return {
      from, to, collected: inWindow.collected, pendingConfirmation: inWindow.pending, handedOver: inWindow.handedOver, settled: inWindow.paidOut,
      outstanding: upToEnd.collected - upToEnd.paidOut, payable: upToEnd.handedOver - upToEnd.paidOut, mismatches: inWindow.mismatches,
      lines: page.map((e) => lineOf(e, handedOver)), nextCursor: entries.length > input.first ? page.at(-1)!.id : null,
    };
  }

  async function getCourierCash(options: { courierId: string }): Promise<CourierCash> {
    const sums = await store.ledger.courierCodSums({ courierId: options.courierId });
    return { courierId: options.courierId, collected: sums.collected, pendingConfirmation: sums.pending, settled: sums.handedOver, balance: sums.collected - sums.handedOver };
  }

  async function liveCourier(courierId: string) {
    const courier = await store.couriers.findById(courierId);
    if (!courier) throw new AppError('COURIER_NOT_FOUND', `No courier ${courierId}`);
    if (courier.mode !== 'live') throw new AppError('CONFLICT', 'A test courier holds no real cash: there is nothing to hand over');
    return courier;
  }

  /**
   * An operator records cash a live courier handed to the operation (issue #39): it covers the
   * courier's claims that count, oldest first, one `cod_handover` line per claim (so each CLP is
   * attributed to the claim's merchant). Never more than the courier holds (409 CONFLICT), decided
   * and written by the store in one step.
   */
  async function recordCodHandOver(options: { input: unknown }): Promise<CodHandOver> {
    const input = parseInput(recordCodHandOverSchema, options.input);
    const courier = await liveCourier(input.courierId);
    const at = clock.now().toISOString();
    const lines = await store.ledger.handOverCod({ courierId: courier.id, plan: (book) => planCodHandOver({ book, courierId: courier.id, amount: input.amount, at, ids }) });
    return { courierId: courier.id, amount: input.amount, at, lines: lines.map((l) => ({ id: l.id, orderId: l.orderId!, merchantId: l.merchantId!, amount: l.amount })) };
  }

  /**
   * A payout to a merchant's live account: at most the cash couriers handed over for it minus what
   * was paid out (409 COD_PAYOUT_EXCEEDS_CASH, `details`: payable, handed_over, paid_out), checked
   * by the store in the same step as the write. Payouts follow cash, never what was typed at a door.
   */
  async function recordCodPayout(options: { input: unknown }): Promise<CodPayout> {
    const input = parseInput(recordCodPayoutSchema, options.input);
    const merchant = await store.merchants.findById(input.merchantId);
    if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', `No merchant ${input.merchantId}`);
    const entry: LedgerEntry = { id: ids.next('led'), merchantId: merchant.id, mode: 'live', orderId: null, kind: 'cod_settlement', amount: input.amount, at: clock.now().toISOString() };
    const outcome = await store.ledger.payOutCod(entry);
    if (!outcome.paid) {
      const payable = outcome.handedOver - outcome.paidOut;
      throw new AppError('COD_PAYOUT_EXCEEDS_CASH', `The payout (${input.amount} CLP) is more than the cash handed over for this merchant minus what was paid out (${payable} CLP)`, {
        details: { payable, handed_over: outcome.handedOver, paid_out: outcome.paidOut },
      });
    }
    return { id: entry.id, merchantId: merchant.id, amount: entry.amount, at: entry.at };
  }

  /**
   * Confirms (it counts from now on) or rejects (it never counts) a claim waiting for an operator.
   * Deciding again what was decided answers the claim again; the other decision, or a claim that
   * never waited, is 409 CONFLICT. Returns the claim and whether this call changed it.
   */
  async function resolveCodClaim(options: { input: unknown }): Promise<{ claim: CodClaim; changed: boolean }> {
    const input = parseInput(resolveCodClaimSchema, options.input);
    const to = input.decision === 'confirm' ? 'confirmed' : 'rejected';
    const resolved = await store.ledger.resolveCodClaim({ id: input.claimId, to });
    if (resolved) return { claim: claimOf(resolved), changed: true };
    const entry = await store.ledger.findById(input.claimId);
    if (!entry || entry.kind !== 'cod_collected') throw new AppError('NOT_FOUND', `No cash-on-delivery claim ${input.claimId}`);
    if (entry.codState === to) return { claim: claimOf(entry), changed: false };
    throw new AppError('CONFLICT', entry.codState ? `This claim is already ${entry.codState}` : 'This claim counted from the start: there is nothing to confirm', {
      details: { status: codClaimStatusOf(entry) },
    });
  }

  /** Every merchant's claims in one status (default: waiting for confirmation), oldest first. */
  async function listCodClaims(options: { input: unknown }): Promise<{ claims: CodClaim[]; nextCursor: string | null }> {
    const input = parseInput(listCodClaimsSchema, options.input);
    const entries = await store.ledger.listCodClaims({
      state: input.status, limit: input.first + 1, ...(input.courierId !== undefined && { courierId: input.courierId }), ...(input.after !== undefined && { afterId: input.after }),
    });
    const page = entries.slice(0, input.first);
    return { claims: page.map(claimOf), nextCursor: entries.length > input.first ? page.at(-1)!.id : null };
  }

  return { getCodReport, getCourierCash, recordCodHandOver, recordCodPayout, resolveCodClaim, listCodClaims };
}
