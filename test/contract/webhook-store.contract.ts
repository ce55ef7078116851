import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { Mode, Order, OrderEvent, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWebhookOutbox } from '../../src/domain/webhooks/outbox.js';
import { createUlidSource } from '../../src/ports/ids.js';
import { at, batch, courier, creation, idempotency, nextId, order, storeMerchant, transition, ulid } from './fixtures.js';

/** A lease that runs out during the case (on the store's clock, so the case waits for it). */
const SHORT_LEASE_MS = 150;
/** A lease held by another worker well past the case. */
const FAR_FUTURE = '2999-01-01T00:00:00.000Z';

/**
 * The webhook side of every Store adapter: endpoints, deliveries with their leases and attempts,
 * redelivery, and the transactional outbox written by orders.create, orders.apply and
 * batches.insert. makeStore returns a fresh, empty store per case.
 */
export function describeWebhookStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('webhook store contract', options);
  let store: Store;

  /** A stored merchant (endpoints and orders reference it) and its id. */
  const newMerchant = () => storeMerchant(store);

  const storedEndpoint = async (overrides: Partial<WebhookEndpoint> & { merchantId: string }): Promise<WebhookEndpoint> => {
    const e = endpoint(overrides);
    await store.webhooks.insertEndpoint(e);
    return e;
  };

  const storedDeliveries = async (list: WebhookDelivery[]): Promise<WebhookDelivery[]> => {
    await store.webhooks.insertDeliveries(list);
    return list;
  };

  const all = (merchantId: string, mode: Mode = 'live') => store.webhooks.listDeliveries({ merchantId, mode, limit: 1000 });
  const find = (d: WebhookDelivery) => store.webhooks.findDelivery({ id: d.id, merchantId: d.merchantId, mode: d.mode });
  const sortById = (list: WebhookDelivery[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));

  describe(`Webhook store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    // ---- endpoints ----

    test('webhooks.insertEndpoint stores the endpoint exactly; findEndpoint is scoped by merchant and mode when given', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const e = await storedEndpoint({ merchantId: m, description: null, events: ['order.status_changed', 'batch.created'], payloadShape: 'flat' });
      expect(await store.webhooks.findEndpoint({ id: e.id })).toStrictEqual(e);
      expect(await store.webhooks.findEndpoint({ id: e.id, merchantId: m, mode: 'live' })).toStrictEqual(e);
      expect(await store.webhooks.findEndpoint({ id: e.id, merchantId: other, mode: 'live' })).toBeNull();
      expect(await store.webhooks.findEndpoint({ id: e.id, merchantId: m, mode: 'test' })).toBeNull();
      expect(await store.webhooks.findEndpoint({ id: 'we_unknown' })).toBeNull();
    });

    test('webhooks: an endpoint’s signing is stored and patched (symmetric ⇄ asymmetric, issue #31)', async () => {
      const m = await newMerchant();
      const e = await storedEndpoint({ merchantId: m, signing: 'asymmetric' });
      expect(await store.webhooks.findEndpoint({ id: e.id })).toStrictEqual(e);
      const patched = await store.webhooks.updateEndpoint({ id: e.id, patch: { signing: 'symmetric' }, updatedAt: at(90) });
      expect(patched).toStrictEqual(Object.assign({}, e, { signing: 'symmetric', updatedAt: at(90) }));
      expect(await store.webhooks.listEndpoints({ merchantId: m, mode: 'live' })).toStrictEqual([patched]);
    });

    test('webhooks.listTroubledEndpoints: failing or disabled with a reason, any mode, by merchant then id; one merchant’s or all (issue #29)', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      await storedEndpoint({ merchantId: m });
      const failing = await storedEndpoint({ merchantId: m, failingSince: at(1) });
      const disabled = await storedEndpoint({ merchantId: m, mode: 'test', enabled: false, disabledReason: 'failing for 72 hours' });
      const othersFailing = await storedEndpoint({ merchantId: other, failingSince: at(2) });
      await storedEndpoint({ merchantId: other, enabled: false, disabledReason: null });
      const byId = (list: WebhookEndpoint[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(await store.webhooks.listTroubledEndpoints({ merchantId: m, limit: 10 })).toStrictEqual(byId([failing, disabled]));
      const everyone = await store.webhooks.listTroubledEndpoints({ limit: 10 });
      expect(everyone).toStrictEqual([...(m < other ? [byId([failing, disabled]), [othersFailing]] : [[othersFailing], byId([failing, disabled])])].flat());
      expect(await store.webhooks.listTroubledEndpoints({ limit: 1 })).toHaveLength(1);
      // One mode's (the ops home, issue #38): the other mode's troubled endpoints never show.
      expect(await store.webhooks.listTroubledEndpoints({ merchantId: m, mode: 'test', limit: 10 })).toStrictEqual([disabled]);
      expect(await store.webhooks.listTroubledEndpoints({ merchantId: m, mode: 'live', limit: 10 })).toStrictEqual([failing]);
      const liveEveryone = await store.webhooks.listTroubledEndpoints({ mode: 'live', limit: 10 });
      expect(liveEveryone).toStrictEqual(m < other ? [failing, othersFailing] : [othersFailing, failing]);
      await store.webhooks.updateEndpoint({ id: failing.id, patch: { failingSince: null }, updatedAt: at(3) });
      expect((await store.webhooks.listTroubledEndpoints({ merchantId: m, limit: 10 })).map((e) => e.id)).toStrictEqual([disabled.id]);
    });

    test('webhooks.listEndpoints lists one merchant’s endpoints in one mode oldest first, all or enabled only', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const first = await storedEndpoint({ merchantId: m, createdAt: at(1) });
      const disabled = await storedEndpoint({ merchantId: m, createdAt: at(2), enabled: false, disabledReason: 'disabled by the merchant' });
      const third = await storedEndpoint({ merchantId: m, createdAt: at(3) });
      await storedEndpoint({ merchantId: m, mode: 'test', createdAt: at(4) });
      await storedEndpoint({ merchantId: other, createdAt: at(5) });
      expect(await store.webhooks.listEndpoints({ merchantId: m, mode: 'live' })).toStrictEqual([first, disabled, third]);
      expect(await store.webhooks.listEndpoints({ merchantId: m, mode: 'live', enabledOnly: true })).toStrictEqual([first, third]);
      expect(await store.webhooks.listEndpoints({ merchantId: m, mode: 'test' })).toHaveLength(1);
      expect(await store.webhooks.listEndpoints({ merchantId: nextId('m'), mode: 'live' })).toEqual([]);
    });

    test('webhooks.updateEndpoint applies the patch and updatedAt (undefined = absent); null when unknown', async () => {
      const m = await newMerchant();
      const e = await storedEndpoint({ merchantId: m, description: 'Producción' });
      const disabled = await store.webhooks.updateEndpoint({
        id: e.id,
        patch: { enabled: false, disabledReason: 'disabled automatically', failingSince: at(50), description: undefined },
        updatedAt: at(60),
      });
      const expected = { ...e, enabled: false, disabledReason: 'disabled automatically', failingSince: at(50), updatedAt: at(60) };
      expect(disabled).toStrictEqual(expected);
      expect(await store.webhooks.findEndpoint({ id: e.id })).toStrictEqual(expected);
      expect(await store.webhooks.listEndpoints({ merchantId: m, mode: 'live', enabledOnly: true })).toEqual([]);

      const changed = await store.webhooks.updateEndpoint({
        id: e.id,
        patch: { url: 'https://hooks.example.cl/v2', events: ['batch.created'], payloadShape: 'flat', enabled: true, disabledReason: null, failingSince: null, description: null },
        updatedAt: at(70),
      });
      const next = { ...e, url: 'https://hooks.example.cl/v2', events: ['batch.created'], payloadShape: 'flat', description: null, updatedAt: at(70) };
      expect(changed).toStrictEqual(next);
      expect(await store.webhooks.listEndpoints({ merchantId: m, mode: 'live', enabledOnly: true })).toStrictEqual([next]);
      expect(await store.webhooks.updateEndpoint({ id: 'we_unknown', patch: { enabled: false }, updatedAt: at(80) })).toBeNull();
    });

    test('webhooks.deleteEndpoint deletes only within its merchant and mode', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const e = await storedEndpoint({ merchantId: m });
      expect(await store.webhooks.deleteEndpoint({ id: e.id, merchantId: other, mode: 'live' })).toBe(false);
      expect(await store.webhooks.deleteEndpoint({ id: e.id, merchantId: m, mode: 'test' })).toBe(false);
      expect(await store.webhooks.findEndpoint({ id: e.id })).toStrictEqual(e);
      expect(await store.webhooks.deleteEndpoint({ id: e.id, merchantId: m, mode: 'live' })).toBe(true);
      expect(await store.webhooks.findEndpoint({ id: e.id })).toBeNull();
      expect(await store.webhooks.deleteEndpoint({ id: e.id, merchantId: m, mode: 'live' })).toBe(false);
    });

    // ---- deliveries: leases and attempts ----

    test('webhooks.insertDeliveries stores them exactly; findDelivery is scoped by merchant and mode', async () => {
      const m = await newMerchant();
      const [a, b] = await storedDeliveries([delivery({ merchantId: m }), delivery({ merchantId: m, eventType: 'batch.created', orderId: null, sequence: null })]);
      expect(await find(a!)).toStrictEqual(a);
      expect(await find(b!)).toStrictEqual(b);
      expect(await store.webhooks.findDelivery({ id: a!.id, merchantId: nextId('m'), mode: 'live' })).toBeNull();
      expect(await store.webhooks.findDelivery({ id: a!.id, merchantId: m, mode: 'test' })).toBeNull();
      await store.webhooks.insertDeliveries([]);
      expect(await all(m)).toHaveLength(2);
    });

    test('webhooks.claimDue leases only pending, due, unleased deliveries, earliest due first, up to the limit', async () => {
      const m = await newMerchant();
      const now = at(100);
      const [dueLater, dueFirst, dueMiddle] = await storedDeliveries([
        delivery({ merchantId: m, nextAttemptAt: at(90) }),
        delivery({ merchantId: m, nextAttemptAt: at(10) }),
        delivery({ merchantId: m, nextAttemptAt: at(50), mode: 'test' }), // any merchant and mode
      ]);
      const notDue = await storedDeliveries([
        delivery({ merchantId: m, nextAttemptAt: at(101) }),
        delivery({ merchantId: m, nextAttemptAt: at(20), status: 'delivered', deliveredAt: at(20) }),
        delivery({ merchantId: m, nextAttemptAt: at(20), status: 'failed' }),
        delivery({ merchantId: m, nextAttemptAt: at(20), leaseOwner: 'worker-b', leaseUntil: FAR_FUTURE }),
      ]);

      const first = await store.webhooks.claimDue({ owner: 'worker-a', now, leaseMs: 60_000, limit: 2 });
      const leased = (d: WebhookDelivery, until = first[0]!.leaseUntil) => ({ ...d, leaseOwner: 'worker-a', leaseUntil: until });
      expect(first).toStrictEqual([leased(dueFirst!), leased(dueMiddle!)]);
      const second = await store.webhooks.claimDue({ owner: 'worker-a', now, leaseMs: 60_000, limit: 10 });
      expect(second).toStrictEqual([leased(dueLater!, second[0]!.leaseUntil)]);
      expect(await store.webhooks.claimDue({ owner: 'worker-c', now, leaseMs: 60_000, limit: 10 })).toEqual([]);

      for (const d of [dueFirst!, dueMiddle!]) expect(await find(d)).toStrictEqual(leased(d));
      expect(await find(dueLater!)).toStrictEqual(leased(dueLater!, second[0]!.leaseUntil));
      for (const d of notDue) expect(await find(d)).toStrictEqual(d);
    });

    test('webhooks.claimDue re-claims a delivery whose lease has expired', async () => {
      const m = await newMerchant();
      const [d] = await storedDeliveries([delivery({ merchantId: m, nextAttemptAt: at(0) })]);
      expect(await store.webhooks.claimDue({ owner: 'worker-a', now: at(10), leaseMs: SHORT_LEASE_MS, limit: 5 })).toHaveLength(1);
      // The node's "now" does not expire a lease: only the store's clock does.
      expect(await store.webhooks.claimDue({ owner: 'worker-b', now: at(100_000_000), leaseMs: 60_000, limit: 5 })).toEqual([]);
      await sleep(SHORT_LEASE_MS * 3);
      const reclaimed = await store.webhooks.claimDue({ owner: 'worker-b', now: at(25), leaseMs: 60_000, limit: 5 });
      expect(reclaimed).toStrictEqual([{ ...d, leaseOwner: 'worker-b', leaseUntil: reclaimed[0]!.leaseUntil }]);
      expect(await find(d!)).toStrictEqual(reclaimed[0]);
    });

    test('webhooks.claimDue: 10 concurrent claimers over 50 due deliveries get every delivery exactly once', async () => {
      const m = await newMerchant();
      const list = await storedDeliveries(Array.from({ length: 50 }, (_, i) => delivery({ merchantId: m, nextAttemptAt: at(i) })));
      const owners = Array.from({ length: 10 }, (_, i) => `worker-${i}`);
      const claims = await Promise.all(owners.map((owner) => store.webhooks.claimDue({ owner, now: at(100), leaseMs: 60_000, limit: 10 })));
      const ids = claims.flat().map((d) => d.id);
      expect(ids).toHaveLength(50);
      expect(new Set(ids).size).toBe(50);
      expect([...ids].sort()).toEqual(list.map((d) => d.id).sort());
      // Each delivery is stored as leased to the claimer that got it.
      for (const [i, claimed] of claims.entries()) {
        for (const d of claimed) expect((await find(d))?.leaseOwner).toBe(owners[i]);
      }
    });

    test('webhooks.claimDue leases on the store’s clock: leaseUntil is the store’s now + leaseMs, whatever the caller’s now', async () => {
      const m = await newMerchant();
      await storedDeliveries([delivery({ merchantId: m, nextAttemptAt: at(0) })]);
      const before = Date.now();
      const [claimed] = await store.webhooks.claimDue({ owner: 'worker-a', now: at(10), leaseMs: 60_000, limit: 1 });
      const after = Date.now();
      // The store runs on this machine: its clock is this process's, within a second.
      const until = Date.parse(claimed!.leaseUntil!);
      expect(until).toBeGreaterThanOrEqual(before + 60_000 - 1000);
      expect(until).toBeLessThanOrEqual(after + 60_000 + 1000);
    });

    test('webhooks.claimDue takes merchants in turns: one merchant’s backlog does not fill the claim while another has due work', async () => {
      const a = await newMerchant();
      const b = await newMerchant();
      const backlog = await storedDeliveries(Array.from({ length: 20 }, (_, i) => delivery({ merchantId: a, endpointId: `we_a${i % 5}`, nextAttemptAt: at(i) })));
      const [late] = await storedDeliveries([delivery({ merchantId: b, endpointId: 'we_b', nextAttemptAt: at(90) })]);
      const claimed = await store.webhooks.claimDue({ owner: 'worker-a', now: at(100), leaseMs: 60_000, limit: 3 });
      // A's oldest first, then B's only one, then A's second: B is in the claim although 20 of A's are older.
      expect(claimed.map((d) => d.id)).toEqual([backlog[0]!.id, late!.id, backlog[1]!.id]);
    });

    test('webhooks.claimDue steps over merchants whose pending deliveries are not due or are in flight', async () => {
      const [a, b, c, d] = [await newMerchant(), await newMerchant(), await newMerchant(), await newMerchant()];
      const inFlight = await storedDeliveries([delivery({ merchantId: a, endpointId: 'we_a', nextAttemptAt: at(10) }), delivery({ merchantId: c, endpointId: 'we_c', nextAttemptAt: at(20) })]);
      await storedDeliveries([delivery({ merchantId: b, endpointId: 'we_b', nextAttemptAt: at(500) })]);
      expect((await store.webhooks.claimDue({ owner: 'worker-c', now: at(25), leaseMs: 60_000, limit: 10 })).map((x) => x.id).sort()).toEqual(inFlight.map((x) => x.id).sort());
      const [due] = await storedDeliveries([delivery({ merchantId: d, endpointId: 'we_d', nextAttemptAt: at(30) })]);
      // A's and C's are leased (in flight), B's is not due: only D's, the last merchant in id order, is claimed.
      const claimed = await store.webhooks.claimDue({ owner: 'worker-a', now: at(100), leaseMs: 60_000, limit: 10 });
      expect(claimed.map((x) => x.id)).toEqual([due!.id]);
    });

    test('webhooks.claimDue caps what a merchant and an endpoint have in flight (leased, unexpired), across claims', async () => {
      const a = await newMerchant();
      const b = await newMerchant();
      const caps = { merchantConcurrency: 3, endpointConcurrency: 2 };
      const slow = await storedDeliveries(Array.from({ length: 6 }, (_, i) => delivery({ merchantId: a, endpointId: 'we_slow', nextAttemptAt: at(i) })));
      const other = await storedDeliveries(Array.from({ length: 6 }, (_, i) => delivery({ merchantId: a, endpointId: 'we_other', nextAttemptAt: at(10 + i) })));
      const [bs] = await storedDeliveries([delivery({ merchantId: b, endpointId: 'we_b', nextAttemptAt: at(50) })]);
      const first = await store.webhooks.claimDue({ owner: 'worker-a', now: at(100), leaseMs: 60_000, limit: 50, ...caps });
      // Two for the slow endpoint (its cap), one more of A's (the merchant's cap of 3), and B's.
      expect(first.map((d) => d.id).sort()).toEqual([slow[0]!.id, slow[1]!.id, other[0]!.id, bs!.id].sort());
      // Another worker (another node) sees the same leases: nothing more for A until one completes.
      expect(await store.webhooks.claimDue({ owner: 'worker-b', now: at(100), leaseMs: 60_000, limit: 50, ...caps })).toEqual([]);
      const done = attempt(slow[0]!, 1, at(101), 200);
      await store.webhooks.completeAttempt({ id: slow[0]!.id, owner: 'worker-a', attempt: done, outcome: { status: 'delivered', nextAttemptAt: null } });
      const next = await store.webhooks.claimDue({ owner: 'worker-b', now: at(101), leaseMs: 60_000, limit: 50, ...caps });
      expect(next.map((d) => d.id)).toEqual([slow[2]!.id]);
    });

    test('webhooks.claimDue: 6 concurrent claimers never put more than the endpoint’s cap in flight', async () => {
      const m = await newMerchant();
      await storedDeliveries(Array.from({ length: 12 }, (_, i) => delivery({ merchantId: m, endpointId: 'we_capped', nextAttemptAt: at(i) })));
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.webhooks.claimDue({ owner: `worker-${i}`, now: at(100), leaseMs: 60_000, limit: 10, endpointConcurrency: 2, merchantConcurrency: 10 })),
      );
      const ids = claims.flat().map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeLessThanOrEqual(2);
      // What is stored as leased agrees: no lease was left behind by a claim that gave it back.
      const leased = (await all(m)).filter((d) => d.leaseOwner !== null);
      expect(leased.map((d) => d.id).sort()).toEqual([...ids].sort());
      // A later claim fills the cap exactly (claimers that all gave back lose one poll, no more).
      await store.webhooks.claimDue({ owner: 'worker-late', now: at(100), leaseMs: 60_000, limit: 10, endpointConcurrency: 2, merchantConcurrency: 10 });
      expect((await all(m)).filter((d) => d.leaseOwner !== null)).toHaveLength(2);
    });

    test('courier-location webhooks: two nodes (two outboxes, one store) write one per order per interval, held by a store lease', async () => {
      const m = await newMerchant();
      await storedEndpoint({ merchantId: m, events: ['order.courier_location'] });
      const o = order({ merchantId: m });
      const clock = { now: () => new Date() };
      const ids = createUlidSource();
      const node = () => createWebhookOutbox({ store, clock, ids, publicBaseUrl: () => 'https://express.example.cl' });
      const [a, b] = [node(), node()];
      const report = { orders: [o], courier: courier(), location: { lat: -33.42, lng: -70.61 }, at: new Date().toISOString() };
      const written = await Promise.all([a.courierLocation(report), b.courierLocation(report)]);
      expect(written.sort()).toEqual([0, 1]);
      // Neither node writes again within the interval (one by its own map, the other by the lease).
      expect(await a.courierLocation(report)).toBe(0);
      expect(await b.courierLocation(report)).toBe(0);
      // A third node, fresh map, is refused by the store: the slot is not per node.
      expect(await node().courierLocation(report)).toBe(0);
      expect((await all(m)).map((d) => d.eventType)).toEqual(['order.courier_location']);
    });

    test('webhooks.prune deletes deliveries created before the cutoff, whatever their status, with their attempts, oldest first up to the limit', async () => {
      const m = await newMerchant();
      const [old1, old2, old3, recent] = await storedDeliveries([
        delivery({ merchantId: m, createdAt: at(1), nextAttemptAt: at(1) }),
        delivery({ merchantId: m, createdAt: at(2), status: 'failed' }),
        delivery({ merchantId: m, createdAt: at(3), status: 'delivered', deliveredAt: at(3) }),
        delivery({ merchantId: m, createdAt: at(50), nextAttemptAt: at(50) }),
      ]);
      // Attempts on an old and on the recent one.
      for (const [d, n] of [[old1!, 1], [recent!, 4]] as const) {
        const [claimed] = await store.webhooks.claimDue({ owner: `w-${n}`, now: d.nextAttemptAt, leaseMs: 60_000, limit: 1 });
        expect(claimed?.id).toBe(d.id);
        await store.webhooks.completeAttempt({ id: d.id, owner: `w-${n}`, attempt: attempt(d, 1, d.nextAttemptAt, 500, 'HTTP 500'), outcome: { status: 'pending', nextAttemptAt: at(900) } });
      }
      expect(await store.webhooks.prune({ createdBefore: at(50), limit: 2 })).toBe(2);
      expect(await find(old1!)).toBeNull();
      expect(await find(old2!)).toBeNull();
      expect(await store.webhooks.listAttempts(old1!.id)).toEqual([]);
      expect(await store.webhooks.prune({ createdBefore: at(50), limit: 100 })).toBe(1);
      expect(await find(old3!)).toBeNull();
      expect((await all(m)).map((d) => d.id)).toEqual([recent!.id]);
      expect(await store.webhooks.listAttempts(recent!.id)).toHaveLength(1);
      expect(await store.webhooks.prune({ createdBefore: at(50), limit: 100 })).toBe(0);
    });

    test('webhooks.countPending counts one endpoint’s pending deliveries, up to the limit', async () => {
      const m = await newMerchant();
      await storedDeliveries([
        ...Array.from({ length: 4 }, () => delivery({ merchantId: m, endpointId: 'we_full' })),
        delivery({ merchantId: m, endpointId: 'we_full', status: 'failed' }),
        delivery({ merchantId: m, endpointId: 'we_full', status: 'delivered', deliveredAt: at(1) }),
        delivery({ merchantId: m, endpointId: 'we_other' }),
      ]);
      expect(await store.webhooks.countPending({ endpointId: 'we_full', limit: 100 })).toBe(4);
      expect(await store.webhooks.countPending({ endpointId: 'we_full', limit: 3 })).toBe(3);
      expect(await store.webhooks.countPending({ endpointId: 'we_other', limit: 100 })).toBe(1);
      expect(await store.webhooks.countPending({ endpointId: 'we_none', limit: 100 })).toBe(0);
    });

    test('webhooks.completeAttempt only by the lease owner: another owner gets false and nothing is written', async () => {
      const m = await newMerchant();
      const [d] = await storedDeliveries([delivery({ merchantId: m, nextAttemptAt: at(0) })]);
      await store.webhooks.claimDue({ owner: 'worker-a', now: at(10), leaseMs: SHORT_LEASE_MS, limit: 1 });
      // The lease expires and worker-b takes the delivery over: worker-a's late result is refused.
      await sleep(SHORT_LEASE_MS * 3);
      const [current] = await store.webhooks.claimDue({ owner: 'worker-b', now: at(30), leaseMs: 60_000, limit: 1 });
      const late = attempt(d!, 1, at(31), 200);
      expect(await store.webhooks.completeAttempt({ id: d!.id, owner: 'worker-a', attempt: late, outcome: { status: 'delivered', nextAttemptAt: null } })).toBe(false);
      expect(await find(d!)).toStrictEqual(current);
      expect(await store.webhooks.listAttempts(d!.id)).toEqual([]);
      // Never claimed at all, or unknown: refused too.
      const [unclaimed] = await storedDeliveries([delivery({ merchantId: m, nextAttemptAt: at(500) })]);
      const orphan = attempt(unclaimed!, 1, at(32), 200);
      expect(await store.webhooks.completeAttempt({ id: unclaimed!.id, owner: 'worker-a', attempt: orphan, outcome: { status: 'delivered', nextAttemptAt: null } })).toBe(false);
      expect(await store.webhooks.completeAttempt({ id: 'msg_unknown', owner: 'worker-a', attempt: orphan, outcome: { status: 'delivered', nextAttemptAt: null } })).toBe(false);
      expect(await find(unclaimed!)).toStrictEqual(unclaimed);
      expect(await store.webhooks.listAttempts(unclaimed!.id)).toEqual([]);
    });

    test('webhooks.completeAttempt records pending, then delivered; a second completion of the same lease is refused', async () => {
      const m = await newMerchant();
      const [d] = await storedDeliveries([delivery({ merchantId: m, nextAttemptAt: at(0) })]);
      await store.webhooks.claimDue({ owner: 'worker-a', now: at(10), leaseMs: 60_000, limit: 1 });
      const first = attempt(d!, 1, at(11), 503, 'HTTP 503');
      expect(await store.webhooks.completeAttempt({ id: d!.id, owner: 'worker-a', attempt: first, outcome: { status: 'pending', nextAttemptAt: at(71) } })).toBe(true);
      const retrying: WebhookDelivery = {
        ...d!, status: 'pending', attempts: 1, nextAttemptAt: at(71), leaseOwner: null, leaseUntil: null,
        lastStatusCode: 503, lastError: 'HTTP 503', lastLatencyMs: first.latencyMs,
      };
      expect(await find(d!)).toStrictEqual(retrying);
      // Not due again before its retry time; then claimed and delivered.
      expect(await store.webhooks.claimDue({ owner: 'worker-a', now: at(70), leaseMs: 60_000, limit: 1 })).toEqual([]);
      expect(await store.webhooks.claimDue({ owner: 'worker-b', now: at(71), leaseMs: 60_000, limit: 1 })).toHaveLength(1);
      const second = attempt(d!, 2, at(72), 204);
      expect(await store.webhooks.completeAttempt({ id: d!.id, owner: 'worker-b', attempt: second, outcome: { status: 'delivered', nextAttemptAt: null } })).toBe(true);
      const delivered: WebhookDelivery = {
        ...retrying, status: 'delivered', attempts: 2, lastStatusCode: 204, lastError: null, lastLatencyMs: second.latencyMs, deliveredAt: at(72),
      };
      expect(await find(d!)).toStrictEqual(delivered);
      const again = attempt(d!, 3, at(73), 204);
      expect(await store.webhooks.completeAttempt({ id: d!.id, owner: 'worker-b', attempt: again, outcome: { status: 'delivered', nextAttemptAt: null } })).toBe(false);
      expect(await find(d!)).toStrictEqual(delivered);
      expect(await store.webhooks.listAttempts(d!.id)).toStrictEqual([first, second]);
      expect(await store.webhooks.claimDue({ owner: 'worker-c', now: at(1000), leaseMs: 60_000, limit: 5 })).toEqual([]);
    });

    test('webhooks.completeAttempt records a final failure: failed, error kept, never claimed again', async () => {
      const m = await newMerchant();
      const [d] = await storedDeliveries([delivery({ merchantId: m, nextAttemptAt: at(0), attempts: 8 })]);
      await store.webhooks.claimDue({ owner: 'worker-a', now: at(10), leaseMs: 60_000, limit: 1 });
      const last = attempt(d!, 9, at(12), null, 'timeout after 5000 ms');
      expect(await store.webhooks.completeAttempt({ id: d!.id, owner: 'worker-a', attempt: last, outcome: { status: 'failed', nextAttemptAt: null } })).toBe(true);
      expect(await find(d!)).toStrictEqual({
        ...d!, status: 'failed', attempts: 9, leaseOwner: null, leaseUntil: null, lastStatusCode: null, lastError: 'timeout after 5000 ms', lastLatencyMs: last.latencyMs,
      });
      expect(await store.webhooks.claimDue({ owner: 'worker-b', now: at(1000), leaseMs: 60_000, limit: 5 })).toEqual([]);
    });

    test('webhooks.listAttempts lists one delivery’s attempts in attempt order', async () => {
      const m = await newMerchant();
      const [d, other] = await storedDeliveries([delivery({ merchantId: m, nextAttemptAt: at(0) }), delivery({ merchantId: m, nextAttemptAt: at(0) })]);
      const recorded: WebhookAttempt[] = [];
      for (let n = 1; n <= 4; n++) {
        const now = at(n * 100);
        const claimed = await store.webhooks.claimDue({ owner: `worker-${n}`, now, leaseMs: 60_000, limit: 5 });
        expect(claimed.map((c) => c.id).sort()).toEqual([d!.id, other!.id].sort());
        for (const c of claimed) {
          const a = attempt(c, n, now, 500, 'HTTP 500');
          if (c.id === d!.id) recorded.push(a);
          await store.webhooks.completeAttempt({ id: c.id, owner: `worker-${n}`, attempt: a, outcome: { status: 'pending', nextAttemptAt: now } });
        }
      }
      expect(await store.webhooks.listAttempts(d!.id)).toStrictEqual(recorded);
      expect(await store.webhooks.listAttempts(other!.id)).toHaveLength(4);
      expect(await store.webhooks.listAttempts('msg_unknown')).toEqual([]);
    });

    // ---- delivery log and redelivery ----

    test('webhooks.listDeliveries pages newest first with limit and after, within one merchant and mode', async () => {
      const m = await newMerchant();
      const list = await storedDeliveries(Array.from({ length: 5 }, (_, i) => delivery({ merchantId: m, createdAt: at(i) })));
      await storedDeliveries([delivery({ merchantId: m, mode: 'test' }), delivery({ merchantId: nextId('m') })]);
      const newestFirst = [...list].reverse();
      expect(await all(m)).toStrictEqual(newestFirst);
      const page1 = await store.webhooks.listDeliveries({ merchantId: m, mode: 'live', limit: 2 });
      expect(page1).toStrictEqual(newestFirst.slice(0, 2));
      const page2 = await store.webhooks.listDeliveries({ merchantId: m, mode: 'live', limit: 2, after: page1.at(-1)!.id });
      expect(page2).toStrictEqual(newestFirst.slice(2, 4));
      const page3 = await store.webhooks.listDeliveries({ merchantId: m, mode: 'live', limit: 2, after: page2.at(-1)!.id });
      expect(page3).toStrictEqual(newestFirst.slice(4));
      expect(await all(m, 'test')).toHaveLength(1);
    });

    test('webhooks.listDeliveries filters by endpoint, status and created time (from inclusive, to exclusive)', async () => {
      const m = await newMerchant();
      const [a, b, c, d] = await storedDeliveries([
        delivery({ merchantId: m, endpointId: 'we_a', createdAt: at(10) }),
        delivery({ merchantId: m, endpointId: 'we_b', createdAt: at(20), status: 'failed' }),
        delivery({ merchantId: m, endpointId: 'we_a', createdAt: at(30), status: 'delivered', deliveredAt: at(31) }),
        delivery({ merchantId: m, endpointId: 'we_a', createdAt: at(40), status: 'failed' }),
      ]);
      const list = (filter: Partial<Parameters<Store['webhooks']['listDeliveries']>[0]>) =>
        store.webhooks.listDeliveries({ merchantId: m, mode: 'live', limit: 100, ...filter });
      expect(await list({ endpointId: 'we_a' })).toStrictEqual([d, c, a]);
      expect(await list({ status: 'failed' })).toStrictEqual([d, b]);
      expect(await list({ endpointId: 'we_a', status: 'failed' })).toStrictEqual([d]);
      expect(await list({ createdFrom: at(20), createdTo: at(40) })).toStrictEqual([c, b]);
      expect(await list({ createdFrom: at(20), status: 'pending' })).toEqual([]);
      expect(await list({ endpointId: 'we_a', after: d!.id, limit: 1 })).toStrictEqual([c]);
    });

    test('webhooks.requeue by ids makes them pending and due now with attempts restarted, only within the merchant and mode', async () => {
      const m = await newMerchant();
      const [failed, delivered, untouched] = await storedDeliveries([
        delivery({ merchantId: m, status: 'failed', attempts: 9, nextAttemptAt: at(5), lastStatusCode: 500, lastError: 'HTTP 500', lastLatencyMs: 40 }),
        delivery({ merchantId: m, status: 'delivered', attempts: 1, nextAttemptAt: at(5), lastStatusCode: 200, lastLatencyMs: 12, deliveredAt: at(6) }),
        delivery({ merchantId: m, status: 'failed', attempts: 9 }),
      ]);
      const requeued = (d: WebhookDelivery) => ({ ...d, status: 'pending', attempts: 0, nextAttemptAt: at(500), leaseOwner: null, leaseUntil: null });
      expect(await store.webhooks.requeue({ merchantId: nextId('m'), mode: 'live', ids: [failed!.id], now: at(500) })).toBe(0);
      expect(await store.webhooks.requeue({ merchantId: m, mode: 'test', ids: [failed!.id], now: at(500) })).toBe(0);
      expect(await store.webhooks.requeue({ merchantId: m, mode: 'live', ids: [], now: at(500) })).toBe(0);
      expect(await find(failed!)).toStrictEqual(failed);

      expect(await store.webhooks.requeue({ merchantId: m, mode: 'live', ids: [failed!.id, delivered!.id, 'msg_unknown'], now: at(500) })).toBe(2);
      expect(await find(failed!)).toStrictEqual(requeued(failed!));
      expect(await find(delivered!)).toStrictEqual(requeued(delivered!));
      expect(await find(untouched!)).toStrictEqual(untouched);
      const due = await store.webhooks.claimDue({ owner: 'worker-a', now: at(500), leaseMs: 60_000, limit: 10 });
      expect(sortById(due).map((d) => d.id)).toEqual(sortById([failed!, delivered!]).map((d) => d.id));
    });

    test('webhooks.requeue of failed deliveries in a created range touches only those', async () => {
      const m = await newMerchant();
      const [before, inRange, pendingInRange, deliveredInRange, atEnd, otherMode] = await storedDeliveries([
        delivery({ merchantId: m, status: 'failed', createdAt: at(9), attempts: 9 }),
        delivery({ merchantId: m, status: 'failed', createdAt: at(10), attempts: 9, lastError: 'HTTP 500' }),
        delivery({ merchantId: m, status: 'pending', createdAt: at(15), attempts: 3, nextAttemptAt: at(900) }),
        delivery({ merchantId: m, status: 'delivered', createdAt: at(16), attempts: 1, deliveredAt: at(16) }),
        delivery({ merchantId: m, status: 'failed', createdAt: at(20), attempts: 9 }),
        delivery({ merchantId: m, mode: 'test', status: 'failed', createdAt: at(12), attempts: 9 }),
      ]);
      const count = await store.webhooks.requeue({ merchantId: m, mode: 'live', status: 'failed', createdFrom: at(10), createdTo: at(20), now: at(600) });
      expect(count).toBe(1);
      expect(await find(inRange!)).toStrictEqual({ ...inRange!, status: 'pending', attempts: 0, nextAttemptAt: at(600), leaseOwner: null, leaseUntil: null });
      for (const d of [before!, pendingInRange!, deliveredInRange!, atEnd!, otherMode!]) expect(await find(d)).toStrictEqual(d);
    });

    // ---- transactional outbox ----

    test('orders.create with an outbox writes its deliveries with the order', async () => {
      const m = await newMerchant();
      const o = order({ merchantId: m });
      const outbox = [delivery({ merchantId: m, orderId: o.id, sequence: 1 }), delivery({ merchantId: m, orderId: o.id, sequence: 1, endpointId: 'we_other' })];
      expect(await store.orders.create({ ...creation(o), outbox })).toStrictEqual({ created: true });
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      expect(sortById(await all(m))).toStrictEqual(sortById(outbox));
    });

    test('orders.create refused by its idempotency key writes no delivery', async () => {
      const m = await newMerchant();
      const first = order({ merchantId: m });
      const key = idempotency(m, 'live', `order-${first.id}`, first.id, at(0));
      const firstOutbox = [delivery({ merchantId: m, orderId: first.id, sequence: 1 })];
      expect(await store.orders.create({ ...creation(first), idempotency: key, outbox: firstOutbox })).toStrictEqual({ created: true });
      const retry = order({ merchantId: m });
      const result = await store.orders.create({
        ...creation(retry),
        idempotency: { ...key, orderId: retry.id, requestHash: randomBytes(32).toString('hex') },
        outbox: [delivery({ merchantId: m, orderId: retry.id, sequence: 1 })],
      });
      expect(result).toStrictEqual({ created: false, existing: key });
      expect(await all(m)).toStrictEqual(firstOutbox);
    });

    test('orders.create is all or nothing with its outbox: a clashing delivery id keeps no order', async () => {
      const m = await newMerchant();
      const [taken] = await storedDeliveries([delivery({ merchantId: m })]);
      const o = order({ merchantId: m });
      const outbox = [delivery({ merchantId: m, orderId: o.id, sequence: 1 }), { ...delivery({ merchantId: m, orderId: o.id, sequence: 1 }), id: taken!.id }];
      await expect(store.orders.create({ ...creation(o), outbox })).rejects.toThrow();
      expect(await store.orders.findById(o.id)).toBeNull();
      expect(await store.orders.listEvents(o.id)).toEqual([]);
      expect(await all(m)).toStrictEqual([taken]);
    });

    test('orders.apply with an outbox writes the deliveries built from the updated order and its event (real from, next sequence)', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m }));
      const assigned = await store.orders.apply({ id: o.id, from: ['new'], to: 'assigned', patch: { courierId: 'c_1' }, event: transition(o, 'new', 'assigned', at(60)) });
      expect(assigned?.sequence).toBe(2);

      const calls: { order: Order; event: OrderEvent }[] = [];
      let built: WebhookDelivery[] = [];
      // The caller lists both statuses it accepts; the event must say where the order really was.
      const next = await store.orders.apply({
        id: o.id,
        from: ['new', 'assigned'],
        to: 'cancelled',
        patch: { cancellation: { reason: 'Cliente desiste', at: at(120) } },
        event: transition(o, 'new', 'cancelled', at(120)),
        outbox: (updated, event) => {
          calls.push({ order: updated, event });
          built = [delivery({ merchantId: m, orderId: updated.id, sequence: event.sequence, body: JSON.stringify({ from: event.from, to: event.to }), createdAt: event.at, nextAttemptAt: event.at })];
          return built;
        },
      });
      const expectedOrder: Order = {
        ...o, status: 'cancelled', courierId: 'c_1', cancellation: { reason: 'Cliente desiste', at: at(120) }, sequence: 3, updatedAt: at(120),
      };
      expect(next).toStrictEqual(expectedOrder);
      const events = await store.orders.listEvents(o.id);
      expect(events.at(-1)).toMatchObject({ from: 'assigned', to: 'cancelled', sequence: 3 });
      expect(calls.at(-1)).toStrictEqual({ order: expectedOrder, event: events.at(-1) });
      expect(await all(m)).toStrictEqual(built);
      expect(built[0]).toMatchObject({ sequence: 3, body: JSON.stringify({ from: 'assigned', to: 'cancelled' }) });
    });

    test('orders.apply that fails its compare-and-set writes no delivery', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m }));
      const result = await store.orders.apply({
        id: o.id,
        from: ['assigned', 'picked_up'],
        to: 'completed',
        event: transition(o, 'picked_up', 'completed', at(60)),
        outbox: (updated, event) => [delivery({ merchantId: m, orderId: updated.id, sequence: event.sequence })],
      });
      expect(result).toBeNull();
      const unknown = await store.orders.apply({
        id: 'bk_01J0000000000000000000000',
        from: ['new'],
        to: 'assigned',
        event: transition(o, 'new', 'assigned', at(60)),
        outbox: (updated, event) => [delivery({ merchantId: m, orderId: updated.id, sequence: event.sequence })],
      });
      expect(unknown).toBeNull();
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      expect(await store.orders.listEvents(o.id)).toHaveLength(1);
      expect(await all(m)).toEqual([]);
    });

    test('batches.insert with an outbox writes the batch and its deliveries, all or nothing', async () => {
      const m = await newMerchant();
      const b = batch({ merchantId: m });
      const outbox = [delivery({ merchantId: m, eventType: 'batch.created', orderId: null, sequence: null })];
      await store.batches.insert(b, outbox);
      expect(await store.batches.findById(b.id)).toStrictEqual(b);
      expect(await all(m)).toStrictEqual(outbox);

      const clash = batch({ merchantId: m });
      await expect(store.batches.insert(clash, [delivery({ merchantId: m, eventType: 'batch.created', orderId: null, sequence: null }), { ...outbox[0]!, body: '{}' }])).rejects.toThrow();
      expect(await store.batches.findById(clash.id)).toBeNull();
      expect(await all(m)).toStrictEqual(outbox);

      const plain = batch({ merchantId: m });
      await store.batches.insert(plain, []);
      expect(await store.batches.findById(plain.id)).toStrictEqual(plain);
      expect(await all(m)).toStrictEqual(outbox);
    });

    // Last in the suite body, once every case is registered.
    checkSkips();
  });

  /** Creates the order with its first event and charge (no idempotency key, no outbox). */
  async function created(o: Order): Promise<Order> {
    expect(await store.orders.create(creation(o))).toStrictEqual({ created: true });
    return o;
  }
}

// ---- webhook fixtures (the shared ones are in fixtures.ts): unique, time-ordered ids ----

function endpoint(overrides: Partial<WebhookEndpoint> & { merchantId: string }): WebhookEndpoint {
  const createdAt = overrides.createdAt ?? at(0);
  return {
    id: `we_${ulid(Date.parse(createdAt))}`,
    mode: 'live',
    url: 'https://hooks.farmaciacentral.cl/express',
    description: 'Producción',
    events: ['order.status_changed', 'batch.created'],
    payloadShape: 'event',
    signing: 'symmetric',
    enabled: true,
    disabledReason: null,
    failingSince: null,
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

/** A pending delivery, due at its creation; ids follow creation time like the domain's. */
function delivery(overrides: Partial<WebhookDelivery> & { merchantId: string }): WebhookDelivery {
  const createdAt = overrides.createdAt ?? at(0);
  return {
    id: `msg_${ulid(Date.parse(createdAt))}`,
    endpointId: 'we_main',
    mode: 'live',
    eventType: 'order.status_changed',
    orderId: 'bk_01J0000000000000000000001',
    sequence: 2,
    body: JSON.stringify({ type: 'order.status_changed', data: { status: 'assigned' } }),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: createdAt,
    leaseOwner: null,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    lastLatencyMs: null,
    createdAt,
    deliveredAt: null,
    ...overrides,
  };
}

function attempt(d: WebhookDelivery, n: number, when: string, statusCode: number | null, error: string | null = null): WebhookAttempt {
  return { id: `att_${ulid(Date.parse(when))}`, deliveryId: d.id, attempt: n, at: when, statusCode, latencyMs: 40 + n, error };
}
