import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderStatusMessage } from '../../src/ports/event-bus.js';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { formB, startOrdersApp } from '../orders/support.js';

const FLOW = ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed'];

async function until<T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('sandbox simulator', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const published: OrderStatusMessage[] = [];

  beforeAll(async () => {
    t = await startOrdersApp({ env: { SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: '100', SANDBOX_SPEED: '500', SANDBOX_COURIERS_PER_VEHICLE: '1' } });
    m = await t.createMerchant();
    t.app.container.bus.subscribe((msg) => {
      if (msg.type === 'order.status_changed') published.push(msg);
    });
  });
  afterAll(() => t.stop());

  it('drives a test order through every state to completed on its own, publishing each change', async () => {
    const created = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formB() });
    expect(created.status).toBe(201);
    const id = created.body.booking_id as string;

    const done = await until(async () => {
      const d = await api(`${t.url}/api/v1/orders/${id}`, { key: m.testKey });
      return d.body.status === 'completed' ? d.body : undefined;
    });
    expect(done.proof).toMatchObject({ bypass: false, distance_m: 0 });
    expect(done.driver.vehicle_plate).toMatch(/^SIM-/);

    const statuses = published.filter((p) => p.orderId === id).map((p) => p.status);
    expect(statuses).toEqual(FLOW);
    const events = await api(`${t.url}/api/v1/orders/${id}/events`, { key: m.testKey });
    expect(events.body.events.map((e: { status: string }) => e.status)).toEqual(FLOW);
  });

  it('speed comes from the merchant setting sandbox_speed', async () => {
    const slow = await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { sandbox_speed: 1 } });
    expect(slow.body.settings.sandbox_speed).toBe(1);
    const created = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formB() });
    await new Promise((r) => setTimeout(r, 1500));
    const d = await api(`${t.url}/api/v1/orders/${created.body.booking_id}`, { key: m.testKey });
    // At walking-pace speed the courier is still on its way after 1.5 s.
    expect(['assigned', 'arrived_pickup']).toContain(d.body.status);
    await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { sandbox_speed: null } });
  });

  it('never drives live orders', async () => {
    const created = await api(`${t.url}/api/v1/orders`, { key: m.liveKey, body: formB() });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('new');
    await new Promise((r) => setTimeout(r, 500));
    const d = await api(`${t.url}/api/v1/orders/${created.body.booking_id}`, { key: m.liveKey });
    expect(d.body.status).toBe('new');
  });
});

describe('POST /api/v1/sandbox/orders/{id}/advance', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    // The simulator's fleet exists but does not drive (a tick far in the future): each step is ours.
    t = await startOrdersApp({ env: { SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: '60000', SANDBOX_COURIERS_PER_VEHICLE: '1' } });
    m = await t.createMerchant();
  });
  afterAll(() => t.stop());

  it('moves one test order one step at a time, to completed, then refuses', async () => {
    const created = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formB() });
    const id = created.body.booking_id as string;
    let status = created.body.status as string;
    expect(status).toBe('assigned');
    for (const next of FLOW.slice(2)) {
      const step = await api(`${t.url}/api/v1/sandbox/orders/${id}/advance`, { key: m.testKey, method: 'POST' });
      expect(step.status).toBe(200);
      expect(step.body.status).toBe(next);
      status = step.body.status;
    }
    expect(status).toBe('completed');
    const after = await api(`${t.url}/api/v1/sandbox/orders/${id}/advance`, { key: m.testKey, method: 'POST' });
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('INVALID_STATUS_TRANSITION');
  });

  it('refuses live keys with 403 and unknown orders with 404', async () => {
    const live = await api(`${t.url}/api/v1/sandbox/orders/bk_whatever/advance`, { key: m.liveKey, method: 'POST' });
    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe('FORBIDDEN');
    const unknown = await api(`${t.url}/api/v1/sandbox/orders/bk_missing/advance`, { key: m.testKey, method: 'POST' });
    expect(unknown.status).toBe(404);
  });
});
