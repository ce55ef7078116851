import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { assertTippable, tipLedgerEntry, TIP_WINDOW_MS } from '../../src/domain/orders/tips.js';
import { ORDER_STATUSES, type DeliveryProof, type Order, type OrderStatus } from '../../src/domain/types.js';

const DELIVERED_AT = '2026-03-02T15:00:00.000Z';
const proof = { deliveredAt: DELIVERED_AT } as DeliveryProof;
const orderIn = (status: OrderStatus) => ({ id: 'bk_1', status, proof: status === 'completed' ? proof : null });
const codeOf = (run: () => void) => {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

describe('which orders take a tip (issue #30 item 4)', () => {
  const TAKES: Record<OrderStatus, boolean> = {
    new: true, assigned: true, arrived_pickup: true, picked_up: true, arrived_dropoff: true, delivery_failed: true, completed: true,
    cancelled: false, returning: false, returned: false, disposed: false,
  };
  it('covers every status', () => expect(Object.keys(TAKES).sort()).toEqual([...ORDER_STATUSES].sort()));
  it.each(Object.entries(TAKES) as Array<[OrderStatus, boolean]>)('%s: %s', (status, takes) => {
    expect(codeOf(() => assertTippable(orderIn(status), new Date(DELIVERED_AT)))).toBe(takes ? null : 'TIP_NOT_ALLOWED');
  });

  it('a delivered order takes one until exactly 24 h after the delivery, not a millisecond later', () => {
    const at = (ms: number) => new Date(Date.parse(DELIVERED_AT) + ms);
    expect(codeOf(() => assertTippable(orderIn('completed'), at(TIP_WINDOW_MS)))).toBeNull();
    expect(codeOf(() => assertTippable(orderIn('completed'), at(TIP_WINDOW_MS + 1)))).toBe('TIP_NOT_ALLOWED');
  });
});

describe('the ledger entry of a tip', () => {
  const ids = { next: (prefix: string) => `${prefix}_1` } as Parameters<typeof tipLedgerEntry>[0]['ids'];
  const order = (mode: Order['mode']) => ({ id: 'bk_1', merchantId: 'mer_1', mode }) as Order;
  it('live: a positive tip entry; the sandbox and a zero tip: none', () => {
    expect(tipLedgerEntry({ order: order('live'), amount: 2000, ids, at: DELIVERED_AT })).toEqual({
      id: 'led_1', merchantId: 'mer_1', mode: 'live', orderId: 'bk_1', kind: 'tip', amount: 2000, at: DELIVERED_AT,
    });
    expect(tipLedgerEntry({ order: order('test'), amount: 2000, ids, at: DELIVERED_AT })).toBeNull();
    expect(tipLedgerEntry({ order: order('live'), amount: 0, ids, at: DELIVERED_AT })).toBeNull();
  });
});
