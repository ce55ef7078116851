import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LatLng } from '../../src/domain/types.js';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import {
  EVIDENCE,
  PLACES,
  courierOnDuty,
  createCourier,
  expectError,
  expectOk,
  formA,
  historyOf,
  merchantApi,
  north,
  standDown,
  startOrdersApp,
  type CourierClient,
  type MerchantApi,
} from './support.js';

const DROPOFF: LatLng = PLACES.lasCondes;

describe('proof of delivery: POST /orders/{id}/deliver', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let orders: MerchantApi;
  let courier: CourierClient;

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant({ name: 'Delivery Merchant' });
    orders = merchantApi(t, m.testKey);
  });
  afterAll(() => t?.stop());
  afterEach(() => standDown(courier));

  /** A fresh order carried by a fresh courier up to `status` (picked_up or arrived_dropoff). */
  async function orderAt(status: 'picked_up' | 'arrived_dropoff'): Promise<string> {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 500) });
    const id: string = expectOk(await orders.create(formA()), 201).body.booking_id;
    expectOk(await courier.status(id, 'picked_up'));
    if (status === 'arrived_dropoff') expectOk(await courier.status(id, 'arrived_dropoff'));
    return id;
  }

  const deliver = (id: string, overrides: Record<string, unknown> = {}) =>
    orders.deliver(id, { driver_id: courier.id, coords: north(DROPOFF, 8), ...EVIDENCE, ...overrides });

  it('passes within the default 20 m geofence and returns the stored proof', async () => {
    const id = await orderAt('arrived_dropoff');
    const at = north(DROPOFF, 8);
    const res = expectOk(await deliver(id, { coords: at }));
    expect(res.body).toMatchObject({ booking_id: id, status: 'completed', message: expect.any(String) });
    expect(res.body.proof).toEqual({
      driver_id: courier.id,
      coords: at,
      distance_m: expect.closeTo(8, 0),
      radius_m: 20,
      bypass: false,
      geofence: 'passed',
      ...EVIDENCE,
      delivered_at: expect.any(String),
    });
    // The proof is kept on the order and the completion is in the history, where it happened.
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'completed', proof: res.body.proof });
    const events = expectOk(await orders.events(id)).body.events;
    expect(events.at(-1)).toMatchObject({ status: 'completed', from: 'arrived_dropoff', actor: { kind: 'merchant', id: m.merchantId }, location: at, reason: null });
    // The courier is free again.
    expect(expectOk(await courier.me()).body.courier.status).toBe('available');
  });

  it('fails outside the geofence with 400 GEOFENCE_FAILED reporting the distance, and changes nothing', async () => {
    const id = await orderAt('arrived_dropoff');
    const res = expectError(await deliver(id, { coords: north(DROPOFF, 200) }), 400, 'GEOFENCE_FAILED');
    expect(res.body.error.details).toEqual({ distance_m: expect.closeTo(200, 0), radius_m: 20 });
    expect(res.body.error.message).toContain('200');
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'arrived_dropoff', proof: null });
    expect(historyOf(expectOk(await orders.events(id)).body.events).at(-1)).toBe('arrived_dropoff');
    // Closer, it passes.
    expectOk(await deliver(id, { coords: north(DROPOFF, 19) }));
  });

  it('applies a custom geofence_radius (metres) both ways', async () => {
    const id = await orderAt('arrived_dropoff');
    const refused = expectError(await deliver(id, { coords: north(DROPOFF, 200), geofence_radius: 150 }), 400, 'GEOFENCE_FAILED');
    expect(refused.body.error.details).toEqual({ distance_m: expect.closeTo(200, 0), radius_m: 150 });
    const res = expectOk(await deliver(id, { coords: north(DROPOFF, 200), geofence_radius: 250 }));
    expect(res.body.proof).toMatchObject({ distance_m: expect.closeTo(200, 0), radius_m: 250, bypass: false });
  });

  it('bypass skips the check and is recorded in the proof and in the history', async () => {
    const id = await orderAt('arrived_dropoff');
    const far = north(DROPOFF, 2000);
    const res = expectOk(await deliver(id, { coords: far, bypass: true }));
    expect(res.body.proof).toMatchObject({ bypass: true, distance_m: expect.closeTo(2000, 0), radius_m: 20, coords: far });
    expect(expectOk(await orders.get(id)).body.proof.bypass).toBe(true);
    const last = expectOk(await orders.events(id)).body.events.at(-1);
    expect(last).toMatchObject({ status: 'completed', location: far, reason: expect.stringMatching(/bypass/i) });
  });

  it('from picked_up, the arrival at the drop-off is recorded first', async () => {
    const id = await orderAt('picked_up');
    const at = north(DROPOFF, 3);
    expectOk(await deliver(id, { coords: at }));
    const events = expectOk(await orders.events(id)).body.events;
    expect(historyOf(events)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
    expect(events.slice(-2)).toEqual([
      expect.objectContaining({ from: 'picked_up', status: 'arrived_dropoff', location: at }),
      expect.objectContaining({ from: 'arrived_dropoff', status: 'completed', location: at }),
    ]);
  });

  it('a geofence failure from picked_up records no arrival either', async () => {
    const id = await orderAt('picked_up');
    expectError(await deliver(id, { coords: north(DROPOFF, 500) }), 400, 'GEOFENCE_FAILED');
    expect(historyOf(expectOk(await orders.events(id)).body.events).at(-1)).toBe('picked_up');
    expectOk(await deliver(id));
  });

  it('driver_id must be the assigned courier: another courier or an unknown id is 403', async () => {
    const id = await orderAt('arrived_dropoff');
    const other = await createCourier(t, { mode: 'test' });
    for (const driverId of [other.id, 'cr_nobody', ` ${courier.id}x`]) {
      expectError(await deliver(id, { driver_id: driverId }), 403, 'FORBIDDEN');
    }
    expect(expectOk(await orders.get(id)).body.status).toBe('arrived_dropoff');
    expectOk(await deliver(id));
  });

  it('missing or invalid evidence is 400 naming each field', async () => {
    const id = await orderAt('arrived_dropoff');
    const fieldsOf = async (body: unknown) =>
      expectError(await orders.deliver(id, body), 400, 'VALIDATION_ERROR').body.error.fields.map((f: { field: string }) => f.field).sort();
    expect(await fieldsOf({ driver_id: courier.id, coords: DROPOFF })).toEqual(['photo_url', 'signature_url']);
    expect(await fieldsOf({ driver_id: courier.id, coords: DROPOFF, photo_url: 'javascript:alert(1)', signature_url: 'ftp://x.example/s.png' })).toEqual([
      'photo_url',
      'signature_url',
    ]);
    expect(await fieldsOf({ coords: { lat: -33.4 }, ...EVIDENCE })).toEqual(['coords.lng', 'driver_id']);
    expect(await fieldsOf({ driver_id: courier.id, coords: DROPOFF, ...EVIDENCE, geofence_radius: -5 })).toEqual(['geofence_radius']);
    expect(await fieldsOf({ driver_id: courier.id, coords: DROPOFF, ...EVIDENCE, bypass: 'yes' })).toEqual(['bypass']);
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'arrived_dropoff', proof: null });
    expectOk(await deliver(id));
  });

  it("the courier's own endpoint: /couriers/me/orders/{id}/deliver", async () => {
    const id = await orderAt('arrived_dropoff');
    const intruder = await createCourier(t, { mode: 'test' });
    // Another courier cannot see the order at all; the driver_id must be the caller.
    expectError(await intruder.deliver(id, { driver_id: intruder.id, coords: DROPOFF, ...EVIDENCE }), 404, 'ORDER_NOT_FOUND');
    expectError(await courier.deliver(id, { driver_id: intruder.id, coords: DROPOFF, ...EVIDENCE }), 403, 'FORBIDDEN');
    expectError(await courier.deliver(id, { driver_id: courier.id, coords: north(DROPOFF, 100), ...EVIDENCE }), 400, 'GEOFENCE_FAILED');

    const res = expectOk(await courier.deliver(id, { driver_id: courier.id, coords: DROPOFF, ...EVIDENCE }));
    expect(res.body).toMatchObject({ booking_id: id, status: 'completed', proof: { driver_id: courier.id, distance_m: 0, bypass: false } });
    expect(expectOk(await orders.events(id)).body.events.at(-1).actor).toEqual({ kind: 'courier', id: courier.id });
    expect(expectOk(await courier.orders()).body.orders).toEqual([]);
  });

  it('a completed order cannot be delivered again', async () => {
    const id = await orderAt('arrived_dropoff');
    const first = expectOk(await deliver(id)).body.proof;
    expectError(await deliver(id, { coords: DROPOFF }), 409, 'INVALID_STATUS_TRANSITION');
    expect(expectOk(await orders.get(id)).body.proof).toEqual(first);
  });
});
