/**
 * Failed delivery attempts and the return leg (issue #30 item 2) in the domain: the table's new
 * moves, the policy's outcome, the return fee in the live ledger — against a SQLite store on disk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/adapters/event-bus/memory.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { createFailedAttemptService, MAX_DELIVERY_ATTEMPTS, outcomeOf, type FailedAttemptService } from '../../src/domain/orders/failed-attempts.js';
import { canTransition, isOrderActive, stepsTo } from '../../src/domain/orders/state-machine.js';
import { createOrderTransitions } from '../../src/domain/orders/transitions.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { FailedAttemptPolicy, Order, OrderStatus } from '../../src/domain/types.js';
import { createWebhookOutbox } from '../../src/domain/webhooks/outbox.js';
import { eventShape, flatShape } from '../../src/domain/webhooks/payloads.js';
import { createUlidSource } from '../../src/ports/ids.js';
import type { Store } from '../../src/ports/store.js';
import { courier, creation, order, storeMerchant } from '../contract/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'exd-failed-attempts-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the table: failed attempts and the return leg', () => {
  it('a failed attempt is reported only with the parcel on board, and leads on to retry, return or disposal', () => {
    for (const from of ['picked_up', 'arrived_dropoff'] as const) expect(canTransition(from, 'delivery_failed')).toBe(true);
    for (const from of ['new', 'assigned', 'arrived_pickup', 'completed', 'cancelled', 'returning', 'returned', 'disposed', 'delivery_failed'] as const) {
      expect(stepsTo(from, 'delivery_failed'), from).toBeNull();
    }
    expect([...['picked_up', 'returning', 'disposed']].every((to) => canTransition('delivery_failed', to as OrderStatus))).toBe(true);
    expect(canTransition('delivery_failed', 'completed')).toBe(false);
    expect(stepsTo('returning', 'returned')).toEqual(['returned']);
    expect(stepsTo('returning', 'completed')).toBeNull();
    expect(stepsTo('returning', 'cancelled')).toBeNull();
    expect(isOrderActive({ status: 'returning' })).toBe(true);
    expect(isOrderActive({ status: 'returned' })).toBe(false);
    expect(isOrderActive({ status: 'disposed' })).toBe(false);
  });

  it('the policy decides; a retry gives up after the third attempt and returns the parcel', () => {
    expect(outcomeOf({ policy: 'return', attempts: 1 })).toBe('returning');
    expect(outcomeOf({ policy: 'dispose', attempts: 1 })).toBe('disposed');
    expect(outcomeOf({ policy: 'retry', attempts: 1 })).toBe('picked_up');
    expect(outcomeOf({ policy: 'retry', attempts: MAX_DELIVERY_ATTEMPTS - 1 })).toBe('picked_up');
    expect(outcomeOf({ policy: 'retry', attempts: MAX_DELIVERY_ATTEMPTS })).toBe('returning');
  });
});

describe('the failed attempt service on a SQLite store', () => {
  let store: Store;
  let service: FailedAttemptService;
  const ended: string[] = [];
  const tariff = Object.assign({}, DEFAULT_SANTIAGO_TARIFF, { return_fee: 1500 });

  beforeEach(() => {
    store = createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) });
    const ids = createUlidSource();
    const clock = { now: () => new Date() };
    const outbox = createWebhookOutbox({ store, clock, ids, publicBaseUrl: () => 'http://x' });
    const transitions = createOrderTransitions({ store, bus: createMemoryEventBus(), clock, ids, outbox });
    ended.length = 0;
    service = createFailedAttemptService({ orders: { afterOrderEnded: async (o) => void ended.push(o.id) }, transitions, clock, ids, tariff });
  });
  afterEach(() => store.close());

  async function stored(status: OrderStatus, policy?: FailedAttemptPolicy, mode: 'live' | 'test' = 'live'): Promise<Order> {
    const merchantId = await storeMerchant(store);
    const rider = courier({ mode });
    await store.couriers.insert(rider);
    const o = Object.assign(order({ merchantId, status, courierId: rider.id, mode }), policy && { failedAttemptPolicy: policy });
    await store.orders.create(creation(o));
    return o;
  }
  const input = { reason: 'recipient_absent' as const, note: 'Nadie en casa', coords: { lat: -33.4154, lng: -70.5837 } };
  const history = async (id: string) => (await store.orders.listEvents(id)).map((e) => [e.to, e.reason]);
  const ledger = async (o: Order) => (await store.ledger.listByMerchant({ merchantId: o.merchantId, mode: o.mode })).filter((e) => e.orderId === o.id).map((e) => [e.kind, e.amount]);

  it('return (the default): delivery_failed then returning, the attempt kept, the return fee charged once; the proof at the pickup ends it', async () => {
    const o = await stored('arrived_dropoff');
    const returning = await service.reportFailedAttempt({ order: o, courierId: o.courierId!, input });
    expect(returning.status).toBe('returning');
    expect(returning.failedAttempts).toEqual([expect.objectContaining({ reason: 'recipient_absent', note: 'Nadie en casa', outcome: 'returning', courierId: o.courierId })]);
    expect(returning.returnLeg).toMatchObject({ fee: 1500, proof: null });
    expect((await history(o.id)).slice(1)).toEqual([['delivery_failed', 'recipient_absent'], ['returning', null]]);
    const before = await ledger(o);
    expect(before.filter(([kind, amount]) => kind === 'charge' && amount === 1500)).toHaveLength(1);
    expect(ended).toEqual([]);

    // The pickup fixture is street-precise: far from it is refused, at it is accepted.
    const far = await service.confirmReturn({ order: returning, courierId: o.courierId!, input: { coords: input.coords, photoUrl: 'https://x/p.jpg', signatureUrl: 'https://x/s.png', geofenceRadius: 20, bypass: false } }).catch((e: unknown) => e);
    expect(far).toMatchObject({ code: 'GEOFENCE_FAILED' });
    const at = { lat: o.pickup.lat, lng: o.pickup.lng };
    const returned = await service.confirmReturn({ order: returning, courierId: o.courierId!, input: { coords: at, photoUrl: 'https://x/p.jpg', signatureUrl: 'https://x/s.png', geofenceRadius: 20, bypass: false } });
    expect(returned.status).toBe('returned');
    expect(returned.returnLeg).toMatchObject({ fee: 1500, proof: { geofence: 'passed', photoUrl: 'https://x/p.jpg', driverId: o.courierId } });
    expect(ended).toEqual([o.id]);
    expect(await ledger(o)).toEqual(before);
    // Refused once over, as every other move the table forbids.
    await expect(service.confirmReturn({ order: returned, courierId: o.courierId!, input: { coords: at, photoUrl: 'https://x/p.jpg', signatureUrl: 'https://x/s.png', geofenceRadius: 20, bypass: false } }))
      .rejects.toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
  });

  it('retry: back to picked_up (the courier keeps the parcel) until the third attempt, which returns it', async () => {
    let current = await stored('picked_up', 'retry');
    for (let i = 1; i < MAX_DELIVERY_ATTEMPTS; i++) {
      current = await service.reportFailedAttempt({ order: current, courierId: current.courierId!, input });
      expect(current.status).toBe('picked_up');
    }
    current = await service.reportFailedAttempt({ order: current, courierId: current.courierId!, input: Object.assign({}, input, { reason: 'refused' as const }) });
    expect(current.status).toBe('returning');
    expect(current.failedAttempts?.map((a) => a.outcome)).toEqual(['picked_up', 'picked_up', 'returning']);
  });

  it('dispose: ends disposed, frees the courier, no fee; test mode never charges a return', async () => {
    const o = await stored('picked_up', 'dispose');
    const disposed = await service.reportFailedAttempt({ order: o, courierId: o.courierId!, input });
    expect(disposed.status).toBe('disposed');
    expect(disposed.returnLeg ?? null).toBeNull();
    expect(ended).toEqual([o.id]);
    const t = await stored('picked_up', 'return', 'test');
    expect((await service.reportFailedAttempt({ order: t, courierId: t.courierId!, input })).returnLeg?.fee).toBe(1500);
    expect(await ledger(t)).toEqual([]);
  });

  it('a report cut off after delivery_failed is finished by the next report, with the outcome recorded then (no second attempt)', async () => {
    const o = await stored('arrived_dropoff', 'dispose');
    const attempt = { reason: 'unsafe' as const, note: null, photoProofId: null, coords: input.coords, courierId: o.courierId!, at: o.createdAt, outcome: 'disposed' as const };
    const stuck = await store.orders.apply({ id: o.id, from: ['arrived_dropoff'], to: 'delivery_failed', patch: { failedAttempts: [attempt] },
      event: { id: 'evt_stuck', orderId: o.id, merchantId: o.merchantId, mode: o.mode, from: 'arrived_dropoff', to: 'delivery_failed', actor: { kind: 'courier', id: o.courierId }, location: null, reason: 'unsafe', at: o.createdAt } });
    const finished = await service.reportFailedAttempt({ order: stuck!, courierId: o.courierId!, input });
    expect(finished.status).toBe('disposed');
    expect(finished.failedAttempts).toEqual([attempt]);
    expect(ended).toEqual([o.id]);
  });

  it('refuses a failed attempt before the pickup or after the end with INVALID_STATUS_TRANSITION, leaving no trace', async () => {
    for (const status of ['assigned', 'arrived_pickup', 'completed', 'returning'] as const) {
      const o = await stored(status);
      await expect(service.reportFailedAttempt({ order: o, courierId: o.courierId!, input })).rejects.toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
      expect(await store.orders.listEvents(o.id)).toHaveLength(1);
    }
  });

  it('both webhook shapes and the feed carry the attempt, the return fee, and the proof of the return', async () => {
    const o = await stored('picked_up');
    const returning = await service.reportFailedAttempt({ order: o, courierId: o.courierId!, input });
    const context = { order: returning, courier: null, sequence: 3, at: returning.updatedAt, trackingUrl: 'http://x/t', courierImageUrl: '' };
    const attempt = { reason: 'recipient_absent', note: 'Nadie en casa', photo_url: null, coords: input.coords, courier_id: o.courierId, outcome: 'returning' };
    expect(eventShape('order.status_changed', context)).toMatchObject({ status: 'returning', failed_attempt: attempt, attempts: 1, return_fee: 1500 });
    expect(flatShape(context)).toMatchObject({ status: 'returning', failed_attempt: attempt, attempts: 1, return_fee: 1500 });
    const feed = await store.events.list({ merchantId: o.merchantId, mode: o.mode, after: 0, limit: 10 });
    expect(feed.map((e) => JSON.parse(e.body))).toEqual(expect.arrayContaining([
      expect.objectContaining({ status: 'delivery_failed', failed_attempt: expect.objectContaining({ reason: 'recipient_absent' }), attempts: 1 }),
      expect.objectContaining({ status: 'returning', return_fee: 1500 }),
    ]));
  });
});
