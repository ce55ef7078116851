/**
 * Both payload shapes against the spec's field tables ("Events", shape 1 and shape 2): every field
 * with its JSON type, and no field beyond the ones we add on purpose (listed here by name).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectOk, formA, formB, merchantApi, north, standDown, type MerchantApi } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receipt, type Receiver, type WebhooksApi } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
type FieldType = 'number' | 'integer' | 'string' | 'url' | 'datetime' | 'driver' | 'latlng' | 'proof' | 'attempt';

/** Spec shape 1 (flat). */
const SHAPE_1: Record<string, FieldType> = {
  order_id: 'number', ecommerce_order_id: 'string', booking_id: 'string', reference: 'string', status: 'string', driver_name: 'string',
  driver_phone: 'string', driver_image: 'url', vehicle_model: 'string', vehicle_number: 'string', tracking_url: 'url',
};
/** What we add to shape 1: the per-order sequence and the event time; lat/lng on order.courier_location only. */
const SHAPE_1_EXTRA: Record<string, FieldType> = { sequence: 'integer', timestamp: 'datetime' };
const SHAPE_1_LOCATION: Record<string, FieldType> = { lat: 'number', lng: 'number' };
/** Spec shape 2 (event). */
const SHAPE_2: Record<string, FieldType> = { event: 'string', booking_id: 'string', status: 'string', timestamp: 'datetime', driver: 'driver' };
/** What we add to shape 2: the per-order sequence; location on order.courier_location only. */
const SHAPE_2_EXTRA: Record<string, FieldType> = { sequence: 'integer' };
const SHAPE_2_LOCATION: Record<string, FieldType> = { location: 'latlng' };
/** What we add to both shapes on the status change to completed: the delivery proof (as in GET /orders/{id}). */
const COMPLETED_EXTRA: Record<string, FieldType> = { proof: 'proof' };
/** What we add to both shapes on the status change to cancelled: what cancelling cost (CLP, as in the cancel response). */
const CANCELLED_EXTRA: Record<string, FieldType> = { cancellation_fee: 'integer' };
/** What we add to both shapes after a failed delivery attempt (issue #30): the attempt and the count; the return fee; the return's proof. */
const ATTEMPT_EXTRA: Record<string, FieldType> = { failed_attempt: 'attempt', attempts: 'integer' };
const RETURNING_EXTRA: Record<string, FieldType> = { ...ATTEMPT_EXTRA, return_fee: 'integer' };
const RETURNED_EXTRA: Record<string, FieldType> = { return_proof: 'proof' };

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'string':
      return typeof value === 'string';
    case 'url':
      return isUrl(value);
    case 'datetime':
      return typeof value === 'string' && ISO_8601.test(value) && !Number.isNaN(Date.parse(value));
    case 'driver':
      return (
        typeof value === 'object' && value !== null && Object.keys(value).sort().join() === 'name,phone' &&
        Object.values(value).every((v) => typeof v === 'string')
      );
    case 'latlng':
      return typeof value === 'object' && value !== null && Object.keys(value).sort().join() === 'lat,lng' && Object.values(value).every((v) => typeof v === 'number');
    case 'proof':
      return typeof value === 'object' && value !== null && ['passed', 'bypassed', 'unverified'].includes((value as Json).geofence as string);
    case 'attempt':
      return typeof value === 'object' && value !== null && Object.keys(value).sort().join() === 'at,coords,courier_id,note,outcome,photo_url,reason';
  }
}

/** The payload has exactly these fields with these types; without a driver, `driver` is null and `driver_image` is ''. */
function expectFields(payload: Json, fields: Record<string, FieldType>, options: { hasDriver: boolean }) {
  expect(Object.keys(payload).sort()).toEqual(Object.keys(fields).sort());
  for (const [name, type] of Object.entries(fields)) {
    const value = payload[name];
    if (!options.hasDriver && name === 'driver') {
      expect(value, name).toBeNull();
      continue;
    }
    if (!options.hasDriver && name === 'driver_image') {
      expect(value, name).toBe('');
      continue;
    }
    expect(hasType(value, type), `${name} should be ${type}: ${JSON.stringify(value)}`).toBe(true);
  }
}

let t: TestApp;
let receiver: Receiver;
/** The app's clock runs this far ahead of real time (the courier-location window is tested by moving it). */
let clockOffsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + clockOffsetMs) };

beforeAll(async () => {
  t = await startWebhooksApp({}, { clock });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

interface Setup {
  m: MerchantCredentials;
  orders: MerchantApi;
  hooks: WebhooksApi;
  /** Receipts of one endpoint (`flat`, `event`, `location`), optionally of one order. */
  at(endpoint: 'flat' | 'event' | 'location', bookingId?: string): Array<Receipt & { payload: Json }>;
}

/**
 * A merchant with three test endpoints: `flat` (shape 1, every event), `event` (shape 2,
 * status changes and batches) and `location` (shape 2, courier locations only).
 */
async function setup(name: string): Promise<Setup> {
  const m = await t.createMerchant({ name, address: 'Av. Providencia 1234, Providencia' });
  const hooks = webhooksApi(t.url, m.testKey);
  const base = `${receiver.url}/${m.merchantId}`;
  expectOk(await hooks.create({ url: `${base}/flat`, payload_shape: 'flat', events: ['order.status_changed', 'order.courier_location', 'batch.created'] }), 201);
  expectOk(await hooks.create({ url: `${base}/event`, payload_shape: 'event', events: ['order.status_changed', 'batch.created'] }), 201);
  expectOk(await hooks.create({ url: `${base}/location`, payload_shape: 'event', events: ['order.courier_location'] }), 201);
  return {
    m,
    orders: merchantApi(t, m.testKey),
    hooks,
    at: (endpoint, bookingId) =>
      receiver.receipts
        .filter((r) => r.path === `/${m.merchantId}/${endpoint}`)
        .map((r) => ({ ...r, payload: JSON.parse(r.body) as Json }))
        .filter((r) => bookingId === undefined || r.payload.booking_id === bookingId),
  };
}

const bySequence = (a: { payload: Json }, b: { payload: Json }) => a.payload.sequence - b.payload.sequence;

describe('order.status_changed payloads', () => {
  it('a full lifecycle: one event per transition in both shapes, sequence +1 each, matching GET /orders/:id/events', async () => {
    const s = await setup('Payload Lifecycle');
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300), vehicle: 'motorcycle' });
    try {
      const booking = expectOk(await s.orders.create(formA()), 201).body.booking_id as string;
      for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expectOk(await courier.status(booking, status));
      expectOk(await courier.deliver(booking, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));

      const events = expectOk(await s.orders.events(booking)).body.events as Json[];
      expect(events.map((e) => e.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
      await waitFor(() => s.at('flat', booking).length === 6 && s.at('event', booking).length === 6, { what: 'six deliveries per endpoint' });
      const order = expectOk(await s.orders.get(booking)).body as Json;
      const flat = s.at('flat', booking).sort(bySequence);
      const event = s.at('event', booking).sort(bySequence);

      // Sequence: 1..6, one per transition, the history's own numbers and times.
      expect(flat.map((r) => r.payload.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(event.map((r) => ({ sequence: r.payload.sequence, status: r.payload.status, timestamp: r.payload.timestamp }))).toEqual(
        events.map((e) => ({ sequence: e.sequence, status: e.status, timestamp: e.at })),
      );
      expect(flat.map((r) => r.payload.timestamp)).toEqual(events.map((e) => e.at));
      // The completion carries the order's proof, exactly as GET /orders/{id} shows it.
      expect(flat.at(-1)!.payload.proof).toEqual(order.proof);
      expect(event.at(-1)!.payload.proof).toEqual(order.proof);
      expect(order.proof.geofence).toBe('passed');
      // Shape 1 reports completed as delivered.
      expect(flat.map((r) => r.payload.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'delivered']);

      for (const r of flat) {
        const hasDriver = r.payload.sequence > 1;
        expectFields(r.payload, { ...SHAPE_1, ...SHAPE_1_EXTRA, ...(r.payload.sequence === 6 && COMPLETED_EXTRA) }, { hasDriver });
        expect(r.event).toBe('order.status_changed');
        expect(r.payload).toMatchObject({
          order_id: Number(order.order_number),
          ecommerce_order_id: '', // set only for storefront (shop) orders
          booking_id: booking,
          reference: order.reference_id,
          tracking_url: order.tracking_url,
          ...(hasDriver
            ? { driver_name: order.driver.name, driver_phone: order.driver.phone, vehicle_model: 'Motorcycle', vehicle_number: order.driver.vehicle_plate }
            : { driver_name: '', driver_phone: '', vehicle_model: '', vehicle_number: '' }),
        });
      }
      // driver_image and tracking_url are live URLs of this service.
      const image = await fetch(flat.at(-1)!.payload.driver_image as string);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toMatch(/^image\//);
      await image.arrayBuffer();
      expect((await fetch(flat[0]!.payload.tracking_url as string)).status).toBe(200);
      for (const r of event) {
        const hasDriver = r.payload.sequence > 1;
        expectFields(r.payload, { ...SHAPE_2, ...SHAPE_2_EXTRA, ...(r.payload.sequence === 6 && COMPLETED_EXTRA) }, { hasDriver });
        expect(r.payload).toMatchObject({ event: 'order.status_changed', booking_id: booking });
        if (hasDriver) expect(r.payload.driver).toEqual({ name: order.driver.name, phone: order.driver.phone });
      }
      expect(s.at('location')).toEqual([]);
    } finally {
      await standDown(courier);
    }
  });

  it('creation and cancellation are status changes too (sequence 1 and 2, no driver)', async () => {
    const s = await setup('Payload Cancel');
    const booking = expectOk(await s.orders.create(formA()), 201).body.booking_id as string;
    expectOk(await s.orders.cancel(booking, { reason: 'customer changed their mind' }));
    await waitFor(() => s.at('flat', booking).length === 2 && s.at('event', booking).length === 2, { what: 'two deliveries per endpoint' });
    const flat = s.at('flat', booking).sort(bySequence);
    const event = s.at('event', booking).sort(bySequence);
    expect(flat.map((r) => [r.payload.sequence, r.payload.status])).toEqual([[1, 'new'], [2, 'cancelled']]);
    expect(event.map((r) => [r.payload.sequence, r.payload.status])).toEqual([[1, 'new'], [2, 'cancelled']]);
    const cancelled = (r: { payload: Json }) => (r.payload.status === 'cancelled' ? CANCELLED_EXTRA : {});
    for (const r of flat) expectFields(r.payload, { ...SHAPE_1, ...SHAPE_1_EXTRA, ...cancelled(r) }, { hasDriver: false });
    for (const r of event) expectFields(r.payload, { ...SHAPE_2, ...SHAPE_2_EXTRA, ...cancelled(r) }, { hasDriver: false });
    // Cancelled while new: free, and both shapes say so.
    expect([flat[1]!.payload.cancellation_fee, event[1]!.payload.cancellation_fee]).toEqual([0, 0]);
    // No shop order id and a reference_id given: ecommerce_order_id is '', reference is the merchant's reference.
    const order = expectOk(await s.orders.get(booking)).body as Json;
    expect(flat[0]!.payload).toMatchObject({ ecommerce_order_id: '', reference: order.reference_id, driver_image: '' });
  });
});

describe('failed delivery attempts', () => {
  it('delivery_failed, returning and returned carry the attempt, the return fee and the proof at the pickup, in both shapes', async () => {
    const s = await setup('Payload Failed Attempt');
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300), vehicle: 'motorcycle' });
    try {
      const booking = expectOk(await s.orders.create(formA()), 201).body.booking_id as string;
      expectOk(await courier.status(booking, 'picked_up'));
      const call = (action: string, body: unknown) => fetch(`${t.url}/api/v1/couriers/me/orders/${booking}/${action}`, {
        method: 'POST', headers: { authorization: `Bearer ${courier.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      expect((await call('failed-attempt', { reason: 'refused', note: 'El destinatario rechazó el paquete', coords: PLACES.lasCondes })).status).toBe(200);
      expect((await call('return', { coords: PLACES.providencia, ...EVIDENCE })).status).toBe(200);
      await waitFor(() => s.at('flat', booking).length === 7 && s.at('event', booking).length === 7, { what: 'seven deliveries per endpoint' });
      const order = expectOk(await s.orders.get(booking)).body as Json;
      const extra: Record<string, Record<string, FieldType>> = { delivery_failed: ATTEMPT_EXTRA, returning: RETURNING_EXTRA, returned: RETURNED_EXTRA };
      for (const [endpoint, base] of [['flat', { ...SHAPE_1, ...SHAPE_1_EXTRA }], ['event', { ...SHAPE_2, ...SHAPE_2_EXTRA }]] as const) {
        const receipts = s.at(endpoint, booking).sort(bySequence);
        expect(receipts.map((r) => r.payload.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'delivery_failed', 'returning', 'returned']);
        for (const r of receipts) expectFields(r.payload, { ...base, ...extra[r.payload.status as string] }, { hasDriver: r.payload.sequence > 1 });
        const byStatus = (status: string) => receipts.find((r) => r.payload.status === status)!.payload;
        expect(byStatus('delivery_failed').failed_attempt).toEqual(order.failed_attempts[0]);
        expect(byStatus('returning')).toMatchObject({ attempts: 1, return_fee: order.return_fee });
        expect(byStatus('returned').return_proof).toEqual(order.return_proof);
      }
    } finally {
      await standDown(courier);
    }
  });
});

describe('order.courier_location', () => {
  it('goes only to endpoints subscribed to it, at most once per order every 20 s, with the position', async () => {
    const s = await setup('Payload Location');
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 400), vehicle: 'car' });
    try {
      const booking = expectOk(await s.orders.create(formA({ total_weight_kg: 40 })), 201).body.booking_id as string;
      expect(expectOk(await s.orders.get(booking)).body.driver.id).toBe(courier.id);
      const locationLog = async () => {
        const endpoints = expectOk(await s.hooks.list()).body.endpoints as Json[];
        const counts: Record<string, number> = {};
        for (const e of endpoints) {
          const log = expectOk(await s.hooks.deliveries({ endpoint_id: e.id, limit: '100' })).body.deliveries as Json[];
          counts[new URL(e.url).pathname.split('/').pop()!] = log.filter((d) => d.event === 'order.courier_location').length;
        }
        return counts;
      };

      // Three positions within a second: one courier-location event per subscribed endpoint (written with the request).
      const first = north(PLACES.providencia, 300);
      for (const metres of [300, 250, 200]) expectOk(await courier.position(north(PLACES.providencia, metres)));
      expect(await locationLog()).toEqual({ flat: 1, event: 0, location: 1 });

      // 19 s later: still inside the window. 21 s after the first: the next one goes out.
      clockOffsetMs += 19_000;
      expectOk(await courier.position(north(PLACES.providencia, 150)));
      expect(await locationLog()).toEqual({ flat: 1, event: 0, location: 1 });
      clockOffsetMs += 2_000;
      const second = north(PLACES.providencia, 120);
      expectOk(await courier.position(second));
      expect(await locationLog()).toEqual({ flat: 2, event: 0, location: 2 });

      await waitFor(() => s.at('flat', booking).filter((r) => r.event === 'order.courier_location').length === 2 && s.at('location', booking).length === 2, {
        what: 'the location deliveries',
      });
      const flat = s.at('flat', booking).filter((r) => r.event === 'order.courier_location');
      const event = s.at('location', booking);
      expect(flat.map((r) => ({ lat: r.payload.lat, lng: r.payload.lng })).sort((a, b) => b.lat - a.lat)).toEqual([first, second]);
      expect(event.map((r) => r.payload.location).sort((a, b) => b.lat - a.lat)).toEqual([first, second]);
      for (const r of flat) {
        expectFields(r.payload, { ...SHAPE_1, ...SHAPE_1_EXTRA, ...SHAPE_1_LOCATION }, { hasDriver: true });
        expect(r.payload).toMatchObject({ booking_id: booking, status: 'assigned', sequence: 2, vehicle_model: 'Car' });
      }
      for (const r of event) {
        expect(r.event).toBe('order.courier_location');
        expectFields(r.payload, { ...SHAPE_2, ...SHAPE_2_EXTRA, ...SHAPE_2_LOCATION }, { hasDriver: true });
        expect(r.payload).toMatchObject({ event: 'order.courier_location', booking_id: booking, status: 'assigned', sequence: 2 });
      }
      expect(s.at('event', booking).filter((r) => r.event === 'order.courier_location')).toEqual([]);
      expectOk(await s.orders.cancel(booking));
    } finally {
      await standDown(courier);
    }
  });
});

describe('batch.created', () => {
  it('consolidation sends batch.created to the endpoints subscribed to it, the same fields in either shape', async () => {
    const s = await setup('Payload Batch');
    const ids: string[] = [];
    for (const kg of [10, 12]) ids.push(expectOk(await s.orders.create(formB({ total_weight_kg: kg, customer_rut: undefined })), 201).body.booking_id);
    const res = expectOk(await s.orders.consolidate({ geohash_zone: '66jcc', target_car_type: 'car' }));
    expect(res.body.batches_created).toBe(1);
    const batch = res.body.batches[0] as Json;

    const batchReceipts = (endpoint: 'flat' | 'event' | 'location') => s.at(endpoint).filter((r) => r.event === 'batch.created');
    await waitFor(() => batchReceipts('flat').length === 1 && batchReceipts('event').length === 1, { what: 'batch.created deliveries' });
    for (const r of [...batchReceipts('flat'), ...batchReceipts('event')]) {
      expect(Object.keys(r.payload).sort()).toEqual(['batch_id', 'event', 'geohash_zone', 'order_ids', 'timestamp', 'vehicle_type']);
      expect(r.payload).toEqual({
        event: 'batch.created', batch_id: batch.id, order_ids: batch.order_ids, vehicle_type: 'car', geohash_zone: '66jcc', timestamp: expect.stringMatching(ISO_8601),
      });
      expect([...r.payload.order_ids].sort()).toEqual([...ids].sort());
    }
    expect(batchReceipts('location')).toEqual([]);
    for (const id of ids) expectOk(await s.orders.cancel(id));
  });
});
