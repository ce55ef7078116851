import { afterEach, beforeEach, describe, expect } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Notification } from '../../src/domain/notifications/types.js';
import type { Mode, Order, OrderStatus } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, creation, order, storeMerchant, transition, ulid } from './fixtures.js';

const SHORT_LEASE_MS = 150;

/** A notification row (live, pending, due at `at(0)`), or sandboxed in test mode. */
export function notification(overrides: Partial<Notification> & { merchantId: string; orderId: string }): Notification {
  const mode = overrides.mode ?? 'live';
  return Object.assign(
    {
      id: `ntf_${ulid()}`, mode, moment: 'created' as const, channel: 'sms' as const, recipient: '+56912345678', subject: null,
      body: 'Tienda: recibimos tu pedido', status: mode === 'test' ? ('sandboxed' as const) : ('pending' as const), attempts: 0,
      nextAttemptAt: mode === 'test' ? null : at(0), leaseOwner: null, leaseUntil: null, lastError: null, createdAt: at(0), sentAt: null,
    },
    overrides,
  );
}

/**
 * The notification outbox of every Store adapter: one row per (order, moment, channel) whether
 * written with an order change or alone, leases, completion, tenant-scoped pages, retention.
 */
export function describeNotificationStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('notification store contract', options);
  let store: Store;
  /** The apply options of a move of `o` to `to` at `when`. */
  const move = (o: Order, to: OrderStatus, when: string) => ({ id: o.id, from: [o.status], to, event: transition(o, o.status, to, when) });
  const all = (merchantId: string, mode: Mode = 'live') => store.notifications.list({ merchantId, mode, limit: 1000 });

  describe(`Notification store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('orders.create writes its notifications with the order', async () => {
      const m = await storeMerchant(store);
      const o = order({ merchantId: m });
      const rows = [notification({ merchantId: m, orderId: o.id }), notification({ merchantId: m, orderId: o.id, channel: 'email', recipient: 'ana@example.cl' })];
      expect(await store.orders.create({ ...creation(o), notifications: rows })).toStrictEqual({ created: true });
      expect((await all(m)).map((n) => n.id).sort()).toStrictEqual(rows.map((n) => n.id).sort());
    });

    test('orders.apply writes the builder’s notifications in the change; a repeated (order, moment, channel) is skipped', async () => {
      const m = await storeMerchant(store);
      const o = order({ merchantId: m });
      await store.orders.create(creation(o));
      const build = (updated: { id: string }) => [notification({ merchantId: m, orderId: updated.id, moment: 'courier_assigned' })];
      const assigned = await store.orders.apply({ ...move(o, 'assigned', at(10)), notifications: build });
      expect(assigned?.status).toBe('assigned');
      const back = await store.orders.apply(move(assigned!, 'new', at(20)));
      // Assigned again: the same moment on the same channel is not written twice, and the change still commits.
      const again = await store.orders.apply({ ...move(back!, 'assigned', at(30)), notifications: build });
      expect(again?.status).toBe('assigned');
      const rows = await all(m);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.moment).toBe('courier_assigned');
    });

    test('orders.apply that does not apply writes no notification', async () => {
      const m = await storeMerchant(store);
      const o = order({ merchantId: m });
      await store.orders.create(creation(o));
      const result = await store.orders.apply({ ...move(o, 'picked_up', at(10)), from: ['assigned'], notifications: (u) => [notification({ merchantId: m, orderId: u.id, moment: 'on_the_way' })] });
      expect(result).toBeNull();
      expect(await all(m)).toStrictEqual([]);
    });

    test('insert skips duplicates and counts what it wrote', async () => {
      const m = await storeMerchant(store);
      const first = notification({ merchantId: m, orderId: 'bk_1' });
      expect(await store.notifications.insert([first])).toBe(1);
      expect(await store.notifications.insert([notification({ merchantId: m, orderId: 'bk_1' }), notification({ merchantId: m, orderId: 'bk_1', channel: 'whatsapp' })])).toBe(1);
      expect((await all(m)).map((n) => n.channel).sort()).toStrictEqual(['sms', 'whatsapp']);
    });

    test('claimDue leases due live rows once, never sandboxed or future ones', async () => {
      const m = await storeMerchant(store);
      const due = notification({ merchantId: m, orderId: 'bk_due' });
      const later = notification({ merchantId: m, orderId: 'bk_later', nextAttemptAt: at(100) });
      const sandboxed = notification({ merchantId: m, orderId: 'bk_test', mode: 'test' });
      await store.notifications.insert([due, later, sandboxed]);
      const claimed = await store.notifications.claimDue({ owner: 'a', now: at(1), leaseMs: 60_000, limit: 10 });
      expect(claimed.map((n) => n.id)).toStrictEqual([due.id]);
      expect(claimed[0]!.leaseOwner).toBe('a');
      expect(await store.notifications.claimDue({ owner: 'b', now: at(1), leaseMs: 60_000, limit: 10 })).toStrictEqual([]);
    });

    test('an expired lease is claimable again; complete only under the lease', async () => {
      const m = await storeMerchant(store);
      const n = notification({ merchantId: m, orderId: 'bk_lease' });
      await store.notifications.insert([n]);
      await store.notifications.claimDue({ owner: 'a', now: at(1), leaseMs: SHORT_LEASE_MS, limit: 10 });
      await sleep(SHORT_LEASE_MS * 3);
      const taken = await store.notifications.claimDue({ owner: 'b', now: at(1), leaseMs: 60_000, limit: 10 });
      expect(taken.map((x) => x.id)).toStrictEqual([n.id]);
      const outcome = { id: n.id, attempts: 1, status: 'sent' as const, error: null, at: at(2), nextAttemptAt: null };
      expect(await store.notifications.complete({ ...outcome, owner: 'a' })).toBe(false);
      expect(await store.notifications.complete({ ...outcome, owner: 'b' })).toBe(true);
      const [stored] = await all(m);
      expect(stored).toMatchObject({ status: 'sent', attempts: 1, sentAt: at(2), leaseOwner: null, leaseUntil: null });
    });

    test('a retry waits until its next attempt, then is claimed again', async () => {
      const m = await storeMerchant(store);
      const n = notification({ merchantId: m, orderId: 'bk_retry' });
      await store.notifications.insert([n]);
      await store.notifications.claimDue({ owner: 'a', now: at(1), leaseMs: 60_000, limit: 10 });
      expect(await store.notifications.complete({ id: n.id, owner: 'a', attempts: 1, status: 'pending', error: 'HTTP 503', at: at(1), nextAttemptAt: at(60) })).toBe(true);
      expect(await store.notifications.claimDue({ owner: 'a', now: at(30), leaseMs: 60_000, limit: 10 })).toStrictEqual([]);
      const again = await store.notifications.claimDue({ owner: 'a', now: at(61), leaseMs: 60_000, limit: 10 });
      expect(again.map((x) => [x.id, x.attempts, x.lastError])).toStrictEqual([[n.id, 1, 'HTTP 503']]);
      expect(await store.notifications.complete({ id: n.id, owner: 'a', attempts: 2, status: 'failed', error: 'HTTP 503', at: at(61), nextAttemptAt: null })).toBe(true);
      expect(await store.notifications.claimDue({ owner: 'a', now: at(999), leaseMs: 60_000, limit: 10 })).toStrictEqual([]);
    });

    test('blocked: a row written blocked is never claimed; one blocked under its lease keeps its reason and is never claimed again', async () => {
      const m = await storeMerchant(store);
      const written = notification({ merchantId: m, orderId: 'bk_country', status: 'blocked', blockReason: 'country_not_allowed', nextAttemptAt: null });
      const capped = notification({ merchantId: m, orderId: 'bk_cap' });
      await store.notifications.insert([written, capped]);
      const taken = await store.notifications.claimDue({ owner: 'a', now: at(1), leaseMs: 60_000, limit: 10 });
      expect(taken.map((x) => x.id)).toStrictEqual([capped.id]);
      expect(await store.notifications.complete({ id: capped.id, owner: 'a', attempts: 0, status: 'blocked', blockReason: 'number_hourly_cap', error: null, at: at(1), nextAttemptAt: null })).toBe(true);
      expect(await store.notifications.claimDue({ owner: 'a', now: at(999), leaseMs: 60_000, limit: 10 })).toStrictEqual([]);
      const byOrder = Object.fromEntries((await all(m)).map((n) => [n.orderId, n]));
      expect(byOrder.bk_country).toMatchObject({ status: 'blocked', blockReason: 'country_not_allowed', attempts: 0 });
      expect(byOrder.bk_cap).toMatchObject({ status: 'blocked', blockReason: 'number_hourly_cap', attempts: 0, leaseOwner: null, sentAt: null });
    });

    test('list is per merchant and mode, newest first, paged by id', async () => {
      const [m1, m2] = [await storeMerchant(store), await storeMerchant(store)];
      const rows = Array.from({ length: 5 }, (_, i) => notification({ merchantId: m1, orderId: `bk_${i}` }));
      await store.notifications.insert([...rows, notification({ merchantId: m2, orderId: 'bk_x' }), notification({ merchantId: m1, orderId: 'bk_t', mode: 'test' })]);
      const first = await store.notifications.list({ merchantId: m1, mode: 'live', limit: 3 });
      expect(first.map((n) => n.id)).toStrictEqual(rows.slice(2).reverse().map((n) => n.id));
      const second = await store.notifications.list({ merchantId: m1, mode: 'live', limit: 3, after: first.at(-1)!.id });
      expect(second.map((n) => n.id)).toStrictEqual(rows.slice(0, 2).reverse().map((n) => n.id));
      expect((await all(m1, 'test')).map((n) => n.orderId)).toStrictEqual(['bk_t']);
      expect((await all(m2)).map((n) => n.orderId)).toStrictEqual(['bk_x']);
      expect((await store.notifications.list({ merchantId: m1, mode: 'live', limit: 10, orderId: 'bk_3' })).map((n) => n.id)).toStrictEqual([rows[3]!.id]);
    });

    test('prune deletes old rows in bounded batches', async () => {
      const m = await storeMerchant(store);
      await store.notifications.insert(Array.from({ length: 5 }, (_, i) => notification({ merchantId: m, orderId: `bk_old${i}`, createdAt: at(i) })));
      await store.notifications.insert([notification({ merchantId: m, orderId: 'bk_new', createdAt: at(100) })]);
      expect(await store.notifications.prune({ createdBefore: at(50), limit: 3 })).toBe(3);
      expect(await store.notifications.prune({ createdBefore: at(50), limit: 3 })).toBe(2);
      expect(await store.notifications.prune({ createdBefore: at(50), limit: 3 })).toBe(0);
      expect((await all(m)).map((n) => n.orderId)).toStrictEqual(['bk_new']);
    });

    checkSkips();
  });
}
