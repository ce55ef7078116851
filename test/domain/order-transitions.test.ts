import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/adapters/event-bus/memory.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { AppError } from '../../src/domain/errors.js';
import { stepsTo, TRANSITIONS } from '../../src/domain/orders/state-machine.js';
import { createOrderTransitions, type OrderTransitions } from '../../src/domain/orders/transitions.js';
import { ORDER_STATUSES, type Order, type OrderStatus } from '../../src/domain/types.js';
import { createWebhookOutbox } from '../../src/domain/webhooks/outbox.js';
import type { BusMessage } from '../../src/ports/event-bus.js';
import { createUlidSource } from '../../src/ports/ids.js';
import type { Store } from '../../src/ports/store.js';
import { courier, creation, order, storeMerchant } from '../contract/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'exd-transitions-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the state machine table', () => {
  it('allows a skipped arrival only on the way to the next move (picked_up from assigned, completed from picked_up)', () => {
    expect(stepsTo('assigned', 'picked_up')).toEqual(['arrived_pickup', 'picked_up']);
    expect(stepsTo('picked_up', 'completed')).toEqual(['arrived_dropoff', 'completed']);
    expect(stepsTo('new', 'picked_up')).toBeNull();
    expect(stepsTo('assigned', 'completed')).toBeNull();
    expect(stepsTo('arrived_pickup', 'cancelled')).toEqual(['cancelled']);
    expect(stepsTo('picked_up', 'cancelled')).toBeNull();
  });

  it('every status can be left except the terminal ones', () => {
    const terminal = ['completed', 'cancelled', 'returned', 'disposed'];
    for (const status of ORDER_STATUSES) expect(TRANSITIONS[status].length === 0, status).toBe(terminal.includes(status));
  });
});

describe('transition(): the one place the table is enforced', () => {
  let store: Store;
  let transitions: OrderTransitions;
  let published: BusMessage[];

  beforeEach(async () => {
    store = createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) });
    const bus = createMemoryEventBus();
    published = [];
    bus.subscribe((m) => published.push(m));
    const ids = createUlidSource();
    const clock = { now: () => new Date() };
    transitions = createOrderTransitions({ store, bus, clock, ids, outbox: createWebhookOutbox({ store, clock, ids, publicBaseUrl: () => 'http://x' }) });
  });
  afterEach(() => store.close());

  async function stored(status: OrderStatus): Promise<Order> {
    const merchantId = await storeMerchant(store);
    const rider = courier({ mode: 'live' });
    await store.couriers.insert(rider);
    const o = order({ merchantId, status, courierId: status === 'new' ? null : rider.id });
    await store.orders.create(creation(o));
    return o;
  }
  const actor = { kind: 'system', id: null } as const;

  const forbidden: Array<[OrderStatus, OrderStatus, string]> = [
    ['new', 'picked_up', 'INVALID_STATUS_TRANSITION'],
    ['picked_up', 'cancelled', 'ORDER_NOT_CANCELLABLE'],
    ['completed', 'cancelled', 'ORDER_NOT_CANCELLABLE'],
    ['cancelled', 'assigned', 'INVALID_STATUS_TRANSITION'],
    ['arrived_dropoff', 'new', 'INVALID_STATUS_TRANSITION'],
  ];
  it.each(forbidden)('refuses %s → %s with %s and leaves no trace', async (from, to, code) => {
    const o = await stored(from);
    const error = await transitions.transition({ order: o, to, actor }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code, message: expect.stringContaining(from) });
    expect(await transitions.tryTransition({ order: o, to, actor })).toBeNull();
    expect((await store.orders.findById(o.id))?.status).toBe(from);
    expect(await store.orders.listEvents(o.id)).toHaveLength(1);
    expect(published).toEqual([]);
  });

  it('refuses a move that was legal when the order was read but no longer is (a lost race), from the status found', async () => {
    const o = await stored('assigned');
    await transitions.transition({ order: o, to: 'picked_up', actor });
    await expect(transitions.transition({ order: o, to: 'cancelled', actor })).rejects.toMatchObject({ code: 'ORDER_NOT_CANCELLABLE', message: expect.stringContaining('picked_up') });
    expect(await transitions.tryTransition({ order: o, to: 'new', actor })).toBeNull();
    expect((await store.orders.listEvents(o.id)).map((e) => e.to)).toEqual(['assigned', 'arrived_pickup', 'picked_up']);
  });

  it('settles a re-planned move by the status it really leaves: a cancel read as assigned, found at the pickup, pays the pickup fee', async () => {
    const o = await stored('assigned');
    await transitions.transition({ order: o, to: 'arrived_pickup', actor });
    const seen: OrderStatus[] = [];
    const fee = (status: OrderStatus) => (status === 'arrived_pickup' ? 1990 : 990);
    const moved = await transitions.transition({
      order: o, to: 'cancelled', actor,
      settle: (from) => {
        seen.push(from.status);
        return { patch: { cancellation: { reason: null, at: from.updatedAt, fee: fee(from.status) } }, ledger: null };
      },
    });
    expect(seen).toEqual(['assigned', 'arrived_pickup']);
    expect(moved.cancellation?.fee).toBe(1990);
    expect((await store.orders.findById(o.id))?.cancellation?.fee).toBe(1990);
  });

  it('plans again from the status found when the move is still legal from it, and records a skipped arrival first', async () => {
    const o = await stored('assigned');
    await transitions.transition({ order: o, to: 'arrived_pickup', actor });
    // Read as assigned; the pickup from arrived_pickup is one move.
    const picked = await transitions.transition({ order: o, to: 'picked_up', actor, reason: 'r' });
    expect(picked.status).toBe('picked_up');
    const done = await transitions.transition({ order: picked, to: 'completed', actor, reason: 'done' });
    const events = await store.orders.listEvents(o.id);
    expect(events.map((e) => [e.from, e.to, e.reason])).toEqual([
      [null, 'assigned', null],
      ['assigned', 'arrived_pickup', null],
      ['arrived_pickup', 'picked_up', 'r'],
      ['picked_up', 'arrived_dropoff', null],
      ['arrived_dropoff', 'completed', 'done'],
    ]);
    expect(done.sequence).toBe(5);
    expect(published.map((m) => m.type === 'order.status_changed' && [m.from, m.status])).toEqual([
      ['assigned', 'arrived_pickup'],
      ['arrived_pickup', 'picked_up'],
      ['picked_up', 'arrived_dropoff'],
      ['arrived_dropoff', 'completed'],
    ]);
  });
});

describe('transition() after a lost race, for a courier', () => {
  it("does not re-plan a courier's move on an order that was given to another courier meanwhile", async () => {
    const store = createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) });
    try {
      const ids = createUlidSource();
      const clock = { now: () => new Date() };
      const transitions = createOrderTransitions({ store, bus: createMemoryEventBus(), clock, ids, outbox: createWebhookOutbox({ store, clock, ids, publicBaseUrl: () => 'http://x' }) });
      const merchantId = await storeMerchant(store);
      const [x, y] = [courier({ mode: 'live' }), courier({ mode: 'live' })];
      for (const c of [x, y]) await store.couriers.insert(c);
      const read = order({ merchantId, status: 'assigned', courierId: x.id });
      await store.orders.create(creation(read));
      // Meanwhile: X drops out, Y takes it and arrives.
      const released = await transitions.transition({ order: read, to: 'new', actor: { kind: 'courier', id: x.id }, patch: { courierId: null } });
      const taken = await transitions.transition({ order: released, to: 'assigned', actor: { kind: 'system', id: null }, patch: { courierId: y.id } });
      await transitions.transition({ order: taken, to: 'arrived_pickup', actor: { kind: 'courier', id: y.id } });
      // X, still holding its old read, asks to pick up: refused, not re-planned from arrived_pickup.
      await expect(transitions.transition({ order: read, to: 'picked_up', actor: { kind: 'courier', id: x.id } })).rejects.toMatchObject({ code: 'INVALID_STATUS_TRANSITION' });
      expect((await store.orders.findById(read.id))?.status).toBe('arrived_pickup');
      // The merchant's cancel of a stale read is re-planned whoever holds the order.
      const other = order({ merchantId, status: 'new' });
      await store.orders.create(creation(other));
      await transitions.transition({ order: other, to: 'assigned', actor: { kind: 'system', id: null }, patch: { courierId: y.id } });
      expect((await transitions.transition({ order: other, to: 'cancelled', actor: { kind: 'merchant', id: merchantId } })).status).toBe('cancelled');
    } finally {
      await store.close();
    }
  });
});
