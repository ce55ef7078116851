/**
 * The courier's job watch (src/domain/watch/courier-job.ts): what it reads after which message,
 * one read at a time, and what it reports as gone. A fake store counts the reads and holds them
 * until the test lets them finish.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/adapters/event-bus/memory.js';
import type { BusMessage } from '../../src/ports/event-bus.js';
import type { Store } from '../../src/ports/store.js';
import type { Courier, Order } from '../../src/domain/types.js';
import { createWatchFanOut } from '../../src/domain/watch/fan-out.js';
import { createCourierJobWatch, type CourierJobUpdate } from '../../src/domain/watch/courier-job.js';

const until = async (check: () => boolean) => {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(check()).toBe(true);
};

function setup() {
  const bus = createMemoryEventBus();
  const fanOut = createWatchFanOut({ bus });
  const courier = { id: 'cr_1', status: 'busy' } as Courier;
  const orders = new Map<string, Order>();
  let active: string[] = [];
  const held: Array<() => void> = [];
  let reads = 0;
  let hold = false;
  const store = {
    couriers: { findById: async () => courier },
    orders: { findById: async (id: string) => orders.get(id) ?? null },
  } as unknown as Store;
  const activeOrders = async () => {
    reads++;
    if (hold) await new Promise<void>((resolve) => held.push(resolve));
    return active.map((id) => orders.get(id)!);
  };
  const watch = createCourierJobWatch({ fanOut, store, activeOrders });
  const updates: CourierJobUpdate[] = [];
  const stop = watch.watchJob({ courierId: courier.id, push: (u) => updates.push(u) });
  const order = (id: string, status: Order['status'], courierId: string | null = courier.id) => orders.set(id, { id, status, courierId } as Order);
  const publish = (message: Partial<BusMessage>) => bus.publish({ at: new Date().toISOString(), ...message } as BusMessage);
  return {
    fanOut, updates, stop, order, publish,
    setActive: (ids: string[]) => (active = ids),
    reads: () => reads,
    hold: (on: boolean) => (hold = on),
    release: () => held.splice(0).forEach((resolve) => resolve()),
    waiting: () => held.length,
  };
}

describe('courier job watch', () => {
  it('reads at once, then after a change naming the courier; changes of other couriers cost nothing', async () => {
    const w = setup();
    w.order('bk_1', 'assigned');
    w.setActive(['bk_1']);
    await until(() => w.updates.length === 1);
    expect(w.updates[0]!.orders.map((o) => o.id)).toEqual(['bk_1']);
    await w.publish({ type: 'courier.changed', courierId: 'cr_other', orderIds: ['bk_9'] });
    await w.publish({ type: 'courier.changed', courierId: 'cr_1', orderIds: [] });
    await until(() => w.updates.length === 2);
    expect(w.reads()).toBe(2);
    w.stop();
  });

  it('a burst of changes during a read makes one more read, not one each', async () => {
    const w = setup();
    await until(() => w.updates.length === 1);
    w.hold(true);
    await w.publish({ type: 'courier.changed', courierId: 'cr_1', orderIds: [] });
    await until(() => w.waiting() === 1);
    for (let i = 0; i < 5; i++) await w.publish({ type: 'courier.changed', courierId: 'cr_1', orderIds: [] });
    w.hold(false);
    w.release();
    await until(() => w.updates.length === 3);
    // One more change, one more read: nothing else was read in between.
    await w.publish({ type: 'courier.changed', courierId: 'cr_1', orderIds: [] });
    await until(() => w.updates.length === 4);
    expect(w.reads()).toBe(4);
    w.stop();
  });

  it('a release names no courier: heard through the order it showed; gone with status null, or its status when it ended with the courier', async () => {
    const w = setup();
    w.order('bk_1', 'assigned');
    w.order('bk_2', 'picked_up');
    w.setActive(['bk_1', 'bk_2']);
    await until(() => w.updates.length === 1);
    // Released: back to `new`, no courier; its status change is published with courierId null.
    w.order('bk_1', 'new', null);
    w.setActive(['bk_2']);
    await w.publish({ type: 'order.status_changed', orderId: 'bk_1', courierId: null, merchantId: 'm', mode: 'live', status: 'new', from: 'assigned', sequence: 2 } as Partial<BusMessage>);
    await until(() => w.updates.length === 2);
    expect(w.updates[1]!.gone).toEqual([{ id: 'bk_1', status: null }]);
    // Cancelled in its hands.
    w.order('bk_2', 'cancelled');
    w.setActive([]);
    await w.publish({ type: 'courier.changed', courierId: 'cr_1', orderIds: ['bk_2'] });
    await until(() => w.updates.length === 3);
    expect(w.updates[2]!.gone).toEqual([{ id: 'bk_2', status: 'cancelled' }]);
    w.stop();
    expect(w.fanOut.sizes().sinks).toBe(0);
  });
});
