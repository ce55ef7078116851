import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import type { LiveClient } from '../realtime/support.js';
import {
  along, assignedOrderOn, courierOn, expectStatus, graphqlWsOn, PLACES, positionReaches, SKIP_REASON, startCluster, subscribe, trackOn, until,
  type AssignedOrder, type Cluster,
} from './support.js';

describe.skipIf(SKIP_REASON)('two app processes sharing one SQLite file and one redis-server', () => {
  let cluster: Cluster;
  let order: AssignedOrder;
  const sockets: LiveClient[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 2, couriers: 1 });
  });
  afterAll(async () => {
    for (const live of sockets) live.ws.terminate();
    await Promise.all(clients.map((c) => c.dispose()));
    await cluster?.stop();
  });

  it('step 1: an order created on node A is assigned through the shared geo index and readable on node B', async () => {
    const [a, b] = cluster.nodes;
    order = await assignedOrderOn(a!, cluster, cluster.couriers[0]!, PLACES.providencia);
    const onB = expectStatus(await api(`${b!.url}/api/v1/orders/${order.bookingId}`, { key: cluster.shop.testKey }), 200);
    expect(onB.body).toMatchObject({ success: true, booking_id: order.bookingId, status: 'assigned' });
  });

  it('step 2: a position reported on node A reaches a tracking socket and a courierPosition subscriber on node B', async () => {
    const [a, b] = cluster.nodes;
    const courier = courierOn(a!, cluster.couriers[0]!);
    const live = await trackOn(b!, order.trackingNumber);
    sockets.push(live);
    await positionReaches({ reporter: courier, live, from: order.pickup, what: "node A's position on node B's tracking socket" });

    const client = graphqlWsOn(b!, cluster.shop.testKey);
    clients.push(client);
    const positions = subscribe<{ courierPosition: { orderId: string; location: { lat: number; lng: number } } }>(
      client,
      'subscription ($id: String!) { courierPosition(id: $id) { orderId location { lat lng } } }',
      { id: order.bookingId },
    );
    // The subscription is live on B once any report from A arrives; the next one must arrive too.
    await until(
      async () => {
        expectStatus(await courier.position(along(order.pickup, 0.3)), 200);
        return positions.data.length > 0;
      },
      'the courierPosition subscription on node B to receive a report from node A',
      10_000,
      200,
    );
    const last = along(order.pickup, 0.55);
    expectStatus(await courier.position(last), 200);
    const seen = await until(
      () => positions.data.find((d) => d.courierPosition.location.lat === last.lat && d.courierPosition.location.lng === last.lng),
      'the last position on node B',
    );
    expect(seen.courierPosition).toEqual({ orderId: order.bookingId, location: { lat: last.lat, lng: last.lng } });
    expect(positions.errors).toEqual([]);
    positions.dispose();
  });

  it("step 3: an order status change on node A reaches node B's orderStatusChanged subscriber", async () => {
    const [a, b] = cluster.nodes;
    const courier = courierOn(a!, cluster.couriers[0]!);
    const client = graphqlWsOn(b!, cluster.shop.testKey);
    clients.push(client);
    type Update = { orderStatusChanged: { orderId: string; from: string | null; status: string } };
    const statuses = subscribe<Update>(client, 'subscription ($id: String!) { orderStatusChanged(id: $id) { orderId from status } }', { id: order.bookingId });
    // Opened after orderStatusChanged on the same connection: once it delivers, the first is live too.
    const positions = subscribe(client, 'subscription ($id: String!) { courierPosition(id: $id) { orderId } }', { id: order.bookingId });
    await until(
      async () => {
        expectStatus(await courier.position(along(order.pickup, 0.4)), 200);
        return positions.data.length > 0;
      },
      'the subscriptions on node B to be live',
      10_000,
      200,
    );
    expectStatus(await courier.status(order.bookingId, 'arrived_pickup'), 200);
    await until(() => statuses.data.length > 0, "node B's orderStatusChanged event");
    expect(statuses.data[0]!.orderStatusChanged).toEqual({ orderId: order.bookingId, from: 'assigned', status: 'arrived_pickup' });
    // The tracking socket on B hears it as well.
    await sockets[0]!.waitFor((m) => m.type === 'status' && m.status === 'arrived_pickup', "the status on node B's tracking socket");
    expect(statuses.errors).toEqual([]);
  });
});
