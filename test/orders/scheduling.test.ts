import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, courierOnDuty, expectError, expectOk, formA, formB, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message fields { field message } }';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  __typename ... on MutationCreateOrderSuccess { data { id status scheduledPickupAt deliverBefore estimatedPickupTime driver { id } } } ${ERR} } }`;

const MIN = 60_000;
/** The tariff's default approach time: a scheduled order is dispatched this long before its window. */
const APPROACH_MIN = 10;

describe('scheduled deliveries: pickup_after and deliver_before', () => {
  // The app's clock runs this far ahead of real time; the test moves it (no sleeps).
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
  const inMinutes = (mins: number) => new Date(clock.now().getTime() + mins * MIN).toISOString();
  let t: TestApp;
  let m: MerchantCredentials;
  let courier: CourierClient | undefined;

  beforeAll(async () => {
    // The periodic reconciler stays out of the way: each round here is run by the test.
    t = await startOrdersApp({ clock, env: { DISPATCH_RECONCILE_MS: '600000' } });
    m = await t.createMerchant({ name: 'Scheduling Merchant', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(async () => {
    if (courier) await standDown(courier);
    await t?.stop();
  });

  const reconcile = () => t.app.container.services.reconciler.reconcile();

  it('a scheduled order stays new (a courier waits nearby) and is dispatched once its window opens, less the approach time', async () => {
    // Live mode: the sandbox divides every duration by its pace, the approach time included.
    courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
    const orders = merchantApi(t, m.liveKey);
    const pickupAfter = inMinutes(120);
    const created = expectOk(await orders.create(formA({ pickup_after: pickupAfter, deliver_before: inMinutes(240) })), 201).body;
    expect(created).toMatchObject({ status: 'new', scheduled_pickup_at: pickupAfter, deliver_before: expect.any(String), estimated_pickup_time: pickupAfter });
    expect(Date.parse(created.estimated_delivery_time)).toBeGreaterThan(Date.parse(pickupAfter));

    // Not dispatched early: not by the reconciler, not when the courier frees up or reports.
    expect((await reconcile()).dispatched).toBe(0);
    offsetMs += (120 - APPROACH_MIN - 1) * MIN;
    expectOk(await courier.position(north(PLACES.providencia, 300)));
    await reconcile();
    expect(expectOk(await orders.get(created.booking_id)).body).toMatchObject({ status: 'new', driver: null, scheduled_pickup_at: pickupAfter });
    expect(expectOk(await courier.me()).body.courier.status).toBe('available');

    // The window (less the approach time) opens: the next round dispatches it.
    offsetMs += 1 * MIN;
    expectOk(await courier.position(north(PLACES.providencia, 300)));
    await reconcile();
    const assigned = expectOk(await orders.get(created.booking_id)).body;
    expect(assigned).toMatchObject({ status: 'assigned', driver: { id: courier.id } });
    // The pickup is at the window, not before (the courier is minutes away).
    expect(Date.parse(assigned.estimated_pickup_time)).toBeGreaterThanOrEqual(Date.parse(pickupAfter));
    expectOk(await orders.cancel(created.booking_id));
  });

  it('Form B takes the window too; deliver_before alone only has to be reachable', async () => {
    const orders = merchantApi(t, m.testKey);
    const pickupAfter = inMinutes(60);
    const b = expectOk(await orders.create(formB({ pickup_after: pickupAfter })), 201).body;
    expect(b).toMatchObject({ status: 'new', scheduled_pickup_at: pickupAfter, deliver_before: null });
    const deadline = inMinutes(180);
    const soon = expectOk(await orders.create(formA({ deliver_before: deadline })), 201).body;
    expect(soon).toMatchObject({ scheduled_pickup_at: null, deliver_before: deadline });
    for (const id of [b.booking_id, soon.booking_id]) expectOk(await orders.cancel(id));
  });

  it('unreachable windows are 422 DELIVERY_WINDOW_UNREACHABLE, malformed dates 400 VALIDATION_ERROR; nothing is created', async () => {
    const orders = merchantApi(t, m.testKey);
    const count = async () => expectOk(await orders.list('?limit=100')).body.orders.length;
    const before = await count();
    const unreachable = async (body: Record<string, unknown>, field: string) => {
      const res = expectError(await orders.create(formA(body)), 422, 'DELIVERY_WINDOW_UNREACHABLE');
      expect(res.body.error.fields.map((f: Wire) => f.field)).toEqual([field]);
    };
    await unreachable({ pickup_after: inMinutes(-30) }, 'pickup_after');
    await unreachable({ pickup_after: inMinutes(7 * 24 * 60 + 5) }, 'pickup_after');
    await unreachable({ deliver_before: inMinutes(-1) }, 'deliver_before');
    await unreachable({ deliver_before: inMinutes(8 * 24 * 60) }, 'deliver_before');
    // The earliest delivery is the approach (10 min) plus the trip: 5 minutes is too soon (in live mode; the sandbox runs faster).
    expectError(await merchantApi(t, m.liveKey).create(formA({ deliver_before: inMinutes(5) })), 422, 'DELIVERY_WINDOW_UNREACHABLE');
    // A deadline before the window opens.
    await unreachable({ pickup_after: inMinutes(120), deliver_before: inMinutes(90) }, 'deliver_before');
    for (const bad of ['tomorrow', '2025-13-01T10:00:00Z', '2025-06-02T10:00:00']) {
      expectError(await orders.create(formA({ pickup_after: bad })), 400, 'VALIDATION_ERROR');
    }
    expect(await count()).toBe(before);
  });

  it('quotes take the window: estimates follow it, an unreachable one is 422, and an order booking the quote inherits it', async () => {
    const quote = (body: unknown) => api(`${t.url}/api/v1/shipping/quote`, { key: m.testKey, body });
    const pickupAfter = inMinutes(90);
    const q = expectOk(await quote({ destination: { lat: PLACES.lasCondes.lat, lng: PLACES.lasCondes.lng }, pickup_after: pickupAfter })).body;
    expect(q).toMatchObject({ scheduled_pickup_at: pickupAfter, deliver_before: null, estimated_pickup_time: pickupAfter });
    expectError(await quote({ destination: 'Las Condes', pickup_after: inMinutes(-60) }), 422, 'DELIVERY_WINDOW_UNREACHABLE');
    expectError(await quote({ destination: 'Las Condes', deliver_before: inMinutes(3) }), 422, 'DELIVERY_WINDOW_UNREACHABLE');
    const orders = merchantApi(t, m.testKey);
    const booked = expectOk(await orders.create(formB({ dropoff_address: { lat: PLACES.lasCondes.lat, lng: PLACES.lasCondes.lng }, prep_time_mins: 0, quote_id: q.quote_id })), 201).body;
    expect(booked).toMatchObject({ status: 'new', scheduled_pickup_at: pickupAfter });
    expectOk(await orders.cancel(booked.booking_id));
  });

  it('GraphQL createOrder takes pickupAfter and deliverBefore; an unreachable window is a typed result', async () => {
    const g = (variables: Record<string, unknown>) => gql(t.url, CREATE, { key: m.testKey, variables }).then((r) => {
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data.createOrder as Wire;
    });
    const input = {
      pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes },
      customerName: 'Camila Rojas', customerPhone: '+56912345678',
    };
    const pickupAfter = inMinutes(45);
    const created = await g({ input: { ...input, pickupAfter, deliverBefore: inMinutes(180) } });
    expect(created).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { status: 'new', scheduledPickupAt: pickupAfter, estimatedPickupTime: pickupAfter, driver: null } });
    expect(await g({ input: { ...input, pickupAfter: inMinutes(-120) } })).toMatchObject({ __typename: 'AppError', code: 'DELIVERY_WINDOW_UNREACHABLE', fields: [{ field: 'pickupAfter' }] });
    expectOk(await merchantApi(t, m.testKey).cancel(created.data.id));

    const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) { __typename ... on QueryQuoteSuccess { data { quoteId scheduledPickupAt deliverBefore estimatedPickupTime } } ${ERR} } }`;
    const quoted = (await gql(t.url, QUOTE, { key: m.testKey, variables: { input: { destination: { coords: PLACES.lasCondes }, pickupAfter } } })).body.data.quote;
    expect(quoted).toMatchObject({ __typename: 'QueryQuoteSuccess', data: { scheduledPickupAt: pickupAfter, deliverBefore: null, estimatedPickupTime: pickupAfter } });
    const late = (await gql(t.url, QUOTE, { key: m.testKey, variables: { input: { destination: { coords: PLACES.lasCondes }, deliverBefore: inMinutes(2) } } })).body.data.quote;
    expect(late).toMatchObject({ __typename: 'AppError', code: 'DELIVERY_WINDOW_UNREACHABLE', fields: [{ field: 'deliverBefore' }] });
  });

  it('the sandbox honours the window: advance and the simulated fleet leave the order alone until it opens', async () => {
    const orders = merchantApi(t, m.testKey);
    const { sandbox } = t.app.container.services;
    const created = expectOk(await orders.create(formA({ pickup_after: inMinutes(30) })), 201).body;
    await sandbox.ensureSimulatedFleet({ perVehicle: 1 });
    await sandbox.tick({ seconds: 1, defaultSpeed: 1 });
    const advance = () => api(`${t.url}/api/v1/sandbox/orders/${created.booking_id}/advance`, { key: m.testKey, body: {} });
    const early = expectError(await advance(), 409, 'CONFLICT');
    expect(early.body.error.message).toContain('scheduled');
    expect(expectOk(await orders.get(created.booking_id)).body.status).toBe('new');
    offsetMs += 30 * MIN;
    await sandbox.tick({ seconds: 1, defaultSpeed: 1 });
    expect(expectOk(await advance()).body.status).toBe('assigned');
    expectOk(await orders.cancel(created.booking_id));
  });

  it("security: a scheduled order is the merchant's and its mode's alone", async () => {
    const created = expectOk(await merchantApi(t, m.testKey).create(formA({ pickup_after: inMinutes(60) })), 201).body;
    const stranger = await t.createMerchant({ name: 'Stranger' });
    expectError(await merchantApi(t, stranger.testKey).get(created.booking_id), 404, 'ORDER_NOT_FOUND');
    expectError(await merchantApi(t, m.liveKey).get(created.booking_id), 404, 'ORDER_NOT_FOUND');
    expectOk(await merchantApi(t, m.testKey).cancel(created.booking_id));
  });
});
