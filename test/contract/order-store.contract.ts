import { afterEach, beforeEach, describe, expect } from 'vitest';
import { ORDER_STATUSES, type Mode, type Order, type OrderStatus, type WebhookDelivery } from '../../src/domain/types.js';
import { DuplicateOrderIdentifierError, type AcrossMerchantsPage, type Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, batch, courier, creation, DAY, hashHex, idempotency, ledgerEntry, nextId, order, storeMerchant, transition, ulid } from './fixtures.js';

/**
 * The order-side behaviour every Store adapter must show (orders, events, idempotency keys,
 * batches, ledger, courier jobs); makeStore returns a fresh, empty store per case.
 */
export function describeOrderStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('order store contract', options);
  let store: Store;

  /** A merchant row (orders and batches reference it) and its id. */
  const newMerchant = () => storeMerchant(store);

  /** Creates the order (first event, charge when live, no idempotency key) and returns it. */
  const created = async (o: Order): Promise<Order> => {
    expect(await store.orders.create(creation(o))).toStrictEqual({ created: true });
    return o;
  };

  const ordersOf = async (merchantId: string, mode: Mode) => store.orders.list({ merchantId, mode, limit: 1000 });
  /** The operators' list with the domain's bound of orders read unless given: the orders only. */
  const across = async (options: Omit<AcrossMerchantsPage, 'examineAtMost'> & { examineAtMost?: number }) =>
    (await store.orders.listAcrossMerchants({ examineAtMost: 5000, ...options })).orders;

  describe(`Order store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    // ---- create and read ----

    test('orders.pruneEvents deletes the events of ended orders (completed, cancelled, returned, disposed) created before the cutoff, in both modes; the orders stay', async () => {
      const m = await newMerchant();
      const oldDone = await created(order({ merchantId: m, status: 'completed', createdAt: at(0) }));
      const oldCancelled = await created(order({ merchantId: m, mode: 'test', status: 'cancelled', createdAt: at(5) }));
      const oldActive = await created(order({ merchantId: m, status: 'assigned', createdAt: at(5) }));
      const oldReturned = await created(order({ merchantId: m, status: 'returned', createdAt: at(6) }));
      const oldDisposed = await created(order({ merchantId: m, mode: 'test', status: 'disposed', createdAt: at(7) }));
      const oldReturning = await created(order({ merchantId: m, status: 'returning', createdAt: at(8) }));
      const recentDone = await created(order({ merchantId: m, status: 'completed', createdAt: at(100) }));
      expect(await store.orders.pruneEvents({ createdBefore: at(100), limit: 10 })).toBe(4);
      for (const ended of [oldDone, oldCancelled, oldReturned, oldDisposed]) expect(await store.orders.listEvents(ended.id), ended.status).toEqual([]);
      expect(await store.orders.listEvents(oldActive.id)).toHaveLength(1);
      expect(await store.orders.listEvents(oldReturning.id)).toHaveLength(1);
      expect(await store.orders.listEvents(recentDone.id)).toHaveLength(1);
      expect(await store.orders.findById(oldDone.id)).toStrictEqual(oldDone);
      // Nothing left to prune: a second run finds nothing.
      expect(await store.orders.pruneEvents({ createdBefore: at(100), limit: 10 })).toBe(0);
    });

    test('orders.pruneEvents works in steps of at most `limit` orders, each going on from where the last stopped', async () => {
      const m = await newMerchant();
      const over: Order[] = [];
      for (let i = 0; i < 5; i++) over.push(await created(order({ merchantId: m, mode: i % 2 ? 'test' : 'live', status: i % 2 ? 'cancelled' : 'completed', createdAt: at(i) })));
      const active = await created(order({ merchantId: m, status: 'picked_up', createdAt: at(2) }));
      const withEvents = async () => (await Promise.all(over.map((o) => store.orders.listEvents(o.id)))).filter((events) => events.length > 0).length;
      expect(await store.orders.pruneEvents({ createdBefore: at(100), limit: 2 })).toBe(2);
      expect(await withEvents()).toBe(3);
      expect(await store.orders.pruneEvents({ createdBefore: at(100), limit: 2 })).toBe(2);
      expect(await withEvents()).toBe(1);
      expect(await store.orders.pruneEvents({ createdBefore: at(100), limit: 2 })).toBe(1);
      expect(await store.orders.pruneEvents({ createdBefore: at(100), limit: 2 })).toBe(0);
      expect(await withEvents()).toBe(0);
      expect(await store.orders.listEvents(active.id)).toHaveLength(1);
      for (const o of over) expect(await store.orders.findById(o.id)).toStrictEqual(o);
      // An order that ends later is found by a later run (it was never passed by a cursor).
      await store.orders.apply({ id: active.id, from: ['picked_up'], to: 'completed', event: transition(active, 'picked_up', 'completed', at(50)) });
      expect(await store.orders.pruneEvents({ createdBefore: at(100), limit: 2 })).toBe(1);
      expect(await store.orders.listEvents(active.id)).toEqual([]);
      expect((await store.orders.findById(active.id))?.status).toBe('completed');
    });

    test('orders.create stores the order, its first event and its ledger charge exactly', async () => {
      const m = await newMerchant();
      const o = order({ merchantId: m, mode: 'live' });
      const c = creation(o);
      expect(await store.orders.create(c)).toStrictEqual({ created: true });
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      expect(await store.orders.listEvents(o.id)).toStrictEqual([c.event]);
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).toStrictEqual([c.ledger]);
    });

    test('orders stored before precision and geofence outcomes read back honestly: coordinates as such, geocoded text as locality, old proofs as passed or bypassed', async () => {
      const m = await newMerchant();
      const base = order({ merchantId: m, status: 'completed', courierId: 'c_1' });
      const legacyStop = ({ precision: _dropped, ...rest }: Order['pickup']) => rest;
      const proof = { driverId: 'c_1', coords: { lat: base.dropoff.lat, lng: base.dropoff.lng }, distanceM: 0, radiusM: 20, photoUrl: 'https://cdn.example.cl/p.jpg', signatureUrl: 'https://cdn.example.cl/s.png', deliveredAt: at(100) };
      const legacy = {
        ...base,
        pickup: legacyStop({ ...base.pickup, label: 'coordinates' }),
        dropoff: legacyStop(base.dropoff),
        proof: { ...proof, bypass: true },
      } as unknown as Order;
      await created(legacy);
      const read = await store.orders.findById(legacy.id);
      expect(read?.pickup.precision).toBe('coordinates');
      expect(read?.dropoff.precision).toBe('locality');
      expect(read?.proof?.geofence).toBe('bypassed');
      const listed = (await ordersOf(m, 'live')).find((o) => o.id === legacy.id);
      expect([listed?.pickup.precision, listed?.dropoff.precision, listed?.proof?.geofence]).toEqual(['coordinates', 'locality', 'bypassed']);

      const checked = { ...order({ merchantId: m, status: 'completed', courierId: 'c_1' }), proof: { ...proof, bypass: false } } as unknown as Order;
      await created(checked);
      expect((await store.orders.findById(checked.id))?.proof?.geofence).toBe('passed');
    });

    test('orders keep the precision of each stop and the geofence outcome of the proof as written', async () => {
      const m = await newMerchant();
      const o = order({ merchantId: m, status: 'completed', courierId: 'c_1' });
      const proof = { driverId: 'c_1', coords: { lat: o.dropoff.lat, lng: o.dropoff.lng }, distanceM: 1654.9, radiusM: 20, bypass: false, geofence: 'unverified' as const, photoUrl: 'https://cdn.example.cl/p.jpg', signatureUrl: 'https://cdn.example.cl/s.png', deliveredAt: at(100) };
      const written = await created({ ...o, proof });
      const read = await store.orders.findById(written.id);
      expect(read).toStrictEqual(written);
      expect([read?.pickup.precision, read?.dropoff.precision, read?.proof?.geofence]).toEqual(['street', 'locality', 'unverified']);
    });

    test('orders keep the parcel dimensions as written, and an order without them reads back without them', async () => {
      const m = await newMerchant();
      const sized = await created(order({ merchantId: m, dimensions: { lengthCm: 60, widthCm: 40, heightCm: 40.5 } }));
      const unsized = await created(order({ merchantId: m }));
      expect(await store.orders.findById(sized.id)).toStrictEqual(sized);
      expect(await store.orders.findById(unsized.id)).toStrictEqual(unsized);
    });

    test('orders.create of a sandbox order with no ledger entry charges nothing', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, mode: 'test' }));
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'test' })).toEqual([]);
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).toEqual([]);
    });

    test('orders.create is all or nothing: a duplicate tracking or order number keeps no order, event, charge or key', async () => {
      const m = await newMerchant();
      const first = await created(order({ merchantId: m }));
      const clashes = [order({ merchantId: m, trackingNumber: first.trackingNumber }), order({ merchantId: m, orderNumber: first.orderNumber })];
      for (const [i, clash] of clashes.entries()) {
        const key = idempotency(m, 'live', `retry-${i}`, clash.id, at(10));
        await expect(store.orders.create({ ...creation(clash), idempotency: key })).rejects.toBeInstanceOf(DuplicateOrderIdentifierError);
        expect(await store.orders.findById(clash.id)).toBeNull();
        expect(await store.orders.listEvents(clash.id)).toEqual([]);
        // The key was released with the rest: the corrected request claims it and creates its order.
        const fixed = order({ merchantId: m });
        expect(await store.orders.create({ ...creation(fixed), idempotency: { ...key, orderId: fixed.id } })).toStrictEqual({ created: true });
      }
      const orders = await ordersOf(m, 'live');
      expect(orders).toHaveLength(3);
      expect(orders.some((o) => clashes.some((c) => c.id === o.id))).toBe(false);
      const charged = (await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).map((l) => l.orderId);
      expect(charged.sort()).toEqual(orders.map((o) => o.id).sort());
    });

    test('orders.findById returns null for an unknown id', async () => {
      expect(await store.orders.findById('bk_01J0000000000000000000000')).toBeNull();
    });

    test('orders.findByAnyId resolves booking id, reference id, shop order id, tracking number and order number', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, referenceId: 'PED-20931', ecommerceOrderId: '820982911946154508' }));
      for (const ref of [o.id, 'PED-20931', '820982911946154508', o.trackingNumber, o.orderNumber]) {
        expect(await store.orders.findByAnyId({ merchantId: m, mode: 'live', ref })).toStrictEqual(o);
      }
      expect(await store.orders.findByAnyId({ merchantId: m, mode: 'live', ref: 'PED-00000' })).toBeNull();
    });

    test('orders.findByAnyId never resolves another merchant’s or another mode’s order', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const live = await created(order({ merchantId: m, mode: 'live', referenceId: 'PED-1', ecommerceOrderId: '9001' }));
      const sandbox = await created(order({ merchantId: m, mode: 'test', referenceId: 'PED-2', ecommerceOrderId: '9002' }));
      for (const ref of [live.id, 'PED-1', '9001', live.trackingNumber, live.orderNumber]) {
        expect(await store.orders.findByAnyId({ merchantId: other, mode: 'live', ref })).toBeNull();
        expect(await store.orders.findByAnyId({ merchantId: m, mode: 'test', ref })).toBeNull();
      }
      for (const ref of [sandbox.id, 'PED-2', '9002', sandbox.trackingNumber, sandbox.orderNumber]) {
        expect(await store.orders.findByAnyId({ merchantId: m, mode: 'live', ref })).toBeNull();
        expect(await store.orders.findByAnyId({ merchantId: m, mode: 'test', ref })).toStrictEqual(sandbox);
      }
    });

    test('orders.findByAnyId prefers booking id, then reference / shop id (newest), then tracking number, then order number', async () => {
      const m = await newMerchant();
      const booked = await created(order({ merchantId: m, createdAt: at(1) }));
      const refsBooking = await created(order({ merchantId: m, referenceId: booked.id, createdAt: at(2) }));
      expect(await store.orders.findByAnyId({ merchantId: m, mode: 'live', ref: booked.id })).toStrictEqual(booked);

      const tracked = await created(order({ merchantId: m, createdAt: at(3) }));
      const refsTracking = await created(order({ merchantId: m, ecommerceOrderId: tracked.trackingNumber, createdAt: at(4) }));
      expect(await store.orders.findByAnyId({ merchantId: m, mode: 'live', ref: tracked.trackingNumber })).toStrictEqual(refsTracking);

      const numbered = await created(order({ merchantId: m, createdAt: at(5) }));
      const tracksNumber = await created(order({ merchantId: m, trackingNumber: numbered.orderNumber, createdAt: at(6) }));
      expect(await store.orders.findByAnyId({ merchantId: m, mode: 'live', ref: numbered.orderNumber })).toStrictEqual(tracksNumber);

      // A reference shared by several orders resolves to the newest, even behind newer tracking/number matches.
      const older = await created(order({ merchantId: m, referenceId: 'SHARED', createdAt: at(7) }));
      const newer = await created(order({ merchantId: m, referenceId: 'SHARED', createdAt: at(8) }));
      await created(order({ merchantId: m, trackingNumber: 'SHARED', createdAt: at(9) }));
      await created(order({ merchantId: m, orderNumber: 'SHARED', createdAt: at(10) }));
      expect(await store.orders.findByAnyId({ merchantId: m, mode: 'live', ref: 'SHARED' })).toStrictEqual(newer);
      expect(older.id < newer.id).toBe(true);
      expect(refsBooking.referenceId).toBe(booked.id);
    });

    test('orders.findByTrackingRef finds by tracking number or order number of any merchant, tracking number first', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const a = await created(order({ merchantId: m, mode: 'live', referenceId: 'PED-7' }));
      const b = await created(order({ merchantId: other, mode: 'test' }));
      expect(await store.orders.findByTrackingRef(a.trackingNumber)).toStrictEqual(a);
      expect(await store.orders.findByTrackingRef(a.orderNumber)).toStrictEqual(a);
      expect(await store.orders.findByTrackingRef(b.trackingNumber)).toStrictEqual(b);
      expect(await store.orders.findByTrackingRef(b.orderNumber)).toStrictEqual(b);
      expect(await store.orders.findByTrackingRef(a.id)).toBeNull(); // booking ids are not public references
      expect(await store.orders.findByTrackingRef('PED-7')).toBeNull();
      const tracksNumber = await created(order({ merchantId: other, trackingNumber: a.orderNumber }));
      expect(await store.orders.findByTrackingRef(a.orderNumber)).toStrictEqual(tracksNumber);
    });

    // ---- idempotency keys ----

    test('orders.create with a used idempotency key returns created:false with the existing record and writes nothing', async () => {
      const m = await newMerchant();
      const first = order({ merchantId: m });
      const key = idempotency(m, 'live', 'order-PED-1', first.id, at(100));
      expect(await store.orders.create({ ...creation(first), idempotency: key })).toStrictEqual({ created: true });

      const again = order({ merchantId: m, createdAt: at(200) });
      const result = await store.orders.create({
        ...creation(again),
        idempotency: { ...key, requestHash: hashHex(), orderId: again.id, createdAt: at(200), expiresAt: at(200 + DAY) },
      });
      expect(result).toStrictEqual({ created: false, existing: key });
      expect(await store.orders.findIdempotencyKey({ merchantId: m, mode: 'live', key: 'order-PED-1' })).toStrictEqual(key);
      expect(await store.orders.findById(again.id)).toBeNull();
      expect(await store.orders.listEvents(again.id)).toEqual([]);
      expect((await ordersOf(m, 'live')).map((o) => o.id)).toEqual([first.id]);
      expect((await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).map((l) => l.orderId)).toEqual([first.id]);
    });

    test('orders.findIdempotencyKey returns the record of one merchant, mode and key, expired or not', async () => {
      const m = await newMerchant();
      const o = order({ merchantId: m, createdAt: at(0) });
      const key = idempotency(m, 'live', 'ERP-4411', o.id, at(0));
      await store.orders.create({ ...creation(o), idempotency: key });
      expect(await store.orders.findIdempotencyKey({ merchantId: m, mode: 'live', key: 'ERP-4411' })).toStrictEqual(key);
      expect(await store.orders.findIdempotencyKey({ merchantId: m, mode: 'test', key: 'ERP-4411' })).toBeNull();
      expect(await store.orders.findIdempotencyKey({ merchantId: await newMerchant(), mode: 'live', key: 'ERP-4411' })).toBeNull();
      expect(await store.orders.findIdempotencyKey({ merchantId: m, mode: 'live', key: 'ERP-4412' })).toBeNull();
    });

    test('orders.create: idempotency keys are scoped to one merchant and mode', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const claims: Array<[string, Mode]> = [
        [m, 'live'],
        [m, 'test'],
        [other, 'live'],
      ];
      for (const [merchantId, mode] of claims) {
        const o = order({ merchantId, mode });
        const result = await store.orders.create({ ...creation(o), idempotency: idempotency(merchantId, mode, 'same-key', o.id, at(100)) });
        expect(result).toStrictEqual({ created: true });
      }
      expect(await ordersOf(m, 'live')).toHaveLength(1);
      expect(await ordersOf(m, 'test')).toHaveLength(1);
      expect(await ordersOf(other, 'live')).toHaveLength(1);
    });

    test('orders.create: of 50 concurrent creates with one idempotency key exactly one creates an order', async () => {
      const m = await newMerchant();
      const requestHash = hashHex();
      const attempts = Array.from({ length: 50 }, () => order({ merchantId: m }));
      const results = await Promise.all(
        attempts.map((o) =>
          store.orders.create({ ...creation(o), idempotency: { ...idempotency(m, 'live', 'double-click', o.id, at(100)), requestHash } }),
        ),
      );
      const winners = attempts.filter((_, i) => results[i]!.created);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!;
      for (const r of results) if (!r.created) expect(r.existing).toMatchObject({ orderId: winner.id, key: 'double-click', requestHash });
      expect((await ordersOf(m, 'live')).map((o) => o.id)).toEqual([winner.id]);
      expect(await store.orders.listEvents(winner.id)).toHaveLength(1);
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).toHaveLength(1);
    });

    test('orders.create reclaims an idempotency key that expired by the new request’s time', async () => {
      const m = await newMerchant();
      const first = order({ merchantId: m, createdAt: at(0) });
      const key = idempotency(m, 'live', 'reused-tomorrow', first.id, at(0));
      await store.orders.create({ ...creation(first), idempotency: key });

      // Still valid one second before expiry.
      const early = order({ merchantId: m, createdAt: at(DAY - 1) });
      const earlyKey = idempotency(m, 'live', 'reused-tomorrow', early.id, at(DAY - 1));
      expect(await store.orders.create({ ...creation(early), idempotency: earlyKey })).toStrictEqual({ created: false, existing: key });

      // Expired at exactly expiresAt: the new request claims the key for its own order.
      const later = order({ merchantId: m, createdAt: at(DAY) });
      const laterKey = idempotency(m, 'live', 'reused-tomorrow', later.id, at(DAY));
      expect(await store.orders.create({ ...creation(later), idempotency: laterKey })).toStrictEqual({ created: true });
      expect(await store.orders.findById(later.id)).toStrictEqual(later);
      expect(await store.orders.findIdempotencyKey({ merchantId: m, mode: 'live', key: 'reused-tomorrow' })).toStrictEqual(laterKey);
      const repeat = order({ merchantId: m, createdAt: at(DAY + 5) });
      const repeatKey = idempotency(m, 'live', 'reused-tomorrow', repeat.id, at(DAY + 5));
      expect(await store.orders.create({ ...creation(repeat), idempotency: repeatKey })).toStrictEqual({ created: false, existing: laterKey });
      expect((await ordersOf(m, 'live')).map((o) => o.id).sort()).toEqual([first.id, later.id].sort());
    });

    // ---- transitions ----

    test('orders.apply moves the status, applies the patch and writes the event with the next sequence and the ledger entry', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m }));
      const courierId = nextId('c');
      const assigned = await store.orders.apply({
        id: o.id,
        from: ['new'],
        to: 'assigned',
        patch: { courierId, estimatedPickupAt: at(900) },
        event: transition(o, 'new', 'assigned', at(60), { kind: 'system', id: null }),
      });
      const expected: Order = { ...o, status: 'assigned', courierId, estimatedPickupAt: at(900), sequence: 2, updatedAt: at(60) };
      expect(assigned).toStrictEqual(expected);
      expect(await store.orders.findById(o.id)).toStrictEqual(expected);

      const reversal = ledgerEntry(o, 'reversal', at(120));
      const cancelEvent = transition(o, 'assigned', 'cancelled', at(120), { kind: 'merchant', id: m }, 'customer changed their mind');
      const cancelled = await store.orders.apply({
        id: o.id,
        from: ['new', 'assigned'],
        to: 'cancelled',
        patch: { courierId: null, cancellation: { reason: 'customer changed their mind', at: at(120) } },
        event: cancelEvent,
        ledger: reversal,
      });
      expect(cancelled).toStrictEqual({
        ...expected,
        status: 'cancelled',
        courierId: null,
        cancellation: { reason: 'customer changed their mind', at: at(120) },
        sequence: 3,
        updatedAt: at(120),
      });
      const events = await store.orders.listEvents(o.id);
      expect(events.map((e) => [e.sequence, e.from, e.to])).toEqual([
        [1, null, 'new'],
        [2, 'new', 'assigned'],
        [3, 'assigned', 'cancelled'],
      ]);
      expect(events[2]).toStrictEqual({ ...cancelEvent, sequence: 3 });
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).toStrictEqual([ledgerEntry(o, 'charge', o.createdAt, true), reversal]);
    });

    test('orders.apply writes a cancellation fee with the status change: the order keeps it, the ledger nets it', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, status: 'arrived_pickup', courierId: nextId('c') }));
      const fee = 1990;
      const reversal = { ...ledgerEntry(o, 'reversal', at(120)), amount: -(o.price - fee) };
      const cancelled = await store.orders.apply({
        id: o.id,
        from: ['arrived_pickup'],
        to: 'cancelled',
        patch: { cancellation: { reason: null, at: at(120), fee } },
        event: transition(o, 'arrived_pickup', 'cancelled', at(120), { kind: 'merchant', id: m }),
        ledger: reversal,
      });
      expect(cancelled?.cancellation).toStrictEqual({ reason: null, at: at(120), fee });
      expect((await store.orders.findById(o.id))?.cancellation).toStrictEqual({ reason: null, at: at(120), fee });
      const entries = await store.ledger.listByMerchant({ merchantId: m, mode: 'live' });
      expect(entries).toStrictEqual([ledgerEntry(o, 'charge', o.createdAt, true), reversal]);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(fee);
      // A lost compare-and-set writes neither the fee nor a second reversal.
      expect(await store.orders.apply({ id: o.id, from: ['arrived_pickup'], to: 'cancelled', patch: { cancellation: { reason: null, at: at(130), fee } }, event: transition(o, 'arrived_pickup', 'cancelled', at(130), { kind: 'merchant', id: m }), ledger: { ...reversal, id: nextId('led') } })).toBeNull();
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).toHaveLength(2);
    });

    test('orders.apply records the delivery proof', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, status: 'arrived_dropoff', courierId: 'c_1' }));
      const proof = {
        driverId: 'c_1',
        coords: { lat: o.dropoff.lat + 0.00005, lng: o.dropoff.lng },
        distanceM: 5.6,
        radiusM: 20,
        bypass: false,
        geofence: 'passed' as const,
        photoUrl: 'https://cdn.example.cl/pod/photo-1.jpg',
        signatureUrl: 'https://cdn.example.cl/pod/sig-1.png',
        deliveredAt: at(300),
      };
      const done = await store.orders.apply({
        id: o.id,
        from: ['arrived_dropoff', 'picked_up'],
        to: 'completed',
        patch: { proof },
        event: transition(o, 'arrived_dropoff', 'completed', at(300), { kind: 'courier', id: 'c_1' }, null, proof.coords),
      });
      expect(done).toStrictEqual({ ...o, status: 'completed', proof, sequence: 2, updatedAt: at(300) });
      expect(await store.orders.findById(o.id)).toStrictEqual(done);
    });

    test('orders.apply from a status not listed returns null and writes nothing', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, status: 'picked_up', courierId: 'c_1' }));
      const result = await store.orders.apply({
        id: o.id,
        from: ['new', 'assigned'],
        to: 'cancelled',
        patch: { courierId: null, cancellation: { reason: null, at: at(50) } },
        event: transition(o, 'picked_up', 'cancelled', at(50), { kind: 'merchant', id: m }),
        ledger: ledgerEntry(o, 'reversal', at(50)),
      });
      expect(result).toBeNull();
      expect(await store.orders.apply({ id: o.id, from: [], to: 'new' })).toBeNull();
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      expect(await store.orders.listEvents(o.id)).toHaveLength(1);
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).toHaveLength(1);
    });

    test('orders.apply returns null for an unknown order and creates nothing', async () => {
      const m = await newMerchant();
      const ghost = order({ merchantId: m });
      const result = await store.orders.apply({
        id: ghost.id,
        from: [...ORDER_STATUSES],
        to: 'assigned',
        event: transition(ghost, 'new', 'assigned', at(5), { kind: 'system', id: null }),
        ledger: ledgerEntry(ghost, 'charge', at(5)),
      });
      expect(result).toBeNull();
      expect(await store.orders.findById(ghost.id)).toBeNull();
      expect(await store.orders.listEvents(ghost.id)).toEqual([]);
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).toEqual([]);
    });

    test('orders.apply without an event changes the patched fields only: no sequence, no history, same updatedAt', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m }));
      const patched = await store.orders.apply({ id: o.id, from: [...ORDER_STATUSES], patch: { estimatedDeliveryAt: at(4000), price: 4990 } });
      expect(patched).toStrictEqual({ ...o, estimatedDeliveryAt: at(4000), price: 4990 });
      expect(await store.orders.findById(o.id)).toStrictEqual(patched);
      expect(await store.orders.listEvents(o.id)).toHaveLength(1);
    });

    test('orders.updateEstimate sets the live ETA and its announcement (no event, same sequence and updatedAt; the announcement only when given) and writes the outbox in the same write', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, status: 'picked_up', courierId: 'c_eta' }));
      const quiet = await store.orders.updateEstimate({
        id: o.id, courierId: 'c_eta', from: ['assigned', 'picked_up'], estimatedDeliveryAt: at(4000), etaAnnounced: { deliveryAt: o.estimatedDeliveryAt, at: null },
      });
      expect(quiet).toStrictEqual({ ...o, estimatedDeliveryAt: at(4000), etaAnnounced: { deliveryAt: o.estimatedDeliveryAt, at: null } });
      expect(await store.orders.findById(o.id)).toStrictEqual(quiet);
      const announced = await store.orders.updateEstimate({
        id: o.id, courierId: 'c_eta', from: ['picked_up'], estimatedDeliveryAt: at(4600), etaAnnounced: { deliveryAt: at(4600), at: at(50) },
        outbox: (updated) => [etaDelivery(updated, at(50))],
      });
      expect(announced).toStrictEqual({ ...o, estimatedDeliveryAt: at(4600), etaAnnounced: { deliveryAt: at(4600), at: at(50) } });
      expect(await store.orders.findById(o.id)).toStrictEqual(announced);
      expect(await store.orders.listEvents(o.id)).toHaveLength(1);
      const [written] = await store.webhooks.listDeliveries({ merchantId: m, mode: 'live', limit: 10 });
      expect(written).toMatchObject({ eventType: 'order.eta_changed', orderId: o.id, sequence: o.sequence, status: 'pending' });
      expect(JSON.parse(written!.body)).toEqual({ current: at(4600) });
      // Without etaAnnounced, the stored announcement stays as it is.
      const moved = await store.orders.updateEstimate({ id: o.id, courierId: 'c_eta', from: ['picked_up'], estimatedDeliveryAt: at(4700) });
      expect(moved).toStrictEqual({ ...o, estimatedDeliveryAt: at(4700), etaAnnounced: { deliveryAt: at(4600), at: at(50) } });
      expect(await store.orders.findById(o.id)).toStrictEqual(moved);
    });

    test('orders.updateEstimate records etaBaseline only where the order has no announcement yet', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, status: 'assigned', courierId: 'c_eta' }));
      const baseline = { deliveryAt: o.estimatedDeliveryAt, at: null };
      const first = await store.orders.updateEstimate({ id: o.id, courierId: 'c_eta', from: ['assigned'], estimatedDeliveryAt: at(4000), etaBaseline: baseline });
      expect(first).toStrictEqual({ ...o, estimatedDeliveryAt: at(4000), etaAnnounced: baseline });
      const second = await store.orders.updateEstimate({ id: o.id, courierId: 'c_eta', from: ['assigned'], estimatedDeliveryAt: at(4100), etaBaseline: { deliveryAt: at(9999), at: null } });
      expect(second).toStrictEqual({ ...o, estimatedDeliveryAt: at(4100), etaAnnounced: baseline });
      expect(await store.orders.findById(o.id)).toStrictEqual(second);
      expect(await store.orders.updateEstimate({ id: o.id, courierId: 'c_other', from: ['assigned'], estimatedDeliveryAt: at(4200), etaBaseline: baseline })).toBeNull();
      expect(await store.orders.findById(o.id)).toStrictEqual(second);
    });

    test('orders.updateEstimate is refused (null, nothing written) for another courier, a status not listed, or an unknown order', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, status: 'completed', courierId: 'c_eta' }));
      const update = { etaAnnounced: { deliveryAt: at(4000), at: at(50) }, estimatedDeliveryAt: at(4000), outbox: (u: Order) => [etaDelivery(u, at(50))] };
      expect(await store.orders.updateEstimate({ ...update, id: o.id, courierId: 'c_eta', from: ['assigned', 'picked_up'] })).toBeNull();
      expect(await store.orders.updateEstimate({ ...update, id: o.id, courierId: 'c_other', from: ['completed'] })).toBeNull();
      expect(await store.orders.updateEstimate({ ...update, id: 'bk_unknown', courierId: 'c_eta', from: ['completed'] })).toBeNull();
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      expect(await store.webhooks.listDeliveries({ merchantId: m, mode: 'live', limit: 10 })).toEqual([]);
    });

    test('orders.apply treats a patch field given as undefined as absent', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m, status: 'assigned', courierId: 'c_1' }));
      const maybeCourier: string | undefined = undefined;
      const result = await store.orders.apply({
        id: o.id,
        from: ['assigned'],
        to: 'arrived_pickup',
        patch: { courierId: maybeCourier, estimatedPickupAt: undefined },
        event: transition(o, 'assigned', 'arrived_pickup', at(40), { kind: 'courier', id: 'c_1' }),
      });
      expect(result).toStrictEqual({ ...o, status: 'arrived_pickup', sequence: 2, updatedAt: at(40) });
      expect(await store.orders.findById(o.id)).toStrictEqual(result);
    });

    test('orders.apply: of 20 concurrent applies from new exactly one wins and history has no gaps', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m }));
      const couriers = Array.from({ length: 20 }, () => nextId('c'));
      const results = await Promise.all(
        couriers.map((courierId, i) =>
          store.orders.apply({
            id: o.id,
            from: ['new'],
            to: 'assigned',
            patch: { courierId },
            event: transition(o, 'new', 'assigned', at(10 + i), { kind: 'system', id: null }),
          }),
        ),
      );
      const winners = results.filter((r): r is Order => r !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toMatchObject({ status: 'assigned', sequence: 2 });
      expect(await store.orders.findById(o.id)).toStrictEqual(winners[0]);
      const events = await store.orders.listEvents(o.id);
      expect(events.map((e) => e.sequence)).toEqual([1, 2]);
      expect(events[1]).toMatchObject({ from: 'new', to: 'assigned', at: winners[0]!.updatedAt });
    });

    test('orders.apply: 20 concurrent transitions that all apply get sequences 2..21 without gaps or duplicates', async () => {
      const m = await newMerchant();
      const o = await created(order({ merchantId: m }));
      // Every status is allowed and kept, so every apply succeeds: only the sequence is contended.
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.orders.apply({
            id: o.id,
            from: [...ORDER_STATUSES],
            event: transition(o, 'new', 'new', at(10 + i), { kind: 'admin', id: 'ops' }, `note ${i}`),
          }),
        ),
      );
      expect(results.every((r) => r !== null)).toBe(true);
      expect(results.map((r) => r!.sequence).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
      const events = await store.orders.listEvents(o.id);
      expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      expect(new Set(events.map((e) => e.reason)).size).toBe(21);
      expect((await store.orders.findById(o.id))?.sequence).toBe(21);
    });

    // ---- lists ----

    test('orders.list pages newest first with limit and after, within one merchant and mode', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const mine = [];
      for (let i = 0; i < 5; i++) mine.push(await created(order({ merchantId: m, createdAt: at(10 * i) })));
      await created(order({ merchantId: m, mode: 'test', createdAt: at(15) }));
      await created(order({ merchantId: other, createdAt: at(25) }));
      const newestFirst = [...mine].reverse();

      const page1 = await store.orders.list({ merchantId: m, mode: 'live', limit: 2 });
      expect(page1).toStrictEqual(newestFirst.slice(0, 2));
      const page2 = await store.orders.list({ merchantId: m, mode: 'live', limit: 2, after: page1[1]!.id });
      expect(page2).toStrictEqual(newestFirst.slice(2, 4));
      const page3 = await store.orders.list({ merchantId: m, mode: 'live', limit: 2, after: page2[1]!.id });
      expect(page3).toStrictEqual(newestFirst.slice(4));
      expect(await store.orders.list({ merchantId: m, mode: 'live', limit: 2, after: page3[0]!.id })).toEqual([]);
      expect(await store.orders.list({ merchantId: m, mode: 'live', limit: 0 })).toEqual([]);
    });

    test('orders.listAcrossMerchants: every merchant newest first, keyset pages, filters by mode, status, merchant, time and lateness', async () => {
      const a = await newMerchant();
      const b = await newMerchant();
      const plan: Array<[string, Mode, OrderStatus, number, number]> = [
        // merchant, mode, status, created at, ETA (seconds)
        [a, 'live', 'new', 10, 5000], [b, 'live', 'assigned', 20, 30], [a, 'test', 'new', 30, 40], [b, 'live', 'completed', 40, 50],
        [a, 'live', 'picked_up', 50, 60], [b, 'test', 'cancelled', 60, 70], [a, 'live', 'new', 70, 5000],
      ];
      const all: Order[] = [];
      for (const [merchantId, mode, status, createdAt, eta] of plan) {
        all.push(await created(order({ merchantId, mode, status, createdAt: at(createdAt), estimatedDeliveryAt: at(eta) })));
      }
      const ids = (orders: Order[]) => orders.map((o) => o.id);
      const pick = (...indexes: number[]) => indexes.map((i) => all[i]!.id);
      const every = { modes: ['live', 'test'] as Mode[], statuses: [...ORDER_STATUSES] };
      // Other cases' orders may be in the store: bound the range to this case's times and merchants.
      const mine = (orders: Order[]) => orders.filter((o) => o.merchantId === a || o.merchantId === b);
      const first = mine(await across({ ...every, createdFrom: at(10), createdTo: at(71), limit: 3 }));
      expect(ids(first)).toEqual(pick(6, 5, 4));
      const second = mine(await across({ ...every, createdFrom: at(10), createdTo: at(71), after: first[2]!.id, limit: 3 }));
      expect(ids(second)).toEqual(pick(3, 2, 1));
      expect(ids(await across({ ...every, merchantId: a, limit: 10 }))).toEqual(pick(6, 4, 2, 0));
      expect(ids(await across({ modes: ['live'], statuses: ['new', 'assigned'], createdFrom: at(10), createdTo: at(71), limit: 10 }).then(mine))).toEqual(pick(6, 1, 0));
      expect(ids(await across({ modes: ['test'], statuses: [...ORDER_STATUSES], merchantId: b, limit: 10 }))).toEqual(pick(5));
      // Late at 1000 s: in progress and past the ETA (the ones with an ETA at 5000 s are not).
      const inProgress: OrderStatus[] = ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff'];
      expect(ids(await across({ ...every, statuses: inProgress, lateAt: at(1000), createdFrom: at(10), createdTo: at(71), limit: 10 }).then(mine))).toEqual(pick(4, 2, 1));
      // A delivery window end past makes an order late even with a later ETA.
      const windowed = await created(order({ merchantId: a, status: 'new', createdAt: at(80), estimatedDeliveryAt: at(5000), deliverBefore: at(500) }));
      expect(ids(await across({ ...every, statuses: inProgress, merchantId: a, lateAt: at(1000), limit: 10 }))).toEqual([windowed.id, ...pick(4, 2)]);
      expect(await across({ ...every, after: 'bk_unknown', limit: 10 })).toEqual([]);
      expect(await across({ ...every, limit: 0 })).toEqual([]);
    });

    test('orders.listAcrossMerchants(pickupZone): only orders whose pickup geohash starts with the prefix, still newest first (issue #29)', async () => {
      const m = await newMerchant();
      const inZone = await created(order({ merchantId: m, createdAt: at(10), pickupGeohash: '66jcc4fm8' }));
      await created(order({ merchantId: m, createdAt: at(20), pickupGeohash: '66j9xbcde' }));
      const newer = await created(order({ merchantId: m, createdAt: at(30), pickupGeohash: '66jcc1xyz' }));
      const every = { modes: ['live', 'test'] as Mode[], statuses: [...ORDER_STATUSES], limit: 10 };
      expect((await across({ ...every, merchantId: m, pickupZone: '66jcc' })).map((o) => o.id)).toEqual([newer.id, inZone.id]);
      expect((await across({ ...every, merchantId: m, pickupZone: '66jcc4' })).map((o) => o.id)).toEqual([inZone.id]);
      expect(await across({ ...every, merchantId: m, pickupZone: '67' })).toEqual([]);
    });

    test('orders.listAcrossMerchants(pickupZone, lateAt): zones of every length (seek or row test) with late, status, merchant, dates and cursor (issue #41)', async () => {
      const a = await newMerchant();
      const b = await newMerchant();
      // merchant, status, created at, pickup geohash, ETA (seconds)
      const plan: Array<[string, OrderStatus, number, string, number]> = [
        [a, 'new', 10, '66jcc4fm8', 30], [b, 'assigned', 20, '66jcc4xyz', 5000], [a, 'completed', 30, '66jcc4abc', 40], [b, 'picked_up', 40, '66jcc1abc', 50],
        [a, 'assigned', 50, '66jc9zzzz', 60], [a, 'new', 60, '66jcc4bbb', 70], [b, 'new', 70, '66j9xbcde', 80],
      ];
      const all: Order[] = [];
      for (const [merchantId, status, createdAt, pickupGeohash, eta] of plan) {
        all.push(await created(order({ merchantId, status, createdAt: at(createdAt), pickupGeohash, estimatedDeliveryAt: at(eta), courierId: 'cr_eta' })));
      }
      const ids = (orders: Order[]) => orders.map((o) => o.id);
      const pick = (...indexes: number[]) => indexes.map((i) => all[i]!.id);
      const mine = (orders: Order[]) => orders.filter((o) => o.merchantId === a || o.merchantId === b);
      const every = { modes: ['live', 'test'] as Mode[], statuses: [...ORDER_STATUSES], createdFrom: at(10), createdTo: at(71), limit: 10 };
      const inProgress: OrderStatus[] = ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff'];
      // 6 characters (orders_zone6), 5 (orders_zone5), 4 and 3 (a row test).
      expect(ids(mine(await across({ ...every, pickupZone: '66jcc4' })))).toEqual(pick(5, 2, 1, 0));
      expect(ids(mine(await across({ ...every, pickupZone: '66jcc' })))).toEqual(pick(5, 3, 2, 1, 0));
      expect(ids(mine(await across({ ...every, pickupZone: '66jc' })))).toEqual(pick(5, 4, 3, 2, 1, 0));
      expect(ids(mine(await across({ ...every, pickupZone: '66j' })))).toEqual(pick(6, 5, 4, 3, 2, 1, 0));
      // A zone nobody picks up in, at every length.
      for (const pickupZone of ['66jcc5', '66jcd', '66jd', '67z']) expect(await across({ ...every, pickupZone })).toEqual([]);
      // With statuses, a merchant, the date range and the cursor.
      expect(ids(mine(await across({ ...every, statuses: ['new'], pickupZone: '66jcc4' })))).toEqual(pick(5, 0));
      expect(ids(await across({ ...every, merchantId: a, pickupZone: '66jcc4' }))).toEqual(pick(5, 2, 0));
      expect(ids(await across({ ...every, merchantId: b, pickupZone: '66jcc' }))).toEqual(pick(3, 1));
      expect(ids(mine(await across({ ...every, createdFrom: at(20), createdTo: at(60), pickupZone: '66jcc4' })))).toEqual(pick(2, 1));
      expect(ids(mine(await across({ ...every, pickupZone: '66jcc', after: all[3]!.id })))).toEqual(pick(2, 1, 0));
      // Late at 1000 s (in progress, ETA past; #1 is on time, #2 is over): alone and with the zone, a merchant, the cursor.
      expect(ids(mine(await across({ ...every, statuses: inProgress, lateAt: at(1000) })))).toEqual(pick(6, 5, 4, 3, 0));
      expect(ids(mine(await across({ ...every, statuses: inProgress, lateAt: at(1000), pickupZone: '66jcc4' })))).toEqual(pick(5, 0));
      expect(ids(mine(await across({ ...every, statuses: inProgress, lateAt: at(1000), pickupZone: '66jc' })))).toEqual(pick(5, 4, 3, 0));
      expect(ids(await across({ ...every, statuses: inProgress, lateAt: at(1000), merchantId: b }))).toEqual(pick(6, 3));
      expect(ids(mine(await across({ ...every, statuses: ['new'], lateAt: at(1000), after: all[5]!.id })))).toEqual(pick(0));
      // The ETA moves later (the courier's live ETA): no longer late.
      expect(await store.orders.updateEstimate({ id: all[3]!.id, courierId: 'cr_eta', from: ['picked_up'], estimatedDeliveryAt: at(5000) })).not.toBeNull();
      expect(ids(await across({ ...every, statuses: inProgress, lateAt: at(1000), merchantId: b }))).toEqual(pick(6));
      // Completed: out of the late list.
      await store.orders.apply({ id: all[4]!.id, from: ['assigned'], to: 'cancelled' });
      expect(ids(await across({ ...every, statuses: inProgress, lateAt: at(1000), merchantId: a }))).toEqual(pick(5, 0));
    });

    test('orders.listAcrossMerchants reads at most examineAtMost orders: a partial page with resumeAfter, and the walk goes on from it (issue #41)', async () => {
      const m = await newMerchant();
      const all: Order[] = [];
      // Newest first: 8 orders outside the zone, then 2 in it.
      for (let i = 0; i < 10; i++) all.push(await created(order({ merchantId: m, createdAt: at(100 - i), pickupGeohash: i < 8 ? '66j9xbcde' : '66jcc4fm8', estimatedDeliveryAt: at(i < 8 ? 5000 : 10) })));
      const page = { modes: ['live'] as Mode[], statuses: [...ORDER_STATUSES], merchantId: m, limit: 5, examineAtMost: 3 };
      for (const filter of [{ pickupZone: '66jcc4' }, { pickupZone: '66jcc' }, { pickupZone: '66jc' }, { lateAt: at(1000), statuses: ['new'] as OrderStatus[] }, { pickupZone: '66jcc4', lateAt: at(1000), statuses: ['new'] as OrderStatus[] },
        // As many late orders as the bound: lateness is tested on each order read.
        { lateAt: at(1000), statuses: ['new'] as OrderStatus[], examineAtMost: 2 }]) {
        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        for (;;) {
          const result = await store.orders.listAcrossMerchants({ ...page, ...filter, ...(after && { after }) });
          expect(result.orders.length, JSON.stringify(filter)).toBeLessThanOrEqual(5);
          seen.push(...result.orders.map((o) => o.id));
          pages++;
          if (!result.resumeAfter) break;
          expect(result.orders.length).toBeLessThan(5);
          after = result.resumeAfter;
        }
        expect(seen, JSON.stringify(filter)).toEqual([all[8]!.id, all[9]!.id]);
        // A row test over the 8 others reads past the bound (a zone of 5 or 6 characters may be a seek that never reads them).
        if ('examineAtMost' in filter || filter.pickupZone === '66jc') expect(pages).toBeGreaterThan(1);
      }
      // Fewer late orders than the bound: only they are read, the page is whole.
      expect(await store.orders.listAcrossMerchants({ ...page, lateAt: at(1000), statuses: ['new'] as OrderStatus[] })).toEqual({ orders: [all[8], all[9]], resumeAfter: null });
      // Without a filter tested on rows, the bound does not cut the page.
      expect((await store.orders.listAcrossMerchants(page)).orders).toHaveLength(5);
    });

    test('orders.list filters by statuses and by created time (from inclusive, to exclusive)', async () => {
      const m = await newMerchant();
      const statuses: OrderStatus[] = ['new', 'assigned', 'picked_up', 'completed', 'cancelled'];
      const all: Order[] = [];
      for (const [i, status] of statuses.entries()) all.push(await created(order({ merchantId: m, status, createdAt: at(100 * (i + 1)) })));
      const ids = (orders: Order[]) => orders.map((o) => o.id);
      const byStatus = await store.orders.list({ merchantId: m, mode: 'live', statuses: ['new', 'completed'], limit: 10 });
      expect(ids(byStatus)).toEqual([all[3]!.id, all[0]!.id]);
      const byTime = await store.orders.list({ merchantId: m, mode: 'live', createdFrom: at(200), createdTo: at(400), limit: 10 });
      expect(ids(byTime)).toEqual([all[2]!.id, all[1]!.id]);
      const both = await store.orders.list({
        merchantId: m,
        mode: 'live',
        statuses: ['assigned', 'cancelled'],
        createdFrom: at(150),
        limit: 10,
      });
      expect(ids(both)).toEqual([all[4]!.id, all[1]!.id]);
      const paged = await store.orders.list({ merchantId: m, mode: 'live', createdTo: at(500), after: all[2]!.id, limit: 10 });
      expect(ids(paged)).toEqual([all[1]!.id, all[0]!.id]);
      expect(await store.orders.list({ merchantId: m, mode: 'live', statuses: ['arrived_pickup'], limit: 10 })).toEqual([]);
    });

    test('orders.list: statuses (each once), a date range and the cursor combine, newest first by creation time then id', async () => {
      const m = await newMerchant();
      // Creation times that do not follow the ids (the fixture's ids stay increasing while the
      // times go back), two of them in the same millisecond: the list goes by time, then id.
      const plan: Array<[OrderStatus, number]> = [
        ['new', 90], ['cancelled', 80], ['completed', 70], ['new', 60], ['cancelled', 60], ['assigned', 50], ['new', 40], ['cancelled', 30], ['new', 20], ['cancelled', 10],
      ];
      const all: Order[] = [];
      for (const [status, t] of plan) all.push(await created(order({ merchantId: m, status, createdAt: at(t) })));
      await created(order({ merchantId: m, mode: 'test', status: 'new', createdAt: at(55) }));
      const newestFirst = (orders: Order[]) => orders.map((o) => `${o.createdAt} ${o.id}`).sort().reverse().map((key) => key.split(' ')[1]);
      const ids = (orders: Order[]) => orders.map((o) => o.id);
      const walk = async (filters: { statuses?: OrderStatus[]; createdFrom?: string; createdTo?: string }) => {
        const seen: string[] = [];
        let after: string | undefined;
        for (let page = 0; page < 10; page++) {
          const got = await store.orders.list({ merchantId: m, mode: 'live', limit: 2, ...filters, ...(after && { after }) });
          seen.push(...ids(got));
          if (got.length < 2) break;
          after = got.at(-1)!.id;
        }
        return seen;
      };
      const inRange = (o: Order, from: number, to: number) => o.createdAt >= at(from) && o.createdAt < at(to);
      expect(await walk({})).toEqual(newestFirst(all));
      expect(await walk({ statuses: ['new', 'cancelled', 'new'] })).toEqual(newestFirst(all.filter((o) => o.status === 'new' || o.status === 'cancelled')));
      expect(await walk({ createdFrom: at(20), createdTo: at(80) })).toEqual(newestFirst(all.filter((o) => inRange(o, 20, 80))));
      expect(await walk({ statuses: ['cancelled', 'new'], createdFrom: at(20), createdTo: at(80) })).toEqual(
        newestFirst(all.filter((o) => (o.status === 'new' || o.status === 'cancelled') && inRange(o, 20, 80))),
      );
      expect(await walk({ statuses: ['assigned'] })).toEqual([all[5]!.id]);
      // A cursor above created_to: the range ends at created_to.
      expect(ids(await store.orders.list({ merchantId: m, mode: 'live', after: all[0]!.id, createdTo: at(50), limit: 10 }))).toEqual(newestFirst(all.filter((o) => inRange(o, 0, 50))));
      // An id that is none of this merchant's orders in this mode: nothing follows it.
      expect(await store.orders.list({ merchantId: m, mode: 'live', after: 'bk_unknown', limit: 10 })).toEqual([]);
      expect(await store.orders.list({ merchantId: m, mode: 'test', after: all[0]!.id, limit: 10 })).toEqual([]);
    });

    test('orders.listQueued lists new orders with no courier and no batch for these vehicle types, oldest first, in one mode', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const bike = await created(order({ merchantId: m, vehicleType: 'bike', weightKg: 2, createdAt: at(30) }));
      const car = await created(order({ merchantId: other, vehicleType: 'car', weightKg: 20, createdAt: at(10) }));
      const moto = await created(order({ merchantId: m, vehicleType: 'motorcycle', createdAt: at(20) }));
      const van = await created(order({ merchantId: m, vehicleType: 'van', weightKg: 300, createdAt: at(5) }));
      await created(order({ merchantId: m, vehicleType: 'bike', mode: 'test', createdAt: at(1) }));
      await created(order({ merchantId: m, vehicleType: 'bike', status: 'assigned', courierId: 'c_1', createdAt: at(2) }));
      await created(order({ merchantId: m, vehicleType: 'bike', batchId: 'bt_1', createdAt: at(3) }));
      await created(order({ merchantId: m, vehicleType: 'bike', status: 'cancelled', createdAt: at(4) }));

      const ids = (orders: Order[]) => orders.map((o) => o.id);
      expect(ids(await store.orders.listQueued({ mode: 'live', vehicleTypes: ['bike', 'motorcycle', 'car'], limit: 10 }))).toEqual([
        car.id,
        moto.id,
        bike.id,
      ]);
      expect(await store.orders.listQueued({ mode: 'live', vehicleTypes: ['bike'], limit: 10 })).toStrictEqual([bike]);
      expect(ids(await store.orders.listQueued({ mode: 'live', vehicleTypes: ['van', 'car'], limit: 1 }))).toEqual([van.id]);
      expect(await store.orders.listQueued({ mode: 'live', vehicleTypes: [], limit: 10 })).toEqual([]);
      // Once assigned it leaves the queue.
      await store.orders.apply({ id: car.id, from: ['new'], to: 'assigned', patch: { courierId: 'c_2' } });
      expect(ids(await store.orders.listQueued({ mode: 'live', vehicleTypes: ['car', 'van'], limit: 10 }))).toEqual([van.id]);
    });

    test('orders.scanQueued walks the mode\'s new orders oldest first in steps of `examine`, returning the queued ones and where to go on', async () => {
      const m = await newMerchant();
      const queued = (o: Partial<Order>) => created(order({ merchantId: m, vehicleType: 'motorcycle', ...o }));
      const a = await queued({ createdAt: at(1) });
      await queued({ createdAt: at(2), vehicleType: 'van', weightKg: 300 }); // a vehicle not asked for
      await queued({ createdAt: at(3), batchId: 'bt_1' }); // in a batch
      await queued({ createdAt: at(4), scheduledPickupAt: at(4000), dispatchAfter: at(3000) }); // not due yet
      const b = await queued({ createdAt: at(5) });
      const c = await queued({ createdAt: at(5) }); // same instant: the id orders them
      await queued({ createdAt: at(6), mode: 'test' });
      await queued({ createdAt: at(0), status: 'assigned', courierId: 'c_1' });
      const d = await queued({ createdAt: at(7), scheduledPickupAt: at(700), dispatchAfter: at(50) });
      const [first, second] = [b, c].sort((x, y) => (x.id < y.id ? -1 : 1)) as [Order, Order];

      const walk = { mode: 'live' as const, vehicleTypes: ['motorcycle' as const, 'car' as const], dueBy: at(100), examine: 3 };
      const step1 = await store.orders.scanQueued({ ...walk, after: null });
      expect(step1.orders).toStrictEqual([a]);
      expect(step1.next?.createdAt).toBe(at(3));
      const step2 = await store.orders.scanQueued({ ...walk, after: step1.next });
      expect(step2.orders.map((o) => o.id)).toEqual([first.id, second.id]);
      expect(step2.next).toEqual({ createdAt: at(5), id: second.id });
      const step3 = await store.orders.scanQueued({ ...walk, after: step2.next });
      expect(step3).toStrictEqual({ orders: [d], next: null });
      // From the middle of two orders of one instant: the second only.
      expect((await store.orders.scanQueued({ ...walk, after: { createdAt: at(5), id: first.id } })).orders.map((o) => o.id)).toEqual([second.id, d.id]);
      expect((await store.orders.scanQueued({ ...walk, vehicleTypes: [], after: null, examine: 10 })).orders).toEqual([]);
    });

    test('orders.listConsolidatable reads a geohash prefix as a range: new or assigned orders without a batch of one merchant and mode', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const inZone = await created(order({ merchantId: m, pickupGeohash: '66jcfp1zz', createdAt: at(20) }));
      const assigned = await created(order({ merchantId: m, pickupGeohash: '66jcc4fm8', status: 'assigned', courierId: 'c_1', createdAt: at(10) }));
      const edge = await created(order({ merchantId: m, pickupGeohash: '66jczzzzz', createdAt: at(30) }));
      await created(order({ merchantId: m, pickupGeohash: '66jd00000', createdAt: at(1) })); // next cell
      await created(order({ merchantId: m, pickupGeohash: '66jbzzzzz', createdAt: at(2) })); // previous cell
      await created(order({ merchantId: m, pickupGeohash: '66jcfp200', status: 'picked_up', courierId: 'c_2', createdAt: at(3) }));
      await created(order({ merchantId: m, pickupGeohash: '66jcfp300', batchId: 'bt_1', createdAt: at(4) }));
      await created(order({ merchantId: m, pickupGeohash: '66jcfp400', mode: 'test', createdAt: at(5) }));
      await created(order({ merchantId: other, pickupGeohash: '66jcfp500', createdAt: at(6) }));

      const zone = (geohashPrefix: string, limit = 10) => store.orders.listConsolidatable({ merchantId: m, mode: 'live', geohashPrefix, limit });
      expect(await zone('66jc')).toStrictEqual([assigned, inZone, edge]);
      expect(await zone('66jcfp')).toStrictEqual([inZone]);
      expect(await zone('66jc', 2)).toStrictEqual([assigned, inZone]);
      expect((await zone('66jd')).map((o) => o.pickup.geohash)).toEqual(['66jd00000']);
      expect(await zone('66jcfq')).toEqual([]);
    });

    // ---- batches ----

    test('batches.insert stores the batch; findById returns it exactly, or null when unknown', async () => {
      const m = await newMerchant();
      const b = batch({ merchantId: m });
      await store.batches.insert(b);
      expect(await store.batches.findById(b.id)).toStrictEqual(b);
      expect(await store.batches.findById('bt_unknown')).toBeNull();
      await expect(store.batches.insert(b)).rejects.toThrow();
    });

    test('batches.update is a compare-and-set on the status', async () => {
      const m = await newMerchant();
      const b = batch({ merchantId: m });
      await store.batches.insert(b);
      const assigned = await store.batches.update({ id: b.id, from: ['pending'], patch: { status: 'assigned', courierId: 'c_9' }, updatedAt: at(70) });
      expect(assigned).toStrictEqual({ ...b, status: 'assigned', courierId: 'c_9', updatedAt: at(70) });
      expect(await store.batches.update({ id: b.id, from: ['pending'], patch: { status: 'cancelled' }, updatedAt: at(80) })).toBeNull();
      expect(await store.batches.findById(b.id)).toStrictEqual(assigned);
      const trimmed = await store.batches.update({
        id: b.id,
        from: ['pending', 'assigned'],
        patch: { orderIds: b.orderIds.slice(1), totalWeightKg: 4.5 },
        updatedAt: at(90),
      });
      expect(trimmed).toStrictEqual({ ...assigned, orderIds: b.orderIds.slice(1), totalWeightKg: 4.5, updatedAt: at(90) });
      expect(await store.batches.findById(b.id)).toStrictEqual(trimmed);
      expect(await store.batches.update({ id: 'bt_unknown', from: ['pending'], patch: { status: 'assigned' }, updatedAt: at(1) })).toBeNull();
    });

    test('batches.update treats a patch field given as undefined as absent', async () => {
      const m = await newMerchant();
      const b = batch({ merchantId: m, status: 'assigned', courierId: 'c_3' });
      await store.batches.insert(b);
      const result = await store.batches.update({
        id: b.id,
        from: ['assigned'],
        patch: { status: 'completed', courierId: undefined, orderIds: undefined },
        updatedAt: at(75),
      });
      expect(result).toStrictEqual({ ...b, status: 'completed', updatedAt: at(75) });
      expect(await store.batches.findById(b.id)).toStrictEqual(result);
    });

    test('batches.update: of 10 concurrent claims from pending exactly one wins', async () => {
      const m = await newMerchant();
      const b = batch({ merchantId: m });
      await store.batches.insert(b);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.batches.update({ id: b.id, from: ['pending'], patch: { status: 'assigned', courierId: `c_${i}` }, updatedAt: at(100 + i) }),
        ),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await store.batches.findById(b.id)).toStrictEqual(winners[0]);
    });

    test('batches.list pages newest first within one merchant and mode', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const mine = [];
      for (let i = 0; i < 3; i++) {
        const b = batch({ merchantId: m, createdAt: at(i) });
        await store.batches.insert(b);
        mine.push(b);
      }
      await store.batches.insert(batch({ merchantId: m, mode: 'test' }));
      await store.batches.insert(batch({ merchantId: other }));
      const page1 = await store.batches.list({ merchantId: m, mode: 'live', limit: 2 });
      expect(page1).toStrictEqual([mine[2], mine[1]]);
      expect(await store.batches.list({ merchantId: m, mode: 'live', limit: 2, after: page1[1]!.id })).toStrictEqual([mine[0]]);
      expect(await store.batches.list({ merchantId: m, mode: 'live', limit: 0 })).toEqual([]);
    });

    test('batches.listPending lists pending batches for these vehicle types, oldest first, in one mode', async () => {
      const m = await newMerchant();
      const car2 = batch({ merchantId: m, vehicleType: 'car', createdAt: at(20) });
      const car1 = batch({ merchantId: m, vehicleType: 'car', createdAt: at(10) });
      const van = batch({ merchantId: m, vehicleType: 'van', createdAt: at(5) });
      for (const b of [
        car2,
        car1,
        van,
        batch({ merchantId: m, vehicleType: 'car', status: 'assigned', courierId: 'c_1', createdAt: at(1) }),
        batch({ merchantId: m, vehicleType: 'car', mode: 'test', createdAt: at(2) }),
      ]) {
        await store.batches.insert(b);
      }
      expect(await store.batches.listPending({ mode: 'live', vehicleTypes: ['car'], limit: 10 })).toStrictEqual([car1, car2]);
      expect(await store.batches.listPending({ mode: 'live', vehicleTypes: ['car', 'van'], limit: 2 })).toStrictEqual([van, car1]);
      expect(await store.batches.listPending({ mode: 'live', vehicleTypes: [], limit: 10 })).toEqual([]);
    });

    // ---- ledger ----

    test('ledger.listByMerchant lists the charges and reversals of one merchant and mode in time order', async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const a = await created(order({ merchantId: m, createdAt: at(10), price: 3490 }));
      const b = await created(order({ merchantId: m, createdAt: at(20), price: 5990 }));
      await created(order({ merchantId: other, createdAt: at(15) }));
      await created(order({ merchantId: m, mode: 'test', createdAt: at(16) }));
      const reversal = ledgerEntry(a, 'reversal', at(30));
      await store.orders.apply({
        id: a.id,
        from: ['new'],
        to: 'cancelled',
        patch: { cancellation: { reason: null, at: at(30) } },
        event: transition(a, 'new', 'cancelled', at(30), { kind: 'merchant', id: m }),
        ledger: reversal,
      });
      const entries = await store.ledger.listByMerchant({ merchantId: m, mode: 'live' });
      expect(entries.map((e) => [e.orderId, e.kind, e.amount])).toEqual([
        [a.id, 'charge', 3490],
        [b.id, 'charge', 5990],
        [a.id, 'reversal', -3490],
      ]);
      expect(entries[2]).toStrictEqual(reversal);
      expect(await store.ledger.listByMerchant({ merchantId: m, mode: 'test' })).toEqual([]);
    });

    // ---- courier jobs ----

    test('couriers.setStatus claims an available courier with a job and releases it only with that job id', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      const job = { kind: 'order' as const, id: nextId('bk') };
      const claimed = await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], job, updatedAt: at(10) });
      expect(claimed).toStrictEqual({ ...c, status: 'busy', job, updatedAt: at(10) });
      expect(await store.couriers.findById(c.id)).toStrictEqual(claimed);
      // A second claim fails: it is busy.
      expect(await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], job: { kind: 'batch', id: 'bt_1' }, updatedAt: at(11) })).toBeNull();
      // Release with another job's id fails and changes nothing.
      expect(await store.couriers.setStatus({ id: c.id, status: 'available', from: ['busy'], fromJobId: 'bk_other', job: null, updatedAt: at(12) })).toBeNull();
      expect(await store.couriers.findById(c.id)).toStrictEqual(claimed);
      const released = await store.couriers.setStatus({ id: c.id, status: 'available', from: ['busy'], fromJobId: job.id, job: null, updatedAt: at(13) });
      expect(released).toStrictEqual({ ...c, status: 'available', job: null, updatedAt: at(13) });
      // Without a job the job id never matches.
      expect(await store.couriers.setStatus({ id: c.id, status: 'off_duty', fromJobId: job.id, updatedAt: at(14) })).toBeNull();
      // Without `job`, the job is kept.
      const busy = await store.couriers.setStatus({ id: c.id, status: 'busy', job, updatedAt: at(15) });
      expect(await store.couriers.setStatus({ id: c.id, status: 'off_duty', updatedAt: at(16) })).toStrictEqual({
        ...busy,
        status: 'off_duty',
        updatedAt: at(16),
      });
    });

    test('couriers.insert keeps a courier’s job', async () => {
      const c = courier({ status: 'busy', job: { kind: 'batch', id: nextId('bt') } });
      await store.couriers.insert(c);
      expect(await store.couriers.findById(c.id)).toStrictEqual(c);
    });

    test('couriers.setStatus: of 10 concurrent claims with different jobs exactly one wins and its job is kept', async () => {
      const c = courier({ status: 'available' });
      await store.couriers.insert(c);
      const jobs = Array.from({ length: 10 }, () => ({ kind: 'order' as const, id: nextId('bk') }));
      const results = await Promise.all(
        jobs.map((job, i) => store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], job, updatedAt: at(20 + i) })),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await store.couriers.findById(c.id)).toStrictEqual(winners[0]);
    });

    // Last in the suite body, once every case is registered.
    checkSkips();
  });
}

/** An order.eta_changed delivery built from the updated order, as the outbox would. */
function etaDelivery(o: Order, when: string): WebhookDelivery {
  return {
    id: `msg_${ulid(Date.parse(when))}`, endpointId: 'we_eta', merchantId: o.merchantId, mode: o.mode, eventType: 'order.eta_changed', orderId: o.id,
    sequence: o.sequence, body: JSON.stringify({ current: o.estimatedDeliveryAt }), status: 'pending', attempts: 0, nextAttemptAt: when,
    leaseOwner: null, leaseUntil: null, lastStatusCode: null, lastError: null, lastLatencyMs: null, createdAt: when, deliveredAt: null,
  };
}
