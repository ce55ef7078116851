import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import type { ServerProcess } from '../helpers/process.js';
import type { LiveClient } from '../realtime/support.js';
import {
  assignedOrderOn, courierOn, errorLogs, expectStatus, orderBody, PLACES, positionReaches, SKIP_REASON, sleep, startCluster, startCountingReceiver, trackOn, until,
  type AssignedOrder, type Cluster,
} from './support.js';

const RATE_LIMIT = 30;
const POLL_MS = 100;

describe.skipIf(SKIP_REASON)('three app processes sharing one SQLite file and one redis-server (issue 7)', () => {
  let cluster: Cluster;
  let nodes: ServerProcess[];
  let receiver: Awaited<ReturnType<typeof startCountingReceiver>>;
  let receiverUrl: string;
  const sockets: LiveClient[] = [];
  const createdIds: string[] = [];
  let order: AssignedOrder;

  beforeAll(async () => {
    receiver = await startCountingReceiver();
    receiverUrl = receiver.url;
    cluster = await startCluster({
      nodes: 3,
      couriers: 1,
      env: { RATE_LIMIT_PER_MIN: String(RATE_LIMIT), WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: String(POLL_MS) },
    });
    nodes = cluster.nodes;
  });
  afterAll(async () => {
    for (const live of sockets) live.ws.terminate();
    await cluster?.stop();
    await receiver?.close();
  });

  const shop = (node: ServerProcess, path: string, body?: unknown) =>
    api(`${node.url}/api/v1${path}`, { key: cluster.shop.testKey, ...(body !== undefined && { body }) });

  it('step 1: a webhook endpoint created on one node (loopback receiver, sandbox)', async () => {
    const res = expectStatus(await shop(nodes[0]!, '/webhooks', { url: receiverUrl }), 201);
    expect(res.body.endpoint).toMatchObject({ url: receiverUrl, enabled: true });
  });

  it('step 2: positions fan out across nodes: a report on any node reaches tracking sockets on the other two', async () => {
    order = await assignedOrderOn(nodes[1]!, cluster, cluster.couriers[0]!, PLACES.providencia);
    const live = await Promise.all(nodes.map((node) => trackOn(node, order.trackingNumber)));
    sockets.push(...live);
    for (let reporter = 0; reporter < nodes.length; reporter++) {
      const courier = courierOn(nodes[reporter]!, cluster.couriers[0]!);
      for (let listener = 0; listener < nodes.length; listener++) {
        if (listener === reporter) continue;
        await positionReaches({ reporter: courier, live: live[listener]!, from: order.pickup, what: `node ${reporter}'s report on node ${listener}` });
      }
    }
    // One report, seen once by each of the three sockets.
    const before = live.map((l) => l.messages.length);
    const point = { lat: order.pickup.lat - 0.001, lng: order.pickup.lng + 0.002 };
    expectStatus(await courierOn(nodes[2]!, cluster.couriers[0]!).position(point), 200);
    for (const [i, l] of live.entries()) {
      await l.waitFor((m) => m.type === 'position' && m.lat === point.lat && m.lng === point.lng, `the last report on node ${i}`, before[i]);
    }
    await sleep(200);
    for (const l of live) expect(l.messages.filter((m) => m.type === 'position' && m.lat === point.lat && m.lng === point.lng)).toHaveLength(1);
  });

  it('step 3: orders created on any node (the courier is busy: they queue) are readable on all nodes', async () => {
    for (const node of nodes) {
      const created = expectStatus(await shop(node, '/orders', orderBody(PLACES.santiago)), 201).body;
      createdIds.push(created.booking_id);
    }
    for (const id of createdIds) {
      for (const node of nodes) {
        const res = expectStatus(await shop(node, `/orders/${id}`), 200);
        expect(res.body).toMatchObject({ booking_id: id, status: 'new' });
      }
    }
    const listed = expectStatus(await shop(nodes[2]!, '/orders?limit=50'), 200).body.orders as Array<{ booking_id: string }>;
    expect(listed.map((o) => o.booking_id)).toEqual(expect.arrayContaining(createdIds));
  });

  it('step 4: each webhook is sent once, whichever node made the change and however many workers poll', async () => {
    // Status changes made on different nodes, each worker polling every POLL_MS.
    expectStatus(await courierOn(nodes[0]!, cluster.couriers[0]!).status(order.bookingId, 'arrived_pickup'), 200);
    expectStatus(await courierOn(nodes[1]!, cluster.couriers[0]!).status(order.bookingId, 'picked_up'), 200);
    expectStatus(await shop(nodes[2]!, `/orders/${createdIds[0]}/cancel`, {}), 200);

    type Delivery = { id: string; event: string; booking_id: string; status: string; attempts: number };
    const list = async () => expectStatus(await shop(nodes[0]!, '/webhooks/deliveries?limit=100'), 200).body.deliveries as Delivery[];
    let previous = -1;
    // Settled: every delivery delivered and no new one written since the last look.
    const deliveries = await until(
      async () => {
        const current = await list();
        const settled = current.length === previous && current.every((d) => d.status === 'delivered');
        previous = current.length;
        return settled ? current : null;
      },
      'every delivery to be delivered',
      15_000,
      300,
    );
    // The outbox wrote one delivery per status change of the orders (three created, one assigned and moved, one cancelled).
    expect(deliveries.filter((d) => d.booking_id === order.bookingId).length).toBeGreaterThanOrEqual(3);
    expect(deliveries.some((d) => d.booking_id === createdIds[0])).toBe(true);
    await sleep(POLL_MS * 5); // any duplicate send would land within a few more polls
    const ids = deliveries.map((d) => d.id).sort();
    expect([...receiver.received.keys()].sort()).toEqual(ids);
    expect([...receiver.received.entries()].filter(([, times]) => times !== 1)).toEqual([]);
    expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
  });

  it(`step 5: rate limits are shared: ${RATE_LIMIT} requests spread over the nodes pass, the next one on any node is 429`, async () => {
    const key = cluster.limited.testKey;
    const spread = await Promise.all(
      Array.from({ length: RATE_LIMIT }, (_, i) => api(`${nodes[i % nodes.length]!.url}/api/v1/merchants/me`, { key })),
    );
    expect(spread.map((r) => r.status)).toEqual(Array<number>(RATE_LIMIT).fill(200));
    for (const node of nodes) {
      const res = await api(`${node.url}/api/v1/merchants/me`, { key });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('RATE_LIMITED');
    }
  });

  it('step 6: no node logged an unhandled error', () => {
    for (const node of nodes) expect(errorLogs(node)).toEqual([]);
  });
});
