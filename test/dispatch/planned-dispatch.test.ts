import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { LatLng } from '../../src/domain/types.js';
import { api, type TestApp } from '../helpers/app.js';
import { EVIDENCE, north, PLACES, startOrdersApp } from '../orders/support.js';

/**
 * Live dispatch takes the policy's path (issue #37, DISPATCH_POLICY=planned, the default): an order
 * with a preparation time placed through REST stays `new` although a courier is free next to the
 * pickup, and the periodic round — the same planner the MDRP bench replays — commits it once the
 * courier must leave, with the pickup estimated at the ready time; an order without a preparation
 * time is dispatched at creation as the spec says. Real app, real HTTP, SQLite.
 */
describe('planned dispatch through REST', () => {
  let t: TestApp;
  afterEach(async () => {
    await t?.stop();
  });

  let plate = 0;
  async function courierAt(point: LatLng) {
    const created = await t.app.container.services.admin.createCourier({
      input: { name: `Courier ${++plate}`, phone: `+5698${String(2_000_000 + plate).slice(-7)}`, vehicle: 'motorcycle', plate: `PD${1000 + plate}`, mode: 'live' },
    });
    const call = (path: string, body: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: created.token, body });
    expect((await call('/duty', { on_duty: true })).status).toBe(200);
    expect((await call('/location', point)).status).toBe(200);
    return { id: created.courierId, token: created.token };
  }

  const body = (prep: number) => ({
    pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
    dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
    customer_name: 'Camila Rojas', customer_phone: '+56912345678', prep_time_mins: prep,
    items: [{ name: 'Empanadas', quantity: 2, weight_kg: 0.5 }],
  });

  it('an order with a prep time waits new for the round, which commits the free courier with the pickup at the ready time', async () => {
    // Rounds are run by hand here (a 10-minute period keeps the runner out of the way); a long slack makes the courier due at once.
    t = await startOrdersApp({ env: { DISPATCH_POLICY: 'planned', DISPATCH_ROUND_MS: '600000', DISPATCH_COMMIT_SLACK_S: '3600' } });
    const { liveKey } = await t.createMerchant();
    const courier = await courierAt(north(PLACES.providencia, 300));
    const created = await api(`${t.url}/api/v1/orders`, { key: liveKey, body: body(12) });
    expect(created.status).toBe(201);
    const order = created.body as { booking_id: string; status: string };
    expect(order.status).toBe('new');
    // Neither the reconciler nor a courier freeing up hands it out: only the round does.
    await t.app.container.services.reconciler.reconcile();
    expect(((await api(`${t.url}/api/v1/orders/${order.booking_id}`, { key: liveKey })).body as { status: string }).status).toBe('new');

    const report = await t.app.container.services.planner.planRound();
    expect(report).toMatchObject({ orders: 1, couriers: 1, committed: 1 });
    const after = (await api(`${t.url}/api/v1/orders/${order.booking_id}`, { key: liveKey })).body as { status: string; driver: { id: string } | null; estimated_pickup_time: string; created_at: string };
    expect(after.status).toBe('assigned');
    expect(after.driver?.id).toBe(courier.id);
    // The courier is a minute away; the food is ready 12 minutes after creation: the pickup is then.
    expect(Date.parse(after.estimated_pickup_time) - Date.parse(after.created_at)).toBeGreaterThanOrEqual(12 * 60_000 - 1000);
    expect(Date.parse(after.estimated_pickup_time) - Date.parse(after.created_at)).toBeLessThan(13 * 60_000);

    // The courier delivers; the round is what dispatches again (the next order waits for it).
    const call = (path: string, payload: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: courier.token, body: payload });
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expect((await call(`/orders/${order.booking_id}/status`, { status })).status).toBe(200);
    const next = (await api(`${t.url}/api/v1/orders`, { key: liveKey, body: body(5) })).body as { booking_id: string; status: string };
    expect(next.status).toBe('new');
    expect((await call(`/orders/${order.booking_id}/deliver`, { driver_id: courier.id, coords: PLACES.lasCondes, bypass: true, ...EVIDENCE })).status).toBe(200);
    expect(((await api(`${t.url}/api/v1/orders/${next.booking_id}`, { key: liveKey })).body as { status: string }).status).toBe('new');
    expect((await t.app.container.services.planner.planRound()).committed).toBe(1);
    expect(((await api(`${t.url}/api/v1/orders/${next.booking_id}`, { key: liveKey })).body as { status: string }).status).toBe('assigned');
  });

  it('the round leaves an order not yet due (the courier need not leave yet), and never sends a courier it cannot pick up before its shift ends', async () => {
    t = await startOrdersApp({ env: { DISPATCH_POLICY: 'planned', DISPATCH_ROUND_MS: '60000' } });
    const { liveKey } = await t.createMerchant();
    const courier = await courierAt(north(PLACES.providencia, 300));
    const order = (await api(`${t.url}/api/v1/orders`, { key: liveKey, body: body(15) })).body as { booking_id: string };
    // Ready in 15 minutes, a minute away, 8 minutes of slack (the default), rounds every minute: it need not leave for 6 minutes.
    expect((await t.app.container.services.planner.planRound()).committed).toBe(0);
    // Its shift ends before the food is ready: never committed, even when due.
    await t.app.container.store.couriers.setShiftEnd({ id: courier.id, shiftEndsAt: new Date(Date.now() + 10 * 60_000).toISOString(), updatedAt: new Date().toISOString() });
    const soon = await courierAt(north(PLACES.providencia, 600));
    await t.app.container.store.couriers.setShiftEnd({ id: soon.id, shiftEndsAt: new Date(Date.now() + 10 * 60_000).toISOString(), updatedAt: new Date().toISOString() });
    expect((await t.app.container.services.planner.planRound()).committed).toBe(0);
    expect(((await api(`${t.url}/api/v1/orders/${order.booking_id}`, { key: liveKey })).body as { status: string }).status).toBe('new');
  });

  it('an order without a prep time is dispatched at creation (the spec’s immediate dispatch), as with DISPATCH_POLICY=greedy for any order', async () => {
    t = await startOrdersApp({ env: { DISPATCH_POLICY: 'planned', DISPATCH_ROUND_MS: '600000' } });
    const { liveKey } = await t.createMerchant();
    const courier = await courierAt(north(PLACES.providencia, 300));
    const now = (await api(`${t.url}/api/v1/orders`, { key: liveKey, body: body(0) })).body as { booking_id: string; status: string };
    expect(now.status).toBe('assigned');
    expect(((await api(`${t.url}/api/v1/orders/${now.booking_id}`, { key: liveKey })).body as { driver: { id: string } | null }).driver?.id).toBe(courier.id);
    // In distributed mode one node runs the round at a time: this app's node took the lease at start; another owner's round does not run.
    const { planner } = t.app.container.services;
    expect(await planner.planRoundIfLeader({ owner: 'node-b', leaseMs: 60_000 })).toBeNull();
    await t.stop();
    t = await startOrdersApp({ env: { DISPATCH_POLICY: 'greedy' } });
    const other = await t.createMerchant();
    await courierAt(north(PLACES.providencia, 300));
    expect(((await api(`${t.url}/api/v1/orders`, { key: other.liveKey, body: body(20) })).body as { status: string }).status).toBe('assigned');
  });
});

describe('the dispatch policy setting', () => {
  it('is planned by default (look-ahead on, 16 candidates, bundles up to 5 minutes past the estimate); greedy stays selectable', () => {
    const { policy } = loadConfig({}).dispatch;
    expect(policy).toMatchObject({ kind: 'planned', lookAhead: true, candidates: 16, bundle: { promiseSlackMs: 300_000 } });
    expect(loadConfig({ DISPATCH_POLICY: 'greedy' }).dispatch.policy.kind).toBe('greedy');
  });
});
