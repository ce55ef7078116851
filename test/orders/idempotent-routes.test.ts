/**
 * Every REST write that passes the request's key to its command with `idempotencyOf(req, res)`
 * (issue #17 item 5; the commands own idempotency since #40), one table: the same key and body
 * answer the first answer again with `Idempotent-Replayed: true`, and another request under the
 * key is 422 IDEMPOTENCY_KEY_REUSED. The list of routes is read from rest/routes/*.ts, so a route
 * that gains a key needs a case here and a route that loses it fails. The operators' money writes
 * (/admin/cod, key required) have their own tests (test/orders/cod-cash.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { startReceiver, startWebhooksApp, waitFor, type Receiver } from '../webhooks/support.js';
import { EVIDENCE, PLACES, courierOnDuty, createCourier, expectError, expectOk, formA, merchantApi, north, standDown, type CourierClient } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

/** `METHOD /path` of every merchant or courier route handler in rest/routes/*.ts whose body calls `idempotencyOf(`. */
function keyedRoutes(): string[] {
  const dir = new URL('../../rest/routes/', import.meta.url);
  const found: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(new URL(file, dir), 'utf8');
    const starts = [...text.matchAll(/router(?:\.(get|post|patch|put|delete)|\[(\w+)\])\(\s*'([^']+)'/g)];
    starts.forEach((match, i) => {
      const handler = text.slice(match.index, starts[i + 1]?.index ?? text.length);
      if (!handler.includes('idempotencyOf(') || match[3]!.startsWith('/admin/')) return;
      // `router[method](…)` inside `for (const method of ['post', 'patch'] as const)`.
      const methods = match[1] ? [match[1]] : [...(/of \[([^\]]+)\] as const\)\s*\{\s*$/.exec(text.slice(0, match.index))?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1]!);
      expect(methods.length, `${file}: the methods of ${match[3]}`).toBeGreaterThan(0);
      for (const method of methods) found.push(`${method.toUpperCase()} ${match[3]}`);
    });
  }
  return found.sort();
}

interface Call { path: string; body: unknown }
interface Case { auth: string; method: string; call: Call; other: Call; status?: number }

let t: TestApp;
let receiver: Receiver;
let m: MerchantCredentials;
const couriers: CourierClient[] = [];
/** Orders a case leaves open (a released order would be dispatched to the next case's courier). */
const leftovers: string[] = [];
beforeAll(async () => {
  t = await startWebhooksApp();
  receiver = await startReceiver();
  m = await t.createMerchant({ name: 'Idempotent Routes' });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

const orders = () => merchantApi(t, m.testKey);
const dropoff = north(PLACES.lasCondes, 5);

/** A test order taken by a fresh courier, optionally carried to the drop-off. */
async function carried(stage: 'assigned' | 'arrived_dropoff'): Promise<{ id: string; courier: CourierClient }> {
  const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
  couriers.push(courier);
  const created = expectOk(await orders().create(formA()), 201).body;
  expect(created.status).toBe('assigned');
  if (stage === 'arrived_dropoff') {
    expectOk(await courier.status(created.booking_id, 'picked_up'));
    expectOk(await courier.status(created.booking_id, 'arrived_dropoff'));
  }
  return { id: created.booking_id as string, courier };
}

/** Two deliveries of the merchant's webhook log (an endpoint, an order created and cancelled). */
async function deliveries(): Promise<string[]> {
  expectOk(await api(`${t.url}/api/v1/webhooks`, { key: m.testKey, body: { url: `${receiver.url}/log`, events: ['order.status_changed'] } }), 201);
  const id = expectOk(await orders().create(formA()), 201).body.booking_id as string;
  expectOk(await orders().cancel(id));
  return waitFor(async () => {
    const list = expectOk(await api(`${t.url}/api/v1/webhooks/deliveries`, { key: m.testKey })).body.deliveries as Json[];
    return list.length >= 2 && list.map((d) => d.id as string);
  }, { what: 'two webhook deliveries' });
}

const hour = () => ({ created_from: new Date(Date.now() - 3_600_000).toISOString(), created_to: new Date(Date.now() + 60_000).toISOString() });
const zone = (p: { lat: number; lng: number }) => ngeohash.encode(p.lat, p.lng, 9).slice(0, 5);

/** How to reach each keyed route once successfully, and another request for the same key. */
const CASES: Record<string, () => Promise<Case>> = {
  'POST /orders/consolidate': async () => ({
    auth: m.testKey, method: 'POST',
    call: { path: '/orders/consolidate', body: { geohash_zone: zone(PLACES.providencia), target_car_type: 'car' } },
    other: { path: '/orders/consolidate', body: { geohash_zone: 'gcpvj', target_car_type: 'car' } },
  }),
  'POST /orders/:id/cancel': async () => {
    const id = expectOk(await orders().create(formA()), 201).body.booking_id as string;
    return { auth: m.testKey, method: 'POST', call: { path: `/orders/${id}/cancel`, body: { reason: 'A' } }, other: { path: `/orders/${id}/cancel`, body: { reason: 'B' } } };
  },
  'POST /orders/:id/deliver': async () => {
    const { id, courier } = await carried('arrived_dropoff');
    const body = { driver_id: courier.id, coords: dropoff, ...EVIDENCE };
    return { auth: m.testKey, method: 'POST', call: { path: `/orders/${id}/deliver`, body }, other: { path: `/orders/${id}/deliver`, body: { ...body, photo_url: 'https://cdn.example.com/pod/other.jpg' } } };
  },
  'POST /orders/:id/tip': async () => {
    const id = expectOk(await orders().create(formA()), 201).body.booking_id as string;
    leftovers.push(id);
    return { auth: m.testKey, method: 'POST', call: { path: `/orders/${id}/tip`, body: { amount: 1000 } }, other: { path: `/orders/${id}/tip`, body: { amount: 2000 } } };
  },
  'POST /orders/:id/delivery-pin/reset': async () => {
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    couriers.push(courier);
    const id = expectOk(await orders().create(formA({ delivery_pin: true })), 201).body.booking_id as string;
    return { auth: m.testKey, method: 'POST', call: { path: `/orders/${id}/delivery-pin/reset`, body: {} }, other: { path: '/orders/EXD-OTHER/delivery-pin/reset', body: {} } };
  },
  'POST /sandbox/orders/:id/advance': async () => {
    const { id } = await carried('assigned');
    return { auth: m.testKey, method: 'POST', call: { path: `/sandbox/orders/${id}/advance`, body: {} }, other: { path: '/sandbox/orders/EXD-OTHER/advance', body: {} } };
  },
  'POST /sandbox/runs': async () => {
    const order = formA();
    const body = { scenario: 'cancelled_after_assignment', seed: 'idempotent-route', start_time: '2026-06-01T15:00:00.000Z', order };
    return { auth: m.testKey, method: 'POST', status: 201, call: { path: '/sandbox/runs', body }, other: { path: '/sandbox/runs', body: { ...body, seed: 'another-seed' } } };
  },
  'POST /merchants/settings': async () => ({
    auth: m.testKey, method: 'POST', call: { path: '/merchants/settings', body: { prep_time_mins: 7 } }, other: { path: '/merchants/settings', body: { prep_time_mins: 8 } },
  }),
  'PATCH /merchants/settings': async () => ({
    auth: m.testKey, method: 'PATCH', call: { path: '/merchants/settings', body: { prep_time_mins: 9 } }, other: { path: '/merchants/settings', body: { prep_time_mins: 10 } },
  }),
  'POST /webhooks': async () => ({
    auth: m.testKey, method: 'POST', status: 201,
    call: { path: '/webhooks', body: { url: `${receiver.url}/created` } }, other: { path: '/webhooks', body: { url: `${receiver.url}/other` } },
  }),
  'PATCH /webhooks/:id': async () => {
    const id = expectOk(await api(`${t.url}/api/v1/webhooks`, { key: m.testKey, body: { url: `${receiver.url}/to-update` } }), 201).body.endpoint.id as string;
    return { auth: m.testKey, method: 'PATCH', call: { path: `/webhooks/${id}`, body: { url: `${receiver.url}/updated` } }, other: { path: `/webhooks/${id}`, body: { url: `${receiver.url}/updated-2` } } };
  },
  'POST /webhooks/deliveries/:id/redeliver': async () => {
    const [id] = await deliveries();
    return { auth: m.testKey, method: 'POST', call: { path: `/webhooks/deliveries/${id}/redeliver`, body: {} }, other: { path: '/webhooks/deliveries/whd_other/redeliver', body: {} } };
  },
  'POST /webhooks/deliveries/redeliver-failed': async () => {
    const range = hour();
    return {
      auth: m.testKey, method: 'POST',
      call: { path: '/webhooks/deliveries/redeliver-failed', body: range },
      other: { path: '/webhooks/deliveries/redeliver-failed', body: { ...range, created_from: new Date(Date.now() - 7_200_000).toISOString() } },
    };
  },
  'POST /couriers/me/duty': async () => {
    const courier = await createCourier(t, { mode: 'test' });
    couriers.push(courier);
    return { auth: courier.token, method: 'POST', call: { path: '/couriers/me/duty', body: { on_duty: true } }, other: { path: '/couriers/me/duty', body: { on_duty: false } } };
  },
  'POST /couriers/me/location': async () => {
    const courier = await createCourier(t, { mode: 'test' });
    couriers.push(courier);
    expectOk(await courier.duty(true));
    return {
      auth: courier.token, method: 'POST',
      call: { path: '/couriers/me/location', body: north(PLACES.lasCondes, 2_000) }, other: { path: '/couriers/me/location', body: north(PLACES.lasCondes, 2_100) },
    };
  },
  'POST /couriers/me/orders/:id/status': async () => {
    const { id, courier } = await carried('assigned');
    return {
      auth: courier.token, method: 'POST',
      call: { path: `/couriers/me/orders/${id}/status`, body: { status: 'arrived_pickup' } }, other: { path: `/couriers/me/orders/${id}/status`, body: { status: 'picked_up' } },
    };
  },
  'POST /couriers/me/orders/:id/release': async () => {
    const { id, courier } = await carried('assigned');
    leftovers.push(id);
    return {
      auth: courier.token, method: 'POST',
      call: { path: `/couriers/me/orders/${id}/release`, body: { reason: 'Pinchazo' } }, other: { path: `/couriers/me/orders/${id}/release`, body: { reason: 'Otro motivo' } },
    };
  },
  'POST /couriers/me/orders/:id/deliver': async () => {
    const { id, courier } = await carried('arrived_dropoff');
    const body = { driver_id: courier.id, coords: dropoff, ...EVIDENCE };
    return {
      auth: courier.token, method: 'POST',
      call: { path: `/couriers/me/orders/${id}/deliver`, body }, other: { path: `/couriers/me/orders/${id}/deliver`, body: { ...body, photo_url: 'https://cdn.example.com/pod/other.jpg' } },
    };
  },
  'POST /couriers/me/orders/:id/failed-attempt': async () => {
    const { id, courier } = await carried('arrived_dropoff');
    const body = { reason: 'recipient_absent', coords: dropoff };
    return {
      auth: courier.token, method: 'POST',
      call: { path: `/couriers/me/orders/${id}/failed-attempt`, body }, other: { path: `/couriers/me/orders/${id}/failed-attempt`, body: { ...body, reason: 'refused' } },
    };
  },
  'POST /couriers/me/orders/:id/return': async () => {
    const { id, courier } = await carried('arrived_dropoff');
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${id}/failed-attempt`, { key: courier.token, body: { reason: 'refused', coords: dropoff } }));
    const body = { coords: PLACES.providencia, ...EVIDENCE };
    return {
      auth: courier.token, method: 'POST',
      call: { path: `/couriers/me/orders/${id}/return`, body }, other: { path: `/couriers/me/orders/${id}/return`, body: { ...body, photo_url: 'https://cdn.example.com/pod/other.jpg' } },
    };
  },
};

describe('Idempotency-Key on every keyed REST write', () => {
  it('the table covers exactly the routes rest/routes/*.ts give a key with idempotencyOf()', () => {
    expect(keyedRoutes()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))('%s: the same key and body replay the first answer; another request under the key is 422', async (route) => {
    const c = await CASES[route]!();
    const key = `routes-${route.replace(/[^a-z]+/gi, '-')}`;
    const send = (call: Call) => api(`${t.url}/api/v1${call.path}`, { method: c.method, key: c.auth, body: call.body, headers: { 'idempotency-key': key } });
    try {
      const first = expectOk(await send(c.call), c.status ?? 200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await send(c.call);
      expect(again.status).toBe(first.status);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expectError(await send(c.other), 422, 'IDEMPOTENCY_KEY_REUSED');
    } finally {
      for (const id of leftovers.splice(0)) await orders().cancel(id);
      await standDown(...couriers.splice(0));
    }
  });
});
