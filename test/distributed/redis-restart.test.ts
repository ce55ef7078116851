import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import type { ServerProcess } from '../helpers/process.js';
import type { LiveClient } from '../realtime/support.js';
import {
  assignedOrderOn, courierOn, expectStatus, healthOf, orderBody, PLACES, positionReaches, quoteBody, SKIP_REASON, startCluster, trackOn, until,
  withDeadline,
  type AssignedOrder, type Cluster,
} from './support.js';

/** The limited merchant's per-key budget (RATE_LIMIT_PER_MIN) on every node. */
const LIMIT = 5;

describe.skipIf(SKIP_REASON)('redis-server killed and restarted under two app processes', () => {
  let cluster: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;
  let order: AssignedOrder;
  let onB: LiveClient;
  const sockets: LiveClient[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 2, couriers: 1, env: { RATE_LIMIT_PER_MIN: String(LIMIT) } });
    [a, b] = cluster.nodes as [ServerProcess, ServerProcess];
  });
  afterAll(async () => {
    for (const live of sockets) live.ws.terminate();
    await cluster?.stop();
  });

  const shop = (node: ServerProcess, path: string, body?: unknown) =>
    api(`${node.url}/api/v1${path}`, { key: cluster.shop.testKey, ...(body !== undefined && { body }) });

  it('step 1: with Redis up, a position reported on A reaches a tracking socket on B', async () => {
    order = await assignedOrderOn(a, cluster, cluster.couriers[0]!, PLACES.providencia);
    onB = await trackOn(b, order.trackingNumber);
    sockets.push(onB);
    await positionReaches({ reporter: courierOn(a, cluster.couriers[0]!), live: onB, from: order.pickup, what: 'the baseline cross-node position' });
    for (const node of [a, b]) expect(await healthOf(node)).toMatchObject({ status: 200, body: { status: 'ok', checks: { store: 'ok', redis: 'ok', bus: 'ok' } } });
  });

  it("step 2: Redis killed: /health answers 200 'degraded' with redis and bus down on both nodes", async () => {
    await cluster.killRedis();
    for (const node of [a, b]) {
      const health = await until(
        async () => {
          const h = await healthOf(node);
          return h.body.checks.redis === 'down' && h.body.checks.bus === 'down' ? h : null;
        },
        `redis and bus down in ${node.url}/health`,
        8000,
        100,
      );
      expect(health).toMatchObject({ status: 200, body: { status: 'degraded', checks: { store: 'ok', redis: 'down', bus: 'down' } } });
    }
  });

  it('step 3: Redis down: quote, order create, GET order and position reports keep answering 2xx on both nodes', async () => {
    for (const node of [a, b]) {
      expectStatus(await shop(node, '/shipping/quote', quoteBody), 200);
      // No courier is available: the order queues (the geo index lookup falls back to "none near").
      const created = expectStatus(await shop(node, '/orders', orderBody(PLACES.santiago)), 201).body;
      expect(created.status).toBe('new');
      expectStatus(await shop(a, `/orders/${created.booking_id}`), 200);
      expectStatus(await shop(b, `/orders/${created.booking_id}`), 200);
      expectStatus(await shop(node, `/orders/${order.bookingId}`), 200);
    }
    // Local fan-out does not need Redis: a socket on A still hears A's reports.
    const onA = await trackOn(a, order.trackingNumber);
    sockets.push(onA);
    await positionReaches({ reporter: courierOn(a, cluster.couriers[0]!), live: onA, from: order.pickup, what: "A's position on A's socket while Redis is down" });
  });

  it('step 4: Redis down: rate limits still apply, per node', async () => {
    for (const node of [a, b]) {
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT; i++) statuses.push((await api(`${node.url}/api/v1/merchants/me`, { key: cluster.limited.testKey })).status);
      // Each node has its own budget while Redis is away: LIMIT answers, then 429.
      expect(statuses).toEqual([...Array<number>(LIMIT).fill(200), 429]);
    }
  });

  it('step 5: Redis restarted on the same port: /health ok again and A reaches B again, without restarting the apps', async () => {
    const pids = [a.child.pid, b.child.pid];
    await cluster.restartRedis();
    for (const node of [a, b]) {
      await until(async () => (await healthOf(node)).body.status === 'ok', `${node.url}/health to be ok again`, 10_000, 100);
      expect(await healthOf(node)).toMatchObject({ status: 200, body: { status: 'ok', checks: { store: 'ok', redis: 'ok', bus: 'ok' } } });
    }
    // The socket on B opened before the outage is the one that hears A again.
    await positionReaches({ reporter: courierOn(a, cluster.couriers[0]!), live: onB, from: order.pickup, what: 'the cross-node position after the restart' });
    expect(onB.ws.readyState).toBe(onB.ws.OPEN);
    expect([a.child.pid, b.child.pid]).toEqual(pids);
    expect([a.child.exitCode, b.child.exitCode]).toEqual([null, null]);
  });

  it('step 6: Redis back: the rate limit is shared across nodes again', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push((await api(`${[a, b][i % 2]!.url}/api/v1/merchants/me`, { key: cluster.limited.liveKey })).status);
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(200), 429]);
  });

  it('step 7: Redis frozen (SIGSTOP: connections open, no answers): requests still answer 2xx in bounded time, /health degraded', async () => {
    cluster.freezeRedis();
    try {
      // Each Redis command gives up after ioredis' commandTimeout (500 ms): slower, degraded, never hung.
      const deadline = (what: string) => <T>(p: Promise<T>) => withDeadline(p, 4000, what);
      await Promise.all(
        [a, b].map(async (node) => {
          expectStatus(await deadline('a quote')(shop(node, '/shipping/quote', quoteBody)), 200);
          expectStatus(await deadline('an order')(shop(node, '/orders', orderBody(PLACES.santiago))), 201);
          expectStatus(await deadline('a read')(shop(node, `/orders/${order.bookingId}`)), 200);
          const health = await deadline('/health')(healthOf(node));
          expect(health).toMatchObject({ status: 200, body: { status: 'degraded', checks: { store: 'ok', redis: 'down' } } });
        }),
      );
    } finally {
      cluster.thawRedis();
    }
    for (const node of [a, b]) await until(async () => (await healthOf(node)).body.status === 'ok', `${node.url}/health ok after the thaw`, 10_000, 100);
    await positionReaches({ reporter: courierOn(a, cluster.couriers[0]!), live: onB, from: order.pickup, what: 'the cross-node position after the thaw' });
  });
});
