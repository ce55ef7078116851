import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { Order, OrderStop, StoredQuote } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, creation, DAY, nextId, order, storeMerchant } from './fixtures.js';

/** A quote as the quote service keeps it, expiring 15 minutes after `createdAt`. */
function quote(overrides: Partial<StoredQuote> & { merchantId: string }): StoredQuote {
  const createdAt = overrides.createdAt ?? at(0);
  return {
    id: nextId('qt'),
    mode: 'test',
    origin: { lat: -33.4214, lng: -70.6033 },
    destination: { lat: -33.4154, lng: -70.5837 },
    weightKg: 1.5,
    vehicleType: 'bike',
    prepTimeMins: 10,
    rates: [{ id: 'express', cost: 3990 }, { id: 'batched', cost: 2990 }],
    pickupAfter: null,
    deliverBefore: null,
    createdAt,
    expiresAt: new Date(Date.parse(createdAt) + 15 * 60_000).toISOString(),
    ...overrides,
  };
}

const PIN = { pin: '0427', failedAttempts: 0, issuedAt: at(0) };

/**
 * Bound quotes, scheduled orders and delivery PINs (issue #17): what every Store adapter must keep.
 * makeStore returns a fresh, empty store per case.
 */
export function describeOrderFeaturesContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('order features contract', options);
  let store: Store;

  const created = async (o: Order): Promise<Order> => {
    expect(await store.orders.create(creation(o))).toStrictEqual({ created: true });
    return o;
  };

  describe(`Order features contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('quotes.find returns the stored quote exactly, only within its merchant and mode', async () => {
      const q = quote({ merchantId: 'mer_a', pickupAfter: at(3600), deliverBefore: at(7200) });
      await store.quotes.insert(q);
      expect(await store.quotes.find({ id: q.id, merchantId: 'mer_a', mode: 'test' })).toStrictEqual(q);
      expect(await store.quotes.find({ id: q.id, merchantId: 'mer_b', mode: 'test' })).toBeNull();
      expect(await store.quotes.find({ id: q.id, merchantId: 'mer_a', mode: 'live' })).toBeNull();
      expect(await store.quotes.find({ id: 'qt_missing', merchantId: 'mer_a', mode: 'test' })).toBeNull();
      // A multi-stop quote keeps its route's stops before the destination, in order.
      const stops = quote({ merchantId: 'mer_a', via: [{ lat: -33.4607, lng: -70.5927 }, { lat: -33.4417, lng: -70.6541 }] });
      await store.quotes.insert(stops);
      expect(await store.quotes.find({ id: stops.id, merchantId: 'mer_a', mode: 'test' })).toStrictEqual(stops);
    });

    test('quotes inserted together are each stored once their insert resolves (SQLite commits them as one group)', async () => {
      const qs = Array.from({ length: 5 }, (_, i) => quote({ merchantId: 'mer_a', createdAt: at(i) }));
      await Promise.all(qs.map((q) => store.quotes.insert(q)));
      for (const q of qs) expect(await store.quotes.find({ id: q.id, merchantId: 'mer_a', mode: 'test' })).toStrictEqual(q);
      await expect(store.quotes.insert(qs[0]!)).rejects.toThrow();
      expect(await store.quotes.find({ id: qs[1]!.id, merchantId: 'mer_a', mode: 'test' })).toStrictEqual(qs[1]);
    });

    test('quotes.prune deletes quotes expired before the cutoff, at most limit per call, and keeps the rest', async () => {
      const old = [quote({ merchantId: 'm', createdAt: at(0) }), quote({ merchantId: 'm', createdAt: at(10) }), quote({ merchantId: 'm', mode: 'live', createdAt: at(20) })];
      const fresh = quote({ merchantId: 'm', createdAt: at(DAY) });
      for (const q of [...old, fresh]) await store.quotes.insert(q);
      const cutoff = at(DAY / 2);
      expect(await store.quotes.prune({ expiredBefore: cutoff, limit: 2 })).toBe(2);
      expect(await store.quotes.prune({ expiredBefore: cutoff, limit: 2 })).toBe(1);
      expect(await store.quotes.prune({ expiredBefore: cutoff, limit: 2 })).toBe(0);
      for (const q of old) expect(await store.quotes.find({ id: q.id, merchantId: 'm', mode: q.mode })).toBeNull();
      expect(await store.quotes.find({ id: fresh.id, merchantId: 'm', mode: 'test' })).toStrictEqual(fresh);
    });

    test('orders keep the quote, the schedule and the delivery PIN exactly', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({
        merchantId: m, quote: { id: 'qt_1', rateId: 'batched' }, scheduledPickupAt: at(7200), deliverBefore: at(10_800), dispatchAfter: at(6600), deliveryPin: PIN,
      }));
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      expect(await store.orders.findByAnyId({ merchantId: m, mode: o.mode, ref: o.trackingNumber })).toStrictEqual(o);
    });

    test('orders keep the ID-check flag, and a completed proof keeps its ID check, exactly', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, status: 'arrived_dropoff', idCheck: { minAge: 21 } }));
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      const proof = {
        driverId: 'cr_1', coords: { lat: -33.4154, lng: -70.5837 }, distanceM: 3, radiusM: 20, bypass: false, geofence: 'passed' as const,
        photoUrl: 'https://cdn.example.com/p.jpg', signatureUrl: 'https://cdn.example.com/s.png', deliveredAt: at(60),
        idCheck: { verified: true as const, minAge: 21, documentLast4: '6785', checkedAt: at(60), courierId: 'cr_1' },
      };
      const done = await store.orders.apply({ id: o.id, from: ['arrived_dropoff'], patch: { proof } });
      expect(done).toStrictEqual({ ...o, proof });
      expect(await store.orders.findById(o.id)).toStrictEqual({ ...o, proof });
    });

    test('orders keep the failed-attempt policy, the attempts and the return leg exactly; the new statuses list and filter', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, status: 'arrived_dropoff', failedAttemptPolicy: 'retry' }));
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      const failedAttempts = [{
        reason: 'recipient_absent' as const, note: 'Nadie en casa', photoProofId: 'prf_1', coords: { lat: -33.4154, lng: -70.5837 }, courierId: 'cr_1', at: at(60), outcome: 'returning' as const,
      }];
      const returnLeg = { fee: 1990, startedAt: at(61), proof: null };
      const moved = await store.orders.apply({ id: o.id, from: ['arrived_dropoff'], patch: { failedAttempts, returnLeg } });
      expect(moved).toStrictEqual({ ...o, failedAttempts, returnLeg });
      expect(await store.orders.findById(o.id)).toStrictEqual({ ...o, failedAttempts, returnLeg });
      const returning = await created(order({ merchantId: m, status: 'returning', createdAt: at(1) }));
      const disposed = await created(order({ merchantId: m, status: 'disposed', createdAt: at(2) }));
      const listed = async (statuses: Order['status'][]) => (await store.orders.list({ merchantId: m, mode: o.mode, limit: 10, statuses })).map((x) => x.id);
      expect(await listed(['returning'])).toEqual([returning.id]);
      expect((await listed(['returning', 'disposed', 'returned'])).sort()).toEqual([returning.id, disposed.id].sort());
    });

    test('orders.listQueued with dueBy leaves out scheduled orders not yet due; without it, lists them all', async () => {
      const m = await storeMerchant(store);
      const now = await created(order({ merchantId: m, createdAt: at(0) }));
      const dueEarlier = await created(order({ merchantId: m, createdAt: at(1), scheduledPickupAt: at(700), dispatchAfter: at(100) }));
      const later = await created(order({ merchantId: m, createdAt: at(2), scheduledPickupAt: at(3600), dispatchAfter: at(3000) }));
      const ids = async (dueBy?: string) =>
        (await store.orders.listQueued({ mode: 'live', vehicleTypes: ['motorcycle'], limit: 10, ...(dueBy && { dueBy }) })).map((o) => o.id);
      expect(await ids(at(50))).toEqual([now.id]);
      expect(await ids(at(100))).toEqual([now.id, dueEarlier.id]);
      expect(await ids(at(3000))).toEqual([now.id, dueEarlier.id, later.id]);
      expect(await ids()).toEqual([now.id, dueEarlier.id, later.id]);
      // The limit applies to the due ones: a not-yet-due order ahead in the queue takes no slot.
      const page = await store.orders.listQueued({ mode: 'live', vehicleTypes: ['motorcycle'], limit: 1, dueBy: at(50) });
      expect(page.map((o) => o.id)).toEqual([now.id]);
    });

    test('orders.tryDeliveryPin: right is ok, wrong counts, at the limit locked (even the right PIN) and nothing more is counted', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, status: 'arrived_dropoff', deliveryPin: PIN }));
      const tryPin = (pin: string) => store.orders.tryDeliveryPin({ id: o.id, pin, maxAttempts: 3 });
      expect(await tryPin('0427')).toEqual({ outcome: 'ok', failedAttempts: 0 });
      expect(await tryPin('1111')).toEqual({ outcome: 'invalid', failedAttempts: 1 });
      expect(await tryPin('0427')).toEqual({ outcome: 'ok', failedAttempts: 1 });
      expect(await tryPin('2222')).toEqual({ outcome: 'invalid', failedAttempts: 2 });
      expect(await tryPin('3333')).toEqual({ outcome: 'invalid', failedAttempts: 3 });
      expect(await tryPin('4444')).toEqual({ outcome: 'locked', failedAttempts: 3 });
      expect(await tryPin('0427')).toEqual({ outcome: 'locked', failedAttempts: 3 });
      expect((await store.orders.findById(o.id))!.deliveryPin).toEqual({ ...PIN, failedAttempts: 3 });
      // Unknown order, or an order without a PIN: null.
      expect(await store.orders.tryDeliveryPin({ id: 'bk_missing', pin: '0000', maxAttempts: 3 })).toBeNull();
      const plain = await created(order({ merchantId: m, createdAt: at(5) }));
      expect(await store.orders.tryDeliveryPin({ id: plain.id, pin: '0000', maxAttempts: 3 })).toBeNull();
    });

    test('multi-stop orders keep their stops and stop PINs exactly; a stop patch replaces the stops; each stop counts its own PIN tries in place', async () => {
      const m = await storeMerchant(store);
      const base = order({ merchantId: m, status: 'picked_up' });
      const stopOf = (index: number): OrderStop => ({
        id: nextId('stp'), index, givenIndex: 1 - index, location: Object.assign({}, base.dropoff, { address: `Calle ${index}` }),
        contact: { name: `Contacto ${index}`, phone: '+56911112222' }, reference: index === 0 ? 'R-1' : null, items: [{ name: 'Caja', quantity: 1 }],
        status: 'pending', eta: at(600 + index), proof: null, failure: null, arrivedAt: null,
      });
      const stopList = [stopOf(0), stopOf(1)];
      const stopPins = { [stopList[0]!.id]: PIN, [stopList[1]!.id]: { ...PIN, pin: '9999' } };
      const o = await created(Object.assign(base, { stops: stopList, route: 'optimized' as const, stopPins }));
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      const [first, second] = o.stops!;
      const stops = [Object.assign({}, first!, { status: 'failed' as const, failure: { reason: 'refused' as const, note: null, photoProofId: null, at: at(700), courierId: 'cr_1' } }), second!];
      const moved = await store.orders.apply({ id: o.id, from: ['picked_up'], to: 'arrived_dropoff', patch: { stops } });
      expect(moved).toStrictEqual({ ...o, status: 'arrived_dropoff', stops });
      expect(await store.orders.findById(o.id)).toStrictEqual({ ...o, status: 'arrived_dropoff', stops });
      const tryPin = (stopId: string, pin: string) => store.orders.tryDeliveryPin({ id: o.id, pin, maxAttempts: 2, stopId });
      expect(await tryPin(second!.id, '0427')).toEqual({ outcome: 'invalid', failedAttempts: 1 });
      expect(await tryPin(second!.id, '9999')).toEqual({ outcome: 'ok', failedAttempts: 1 });
      expect(await tryPin(second!.id, '0000')).toEqual({ outcome: 'invalid', failedAttempts: 2 });
      expect(await tryPin(second!.id, '9999')).toEqual({ outcome: 'locked', failedAttempts: 2 });
      const stored = (await store.orders.findById(o.id))!;
      expect(stored.stopPins).toEqual({ [first!.id]: PIN, [second!.id]: { ...PIN, pin: '9999', failedAttempts: 2 } });
      expect(stored.stops).toStrictEqual(stops);
      expect(await tryPin('stp_missing', '0427')).toBeNull();
    });

    test('orders.tryDeliveryPin: of 20 concurrent wrong tries exactly 5 are counted, the rest are locked', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, status: 'arrived_dropoff', deliveryPin: PIN }));
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.orders.tryDeliveryPin({ id: o.id, pin: String(1000 + i), maxAttempts: 5 })));
      expect(results.filter((r) => r?.outcome === 'invalid')).toHaveLength(5);
      expect(results.filter((r) => r?.outcome === 'locked')).toHaveLength(15);
      expect((await store.orders.findById(o.id))!.deliveryPin!.failedAttempts).toBe(5);
    });

    test('orders.apply with a deliveryPin patch replaces the PIN and its count, keeping the rest of the order', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, status: 'arrived_dropoff', deliveryPin: { ...PIN, failedAttempts: 5 } }));
      const fresh = { pin: '9051', failedAttempts: 0, issuedAt: at(60) };
      const updated = await store.orders.apply({ id: o.id, from: ['arrived_dropoff'], patch: { deliveryPin: fresh } });
      expect(updated).toStrictEqual({ ...o, deliveryPin: fresh });
      expect(await store.orders.findById(o.id)).toStrictEqual({ ...o, deliveryPin: fresh });
      expect(await store.orders.tryDeliveryPin({ id: o.id, pin: '9051', maxAttempts: 5 })).toEqual({ outcome: 'ok', failedAttempts: 0 });
      expect(await store.orders.tryDeliveryPin({ id: o.id, pin: '0427', maxAttempts: 5 })).toEqual({ outcome: 'invalid', failedAttempts: 1 });
    });

    checkSkips();
  });
}
