/**
 * Courier snapshots (src/domain/courier-snapshots.ts): what a courier socket's reports read
 * instead of the store, and every way a snapshot must be dropped — a courier.changed or
 * order.status_changed message, a resync, a bus that is not connected, the session's end, age —
 * plus the store decorator (courier-changes.ts) that publishes courier.changed for real SQLite writes.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/adapters/event-bus/memory.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { withCourierChanges } from '../../src/domain/courier-changes.js';
import { createCourierSnapshots, type CourierSnapshot } from '../../src/domain/courier-snapshots.js';
import type { BusMessage, EventBus } from '../../src/ports/event-bus.js';
import type { Store } from '../../src/ports/store.js';
import { makeDataDir } from '../helpers/app.js';
import { courier as courierFixture, order as orderFixture, creation, storeMerchant, transition } from '../contract/fixtures.js';

const delivered = () => new Promise((resolve) => setImmediate(resolve));

/** The in-process bus, with the connection state and resyncs a Redis bus has, set by the test. */
function testBus() {
  const resyncs = new Set<() => void>();
  const state = { up: true };
  const bus: EventBus = Object.assign(createMemoryEventBus(), {
    connected: () => state.up,
    onResync: (handler: () => void) => (resyncs.add(handler), () => void resyncs.delete(handler)),
  });
  return { bus, state, resync: () => resyncs.forEach((h) => h()) };
}

describe('courier snapshots', () => {
  let reads: number;
  let now: number;
  let stored: CourierSnapshot;
  const c1 = courierFixture({ status: 'busy' });
  const o1 = orderFixture({ merchantId: 'mer_1', courierId: c1.id, status: 'assigned' });

  function make(bus: EventBus) {
    return createCourierSnapshots({ bus, nowMs: () => now, maxAgeMs: 5000, read: async () => (reads++, stored) });
  }
  beforeEach(() => {
    reads = 0;
    now = 1_000_000;
    stored = { courier: c1, orders: [o1] };
  });

  it('reads a held courier once, and a courier nobody holds every time', async () => {
    const snapshots = make(testBus().bus);
    await snapshots.get(c1.id);
    await snapshots.get(c1.id);
    expect(reads).toBe(2);
    snapshots.hold(c1.id);
    expect(await snapshots.get(c1.id)).toBe(stored);
    expect(await snapshots.get(c1.id)).toBe(stored);
    expect(reads).toBe(3);
  });

  it.each<[string, BusMessage]>([
    ['courier.changed for the courier', { type: 'courier.changed', courierId: c1.id, orderIds: [], at: 'x' }],
    ['courier.changed for one of its orders (no courier: a release)', { type: 'courier.changed', courierId: null, orderIds: [o1.id], at: 'x' }],
    [
      'order.status_changed of one of its orders, now without courier',
      { type: 'order.status_changed', orderId: o1.id, merchantId: 'mer_1', mode: 'test', trackingNumber: 't', orderNumber: 'n', from: 'assigned', status: 'cancelled', sequence: 3, courierId: null, at: 'x' },
    ],
  ])('%s drops the snapshot: the next get reads the store', async (_what, message) => {
    const { bus } = testBus();
    const snapshots = make(bus);
    snapshots.hold(c1.id);
    await snapshots.get(c1.id);
    await bus.publish(message);
    await delivered();
    await snapshots.get(c1.id);
    expect(reads).toBe(2);
  });

  it("another courier's change leaves the snapshot", async () => {
    const { bus } = testBus();
    const snapshots = make(bus);
    snapshots.hold(c1.id);
    await snapshots.get(c1.id);
    await bus.publish({ type: 'courier.changed', courierId: 'cou_other', orderIds: ['ord_other'], at: 'x' });
    await delivered();
    await snapshots.get(c1.id);
    expect(reads).toBe(1);
  });

  it('while the bus is not connected every get reads the store, and what was kept before is never served again', async () => {
    const { bus, state } = testBus();
    const snapshots = make(bus);
    snapshots.hold(c1.id);
    const before = await snapshots.get(c1.id);
    state.up = false;
    await snapshots.get(c1.id);
    await snapshots.get(c1.id);
    expect(reads).toBe(3);
    state.up = true;
    stored = { courier: { ...c1, accountStatus: 'disabled' }, orders: [] };
    const after = await snapshots.get(c1.id);
    expect(after).not.toBe(before);
    expect(after?.courier.accountStatus).toBe('disabled');
  });

  it('a resync (the bus is back after an outage) drops every snapshot', async () => {
    const { bus, resync } = testBus();
    const snapshots = make(bus);
    snapshots.hold(c1.id);
    await snapshots.get(c1.id);
    resync();
    await snapshots.get(c1.id);
    expect(reads).toBe(2);
  });

  it('a read that a change overtook is not kept', async () => {
    const { bus } = testBus();
    let release!: () => void;
    const snapshots = createCourierSnapshots({
      bus,
      nowMs: () => now,
      read: async () => {
        reads++;
        if (reads === 1) await new Promise<void>((resolve) => (release = resolve));
        return stored;
      },
    });
    snapshots.hold(c1.id);
    const first = snapshots.get(c1.id);
    await delivered();
    await bus.publish({ type: 'courier.changed', courierId: c1.id, orderIds: [], at: 'x' });
    await delivered();
    release();
    await first;
    await snapshots.get(c1.id);
    expect(reads).toBe(2);
  });

  it('is read again after maxAgeMs, and dropped when the last session lets go', async () => {
    const snapshots = make(testBus().bus);
    const releases = [snapshots.hold(c1.id), snapshots.hold(c1.id)];
    await snapshots.get(c1.id);
    now += 4999;
    await snapshots.get(c1.id);
    expect(reads).toBe(1);
    now += 1;
    await snapshots.get(c1.id);
    expect(reads).toBe(2);
    releases[0]!();
    expect(snapshots.stats()).toEqual({ held: 1, kept: 1 });
    releases[1]!();
    expect(snapshots.stats()).toEqual({ held: 0, kept: 0 });
  });

  it("moved() gives the report's position to the snapshot it used, never to one read since", async () => {
    const { bus } = testBus();
    const snapshots = make(bus);
    snapshots.hold(c1.id);
    const used = (await snapshots.get(c1.id))!;
    snapshots.moved(used, { ...c1, locationAt: 'later' });
    const next = (await snapshots.get(c1.id))!;
    expect(next.courier.locationAt).toBe('later');
    await bus.publish({ type: 'courier.changed', courierId: c1.id, orderIds: [], at: 'x' });
    await delivered();
    stored = { courier: { ...c1, status: 'available' }, orders: [] };
    const fresh = (await snapshots.get(c1.id))!;
    snapshots.moved(next, { ...next.courier, locationAt: 'stale' });
    expect((await snapshots.get(c1.id))!.courier).toMatchObject({ status: 'available', locationAt: c1.locationAt });
    expect(reads).toBe(2);
    expect(fresh.courier.status).toBe('available');
  });
});

describe('courier changes published by the store (SQLite on disk)', () => {
  let dataDir: string;
  let store: Store;
  let messages: BusMessage[];
  beforeEach(() => {
    dataDir = makeDataDir();
    const bus = createMemoryEventBus();
    messages = [];
    bus.subscribe((m) => messages.push(m));
    store = withCourierChanges(createSqliteStore({ file: join(dataDir, 'changes.sqlite') }), { bus, now: () => new Date().toISOString() });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes courier.changed for each applied courier and order write, nothing for one not applied', async () => {
    const c = courierFixture({ status: 'available' });
    await store.couriers.insert(c);
    const o = orderFixture({ merchantId: await storeMerchant(store), courierId: c.id, status: 'assigned' });
    await store.orders.create(creation(o));
    await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], job: { kind: 'order', id: o.id }, updatedAt: new Date().toISOString() });
    await store.couriers.setStatus({ id: c.id, status: 'busy', from: ['available'], updatedAt: new Date().toISOString() }); // not applied
    await store.couriers.setAccountStatus({ id: c.id, accountStatus: 'disabled', updatedAt: new Date().toISOString() });
    await store.couriers.replaceTokenHash({ id: c.id, tokenHash: 'f'.repeat(64), updatedAt: new Date().toISOString() });
    const released = transition(o, 'assigned', 'new', new Date().toISOString(), { kind: 'admin', id: null });
    await store.orders.apply({ id: o.id, from: ['assigned'], to: 'new', patch: { courierId: null }, event: released });
    await store.couriers.setLocations([{ id: c.id, location: { lat: -33.4, lng: -70.6 }, at: new Date().toISOString(), prompt: true }]);
    await delivered();
    const changes = messages.filter((m) => m.type === 'courier.changed').map((m) => m.type === 'courier.changed' && [m.courierId, m.orderIds]);
    expect(changes).toEqual([[c.id, []], [c.id, []], [c.id, []], [null, [o.id]]]);
  });
});
