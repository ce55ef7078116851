import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { distanceMeters } from '../../src/domain/geo.js';
import type { LatLng } from '../../src/domain/types.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from '../webhooks/support.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, merchantApi, north, standDown, startOrdersApp, type CourierClient, type MerchantApi } from './support.js';

/** The real door of "Av. Apoquindo 3000, Las Condes" (the Nominatim fixture's point), 1.6 km from the comuna's point. */
const APOQUINDO_ROW = (JSON.parse(readFileSync(new URL('../fixtures/nominatim/apoquindo-3000-las-condes.json', import.meta.url), 'utf8')) as Array<{ lat: string; lon: string }>)[0]!;
const DOOR: LatLng = { lat: Number(APOQUINDO_ROW.lat), lng: Number(APOQUINDO_ROW.lon) };
const DOOR_TO_COMUNA_M = Math.round(distanceMeters(DOOR, PLACES.lasCondes) * 10) / 10;

/** An order whose drop-off is text only (the gazetteer: locality precision), pickup by coordinates. */
const textDropoff = (overrides: Record<string, unknown> = {}) => ({
  pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes' },
  customer_name: 'Ana Pérez',
  customer_phone: '+56987654321',
  ...overrides,
});

describe('location precision and geofence outcomes (REST, GraphQL)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let orders: MerchantApi;
  let courier: CourierClient | undefined;

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant();
    orders = merchantApi(t, m.testKey);
  });
  afterAll(() => t.stop());
  afterEach(async () => {
    if (courier) await standDown(courier);
    courier = undefined;
  });

  /** A text-drop-off order carried to `picked_up` by a fresh courier. */
  async function pickedUp(body: Record<string, unknown>): Promise<string> {
    if (courier) await standDown(courier);
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const id: string = expectOk(await orders.create(body), 201).body.booking_id;
    expectOk(await courier.status(id, 'picked_up'));
    return id;
  }

  it('order pickup and dropoff carry their precision: coordinates given, comuna text → locality', async () => {
    const id = expectOk(await orders.create(textDropoff()), 201).body.booking_id as string;
    const details = expectOk(await orders.get(id)).body;
    expect(details.pickup).toMatchObject({ coords: PLACES.providencia, precision: 'coordinates' });
    expect(details.dropoff).toMatchObject({ address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes, precision: 'locality' });
    const data = (await gql(t.url, `query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { pickup { precision } dropoff { precision } } } } }`, { key: m.testKey, variables: { id } })).body.data;
    expect(data.order.data).toEqual({ pickup: { precision: 'coordinates' }, dropoff: { precision: 'locality' } });
    expectOk(await orders.cancel(id));
  });

  it('a locality drop-off is delivered at the real door (1.6 km from the comuna point): geofence "unverified" with the measured distance', async () => {
    const id = await pickedUp(textDropoff());
    const res = expectOk(await orders.deliver(id, { driver_id: courier!.id, coords: DOOR, ...EVIDENCE }));
    expect(res.body.proof).toMatchObject({ geofence: 'unverified', bypass: false, radius_m: 20, coords: DOOR });
    expect(res.body.proof.distance_m).toBeCloseTo(DOOR_TO_COMUNA_M, 1);
    expect(expectOk(await orders.get(id)).body.proof).toEqual(res.body.proof);
    const last = expectOk(await orders.events(id)).body.events.at(-1);
    expect(last).toMatchObject({ status: 'completed', reason: expect.stringMatching(/unverified/) });
    const data = (await gql(t.url, `query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { proof { geofence distanceM bypass } } } } }`, { key: m.testKey, variables: { id } })).body.data;
    expect(data.order.data.proof).toEqual({ geofence: 'unverified', distanceM: res.body.proof.distance_m, bypass: false });
  });

  it('a precise drop-off keeps its geofence: 400 GEOFENCE_FAILED away from it, "passed" at it, "bypassed" on request', async () => {
    const body = textDropoff({ dropoff: { address: 'Av. Apoquindo 3000', coords: DOOR } });
    const id = await pickedUp(body);
    const refused = expectError(await orders.deliver(id, { driver_id: courier!.id, coords: north(DOOR, 200), ...EVIDENCE }), 400, 'GEOFENCE_FAILED');
    expect(refused.body.error.message).toMatch(/200(\.\d)? m/);
    expect(expectOk(await orders.get(id)).body.status).toBe('picked_up');
    const res = expectOk(await orders.deliver(id, { driver_id: courier!.id, coords: north(DOOR, 5), ...EVIDENCE }));
    expect(res.body.proof).toMatchObject({ geofence: 'passed', bypass: false });

    const other = await pickedUp(body);
    const bypassed = expectOk(await orders.deliver(other, { driver_id: courier!.id, coords: north(DOOR, 900), bypass: true, ...EVIDENCE }));
    expect(bypassed.body.proof).toMatchObject({ geofence: 'bypassed', bypass: true });
  });

  it('the precision cannot be claimed by the caller: coordinates with a precision field are refused', async () => {
    const res = expectError(await orders.create(textDropoff({ dropoff: { address: 'Av. Apoquindo 3000', coords: DOOR, precision: 'locality' } })), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error.fields)).toMatch(/precision/);
  });

  it('automatic arrival only at precise stops: standing on the comuna point of a locality drop-off arrives nowhere', async () => {
    const id = await pickedUp(textDropoff());
    expectOk(await courier!.position(PLACES.lasCondes));
    expect(expectOk(await orders.get(id)).body.status).toBe('picked_up');
    // The courier says so itself; then the delivery is accepted unverified.
    expectOk(await courier!.status(id, 'arrived_dropoff'));
    expectOk(await orders.deliver(id, { driver_id: courier!.id, coords: DOOR, ...EVIDENCE }));

    const precise = await pickedUp(textDropoff({ dropoff: { address: 'Av. Apoquindo 3000', coords: DOOR }}));
    expectOk(await courier!.position(north(DOOR, 30)));
    expect(expectOk(await orders.get(precise)).body.status).toBe('arrived_dropoff');
  });

  it('quotes between two addresses of one comuna never claim 0 m or 1 minute, and state the precision', async () => {
    const quote = (body: unknown) => api(`${t.url}/api/v1/shipping/quote`, { key: m.testKey, body });
    const same = expectOk(await quote({ origin: 'Av. Apoquindo 3000, Las Condes', destination: 'Av. Las Condes 9000, Las Condes', total_weight: 1 }));
    expect(same.body.precision).toEqual({ origin: 'locality', destination: 'locality' });
    expect(same.body.distance_m).toBe(3000);
    expect(same.body.travel_time_minutes).toBeGreaterThan(5);
    // Coordinates are the caller's word: the same point is 0 m.
    const exact = expectOk(await quote({ origin: DOOR, destination: DOOR }));
    expect(exact.body).toMatchObject({ distance_m: 0, precision: { origin: 'coordinates', destination: 'coordinates' } });
    const data = (await gql(t.url, `{ quote(input: { origin: { address: "Av. Apoquindo 3000, Las Condes" }, destination: { coords: { lat: -33.4172312, lng: -70.6012248 } } }) {
      ... on QueryQuoteSuccess { data { distanceM originPrecision destinationPrecision } } } }`, { key: m.testKey })).body.data;
    expect(data.quote.data).toMatchObject({ originPrecision: 'locality', destinationPrecision: 'coordinates' });
    expect(data.quote.data.distanceM).toBeGreaterThanOrEqual(3000);
  });
});

describe('street precision from a Nominatim server (GEOCODER_URL)', () => {
  let nominatim: Server;
  let t: TestApp;
  let m: MerchantCredentials;
  let orders: MerchantApi;
  let courier: CourierClient;

  beforeAll(async () => {
    const house = readFileSync(new URL('../fixtures/nominatim/apoquindo-3000-las-condes.json', import.meta.url), 'utf8');
    const streetOnly = readFileSync(new URL('../fixtures/nominatim/apoquindo-street-only.json', import.meta.url), 'utf8');
    nominatim = createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://localhost').searchParams.get('q') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' }).end(q.includes('3000') ? house : q.includes('Apoquindo') ? streetOnly : '[]');
    });
    await new Promise<void>((resolve) => nominatim.listen(0, '127.0.0.1', resolve));
    t = await startOrdersApp({ env: { GEOCODER_URL: `http://127.0.0.1:${(nominatim.address() as AddressInfo).port}` } });
    m = await t.createMerchant();
    orders = merchantApi(t, m.testKey);
  });
  afterAll(async () => {
    await t.stop();
    nominatim.closeAllConnections();
    await new Promise((resolve) => nominatim.close(resolve));
  });

  it('a house-number match is street precision and the geofence holds there; a street-only match is locality', async () => {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const id = expectOk(await orders.create(textDropoff()), 201).body.booking_id as string;
    expect(expectOk(await orders.get(id)).body.dropoff).toMatchObject({ coords: DOOR, precision: 'street' });
    expectOk(await courier.status(id, 'picked_up'));
    expectError(await orders.deliver(id, { driver_id: courier.id, coords: north(DOOR, 200), ...EVIDENCE }), 400, 'GEOFENCE_FAILED');
    expect(expectOk(await orders.deliver(id, { driver_id: courier.id, coords: DOOR, ...EVIDENCE })).body.proof).toMatchObject({ geofence: 'passed', distance_m: 0 });

    const street = expectOk(await orders.create(textDropoff({ dropoff: { address: 'Av. Apoquindo, Las Condes' } })), 201).body.booking_id as string;
    expect(expectOk(await orders.get(street)).body.dropoff.precision).toBe('locality');
    expectOk(await orders.cancel(street));
    await standDown(courier);
  });
});

describe('geofence outcome in the webhook payloads', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await startWebhooksApp();
    m = await t.createMerchant();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.stop();
    await receiver.close();
  });

  it('the completed status change carries the proof with its geofence outcome, in both shapes', async () => {
    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${receiver.url}/event`, events: ['order.status_changed'], payload_shape: 'event' }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}/flat`, events: ['order.status_changed'], payload_shape: 'flat' }), 201);
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const orders = merchantApi(t, m.testKey);
    const id = expectOk(await orders.create(textDropoff()), 201).body.booking_id as string;
    expectOk(await courier.status(id, 'picked_up'));
    expectOk(await orders.deliver(id, { driver_id: courier.id, coords: DOOR, ...EVIDENCE }));

    // Deliveries of one order go out concurrently: wait for the earlier ones too, not only the last.
    const completed = await waitFor(() => {
      const bodies = receiver.receipts.map((r) => ({ path: r.path, body: JSON.parse(r.body) as Record<string, any> })); // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
      const done = bodies.filter((b) => b.body.booking_id === id && ['completed', 'delivered'].includes(b.body.status as string));
      const pickedUp = bodies.filter((b) => b.body.booking_id === id && b.body.status === 'picked_up');
      return done.length === 2 && pickedUp.length === 2 ? done : null;
    }, { what: 'both completed and both picked_up deliveries' });
    for (const { body } of completed) {
      expect(body.proof).toMatchObject({ geofence: 'unverified', bypass: false, driver_id: courier.id, coords: DOOR });
      expect(body.proof.distance_m).toBeCloseTo(DOOR_TO_COMUNA_M, 1);
    }
    // Earlier status changes carry no proof.
    const earlier = receiver.receipts.map((r) => JSON.parse(r.body) as Record<string, unknown>).filter((b) => b.booking_id === id && b.status === 'picked_up');
    expect(earlier).toHaveLength(2);
    for (const body of earlier) expect(body).not.toHaveProperty('proof');
  });
});
