import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, type ClientOptions } from 'ws';
import type { CourierPositionMessage, OrderStatusMessage } from '../../src/ports/event-bus.js';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, expectOk, PLACES, startOrdersApp } from '../orders/support.js';
import { along, assignedOrder, customerDataIn, openLive, until, type LiveClient } from './support.js';

const SOFT = 64 * 1024;
/** Positions published per round: well under the soft limit, so a reading client never drops one. */
const BATCH = 400;
/** Only status messages and snapshots (~1 kB each) can take a socket past the soft limit: a little headroom. */
const HARD = SOFT + 1024;

describe('public tracking socket', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const open: LiveClient[] = [];
  const live = (reference: string, options?: ClientOptions) => {
    const client = openLive(t.url, reference, options);
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startOrdersApp({
      env: {
        TRACKING_HEARTBEAT_MS: '60000',
        MAX_SOCKETS_PER_ADDRESS: '4',
        TRUST_PROXY: '127.0.0.1,::1',
        TRACKING_SOFT_BUFFER_BYTES: String(SOFT),
        TRACKING_HARD_BUFFER_BYTES: String(HARD),
      },
    });
    m = await t.createMerchant({ name: 'Live Socket Shop' });
  });
  afterAll(async () => {
    for (const client of open) client.ws.terminate();
    await t.stop();
  });

  async function closeAll() {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await until(() => t.app.trackingSockets.stats().sockets === 0, 'server-side sockets to close');
    // Each closed socket ended its watch: no tracking channel or fan-out entry outlives it.
    expect(t.app.trackingSockets.stats().watchedOrders).toBe(0);
    expect(t.app.container.fanOut.sizes()).toMatchObject({ orders: 0, sinks: 0 });
  }

  it('sends a snapshot, then status and position messages in order, with no customer data', async () => {
    const { order, courier, pickup } = await assignedOrder(t, m.liveKey, { courierName: 'Camila Rojas' });
    const byNumber = live(order.tracking_number);
    const byOrderNumber = live(order.order_number);
    const first = await byNumber.waitFor((msg) => msg.type === 'snapshot', 'the first snapshot');
    expect(byNumber.messages[0]).toBe(first);
    expect(first.tracking).toMatchObject({
      reference: order.tracking_number,
      tracking_number: order.tracking_number,
      status: 'assigned',
      driver: { name: 'Camila Rojas', vehicle_type: 'motorcycle', location: pickup },
    });
    expect((await byOrderNumber.waitFor((msg) => msg.type === 'snapshot', 'snapshot by order number')).tracking).toMatchObject({
      reference: order.order_number,
      tracking_number: order.tracking_number,
    });

    const p1 = along(pickup, PLACES.lasCondes, 0.2);
    const p2 = along(pickup, PLACES.lasCondes, 0.5);
    const p3 = along(pickup, PLACES.lasCondes, 0.8);
    expectOk(await courier.position(p1));
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    expectOk(await courier.status(order.booking_id, 'picked_up'));
    expectOk(await courier.position(p2));
    expectOk(await courier.position(p3));
    expectOk(await courier.status(order.booking_id, 'arrived_dropoff'));
    expectOk(await courier.deliver(order.booking_id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));

    for (const client of [byNumber, byOrderNumber]) {
      await client.waitFor((msg) => msg.type === 'snapshot' && msg.tracking.status === 'completed', 'the final snapshot');
      // (`eta` frames, the live ETA, come and go with the courier's progress: test/orders/live-eta.test.ts.)
      const events = client.messages
        .filter((msg) => msg.type !== 'snapshot' && msg.type !== 'eta')
        .map((msg) => (msg.type === 'status' ? msg.status : [msg.lat, msg.lng]));
      expect(events).toEqual([[p1.lat, p1.lng], 'arrived_pickup', 'picked_up', [p2.lat, p2.lng], [p3.lat, p3.lng], 'arrived_dropoff', 'completed']);
      expect(client.messages.every((msg) => typeof msg.at === 'string' || msg.type === 'snapshot')).toBe(true);
      // Every status message is followed (not necessarily at once) by a snapshot showing it.
      const snapshotStatuses = client.messages.filter((msg) => msg.type === 'snapshot').map((msg) => msg.tracking.status);
      expect(snapshotStatuses).toEqual(expect.arrayContaining(['assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']));
      const final = client.messages.at(-1)!;
      expect(final.tracking.timeline.map((e: { status: string }) => e.status)).toEqual([
        'new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed',
      ]);
      expect(final.tracking.driver.location).toBeNull();
      expect(customerDataIn(client.frames.join('\n'))).toEqual([]);
    }
    await closeAll();
  });

  it('on the way back to the shop after a failed attempt, the recipient sees no courier position', async () => {
    const { order, courier, pickup } = await assignedOrder(t, m.liveKey);
    const client = live(order.tracking_number);
    await client.waitFor((msg) => msg.type === 'snapshot', 'the first snapshot');
    expectOk(await courier.status(order.booking_id, 'picked_up'));
    expectOk(await courier.status(order.booking_id, 'arrived_dropoff'));
    const report = { reason: 'recipient_absent', coords: PLACES.lasCondes };
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${order.booking_id}/failed-attempt`, { key: courier.token, body: report }));
    await client.waitFor((msg) => msg.type === 'snapshot' && msg.tracking.status === 'returning', 'the returning snapshot');
    const before = client.messages.length;
    expectOk(await courier.position(along(PLACES.lasCondes, pickup, 0.5)));
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${order.booking_id}/return`, { key: courier.token, body: { coords: pickup, ...EVIDENCE } }));
    await client.waitFor((msg) => msg.type === 'snapshot' && msg.tracking.status === 'returned', 'the returned snapshot');
    const during = client.messages.slice(before);
    // The position published while returning reached the channel before the return's status did.
    expect(during.filter((msg) => msg.type === 'position' || msg.type === 'eta')).toEqual([]);
    const returning = client.messages.find((msg) => msg.type === 'snapshot' && msg.tracking.status === 'returning')!;
    expect(returning.tracking.driver.location).toBeNull();
    await closeAll();
  });

  it('closes an unknown reference with 4404', async () => {
    for (const reference of ['EXD-AAAA-BBBB-CCCC', '0000000000', 'not-a-reference', '%E0%A4%A']) {
      const client = live(reference);
      expect(await client.closed).toEqual({ code: 4404, reason: 'unknown tracking reference' });
      expect(client.messages).toEqual([]);
    }
    await closeAll();
  });

  it('caps connections per client IP (4429), and frees the slot when a socket closes', async () => {
    const { order } = await assignedOrder(t, m.liveKey);
    const clients = [1, 2, 3, 4].map(() => live(order.tracking_number));
    await Promise.all(clients.map((c) => c.waitFor((msg) => msg.type === 'snapshot', 'a snapshot')));

    const fifth = live(order.tracking_number);
    expect((await fifth.closed).code).toBe(4429);
    expect(fifth.messages).toEqual([]);

    // Behind a trusted (loopback) proxy the forwarded address is the client: its own quota.
    const proxied = live(order.tracking_number, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    await proxied.waitFor((msg) => msg.type === 'snapshot', 'a snapshot for the proxied client');

    await clients[0]!.close();
    await until(() => t.app.trackingSockets.stats().sockets === 4, 'the closed socket to be released');
    const again = live(order.tracking_number);
    await again.waitFor((msg) => msg.type === 'snapshot', 'a snapshot after a slot was freed');
    await closeAll();
  });

  it('closes a client that sends more than a tiny message', async () => {
    const { order } = await assignedOrder(t, m.liveKey);
    const client = live(order.tracking_number);
    await client.waitFor((msg) => msg.type === 'snapshot', 'a snapshot');
    client.ws.send('x'.repeat(1024));
    expect((await client.closed).code).toBe(1009);
    await closeAll();
  });

  it('a slow subscriber does not delay the others: its positions are dropped, then it is terminated at the hard limit', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const fast = live(order.tracking_number);
    const slow = live(order.tracking_number);
    await fast.waitFor((msg) => msg.type === 'snapshot', 'the fast snapshot');
    await slow.waitFor((msg) => msg.type === 'snapshot', 'the slow snapshot');
    // The slow client stops reading: its kernel buffers fill, then the server's send buffer.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();

    // Stand-in for a busy courier fleet: position messages published on the bus, as the domain does.
    const position = (i: number): CourierPositionMessage => ({
      type: 'courier.position', courierId: courier.id, mode: 'live', orderIds: [order.booking_id],
      location: { lat: -33.43 + i * 1e-7, lng: -70.6 }, at: new Date().toISOString(),
    });
    const positionsSent = () => fast.messages.filter((msg) => msg.type === 'position').length;
    let published = 0;
    while (t.app.trackingSockets.stats().droppedPositions === 0) {
      expect(published, 'the slow socket never reached the soft limit').toBeLessThan(400_000);
      for (let i = 0; i < BATCH; i++) await t.app.container.bus.publish(position(published++));
      // The fast client gets every position of each batch while the slow one is stuck.
      await until(() => positionsSent() === published, `the fast client to receive ${published} positions`);
    }

    // Status changes (each with a fresh snapshot) are never dropped: they take the slow socket past the hard limit.
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff'] as const) expectOk(await courier.status(order.booking_id, status));
    await fast.waitFor((msg) => msg.type === 'snapshot' && msg.tracking.status === 'arrived_dropoff', 'the fast client to see arrived_dropoff');
    const extra = async () => {
      // A synthetic status repeat (published as the domain would) if the real ones did not suffice.
      const message: OrderStatusMessage = {
        type: 'order.status_changed', orderId: order.booking_id, merchantId: m.merchantId, mode: 'live',
        trackingNumber: order.tracking_number, orderNumber: order.order_number, from: 'arrived_dropoff', status: 'arrived_dropoff',
        sequence: 99, courierId: courier.id, at: new Date().toISOString(),
      };
      await t.app.container.bus.publish(message);
    };
    await until(async () => t.app.trackingSockets.stats().closedSlow === 1 || (await extra(), false), 'the slow socket to be terminated');

    expect(t.app.trackingSockets.stats()).toMatchObject({ sockets: 1, closedSlow: 1, closedDead: 0 });
    expect(fast.ws.readyState).toBe(WebSocket.OPEN);
    expect(fast.messages.filter((msg) => msg.type === 'status').map((msg) => msg.status).slice(0, 3)).toEqual([
      'arrived_pickup', 'picked_up', 'arrived_dropoff',
    ]);
    expect(positionsSent()).toBe(published);

    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect((await slow.closed).code).toBe(1006);
    await closeAll();
  });
});

describe('public tracking socket heartbeat', () => {
  let t: TestApp;
  let m: MerchantCredentials;

  beforeAll(async () => {
    t = await startOrdersApp({ env: { TRACKING_HEARTBEAT_MS: '100' } });
    m = await t.createMerchant({ name: 'Heartbeat Shop' });
  });
  afterAll(() => t.stop());

  it('terminates a client that does not answer pings, and keeps one that does', async () => {
    const { order } = await assignedOrder(t, m.liveKey);
    const healthy = openLive(t.url, order.tracking_number);
    const dead = openLive(t.url, order.tracking_number, { autoPong: false });
    await healthy.waitFor((msg) => msg.type === 'snapshot', 'the healthy snapshot');
    await dead.waitFor((msg) => msg.type === 'snapshot', 'the dead snapshot');

    expect((await dead.closed).code).toBe(1006);
    expect(t.app.trackingSockets.stats().closedDead).toBe(1);
    // Several more heartbeats pass; the client that answers stays connected.
    let pings = 0;
    healthy.ws.on('ping', () => pings++);
    await until(() => pings >= 3, 'three more pings');
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    expect(t.app.trackingSockets.stats()).toMatchObject({ sockets: 1, closedDead: 1 });
  });

  it('closes every socket with 1001 when the app stops', async () => {
    const { order } = await assignedOrder(t, m.liveKey);
    const client = openLive(t.url, order.tracking_number);
    await client.waitFor((msg) => msg.type === 'snapshot', 'a snapshot');
    await t.app.stop();
    expect((await client.closed).code).toBe(1001);
  });
});
