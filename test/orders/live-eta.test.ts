import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { PICKUP_HANDLING_MINS } from '../../src/domain/eta/route-estimate.js';
import { distanceMeters } from '../../src/domain/geo.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { LatLng, Mode } from '../../src/domain/types.js';
import type { Clock } from '../../src/ports/clock.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { along, openLive, until } from '../realtime/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from '../webhooks/support.js';
import { courierOnDuty, EVIDENCE, expectOk, merchantApi, PLACES, standDown, type CourierClient } from './support.js';

// The app's clock runs this far ahead of real time: a stuck courier is simulated by moving it.
let clockOffsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + clockOffsetMs) };
const advance = (minutes: number) => void (clockOffsetMs += minutes * 60_000);

const BIKE_KMH = DEFAULT_SANTIAGO_TARIFF.vehicles.find((v) => v.type === 'bike')!.speed_kmh;
const DETOUR = DEFAULT_SANTIAGO_TARIFF.detour_factor;
/** Milliseconds by road from a to b on a bike, as the live ETA counts them. */
const rideMs = (a: LatLng, b: LatLng) => ((distanceMeters(a, b) * DETOUR) / 1000 / BIKE_KMH) * 3_600_000;
const DROPOFF = PLACES.lasCondes;

describe('live ETA: the delivery estimate follows the courier', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let rival: MerchantCredentials;
  let receiver: Receiver;
  const couriers: CourierClient[] = [];
  const clients: Client[] = [];
  let pickupOffset = 0;

  beforeAll(async () => {
    // The sandbox at real pace (speed 1), so test orders' estimates are in real minutes like live ones.
    t = await startWebhooksApp({ SANDBOX_SPEED: '1' }, { clock });
    shop = await t.createMerchant({ name: 'ETA Shop' });
    rival = await t.createMerchant({ name: 'ETA Rival' });
    receiver = await startReceiver();
    for (const [who, path] of [[shop, '/shop'], [rival, '/rival']] as const) {
      expectOk(await webhooksApi(t.url, who.testKey).create({ url: `${receiver.url}${path}`, events: ['order.status_changed', 'order.eta_changed'] }), 201);
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await standDown(...couriers);
    await t.stop();
    await receiver.close();
  });

  /** A bike order from its own pickup (a kilometre from the last test's) to Las Condes, assigned to a bike courier standing there. */
  async function assigned(mode: Mode = 'test') {
    const pickup = { lat: PLACES.santiago.lat - 0.01 * ++pickupOffset, lng: PLACES.santiago.lng };
    const courier = await courierOnDuty(t, { mode, at: pickup, vehicle: 'bike' });
    couriers.push(courier);
    const key = mode === 'test' ? shop.testKey : shop.liveKey;
    const created = expectOk(
      await merchantApi(t, key).create({
        pickup: { address: 'Alameda 100', coords: pickup },
        dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: DROPOFF },
        customer_name: 'Camila Rojas',
        customer_phone: '+56912345678',
        total_weight_kg: 1,
      }),
      201,
    ).body as { booking_id: string; tracking_number: string; status: string; estimated_delivery_time: string };
    expect(created.status).toBe('assigned');
    const read = async () => expectOk(await merchantApi(t, key).get(created.booking_id)).body.estimated_delivery_time as string;
    return { id: created.booking_id, tracking: created.tracking_number, pickup, courier, key, read, initial: await read() };
  }

  /** A report, with the app-clock window it was taken in. */
  async function report(courier: CourierClient, at: LatLng) {
    const before = clock.now().getTime();
    expectOk(await courier.position(at));
    return { before, after: clock.now().getTime() };
  }

  /** The estimate is `ms` after the report (to the second it is rounded to). */
  function expectEstimate(iso: string, window: { before: number; after: number }, ms: number) {
    const value = Date.parse(iso);
    expect(value).toBeGreaterThanOrEqual(window.before + ms - 1_000);
    expect(value).toBeLessThanOrEqual(window.after + ms + 1_000);
  }

  const etaEvents = (bookingId: string, path = '/shop') =>
    receiver.receipts
      .filter((r) => r.event === 'order.eta_changed' && r.path === path && r.status === 200)
      .map((r) => JSON.parse(r.body) as { booking_id: string; eta: { previous: string; current: string; reason: string }; sequence: number })
      .filter((b) => b.booking_id === bookingId);
  /** Lets the webhook worker send whatever is due (it polls every 50 ms). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

  it('a courier riding toward the drop-off moves the ETA on the order (REST, GraphQL), public tracking (REST, socket, GraphQL subscription) and announces it once', async () => {
    const o = await assigned();
    expectOk(await o.courier.status(o.id, 'picked_up'));
    const live = openLive(t.url, o.tracking);
    await live.waitFor((m) => m.type === 'snapshot', 'the first snapshot');
    const sub = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    clients.push(sub);
    const updates: Array<{ estimatedDeliveryTime: string | null; location: LatLng | null }> = [];
    sub.subscribe<{ tracking: (typeof updates)[number] }>(
      { query: 'subscription ($r: String!) { tracking(reference: $r) { status location { lat lng } estimatedDeliveryTime at } }', variables: { r: o.tracking } },
      { next: (r) => void (r.data && updates.push(r.data.tracking)), error: () => {}, complete: () => {} },
    );
    await until(() => t.app.container.services.tracking.watchedOrders() > 0 && t.app.container.fanOut.sizes().sinks >= 1, 'the watches to listen');
    await new Promise((resolve) => setTimeout(resolve, 200));

    const point = along(o.pickup, DROPOFF, 0.6);
    const window = await report(o.courier, point);
    const eta = await o.read();
    expectEstimate(eta, window, rideMs(point, DROPOFF));
    expect(Date.parse(eta)).toBeLessThan(Date.parse(o.initial) - 10 * 60_000);

    const tracking = expectOk(await api(`${t.url}/api/v1/tracking/${o.tracking}`)).body;
    expect(tracking.estimated_delivery_time).toBe(eta);
    const graphql = await gql(t.url, 'query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { estimatedDeliveryTime } } } }', { key: o.key, variables: { id: o.id } });
    expect(graphql.body.data.order.data.estimatedDeliveryTime).toBe(eta);
    // The socket: an `eta` frame (not waiting for a status change), before the position that moved it.
    const frame = await live.waitFor((m) => m.type === 'eta', 'an eta frame');
    expect(frame).toEqual({ type: 'eta', estimated_delivery_time: eta, at: expect.any(String) });
    await live.close();
    // GraphQL: the position update that moved the estimate carries it.
    await until(() => updates.length > 0, 'the GraphQL tracking update');
    expect(updates).toEqual([{ status: 'picked_up', location: point, estimatedDeliveryTime: eta, at: expect.any(String) }]);

    const [event, ...more] = await waitFor(() => etaEvents(o.id).length > 0 && etaEvents(o.id), { what: 'order.eta_changed' });
    expect(more).toEqual([]);
    expect(event!.eta).toEqual({ previous: o.initial, current: eta, reason: 'courier_position' });
    // Not an event of the merchant's feed (an estimate is not a change of record: the order always shows the current one).
    const feed = expectOk(await api(`${t.url}/api/v1/events?limit=1000`, { key: o.key })).body.events as Array<{ type: string; order_id: string }>;
    expect(feed.filter((e) => e.order_id === o.id).map((e) => e.type)).toEqual(Array(4).fill('order.status_changed'));
  });

  it('a courier moving away makes the ETA grow, with exactly one order.eta_changed per 2 minutes; the next one starts from the last announced', async () => {
    const o = await assigned();
    expectOk(await o.courier.status(o.id, 'picked_up'));
    const away = along(DROPOFF, o.pickup, 1.3);
    const first = await report(o.courier, away);
    const grown = await o.read();
    expectEstimate(grown, first, rideMs(away, DROPOFF));
    expect(Date.parse(grown)).toBeGreaterThan(Date.parse(o.initial) + 5 * 60_000);
    await waitFor(() => etaEvents(o.id).length === 1, { what: 'the first order.eta_changed' });

    // 30 s later, further away still: written (the estimate follows) but not announced (2-minute throttle).
    advance(0.5);
    const further = along(DROPOFF, o.pickup, 1.6);
    const second = await report(o.courier, further);
    expectEstimate(await o.read(), second, rideMs(further, DROPOFF));
    await settle();
    expect(etaEvents(o.id)).toHaveLength(1);

    // Once the interval is over, the next report announces, from the estimate announced last.
    advance(2);
    const later = await report(o.courier, further);
    const latest = await o.read();
    expectEstimate(latest, later, rideMs(further, DROPOFF));
    const events = await waitFor(() => etaEvents(o.id).length === 2 && etaEvents(o.id), { what: 'the second order.eta_changed' });
    expect(events.map((e) => e.eta)).toEqual([
      { previous: o.initial, current: grown, reason: 'courier_position' },
      { previous: grown, current: latest, reason: 'courier_position' },
    ]);
  });

  it('a courier stuck at the pickup makes the ETA grow with reason pickup_delayed', async () => {
    const o = await assigned();
    expectOk(await o.courier.status(o.id, 'arrived_pickup'));
    advance(6);
    const window = await report(o.courier, o.pickup);
    const eta = await o.read();
    expectEstimate(eta, window, PICKUP_HANDLING_MINS * 60_000 + rideMs(o.pickup, DROPOFF));
    const [event] = await waitFor(() => etaEvents(o.id).length === 1 && etaEvents(o.id), { what: 'order.eta_changed' });
    expect(event!.eta).toEqual({ previous: o.initial, current: eta, reason: 'pickup_delayed' });
  });

  it('a small move changes nothing: no write, no event', async () => {
    const o = await assigned();
    expectOk(await o.courier.status(o.id, 'picked_up'));
    const point = along(o.pickup, DROPOFF, 0.5);
    await report(o.courier, point);
    const eta = await o.read();
    await waitFor(() => etaEvents(o.id).length === 1, { what: 'the first order.eta_changed' });
    // 100 m further on a bike ride of kilometres: well under a minute.
    await report(o.courier, along(o.pickup, DROPOFF, 0.51));
    expect(await o.read()).toBe(eta);
    await settle();
    expect(etaEvents(o.id)).toHaveLength(1);
  });

  it('a delivered order keeps its estimate: later reports and time change nothing', async () => {
    const o = await assigned();
    expectOk(await o.courier.status(o.id, 'picked_up'));
    expectOk(await o.courier.deliver(o.id, { driver_id: o.courier.id, coords: DROPOFF, ...EVIDENCE }));
    const final = await o.read();
    advance(10);
    await report(o.courier, o.pickup);
    expect(await o.read()).toBe(final);
    await settle();
    expect(etaEvents(o.id)).toEqual([]);
  });

  it('live mode: the estimate follows the courier too', async () => {
    const o = await assigned('live');
    expectOk(await o.courier.status(o.id, 'picked_up'));
    const point = along(o.pickup, DROPOFF, 0.7);
    const window = await report(o.courier, point);
    expectEstimate(await o.read(), window, rideMs(point, DROPOFF));
    expect(expectOk(await api(`${t.url}/api/v1/tracking/${o.tracking}`)).body.estimated_delivery_time).toBe(await o.read());
  });

  it('the sandbox simulator drives an order to completed while its ETA follows at the sandbox pace; an endpoint subscribed through GraphQL gets order.eta_changed', async () => {
    const sandbox = await t.createMerchant({ name: 'ETA Sandbox' });
    expectOk(await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: sandbox.testKey, body: { prep_time_mins: 0, sandbox_speed: 20 } }));
    const created = await gql(
      t.url,
      'mutation ($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ... on MutationCreateWebhookEndpointSuccess { data { id events } } } }',
      { key: sandbox.testKey, variables: { input: { url: `${receiver.url}/sandbox`, events: ['ORDER_ETA_CHANGED'] } } },
    );
    expect(created.body.data.createWebhookEndpoint.data.events).toEqual(['ORDER_ETA_CHANGED']);
    // Only simulated couriers may take this order (the other tests' free couriers go off duty).
    await standDown(...couriers);
    const { sandbox: simulator } = t.app.container.services;
    await simulator.ensureSimulatedFleet({ perVehicle: 1 });
    const order = expectOk(
      await merchantApi(t, sandbox.testKey).create({
        pickup: { address: 'Alameda 100', coords: PLACES.santiago },
        dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: DROPOFF },
        customer_name: 'Camila Rojas',
        customer_phone: '+56912345678',
        total_weight_kg: 1,
      }),
      201,
    ).body as { booking_id: string };
    const read = async () => expectOk(await merchantApi(t, sandbox.testKey).get(order.booking_id)).body as { status: string; estimated_delivery_time: string };
    const estimates = new Set<string>();
    for (let tick = 0; tick < 400; tick++) {
      const now = await read();
      if (now.status === 'completed') break;
      if (now.status !== 'new') estimates.add(now.estimated_delivery_time);
      await simulator.tick({ seconds: 5, defaultSpeed: 1 });
    }
    expect((await read()).status).toBe('completed');
    // Ticks drive faster than the clock runs: the estimate came closer as the courier rode.
    expect(estimates.size).toBeGreaterThan(2);
    const events = await waitFor(() => {
      const got = receiver.receipts.filter((r) => r.path === '/sandbox' && r.status === 200).map((r) => JSON.parse(r.body) as { booking_id: string; event: string });
      return got.length > 0 && got;
    }, { what: 'the sandbox order.eta_changed' });
    expect(events.every((e) => e.event === 'order.eta_changed' && e.booking_id === order.booking_id)).toBe(true);
  });

  it('another merchant never receives the event, and its endpoint is not even written to', async () => {
    // Every order above is the shop's: the rival, subscribed to the same event in the same mode, got none of them.
    await settle();
    expect(receiver.receipts.filter((r) => r.path === '/shop' && r.event === 'order.eta_changed').length).toBeGreaterThan(0);
    expect(receiver.receipts.filter((r) => r.path === '/rival')).toEqual([]);
    const rivalLog = expectOk(await webhooksApi(t.url, rival.testKey).deliveries({ limit: '100' })).body.deliveries as unknown[];
    expect(rivalLog).toEqual([]);
  });
});
