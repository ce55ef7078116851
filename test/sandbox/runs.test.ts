/**
 * Deterministic sandbox runs (issue #31 item 2), through REST (OpenAPI-validated) and GraphQL, on
 * both stores: a run's full event stream — history, positions, feed events and every webhook body
 * as the receiver got it — is asserted byte for byte against a committed fixture, which both
 * stores must reproduce (same ids from sequentialIds, same master key, same public base URL).
 * Set UPDATE_SANDBOX_FIXTURES=1 to rewrite the fixtures (then review the diff).
 */
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ed25519 } from '@noble/curves/ed25519.js';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { sequentialIds } from '../helpers/fast-path-sides.js';
import { startCommitWitness, type CommitWitness } from '../helpers/mongo-commit-witness.js';
import { mongoForTestFile, mongoNodeEnv, uniqueDbName } from '../helpers/mongo.js';
import { PLACES, courierOnDuty, north, standDown } from '../orders/support.js';
import { FAST_WEBHOOKS, startReceiver, waitFor, webhooksApi, type Receipt, type Receiver } from '../webhooks/support.js';

const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
const FIXTURE = (scenario: string) => new URL(`../fixtures/sandbox-run-${scenario}.json`, import.meta.url);
const START = '2026-06-01T15:00:00.000Z';
const ORDER = {
  pickup: { address: 'Av. Providencia 1234, Providencia' },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes' },
  customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid', reference_id: 'CI-1',
};
const ALL_EVENTS = ['order.status_changed', 'order.courier_location', 'order.eta_changed'];

const { mongo, skipReason } = await mongoForTestFile();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** What a run is compared on: everything that must be the same every time (never attempt times or store positions). */
async function streamOf(t: TestApp, m: MerchantCredentials, run: Record<string, any>, path: string) { // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
  const ids = (run.webhooks as Array<{ id: string }>).map((d) => d.id);
  const received = await waitFor(() => {
    const got = receiver.receipts.filter((r) => r.path === path && r.status === 200);
    return ids.every((id) => got.some((r) => r.id === id)) && got;
  }, { what: `the run's ${ids.length} webhooks`, timeoutMs: 60_000 });
  const byId = new Map<string, Receipt>(received.map((r) => [r.id, r]));
  const feed = (await api(`${t.url}/api/v1/events?limit=100`, { key: m.testKey })).body.events as Array<Record<string, unknown>>;
  return {
    received: [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
    stream: {
      run: { id: run.id, scenario: run.scenario, seed: run.seed, start_time: run.start_time, end_time: run.end_time, booking_id: run.booking_id, tracking_number: run.tracking_number, status: run.status },
      history: run.events,
      positions: run.positions,
      feed: feed.filter((e) => e.booking_id === run.booking_id).map((e) => ({ id: e.id, type: e.type, at: e.at, payload: e.payload })),
      webhooks: ids.map((id) => ({ id, event: byId.get(id)!.event, body: byId.get(id)!.body })),
      // The answer's deliveries: due when the run ends, on its clock (issue #39 item 5.5: it was the real time).
      answer_webhooks: (run.webhooks as Array<Record<string, unknown>>).map((d) => ({ id: d.id, status: d.status, attempts: d.attempts, next_attempt_at: d.next_attempt_at, created_at: d.created_at })),
    },
  };
}

function matchFixture(scenario: string, stream: unknown) {
  const text = `${JSON.stringify(stream, null, 2)}\n`;
  if (process.env.UPDATE_SANDBOX_FIXTURES === '1' || !existsSync(FIXTURE(scenario))) writeFileSync(FIXTURE(scenario), text);
  const expected = readFileSync(FIXTURE(scenario), 'utf8');
  if (text !== expected && process.env.SANDBOX_FIXTURE_ACTUAL) writeFileSync(process.env.SANDBOX_FIXTURE_ACTUAL, text);
  expect(text).toBe(expected);
}

const stores = [
  { name: 'embedded (SQLite)', onMongo: false },
  { name: 'distributed (MongoDB)', onMongo: true },
];

for (const store of stores) {
  describe(`sandbox runs — ${store.name}`, () => {
    let t: TestApp | undefined;
    let m: MerchantCredentials;
    let skip = '';
    /** On MongoDB the app reaches the server through a commit witness (test/helpers/mongo-commit-witness.ts). */
    let witness: CommitWitness | null = null;
    let dbName = '';
    const boot = async () => {
      let env: Record<string, string> = {};
      if (store.onMongo) {
        witness = await startCommitWitness(mongo!.url);
        dbName = uniqueDbName('exd_sandbox_runs');
        env = { ...mongoNodeEnv({ kind: mongo!.kind, url: witness.url }), MONGODB_DB: dbName };
      }
      t = await startTestApp({
        ids: sequentialIds(),
        env: { ...FAST_WEBHOOKS, ...env, MASTER_KEY, PUBLIC_BASE_URL: 'https://delivery.example.cl', SANDBOX_SPEED: '10' },
      });
      m = await t.createMerchant({ name: 'Sandbox Runs' });
    };
    const shutDown = async () => {
      await t?.stop();
      await witness?.close();
      t = undefined;
      witness = null;
    };
    beforeAll(async () => {
      if (store.onMongo && !mongo) {
        skip = skipReason;
        return;
      }
      await boot();
    }, 120_000);
    afterAll(shutDown);

    /**
     * Inserts the server acknowledged as committed that are gone, with no client having deleted
     * from their collection: jongodb loses a commit that lands while another transaction commits
     * (test/helpers/mongo-lost-commits.ts). Never any on SQLite or a real MongoDB.
     */
    async function lostByTheTestServer(): Promise<Array<{ collection: string; id: string }>> {
      if (!witness || mongo?.kind !== 'jongodb') return [];
      const inserts = witness.acknowledgedInserts().filter((i) => witness!.removalsFrom(i.collection) === 0);
      const client = new MongoClient(mongo.url);
      await client.connect();
      try {
        const lost: Array<{ collection: string; id: string }> = [];
        for (const collection of new Set(inserts.map((i) => i.collection))) {
          const ids = inserts.filter((i) => i.collection === collection).map((i) => i.id);
          const present = new Set((await client.db(dbName).collection<{ _id: string }>(collection).find({ _id: { $in: ids } }).toArray()).map((d) => d._id));
          lost.push(...ids.filter((id) => !present.has(id)).map((id) => ({ collection, id })));
        }
        return lost;
      } finally {
        await client.close();
      }
    }

    /**
     * Runs a test's steps; when they fail on MongoDB and the witness shows the test server lost an
     * acknowledged commit, the steps run again on a fresh app and database (twice at most). Any
     * other failure, and every failure on SQLite, fails the test.
     */
    async function onAFaithfulStore(steps: (app: TestApp, merchant: MerchantCredentials) => Promise<void>): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await steps(t!, m);
        } catch (error) {
          const lost = attempt < 3 ? await lostByTheTestServer() : [];
          if (lost.length === 0) throw error;
          console.warn(`sandbox runs on jongodb: the test server lost ${lost.length} acknowledged insert(s) (${lost.slice(0, 3).map((l) => `${l.collection} ${l.id}`).join(', ')}); the steps run again on a fresh database`);
          await shutDown();
          await boot();
        }
      }
    }

    const run = (body: unknown, key = m.testKey) => api(`${t!.url}/api/v1/sandbox/runs`, { key, body }); // the app of the attempt

    it('REST: a delivered run plays the whole lifecycle; its history, positions, feed and webhook bodies match the fixture byte for byte; v1a verifies', { timeout: 360_000 }, async (ctx) => {
      if (!t) return ctx.skip(skip);
      await onAFaithfulStore(async (t, m) => {
        const path = `/run-${store.name.length}`;
        const hooks = webhooksApi(t.url, m.testKey);
        expect((await hooks.create({ url: `${receiver.url}${path}`, events: ALL_EVENTS, signing: 'asymmetric' })).status).toBe(201);
        const started = performance.now();
        const res = await run({ scenario: 'delivered', seed: 'fixture-1', start_time: START, order: ORDER });
        console.log(`sandbox run (${store.name}): ${Math.round(performance.now() - started)} ms for the whole request`); // a figure, not an assertion
        expect(res.status).toBe(201);
        const { stream, received } = await streamOf(t, m, res.body.run, path);
        expect(stream.run.status).toBe('completed');
        expect(stream.history.map((e: { status: string }) => e.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
        expect(stream.positions.length).toBeGreaterThan(3);
        expect(stream.webhooks.filter((w) => w.event === 'order.status_changed')).toHaveLength(6);
        expect(stream.answer_webhooks.map((d) => d.next_attempt_at)).toEqual(stream.answer_webhooks.map(() => stream.run.end_time));
        matchFixture('delivered', stream);
        // Signed as a real run's: v1a with the merchant's published key, checked by both libraries.
        const keys = (await hooks.publicKeys()).body.keys as Array<{ public_key: string; public_key_pem: string }>;
        for (const r of received) {
          const content = Buffer.from(`${r.id}.${r.timestamp}.${r.body}`);
          const sig = Buffer.from(r.signature.slice(4), 'base64');
          expect(nodeVerify(null, content, createPublicKey(keys[0]!.public_key_pem), sig)).toBe(true);
          expect(ed25519.verify(sig, content, Buffer.from(keys[0]!.public_key, 'base64'))).toBe(true);
        }
        // The webhook log and the order's history show the run.
        const log = (await hooks.deliveries({ limit: '100' })).body.deliveries as Array<{ id: string }>;
        for (const w of stream.webhooks) expect(log.some((d) => d.id === w.id)).toBe(true);
        const history = await api(`${t.url}/api/v1/orders/${stream.run.booking_id}/events`, { key: m.testKey });
        expect(history.body.events).toEqual(stream.history);

        // The same request again draws the same ids: refused, nothing written.
        const again = await run({ scenario: 'delivered', seed: 'fixture-1', start_time: START, order: ORDER });
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('CONFLICT');
      });
    });

    it('REST: every scenario ends as it says (failed_attempt_then_return ends returned); a live key is 403; bad input is 400', { timeout: 540_000 }, async (ctx) => {
      if (!t) return ctx.skip(skip);
      await onAFaithfulStore(async (t, m) => {
        const hooks = webhooksApi(t.url, m.testKey);
        await hooks.create({ url: `${receiver.url}/scenarios`, events: ALL_EVENTS });
        const statuses = async (scenario: string) => {
          const started = performance.now();
          const res = await run({ scenario, seed: `s-${scenario}`, start_time: START, order: ORDER });
          console.log(`sandbox run ${scenario} (${store.name}): ${Math.round(performance.now() - started)} ms`); // a figure, not an assertion
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return res.body.run as { status: string; events: Array<{ status: string; actor: { id: string | null } }>; webhooks: Array<{ event: string }> };
        };
        const pin = await statuses('delivered_with_pin');
        expect(pin.status).toBe('completed');
        const cancelled = await statuses('cancelled_after_assignment');
        expect(cancelled.events.map((e) => e.status)).toEqual(['new', 'assigned', 'cancelled']);
        const reassigned = await statuses('courier_reassigned');
        expect(reassigned.events.map((e) => e.status)).toEqual(['new', 'assigned', 'new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
        expect(reassigned.events[1]!.actor).not.toEqual(reassigned.events.at(-1)!.actor);
        const late = await statuses('late_with_eta_changes');
        expect(late.status).toBe('completed');
        expect(late.webhooks.some((w) => w.event === 'order.eta_changed')).toBe(true);

        const returned = await statuses('failed_attempt_then_return');
        expect(returned.status).toBe('returned');
        expect(returned.events.map((e) => e.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'delivery_failed', 'returning', 'returned']);
        // Each subscribed endpoint gets the eight changes; the attempt rides on delivery_failed and returning, the proof on returned.
        const changes = (returned.webhooks as unknown as Array<{ event: string; sequence: number; payload: Record<string, unknown> }>).filter((w) => w.event === 'order.status_changed');
        expect([...new Set(changes.map((w) => w.sequence))].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        const withAttempt = changes.filter((w) => w.payload.failed_attempt).map((w) => w.payload.status);
        expect([...new Set(withAttempt)].sort()).toEqual(['delivery_failed', 'returning']);
        expect(changes.find((w) => w.payload.status === 'returned')!.payload.return_proof).toMatchObject({ geofence: expect.any(String) });
        const live = await run({ scenario: 'delivered', seed: 'x', start_time: START, order: ORDER }, m.liveKey);
        expect(live.status).toBe(403);
        expect(live.body.error.code).toBe('FORBIDDEN');
        for (const body of [{ scenario: 'delivered', seed: '', start_time: START, order: ORDER }, { scenario: 'teleported', seed: 'x', start_time: START, order: ORDER },
          { scenario: 'delivered', seed: 'x', start_time: 'yesterday', order: ORDER }, { scenario: 'delivered', seed: 'x', start_time: START, order: { customer_name: 'x' } },
          { scenario: 'delivered', seed: 'x', start_time: START, order: ORDER, speed: 3 }]) {
          const bad = await run(body);
          expect(bad.status, JSON.stringify(body)).toBe(400);
          expect(bad.body.error.code).toBe('VALIDATION_ERROR');
        }
      });
    });

    it('order_id: REST and GraphQL play an existing new test order; both or neither is 400; a live or another merchant\'s order is 404; an assigned one is 409', { timeout: 540_000 }, async (ctx) => {
      if (!t) return ctx.skip(skip);
      await onAFaithfulStore(async (t, m) => {
        const create = async (key: string) => {
          const res = await api(`${t!.url}/api/v1/orders`, { key, body: ORDER });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return res.body as { booking_id: string; tracking_number: string; status: string };
        };
        // After the orders' creation (a run's history never goes back in time), on the virtual clock.
        const soon = () => new Date(Date.now() + 60_000).toISOString();
        const existing = await create(m.testKey);
        expect(existing.status).toBe('new');
        const early = await run({ scenario: 'delivered', seed: 'existing-0', start_time: START, order_id: existing.booking_id });
        expect(early.status).toBe(400);
        expect(early.body.error.fields[0].field).toBe('start_time');
        const start = soon();
        // Any id form the order routes accept: here the tracking number.
        const res = await run({ scenario: 'delivered', seed: 'existing-1', start_time: start, order_id: existing.tracking_number });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.body.run).toMatchObject({ booking_id: existing.booking_id, tracking_number: existing.tracking_number, status: 'completed', start_time: start });
        const events = res.body.run.events as Array<{ status: string; at: string }>;
        expect(events.map((e) => e.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
        expect(events[1]!.at).toBe(start);
        expect((res.body.run.webhooks as Array<{ booking_id: string }>).every((w) => w.booking_id === existing.booking_id)).toBe(true);
        expect((await api(`${t.url}/api/v1/orders/${existing.booking_id}`, { key: m.testKey })).body.status).toBe('completed');
        // Played: no longer new.
        const again = await run({ scenario: 'delivered', seed: 'existing-2', start_time: soon(), order_id: existing.booking_id });
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('CONFLICT');

        const MUTATION = `mutation($orderId: String, $order: CreateOrderInput, $start: DateTime!) { startSandboxRun(scenario: delivered, seed: "gql-existing", startTime: $start, orderId: $orderId, order: $order) {
          __typename ... on MutationStartSandboxRunSuccess { data { order { id status } } } ... on AppError { code } } }`;
        const other = await create(m.testKey);
        const played = await gql(t.url, MUTATION, { key: m.testKey, variables: { orderId: other.booking_id, start: soon() } });
        expect(played.body.errors).toBeUndefined();
        expect(played.body.data.startSandboxRun).toEqual({ __typename: 'MutationStartSandboxRunSuccess', data: { order: { id: other.booking_id, status: 'completed' } } });
        const order = { pickup: { address: ORDER.pickup.address }, dropoff: { address: ORDER.dropoff.address }, customerName: 'Ana Pérez', customerPhone: '+56987654321', paymentMode: 'prepaid' };
        for (const variables of [{ orderId: other.booking_id, order, start: soon() }, { start: soon() }]) {
          expect((await gql(t.url, MUTATION, { key: m.testKey, variables })).body.data.startSandboxRun).toEqual({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
        }

        // Already assigned (a node courier took it): refused, and the order is left as it was.
        const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
        try {
          const assigned = await create(m.testKey);
          expect(assigned.status).toBe('assigned');
          const refused = await run({ scenario: 'delivered', seed: 'x', start_time: soon(), order_id: assigned.booking_id });
          expect(refused.status).toBe(409);
          expect(refused.body.error.message).toMatch(/assigned/);
          expect((await api(`${t.url}/api/v1/orders/${assigned.booking_id}`, { key: m.testKey })).body.status).toBe('assigned');
        } finally {
          await standDown(courier);
        }
        for (const body of [{ scenario: 'delivered', seed: 'x', start_time: soon(), order: ORDER, order_id: existing.booking_id }, { scenario: 'delivered', seed: 'x', start_time: soon() }]) {
          const bad = await run(body);
          expect(bad.status, JSON.stringify(body)).toBe(400);
          expect(bad.body.error.code).toBe('VALIDATION_ERROR');
        }
        // Mode-crossing and other merchants' orders are not found, as on the order routes.
        const live = await create(m.liveKey);
        const stranger = await t.createMerchant({ name: 'Sandbox Runs Stranger' });
        const theirs = await create(stranger.testKey);
        for (const id of [live.booking_id, theirs.booking_id]) {
          const missing = await run({ scenario: 'delivered', seed: 'x', start_time: soon(), order_id: id });
          expect(missing.status).toBe(404);
          expect(missing.body.error.code).toBe('ORDER_NOT_FOUND');
        }
      });
    });

    it('GraphQL: startSandboxRun plays a run; a live key gets the typed FORBIDDEN', { timeout: 360_000 }, async (ctx) => {
      if (!t) return ctx.skip(skip);
      await onAFaithfulStore(async (t, m) => {
        const MUTATION = `mutation($order: CreateOrderInput!, $seed: String!) { startSandboxRun(scenario: delivered, seed: $seed, startTime: "${START}", order: $order) {
          __typename ... on MutationStartSandboxRunSuccess { data { id startTime endTime order { id status events { status at } } positions { at lat lng } webhookDeliveries { id event payload } } }
          ... on AppError { code } } }`;
        const order = { pickup: { address: ORDER.pickup.address }, dropoff: { address: ORDER.dropoff.address }, customerName: 'Ana Pérez', customerPhone: '+56987654321', paymentMode: 'prepaid' };
        const res = await gql(t.url, MUTATION, { key: m.testKey, variables: { order, seed: 'gql-1' } });
        expect(res.body.errors).toBeUndefined();
        const data = res.body.data.startSandboxRun.data;
        expect(data.order.status).toBe('completed');
        expect(data.order.events.map((e: { status: string }) => e.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
        expect(data.order.events[0].at).toBe(START);
        const live = await gql(t.url, MUTATION, { key: m.liveKey, variables: { order, seed: 'gql-2' } });
        expect(live.body.data.startSandboxRun).toEqual({ __typename: 'AppError', code: 'FORBIDDEN' });
      });
    });
  });
}
