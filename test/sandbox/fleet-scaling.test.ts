import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_PLATE_PREFIX } from '../../src/domain/sandbox.js';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { formA, startOrdersApp } from '../orders/support.js';

/** Polls until `probe` holds (a condition, not a duration): generous for a busy machine. */
async function until(probe: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}

// Issue #38 item 10: the simulated fleet grows with the open test orders.
describe('sandbox fleet scaling', () => {
  let t: TestApp;
  let m: MerchantCredentials;

  beforeAll(async () => {
    // One standing courier per vehicle, at walking pace: without scaling most of 15 orders would wait.
    t = await startOrdersApp({ env: { SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: '500', SANDBOX_SPEED: '1', SANDBOX_COURIERS_PER_VEHICLE: '1', SANDBOX_FLEET_MAX: '40' } });
    m = await t.createMerchant();
  });
  afterAll(() => t.stop());

  it('15 test orders created at once all leave `new` (the simulator adds couriers), within 90 s', async () => {
    const created = await Promise.all(Array.from({ length: 15 }, () => api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formA() })));
    expect(created.map((c) => c.status)).toEqual(Array(15).fill(201));
    const ids = created.map((c) => c.body.booking_id as string);
    const statuses = async () => Promise.all(ids.map(async (id) => (await api(`${t.url}/api/v1/orders/${id}`, { key: m.testKey })).body.status as string));
    await until(async () => (await statuses()).every((s) => s !== 'new'), 90_000);

    const fleet = (await t.app.container.store.couriers.listByMode('test')).filter((c) => c.plate.startsWith(SIMULATED_PLATE_PREFIX));
    expect(fleet.length).toBeGreaterThan(4);
    expect(fleet.length).toBeLessThanOrEqual(40);
  }, 120_000);
});
