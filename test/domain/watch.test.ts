import { describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/adapters/event-bus/memory.js';
import type { TrackingView } from '../../src/domain/tracking.js';
import type { Order } from '../../src/domain/types.js';
import { createWatchFanOut } from '../../src/domain/watch/fan-out.js';
import { SUBSCRIPTION_BUFFER, watchIterator } from '../../src/domain/watch/iterator.js';
import { createWebhookWorkWatch } from '../../src/domain/watch/orders.js';
import { createTrackingChannels, type TrackingUpdate } from '../../src/domain/watch/tracking.js';
import type { CourierPositionMessage, OrderStatusMessage } from '../../src/ports/event-bus.js';

const at = '2026-11-23T12:00:00.000Z';
const status = (orderId: string, to: OrderStatusMessage['status'], sequence: number, extra: Partial<OrderStatusMessage> = {}): OrderStatusMessage => ({
  type: 'order.status_changed', orderId, merchantId: 'mer_1', mode: 'live', trackingNumber: 'EXD-AAAA-BBBB-CCCC', orderNumber: '1234567890',
  from: null, status: to, sequence, courierId: 'cou_1', at, ...extra,
});
const position = (orderIds: string[], lat = -33.45): CourierPositionMessage => ({
  type: 'courier.position', courierId: 'cou_1', mode: 'live', location: { lat, lng: -70.6 }, orderIds, at,
});
/** The memory bus hands messages over on a microtask. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the watch fan-out', () => {
  it('dispatches by order, merchant+mode and courier; an unwatched message reaches no sink', async () => {
    const bus = createMemoryEventBus();
    const fanOut = createWatchFanOut({ bus });
    const calls = { busy: 0, order: 0, merchant: 0, otherMode: 0, courier: 0, everything: 0 };
    // 10,000 watchers of other orders: none of them may be touched by the messages below.
    const others = Array.from({ length: 10_000 }, (_, i) => fanOut.onOrder(`ord_other_${i}`, () => calls.busy++));
    const stops = [
      fanOut.onOrder('ord_1', () => calls.order++),
      fanOut.onMerchant('mer_1', 'live', () => calls.merchant++),
      fanOut.onMerchant('mer_1', 'test', () => calls.otherMode++),
      fanOut.onCourier('cou_1', () => calls.courier++),
      fanOut.onEverything(() => calls.everything++),
    ];
    await bus.publish(status('ord_1', 'assigned', 2));
    await bus.publish(position(['ord_1']));
    await bus.publish(position(['ord_unwatched']));
    await bus.publish(status('ord_unwatched', 'assigned', 2, { merchantId: 'mer_2', courierId: 'cou_2' }));
    await settle();
    expect(calls).toEqual({ busy: 0, order: 2, merchant: 1, otherMode: 0, courier: 1, everything: 4 });

    for (const stop of [...others, ...stops]) {
      stop();
      stop(); // idempotent
    }
    expect(fanOut.sizes()).toEqual({ orders: 0, merchants: 0, couriers: 0, sinks: 0, everything: 0 });
    fanOut.close();
  });

  it('a sink that throws does not keep the message from the others', async () => {
    const bus = createMemoryEventBus();
    const fanOut = createWatchFanOut({ bus });
    const seen: string[] = [];
    fanOut.onOrder('ord_1', () => {
      throw new Error('broken watcher');
    });
    fanOut.onOrder('ord_1', (m) => seen.push(m.type));
    await bus.publish(status('ord_1', 'assigned', 2));
    await settle();
    expect(seen).toEqual(['order.status_changed']);
  });
});

describe('watchIterator', () => {
  it('keeps the newest SUBSCRIPTION_BUFFER updates of a consumer that does not read', async () => {
    let push!: (n: number) => void;
    const iterator = watchIterator<number>((p) => ((push = p), () => {}));
    for (let i = 0; i < SUBSCRIPTION_BUFFER + 50; i++) push(i);
    expect((await iterator.next()).value).toBe(50);
    await iterator.return!();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it('return() from outside ends a pending next() and unregisters exactly once', async () => {
    let unregistered = 0;
    const iterator = watchIterator<number>(() => () => void unregistered++);
    const pending = iterator.next();
    await iterator.return!();
    await iterator.return!();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(unregistered).toBe(1);
  });
});

describe('tracking channels', () => {
  const order = { id: 'ord_1', status: 'assigned', sequence: 2, estimatedDeliveryAt: at } as Order;
  const view = (s: string) => ({ reference: '', status: s }) as unknown as TrackingView;

  it('share one fan-out entry per order; positions carry the real status; snapshots follow status changes; stop frees the entry', async () => {
    const bus = createMemoryEventBus();
    const fanOut = createWatchFanOut({ bus });
    let current = 'assigned';
    let reads = 0;
    const channels = createTrackingChannels({ fanOut, readView: async () => (reads++, view(current)) });
    const socket: TrackingUpdate[] = [];
    const other: TrackingUpdate[] = [];
    const graphql: TrackingUpdate[] = [];
    const stops = [
      channels.attach({ order, reference: 'EXD-AAAA-BBBB-CCCC', snapshots: true, onUpdate: (u) => socket.push(u) }),
      channels.attach({ order, reference: '1234567890', snapshots: true, onUpdate: (u) => other.push(u) }),
      channels.attach({ order, reference: '1234567890', snapshots: false, onUpdate: (u) => graphql.push(u) }),
    ];
    expect(fanOut.sizes()).toMatchObject({ orders: 1, sinks: 1 });
    await settle();

    await bus.publish(position(['ord_1'], -33.41));
    current = 'arrived_pickup';
    await bus.publish(status('ord_1', 'arrived_pickup', 3));
    await bus.publish(position(['ord_1'], -33.42));
    await settle();
    await settle();

    const summary = (updates: TrackingUpdate[]) =>
      updates.map((u) => (u.type === 'snapshot' ? `snapshot:${u.view.reference}:${u.view.status}` : `${u.type}:${u.status}`));
    expect(summary(socket)).toEqual(['snapshot:EXD-AAAA-BBBB-CCCC:assigned', 'position:assigned', 'status:arrived_pickup', 'position:arrived_pickup', 'snapshot:EXD-AAAA-BBBB-CCCC:arrived_pickup']);
    expect(summary(other)).toEqual(['snapshot:1234567890:assigned', 'position:assigned', 'status:arrived_pickup', 'position:arrived_pickup', 'snapshot:1234567890:arrived_pickup']);
    expect(summary(graphql)).toEqual(['position:assigned', 'status:arrived_pickup', 'position:arrived_pickup']);
    // One update object per message for every watcher (transports cache their frame by it); one read per status change.
    expect(socket[1]).toBe(other[1]);
    expect(reads).toBe(3);

    for (const stop of stops) stop();
    expect(channels.size()).toBe(0);
    expect(fanOut.sizes()).toMatchObject({ orders: 0, sinks: 0 });
  });

  it('a first snapshot that cannot be read is reported to its watcher, which gets nothing else', async () => {
    const bus = createMemoryEventBus();
    const fanOut = createWatchFanOut({ bus });
    const reported: string[] = [];
    const channels = createTrackingChannels({
      fanOut,
      readView: async () => {
        throw new Error('store unavailable');
      },
      onSnapshotError: (error, orderId) => reported.push(`${orderId}: ${error.message}`),
    });
    const updates: TrackingUpdate[] = [];
    const failures: string[] = [];
    const stop = channels.attach({ order, reference: 'EXD-AAAA-BBBB-CCCC', snapshots: true, onUpdate: (u) => updates.push(u), onFailure: (e) => failures.push(e.message) });
    await settle();
    await bus.publish(position(['ord_1']));
    await settle();
    expect(failures).toEqual(['store unavailable']);
    expect(reported).toEqual(['ord_1: store unavailable']);
    expect(updates).toEqual([]);
    stop();
    expect(fanOut.sizes().sinks).toBe(0);
  });
});

describe('the webhook worker’s wake-ups', () => {
  it('wake for a status change and a position that wrote deliveries; not for other positions or courier.changed', async () => {
    const bus = createMemoryEventBus();
    const work = createWebhookWorkWatch({ fanOut: createWatchFanOut({ bus }) }).watchWork();
    const woken = async (publish: () => Promise<void>) => {
      const next = work.next();
      await publish();
      await settle();
      return Promise.race([next.then(() => true), settle().then(() => false)]);
    };
    expect(await woken(() => bus.publish({ type: 'courier.changed', courierId: 'cou_1', orderIds: ['ord_1'], at }))).toBe(false);
    expect(await woken(() => bus.publish(position(['ord_1'])))).toBe(false);
    expect(await woken(() => bus.publish({ ...position(['ord_1']), wroteWebhooks: true }))).toBe(true);
    expect(await woken(() => bus.publish(status('ord_1', 'assigned', 2)))).toBe(true);
    await work.return?.();
  });
});
