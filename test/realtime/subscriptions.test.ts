import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { WatchFanOut } from '../../src/domain/watch/fan-out.js';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { trackingResponseSchema } from '../../rest/openapi/responses-tracking.js';
import { courierOnDuty, expectOk, expectWireShape, formA, merchantApi, PLACES, startOrdersApp } from '../orders/support.js';
import { along, assignedOrder, customerDataIn, until } from './support.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the results freely
type Data = any;

interface Subscription {
  results: FormattedExecutionResult<Data, unknown>[];
  /** Data of every result, in arrival order. */
  data: () => Data[];
  error: () => unknown;
  completed: () => boolean;
  dispose: () => void;
}

/**
 * Live watches on the node's fan-out: a GraphQL subscription is live (and will see the next event)
 * once its domain watch is registered there. Public tracking watches of one order share one entry.
 */
function watchesOf(fanOut: WatchFanOut) {
  return { active: () => fanOut.sizes().sinks };
}

describe('GraphQL subscriptions over graphql-ws', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let rival: MerchantCredentials;
  let watches: ReturnType<typeof watchesOf>;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startOrdersApp();
    shop = await t.createMerchant({ name: 'Subscribing Shop' });
    rival = await t.createMerchant({ name: 'Rival Shop' });
    watches = watchesOf(t.app.container.fanOut);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    // return() on every operation unregisters it: no index entry outlives its subscription.
    await until(() => watches.active() === 0, 'the subscriptions to end');
    expect(t.app.container.fanOut.sizes()).toMatchObject({ orders: 0, merchants: 0, couriers: 0, sinks: 0 });
    expect(t.app.container.services.tracking.watchedOrders()).toBe(0);
  });
  afterAll(async () => {
    await t.stop();
  });

  function client(connectionParams?: Record<string, unknown>): Client & { closes: Array<{ code: number; reason: string }> } {
    const closes: Array<{ code: number; reason: string }> = [];
    const c = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      ...(connectionParams && { connectionParams }),
      retryAttempts: 0,
      lazy: true,
      on: { closed: (event) => closes.push({ code: (event as CloseEvent).code, reason: (event as CloseEvent).reason }) },
    });
    clients.push(c);
    return Object.assign(c, { closes });
  }
  const merchantClient = (key: string) => client({ authorization: `Bearer ${key}` });

  function subscribe(c: Client, query: string, variables?: Record<string, unknown>): Subscription {
    const results: FormattedExecutionResult<Data, unknown>[] = [];
    let error: unknown;
    let completed = false;
    const dispose = c.subscribe<Data>(
      { query, ...(variables && { variables }) },
      {
        next: (result) => void results.push(result),
        error: (e) => void (error = e),
        complete: () => void (completed = true),
      },
    );
    return { results, data: () => results.map((r) => r.data), error: () => error, completed: () => completed, dispose };
  }

  /**
   * What graphql-ws does with a subscription the resolver refuses (no scope, unknown order): one
   * `next` carrying only errors, then `complete` — never data. Returns the errors (message, path).
   */
  async function refusal(sub: Subscription) {
    await until(() => sub.completed() || sub.error(), 'the subscription to end');
    expect(sub.error()).toBeUndefined();
    expect(sub.results).toHaveLength(1);
    expect(sub.results[0]!.data ?? null).toBeNull();
    return sub.results[0]!.errors!.map(({ message, path }) => ({ message, path }));
  }

  /** Waits until `n` more subscriptions than `before` are listening on the fan-out. */
  const listening = (before: number, n = 1) => until(() => watches.active() >= before + n, `${n} subscription(s) to listen on the fan-out`);

  it('orderStatusChanged and courierPosition deliver status and position events in order', async () => {
    const { order, courier, pickup } = await assignedOrder(t, shop.liveKey);
    const c = merchantClient(shop.liveKey);
    const before = watches.active();
    const statuses = subscribe(c, 'subscription ($id: String!) { orderStatusChanged(id: $id) { orderId from status sequence at order { id status } } }', {
      id: order.booking_id,
    });
    const positions = subscribe(c, 'subscription ($id: String!) { courierPosition(id: $id) { orderId location { lat lng } at } }', {
      id: order.tracking_number,
    });
    await listening(before, 2);

    const points = [0.2, 0.5, 0.8].map((f) => along(pickup, PLACES.lasCondes, f));
    expectOk(await courier.position(points[0]!));
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    expectOk(await courier.position(points[1]!));
    expectOk(await courier.status(order.booking_id, 'picked_up'));
    expectOk(await courier.position(points[2]!));
    expectOk(await courier.status(order.booking_id, 'arrived_dropoff'));

    await until(() => statuses.results.length >= 3 && positions.results.length >= 3, 'three statuses and three positions');
    expect(statuses.results.every((r) => r.errors === undefined)).toBe(true);
    const changes = statuses.data().map((d) => d.orderStatusChanged);
    expect(changes.map((s) => [s.from, s.status])).toEqual([
      ['assigned', 'arrived_pickup'],
      ['arrived_pickup', 'picked_up'],
      ['picked_up', 'arrived_dropoff'],
    ]);
    expect(changes.map((s) => s.sequence)).toEqual([3, 4, 5]);
    expect(changes.every((s) => s.orderId === order.booking_id && s.order.id === order.booking_id)).toBe(true);
    expect(positions.data().map((d) => d.courierPosition)).toEqual(
      points.map((p) => ({ orderId: order.booking_id, location: p, at: expect.any(String) })),
    );
  });

  it('orderStatusChanged(afterSequence) sends first a change made before it listened, once; at the current sequence it waits', async () => {
    const { order, courier } = await assignedOrder(t, shop.liveKey);
    const shown = expectOk(await merchantApi(t, shop.liveKey).events(order.booking_id)).body.events.at(-1).sequence as number;
    // The page has read the order; the change lands before its subscription listens.
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    const c = merchantClient(shop.liveKey);
    const before = watches.active();
    const query = 'subscription ($id: String!, $after: Int) { orderStatusChanged(id: $id, afterSequence: $after) { from status sequence } }';
    const behind = subscribe(c, query, { id: order.booking_id, after: shown });
    const current = subscribe(c, query, { id: order.booking_id, after: shown + 1 });
    const plain = subscribe(c, query, { id: order.booking_id });
    await listening(before, 3);
    await until(() => behind.results.length >= 1, 'the missed change');
    expect(behind.data()).toEqual([{ orderStatusChanged: { from: null, status: 'arrived_pickup', sequence: shown + 1 } }]);

    expectOk(await courier.status(order.booking_id, 'picked_up'));
    const next = { orderStatusChanged: { from: 'arrived_pickup', status: 'picked_up', sequence: shown + 2 } };
    await until(() => behind.results.length >= 2 && current.results.length >= 1 && plain.results.length >= 1, 'the next change on all three');
    expect(behind.data()).toEqual([{ orderStatusChanged: { from: null, status: 'arrived_pickup', sequence: shown + 1 } }, next]);
    expect(current.data()).toEqual([next]);
    expect(plain.data()).toEqual([next]);
  });

  it("orderEvents streams only the caller's merchant and mode", async () => {
    const c = merchantClient(shop.liveKey);
    const before = watches.active();
    const events = subscribe(c, 'subscription { orderEvents { orderId status trackingNumber } }');
    await listening(before);

    // Another merchant's orders, and the shop's own sandbox order, must never arrive.
    const rivalOrder = (await assignedOrder(t, rival.liveKey)).order;
    const rivalOrders = merchantApi(t, rival.liveKey);
    const queued = expectOk(await rivalOrders.create(formA({ pickup: { address: 'Plaza Ñuñoa', coords: PLACES.nunoa } })), 201).body;
    expectOk(await rivalOrders.cancel(queued.booking_id));
    const sandbox = expectOk(await merchantApi(t, shop.testKey).create(formA()), 201).body;
    // The shop's own live order comes last: once its events are in, every earlier event was delivered.
    const own = await assignedOrder(t, shop.liveKey);
    expectOk(await own.courier.status(own.order.booking_id, 'arrived_pickup'));

    await until(() => events.data().some((d) => d.orderEvents.status === 'arrived_pickup'), "the shop's arrived_pickup");
    const seen = events.data().map((d) => d.orderEvents);
    expect(seen.map((e) => [e.orderId, e.status])).toEqual([
      [own.order.booking_id, 'new'],
      [own.order.booking_id, 'assigned'],
      [own.order.booking_id, 'arrived_pickup'],
    ]);
    for (const foreign of [rivalOrder.booking_id, queued.booking_id, sandbox.booking_id]) expect(JSON.stringify(seen)).not.toContain(foreign);
  });

  it('connection_init names are case-insensitive like header names: X-API-Key, AUTHORIZATION, x-api-key all authenticate', async () => {
    const { order, courier } = await assignedOrder(t, shop.liveKey);
    const before = watches.active();
    const spellings = [{ 'X-API-Key': shop.liveKey }, { AUTHORIZATION: `Bearer ${shop.liveKey}` }, { 'x-api-key': shop.liveKey }, { ApiKey: shop.liveKey }];
    const subs = spellings.map((params) => subscribe(client(params), 'subscription ($id: String!) { orderStatusChanged(id: $id) { status } }', { id: order.booking_id }));
    await listening(before, spellings.length);
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    await until(() => subs.every((s) => s.results.length === 1), 'every spelling to see the change');
    for (const sub of subs) expect(sub.data()).toEqual([{ orderStatusChanged: { status: 'arrived_pickup' } }]);
  });

  it('refuses a subscription without a key, and closes the connection for a bad key; no data is delivered', async () => {
    const { order, courier } = await assignedOrder(t, shop.liveKey);

    // No credentials: the connection is accepted (public fields exist) but the field refuses.
    const anonymous = client();
    const refused = subscribe(anonymous, 'subscription { orderEvents { orderId status } }');
    const refusedById = subscribe(anonymous, 'subscription ($id: String!) { orderStatusChanged(id: $id) { status } }', { id: order.booking_id });
    expect(await refusal(refused)).toEqual([{ message: 'Credentials missing or invalid', path: ['orderEvents'] }]);
    expect(await refusal(refusedById)).toEqual([{ message: 'Credentials missing or invalid', path: ['orderStatusChanged'] }]);

    // A bad key: graphql-ws closes the socket with 4403 Forbidden.
    const badKey = merchantClient('ak_live_not_a_real_key_000000000000');
    const withBadKey = subscribe(badKey, 'subscription { orderEvents { orderId status } }');
    await until(() => withBadKey.error(), 'the bad-key subscription to fail');
    expect((withBadKey.error() as CloseEvent).code).toBe(4403);
    expect(badKey.closes).toEqual([{ code: 4403, reason: 'Forbidden' }]);

    // Another merchant's key cannot subscribe to this order either.
    const rivalClient = merchantClient(rival.liveKey);
    const notTheirs = subscribe(rivalClient, 'subscription ($id: String!) { orderStatusChanged(id: $id) { status } }', { id: order.booking_id });
    expect(await refusal(notTheirs)).toEqual([{ message: expect.stringMatching(/^No order bk_\w+ for this merchant/), path: ['orderStatusChanged'] }]);

    // The order's own merchant sees the next change; none of the refused ones received anything.
    const before = watches.active();
    const legit = subscribe(merchantClient(shop.liveKey), 'subscription ($id: String!) { orderStatusChanged(id: $id) { status } }', { id: order.booking_id });
    await listening(before);
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    await until(() => legit.results.length === 1, "the owner's event");
    for (const sub of [refused, refusedById, withBadKey, notTheirs]) {
      expect(sub.results.length).toBeLessThanOrEqual(1);
      expect(sub.results.every((r) => r.data == null)).toBe(true);
    }
  });

  it('tracking(reference) works without a key and carries no customer data', async () => {
    const { order, courier, pickup } = await assignedOrder(t, shop.liveKey);
    const anonymous = client();
    const before = watches.active();
    const updates = subscribe(anonymous, 'subscription ($ref: String!) { tracking(reference: $ref) { reference status location { lat lng } estimatedDeliveryTime at } }', {
      ref: order.order_number,
    });
    await listening(before);

    const point = along(pickup, PLACES.lasCondes, 0.3);
    expectOk(await courier.position(point));
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    await until(() => updates.results.length >= 2, 'two tracking updates');
    expect(updates.results.every((r) => r.errors === undefined)).toBe(true);
    const [moved, arrived] = updates.data().map((d) => d.tracking);
    // A position reported while the order is still assigned carries the order's real status (it once said picked_up).
    expect(moved).toMatchObject({ reference: order.order_number, status: 'assigned', location: point });
    expect(arrived).toMatchObject({ reference: order.order_number, status: 'arrived_pickup', location: null });

    // Positions after the change carry the new status: the same status REST shows.
    const later = along(pickup, PLACES.lasCondes, 0.4);
    expectOk(await courier.position(later));
    await until(() => updates.results.length >= 3, 'the third tracking update');
    expect(updates.data()[2].tracking).toMatchObject({ status: 'arrived_pickup', location: later });
    const rest = expectOk(await api(`${t.url}/api/v1/tracking/${order.order_number}`));
    expectWireShape(trackingResponseSchema, rest.body);
    expect(rest.body.status).toBe('arrived_pickup');
    expect(customerDataIn(JSON.stringify(updates.results))).toEqual([]);

    const unknown = subscribe(anonymous, 'subscription { tracking(reference: "EXD-AAAA-BBBB-CCCC") { status } }');
    expect(await refusal(unknown)).toEqual([{ message: 'No delivery with that tracking reference', path: ['tracking'] }]);
  });

  it('courierAssignments delivers new assignments and later changes to the courier, and nothing of other couriers', async () => {
    const at = { lat: PLACES.santiago.lat, lng: PLACES.santiago.lng };
    const courier = await courierOnDuty(t, { mode: 'live', at });
    const c = client({ authorization: `Bearer ${courier.token}` });
    const before = watches.active();
    const assignments = subscribe(c, 'subscription { courierAssignments { orderId from status } }');
    await listening(before);

    // Another courier's order first: it must not show up.
    const other = await assignedOrder(t, shop.liveKey);
    expectOk(await other.courier.status(other.order.booking_id, 'arrived_pickup'));
    const mine = expectOk(
      await merchantApi(t, shop.liveKey).create(formA({ pickup: { address: 'Plaza de Armas', coords: at } })),
      201,
    ).body;
    expect(mine.status).toBe('assigned');
    expectOk(await courier.status(mine.booking_id, 'arrived_pickup'));

    await until(() => assignments.results.length >= 2, 'two assignment events');
    expect(assignments.data().map((d) => d.courierAssignments)).toEqual([
      { orderId: mine.booking_id, from: 'new', status: 'assigned' },
      { orderId: mine.booking_id, from: 'assigned', status: 'arrived_pickup' },
    ]);

    // A merchant key cannot open the courier stream.
    const merchant = merchantClient(shop.liveKey);
    const refused = subscribe(merchant, 'subscription { courierAssignments { orderId } }');
    expect(await refusal(refused)).toEqual([{ message: 'Not allowed for these credentials', path: ['courierAssignments'] }]);
    const anonymous = subscribe(client(), 'subscription { courierAssignments { orderId } }');
    expect(await refusal(anonymous)).toEqual([{ message: 'Credentials missing or invalid', path: ['courierAssignments'] }]);
  });
});

describe('graphql-ws heartbeat', () => {
  it('terminates a client that stops answering pings, and keeps one that answers', async () => {
    const t = await startTestApp({ env: { TRACKING_HEARTBEAT_MS: '100' } });
    try {
      const m = await t.createMerchant();
      const open = (autoPong: boolean) =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { autoPong });
          ws.once('open', () => {
            ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${m.testKey}` } }));
            resolve(ws);
          });
          ws.once('error', reject);
        });
      const dead = await open(false);
      const live = await open(true);
      const deadClosed = new Promise<number>((resolve) => dead.once('close', (code) => resolve(code)));
      expect(await deadClosed).toBe(1006);
      await new Promise((r) => setTimeout(r, 300));
      expect(live.readyState).toBe(WebSocket.OPEN);
      live.close();
    } finally {
      await t.stop();
    }
  });
});
