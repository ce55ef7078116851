/**
 * The sandbox plays a multi-stop test order through all its stops (issue #30 item 1): a run
 * (REST, scenario `delivered`) and the step-by-step advance, each stop arrived at and delivered in
 * route order with the stop's own PIN, the order completed after the last — the real app on SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, courierOnDuty, expectOk, formA, merchantApi, north, standDown, startOrdersApp } from '../orders/support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

let t: TestApp;
let m: MerchantCredentials;

const STOPS = [
  { address: { address: 'Irarrázaval 3400, Ñuñoa', coords: PLACES.nunoa }, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
  { address: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes }, contact_name: 'Beto Díaz', contact_phone: '+56922222222' },
  { address: { address: 'Huérfanos 1000, Santiago', coords: PLACES.santiago }, contact_name: 'Carla Soto', contact_phone: '+56933333333' },
];
const order = () => {
  const { dropoff: _d, ...base } = formA();
  return { ...base, stops: STOPS, route: 'optimized', delivery_pin: true };
};
/** Each stop arrived at then settled, in route order; the last completes the order. */
const THROUGH_ALL_STOPS = ['arrived_dropoff', 'picked_up', 'arrived_dropoff', 'picked_up', 'arrived_dropoff', 'completed'];

beforeAll(async () => {
  t = await startOrdersApp({ env: { SANDBOX_SPEED: '10' } });
  m = await t.createMerchant({ name: 'Sandbox Stops', address: 'Av. Providencia 1234, Providencia' });
});
afterAll(() => t?.stop());

describe('the sandbox and multi-stop orders', () => {
  it('a delivered run plays every stop: arrived and delivered in route order with its PIN, then completed', { timeout: 120_000 }, async () => {
    const res = await api(`${t.url}/api/v1/sandbox/runs`, { key: m.testKey, body: { scenario: 'delivered', seed: 'stops-1', start_time: '2026-06-01T15:00:00.000Z', order: order() } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.run.booking_id as string;
    const details = expectOk(await merchantApi(t, m.testKey).get(id)).body;
    expect(details.status).toBe('completed');
    expect(details.stops.map((s: Wire) => [s.index, s.status, s.proof?.geofence])).toEqual([[0, 'delivered', 'passed'], [1, 'delivered', 'passed'], [2, 'delivered', 'passed']]);
    const history = (expectOk(await merchantApi(t, m.testKey).events(id)).body.events as Wire[]).map((e) => e.status);
    expect(history.slice(history.indexOf('picked_up') + 1)).toEqual(THROUGH_ALL_STOPS);
  });

  it('POST /sandbox/orders/{id}/advance steps through every stop', { timeout: 120_000 }, async () => {
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const orders = merchantApi(t, m.testKey);
    const id = expectOk(await orders.create(order()), 201).body.booking_id as string;
    const advance = () => api(`${t.url}/api/v1/sandbox/orders/${id}/advance`, { key: m.testKey, body: {} });
    const seen: string[] = [];
    for (let step = 0; step < 20; step++) {
      const moved = await advance();
      if (moved.status !== 200) {
        expect(moved.body.error.code).toBe('INVALID_STATUS_TRANSITION');
        break;
      }
      seen.push(moved.body.status ?? moved.body.order?.status);
    }
    expect(seen.slice(seen.indexOf('picked_up') + 1)).toEqual(THROUGH_ALL_STOPS);
    const details = expectOk(await orders.get(id)).body;
    expect(details.stops.every((s: Wire) => s.status === 'delivered')).toBe(true);
    await standDown(courier);
  });
});
