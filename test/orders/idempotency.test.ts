import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import { gql, type TestApp } from '../helpers/app.js';
import { expectError, expectOk, formA, formB, merchantApi, startOrdersApp } from './support.js';

describe('POST /orders with an idempotency-key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startOrdersApp();
  });
  afterAll(() => t?.stop());

  it('the same key and body answer 200 with the same order (key order in the JSON does not matter)', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const body = formB();
    const first = expectOk(await orders.create(body, 'order-1001'), 201);
    const again = expectOk(await orders.create(body, 'order-1001'), 200);
    expect(again.body).toEqual(first.body);

    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(body));
    expect(expectOk(await orders.create(reordered, 'order-1001'), 200).body.booking_id).toBe(first.body.booking_id);

    // The replay is the order as it stands now.
    expectOk(await orders.cancel(first.body.booking_id));
    expect(expectOk(await orders.create(body, 'order-1001'), 200).body).toMatchObject({ booking_id: first.body.booking_id, status: 'cancelled' });
    expect(expectOk(await orders.list()).body.orders).toHaveLength(1);
  });

  it('the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED and creates nothing', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const first = expectOk(await orders.create(formB(), 'order-2002'), 201);
    const reused = expectError(await orders.create(formB({ order_notes: 'Otra cosa' }), 'order-2002'), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(reused.body.error.message).toEqual(expect.any(String));
    expect(expectOk(await orders.list()).body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual([first.body.booking_id]);
    // Without a key, the same body is a new order.
    expect(expectOk(await orders.create(formB()), 201).body.booking_id).not.toBe(first.body.booking_id);
  });

  it('the same key with a different body that cannot be built (ungeocodable) is still 422, not the build error', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    expectOk(await orders.create(formB(), 'order-3003'), 201);
    expectError(await orders.create(formB({ dropoff_address: 'Calle Inventada 123, Narnia' }), 'order-3003'), 422, 'IDEMPOTENCY_KEY_REUSED');
    // Without the key, the same body is the build error.
    expectError(await orders.create(formB({ dropoff_address: 'Calle Inventada 123, Narnia' })), 400, 'GEOCODING_FAILED');
    expect(expectOk(await orders.list()).body.orders).toHaveLength(1);
  });

  it('refuses a malformed key', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    expectError(await orders.create(formB(), 'has spaces in it'), 400, 'VALIDATION_ERROR');
    expectError(await orders.create(formB(), 'k'.repeat(256)), 400, 'VALIDATION_ERROR');
    expect(expectOk(await orders.list()).body.orders).toEqual([]);
  });

  it('100 concurrent creates with one key make exactly one order; every answer carries its booking_id', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const body = formA({ reference_id: 'CONCURRENT-1' });
    const answers = await Promise.all(Array.from({ length: 100 }, () => orders.create(body, 'one-key-for-all')));

    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(99);
    const ids = new Set(answers.map((a) => a.body.booking_id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(id).toMatch(/^bk_/);

    const listed = expectOk(await orders.list('?limit=100')).body.orders;
    expect(listed.map((o: { booking_id: string }) => o.booking_id)).toEqual([id]);
    expect(expectOk(await orders.events(id!)).body.events).toHaveLength(1);
  });

  it('keys are per merchant and per mode: the same key on another key or merchant is another order', async () => {
    const a = await t.createMerchant({ name: 'A' });
    const b = await t.createMerchant({ name: 'B' });
    const body = formB();
    const aTest = expectOk(await merchantApi(t, a.testKey).create(body, 'shared-key'), 201).body.booking_id;
    const aLive = expectOk(await merchantApi(t, a.liveKey).create(body, 'shared-key'), 201).body.booking_id;
    const bTest = expectOk(await merchantApi(t, b.testKey).create(body, 'shared-key'), 201).body.booking_id;
    expect(new Set([aTest, aLive, bTest]).size).toBe(3);
    // Each still replays its own.
    expect(expectOk(await merchantApi(t, a.liveKey).create(body, 'shared-key'), 200).body.booking_id).toBe(aLive);
    expect(expectOk(await merchantApi(t, b.testKey).create(body, 'shared-key'), 200).body.booking_id).toBe(bTest);
    // A different body under B's key is B's conflict, whatever A sent.
    expectError(await merchantApi(t, b.testKey).create(formA(), 'shared-key'), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('GraphQL createOrder shares the key space with REST', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const CREATE = `mutation ($input: CreateOrderInput!, $key: String) { createOrder(input: $input, idempotencyKey: $key) {
      __typename ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code } } }`;
    const input = { customerName: 'Ana', customerPhone: '+56911112222', dropoff: { address: 'Irarrázaval 3000, Ñuñoa' }, paymentMode: 'prepaid' };
    const wire = { customer_name: 'Ana', customer_phone: '+56911112222', dropoff: { address: 'Irarrázaval 3000, Ñuñoa' }, payment_mode: 'prepaid' };

    // The same request through either door under one key is one order.
    const rest = expectOk(await orders.create(wire, 'gql-key'), 201).body.booking_id;
    const same = await gql(t.url, CREATE, { key: m.testKey, variables: { input, key: 'gql-key' } });
    expect(same.body.data.createOrder).toEqual({ __typename: 'MutationCreateOrderSuccess', data: { id: rest } });
    // A different request under that key is the typed conflict.
    const other = await gql(t.url, CREATE, { key: m.testKey, variables: { input: { ...input, customerName: 'Otra' }, key: 'gql-key' } });
    expect(other.body.data.createOrder).toEqual({ __typename: 'AppError', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(expectOk(await orders.list()).body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual([rest]);
  });
});

describe('idempotency keys expire after 24 hours', () => {
  let now = Date.parse('2025-03-01T12:00:00.000Z');
  const clock: Clock = { now: () => new Date(now) };
  let t: TestApp;
  beforeAll(async () => {
    t = await startOrdersApp({ clock });
  });
  afterAll(() => t?.stop());

  it('replays within 24 h, and the key is free again after', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const first = expectOk(await orders.create(formB(), 'daily-key'), 201).body.booking_id;

    now += 24 * 3_600_000 - 1000;
    expect(expectOk(await orders.create(formB(), 'daily-key'), 200).body.booking_id).toBe(first);
    expectError(await orders.create(formA(), 'daily-key'), 422, 'IDEMPOTENCY_KEY_REUSED');

    now += 2000;
    const other = formA();
    const second = expectOk(await orders.create(other, 'daily-key'), 201).body.booking_id;
    expect(second).not.toBe(first);
    expect(expectOk(await orders.create(other, 'daily-key'), 200).body.booking_id).toBe(second);
  });
});

describe('concurrent duplicates when every request passes the replay check first', () => {
  // A slow geocoder (real network I/O between the replay check and the insert) makes all 100
  // requests look the key up before any of them has stored it: only the unique index decides.
  const NOMINATIM = readFileSync('test/fixtures/nominatim/apoquindo-3000-las-condes.json', 'utf8');
  let geocoder: Server;
  let lookups = 0;
  let t: TestApp;
  beforeAll(async () => {
    geocoder = createServer((_req, res) => {
      lookups++;
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(NOMINATIM), 50);
    });
    await new Promise<void>((resolve) => geocoder.listen(0, '127.0.0.1', resolve));
    t = await startOrdersApp({ env: { GEOCODER_URL: `http://127.0.0.1:${(geocoder.address() as AddressInfo).port}` } });
  });
  afterAll(async () => {
    await t?.stop();
    await new Promise((resolve) => geocoder?.close(resolve));
  });

  it('100 concurrent creates with one key still make exactly one order', async () => {
    const m = await t.createMerchant();
    const orders = merchantApi(t, m.testKey);
    const body = formB({ dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_rut: undefined });
    const answers = await Promise.all(Array.from({ length: 100 }, () => orders.create(body, 'racing-key')));

    expect(lookups).toBeGreaterThan(1); // several requests were past the replay check at once
    expect(answers.map((a) => a.status).filter((s) => s === 201)).toHaveLength(1);
    expect(answers.map((a) => a.status).filter((s) => s === 200)).toHaveLength(99);
    const ids = new Set(answers.map((a) => a.body.booking_id));
    expect(ids.size).toBe(1);
    expect(expectOk(await orders.list('?limit=100')).body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual([...ids]);
  });
});
