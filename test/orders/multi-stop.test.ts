/**
 * Multi-stop orders end to end over REST (issue #30 item 1): creation with `stops` (given and
 * optimised route, priced along it), the order's answers (old-form orders unchanged), the courier's
 * doors on the current stop (409 for another), stop PINs, a failed stop, completion after the last,
 * the stop tracking links (only their own stop) — the real app on a SQLite file.
 */
import ngeohash from 'ngeohash';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mongoForTestFile, mongoNodeEnv, uniqueDbName } from '../helpers/mongo.js';
import { courierOrdersResponseSchema, orderCreatedSchema, orderDetailsResponseSchema, orderStatusResponseSchema } from '../../rest/openapi/responses-orders.js';
import { stopTrackingResponseSchema } from '../../rest/openapi/responses-tracking.js';
import { signature } from '../courier-app/images.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, expectWireShape, formA, formB, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

let t: TestApp;
let m: MerchantCredentials;
let hired: CourierClient[] = [];

/** Three drop-offs given in a zig-zag order (Ñuñoa, Las Condes, Santiago centre). */
const STOPS = [
  { address: { address: 'Irarrázaval 3400, Ñuñoa', coords: PLACES.nunoa, instructions: 'Depto 502' }, contact_name: 'Ana Pérez', contact_phone: '+56911111111', reference: 'A-1' },
  { address: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes }, contact_name: 'Beto Díaz', contact_phone: '+56922222222', items: [{ name: 'Caja', quantity: 1 }] },
  { address: { address: 'Huérfanos 1000, Santiago', coords: PLACES.santiago }, contact_name: 'Carla Soto', contact_phone: '+56933333333' },
];
const multiStop = (overrides: Record<string, unknown> = {}) => {
  const { dropoff: _d, ...base } = formA();
  return { ...base, stops: STOPS, ...overrides };
};
const courierCall = (c: CourierClient, id: string, action: string, body: unknown) => api(`${t.url}/api/v1/couriers/me/orders/${encodeURIComponent(id)}/${action}`, { key: c.token, body });
/** The stop link's data (the page itself is the UI's): the same path and capability under the API. */
const stopTracking = (url: string) => {
  const link = new URL(url);
  return api(`${t.url}/api/v1/tracking${link.pathname.replace(/^\/track/, '')}${link.search}`);
};


const { mongo, skipReason } = await mongoForTestFile();
const stores = [
  { name: 'embedded (SQLite)', env: async () => ({}) },
  { name: 'distributed (MongoDB)', env: async () => (mongo ? { ...mongoNodeEnv(mongo), MONGODB_DB: uniqueDbName('exd_multi_stop'), MASTER_KEY: Buffer.alloc(32, 9).toString('base64') } : null) },
];

for (const store of stores) describe(`multi-stop orders — ${store.name}`, () => {
  let skip = '';
  beforeAll(async () => {
    const env = await store.env();
    if (!env) {
      skip = skipReason;
      return;
    }
    t = await startOrdersApp({ env });
    m = await t.createMerchant({ name: 'Multi-stop Merchant', address: 'Av. Providencia 1234, Providencia' });
  }, 120_000);
  afterAll(async () => {
    if (!skip) await t.stop();
  });
  beforeEach((ctx) => {
    if (skip) ctx.skip(skip);
  });
  afterEach(async () => {
    await standDown(...hired);
    hired = [];
  });

  describe('creating a multi-stop order over REST', () => {
    it('validates the forms: dropoff or stops (one), at most 10 stops, route only with stops, no quote', async () => {
      const orders = merchantApi(t, m.testKey);
      expectError(await orders.create({ ...multiStop(), dropoff: formA().dropoff }), 400, 'VALIDATION_ERROR');
      const { dropoff: _d, ...noDropoff } = formA();
      expectError(await orders.create(noDropoff), 400, 'VALIDATION_ERROR');
      expectError(await orders.create(multiStop({ stops: [] })), 400, 'VALIDATION_ERROR');
      expectError(await orders.create(multiStop({ stops: Array.from({ length: 11 }, () => STOPS[0]) })), 400, 'VALIDATION_ERROR');
      expectError(await orders.create(formA({ route: 'optimized' })), 400, 'VALIDATION_ERROR');
      expectError(await orders.create(multiStop({ quote_id: 'qt_x', rate_id: 'batched' })), 400, 'VALIDATION_ERROR');
      expectError(await orders.create(multiStop({ stops: [{ ...STOPS[0], contact_phone: '12' }] })), 400, 'VALIDATION_ERROR');
      expectError(await orders.create(multiStop({ stops: [{ ...STOPS[0], extra: 1 }] })), 400, 'VALIDATION_ERROR');
      // Cash on delivery takes one drop-off (one amount, one door).
      const cod = expectError(await orders.create(multiStop({ payment_mode: 'cash_on_delivery', cod_amount: 9_990 })), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(cod.body.error.fields)).toContain('payment');
    });

    it('single drop-off orders answer as before (no stops, no route); a multi-stop one lists its stops in route order, optimised never longer', async () => {
      const orders = merchantApi(t, m.testKey);
      for (const body of [formA(), formB()]) {
        const created = expectOk(await orders.create(body), 201).body;
        const details = expectOk(await orders.get(created.booking_id)).body;
        expect(details).not.toHaveProperty('stops');
        expect(details).not.toHaveProperty('route');
      }
      const given = expectOk(await orders.create(multiStop({ delivery_pin: true })), 201).body;
      expectWireShape(orderCreatedSchema, given);
      const g = expectOk(await orders.get(given.booking_id)).body;
      expectWireShape(orderDetailsResponseSchema, g);
      expect(g.route).toBe('given');
      expect(g.stops.map((s: Wire) => [s.index, s.given_index, s.contact_name, s.status])).toEqual([
        [0, 0, 'Ana Pérez', 'pending'], [1, 1, 'Beto Díaz', 'pending'], [2, 2, 'Carla Soto', 'pending'],
      ]);
      expect(g.stops[0]).toMatchObject({ reference: 'A-1', address: { address: 'Irarrázaval 3400, Ñuñoa', instructions: 'Depto 502' } });
      expect(g.stops.every((s: Wire) => /^\d{4}$/.test(s.delivery_pin))).toBe(true);
      expect(g.delivery_pin).toBeNull();
      expect(g.dropoff).toEqual(g.stops[2].address);
      // ETAs along the route; the last is the order's.
      const etas = g.stops.map((s: Wire) => Date.parse(s.eta));
      expect([...etas].sort((a, b) => a - b)).toEqual(etas);
      expect(g.stops[2].eta).toBe(g.estimated_delivery_time);

      // The merchant's PIN reset gives every open stop a new PIN.
      const reset = expectOk(await api(`${t.url}/api/v1/orders/${given.booking_id}/delivery-pin/reset`, { key: m.testKey, body: {} })).body;
      expect(reset.stops.map((s: Wire) => s.id)).toEqual(g.stops.map((s: Wire) => s.id));
      expect(reset.stops.every((s: Wire) => /^\d{4}$/.test(s.delivery_pin))).toBe(true);
      expect(expectOk(await orders.get(given.booking_id)).body.stops.map((s: Wire) => s.delivery_pin)).toEqual(reset.stops.map((s: Wire) => s.delivery_pin));

      const optimized = expectOk(await orders.create(multiStop({ route: 'optimized' })), 201).body;
      const o = expectOk(await orders.get(optimized.booking_id)).body;
      expect(o.route).toBe('optimized');
      expect(o.stops.map((s: Wire) => s.given_index).sort()).toEqual([0, 1, 2]);
      // Priced along the route: the optimised one is never dearer; both add the extra-stop fee over a single drop-off.
      expect(o.price).toBeLessThanOrEqual(g.price);
      const single = expectOk(await orders.get(expectOk(await orders.create(formA({ dropoff: STOPS[2]!.address })), 201).body.booking_id)).body;
      expect(g.price).toBeGreaterThan(single.price);
      // A quote for the same stops prices the same, and books with them; other stops do not match it.
      const quote = (body: unknown) => api(`${t.url}/api/v1/shipping/quote`, { key: m.testKey, body });
      const stopAddresses = STOPS.map((s) => s.address);
      expectError(await quote({ destination: STOPS[0]!.address, stops: stopAddresses }), 400, 'VALIDATION_ERROR');
      const quotedGiven = expectOk(await quote({ stops: stopAddresses, total_weight_kg: 1 })).body;
      const quotedOptimized = expectOk(await quote({ stops: stopAddresses, route: 'optimized', total_weight_kg: 1 })).body;
      expect([quotedGiven.price, quotedOptimized.price]).toEqual([g.price, o.price]);
      const booked = expectOk(await orders.create(multiStop({ route: 'optimized', quote_id: quotedOptimized.quote_id, total_weight_kg: 1 })), 201).body;
      expect(expectOk(await orders.get(booked.booking_id)).body).toMatchObject({ quote_id: quotedOptimized.quote_id, price: o.price });
      expectError(await orders.create(multiStop({ stops: STOPS.slice(0, 2), quote_id: quotedGiven.quote_id, total_weight_kg: 1 })), 422, 'QUOTE_MISMATCH');
      expectError(await orders.create(formA({ dropoff: STOPS[2]!.address, quote_id: quotedGiven.quote_id, total_weight_kg: 1 })), 422, 'QUOTE_MISMATCH');
      // A multi-stop order is a route of its own: consolidation leaves it out (the single drop-off orders of its zone are batched).
      const batched = expectOk(await orders.consolidate({ geohash_zone: ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 5), target_car_type: 'van' })).body;
      const inBatches = (batched.batches as Wire[]).flatMap((b) => b.order_ids as string[]);
      expect(inBatches).toContain(single.booking_id);
      for (const id of [given.booking_id, optimized.booking_id]) expect(inBatches).not.toContain(id);
    });
  });

  describe('proof uploads per stop (issue #39)', () => {
    it('each stop has its own 2 signatures: the current stop\'s third is 409 PROOF_QUOTA_EXCEEDED; the next stop starts afresh', async () => {
      const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
      hired.push(courier);
      const created = expectOk(await merchantApi(t, m.liveKey).create(multiStop({ stops: STOPS.slice(0, 2) })), 201).body;
      const id = created.booking_id as string;
      expect(created.status).toBe('assigned');
      expectOk(await courier.status(id, 'picked_up'));
      const sig = await signature();
      const sign = () => fetch(`${t.url}/api/v1/couriers/me/orders/${id}/proof?kind=signature`, { method: 'POST', headers: { authorization: `Bearer ${courier.token}`, 'content-type': 'image/png' }, body: new Uint8Array(sig) });
      const first = [];
      for (let i = 0; i < 3; i++) first.push(await sign());
      expect(first.map((r) => r.status)).toEqual([201, 201, 409]);
      expect(await first[2]!.json()).toMatchObject({ success: false, error: { code: 'PROOF_QUOTA_EXCEEDED' } });
      expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.nunoa, ...EVIDENCE }));
      expect((await sign()).status).toBe(201);
    });
  });

  describe('quoting a multi-stop order (issue #39 item 5.4: it offered a batched rate the booking refused)', () => {
    const quote = (body: unknown) => api(`${t.url}/api/v1/shipping/quote`, { key: m.testKey, body });
    const stopAddresses = STOPS.map((s) => s.address);

    it('REST: every rate of a multi-stop quote books (given, optimised, one stop); a single drop-off quote still offers batched', async () => {
      const orders = merchantApi(t, m.testKey);
      for (const [request, stops] of [[{ stops: stopAddresses }, STOPS], [{ stops: stopAddresses, route: 'optimized' }, STOPS], [{ stops: stopAddresses.slice(0, 1) }, STOPS.slice(0, 1)]] as const) {
        const quoted = expectOk(await quote({ ...request, total_weight_kg: 1 })).body;
        const rates = (quoted.rates as Wire[]).map((r) => r.id as string);
        expect(rates).toEqual(['express']);
        for (const rate of rates) {
          const route = 'route' in request ? { route: request.route } : {};
          const booked = await orders.create(multiStop({ stops, ...route, quote_id: quoted.quote_id, rate_id: rate, total_weight_kg: 1 }));
          expect(booked.status, `${rate}: ${JSON.stringify(booked.body)}`).toBe(201);
        }
      }
      const single = expectOk(await quote({ destination: STOPS[0]!.address, total_weight_kg: 1 })).body;
      expect((single.rates as Wire[]).map((r) => r.id)).toEqual(['express', 'batched']);
    });

    it('GraphQL: the quote of stops offers only the rates its order books', async () => {
      const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) { __typename ... on QueryQuoteSuccess { data { quoteId rates { id } } } ... on AppError { code } } }`;
      const res = await gql(t.url, QUOTE, { key: m.testKey, variables: { input: { origin: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, stops: stopAddresses, totalWeightKg: 1 } } });
      expect(res.body.errors).toBeUndefined();
      const quoted = res.body.data.quote.data as { quoteId: string; rates: Array<{ id: string }> };
      expect(quoted.rates.map((r) => r.id)).toEqual(['express']);
      for (const { id: rate } of quoted.rates) {
        const booked = await merchantApi(t, m.testKey).create(multiStop({ quote_id: quoted.quoteId, rate_id: rate, total_weight_kg: 1 }));
        expect(booked.status, `${rate}: ${JSON.stringify(booked.body)}`).toBe(201);
      }
    });
  });

  describe('serving the stops over REST', () => {
    it('arrive and deliver the current stop (stop_id checked), its own PIN, a failed stop, the last completes; stop links show only their stop', async () => {
      // Live mode: the test-mode orders of the tests above are still queued for a courier.
      const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
      hired.push(courier);
      const orders = merchantApi(t, m.liveKey);
      const created = expectOk(await orders.create(multiStop({ delivery_pin: true })), 201).body;
      expect(created.status).toBe('assigned');
      const id = created.booking_id;
      const stops = expectOk(await orders.get(id)).body.stops as Wire[];
      const [s0, s1, s2] = stops as [Wire, Wire, Wire];

      // Before pickup no stop can be served.
      expectError(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.nunoa, ...EVIDENCE, pin: s0.delivery_pin }), 409, 'INVALID_STATUS_TRANSITION');
      expectOk(await courier.status(id, 'picked_up'));

      // The courier's view: the stops without their PINs.
      const mine = expectOk(await courier.orders()).body;
      expectWireShape(courierOrdersResponseSchema, mine);
      expect(mine.orders[0].stops.map((s: Wire) => [s.id, s.delivery_pin_required, 'delivery_pin' in s])).toEqual(stops.map((s) => [s.id, true, false]));

      // Arrival at another stop than the current one: 409.
      expectError(await courierCall(courier, id, 'status', { status: 'arrived_dropoff', stop_id: s1.id }), 409, 'INVALID_STATUS_TRANSITION');
      const arrived = expectOk(await courierCall(courier, id, 'status', { status: 'arrived_dropoff', stop_id: s0.id })).body;
      expectWireShape(orderStatusResponseSchema, arrived);
      expect(arrived.status).toBe('arrived_dropoff');
      // Going back to picked_up is never the courier's own move.
      expectError(await courier.status(id, 'picked_up'), 409, 'INVALID_STATUS_TRANSITION');

      const deliverBody = (coords: typeof PLACES.nunoa, pin: string, stopId?: string) => ({ driver_id: courier.id, coords, ...EVIDENCE, pin, ...(stopId && { stop_id: stopId }) });
      expectError(await courier.deliver(id, deliverBody(PLACES.nunoa, s1.delivery_pin === s0.delivery_pin ? '0000' : s1.delivery_pin)), 400, 'DELIVERY_PIN_INVALID');
      expectError(await courier.deliver(id, deliverBody(PLACES.lasCondes, s0.delivery_pin)), 400, 'GEOFENCE_FAILED');
      expectError(await courier.deliver(id, deliverBody(PLACES.nunoa, s0.delivery_pin, s2.id)), 409, 'INVALID_STATUS_TRANSITION');
      const first = expectOk(await courier.deliver(id, deliverBody(PLACES.nunoa, s0.delivery_pin, s0.id))).body;
      expect(first.status).toBe('picked_up');

      // Stop 1 fails (skipping its arrival): no return leg, on to the last stop.
      const failed = expectOk(await courierCall(courier, id, 'failed-attempt', { reason: 'recipient_absent', coords: PLACES.lasCondes, stop_id: s1.id })).body;
      expect(failed).toMatchObject({ status: 'picked_up' });

      // The last stop's link while it is open: its own stop, the courier's progress, nothing of the others.
      const link = expectOk(await stopTracking(s2.tracking_url)).body;
      expectWireShape(stopTrackingResponseSchema, link);
      expect(link).toMatchObject({ stop_id: s2.id, status: 'pending', stops_ahead: 0, order_status: 'picked_up', driver: { location: expect.any(Object) } });
      const text = JSON.stringify(link);
      for (const other of [s0, s1]) {
        for (const leaked of [other.id, other.contact_name, other.contact_phone, other.address.address, String(other.address.coords.lat)]) expect(text).not.toContain(leaked);
      }
      for (const leaked of [s2.contact_name, s2.contact_phone, s2.address.address, created.tracking_number]) expect(text).not.toContain(leaked);
      // Without its capability, or another stop's, nothing opens.
      expectError(await stopTracking(s2.tracking_url.replace(/k=.*/, 'k=AAAAAAAAAAAAAAAAAAAAAA')), 404, 'ORDER_NOT_FOUND');
      expectError(await stopTracking(s2.tracking_url.replace(s2.id, s1.id)), 404, 'ORDER_NOT_FOUND');
      expectError(await stopTracking(s2.tracking_url.split('?')[0]!), 404, 'ORDER_NOT_FOUND');

      const last = expectOk(await courier.deliver(id, deliverBody(PLACES.santiago, s2.delivery_pin))).body;
      expect(last.status).toBe('completed');
      const done = expectOk(await orders.get(id)).body;
      expectWireShape(orderDetailsResponseSchema, done);
      expect(done.stops.map((s: Wire) => s.status)).toEqual(['delivered', 'failed', 'delivered']);
      expect(done.stops[1].failure).toMatchObject({ reason: 'recipient_absent', courier_id: courier.id });
      expect(done.stops[0].proof).toMatchObject({ geofence: 'passed', photo_url: EVIDENCE.photo_url });
      expect(done.proof).toEqual(done.stops[2].proof);
      expect(expectOk(await courier.me()).body.courier).toMatchObject({ status: 'available', job: null });
      const after = expectOk(await stopTracking(s0.tracking_url)).body;
      expect(after).toMatchObject({ status: 'delivered', order_status: 'completed', stops_ahead: 0 });
      expect(after.driver.location).toBeNull();
      // Over: every door refuses.
      expectError(await courierCall(courier, id, 'failed-attempt', { reason: 'refused', coords: PLACES.santiago }), 409, 'INVALID_STATUS_TRANSITION');
    });

    it("another merchant's key and another courier never reach a stop order", async () => {
      const stranger = await courierOnDuty(t, { mode: 'test', at: north(PLACES.santiago, 300) });
      hired.push(stranger);
      const other = await t.createMerchant({ name: 'Other Merchant', address: 'Av. Providencia 1234, Providencia' });
      const created = expectOk(await merchantApi(t, m.testKey).create(multiStop()), 201).body;
      expectError(await merchantApi(t, other.testKey).get(created.booking_id), 404, 'ORDER_NOT_FOUND');
      expectError(await merchantApi(t, m.liveKey).get(created.booking_id), 404, 'ORDER_NOT_FOUND');
      // The stranger may have been given a queued order: never this one's stops.
      expectError(await courierCall(stranger, created.booking_id, 'status', { status: 'arrived_dropoff' }), 404, 'ORDER_NOT_FOUND');
    });
  });

  describe('multi-stop orders over GraphQL', () => {
    const ERR = '... on AppError { code message }';
    const STOP_FIELDS = 'id index givenIndex status eta contactName contactPhone reference trackingUrl deliveryPin deliveryPinRequired address { address lat lng } proof { geofence } failure { reason }';
    const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
      __typename ... on MutationCreateOrderSuccess { data { id status route price stops { ${STOP_FIELDS} } } } ${ERR} } }`;
    const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { id status route stops { ${STOP_FIELDS} } } } ${ERR} } }`;
    const ARRIVE = `mutation ($id: ID!, $stopId: ID) { courierAdvanceOrder(id: $id, status: arrived_dropoff, stopId: $stopId) {
      __typename ... on MutationCourierAdvanceOrderSuccess { data { id status stops { status } } } ${ERR} } }`;
    const DELIVER = `mutation ($id: ID!, $coords: LatLngInput!, $pin: String, $stopId: ID) {
      courierConfirmDelivery(id: $id, coords: $coords, photoUrl: "${EVIDENCE.photo_url}", signatureUrl: "${EVIDENCE.signature_url}", pin: $pin, stopId: $stopId) {
        __typename ... on MutationCourierConfirmDeliverySuccess { data { id status stops { status deliveryPin deliveryPinRequired } } } ${ERR} ... on GeofenceError { distanceM } } }`;
    const FAIL = `mutation ($id: ID!, $coords: LatLngInput!, $stopId: ID) { courierReportFailedAttempt(id: $id, reason: refused, coords: $coords, stopId: $stopId) {
      __typename ... on MutationCourierReportFailedAttemptSuccess { data { id status stops { status failure { reason } } } } ${ERR} } }`;
    const as = (key: string) => (query: string, variables: Record<string, unknown> = {}) => gql(t.url, query, { key, variables }).then((r) => {
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data as Wire;
    });
    const input = (overrides: Record<string, unknown> = {}) => ({
      pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, customerName: 'Camila Rojas', customerPhone: '+56912345678', totalWeightKg: 1,
      stops: STOPS.map((s) => ({ address: s.address, contactName: s.contact_name, contactPhone: s.contact_phone, ...(s.reference && { reference: s.reference }) })),
      ...overrides,
    });

    it('createOrder takes stops (not with dropoff); the order shows its stops to the merchant, PINs included', async () => {
      const merchant = as(m.testKey);
      expect((await merchant(CREATE, { input: input({ dropoff: { address: 'Av. Apoquindo 3000', coords: PLACES.lasCondes } }) })).createOrder).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
      expect((await merchant(CREATE, { input: input({ stops: [] }) })).createOrder).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
      const created = (await merchant(CREATE, { input: input({ route: 'optimized', deliveryPin: true }) })).createOrder;
      const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) { __typename ... on QueryQuoteSuccess { data { price } } ${ERR} } }`;
      const quoted = (await merchant(QUOTE, { input: { origin: input().pickup, stops: STOPS.map((s) => s.address), route: 'optimized', totalWeightKg: 1 } })).quote;
      expect(quoted.data.price, JSON.stringify(quoted)).toBe(created.data.price);
      expect(created.__typename, JSON.stringify(created)).toBe('MutationCreateOrderSuccess');
      expect(created.data.route).toBe('optimized');
      expect(created.data.stops.map((s: Wire) => s.index)).toEqual([0, 1, 2]);
      expect(created.data.stops.every((s: Wire) => /^\d{4}$/.test(s.deliveryPin) && s.deliveryPinRequired && s.status === 'pending')).toBe(true);
      // The same order through REST: the same stops, the same links.
      const rest = expectOk(await merchantApi(t, m.testKey).get(created.data.id)).body;
      expect(created.data.stops.map((s: Wire) => [s.id, s.trackingUrl])).toEqual(rest.stops.map((s: Wire) => [s.id, s.tracking_url]));
      // Another merchant never reads it; a single drop-off order has no stops.
      const other = await t.createMerchant({ name: 'GraphQL Other', address: 'Av. Providencia 1234, Providencia' });
      expect((await as(other.testKey)(ORDER, { id: created.data.id })).order).toMatchObject({ __typename: 'AppError', code: 'ORDER_NOT_FOUND' });
      const single = expectOk(await merchantApi(t, m.testKey).create(formA()), 201).body.booking_id;
      expect((await merchant(ORDER, { id: single })).order.data).toMatchObject({ route: null, stops: null });
    });

    it('the courier serves the current stop (another is a typed 409), sees no PIN, and the last stop completes the order', async () => {
      const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
      hired.push(courier);
      const merchant = as(m.liveKey);
      const rider = as(courier.token);
      const created = (await merchant(CREATE, { input: input({ deliveryPin: true, stops: input().stops.slice(0, 2) }) })).createOrder.data;
      expect(created.status).toBe('assigned');
      const [s0, s1] = created.stops as [Wire, Wire];
      expectOk(await courier.status(created.id, 'picked_up'));
      expect((await rider(ARRIVE, { id: created.id, stopId: s1.id })).courierAdvanceOrder).toMatchObject({ __typename: 'AppError', code: 'INVALID_STATUS_TRANSITION' });
      expect((await rider(ARRIVE, { id: created.id, stopId: s0.id })).courierAdvanceOrder.data).toMatchObject({ status: 'arrived_dropoff', stops: [{ status: 'arrived' }, { status: 'pending' }] });
      expect((await rider(DELIVER, { id: created.id, coords: PLACES.lasCondes, pin: s0.deliveryPin })).courierConfirmDelivery).toMatchObject({ __typename: 'GeofenceError' });
      const first = (await rider(DELIVER, { id: created.id, coords: PLACES.nunoa, pin: s0.deliveryPin, stopId: s0.id })).courierConfirmDelivery;
      expect(first.data).toEqual({ id: created.id, status: 'picked_up', stops: [{ status: 'delivered', deliveryPin: null, deliveryPinRequired: true }, { status: 'pending', deliveryPin: null, deliveryPinRequired: true }] });
      const last = (await rider(FAIL, { id: created.id, coords: PLACES.lasCondes, stopId: s1.id })).courierReportFailedAttempt;
      expect(last.data).toEqual({ id: created.id, status: 'completed', stops: [{ status: 'delivered', failure: null }, { status: 'failed', failure: { reason: 'refused' } }] });
      expect((await rider(FAIL, { id: created.id, coords: PLACES.lasCondes })).courierReportFailedAttempt).toMatchObject({ __typename: 'AppError', code: 'INVALID_STATUS_TRANSITION' });
    });
  });
});
