import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUlidSource, type IdSource } from '../../src/ports/ids.js';
import type { TestApp } from '../helpers/app.js';
import { expectOk, formB, merchantApi, startOrdersApp } from './support.js';

/** Random identifiers, except that the first `clashes` draws of each number repeat one value. */
function clashingIds(clashes: number) {
  const random = createUlidSource();
  const draws = { order: 0, tracking: 0 };
  const ids: IdSource = {
    next: (prefix) => random.next(prefix),
    orderNumber: () => (++draws.order <= clashes ? '1234567890' : random.orderNumber()),
    trackingNumber: () => (++draws.tracking <= clashes ? 'EXD-SAME-SAME-SAME' : random.trackingNumber()),
  };
  return { ids, draws };
}

describe('order creation when a random identifier is already taken', () => {
  let t: TestApp;
  const source = clashingIds(2);
  beforeAll(async () => {
    t = await startOrdersApp({ ids: source.ids });
  });
  afterAll(() => t?.stop());

  it('draws new identifiers and creates the order (201), instead of failing', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const first = expectOk(await orders.create(formB()), 201);
    expect(first.body).toMatchObject({ order_number: '1234567890', tracking_number: 'EXD-SAME-SAME-SAME' });
    // The second order draws the same numbers once, clashes, and draws again.
    const second = expectOk(await orders.create(formB(), 'after-a-clash'), 201);
    expect(second.body.order_number).not.toBe('1234567890');
    expect(second.body.tracking_number).not.toBe('EXD-SAME-SAME-SAME');
    expect(source.draws).toEqual({ order: 3, tracking: 3 });
    expect(expectOk(await orders.list()).body.orders).toHaveLength(2);
    // The idempotency key points at the order that was stored.
    expect(expectOk(await orders.create(formB(), 'after-a-clash'), 200).body.booking_id).toBe(second.body.booking_id);
  });
});
