import { z } from 'zod';
import type { IdSource } from '../../ports/ids.js';
import { AppError } from '../errors.js';
import type { CodCollection, LedgerEntry, Order, PaymentMode } from '../types.js';

/** CLP a courier may be asked to collect at one door (issue #30): a whole peso, 1 to 10,000,000. */
export const codAmountSchema = z.number().int().min(1).max(10_000_000);
/** What the courier says was collected: any whole CLP amount in the same range (0: nothing was paid). */
export const codCollectedSchema = z.number().int().min(0).max(10_000_000);

/**
 * `cod_amount` is only for cash on delivery (400 VALIDATION_ERROR otherwise); cash on delivery
 * without it is accepted (the spec's Form B names no amount): the amount is unknown, and the courier
 * records what was collected. A multi-stop order is prepaid: one amount would be collected at
 * several doors (not supported).
 */
export function assertCodAmount(options: { paymentMode: PaymentMode; codAmount: number | undefined; multiStop?: boolean }): void {
  const { paymentMode, codAmount } = options;
  if (paymentMode === 'cash_on_delivery' && options.multiStop) {
    throw new AppError('VALIDATION_ERROR', 'A multi-stop order is prepaid: cash on delivery takes one drop-off', { fields: [{ field: 'paymentMode', message: 'cash_on_delivery is not accepted with stops' }] });
  }
  if (paymentMode !== 'cash_on_delivery' && codAmount !== undefined) {
    throw new AppError('VALIDATION_ERROR', 'codAmount is only for cash-on-delivery orders', { fields: [{ field: 'codAmount', message: 'only with paymentMode cash_on_delivery' }] });
  }
}

/** Whether the courier collects cash at this order's door (with or without a known amount). */
export const collectsCash = (order: Pick<Order, 'paymentMode' | 'codAmount'>): boolean => order.paymentMode === 'cash_on_delivery' || order.codAmount != null;

/**
 * The cash a courier confirms at the door of a COD order: required (422 COD_COLLECTED_REQUIRED).
 * With a cod_amount, a different amount is accepted and recorded as a mismatch; without one
 * (unknown, `expected: null`) whatever was collected is recorded, never a mismatch: there is
 * nothing to compare. Null for a prepaid order.
 */
export function collectCod(options: { order: Order; collected: number | undefined; courierId: string; at: Date }): CodCollection | null {
  if (!collectsCash(options.order)) return null;
  const expected = options.order.codAmount ?? null;
  if (options.collected === undefined) {
    const asked = expected === null ? 'the amount is not known: ask the customer' : `expected ${expected}`;
    throw new AppError('COD_COLLECTED_REQUIRED', `This is a cash-on-delivery order: send codCollected, the CLP collected (${asked})`, {
      fields: [{ field: 'codCollected', message: 'is required for this order' }],
      details: { cod_amount: expected },
    });
  }
  const mismatch = expected !== null && options.collected !== expected;
  return { expected, collected: options.collected, mismatch, courierId: options.courierId, collectedAt: options.at.toISOString() };
}

/** When a claim is far enough above the order's amount to wait for an operator (issue #39; COD_CONFIRM_*). */
export interface CodConfirmLimits {
  /** Above expected × ratio… */
  confirmRatio: number;
  /** …or above expected + margin (CLP). */
  confirmMarginClp: number;
}

export const DEFAULT_COD_CONFIRM_LIMITS: CodConfirmLimits = { confirmRatio: 1.5, confirmMarginClp: 50_000 };

/**
 * A claim far above the order's amount: more than `ratio` times it, or more than `margin` CLP over
 * it. Without a known amount (cod_amount null) no such test is possible: the claim counts as typed.
 */
export function isFarAboveCodAmount(options: { expected: number | null | undefined; collected: number; limits: CodConfirmLimits }): boolean {
  const { expected, collected, limits } = options;
  if (expected == null) return false;
  return collected > expected * limits.confirmRatio || collected > expected + limits.confirmMarginClp;
}

/**
 * The collection's ledger line: the courier's **claim** (issue #39) that it holds the cash, owed to
 * the merchant once handed over. Far above the order's amount it waits for an operator
 * (`pending_confirmation`) and counts nowhere until confirmed. Written in both modes: it records
 * cash, not a charge; test-mode cash is never settled (hand-overs and payouts are live only).
 */
export function codCollectedEntry(options: { order: Order; collection: CodCollection; ids: IdSource; limits?: CodConfirmLimits }): LedgerEntry {
  const { order, collection } = options;
  const pending = isFarAboveCodAmount({ expected: collection.expected, collected: collection.collected, limits: options.limits ?? DEFAULT_COD_CONFIRM_LIMITS });
  return {
    id: options.ids.next('led'), merchantId: order.merchantId, mode: order.mode, orderId: order.id, kind: 'cod_collected',
    amount: collection.collected, expected: collection.expected, courierId: collection.courierId, at: collection.collectedAt,
    ...(pending && { codState: 'pending_confirmation' as const }),
  };
}
