import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, expectError, expectOk, formA, formB, merchantApi, north, startOrdersApp } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message fields { field message } }';
const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) {
  __typename ... on QueryQuoteSuccess { data { quoteId expiresAt price rates { id cost } } } ${ERR} } }`;
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  __typename ... on MutationCreateOrderSuccess { data { id price quoteId rateId } } ${ERR} } }`;

const FIFTEEN_MIN = 15 * 60_000;

describe('bound quotes: quote_id on POST /orders and createOrder', () => {
  // A clock the test moves (quotes expire on it).
  let now = Date.parse('2025-06-02T10:00:00.000Z');
  const clock: Clock = { now: () => new Date(now) };
  let t: TestApp;
  let m: MerchantCredentials;
  let other: MerchantCredentials;
  const quote = (body: unknown, key = m.testKey) => api(`${t.url}/api/v1/shipping/quote`, { key, body });
  /** Form A quote of formA()'s route (coordinates, 1 kg). */
  const quoteFormA = (overrides: Record<string, unknown> = {}, key = m.testKey) =>
    quote({ origin: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, destination: { address: 'Apoquindo', coords: PLACES.lasCondes }, total_weight_kg: 1, ...overrides }, key);

  beforeAll(async () => {
    t = await startOrdersApp({ clock });
    m = await t.createMerchant({ name: 'Quote Binding Merchant', address: 'Av. Providencia 1234, Providencia' });
    other = await t.createMerchant({ name: 'Other Merchant' });
  });
  afterAll(() => t?.stop());

  it('every quote answer (both request forms, GraphQL) carries a quote_id and expires_at 15 minutes on', async () => {
    const a = expectOk(await quoteFormA());
    expect(a.body.quote_id).toMatch(/^qt_[0-9A-Z]{26}$/);
    expect(a.body.expires_at).toBe(new Date(now + FIFTEEN_MIN).toISOString());
    const b = expectOk(await quote({ destination: 'Av. Apoquindo 3000, Las Condes', total_weight: 2 }));
    expect(b.body.quote_id).toMatch(/^qt_/);
    expect(b.body.quote_id).not.toBe(a.body.quote_id);
    expect(b.body.expires_at).toBe(new Date(now + FIFTEEN_MIN).toISOString());
    const g = (await gql(t.url, QUOTE, { key: m.testKey, variables: { input: { destination: { coords: PLACES.lasCondes } } } })).body.data.quote;
    expect(g).toMatchObject({ __typename: 'QueryQuoteSuccess', data: { quoteId: expect.stringMatching(/^qt_/), expiresAt: new Date(now + FIFTEEN_MIN).toISOString() } });
  });

  it('an order naming the quote is charged exactly the quoted rate (express by default, or batched), even when repricing would differ', async () => {
    const q = expectOk(await quoteFormA()).body;
    const express = q.rates.find((r: Wire) => r.id === 'express').cost as number;
    const batched = q.rates.find((r: Wire) => r.id === 'batched').cost as number;
    // 90 m further (within the tolerance): priced afresh this would cost more.
    const moved = { address: 'Av. Apoquindo 3000, Las Condes', coords: north(PLACES.lasCondes, 90) };
    const unbound = expectOk(await merchantApi(t, m.testKey).create(formA({ dropoff: moved })), 201).body;
    const unboundPrice = expectOk(await merchantApi(t, m.testKey).get(unbound.booking_id)).body.price;
    expect(unboundPrice).not.toBe(express);

    // The tariff changes meanwhile? Not modelled; the clock moves 14 minutes, still within the quote.
    now += 14 * 60_000;
    const orders = merchantApi(t, m.testKey);
    const id = expectOk(await orders.create(formA({ dropoff: moved, quote_id: q.quote_id })), 201).body.booking_id;
    expect(expectOk(await orders.get(id)).body).toMatchObject({ price: express, quote_id: q.quote_id, rate_id: 'express' });
    const id2 = expectOk(await orders.create(formA({ quote_id: q.quote_id, rate_id: 'batched' })), 201).body.booking_id;
    expect(expectOk(await orders.get(id2)).body).toMatchObject({ price: batched, quote_id: q.quote_id, rate_id: 'batched' });
    // An order without a quote is priced as before, without quote fields.
    expect(expectOk(await orders.get(unbound.booking_id)).body).toMatchObject({ quote_id: null, rate_id: null });
  });

  it('Form B: a quote of the merchant address to a text destination binds an order with dropoff_address', async () => {
    const q = expectOk(await quote({ destination: 'Av. Apoquindo 3000, Las Condes', total_weight: 0.5 })).body;
    const orders = merchantApi(t, m.testKey);
    const id = expectOk(await orders.create(formB({ quote_id: q.quote_id })), 201).body.booking_id;
    expect(expectOk(await orders.get(id)).body).toMatchObject({ price: q.price, quote_id: q.quote_id });
  });

  it('an expired quote is 409 QUOTE_EXPIRED; an unknown one 404 QUOTE_NOT_FOUND; rate_id alone is a validation error', async () => {
    const q = expectOk(await quoteFormA()).body;
    const orders = merchantApi(t, m.testKey);
    now += FIFTEEN_MIN;
    const expired = expectError(await orders.create(formA({ quote_id: q.quote_id })), 409, 'QUOTE_EXPIRED');
    expect(expired.body.error.details).toEqual({ expires_at: q.expires_at });
    expectError(await orders.create(formA({ quote_id: 'qt_00000000000000000000000000' })), 404, 'QUOTE_NOT_FOUND');
    const alone = expectError(await orders.create(formA({ rate_id: 'batched' })), 400, 'VALIDATION_ERROR');
    expect(alone.body.error.fields).toEqual([{ field: 'rate_id', message: expect.any(String) }]);
    expectError(await orders.create(formA({ quote_id: q.quote_id, rate_id: 'overnight' })), 400, 'VALIDATION_ERROR');
  });

  it('a route beyond 100 m or a weight in another price band is 422 QUOTE_MISMATCH naming the fields; nothing is created', async () => {
    const q = expectOk(await quoteFormA()).body;
    const orders = merchantApi(t, m.testKey);
    const before = expectOk(await orders.list('?limit=100')).body.orders.length;
    const far = expectError(await orders.create(formA({ quote_id: q.quote_id, dropoff: { address: 'Apoquindo', coords: north(PLACES.lasCondes, 150) } })), 422, 'QUOTE_MISMATCH');
    expect(far.body.error.fields).toEqual([{ field: 'dropoff', message: expect.stringContaining('150 m') }]);
    const farPickup = expectError(await orders.create(formA({ quote_id: q.quote_id, pickup: { address: 'Providencia', coords: north(PLACES.providencia, 400) } })), 422, 'QUOTE_MISMATCH');
    expect(farPickup.body.error.fields.map((f: Wire) => f.field)).toEqual(['pickup']);
    // 1 kg was quoted (bike); 10 kg rides a motorcycle. 5 kg is still a bike: accepted.
    const heavy = expectError(await orders.create(formA({ quote_id: q.quote_id, items: [], total_weight_kg: 10 })), 422, 'QUOTE_MISMATCH');
    expect(heavy.body.error.fields.map((f: Wire) => f.field)).toEqual(['total_weight_kg']);
    expect(expectOk(await orders.list('?limit=100')).body.orders.length).toBe(before);
    expectOk(await orders.create(formA({ quote_id: q.quote_id, items: [], total_weight_kg: 5 })), 201);
  });

  it("security: another merchant's quote, or the other mode's, is not found and its price never shown", async () => {
    const q = expectOk(await quoteFormA()).body;
    for (const key of [other.testKey, m.liveKey]) {
      const res = expectError(await merchantApi(t, key).create(formA({ quote_id: q.quote_id })), 404, 'QUOTE_NOT_FOUND');
      expect(JSON.stringify(res.body)).not.toContain(String(q.price));
    }
    // The live quote binds live orders only.
    const live = expectOk(await quoteFormA({}, m.liveKey)).body;
    expectError(await merchantApi(t, m.testKey).create(formA({ quote_id: live.quote_id })), 404, 'QUOTE_NOT_FOUND');
    const id = expectOk(await merchantApi(t, m.liveKey).create(formA({ quote_id: live.quote_id })), 201).body.booking_id;
    expect(expectOk(await merchantApi(t, m.liveKey).get(id)).body).toMatchObject({ price: live.price, is_test: false });
  });

  it('GraphQL: createOrder with quoteId and rateId is charged the quoted rate; failures are typed results', async () => {
    const g = (query: string, variables: Record<string, unknown>, key = m.testKey) => gql(t.url, query, { key, variables }).then((r) => {
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data as Wire;
    });
    const route = { pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes } };
    const q = (await g(QUOTE, { input: { origin: route.pickup, destination: route.dropoff, totalWeightKg: 1 } })).quote.data;
    const input = { ...route, customerName: 'Camila Rojas', customerPhone: '+56912345678', totalWeightKg: 1 };
    const created = (await g(CREATE, { input: { ...input, quoteId: q.quoteId, rateId: 'batched' } })).createOrder;
    const batched = q.rates.find((r: Wire) => r.id === 'batched').cost;
    expect(created).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { price: batched, quoteId: q.quoteId, rateId: 'batched' } });
    // Field names in GraphQL's terms (REST's are snake_case).
    expect((await g(CREATE, { input: { ...input, totalWeightKg: 30, quoteId: q.quoteId } })).createOrder).toMatchObject({ __typename: 'AppError', code: 'QUOTE_MISMATCH', fields: [{ field: 'totalWeightKg' }] });
    expect((await g(CREATE, { input: { ...input, quoteId: q.quoteId } }, other.testKey)).createOrder).toMatchObject({ __typename: 'AppError', code: 'QUOTE_NOT_FOUND' });
    now += FIFTEEN_MIN + 1000;
    expect((await g(CREATE, { input: { ...input, quoteId: q.quoteId } })).createOrder).toMatchObject({ __typename: 'AppError', code: 'QUOTE_EXPIRED' });
  });

  it('retention removes quotes a day after they expired; until then they answer QUOTE_EXPIRED', async () => {
    const q = expectOk(await quoteFormA()).body;
    now += FIFTEEN_MIN + 23 * 3_600_000;
    const { retention } = t.app.container.services;
    await retention.pruneStorage();
    expectError(await merchantApi(t, m.testKey).create(formA({ quote_id: q.quote_id })), 409, 'QUOTE_EXPIRED');
    now += 2 * 3_600_000;
    expect((await retention.pruneStorage()).quotes).toBeGreaterThanOrEqual(1);
    expectError(await merchantApi(t, m.testKey).create(formA({ quote_id: q.quote_id })), 404, 'QUOTE_NOT_FOUND');
  });
});
