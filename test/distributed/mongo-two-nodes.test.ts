import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import type { ServerProcess } from '../helpers/process.js';
import { EVIDENCE } from '../orders/support.js';
import {
  courierOn, errorLogs, expectStatus, MONGO_SKIP_REASON, ON_REAL_MONGODB, orderBody, PLACES, sleep, startCluster, startCountingReceiver, until, type Cluster,
} from './support.js';

const POLL_MS = 200;
/** Why concurrent creates with one key cannot be run on jongodb (test/contract/mongo-order-store.test.ts skips the same case). */
/** Why two workers may both send one delivery on jongodb (the same case is skipped in the webhook store contract). */
const JONGODB_CLAIM =
  "jongodb's findAndModify is not atomic, so two nodes' claims can both lease one delivery; the exactly-once check runs with MONGODB_URL)";
const JONGODB_CONCURRENT_CREATE =
  'jongodb reports the conflict of two transactions inserting one idempotency key without the TransientTransactionError label ' +
  '(one request answers 500) and exposes uncommitted writes (two orders were seen); run with MONGODB_URL=<a replica set> to check it';

/**
 * Distributed mode as deployed: two app processes on one MongoDB (the jongodb test server) and one
 * redis-server, no shared file. An order's whole life crosses the nodes, an idempotency key sent
 * to both at once makes one order, and a webhook is sent once while both nodes run workers.
 */
describe.skipIf(MONGO_SKIP_REASON)(`two app processes on one MongoDB and one redis-server${MONGO_SKIP_REASON ? ` (${MONGO_SKIP_REASON})` : ''}`, () => {
  let cluster: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;
  let receiver: Awaited<ReturnType<typeof startCountingReceiver>>;
  let receiverUrl: string;

  beforeAll(async () => {
    receiver = await startCountingReceiver();
    receiverUrl = receiver.url;
    cluster = await startCluster({
      store: 'mongodb',
      nodes: 2,
      couriers: 1,
      env: { WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: String(POLL_MS), DISPATCH_RECONCILE_MS: '500' },
    });
    [a, b] = cluster.nodes as [ServerProcess, ServerProcess];
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
  });

  const shop = (node: ServerProcess, path: string, body?: unknown, headers?: Record<string, string>) =>
    api(`${node.url}/api/v1${path}`, { key: cluster.shop.testKey, ...(body !== undefined && { body }), ...(headers && { headers }) });
  const referenceCount = async (reference: string) => {
    const listed = expectStatus(await shop(b, '/orders?limit=100'), 200).body.orders as Array<{ reference_id: string | null }>;
    return listed.filter((o) => o.reference_id === reference).length;
  };

  it('step 1: a webhook endpoint created on node A is listed on node B', async () => {
    const created = expectStatus(await shop(a, '/webhooks', { url: receiverUrl }), 201).body.endpoint as { id: string };
    const listed = expectStatus(await shop(b, '/webhooks'), 200).body.endpoints as Array<{ id: string }>;
    expect(listed.map((e) => e.id)).toContain(created.id);
  });

  it('step 2: an order created on A is read, carried and delivered through B; another created on A is cancelled on B', async () => {
    const courier = cluster.couriers[0]!;
    const onA = courierOn(a, courier);
    expectStatus(await onA.duty(true), 200);
    expectStatus(await onA.position(PLACES.providencia), 200);
    const order = { bookingId: expectStatus(await shop(a, '/orders', orderBody(PLACES.providencia)), 201).body.booking_id as string };
    // Assigned at once, or by the reconciler's next round when the courier's first position was
    // not written yet (positions are written in batches, every POSITION_FLUSH_MS).
    await until(async () => (await shop(b, `/orders/${order.bookingId}`)).body.status === 'assigned', 'the order to be assigned, read on B', 15_000, 200);
    const onB = courierOn(b, courier);
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expectStatus(await onB.status(order.bookingId, status), 200);
    const delivered = expectStatus(await shop(b, `/orders/${order.bookingId}/deliver`, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }), 200);
    expect(delivered.body).toMatchObject({ booking_id: order.bookingId, status: 'completed' });
    const history = expectStatus(await shop(a, `/orders/${order.bookingId}/events`), 200).body.events as Array<{ status: string }>;
    expect(history.map((e) => e.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);

    // The courier is free again on both nodes' view of the store: the next order goes to them.
    const next = expectStatus(await shop(a, '/orders', orderBody(PLACES.providencia)), 201).body;
    await until(async () => (await shop(b, `/orders/${next.booking_id}`)).body.status === 'assigned', 'the next order to be assigned', 15_000, 200);
    expectStatus(await shop(b, `/orders/${next.booking_id}/cancel`, {}), 200);
    expect(expectStatus(await shop(a, `/orders/${next.booking_id}`), 200).body.status).toBe('cancelled');
  });

  it('step 2b: cash on delivery on MongoDB: cod_amount set on A, delivered on B with a different amount, the report (REST on A, GraphQL on B) and the courier cash', async () => {
    const courier = cluster.couriers[0]!;
    const created = expectStatus(await shop(a, '/orders', { ...orderBody(PLACES.providencia), payment_mode: 'cash_on_delivery', cod_amount: 15_990 }), 201).body;
    await until(async () => (await shop(b, `/orders/${created.booking_id}`)).body.status === 'assigned', 'the COD order to be assigned', 15_000, 200);
    const onB = courierOn(b, courier);
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expectStatus(await onB.status(created.booking_id, status), 200);
    const door = { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE };
    expect(expectStatus(await shop(b, `/orders/${created.booking_id}/deliver`, door), 422).body.error.code).toBe('COD_COLLECTED_REQUIRED');
    expectStatus(await shop(b, `/orders/${created.booking_id}/deliver`, { ...door, cod_collected: 15_000 }), 200);
    expect(expectStatus(await shop(a, `/orders/${created.booking_id}`), 200).body.cod).toMatchObject({ expected: 15_990, collected: 15_000, mismatch: true });

    const report = expectStatus(await shop(a, '/cod/report'), 200).body;
    expect(report).toMatchObject({ collected: 15_000, settled: 0, outstanding: 15_000, mismatches: 1, lines: [{ booking_id: created.booking_id, mismatch: true }] });
    const query = '{ codReport { ... on QueryCodReportSuccess { data { collected outstanding mismatches lines { bookingId } } } } }';
    const viaB = expectStatus(await api(`${b.url}/graphql`, { key: cluster.shop.testKey, body: { query } }), 200).body;
    expect(viaB.data.codReport.data).toEqual({ collected: 15_000, outstanding: 15_000, mismatches: 1, lines: [{ bookingId: created.booking_id }] });
    const cash = expectStatus(await api(`${a.url}/graphql`, { key: courier.token, body: { query: '{ courierCash { collected settled balance } }' } }), 200).body;
    expect(cash.data.courierCash).toEqual({ collected: 15_000, settled: 0, balance: 15_000 });
  });

  it('step 3: an Idempotency-Key used on A, then on B: one order (201, then 200 with it); another body with the key is 422 on B', async () => {
    const key = `idem-${Math.random().toString(36).slice(2)}`;
    const body = orderBody(PLACES.santiago, `IDEM-${key}`);
    const first = expectStatus(await shop(a, '/orders', body, { 'idempotency-key': key }), 201);
    const again = expectStatus(await shop(b, '/orders', body, { 'idempotency-key': key }), 200);
    expect(again.body.booking_id).toBe(first.body.booking_id);
    const reused = await shop(b, '/orders', { ...body, customer_name: 'Otra Persona' }, { 'idempotency-key': key });
    expect([reused.status, reused.body.error?.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await referenceCount(`IDEM-${key}`)).toBe(1);
  });

  it.skipIf(!ON_REAL_MONGODB)(
    `step 3b: one Idempotency-Key sent to A and B at the same time makes one order (five keys)${ON_REAL_MONGODB ? '' : ` — skipped on jongodb: ${JONGODB_CONCURRENT_CREATE}`}`,
    async () => {
      for (let i = 0; i < 5; i++) {
        const key = `idem-${i}-${Math.random().toString(36).slice(2)}`;
        const body = orderBody(PLACES.santiago, `IDEM-${key}`);
        const [fromA, fromB] = await Promise.all([a, b].map((node) => shop(node, '/orders', body, { 'idempotency-key': key })));
        expect([fromA!.status, fromB!.status].sort(), JSON.stringify([fromA!.body, fromB!.body])).toEqual([200, 201]);
        expect(fromA!.body.booking_id).toBe(fromB!.body.booking_id);
        expect(await referenceCount(`IDEM-${key}`)).toBe(1);
      }
    },
  );

  it(`step 4: every webhook is sent once while both nodes run workers${ON_REAL_MONGODB ? '' : ` (on jongodb: recorded once, received at least once — ${JONGODB_CLAIM}`}`, async () => {
    type Delivery = { id: string; status: string; attempts: number };
    const list = async () => expectStatus(await shop(a, '/webhooks/deliveries?limit=100'), 200).body.deliveries as Delivery[];
    let previous = -1;
    const deliveries = await until(
      async () => {
        const current = await list();
        const settled = current.length === previous && current.length > 0 && current.every((d) => d.status === 'delivered');
        previous = current.length;
        return settled ? current : null;
      },
      'every delivery to be delivered',
      20_000,
      400,
    );
    await sleep(POLL_MS * 5); // a duplicate send would land within a few more polls
    expect([...receiver.received.keys()].sort()).toEqual(deliveries.map((d) => d.id).sort());
    // One attempt recorded each: a worker whose lease was not its own records nothing.
    expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
    const repeated = [...receiver.received.entries()].filter(([, times]) => times !== 1);
    console.info(`mongo-two-nodes: ${deliveries.length} webhook deliveries; received more than once: ${repeated.length}`);
    if (ON_REAL_MONGODB) expect(repeated).toEqual([]);
  });

  it('step 4b: the event feed read on A continues on B from A\'s cursor (same events, same cursors); a cancel\'s Idempotency-Key replays on B', async () => {
    type FeedEvent = { id: string; cursor: string; order_id: string | null; payload: { sequence?: number } };
    const page = async (node: ServerProcess, query: string) => expectStatus(await shop(node, `/events${query}`), 200).body as { events: FeedEvent[]; next_cursor: string; has_more: boolean };
    const whole = await page(b, '?limit=1000');
    expect(whole.events.length).toBeGreaterThan(4);
    const first = await page(a, '?limit=3');
    const rest = await page(b, `?after=${encodeURIComponent(first.next_cursor)}&limit=1000`);
    expect([...first.events, ...rest.events]).toEqual(whole.events);
    for (const orderId of new Set(whole.events.map((e) => e.order_id))) {
      const sequences = whole.events.filter((e) => e.order_id === orderId).map((e) => e.payload.sequence ?? 0);
      expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
    }

    const order = expectStatus(await shop(a, '/orders', orderBody(PLACES.santiago)), 201).body.booking_id as string;
    const key = `cancel-${Math.random().toString(36).slice(2)}`;
    const cancelled = expectStatus(await shop(a, `/orders/${order}/cancel`, { reason: 'twice' }, { 'idempotency-key': key }), 200);
    const replay = expectStatus(await shop(b, `/orders/${order}/cancel`, { reason: 'twice' }, { 'idempotency-key': key }), 200);
    expect(replay.body).toEqual(cancelled.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // The feed, continued on A from B's end, shows the new order's two events once.
    const news = await page(a, `?after=${encodeURIComponent(whole.next_cursor)}&limit=1000`);
    expect(news.events.filter((e) => e.order_id === order).map((e) => e.payload.sequence)).toEqual([1, 2]);
  });

  it('step 5: neither node logged an unhandled error', () => {
    expect(errorLogs(a)).toEqual([]);
    expect(errorLogs(b)).toEqual([]);
  });
});
