import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { describeProbe, probeLostCommits, type LostCommitsProbe } from '../helpers/mongo-lost-commits.js';
import type { ServerProcess } from '../helpers/process.js';
import {
  courierOn, expectStatus, healthOf, MONGO_SKIP_REASON, orderBody, PLACES, quoteBody, sleep, startCluster, until, type Cluster,
} from './support.js';

const RECONCILE_MS = 500;
/** One stays off duty: the test strands it on purpose. */
const COURIERS = 5;
const BURST = 12;

/** Answers within `budgetMs`, or fails the step (a hang is the defect under test). */
async function timed<T>(what: string, call: () => Promise<T>, budgetMs = 2000): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await Promise.race([call(), sleep(budgetMs + 3000).then(() => Promise.reject(new Error(`${what}: no answer`)))]);
  const ms = Date.now() - started;
  expect(ms, `${what} answered in ${ms} ms`).toBeLessThan(budgetMs);
  return { value, ms };
}

/**
 * The fault suite of distributed mode: two real app processes on one MongoDB (the jongodb test
 * server, paused with SIGSTOP: connections stay open and nothing answers) and one redis-server
 * (paused, then killed and restarted), then a node SIGKILLed while it dispatches a burst of
 * orders (with the store frozen at that moment, so requests stop midway). Every request answers
 * within 2 s (503 SERVICE_UNAVAILABLE with Retry-After where the store is needed), the nodes
 * recover on their own, the reconciler (every RECONCILE_MS, after its grace of 2 × STORE_TIMEOUT_MS)
 * leaves no courier busy without an order and no order waiting beside a free courier, and no
 * acknowledged order is lost. Recovery times are printed.
 *
 * jongodb loses committed inserts when concurrent transactions commit at once (probed at the start,
 * see test/contract/mongo-committed-inserts.test.ts), so on it an acknowledged order may be missing
 * for no fault of ours. The nodes reach it through a commit witness (a proxy reading the wire), and a
 * missing order is put down to jongodb only when the probe saw it lose commits, the server itself
 * acknowledged the commit of the transaction that inserted that order before the node answered 201,
 * and no client ever sent a command deleting orders. Anything else fails as before.
 */
describe.skipIf(MONGO_SKIP_REASON)(`MongoDB and Redis faults under two nodes${MONGO_SKIP_REASON ? ` (${MONGO_SKIP_REASON})` : ''}`, () => {
  let cluster: Cluster;
  let key: string;
  let orderId: string;
  /** What the probe saw when the store is jongodb (null: a real server, which is not probed). */
  let probe: LostCommitsProbe | null = null;
  const figures: Record<string, number> = {};

  beforeAll(async () => {
    cluster = await startCluster({
      store: 'mongodb', pausableStore: true, witnessStore: true, nodes: 2, couriers: COURIERS, env: { DISPATCH_RECONCILE_MS: String(RECONCILE_MS) },
    });
    key = cluster.shop.testKey;
    if (cluster.mongo!.server.kind === 'jongodb') {
      probe = await probeLostCommits({ url: cluster.mongo!.server.url, dbName: `${cluster.mongo!.dbName}_probe`.slice(0, 60), trials: 30, stopAtFirstLoss: true });
      if (probe.lostInserts > 0) console.warn(`mongo-faults on jongodb: it loses committed inserts (${describeProbe(probe)}); an acknowledged order it lost is told apart by the commit witness`);
    }
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
    console.info(`mongo-faults recovery figures (ms): ${JSON.stringify(figures)}`);
  });

  const first = () => cluster.nodes[0]!;

  /**
   * Of the acknowledged orders missing from the store, those jongodb lost: it is known to lose
   * commits (the probe), the server acknowledged the commit of the transaction inserting the order
   * before its 201 arrived (the witness), no order is there under its id, and no client sent a
   * command deleting orders. Never any against a real server.
   */
  async function lostByTheStore(missing: string[], answeredAt: Map<string, number>, db: Db): Promise<string[]> {
    const witness = cluster.mongo!.witness;
    if (!probe || probe.lostInserts === 0 || !witness || witness.removalsFrom('orders') > 0) return [];
    const lost: string[] = [];
    for (const id of missing) {
      const committedAt = witness.commitAcknowledgedAt('orders', id);
      if (committedAt === null || committedAt > answeredAt.get(id)!) continue;
      if (!(await db.collection<{ _id: string }>('orders').findOne({ _id: id }))) lost.push(id);
    }
    return lost;
  }

  const shop = (node: ServerProcess, path: string, body?: unknown) => api(`${node.url}/api/v1${path}`, { key, ...(body !== undefined && { body }) });

  it('before the fault: orders and quotes answer', async () => {
    orderId = expectStatus(await shop(first(), '/orders', orderBody(PLACES.santiago)), 201).body.booking_id;
    expectStatus(await shop(first(), '/shipping/quote', quoteBody), 200);
  });

  it('MongoDB paused: store requests and quotes 503 with Retry-After within 2 s, health 503', async () => {
    cluster.pauseStore();
    const list = await timed('GET /orders', () => shop(first(), '/orders'));
    expect(list.value.status).toBe(503);
    expect(list.value.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(list.value.headers.get('retry-after')).toMatch(/^\d+$/);
    figures.ordersWhileMongoPaused = list.ms;
    const read = await timed('GET /orders/{id}', () => shop(first(), `/orders/${orderId}`));
    expect(read.value.status).toBe(503);
    const create = await timed('POST /orders', () => shop(first(), '/orders', orderBody(PLACES.santiago)));
    expect(create.value.status).toBe(503);
    // A quote is stored (quote_id, issue #17), so it needs the store too: 503 like the others, in time.
    const quote = await timed('POST /shipping/quote', () => shop(first(), '/shipping/quote', quoteBody));
    expect(quote.value.status).toBe(503);
    expect(quote.value.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(quote.value.headers.get('retry-after')).toMatch(/^\d+$/);
    figures.quoteWhileMongoPaused = quote.ms;
    const health = await timed('GET /health', () => api(`${first().url}/api/v1/health`));
    expect(health.value.status).toBe(503);
  });

  it('MongoDB paused: SIGTERM exits within its grace', async () => {
    const second = cluster.nodes[1]!;
    const started = Date.now();
    const code = await second.terminate();
    figures.sigtermWhileMongoPaused = Date.now() - started;
    expect(code).toBe(0);
    expect(figures.sigtermWhileMongoPaused).toBeLessThan(500 + 3000);
  });

  it('MongoDB resumed: the node recovers on its own; a new node starts', async () => {
    cluster.resumeStore();
    const started = Date.now();
    await until(async () => (await shop(first(), '/orders')).status === 200, 'GET /orders to answer 200 after SIGCONT', 15_000, 100);
    figures.mongoRecovery = Date.now() - started;
    expectStatus(await shop(first(), '/orders', orderBody(PLACES.santiago)), 201);
    cluster.nodes.splice(1, 1);
    await cluster.addNode();
  });

  it('Redis paused: every request still answers within 2 s (quotes and store reads 200)', async () => {
    cluster.freezeRedis();
    try {
      const quote = await timed('POST /shipping/quote', () => shop(first(), '/shipping/quote', quoteBody));
      expect(quote.value.status).toBe(200);
      const read = await timed('GET /orders/{id}', () => shop(first(), `/orders/${orderId}`));
      expect(read.value.status).toBe(200);
      figures.readWhileRedisPaused = read.ms;
    } finally {
      cluster.thawRedis();
    }
  });

  it('Redis killed: orders still answer on both nodes; restarted: /health ok again on both, without restarting them', async () => {
    await cluster.killRedis();
    for (const node of cluster.nodes) {
      const created = await timed('POST /orders with Redis down', () => shop(node, '/orders', orderBody(PLACES.santiago)));
      expect(created.value.status).toBe(201);
      expect((await healthOf(node)).body.status).toBe('degraded');
    }
    await cluster.restartRedis();
    const started = Date.now();
    for (const node of cluster.nodes) await until(async () => (await healthOf(node)).body.status === 'ok', `/health ok on ${node.url}`, 15_000, 100);
    figures.redisRecovery = Date.now() - started;
  });

  it(`a node SIGKILLed while dispatching ${BURST} orders: no courier stays busy without an order, no acknowledged order is lost`, async () => {
    const [victim, survivor] = cluster.nodes as [ServerProcess, ServerProcess];
    const [silent, ...fleet] = cluster.couriers;
    for (const courier of fleet) {
      const client = courierOn(survivor, courier);
      expectStatus(await client.duty(true), 200);
      expectStatus(await client.position(PLACES.providencia), 200);
    }
    // The burst goes to the victim. When its first order is answered the store is frozen, so the
    // others stop wherever they are (a courier claimed, its order not yet assigned, …), and the
    // victim dies there; then the store comes back for the survivor.
    const acknowledged: string[] = [];
    const answeredAt = new Map<string, number>();
    const burst = Array.from({ length: BURST }, (_, i) =>
      shop(victim, '/orders', orderBody(PLACES.providencia, `BURST-${i}`)).then(
        (res) => {
          if (res.status !== 201) return;
          answeredAt.set(res.body.booking_id as string, Date.now());
          acknowledged.push(res.body.booking_id as string);
        },
        () => {}, // the connection died with the node
      ),
    );
    await until(() => acknowledged.length > 0, 'the first order of the burst', 15_000, 5);
    cluster.pauseStore();
    await sleep(200);
    await victim.kill();
    cluster.resumeStore();
    const killedAt = Date.now();
    await Promise.all(burst);

    const client = new MongoClient(cluster.mongo!.server.url);
    await client.connect();
    let lostByJongodb: string[] = [];
    try {
      const db = client.db(cluster.mongo!.dbName);
      type CourierDoc = { _id: string; status: string; job: { kind: string; id: string } | null; location: unknown; updatedAt: string };
      const strandedCouriers = async () => {
        const couriers = await db.collection<CourierDoc>('couriers').find({}).toArray();
        const stranded: string[] = [];
        for (const courier of couriers.filter((c) => c.status === 'busy')) {
          const order = courier.job?.kind === 'order' ? await db.collection<{ _id: string; status: string; courierId: string | null }>('orders').findOne({ _id: courier.job.id }) : null;
          if (!order || order.courierId !== courier._id || ['completed', 'cancelled'].includes(order.status)) stranded.push(courier._id);
        }
        return { stranded, available: couriers.filter((c) => c.status === 'available' && c.location).length };
      };
      figures.strandedByTheKill = (await strandedCouriers()).stranded.length;
      // The kill's timing decides whether it lands between a claim and its assignment; this is the
      // state such a death leaves, written for certain: a courier busy on an order that is not theirs.
      await db.collection<CourierDoc>('couriers').updateOne(
        { _id: silent!.id },
        { $set: { status: 'busy', job: { kind: 'order', id: acknowledged[0]! }, updatedAt: new Date().toISOString() } },
      );
      expect((await strandedCouriers()).stranded).toContain(silent!.id);
      // Recovered: no courier busy without its order, and no order left waiting while a courier is free.
      await until(
        async () => {
          const { stranded, available } = await strandedCouriers();
          const waiting = await db.collection('orders').countDocuments({ status: 'new', referenceId: /^BURST-/ });
          return stranded.length === 0 && (available === 0 || waiting === 0);
        },
        'no stranded courier and no order waiting beside a free courier',
        20_000,
        100,
      );
      figures.dispatchRecoveryAfterKill = Date.now() - killedAt;
      // Nothing lost: every order the victim acknowledged is in the store.
      const stored = (await db.collection('orders').find({ referenceId: /^BURST-/ }).toArray()).map((o) => `${String(o._id)} ${String(o.status)}`);
      const missing = acknowledged.filter((id) => !stored.some((line) => line.startsWith(`${id} `)));
      lostByJongodb = await lostByTheStore(missing, answeredAt, db);
      if (lostByJongodb.length > 0) {
        figures.lostByJongodb = lostByJongodb.length;
        console.warn(
          `mongo-faults: ${lostByJongodb.join(', ')} acknowledged but lost by jongodb (its commit acknowledged before the 201, ` +
            'no order ever deleted, and jongodb loses concurrent commits: see test/contract/mongo-committed-inserts.test.ts)',
        );
      }
      const lost = missing.filter((id) => !lostByJongodb.includes(id));
      expect(lost, `acknowledged: ${acknowledged.join(', ')}; stored: ${stored.join(', ')}; lost by jongodb: ${lostByJongodb.join(', ') || 'none'}`).toEqual([]);
    } finally {
      await client.close();
    }
    for (const id of acknowledged.filter((id) => !lostByJongodb.includes(id))) expect(expectStatus(await shop(survivor, `/orders/${id}`), 200).body.booking_id).toBe(id);
    figures.acknowledgedBeforeKill = acknowledged.length;
    expect((await healthOf(survivor)).status).toBe(200);
  });
});
