import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { Mode, Order, OrderEvent } from '../../src/domain/types.js';
import type { FeedEvent, NewFeedEvent, Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, batch, creation, order, storeMerchant, transition } from './fixtures.js';

/** The feed event of an order change, as the outbox builds it (the body is any JSON text here). */
function feedOf(o: Order, e: Pick<OrderEvent, 'id' | 'sequence' | 'at'>, status = o.status): NewFeedEvent {
  return {
    id: e.id, merchantId: o.merchantId, mode: o.mode, type: 'order.status_changed', orderId: o.id, sequence: e.sequence,
    body: JSON.stringify({ event: 'order.status_changed', booking_id: o.id, status, sequence: e.sequence }), at: e.at,
  };
}

/**
 * The event feed of every Store adapter (issue #17 item 6): events written in the transaction of
 * their change (orders.create, orders.apply, batches.insert) or not at all, listed per merchant and
 * mode in position order — 1, 2, 3… without gaps — from a position, with a limit; retention.
 */
export function describeEventFeedStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('event feed store contract', options);
  let store: Store;

  const list = (merchantId: string, after = 0, limit = 1000, mode: Mode = 'live') => store.events.list({ merchantId, mode, after, limit });
  const created = async (o: Order): Promise<NewFeedEvent> => {
    const c = creation(o);
    const feed = feedOf(o, c.event);
    await store.orders.create({ ...c, feed });
    return feed;
  };
  const positioned = (e: NewFeedEvent, position: number): FeedEvent => ({ ...e, position });

  describe(`Event feed store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('orders.create, orders.apply and batches.insert write their feed events with positions 1, 2, 3 in commit order', async () => {
      const m = await storeMerchant(store);
      const first = order({ merchantId: m, createdAt: at(1) });
      const e1 = await created(first);
      let applied: NewFeedEvent | undefined;
      const cancelled = await store.orders.apply({
        id: first.id, from: ['new'], to: 'cancelled', event: transition(first, 'new', 'cancelled', at(2)),
        feed: (updated, event) => (applied = feedOf(updated, event)),
      });
      expect(cancelled?.status).toBe('cancelled');
      const b = batch({ merchantId: m, createdAt: at(3) });
      const e3: NewFeedEvent = { id: `evt_${b.id}`, merchantId: m, mode: 'live', type: 'batch.created', orderId: null, sequence: null, body: '{"event":"batch.created"}', at: at(3) };
      await store.batches.insert(b, [], e3);
      expect(applied).toMatchObject({ orderId: first.id, sequence: 2 });
      expect(await list(m)).toStrictEqual([positioned(e1, 1), positioned(applied!, 2), positioned(e3, 3)]);
      expect(await list(m, 1)).toStrictEqual([positioned(applied!, 2), positioned(e3, 3)]);
      expect(await list(m, 0, 2)).toStrictEqual([positioned(e1, 1), positioned(applied!, 2)]);
      expect(await list(m, 3)).toStrictEqual([]);
      expect(await store.events.lastPosition({ merchantId: m, mode: 'live' })).toBe(3);
    });

    test('positions are per merchant and mode; nobody lists another merchant’s or mode’s events', async () => {
      const m = await storeMerchant(store);
      const other = await storeMerchant(store);
      const mine = await created(order({ merchantId: m, createdAt: at(1) }));
      const theirs = await created(order({ merchantId: other, createdAt: at(2) }));
      const test = await created(order({ merchantId: m, mode: 'test', createdAt: at(3) }));
      expect(await list(m)).toStrictEqual([positioned(mine, 1)]);
      expect(await list(other)).toStrictEqual([positioned(theirs, 1)]);
      expect(await list(m, 0, 1000, 'test')).toStrictEqual([positioned(test, 1)]);
      expect(await store.events.lastPosition({ merchantId: other, mode: 'test' })).toBe(0);
    });

    test('a change that is not written writes no feed event and takes no position', async () => {
      const m = await storeMerchant(store);
      const o = order({ merchantId: m, createdAt: at(1) });
      const e1 = await created(o);
      // A clashing order id: the create fails, all or nothing.
      const clash = { ...order({ merchantId: m, createdAt: at(2) }), id: o.id };
      await expect(store.orders.create({ ...creation(clash), feed: feedOf(clash, creation(clash).event) })).rejects.toThrow();
      // A compare-and-set that does not match.
      expect(await store.orders.apply({ id: o.id, from: ['picked_up'], to: 'completed', event: transition(o, 'picked_up', 'completed', at(3)), feed: (u, e) => feedOf(u, e) })).toBeNull();
      const next = await created(order({ merchantId: m, createdAt: at(4) }));
      expect(await list(m)).toStrictEqual([positioned(e1, 1), positioned(next, 2)]);
    });

    test('20 concurrent changes of one merchant get positions 1..20 without gaps or duplicates, each order in sequence', async () => {
      const m = await storeMerchant(store);
      const orders = Array.from({ length: 10 }, (_, i) => order({ merchantId: m, createdAt: at(i) }));
      await Promise.all(orders.map((o) => created(o)));
      await Promise.all(orders.map((o) => store.orders.apply({ id: o.id, from: ['new'], to: 'cancelled', event: transition(o, 'new', 'cancelled', at(100)), feed: (u, e) => feedOf(u, e) })));
      // Read while sequencing could race on a distributed store: a few readers at once.
      const pages = await Promise.all([list(m), list(m), list(m)]);
      const all = await list(m);
      for (const page of pages) expect(all.slice(0, page.length)).toStrictEqual(page);
      expect(all.map((e) => e.position)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      for (const o of orders) expect(all.filter((e) => e.orderId === o.id).map((e) => e.sequence)).toEqual([1, 2]);
    });

    test('prune: deletes events written before the time, at most `limit`; positions go on', async () => {
      const m = await storeMerchant(store);
      const old = [await created(order({ merchantId: m, createdAt: at(1) })), await created(order({ merchantId: m, createdAt: at(2) }))];
      const kept = await created(order({ merchantId: m, createdAt: at(100) }));
      expect(old).toHaveLength(2);
      expect(await store.events.prune({ createdBefore: at(50), limit: 1 })).toBe(1);
      expect(await store.events.prune({ createdBefore: at(50), limit: 5 })).toBe(1);
      expect(await list(m)).toStrictEqual([positioned(kept, 3)]);
      const after = await created(order({ merchantId: m, createdAt: at(101) }));
      expect(await list(m, 3)).toStrictEqual([positioned(after, 4)]);
      expect(await store.events.lastPosition({ merchantId: m, mode: 'live' })).toBe(4);
    });

    checkSkips();
  });
}
