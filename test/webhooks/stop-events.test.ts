/**
 * order.stop_status_changed (issue #30 item 1): one delivery per stop move, in both payload shapes,
 * signed per Standard Webhooks (verified with the independent `standardwebhooks` package), never
 * carrying a PIN, an address or a contact; the same events in the merchant's feed.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mongoForTestFile, mongoNodeEnv, uniqueDbName } from '../helpers/mongo.js';
import { api, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectOk, formA, merchantApi, north, standDown } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

let t: TestApp;
let receiver: Receiver;

const { mongo, skipReason } = await mongoForTestFile();
const stores = [
  { name: 'embedded (SQLite)', env: async () => ({}) },
  { name: 'distributed (MongoDB)', env: async () => (mongo ? { ...mongoNodeEnv(mongo), MONGODB_DB: uniqueDbName('exd_stop_events'), MASTER_KEY: Buffer.alloc(32, 5).toString('base64') } : null) },
];

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const STOPS = [
  { address: { address: 'Irarrázaval 3400, Ñuñoa', coords: PLACES.nunoa }, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
  { address: { address: 'Huérfanos 1000, Santiago', coords: PLACES.santiago }, contact_name: 'Carla Soto', contact_phone: '+56933333333' },
];

for (const store of stores) describe(`order.stop_status_changed — ${store.name}`, () => {
  let skip = '';
  beforeAll(async () => {
    const env = await store.env();
    if (!env) {
      skip = skipReason;
      return;
    }
    t = await startWebhooksApp(env);
  }, 120_000);
  afterAll(async () => {
    if (!skip) await t.stop();
  });

  it('each stop move is one signed delivery in each shape and one feed event; no PIN, address or contact', async (ctx) => {
    if (skip) return ctx.skip(skip);
    const m = await t.createMerchant({ name: 'Stop Events', address: 'Av. Providencia 1234, Providencia' });
    const hooks = webhooksApi(t.url, m.testKey);
    const prefix = `/${store.name.length}`;
    expectOk(await hooks.create({ url: `${receiver.url}${prefix}/event`, events: ['order.stop_status_changed'] }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}${prefix}/flat`, events: ['order.stop_status_changed'], payload_shape: 'flat' }), 201);
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const orders = merchantApi(t, m.testKey);
    const { dropoff: _d, ...base } = formA();
    const created = expectOk(await orders.create({ ...base, stops: STOPS, delivery_pin: true }), 201).body;
    const id = created.booking_id as string;
    const stops = expectOk(await orders.get(id)).body.stops as Json[];
    expectOk(await courier.status(id, 'picked_up'));
    // Stop 0: arrived, then delivered with its PIN; stop 1: failed (its arrival recorded first).
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${id}/status`, { key: courier.token, body: { status: 'arrived_dropoff' } }));
    expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.nunoa, ...EVIDENCE, pin: stops[0]!.delivery_pin }));
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${id}/failed-attempt`, { key: courier.token, body: { reason: 'refused', coords: PLACES.santiago } }));
    await standDown(courier);

    const moves = [[0, 'arrived'], [0, 'delivered'], [1, 'arrived'], [1, 'failed']];
    for (const shape of ['/event', '/flat']) {
      const path = `${prefix}${shape}`;
      // Delivery is at least once (a retry repeats its webhook-id): one receipt per id. It may come up
      // to a lease (3 × WEBHOOK_TIMEOUT_MS) late: on jongodb, whose findAndModify is not atomic, a
      // claim can leave a delivery leased to no one until the lease runs out (seen once under load).
      const got = await waitFor(() => {
        const r = [...new Map(receiver.receipts.filter((x) => x.path === path).map((x) => [x.id, x])).values()];
        return r.length >= moves.length && r;
      }, { what: `${moves.length} stop deliveries at ${path}`, timeoutMs: 45_000 });
      const payloads = got.map((r) => {
        expect(r.event).toBe('order.stop_status_changed');
        return new Webhook(m.apiSecret).verify(r.body, r.headers) as Json;
      });
      payloads.sort((a, b) => a.sequence - b.sequence || a.stop.index - b.stop.index);
      expect(payloads.map((p) => [p.stop.index, p.stop.status])).toEqual(moves);
      expect(payloads.every((p) => p.booking_id === id && p.stops_total === 2)).toBe(true);
      expect(payloads[1]!.stop).toMatchObject({ id: stops[0]!.id, pin_verified: true, proof: { geofence: 'passed', photo_url: EVIDENCE.photo_url } });
      expect(payloads[3]!.stop).toMatchObject({ id: stops[1]!.id, pin_verified: false, proof: null, failure: { reason: 'refused', courier_id: courier.id } });
      expect(payloads.at(-1)!.status).toBe(shape === '/flat' ? 'delivered' : 'completed');
      if (shape === '/event') expect(payloads[0]!.event).toBe('order.stop_status_changed');
      const text = got.map((r) => r.body).join('\n');
      for (const stop of stops) for (const secret of [stop.delivery_pin, stop.contact_name, stop.contact_phone, stop.address.address]) expect(text).not.toContain(secret);
    }

    // The feed: each stop event right after the status change that carried it, with its sequence.
    const feed = expectOk(await api(`${t.url}/api/v1/events?limit=100`, { key: m.testKey })).body.events as Json[];
    const mine = feed.filter((e) => e.order_id === id || e.payload?.booking_id === id);
    const stopEvents = mine.filter((e) => e.type === 'order.stop_status_changed');
    expect(stopEvents.map((e) => [e.payload.stop.index, e.payload.stop.status])).toEqual(moves);
    for (const e of stopEvents) {
      const status = mine.find((x) => x.type === 'order.status_changed' && x.sequence === e.sequence);
      expect(status, `status event of sequence ${e.sequence}`).toBeDefined();
    }
  }, 120_000);
});
