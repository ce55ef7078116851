import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Identifiers from '../../src/domain/orders/identifiers.js';
import type { TestApp } from '../helpers/app.js';
import { expectOk, formB, merchantApi, startOrdersApp } from './support.js';

// The first two draws of an order number are the same number: the second order must clash once.
const clash = vi.hoisted(() => ({ draws: 0 }));
vi.mock('../../src/domain/orders/identifiers.js', async (importOriginal) => {
  const original = await importOriginal<typeof Identifiers>();
  return {
    ...original,
    generateOrderNumber: () => (++clash.draws <= 2 ? '1234567890' : original.generateOrderNumber()),
  };
});

describe('order creation when a random identifier is already taken', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startOrdersApp();
  });
  afterAll(() => t?.stop());

  it('draws new identifiers and creates the order (201), instead of failing', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const first = expectOk(await orders.create(formB()), 201);
    expect(first.body.order_number).toBe('1234567890');
    const second = expectOk(await orders.create(formB(), 'after-a-clash'), 201);
    expect(second.body.order_number).not.toBe('1234567890');
    expect(clash.draws).toBe(3);
    expect(expectOk(await orders.list()).body.orders).toHaveLength(2);
    // The idempotency key points at the order that was stored.
    expect(expectOk(await orders.create(formB(), 'after-a-clash'), 200).body.booking_id).toBe(second.body.booking_id);
  });
});
