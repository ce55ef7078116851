import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { planCodHandOver } from '../../src/domain/cod.js';
import { assertCodAmount, codCollectedEntry, collectCod, isFarAboveCodAmount } from '../../src/domain/orders/cod.js';
import type { LedgerEntry, Order } from '../../src/domain/types.js';
import type { IdSource } from '../../src/ports/ids.js';

const AT = new Date('2026-11-28T15:00:00.000Z');
/** Only the payment mode and amount (and, for the ledger line, the ids and mode) are read. */
const codOrder = (codAmount: number | null, paymentMode = codAmount === null ? 'prepaid' : 'cash_on_delivery') => ({ id: 'bk_1', merchantId: 'mer_1', mode: 'live', paymentMode, codAmount }) as Order;
const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
  return null;
};

describe('cash on delivery rules (issue #30 item 3)', () => {
  it('cod_amount only goes with cash_on_delivery; cash_on_delivery without it is accepted (amount unknown); never on a multi-stop order', () => {
    expect(codeOf(() => assertCodAmount({ paymentMode: 'cash_on_delivery', codAmount: 100 }))).toBeNull();
    expect(codeOf(() => assertCodAmount({ paymentMode: 'prepaid', codAmount: undefined }))).toBeNull();
    expect(codeOf(() => assertCodAmount({ paymentMode: 'cash_on_delivery', codAmount: undefined }))).toBeNull();
    expect(codeOf(() => assertCodAmount({ paymentMode: 'prepaid', codAmount: 100 }))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => assertCodAmount({ paymentMode: 'cash_on_delivery', codAmount: undefined, multiStop: true }))).toBe('VALIDATION_ERROR');
  });

  it('a COD order of unknown amount needs the amount collected and records it as is: expected null, never a mismatch', () => {
    const unknown = codOrder(null, 'cash_on_delivery');
    expect(codeOf(() => collectCod({ order: unknown, collected: undefined, courierId: 'cr_1', at: AT }))).toBe('COD_COLLECTED_REQUIRED');
    for (const collected of [0, 1, 15_990]) {
      expect(collectCod({ order: unknown, collected, courierId: 'cr_1', at: AT })).toEqual({ expected: null, collected, mismatch: false, courierId: 'cr_1', collectedAt: AT.toISOString() });
    }
    const collection = collectCod({ order: unknown, collected: 9_990, courierId: 'cr_1', at: AT })!;
    expect(codCollectedEntry({ order: unknown, collection, ids: { next: (p: string) => `${p}_X` } as unknown as IdSource })).toMatchObject({ kind: 'cod_collected', amount: 9_990, expected: null });
  });

  it('a prepaid order collects nothing; a COD order needs the amount collected, and a different one is a mismatch', () => {
    expect(collectCod({ order: codOrder(null), collected: undefined, courierId: 'cr_1', at: AT })).toBeNull();
    expect(codeOf(() => collectCod({ order: codOrder(15_990), collected: undefined, courierId: 'cr_1', at: AT }))).toBe('COD_COLLECTED_REQUIRED');
    expect(collectCod({ order: codOrder(15_990), collected: 15_990, courierId: 'cr_1', at: AT })).toEqual({
      expected: 15_990, collected: 15_990, mismatch: false, courierId: 'cr_1', collectedAt: AT.toISOString(),
    });
    for (const collected of [0, 15_989, 20_000]) {
      expect(collectCod({ order: codOrder(15_990), collected, courierId: 'cr_1', at: AT })).toMatchObject({ collected, mismatch: true });
    }
  });

  it("the collection's ledger line: the courier holds the cash, the merchant is owed it", () => {
    const collection = collectCod({ order: codOrder(15_990), collected: 15_000, courierId: 'cr_1', at: AT })!;
    expect(codCollectedEntry({ order: codOrder(15_990), collection, ids: { next: (p: string) => `${p}_X` } as unknown as IdSource })).toEqual({
      id: 'led_X', merchantId: 'mer_1', mode: 'live', orderId: 'bk_1', kind: 'cod_collected', amount: 15_000, expected: 15_990, courierId: 'cr_1', at: AT.toISOString(),
    });
  });
});

describe('cash that follows cash (issue #39)', () => {
  const limits = { confirmRatio: 1.5, confirmMarginClp: 50_000 };
  let n = 0;
  const ids: IdSource = { next: (prefix: string) => `${prefix}_${++n}` } as IdSource;

  it('a claim above 1.5× or above +50,000 CLP waits for confirmation; an unknown amount cannot be far above', () => {
    expect(isFarAboveCodAmount({ expected: 15_000, collected: 10_000_000, limits })).toBe(true);
    expect(isFarAboveCodAmount({ expected: 15_000, collected: 22_500, limits })).toBe(false);
    expect(isFarAboveCodAmount({ expected: 15_000, collected: 22_501, limits })).toBe(true);
    expect(isFarAboveCodAmount({ expected: 1_000_000, collected: 1_050_000, limits })).toBe(false);
    expect(isFarAboveCodAmount({ expected: 1_000_000, collected: 1_050_001, limits })).toBe(true);
    expect(isFarAboveCodAmount({ expected: null, collected: 10_000_000, limits })).toBe(false);
    expect(isFarAboveCodAmount({ expected: undefined, collected: 10_000_000, limits })).toBe(false);
    const collection = { expected: 15_000, collected: 10_000_000, mismatch: true, courierId: 'cr_1', collectedAt: AT.toISOString() };
    expect(codCollectedEntry({ order: codOrder(15_000), collection, ids, limits })).toMatchObject({ kind: 'cod_collected', amount: 10_000_000, codState: 'pending_confirmation' });
    expect(codCollectedEntry({ order: codOrder(15_000), collection: { ...collection, collected: 15_000, mismatch: false }, ids })).not.toHaveProperty('codState');
  });

  it('a hand-over covers the oldest claims first, after the hand-overs from before #39; more than held is refused', () => {
    const claim = (orderId: string, amount: number, merchantId = 'mer_1'): LedgerEntry => ({ id: `led_${orderId}`, merchantId, mode: 'live', orderId, kind: 'cod_collected', amount, expected: amount, courierId: 'cr_1', at: AT.toISOString() });
    const book = { claims: [{ claim: claim('bk_1', 10_000), handedOver: 4_000 }, { claim: claim('bk_2', 8_000, 'mer_2'), handedOver: 0 }, { claim: claim('bk_3', 5_000), handedOver: 0 }], legacyHandedOver: 3_000 };
    // Open: bk_1 6,000 − legacy 3,000 = 3,000; bk_2 8,000; bk_3 5,000 → 16,000 held.
    const lines = planCodHandOver({ book, courierId: 'cr_1', amount: 12_000, at: AT.toISOString(), ids });
    expect(lines.map((l) => [l.kind, l.orderId, l.merchantId, l.amount])).toEqual([['cod_handover', 'bk_1', 'mer_1', 3_000], ['cod_handover', 'bk_2', 'mer_2', 8_000], ['cod_handover', 'bk_3', 'mer_1', 1_000]]);
    let refused: unknown;
    try {
      planCodHandOver({ book, courierId: 'cr_1', amount: 16_001, at: AT.toISOString(), ids });
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'CONFLICT', details: { held: 16_000 } });
  });
});
