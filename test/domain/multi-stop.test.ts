/**
 * Multi-stop orders (issue #30 item 1) in the domain: the route plan (never longer than the given
 * order: a property), pricing along the route, the stops' table, and the stop moves against a SQLite
 * store on disk (arrive, deliver with the stop's own PIN and geofence, fail, complete after the last).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/adapters/event-bus/memory.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { SERVICE_AREA } from '../../src/domain/geo.js';
import { createDeliveryService, type DeliveryService } from '../../src/domain/orders/delivery.js';
import { createIdempotencyService } from '../../src/domain/idempotency.js';
import { createFailedAttemptService, type FailedAttemptService } from '../../src/domain/orders/failed-attempts.js';
import type { OrderService } from '../../src/domain/orders/service.js';
import { canTransition } from '../../src/domain/orders/state-machine.js';
import { arriveAtStop } from '../../src/domain/orders/stop-moves.js';
import { currentStop, pathLengthM, planRoute, STOP_TRANSITIONS } from '../../src/domain/orders/stops.js';
import { createOrderTransitions, type OrderTransitions } from '../../src/domain/orders/transitions.js';
import { priceRoute } from '../../src/domain/pricing.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { LatLng, Order, OrderStop } from '../../src/domain/types.js';
import { createWebhookOutbox } from '../../src/domain/webhooks/outbox.js';
import { createUlidSource } from '../../src/ports/ids.js';
import type { Store } from '../../src/ports/store.js';
import { courier, creation, nextId, order, storeMerchant } from '../contract/fixtures.js';

const point = fc.record({
  lat: fc.double({ min: SERVICE_AREA.minLat, max: SERVICE_AREA.maxLat, noNaN: true }),
  lng: fc.double({ min: SERVICE_AREA.minLng, max: SERVICE_AREA.maxLng, noNaN: true }),
});
const lengthOf = (origin: LatLng, stops: LatLng[], route: number[]) => pathLengthM([origin, ...route.map((i) => stops[i]!)]);

describe('the route plan', () => {
  it('optimized is a permutation of the stops and never longer than the given order (property)', () => {
    fc.assert(
      fc.property(point, fc.array(point, { minLength: 1, maxLength: 10 }), (origin, stops) => {
        const route = planRoute({ origin, stops, route: 'optimized' });
        expect([...route].sort((a, b) => a - b)).toEqual(stops.map((_, i) => i));
        expect(lengthOf(origin, stops, route)).toBeLessThanOrEqual(lengthOf(origin, stops, stops.map((_, i) => i)));
      }),
    );
  });

  it('given keeps the order; optimized reorders a zig-zag into the straight line', () => {
    const origin = { lat: -33.40, lng: -70.60 };
    const stops = [{ lat: -33.43, lng: -70.60 }, { lat: -33.41, lng: -70.60 }, { lat: -33.44, lng: -70.60 }, { lat: -33.42, lng: -70.60 }];
    expect(planRoute({ origin, stops, route: 'given' })).toEqual([0, 1, 2, 3]);
    expect(planRoute({ origin, stops, route: 'optimized' })).toEqual([1, 3, 0, 2]);
    // Already the shortest: the given order is kept (not strictly shorter otherwise).
    expect(planRoute({ origin, stops: [stops[1]!, stops[3]!], route: 'optimized' })).toEqual([0, 1]);
  });

  it('prices along the path with the extra-stop fee per drop-off after the first', () => {
    const now = new Date('2026-03-14T15:00:00.000Z');
    const origin = { lat: -33.40, lng: -70.60 };
    const [a, b] = [{ lat: -33.41, lng: -70.60 }, { lat: -33.42, lng: -70.60 }];
    const single = priceRoute({ tariff: DEFAULT_SANTIAGO_TARIFF, origin, destination: b, weightKg: 1, prepTimeMins: 0, now });
    const twoStops = priceRoute({ tariff: DEFAULT_SANTIAGO_TARIFF, origin, destination: b, via: [a], weightKg: 1, prepTimeMins: 0, now });
    // a lies on the straight line: the same distance, plus one extra stop's fee.
    expect(Math.abs(twoStops.distanceM - single.distanceM)).toBeLessThanOrEqual(1);
    expect(twoStops.price - single.price).toBeGreaterThanOrEqual(DEFAULT_SANTIAGO_TARIFF.extra_stop_fee - 10);
    expect(twoStops.price - single.price).toBeLessThanOrEqual(DEFAULT_SANTIAGO_TARIFF.extra_stop_fee + 10);
  });

  it('the stops table: pending → arrived → delivered | failed; the order goes back to picked_up between stops', () => {
    expect(STOP_TRANSITIONS).toEqual({ pending: ['arrived'], arrived: ['delivered', 'failed'], delivered: [], failed: [] });
    expect(canTransition('arrived_dropoff', 'picked_up')).toBe(true);
  });
});

describe('stop moves on a SQLite store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'exd-multi-stop-'));
  let n = 0;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let store: Store;
  let transitions: OrderTransitions;
  let delivery: DeliveryService;
  let failures: FailedAttemptService;
  const ended: string[] = [];

  beforeEach(() => {
    store = createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) });
    const ids = createUlidSource();
    const clock = { now: () => new Date() };
    const outbox = createWebhookOutbox({ store, clock, ids, publicBaseUrl: () => 'http://x' });
    transitions = createOrderTransitions({ store, bus: createMemoryEventBus(), clock, ids, outbox });
    ended.length = 0;
    const orders = { afterOrderEnded: async (o: Order) => void ended.push(o.id) } as unknown as OrderService;
    delivery = createDeliveryService({ orders, transitions, clock, store, ids, idempotency: createIdempotencyService({ store, clock, ids }) });
    failures = createFailedAttemptService({ orders, transitions, clock, ids, tariff: DEFAULT_SANTIAGO_TARIFF });
  });
  afterEach(() => store.close());

  const spots = [{ lat: -33.4300, lng: -70.6000 }, { lat: -33.4400, lng: -70.6100 }, { lat: -33.4500, lng: -70.6200 }];

  async function stored(): Promise<Order> {
    const merchantId = await storeMerchant(store);
    const rider = courier();
    await store.couriers.insert(rider);
    const base = order({ merchantId, status: 'picked_up', courierId: rider.id });
    const stops: OrderStop[] = spots.map((p, index) => ({
      id: nextId('stp'), index, givenIndex: index, location: Object.assign({}, base.dropoff, p, { precision: 'coordinates' as const }),
      contact: { name: `C${index}`, phone: '+56911112222' }, reference: null, items: [], status: 'pending', eta: base.estimatedDeliveryAt,
      proof: null, failure: null, arrivedAt: null,
    }));
    const stopPins = Object.fromEntries(stops.map((s, i) => [s.id, { pin: `000${i}`, failedAttempts: 0, issuedAt: base.createdAt }]));
    const o = Object.assign(base, { stops, stopPins, route: 'given' as const, dropoff: stops[2]!.location });
    await store.orders.create(creation(o));
    return o;
  }
  const deliverAt = (o: Order, index: number, extra: Record<string, unknown> = {}) =>
    delivery.deliverOrder({
      order: o, actor: { kind: 'courier', id: o.courierId! }, courierId: o.courierId!,
      input: { driverId: o.courierId!, coords: spots[index]!, photoUrl: 'https://x/p.jpg', signatureUrl: 'https://x/s.png', geofenceRadius: 20, bypass: false, pin: `000${index}`, ...extra },
    });
  const history = async (id: string) => (await store.orders.listEvents(id)).map((e) => e.to);

  it('serves the stops in route order: arrive, deliver (own PIN and geofence), fail, then the last completes the order', async () => {
    const o = await stored();
    // Another stop than the current one, a wrong stop PIN, and far from the current stop: refused.
    await expect(deliverAt(o, 1, { stopId: o.stops![1]!.id })).rejects.toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
    await expect(deliverAt(o, 0, { pin: '0001' })).rejects.toMatchObject({ code: 'DELIVERY_PIN_INVALID' });
    await expect(deliverAt(o, 0, { coords: spots[2] })).rejects.toMatchObject({ code: 'GEOFENCE_FAILED' });

    const arrived = await arriveAtStop({ transitions, order: o, stopId: o.stops![0]!.id, actor: { kind: 'courier', id: o.courierId }, location: spots[0]!, at: new Date().toISOString() });
    expect(arrived.status).toBe('arrived_dropoff');
    expect(arrived.stops!.map((s) => s.status)).toEqual(['arrived', 'pending', 'pending']);
    const first = await deliverAt(arrived, 0);
    expect(first.order.status).toBe('picked_up');
    expect(first.order.stops![0]).toMatchObject({ status: 'delivered', proof: { geofence: 'passed', photoUrl: 'https://x/p.jpg' } });
    expect(first.order.stopPins![o.stops![0]!.id]!.failedAttempts).toBe(1);
    expect(currentStop(first.order)!.id).toBe(o.stops![1]!.id);

    // A failed stop: no policy, no return leg; on to the next stop.
    const failed = await failures.reportFailedAttempt({ order: first.order, courierId: o.courierId!, input: { reason: 'recipient_absent', coords: spots[1]! } });
    expect(failed.status).toBe('picked_up');
    expect(failed.stops![1]).toMatchObject({ status: 'failed', failure: { reason: 'recipient_absent', courierId: o.courierId } });
    expect(failed.returnLeg).toBeUndefined();
    expect(ended).toEqual([]);

    const last = await deliverAt(failed, 2, { stopId: o.stops![2]!.id });
    expect(last.order.status).toBe('completed');
    expect(last.order.proof).toEqual(last.order.stops![2]!.proof);
    expect(ended).toEqual([o.id]);
    expect(await history(o.id)).toEqual(['picked_up', 'arrived_dropoff', 'picked_up', 'arrived_dropoff', 'picked_up', 'arrived_dropoff', 'completed']);
    // Over: every door refuses.
    await expect(deliverAt(last.order, 2)).rejects.toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
  });

  it('a single drop-off order refuses stop_id', async () => {
    const merchantId = await storeMerchant(store);
    const rider = courier();
    await store.couriers.insert(rider);
    const o = order({ merchantId, status: 'arrived_dropoff', courierId: rider.id });
    await store.orders.create(creation(o));
    await expect(
      delivery.deliverOrder({ order: o, actor: { kind: 'courier', id: rider.id }, input: { driverId: rider.id, coords: o.dropoff, photoUrl: 'https://x/p', signatureUrl: 'https://x/s', geofenceRadius: 20, bypass: true, stopId: 'stp_x' } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
