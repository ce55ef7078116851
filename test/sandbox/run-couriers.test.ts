import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { north, PLACES } from '../orders/support.js';
import { gqlOps, signedInOperator } from '../operators/support.js';
import { until } from '../realtime/support.js';

const COURIERS = `query ($mode: Mode, $first: Int, $after: ID) {
  adminCouriers(mode: $mode, first: $first, after: $after) { couriers { id name plate } nextCursor } }`;
const START = '2026-06-01T15:00:00.000Z';
const ORDER = {
  pickup: { address: 'Av. Providencia 1234, Providencia' },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes' },
  customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid',
};

/**
 * Issue #39 item 5.2: each sandbox run left a "Sandbox Run Courier" in the operators' courier list
 * (85 runs, 85 couriers). A run's couriers are never listed and are gone from the store when it ends.
 */
describe('sandbox runs leave no courier behind', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let cookie: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { SANDBOX_SIMULATOR: 'false', SANDBOX_SPEED: '10', RATE_LIMIT_PER_MIN: '100000' } });
    m = await t.createMerchant({ name: 'Sandbox Runs' });
    cookie = (await signedInOperator(t, 'sol@ops.example.cl', 'support')).cookie;
    await t.app.container.services.auditedAdmin.as({ kind: 'cli' }).createCourier({ input: { name: 'Real Courier', phone: '+56912340001', vehicle: 'car', plate: 'CAR001', mode: 'test' } });
  });
  afterAll(() => t?.stop());

  /** Every courier the operators' list shows, page by page. */
  const listed = async (mode?: string) => {
    const all: Array<{ id: string; name: string; plate: string }> = [];
    let after: string | null = null;
    do {
      const res = await gqlOps(t, cookie, COURIERS, { variables: { mode, first: 1, after } });
      expect(res.body.errors).toBeUndefined();
      all.push(...res.body.data.adminCouriers.couriers);
      after = res.body.data.adminCouriers.nextCursor;
    } while (after);
    return all;
  };

  it('3 runs (2 REST, 1 GraphQL, one with a second courier) add no courier to the operators’ list and leave none in the store', { timeout: 120_000 }, async () => {
    const before = { all: await listed(), test: await listed('test') };
    expect(before.test.map((c) => c.name)).toEqual(['Real Courier']);
    for (const [scenario, seed] of [['delivered', 'a'], ['courier_reassigned', 'b']]) {
      const res = await api(`${t.url}/api/v1/sandbox/runs`, { key: m.testKey, body: { scenario, seed, start_time: START, order: ORDER } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const order = { pickup: { address: ORDER.pickup.address }, dropoff: { address: ORDER.dropoff.address }, customerName: 'Ana Pérez', customerPhone: '+56987654321', paymentMode: 'prepaid' };
    const res = await gql(t.url, `mutation($order: CreateOrderInput!) { startSandboxRun(scenario: delivered, seed: "c", startTime: "${START}", order: $order) {
      __typename ... on MutationStartSandboxRunSuccess { data { id order { status } } } ... on AppError { code } } }`, { key: m.testKey, variables: { order } });
    expect(res.body.data.startSandboxRun.data.order.status).toBe('completed');

    expect(await listed()).toEqual(before.all);
    expect(await listed('test')).toEqual(before.test);
    const stored = await t.app.container.store.couriers.listByMode('test');
    expect(stored.filter((c) => c.plate.startsWith('RUN-') || c.name.startsWith('Sandbox Run Courier'))).toEqual([]);
    expect(stored.map((c) => c.name)).toEqual(['Real Courier']);
    // Gone from the store, a run is still played once: the same request again is refused.
    const again = await api(`${t.url}/api/v1/sandbox/runs`, { key: m.testKey, body: { scenario: 'delivered', seed: 'a', start_time: START, order: ORDER } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  /** A run courier as older versions left them (off duty, in the store). */
  const plantRunCourier = async (n: number) => {
    const at = new Date().toISOString();
    const id = `cr_01JRNCR000000000000000000${n}`;
    await t.app.container.store.couriers.insert({
      id, mode: 'test', name: `Sandbox Run Courier ${n}`, phone: `+5690000900${n}`, vehicle: 'van', plate: `RUN-00${n}`, shiftEndsAt: null,
      tokenHash: String(n).repeat(64), accountStatus: 'active', status: 'off_duty', location: PLACES.santiago, locationAt: at, job: null, createdAt: at, updatedAt: at,
    });
    return id;
  };

  it('a run courier left in the store by an older version is not listed', async () => {
    await plantRunCourier(1);
    expect((await listed('test')).map((c) => c.name)).toEqual(['Real Courier']);
  });

  it('the live fleet (adminFleet, the /ops map) never carries a run courier: not in the first frame, not when it moves', async () => {
    class BrowserSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { cookie, origin: t.url } });
      }
    }
    const OLD_RUN_COURIER = await plantRunCourier(2);
    type Frame = { couriers: Array<{ courierId: string; name: string; location: { lat: number } | null }> };
    const frames: Frame[] = [];
    const client = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: BrowserSocket, connectionParams: { scope: 'operator' }, retryAttempts: 0 });
    client.subscribe<{ adminFleet: Frame }>({ query: 'subscription { adminFleet(mode: test) { couriers { courierId name location { lat } } } }' }, {
      next: (r) => void (r.data && frames.push(r.data.adminFleet)), error: () => {}, complete: () => {},
    });
    try {
      const real = (await listed('test'))[0]!;
      await until(() => frames.find((f) => f.couriers.some((c) => c.courierId === real.id)), 'the first frame with the real courier');
      // A run courier's position (as while a run plays), then the real courier's: the second one's frame shows, the first never does.
      const to = north(PLACES.santiago, 500);
      await t.app.container.bus.publish({ type: 'courier.position', courierId: OLD_RUN_COURIER, mode: 'test', location: to, orderIds: [], at: new Date().toISOString() });
      await t.app.container.bus.publish({ type: 'courier.position', courierId: real.id, mode: 'test', location: to, orderIds: [], at: new Date().toISOString() });
      await until(() => frames.find((f) => f.couriers.some((c) => c.courierId === real.id && c.location?.lat === to.lat)), 'the real courier’s move');
      expect(frames.flatMap((f) => f.couriers).filter((c) => c.courierId === OLD_RUN_COURIER || c.name.startsWith('Sandbox Run Courier'))).toEqual([]);
    } finally {
      await client.dispose();
    }
  });
});
