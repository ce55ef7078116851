/**
 * Issue #39 item 5.3: a courier's position jumped 28–44 km in 0.1 s and was used for arrivals and
 * dispatch. A position implying more than the vehicle's top speed since the last accepted fix
 * (beyond a GPS-noise allowance) is refused (422 IMPLAUSIBLE_POSITION) through every entrance —
 * REST, GraphQL, the courier socket (one fix, and the backlog where it is left out) — never stored,
 * never an arrival, never in the dispatch index. The first fix, jitter and a fix after a long gap pass.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { distanceMeters } from '../../src/domain/geo.js';
import { DEFAULT_MAX_SPEED_KMH, isPlausibleMove, parseMaxSpeeds, type PositionPlausibility } from '../../src/domain/position-plausibility.js';
import { VEHICLE_TYPES, type LatLng } from '../../src/domain/types.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, courierOnDuty, expectError, expectOk, merchantApi, north, startOrdersApp, type CourierClient } from '../orders/support.js';
import { until } from '../realtime/support.js';

const RULE: PositionPlausibility = { maxSpeedKmh: DEFAULT_MAX_SPEED_KMH, noiseM: 150, resetAfterMs: 600_000 };

describe('the plausibility rule (property)', () => {
  const point = fc.record({ lat: fc.double({ min: -33.7, max: -33.2, noNaN: true }), lng: fc.double({ min: -70.9, max: -70.4, noNaN: true }) });
  const vehicle = fc.constantFrom(...VEHICLE_TYPES);
  const T0 = Date.parse('2026-12-07T12:00:00.000Z');
  const at = (ms: number) => new Date(T0 + ms).toISOString();

  it('believes a move exactly when, less the noise, its speed is within the vehicle’s top speed or the gap is long', () => {
    fc.assert(fc.property(point, point, vehicle, fc.integer({ min: 0, max: 3_600_000 }), (a, b, v, elapsed) => {
      const plausible = isPlausibleMove({ rule: RULE, vehicle: v, from: { location: a, at: at(0) }, to: { location: b, at: at(elapsed) } });
      const beyondNoise = distanceMeters(a, b) - RULE.noiseM;
      const expected = elapsed >= RULE.resetAfterMs || beyondNoise <= 0 || (elapsed > 0 && beyondNoise / (elapsed / 1000) <= RULE.maxSpeedKmh[v] / 3.6);
      expect(plausible).toBe(expected);
    }), { numRuns: 2000 });
  });

  it('the first fix, jitter within the noise and anything after a long gap always pass; a faster move never does', () => {
    fc.assert(fc.property(point, point, vehicle, fc.integer({ min: 0, max: 3_600_000 }), (a, b, v, elapsed) => {
      expect(isPlausibleMove({ rule: RULE, vehicle: v, from: null, to: { location: b, at: at(elapsed) } })).toBe(true);
      if (distanceMeters(a, b) <= RULE.noiseM) expect(isPlausibleMove({ rule: RULE, vehicle: v, from: { location: a, at: at(0) }, to: { location: b, at: at(elapsed) } })).toBe(true);
      expect(isPlausibleMove({ rule: RULE, vehicle: v, from: { location: a, at: at(0) }, to: { location: b, at: at(RULE.resetAfterMs + elapsed) } })).toBe(true);
      // Twice the top speed (plus the noise) in the time given, under the gap: refused.
      const seconds = Math.max(1, Math.min(elapsed, RULE.resetAfterMs - 1) / 1000);
      const far = north(a, RULE.noiseM + 2 * (RULE.maxSpeedKmh[v] / 3.6) * seconds + 1);
      expect(isPlausibleMove({ rule: RULE, vehicle: v, from: { location: a, at: at(0) }, to: { location: far, at: at(seconds * 1000) } })).toBe(false);
    }), { numRuns: 1000 });
  });

  it('monotone: moving farther in the same time, or the same distance faster, never turns a refusal into a pass', () => {
    fc.assert(fc.property(point, vehicle, fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 599_000 }), fc.integer({ min: 0, max: 50_000 }), (a, v, metres, elapsed, more) => {
      const move = (m: number, ms: number) => isPlausibleMove({ rule: RULE, vehicle: v, from: { location: a, at: at(0) }, to: { location: north(a, m), at: at(ms) } });
      if (!move(metres, elapsed)) {
        expect(move(metres + more, elapsed)).toBe(false);
        expect(move(metres, Math.max(0, elapsed - more))).toBe(false);
      }
    }), { numRuns: 1000 });
  });

  it('POSITION_MAX_SPEED_KMH: off, defaults, or vehicle:km/h over them; anything else fails', () => {
    expect(parseMaxSpeeds('off')).toBeNull();
    expect(parseMaxSpeeds('')).toEqual({ bike: 45, motorcycle: 120, car: 150, van: 130 });
    expect(parseMaxSpeeds('bike:30, van:100')).toEqual({ bike: 30, motorcycle: 120, car: 150, van: 100 });
    for (const bad of ['bike', 'truck:80', 'car:-5', 'car:fast']) expect(() => parseMaxSpeeds(bad)).toThrow(/POSITION_MAX_SPEED_KMH/);
  });
});

describe('implausible positions through every entrance', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  /** The service's clock runs this far ahead of the real one (a long gap without waiting for it). */
  let ahead = 0;

  beforeAll(async () => {
    t = await startOrdersApp({ clock: { now: () => new Date(Date.now() + ahead) }, env: { POSITION_MAX_SPEED_KMH: 'bike:45,motorcycle:120,car:150,van:130', POSITION_NOISE_M: '150' } });
    m = await t.createMerchant({ name: 'Plausible', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => t?.stop());

  /** A courier on duty (its first fix, always believed) 2 km north of a pickup, assigned the order there. */
  async function courierWithOrder(n: number): Promise<{ courier: CourierClient; orderId: string; pickup: LatLng; start: LatLng }> {
    const pickup = north(PLACES.providencia, -600 * n);
    const start = north(pickup, 2000);
    const courier = await courierOnDuty(t, { mode: 'live', at: start, vehicle: 'motorcycle', name: `Moto ${n}` });
    const created = expectOk(await merchantApi(t, m.liveKey).create({
      pickup: { address: 'Av. Providencia 1234', coords: pickup }, dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
      customer_name: 'Ana', customer_phone: '+56987654321', total_weight_kg: 1,
    }), 201).body;
    const order = await t.app.container.store.orders.findById(created.booking_id as string);
    expect(order?.courierId).toBe(courier.id);
    return { courier, orderId: order!.id, pickup, start };
  }

  /** The jump was refused: the stored position is still `start`, the order not arrived, the index where it was. */
  async function nothingMoved(courierId: string, orderId: string, start: LatLng) {
    const stored = await t.app.container.store.couriers.findById(courierId);
    expect(stored!.location).toEqual(start);
    expect((await t.app.container.store.orders.findById(orderId))!.status).toBe('assigned');
  }

  it('REST: a 2 km jump at once is 422 IMPLAUSIBLE_POSITION, not stored, not an arrival; jitter passes; after a long gap the same jump passes', async () => {
    const { courier, orderId, pickup, start } = await courierWithOrder(1);
    expectError(await courier.position(pickup), 422, 'IMPLAUSIBLE_POSITION');
    await nothingMoved(courier.id, orderId, start);
    // Its own clock: a fix taken 40 s later 1.2 km on is 108 km/h (less the noise): a motorcycle may.
    const later = new Date(Date.now() + ahead + 40_000).toISOString();
    ahead += 40_000;
    expectOk(await api(`${t.url}/api/v1/couriers/me/location`, { key: courier.token, body: { ...north(start, -1200), recorded_at: later } }));
    // Jitter: 100 m at once.
    expectOk(await courier.position(north(start, -1100)));
    // Ten minutes without a fix: the courier may be anywhere; the arrival is marked.
    ahead += 600_000;
    const arrived = expectOk(await courier.position(pickup)).body;
    expect(arrived.arrivals).toEqual([{ booking_id: orderId, status: 'arrived_pickup' }]);
  });

  it('GraphQL courierReportPosition: the typed IMPLAUSIBLE_POSITION, nothing stored', async () => {
    const { courier, orderId, pickup, start } = await courierWithOrder(2);
    const res = await gql(t.url, `mutation ($input: PositionInput!) { courierReportPosition(input: $input) {
      __typename ... on MutationCourierReportPositionSuccess { data { id status } } ... on AppError { code } } }`, { key: courier.token, variables: { input: pickup } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.courierReportPosition).toEqual({ __typename: 'AppError', code: 'IMPLAUSIBLE_POSITION' });
    await nothingMoved(courier.id, orderId, start);
  });

  it('the courier socket: one fix is refused with the error frame; in a backlog it is left out and the plausible fixes apply', async () => {
    const { courier, orderId, pickup, start } = await courierWithOrder(3);
    const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/api/v1/couriers/me/live`, { headers: { authorization: `Bearer ${courier.token}` } });
    const frames: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    try {
      await until(() => frames.find((f) => f.type === 'ready'), 'the ready frame');
      ws.send(JSON.stringify({ type: 'position', id: 'jump', ...pickup }));
      const refused = await until(() => frames.find((f) => f.id === 'jump'), 'the answer to the jump');
      expect(refused).toMatchObject({ type: 'error', error: { code: 'IMPLAUSIBLE_POSITION' } });
      await nothingMoved(courier.id, orderId, start);
      // A backlog: 200 m on in 20 s (fine), the jump to the pickup 1 s later (refused), 200 m more 20 s later (fine).
      // (The service's clock a minute on: the backlog's fixes are after the start fix and none in the future.)
      ahead += 60_000;
      const t0 = Date.now() + ahead - 30_000;
      const fix = (p: LatLng, s: number) => ({ ...p, recorded_at: new Date(t0 + s * 1000).toISOString() });
      ws.send(JSON.stringify({ type: 'positions', id: 'backlog', positions: [fix(north(start, -200), 0), fix(pickup, 1), fix(north(start, -400), 21)] }));
      const ack = await until(() => frames.find((f) => f.id === 'backlog'), 'the backlog ack');
      expect(ack).toMatchObject({ type: 'ack', applied: 2, stale: 0, implausible: 1, arrivals: [] });
      await until(async () => {
        const stored = await t.app.container.store.couriers.findById(courier.id);
        return stored!.location!.lat === north(start, -400).lat || null;
      }, 'the last plausible fix stored');
      expect((await t.app.container.store.orders.findById(orderId))!.status).toBe('assigned');
    } finally {
      ws.close();
    }
  });

  it('dispatch: a courier whose jump was refused is not offered an order at the place it jumped to', async () => {
    const far = north(PLACES.santiago, -3000);
    const courier = await courierOnDuty(t, { mode: 'test', at: north(far, 30_000), vehicle: 'bike', name: 'Bici' });
    expectError(await courier.position(far), 422, 'IMPLAUSIBLE_POSITION');
    const near = await t.app.container.geoIndex.nearest({ mode: 'test', vehicles: ['bike'], point: far, limit: 5, maxDistanceM: 5000 });
    expect(near.map((c) => c.courierId)).not.toContain(courier.id);
  });
});
