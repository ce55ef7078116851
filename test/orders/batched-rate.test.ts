import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, courierOnDuty, expectOk, formA, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const MIN = 60_000;
const WAIT_MIN = DEFAULT_SANTIAGO_TARIFF.batched_extra_mins;
const ERR = '... on AppError { code message }';
const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) { ... on QueryQuoteSuccess { data { quoteId } } ${ERR} } }`;
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  __typename ... on MutationCreateOrderSuccess { data { id status rateId batchWindowClosesAt estimatedPickupTime estimatedDeliveryTime driver { id } } } ${ERR} } }`;

describe('the batched rate keeps its promise: it waits for companions and is never dispatched as express', () => {
  // Live mode (the sandbox divides durations by its pace); the test moves the clock, no sleeps.
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
  let t: TestApp;
  let m: MerchantCredentials;
  const couriers: CourierClient[] = [];
  const reconcile = () => t.app.container.services.reconciler.reconcile();
  const near = north(PLACES.providencia, 300);

  beforeAll(async () => {
    // The periodic reconciler stays out of the way: each round here is run by the test.
    t = await startOrdersApp({ clock, env: { DISPATCH_RECONCILE_MS: '600000' } });
    m = await t.createMerchant({ name: 'Batched Merchant', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(async () => {
    await standDown(...couriers);
    await t?.stop();
  });

  /** A quote of formA()'s route, booked at the given rate over REST. */
  async function book(rateId: 'express' | 'batched', overrides: Record<string, unknown> = {}) {
    const q = expectOk(await api(`${t.url}/api/v1/shipping/quote`, {
      key: m.liveKey,
      body: { origin: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, destination: { address: 'Apoquindo', coords: PLACES.lasCondes }, total_weight_kg: 1 },
    })).body;
    const created = expectOk(await merchantApi(t, m.liveKey).create(formA({ quote_id: q.quote_id, rate_id: rateId, ...overrides })), 201).body;
    return { quote: q as Wire, created: created as Wire };
  }

  it('step 1: with a courier waiting next door, an express order is assigned at once and a batched one waits, its estimates later by the window', async () => {
    couriers.push(await courierOnDuty(t, { mode: 'live', at: near, vehicle: 'car' }));
    const orders = merchantApi(t, m.liveKey);
    const batched = await book('batched');
    const closes = Date.parse(batched.created.batch_window_closes_at);
    expect(closes - Date.parse(clock.now().toISOString())).toBeGreaterThan((WAIT_MIN - 1) * MIN);
    expect(closes - clock.now().getTime()).toBeLessThanOrEqual(WAIT_MIN * MIN);
    const detail = expectOk(await orders.get(batched.created.booking_id)).body;
    expect(detail).toMatchObject({ status: 'new', driver: null, rate_id: 'batched', batch_window_closes_at: batched.created.batch_window_closes_at });
    // Charged the batched rate, delivered no sooner than the batched quote said.
    expect(detail.price).toBe(batched.quote.rates.find((r: Wire) => r.id === 'batched').cost);
    expect(Date.parse(detail.estimated_pickup_time)).toBeGreaterThanOrEqual(closes);

    const express = await book('express');
    const assigned = expectOk(await orders.get(express.created.booking_id)).body;
    expect(assigned).toMatchObject({ status: 'assigned', driver: { id: couriers[0]!.id }, batch_window_closes_at: null });
    // The batched order's delivery estimate is the quote's express one plus the window (the batched
    // promise), plus the tariff's approach time that every order without a courier yet counts.
    const gap = Date.parse(detail.estimated_delivery_time) - Date.parse(batched.quote.estimated_delivery_time);
    expect(gap).toBeGreaterThanOrEqual(WAIT_MIN * MIN);
    expect(gap).toBeLessThanOrEqual((WAIT_MIN + DEFAULT_SANTIAGO_TARIFF.default_approach_mins + 1) * MIN);
    expectOk(await orders.cancel(express.created.booking_id));

    // A free courier nearby and a reconciler round change nothing while the window is open.
    offsetMs += (WAIT_MIN - 5) * MIN;
    expectOk(await couriers[0]!.position(near));
    await reconcile();
    expect(expectOk(await orders.get(batched.created.booking_id)).body).toMatchObject({ status: 'new', driver: null, batch_id: null });

    // The window closes: alone, it goes with the next round, at the time the batched quote promised.
    offsetMs += 6 * MIN;
    expectOk(await couriers[0]!.position(near));
    await reconcile();
    const gone = expectOk(await orders.get(batched.created.booking_id)).body;
    expect(gone).toMatchObject({ status: 'assigned', driver: { id: couriers[0]!.id }, batch_id: null });
    expect(Date.parse(gone.estimated_delivery_time)).toBeLessThanOrEqual(Date.parse(detail.estimated_delivery_time) + MIN);
    expectOk(await orders.cancel(batched.created.booking_id));
  });

  it('step 2: batched orders of one zone leave together: when the oldest window closes, the waiting ones ride in its batch', async () => {
    const orders = merchantApi(t, m.liveKey);
    const first = await book('batched');
    offsetMs += 20 * MIN;
    const second = await book('batched', { dropoff: { address: 'Av. Apoquindo 3100', coords: north(PLACES.lasCondes, 60) } });
    const express = await book('express');
    expect(expectOk(await orders.get(second.created.booking_id)).body).toMatchObject({ status: 'new', batch_id: null });

    offsetMs += (WAIT_MIN - 19) * MIN; // the first window has closed, the second is still open
    expectOk(await couriers[0]!.position(near));
    await reconcile();
    const a = expectOk(await orders.get(first.created.booking_id)).body;
    const b = expectOk(await orders.get(second.created.booking_id)).body;
    expect(a.batch_id).toMatch(/^bt_/);
    expect(b.batch_id).toBe(a.batch_id);
    // The express order of that zone was never part of it.
    expect(expectOk(await orders.get(express.created.booking_id)).body.batch_id).toBeNull();
    const { batch } = expectOk(await orders.batch(a.batch_id)).body;
    expect(batch).toMatchObject({ vehicle_type: 'bike', order_ids: expect.arrayContaining([a.booking_id, b.booking_id]) });
    expect(batch.order_ids).toHaveLength(2);
    // The companion goes before its own window closes, never after.
    expect(Date.parse(b.estimated_delivery_time)).toBeLessThanOrEqual(Date.parse(second.created.estimated_delivery_time));
    for (const id of [a.booking_id, b.booking_id, express.created.booking_id]) await orders.cancel(id);
  });

  it('step 3: GraphQL books the batched rate the same way (waiting, window shown), and the merchant may consolidate it early', async () => {
    const q = (await gql(t.url, QUOTE, { key: m.liveKey, variables: { input: { origin: { coords: PLACES.providencia }, destination: { coords: PLACES.lasCondes } } } })).body.data.quote.data;
    const input = { dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes }, pickup: { address: 'Providencia', coords: PLACES.providencia }, customerName: 'Ana', customerPhone: '+56911112222', quoteId: q.quoteId, rateId: 'batched' };
    const one = (await gql(t.url, CREATE, { key: m.liveKey, variables: { input } })).body.data.createOrder;
    const two = (await gql(t.url, CREATE, { key: m.liveKey, variables: { input } })).body.data.createOrder;
    expect(one).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { status: 'new', rateId: 'batched', driver: null } });
    expect(Date.parse(one.data.batchWindowClosesAt)).toBeGreaterThan(clock.now().getTime() + (WAIT_MIN - 1) * MIN);
    expect(Date.parse(one.data.estimatedPickupTime)).toBeGreaterThanOrEqual(Date.parse(one.data.batchWindowClosesAt));

    // Consolidation takes orders waiting in their batch window (they are what it is for).
    const zone = ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5);
    const batches = expectOk(await merchantApi(t, m.liveKey).consolidate({ geohash_zone: zone, target_car_type: 'car' })).body;
    const ids = JSON.stringify(batches);
    expect(ids).toContain(one.data.id);
    expect(ids).toContain(two.data.id);
  });
});
