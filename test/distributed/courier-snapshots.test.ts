/**
 * Courier snapshots across nodes: a courier's socket on node B keeps a snapshot of the courier and
 * its orders; an assignment made on node A must reach B's next reports through the Redis bus
 * (courier.changed), well before the snapshot's maximum age would have it read again anyway; and
 * while Redis is down (A's message is lost) B reads the store instead of trusting its snapshot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { api } from '../helpers/app.js';
import { SNAPSHOT_MAX_AGE_MS } from '../../src/domain/courier-snapshots.js';
import { courierOn, expectStatus, healthOf, orderBody, PLACES, SKIP_REASON, startCluster, until, type Cluster } from './support.js';

const ADMIN_TOKEN = 'snapshot-admin-token-0123456789';

type Frame = { type: string; id?: string; arrivals?: Array<{ booking_id: string; status: string }> };

/** A courier socket on `url`: `report` sends a position frame and resolves with its answer. */
async function courierSocket(url: string, token: string) {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/couriers/me/live`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  await until(() => frames.some((f) => f.type === 'ready'), 'the ready frame');
  let n = 0;
  return {
    ws,
    async report(at: { lat: number; lng: number }): Promise<Frame> {
      const id = `r${++n}`;
      ws.send(JSON.stringify({ type: 'position', id, ...at }));
      return until(() => frames.find((f) => f.id === id), `the answer to ${id}`);
    },
  };
}

describe.skipIf(SKIP_REASON)('courier snapshots on two nodes sharing one SQLite file and one redis-server', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    // A minute between credential rechecks: only the bus can tell node B's session what changed.
    cluster = await startCluster({ nodes: 2, couriers: 2, env: { CREDENTIAL_RECHECK_MS: '60000', ADMIN_TOKEN } });
  });
  afterAll(() => cluster?.stop());

  it("an order assigned on node A: the courier's socket on node B marks the arrival at its pickup", async () => {
    const [a, b] = cluster.nodes;
    const courier = cluster.couriers[0]!;
    const pickup = { lat: PLACES.providencia.lat - 0.004, lng: PLACES.providencia.lng };
    const onA = courierOn(a!, courier);
    expectStatus(await onA.duty(true), 200);
    expectStatus(await onA.position(pickup), 200);

    const socket = await courierSocket(b!.url, courier.token);
    const keptSince = Date.now();
    // Available, no job: B keeps that snapshot.
    for (let i = 0; i < 2; i++) expect(await socket.report(pickup)).toMatchObject({ type: 'ack', arrivals: [] });

    const created = expectStatus(await api(`${a!.url}/api/v1/orders`, { key: cluster.shop.testKey, body: orderBody(pickup) }), 201).body as { booking_id: string; status: string };
    expect(created.status).toBe('assigned');
    // The change travels A → Redis → B beside this test's frame to B: a report may still overtake it.
    const arrived = await until(
      async () => {
        const answer = await socket.report(pickup);
        return answer.arrivals?.length ? answer : null;
      },
      "node B's report to see the assignment",
      SNAPSHOT_MAX_AGE_MS,
      20,
    );
    expect(Date.now() - keptSince).toBeLessThan(SNAPSHOT_MAX_AGE_MS);
    expect(arrived.arrivals).toEqual([{ booking_id: created.booking_id, status: 'arrived_pickup' }]);
    socket.ws.close();
  });

  it("Redis down: a courier disabled on node A is refused at its next frame on node B, though A's message never came", async () => {
    const [a, b] = cluster.nodes;
    const courier = cluster.couriers[1]!;
    const at = { lat: PLACES.providencia.lat - 0.008, lng: PLACES.providencia.lng };
    expectStatus(await courierOn(a!, courier).duty(true), 200);
    const socket = await courierSocket(b!.url, courier.token);
    for (let i = 0; i < 2; i++) expect(await socket.report(at)).toMatchObject({ type: 'ack' });

    await cluster.killRedis();
    await until(async () => (await healthOf(b!)).body.checks.bus === 'down', "the bus down in node B's /health", 8000, 100);
    const disabled = await api(`${a!.url}/graphql`, {
      key: ADMIN_TOKEN,
      body: { query: 'mutation ($id: ID!) { adminDisableCourier(courierId: $id) { __typename } }', variables: { id: courier.id } },
    });
    expect(disabled.body).toEqual({ data: { adminDisableCourier: { __typename: 'MutationAdminDisableCourierSuccess' } } });
    expect(await socket.report(at)).toMatchObject({ type: 'error', error: { code: 'INVALID_COURIER_TOKEN' } });
  });
});
