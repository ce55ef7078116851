import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { assertCodAmount, codCollectedEntry, collectCod } from '../../src/domain/orders/cod.js';
import type { Order } from '../../src/domain/types.js';
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
