import { afterEach, describe, expect, it } from 'vitest';
import type { LatLng } from '../../src/domain/types.js';
import { api, type TestApp } from '../helpers/app.js';
import { formA, north, PLACES, startOrdersApp } from './support.js';

/**
 * Dispatch heals itself: stale geo-index entries are evicted and passed over, silent couriers are
 * not dispatched, and the reconciler (one node at a time, by lease) re-offers queued orders, frees
 * couriers stuck busy without an active order and repairs batches. Real app, real HTTP, SQLite.
 */
describe('self-healing dispatch', () => {
  let t: TestApp;
  afterEach(async () => {
    await t?.stop();
  });

  const until = async <T>(check: () => Promise<T | false>, what: string, timeoutMs = 8000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== false) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  let plate = 0;
  async function courierAt(point: LatLng | null) {
    const created = await t.app.container.services.admin.createCourier({
      input: { name: `Courier ${++plate}`, phone: `+5698${String(1_000_000 + plate).slice(-7)}`, vehicle: 'motorcycle', plate: `SH${1000 + plate}`, mode: 'test' },
    });
    const call = (path: string, body: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: created.token, body });
    expect((await call('/duty', { on_duty: true })).status).toBe(200);
    if (point) expect((await call('/location', point)).status).toBe(200);
    return { id: created.courierId, report: (p: LatLng) => call('/location', p) };
  }

  async function createOrder(key: string) {
    const res = await api(`${t.url}/api/v1/orders`, { key, body: formA() });
    expect(res.status).toBe(201);
    return res.body as { booking_id: string; status: string };
  }
  const orderOf = async (key: string, id: string) => (await api(`${t.url}/api/v1/orders/${id}`, { key })).body as { status: string; driver: { id: string } | null };

  it('the issue: a new order goes to the free courier 2 km away although the 5 nearest index entries are stale (evicted)', async () => {
    t = await startOrdersApp();
    const { testKey } = await t.createMerchant();
    const { store } = t.app.container;
    // Five couriers the geo index still proposes at the pickup, though the store has them off duty
    // (a deletion the index missed, as during a Redis blip).
    const ghosts = [];
    for (let i = 0; i < 5; i++) ghosts.push(await courierAt(PLACES.providencia));
    for (const ghost of ghosts) await store.couriers.setStatus({ id: ghost.id, status: 'off_duty', updatedAt: new Date().toISOString() });
    const free = await courierAt(north(PLACES.providencia, 2000));

    const order = await createOrder(testKey);
    expect(order.status).toBe('assigned');
    expect((await orderOf(testKey, order.booking_id)).driver?.id).toBe(free.id);
    // The stale entries are gone from the index: nothing proposes them any more.
    const proposed = await t.app.container.geoIndex.nearest({ mode: 'test', vehicles: ['motorcycle'], point: PLACES.providencia, limit: 10 });
    expect(proposed.map((c) => c.courierId)).not.toContain(ghosts[0]!.id);
  });

  /** Short liveness window and fast reconciler rounds (grace = 2 × the store timeout: 400 ms). */
  const FAST = { COURIER_STALE_AFTER_MS: '1000', DISPATCH_RECONCILE_MS: '150', STORE_TIMEOUT_MS: '200' };
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

  it('liveness: a courier silent past COURIER_STALE_AFTER_MS is not dispatched and leaves the index; reporting again, it gets the queued order', async () => {
    t = await startOrdersApp({ env: FAST });
    const { testKey } = await t.createMerchant();
    const silent = await courierAt(north(PLACES.providencia, 300));
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const order = await createOrder(testKey);
    expect(order.status).toBe('new');
    await until(async () => {
      const proposed = await t.app.container.geoIndex.nearest({ mode: 'test', vehicles: ['motorcycle'], point: PLACES.providencia, limit: 10 });
      return !proposed.some((c) => c.courierId === silent.id) || false;
    }, 'the silent courier to leave the geo index');
    expect((await orderOf(testKey, order.booking_id)).status).toBe('new');

    expect((await silent.report(north(PLACES.providencia, 250))).status).toBe(200);
    const assigned = await until(async () => {
      const now = await orderOf(testKey, order.booking_id);
      return now.status === 'assigned' && now;
    }, 'the reconciler to offer the queued order to the courier that reported again');
    expect(assigned.driver?.id).toBe(silent.id);
  });

  it('a courier left busy by a claim whose assignment never came (node died) is freed and takes the queued order', async () => {
    t = await startOrdersApp({ env: FAST });
    const { testKey } = await t.createMerchant();
    const stuck = await courierAt(north(PLACES.providencia, 100));
    const { store } = t.app.container;
    // The claim of a node that died before assigning: busy on an order that never became its.
    await store.couriers.setStatus({ id: stuck.id, status: 'busy', from: ['available'], job: { kind: 'order', id: 'bk_never_assigned' }, updatedAt: ago(60_000) });
    await t.app.container.geoIndex.remove({ courierId: stuck.id, mode: 'test', vehicle: 'motorcycle' });
    const order = await createOrder(testKey);
    expect(order.status).toBe('new');
    const assigned = await until(async () => {
      const now = await orderOf(testKey, order.booking_id);
      return now.status === 'assigned' && now;
    }, 'the stuck courier to be freed and given the order');
    expect(assigned.driver?.id).toBe(stuck.id);
    expect((await store.couriers.findById(stuck.id))?.job).toStrictEqual({ kind: 'order', id: order.booking_id });
  });

  it("batch repair: a batch's unassigned order goes to the batch's courier; an order of a cancelled batch goes back to dispatch", async () => {
    t = await startOrdersApp({ env: FAST });
    const { testKey, merchantId } = await t.createMerchant();
    const { store } = t.app.container;
    // No courier is on duty yet: the orders stay queued.
    const first = await createOrder(testKey);
    const second = await createOrder(testKey);
    const orphan = await createOrder(testKey);
    // The batch's courier never goes on duty here (never in the index, so never offered other work).
    const carrier = { id: (await t.app.container.services.admin.createCourier({ input: { name: 'Batch carrier', phone: '+56987654321', vehicle: 'motorcycle', plate: 'SH0001', mode: 'test' } })).courierId };
    const batchId = `bt_repair_${Date.now()}`;
    const now = new Date().toISOString();
    await store.batches.insert({
      id: batchId, merchantId, mode: 'test', geohashZone: '66jc', vehicleType: 'motorcycle', orderIds: [first.booking_id, second.booking_id],
      totalWeightKg: 2, courierId: carrier.id, status: 'assigned', createdAt: now, updatedAt: now,
    });
    for (const id of [first.booking_id, second.booking_id]) await store.orders.apply({ id, from: ['new'], patch: { batchId } });
    // A node died in dispatchBatchTo after claiming the courier and taking the batch, before assigning its orders.
    // (Made busy only once its batch exists: a reconciler round between the two would rightly free it.)
    expect(await store.couriers.setStatus({ id: carrier.id, status: 'busy', from: ['off_duty'], job: { kind: 'batch', id: batchId }, updatedAt: ago(60_000) })).toBeTruthy();
    // An order whose batch was cancelled but which kept its batch id: never in the queue again.
    await store.orders.apply({ id: orphan.booking_id, from: ['new'], patch: { batchId: 'bt_cancelled_or_gone' } });
    const spare = await courierAt(north(PLACES.providencia, 500));

    for (const id of [first.booking_id, second.booking_id]) {
      const assigned = await until(async () => {
        const o = await orderOf(testKey, id);
        return o.status === 'assigned' && o;
      }, `batch order ${id} to be given to the batch courier`);
      expect(assigned.driver?.id).toBe(carrier.id);
    }
    const redispatched = await until(async () => {
      const o = (await api(`${t.url}/api/v1/orders/${orphan.booking_id}`, { key: testKey })).body as { status: string; batch_id: string | null; driver: { id: string } | null };
      return o.status === 'assigned' && o;
    }, 'the orphaned order to be dispatched again');
    expect(redispatched.batch_id).toBeNull();
    expect(redispatched.driver?.id).toBe(spare.id);
  });
});
