import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { LedgerEntry, Order, OrderStop, StoredQuote } from '../../src/domain/types.js';
import type { CourierCodBook, Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, creation, DAY, nextId, order, storeMerchant, transition } from './fixtures.js';

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

    test('orders keep cod_amount and the collection; the ledger keeps COD lines, pages them by (at, id) and sums them per merchant and courier', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, mode: 'live', status: 'arrived_dropoff', paymentMode: 'cash_on_delivery', codAmount: 15_990 }));
      expect(await store.orders.findById(o.id)).toStrictEqual(o);
      const codCollection = { expected: 15_990, collected: 15_000, mismatch: true, courierId: 'cr_1', collectedAt: at(60) };
      const collectedLine = { id: nextId('led'), merchantId: m, mode: 'live' as const, orderId: o.id, kind: 'cod_collected' as const, amount: 15_000, expected: 15_990, courierId: 'cr_1', at: at(60) };
      const done = await store.orders.apply({ id: o.id, from: ['arrived_dropoff'], to: 'completed', patch: { codCollection }, event: transition(o, 'arrived_dropoff', 'completed', at(60)), ledger: collectedLine });
      expect(done).toMatchObject({ status: 'completed', codCollection });
      expect((await store.orders.findById(o.id))?.codCollection).toStrictEqual(codCollection);

      // Two more collections (one exact, one in test mode), a courier hand-over and a merchant payout.
      const exact = { ...collectedLine, id: nextId('led'), orderId: 'bk_other', amount: 9_990, expected: 9_990, courierId: 'cr_2', at: at(120) };
      const sandbox = { ...collectedLine, id: nextId('led'), mode: 'test' as const, amount: 5_000, expected: 5_000, at: at(130) };
      const handOver = { id: nextId('led'), merchantId: null, mode: 'live' as const, orderId: null, kind: 'cod_settlement' as const, amount: 10_000, courierId: 'cr_1', at: at(200) };
      const payout = { id: nextId('led'), merchantId: m, mode: 'live' as const, orderId: null, kind: 'cod_settlement' as const, amount: 20_000, at: at(300) };
      for (const entry of [exact, sandbox, handOver, payout]) await store.ledger.append(entry);

      const scope = { merchantId: m, mode: 'live' as const };
      expect(await store.ledger.listCodCollections({ ...scope, to: at(1000), limit: 10 })).toStrictEqual([collectedLine, exact]);
      expect(await store.ledger.listCodCollections({ ...scope, to: at(1000), limit: 1 })).toStrictEqual([collectedLine]);
      expect(await store.ledger.listCodCollections({ ...scope, to: at(1000), afterId: collectedLine.id, limit: 10 })).toStrictEqual([exact]);
      expect(await store.ledger.listCodCollections({ ...scope, from: at(61), to: at(1000), limit: 10 })).toStrictEqual([exact]);
      expect(await store.ledger.listCodCollections({ ...scope, to: at(60), limit: 10 })).toStrictEqual([]);
      expect(await store.ledger.listCodCollections({ merchantId: m, mode: 'test', to: at(1000), limit: 10 })).toStrictEqual([sandbox]);
      const none = { pending: 0, handedOver: 0 };
      expect(await store.ledger.merchantCodSums({ ...scope, to: at(1000) })).toStrictEqual({ ...none, collected: 24_990, paidOut: 20_000, mismatches: 1 });
      expect(await store.ledger.merchantCodSums({ ...scope, from: at(100), to: at(250) })).toStrictEqual({ ...none, collected: 9_990, paidOut: 0, mismatches: 0 });
      expect(await store.ledger.merchantCodSums({ merchantId: 'mer_nobody', mode: 'live', to: at(1000) })).toStrictEqual({ ...none, collected: 0, paidOut: 0, mismatches: 0 });
      // The courier's hand-over from before issue #39 (a cod_settlement naming the courier) counts as handed over.
      expect(await store.ledger.courierCodSums({ courierId: 'cr_1' })).toStrictEqual({ collected: 20_000, pending: 0, handedOver: 10_000, paidOut: 0, mismatches: 1 });
      expect(await store.ledger.courierCodSums({ courierId: 'cr_2' })).toStrictEqual({ collected: 9_990, pending: 0, handedOver: 0, paidOut: 0, mismatches: 0 });
      // The charge written at creation keeps its shape next to the COD lines.
      const book = await store.ledger.listByMerchant(scope);
      expect(book.map((e) => e.kind)).toEqual(['charge', 'cod_collected', 'cod_collected', 'cod_settlement']);
      expect(book[0]).not.toHaveProperty('courierId');
    });

    test('a cash-on-delivery order of unknown amount: its collection keeps expected null and is never counted as a mismatch', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, mode: 'live', status: 'arrived_dropoff', paymentMode: 'cash_on_delivery' }));
      const codCollection = { expected: null, collected: 7_490, mismatch: false, courierId: 'cr_u', collectedAt: at(60) };
      const line = { id: nextId('led'), merchantId: m, mode: 'live' as const, orderId: o.id, kind: 'cod_collected' as const, amount: 7_490, expected: null, courierId: 'cr_u', at: at(60) };
      await store.orders.apply({ id: o.id, from: ['arrived_dropoff'], to: 'completed', patch: { codCollection }, event: transition(o, 'arrived_dropoff', 'completed', at(60)), ledger: line });
      expect((await store.orders.findById(o.id))?.codCollection).toStrictEqual(codCollection);
      const [listed] = await store.ledger.listCodCollections({ merchantId: m, mode: 'live', to: at(1000), limit: 10 });
      expect(listed).toMatchObject({ id: line.id, amount: 7_490 });
      expect(listed!.expected ?? null).toBeNull();
      expect(await store.ledger.merchantCodSums({ merchantId: m, mode: 'live', to: at(1000) })).toStrictEqual({ collected: 7_490, pending: 0, handedOver: 0, paidOut: 0, mismatches: 0 });
      expect(await store.ledger.courierCodSums({ courierId: 'cr_u' })).toStrictEqual({ collected: 7_490, pending: 0, handedOver: 0, paidOut: 0, mismatches: 0 });
    });

        /** A live merchant whose courier collected 10,000 CLP at a door, and a line maker. */
    async function collectedCash() {
      const m = await storeMerchant(store);
      const courierId = `cr_${nextId('x')}`;
      const line = (amount: number, extra: Partial<LedgerEntry>) => Object.assign({ id: nextId('led'), merchantId: m, mode: 'live' as const, orderId: null, kind: 'cod_settlement' as const, amount, at: at(10) }, extra) as LedgerEntry;
      const claim = line(10_000, { kind: 'cod_collected', orderId: `bk_${nextId('x')}`, expected: 10_000, courierId });
      await store.ledger.append(claim);
      return { m, courierId, line, claim };
    }

    /** A plan covering the claims oldest first (the domain's planCodHandOver does the same, with its checks). */
    const takeAll = (courierId: string, amount: number) => (book: CourierCodBook): LedgerEntry[] => {
      let left = amount - book.legacyHandedOver;
      return book.claims.flatMap(({ claim, handedOver }) => {
        const take = Math.min(claim.amount - handedOver, left);
        left -= Math.max(0, take);
        return take > 0 ? [{ id: nextId('led'), merchantId: claim.merchantId, mode: 'live' as const, orderId: claim.orderId, kind: 'cod_handover' as const, amount: take, courierId, at: at(20) }] : [];
      });
    };

    test('ledger.handOverCod gives the plan the courier\'s live claims that count, oldest first, with what was handed over against each; writes its lines', async () => {
      const { m, courierId, line, claim } = await collectedCash();
      const later = line(5_000, { kind: 'cod_collected', orderId: 'bk_later', expected: 5_000, courierId, at: at(30) });
      const waiting = line(10_000_000, { kind: 'cod_collected', orderId: 'bk_far', expected: 15_000, courierId, codState: 'pending_confirmation', at: at(15) });
      const sandbox = line(7_000, { kind: 'cod_collected', mode: 'test', orderId: 'bk_test', expected: 7_000, courierId, at: at(5) });
      for (const entry of [later, waiting, sandbox]) await store.ledger.append(entry);
      const seen: CourierCodBook[] = [];
      const first = await store.ledger.handOverCod({ courierId, plan: (book) => (seen.push(book), takeAll(courierId, 12_000)(book)) });
      expect(seen[0]).toStrictEqual({ claims: [{ claim, handedOver: 0 }, { claim: later, handedOver: 0 }], legacyHandedOver: 0 });
      expect(first.map((l) => [l.orderId, l.amount])).toEqual([[claim.orderId, 10_000], ['bk_later', 2_000]]);
      const second = await store.ledger.handOverCod({ courierId, plan: (book) => (seen.push(book), []) });
      expect(second).toEqual([]);
      expect(seen[1]!.claims.map((c) => c.handedOver)).toEqual([10_000, 2_000]);
      // A plan that throws writes nothing.
      await expect(store.ledger.handOverCod({ courierId, plan: () => { throw new Error('refused'); } })).rejects.toThrow('refused');
      // A courier's sums span its lines whatever the mode (a courier has one mode: this one is seeded with both).
      expect(await store.ledger.courierCodSums({ courierId })).toStrictEqual({ collected: 22_000, pending: 10_000_000, handedOver: 12_000, paidOut: 0, mismatches: 1 });
      expect(await store.ledger.merchantCodSums({ merchantId: m, mode: 'live', to: at(1000) })).toMatchObject({ collected: 15_000, pending: 10_000_000, handedOver: 12_000, paidOut: 0 });
      expect(await store.ledger.handedOverByOrder({ orderIds: [claim.orderId!, 'bk_later', 'bk_far'] })).toEqual(new Map([[claim.orderId!, 10_000], ['bk_later', 2_000]]));
    });

    test('ledger.resolveCodClaim confirms or rejects a waiting claim once; listCodClaims pages them by (at, id)', async () => {
      const { courierId, line, claim } = await collectedCash();
      const waiting = [1, 2, 3].map((i) => line(1_000_000 * i, { kind: 'cod_collected', orderId: `bk_far${i}`, expected: 15_000, courierId, codState: 'pending_confirmation', at: at(10 + i) }));
      for (const entry of waiting) await store.ledger.append(entry);
      expect(await store.ledger.findById(waiting[0]!.id)).toStrictEqual(waiting[0]);
      const mine = { state: 'pending_confirmation' as const, courierId };
      expect(await store.ledger.listCodClaims({ ...mine, limit: 10 })).toStrictEqual(waiting);
      expect(await store.ledger.listCodClaims({ ...mine, afterId: waiting[0]!.id, limit: 1 })).toStrictEqual([waiting[1]]);
      expect(await store.ledger.resolveCodClaim({ id: waiting[0]!.id, to: 'confirmed' })).toStrictEqual({ ...waiting[0], codState: 'confirmed' });
      expect(await store.ledger.resolveCodClaim({ id: waiting[0]!.id, to: 'rejected' })).toBeNull();
      expect(await store.ledger.resolveCodClaim({ id: waiting[1]!.id, to: 'rejected' })).toStrictEqual({ ...waiting[1], codState: 'rejected' });
      expect(await store.ledger.resolveCodClaim({ id: claim.id, to: 'confirmed' })).toBeNull(); // never waited
      expect(await store.ledger.listCodClaims({ ...mine, limit: 10 })).toStrictEqual([waiting[2]]);
      expect(await store.ledger.listCodClaims({ state: 'confirmed', courierId, limit: 10 })).toStrictEqual([{ ...waiting[0], codState: 'confirmed' }]);
      // Confirmed counts, rejected and waiting do not.
      expect(await store.ledger.courierCodSums({ courierId })).toMatchObject({ collected: 1_010_000, pending: 3_000_000 });
    });

    test('ledger.payOutCod writes a payout only up to the cash handed over for the merchant minus paid out', async () => {
      const { m, courierId, line } = await collectedCash();
      // Claimed is not handed over: nothing can be paid yet.
      expect(await store.ledger.payOutCod(line(1, {}))).toStrictEqual({ paid: false, handedOver: 0, paidOut: 0 });
      await store.ledger.handOverCod({ courierId, plan: takeAll(courierId, 6_000) });
      expect(await store.ledger.payOutCod(line(6_001, {}))).toStrictEqual({ paid: false, handedOver: 6_000, paidOut: 0 });
      expect(await store.ledger.payOutCod(line(4_000, {}))).toStrictEqual({ paid: true });
      expect(await store.ledger.payOutCod(line(2_001, {}))).toStrictEqual({ paid: false, handedOver: 6_000, paidOut: 4_000 });
      expect(await store.ledger.payOutCod(line(2_000, {}))).toStrictEqual({ paid: true });
      expect(await store.ledger.merchantCodSums({ merchantId: m, mode: 'live', to: at(1000) })).toMatchObject({ collected: 10_000, handedOver: 6_000, paidOut: 6_000 });
    });

    test('ledger.payOutCod: three payouts of 4,000 at once out of 10,000 handed over write two', async () => {
      const { m, courierId, line } = await collectedCash();
      await store.ledger.handOverCod({ courierId, plan: takeAll(courierId, 10_000) });
      const racing = await Promise.all([1, 2, 3].map(() => store.ledger.payOutCod(line(4_000, {}))));
      expect(racing.filter((r) => r.paid)).toHaveLength(2);
      expect(await store.ledger.merchantCodSums({ merchantId: m, mode: 'live', to: at(1000) })).toMatchObject({ handedOver: 10_000, paidOut: 8_000 });
    });

    test('ledger.handOverCod: two hand-overs of 6,000 at once out of 10,000 claimed cover it once', async () => {
      const { courierId } = await collectedCash();
      const planned = (book: CourierCodBook) => {
        const open = book.claims.reduce((n, c) => n + c.claim.amount - c.handedOver, 0);
        if (open < 6_000) throw new Error('more than held');
        return takeAll(courierId, 6_000)(book);
      };
      const racing = await Promise.allSettled([1, 2].map(() => store.ledger.handOverCod({ courierId, plan: planned })));
      expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await store.ledger.courierCodSums({ courierId })).toMatchObject({ collected: 10_000, handedOver: 6_000 });
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

    test('orders.addTip adds to the stored tip with its ledger entry and feed event, only from the given statuses; no event, sequence unchanged', async () => {
      const m = await storeMerchant(store);
      const proof = { driverId: 'cr_1', coords: { lat: -33.45, lng: -70.59 }, distanceM: 3, radiusM: 20, bypass: false, geofence: 'passed' as const, photoUrl: 'https://x.example/p.jpg', signatureUrl: 'https://x.example/s.png', deliveredAt: at(600) };
      const o = await created(order({ merchantId: m, status: 'completed', courierId: 'cr_1', proof, tip: 500 }));
      expect((await store.orders.findById(o.id))!.tip).toBe(500);
      const tipOf = (amount: number, when: string) => ({
        id: o.id, from: ['completed' as const], amount, maxTotal: 200_000,
        ledger: (u: Order) => ({ id: nextId('led'), merchantId: u.merchantId, mode: u.mode, orderId: u.id, kind: 'tip' as const, amount, at: when }),
        feed: (u: Order) => ({ id: nextId('evt'), merchantId: u.merchantId, mode: u.mode, type: 'order.tip_added' as const, orderId: u.id, sequence: u.sequence, body: JSON.stringify({ tip: u.tip }), at: when }),
      });
      const updated = await store.orders.addTip(tipOf(1000, at(700)));
      expect(updated).toStrictEqual({ ...o, tip: 1500 });
      expect(await store.orders.findById(o.id)).toStrictEqual({ ...o, tip: 1500 });
      // Another status: nothing written.
      expect(await store.orders.addTip({ ...tipOf(50, at(900)), from: ['new'] })).toBeNull();
      expect(await store.orders.addTip({ ...tipOf(50, at(900)), id: 'bk_missing' })).toBeNull();
      const ledger = (await store.ledger.listByMerchant({ merchantId: m, mode: 'live' })).filter((e) => e.orderId === o.id);
      expect(ledger.map((e) => [e.kind, e.amount])).toEqual([['charge', o.price], ['tip', 1000]]);
      const feed = await store.events.list({ merchantId: m, mode: 'live', after: 0, limit: 10 });
      expect(feed.filter((e) => e.type === 'order.tip_added').map((e) => [e.orderId, e.sequence, e.body])).toEqual([[o.id, 1, '{"tip":1500}']]);
      expect(await store.orders.listEvents(o.id)).toHaveLength(1);
      // Past the maximum: nothing written (1,500 + 501 > 2,000); up to it exactly: written.
      expect(await store.orders.addTip({ ...tipOf(501, at(900)), maxTotal: 2000 })).toBeNull();
      expect((await store.orders.addTip({ ...tipOf(500, at(900)), maxTotal: 2000 }))!.tip).toBe(2000);
      expect((await store.orders.findById(o.id))!.tip).toBe(2000);
    });

    test('orders.create writes every ledger entry it is given (the charge and a tip set at creation)', async () => {
      const m = await storeMerchant(store);
      const o = order({ merchantId: m, tip: 800 });
      const tipEntry = { id: nextId('led'), merchantId: m, mode: 'live' as const, orderId: o.id, kind: 'tip' as const, amount: 800, at: o.createdAt };
      expect(await store.orders.create({ ...creation(o), ledger: [creation(o).ledger!, tipEntry] })).toStrictEqual({ created: true });
      expect((await store.orders.findById(o.id))!.tip).toBe(800);
      const ledger = await store.ledger.listByMerchant({ merchantId: m, mode: 'live' });
      expect(ledger.map((e) => [e.kind, e.amount]).sort()).toEqual([['charge', o.price], ['tip', 800]]);
    });

    test('orders.addTip: concurrent tips on one order all count', async () => {
      const m = await storeMerchant(store);
      const o = await created(order({ merchantId: m, status: 'picked_up' }));
      const tip = (amount: number) => store.orders.addTip({
        id: o.id, from: ['picked_up'], amount, maxTotal: 200_000, ledger: () => null,
        feed: (u) => ({ id: nextId('evt'), merchantId: u.merchantId, mode: u.mode, type: 'order.tip_added', orderId: u.id, sequence: u.sequence, body: '{}', at: at(10) }),
      });
      await Promise.all([100, 200, 300, 400].map(tip));
      expect((await store.orders.findById(o.id))!.tip).toBe(1000);
    });

    test('orders.listDeliveredBy: the courier\'s completed orders delivered in [from, to), by delivery time, bounded', async () => {
      const m = await storeMerchant(store);
      const proofAt = (s: number) => ({ driverId: 'cr_a', coords: { lat: -33.45, lng: -70.59 }, distanceM: 3, radiusM: 20, bypass: false, geofence: 'passed' as const, photoUrl: '', signatureUrl: '', deliveredAt: at(s) });
      const late = await created(order({ merchantId: m, createdAt: at(0), status: 'completed', courierId: 'cr_a', proof: proofAt(900) }));
      const early = await created(order({ merchantId: m, createdAt: at(1), status: 'completed', courierId: 'cr_a', proof: proofAt(300) }));
      await created(order({ merchantId: m, createdAt: at(2), status: 'completed', courierId: 'cr_b', proof: proofAt(400) }));
      await created(order({ merchantId: m, createdAt: at(3), status: 'picked_up', courierId: 'cr_a' }));
      await created(order({ merchantId: m, createdAt: at(4), status: 'completed', courierId: 'cr_a', proof: proofAt(DAY) }));
      const ids = async (from: string, to: string, limit = 10) => (await store.orders.listDeliveredBy({ courierId: 'cr_a', from, to, limit })).map((x) => x.id);
      expect(await ids(at(0), at(DAY))).toEqual([early.id, late.id]);
      expect(await ids(at(0), at(DAY), 1)).toEqual([early.id]);
      expect(await ids(at(301), at(900))).toEqual([]);
      expect(await ids(at(300), at(901))).toEqual([early.id, late.id]);
      expect((await store.orders.listDeliveredBy({ courierId: 'cr_a', from: at(0), to: at(DAY), limit: 10 }))[0]).toStrictEqual(early);
    });

    checkSkips();
  });
}
