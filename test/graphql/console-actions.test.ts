/**
 * Issue #19: every console action through the GraphQL API as the console calls it — a member's
 * session cookie (`exd_session`, `X-GraphQL-CSRF`, `X-Mode`; graphql-ws with the cookie on the
 * upgrade and `{mode}` in connection_init) — with its role rule and mode separation. The audit:
 * Role: R every role, D dispatcher and owner, O owner (others: FORBIDDEN_ROLE, nothing changes).
 * Before: what a session test covered before this work (test/members/*); "key" = API-key tests only.
 * Now: the file that covers it with sessions, roles and modes (this one, -webhooks, -account).
 *
 * | Console action                   | GraphQL                                                    | Role | Before            | Now       |
 * |----------------------------------|------------------------------------------------------------|------|-------------------|-----------|
 * | orders board, status filter      | orders(status, first, after)                               | R    | key               | here      |
 * | board live updates               | subscription orderEvents { … order { … } }                 | R    | cookie, one mode  | here      |
 * | quote (text / coordinates)       | quote(input)                                               | R    | key               | here      |
 * | create order                     | createOrder(input { quoteId … })                           | D    | cookie + roles    | here      |
 * | order page: timeline, proof      | order(id) { events proof driver { currentLocation } }      | R    | key               | here      |
 * | live courier position            | subscription courierPosition(id)                           | R    | key               | here      |
 * | cancel / confirm / reset PIN     | cancelOrder, confirmDelivery, resetDeliveryPin             | D    | cancel only; PIN had no role rule (fixed) | here |
 * | order page: add a tip            | addTip(id, amount, idempotencyKey)                         | D    | (new, issue #30)  | here      |
 * | batches list, one; consolidate   | batches, batch(id); consolidateOrders                      | R; D | key               | here      |
 * | webhook endpoints list           | webhookEndpoints                                           | R    | key               | -webhooks |
 * | endpoint create/update/delete    | createWebhookEndpoint, updateWebhookEndpoint, delete…      | O    | create refusal    | -webhooks |
 * | delivery log; payload viewer     | webhookDeliveries(…, createdFrom, createdTo — added), webhookDelivery(id) { payload attemptLog } | R | key | -webhooks |
 * | redeliver one / failed range     | redeliverWebhook(id), redeliverFailedWebhooks(from, to)    | D    | key               | -webhooks |
 * | signing-secret rotation          | rotateApiSecret(overlapHours)                              | O    | cookie + roles    | -webhooks (signatures) |
 * | API keys list / rotate / revoke  | apiKeys (both modes); rotateApiKey(mode), revokeApiKeys    | R; O | no revoke         | -account  |
 * | settings (prep, storefront domain/secret, sandbox speed; one set for both modes) | merchant { settings }; updateMerchantSettings | R; O | prep refusal | -account |
 * | team list/invite/role/remove     | members; inviteMember, changeMemberRole, removeMember      | R; O | cookie + roles    | -account  |
 * | team: new password link          | resetMemberPassword(id)                                    | O    | (new)             | test/members/roles |
 * | sign in/out, set password        | logIn, logOut, setPassword                                 | —    | cookie            | -account  |
 * | live/test switch                 | X-Mode; graphql-ws { mode }; me { mode }                   | —    | cookie            | all three |
 */
import ngeohash from 'ngeohash';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { courierOnDuty, PLACES, standDown, startOrdersApp } from '../orders/support.js';
import { along, until } from '../realtime/support.js';
import { as, browserSubscribe, ERR, expectForbidden, orderInput, signInTeam, type Console, type Data, type Stream } from './console-support.js';

const ORDER_FIELDS = 'id status isTest price deliveryPin cancellationReason dropoff { precision } driver { id currentLocation { lat lng } } events { sequence status actorKind reason } proof { driverId bypass geofence photoUrl signatureUrl }';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { ${ORDER_FIELDS} } } ${ERR} } }`;
const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { ${ORDER_FIELDS} } } ${ERR} } }`;
const ORDERS = `query ($status: [OrderStatus!]) { orders(first: 100, status: $status) { __typename ... on QueryOrdersSuccess { data { nodes { id status isTest } } } ${ERR} } }`;
const CANCEL = `mutation ($id: String!) { cancelOrder(id: $id, reason: "cliente desistió") { __typename ... on MutationCancelOrderSuccess { data { id status } } ${ERR} } }`;
const DELIVER = `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) {
  __typename ... on MutationConfirmDeliverySuccess { data { id status } } ${ERR} } }`;
const RESET_PIN = `mutation ($id: String!) { resetDeliveryPin(id: $id) { __typename ... on MutationResetDeliveryPinSuccess { data { id deliveryPin } } ${ERR} } }`;
const ADD_TIP = `mutation ($id: String!, $key: String!) { addTip(id: $id, amount: 1000, idempotencyKey: $key) { __typename ... on MutationAddTipSuccess { data { id tip } } ${ERR} } }`;
const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) { __typename ... on QueryQuoteSuccess { data { quoteId isTest destinationPrecision rates { id cost } } } ${ERR} } }`;
const CONSOLIDATE = `mutation ($zone: String!) { consolidateOrders(geohashZone: $zone, targetCarType: car) {
  __typename ... on MutationConsolidateOrdersSuccess { data { batchesCreated batches { id } } } ${ERR} } }`;
const BATCHES = '{ batches(first: 100) { id status orders { id } } }';
const BATCH = `query ($id: ID!) { batch(id: $id) { __typename ... on QueryBatchSuccess { data { id vehicleType orders { id isTest } } } ${ERR} } }`;
const BOARD = 'subscription { orderEvents { orderId status order { id status isTest } } }';
const POSITION = 'subscription ($id: String!) { courierPosition(id: $id) { orderId location { lat lng } } }';

/** Pickup points a few hundred metres apart, so each test's courier takes only that test's order. */
let spot = 0;
const nextPickup = () => ({ lat: PLACES.providencia.lat - 0.004 * ++spot, lng: PLACES.providencia.lng });

describe('Console actions over GraphQL with a member session: orders, live board, order page, batches', () => {
  let t: TestApp;
  let c: Console;
  const streams: Stream[] = [];
  beforeAll(async () => {
    t = await startOrdersApp();
    c = await signInTeam(t, 'orders');
  });
  afterEach(async () => {
    await Promise.all(streams.splice(0).map((s) => s.client.dispose()));
  });
  afterAll(() => t.stop());

  const create = async (cookie: string, mode: 'live' | 'test', input: Record<string, unknown> = orderInput()) => {
    const created = await as(t, cookie, CREATE, { variables: { input }, mode });
    expect(created.__typename).toBe('MutationCreateOrderSuccess');
    return created.data as Data;
  };
  const read = async (cookie: string, id: string, mode: 'live' | 'test' = 'test') => as(t, cookie, ORDER, { variables: { id }, mode });
  const board = async (cookie: string, mode: 'live' | 'test', status?: string[]) =>
    ((await as(t, cookie, ORDERS, { mode, ...(status && { variables: { status } }) })).data.nodes as Array<{ id: string; status: string; isTest: boolean }>);
  const subscribe = (cookie: string, mode: 'live' | 'test', query: string, variables?: Record<string, unknown>) => {
    const s = browserSubscribe(t, cookie, mode, query, variables);
    streams.push(s);
    return s;
  };

  // First: the courier would otherwise be given the oldest order other tests left queued.
  it('order page: timeline, live courier position over the cookie socket, proof of delivery; confirming needs a dispatcher', async () => {
    const pickup = nextPickup();
    const courier = await courierOnDuty(t, { mode: 'test', at: pickup });
    const order = await create(c.dispatcher, 'test', orderInput(pickup));
    expect(order).toMatchObject({ status: 'assigned', driver: { id: courier.id } });

    const sinks = t.app.container.fanOut.sizes().sinks;
    const positions = subscribe(c.viewer, 'test', POSITION, { id: order.id });
    const wrongMode = subscribe(c.viewer, 'live', POSITION, { id: order.id });
    await until(() => t.app.container.fanOut.sizes().sinks >= sinks + 1 && wrongMode.errors.length > 0, 'the position watch and the live refusal');
    expect(wrongMode.errors).toMatchObject([{ message: expect.stringMatching(/^No order bk_\w+ for this merchant in live mode$/), extensions: { code: 'ORDER_NOT_FOUND' } }]);

    const midway = along(pickup, PLACES.lasCondes, 0.5);
    await courier.position(midway);
    await until(() => positions.data.length > 0, 'the courier position');
    expect(positions.data[0].courierPosition).toEqual({ orderId: order.id, location: midway });
    expect((await read(c.viewer, order.id)).data.driver.currentLocation).toEqual(midway);
    expect((await read(c.viewer, order.id, 'live')).code).toBe('ORDER_NOT_FOUND');

    await courier.status(order.id, 'arrived_pickup');
    await courier.status(order.id, 'picked_up');
    const input = { driverId: courier.id, coords: PLACES.lasCondes, photoUrl: 'https://cdn.example.com/pod/p.jpg', signatureUrl: 'https://cdn.example.com/pod/s.png', bypass: true };
    expectForbidden(await as(t, c.viewer, DELIVER, { variables: { id: order.id, input } }), 'viewer');
    expect((await read(c.viewer, order.id)).data.status).toBe('picked_up');
    expect((await as(t, c.dispatcher, DELIVER, { variables: { id: order.id, input }, mode: 'live' })).code).toBe('ORDER_NOT_FOUND');
    expect((await as(t, c.dispatcher, DELIVER, { variables: { id: order.id, input } })).data.status).toBe('completed');

    const page = (await read(c.viewer, order.id)).data;
    expect(page.events.map((e: { status: string }) => e.status)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
    expect(page.events.at(-1)).toMatchObject({ actorKind: 'merchant' });
    expect(page.proof).toEqual({ driverId: courier.id, bypass: true, geofence: 'bypassed', photoUrl: input.photoUrl, signatureUrl: input.signatureUrl });
    await standDown(courier);
  });

  it('order page: adding a tip needs a dispatcher; a viewer is refused and nothing is added; the other mode does not see the order', async () => {
    const order = await create(c.dispatcher, 'test', orderInput(nextPickup()));
    expectForbidden(await as(t, c.viewer, ADD_TIP, { variables: { id: order.id, key: `viewer-${order.id}` } }), 'viewer');
    expect((await as(t, c.dispatcher, ADD_TIP, { variables: { id: order.id, key: `live-${order.id}` }, mode: 'live' })).code).toBe('ORDER_NOT_FOUND');
    expect((await as(t, c.dispatcher, ADD_TIP, { variables: { id: order.id, key: `dispatcher-${order.id}` } })).data).toEqual({ id: order.id, tip: 1000 });
    expect((await as(t, c.viewer, 'query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { tip } } } }', { variables: { id: order.id } })).data.tip).toBe(1000);
    expect((await as(t, c.dispatcher, CANCEL, { variables: { id: order.id } })).data.status).toBe('cancelled');
  });

  it('board: every role lists the orders of its mode filtered by status; live and test never mix; the rival sees none', async () => {
    const kept = await create(c.dispatcher, 'test');
    const dropped = await create(c.dispatcher, 'test');
    const live = await create(c.owner, 'live');
    expect([kept.isTest, dropped.isTest, live.isTest]).toEqual([true, true, false]);
    expect((await as(t, c.dispatcher, CANCEL, { variables: { id: dropped.id } })).data.status).toBe('cancelled');

    for (const cookie of [c.viewer, c.dispatcher, c.owner]) {
      const cancelled = (await board(cookie, 'test', ['cancelled'])).map((o) => o.id);
      expect(cancelled).toContain(dropped.id);
      expect(cancelled).not.toContain(kept.id);
      const open = await board(cookie, 'test', ['new', 'assigned']);
      expect(open.map((o) => o.id)).toContain(kept.id);
      expect(open.every((o) => o.isTest && ['new', 'assigned'].includes(o.status))).toBe(true);
      const liveBoard = await board(cookie, 'live');
      expect(liveBoard.map((o) => o.id)).toEqual([live.id]);
    }
    const theirs = [...(await board(c.rivalOwner, 'test')), ...(await board(c.rivalOwner, 'live'))].map((o) => o.id);
    expect(theirs).not.toEqual(expect.arrayContaining([kept.id]));
    expect(theirs).not.toContain(live.id);
  });

  it('board updates without reload: orderEvents over graphql-ws with the cookie, one mode per socket', async () => {
    const before = t.app.container.fanOut.sizes().merchants;
    const testBoard = subscribe(c.viewer, 'test', BOARD);
    const liveBoard = subscribe(c.viewer, 'live', BOARD);
    const rivalBoard = subscribe(c.rivalOwner, 'test', BOARD);
    await until(() => t.app.container.fanOut.sizes().merchants >= before + 3, 'three boards to listen');

    const sandbox = await create(c.dispatcher, 'test');
    await as(t, c.dispatcher, CANCEL, { variables: { id: sandbox.id } });
    const live = await create(c.dispatcher, 'live');
    await until(() => testBoard.data.length >= 2 && liveBoard.data.length >= 1, 'the board updates');

    expect(testBoard.data.map((d) => d.orderEvents)).toEqual([
      { orderId: sandbox.id, status: 'new', order: { id: sandbox.id, status: expect.any(String), isTest: true } },
      { orderId: sandbox.id, status: 'cancelled', order: { id: sandbox.id, status: 'cancelled', isTest: true } },
    ]);
    expect(liveBoard.data.map((d) => d.orderEvents.orderId)).toEqual([live.id]);
    expect(rivalBoard.data).toEqual([]);
    expect([...testBoard.errors, ...liveBoard.errors, ...rivalBoard.errors]).toEqual([]);
  });

  it('quote and create: a viewer quotes (text address) but cannot book; a dispatcher books the quote and a coordinates order; the quote is not bookable in live', async () => {
    const quoted = await as(t, c.viewer, QUOTE, { variables: { input: { destination: { address: 'Av. Apoquindo 3000, Las Condes' }, totalWeightKg: 2 } } });
    expect(quoted.data).toMatchObject({ quoteId: expect.stringMatching(/^qt_/), isTest: true, destinationPrecision: 'locality' });
    const express = quoted.data.rates.find((r: { id: string }) => r.id === 'express');
    const booking = { dropoff: { address: 'Av. Apoquindo 3000, Las Condes' }, customerName: 'Ana Pérez', customerPhone: '+56987654321', totalWeightKg: 2, quoteId: quoted.data.quoteId };

    const countBefore = (await board(c.viewer, 'test')).length;
    expectForbidden(await as(t, c.viewer, CREATE, { variables: { input: booking } }), 'viewer');
    expectForbidden(await as(t, c.viewer, CREATE, { variables: { input: orderInput() } }), 'viewer');
    expect(await board(c.viewer, 'test')).toHaveLength(countBefore);

    const booked = await create(c.dispatcher, 'test', booking);
    expect(booked).toMatchObject({ isTest: true, price: express.cost, dropoff: { precision: 'locality' } });
    const precise = await create(c.dispatcher, 'test', orderInput());
    expect(precise.dropoff.precision).toBe('coordinates');
    expect((await board(c.viewer, 'test')).map((o) => o.id)).toEqual(expect.arrayContaining([booked.id, precise.id]));

    const crossMode = await as(t, c.dispatcher, CREATE, { variables: { input: booking }, mode: 'live' });
    expect(crossMode).toMatchObject({ __typename: 'AppError', code: 'QUOTE_NOT_FOUND' });
  });

  it('order page: cancel and delivery-PIN reset need a dispatcher; a session of the other mode cannot touch the order', async () => {
    const order = await create(c.dispatcher, 'test', orderInput(nextPickup(), { deliveryPin: true }));
    const pin = order.deliveryPin as string;
    expect(pin).toMatch(/^\d{4}$/);
    expect((await read(c.viewer, order.id)).data.deliveryPin).toBe(pin);

    expectForbidden(await as(t, c.viewer, RESET_PIN, { variables: { id: order.id } }), 'viewer');
    expect((await read(c.viewer, order.id)).data.deliveryPin).toBe(pin);
    const reset = await as(t, c.dispatcher, RESET_PIN, { variables: { id: order.id } });
    expect(reset).toMatchObject({ __typename: 'MutationResetDeliveryPinSuccess', data: { id: order.id, deliveryPin: expect.stringMatching(/^\d{4}$/) } });
    expect((await read(c.viewer, order.id)).data.deliveryPin).toBe(reset.data.deliveryPin);

    expectForbidden(await as(t, c.viewer, CANCEL, { variables: { id: order.id } }), 'viewer');
    expect((await as(t, c.owner, CANCEL, { variables: { id: order.id }, mode: 'live' })).code).toBe('ORDER_NOT_FOUND');
    expect((await read(c.viewer, order.id)).data.status).toBe('new');
    expect((await as(t, c.dispatcher, CANCEL, { variables: { id: order.id } })).data.status).toBe('cancelled');
    const page = (await read(c.viewer, order.id)).data;
    expect(page).toMatchObject({ status: 'cancelled', cancellationReason: 'cliente desistió' });
    expect(page.events.map((e: { status: string }) => e.status)).toEqual(['new', 'cancelled']);
  });

  it('batches: a dispatcher consolidates (a viewer cannot); every role lists them and opens one; the live session and the rival see none', async () => {
    const zone = ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5);
    const a = await create(c.dispatcher, 'test', orderInput(PLACES.providencia, { totalWeightKg: 3 }));
    const b = await create(c.dispatcher, 'test', orderInput(PLACES.providencia, { totalWeightKg: 4 }));

    expectForbidden(await as(t, c.viewer, CONSOLIDATE, { variables: { zone } }), 'viewer');
    expect(await as(t, c.viewer, BATCHES)).toEqual([]);
    expect((await read(c.viewer, a.id)).data.status).toBe('new');

    const made = await as(t, c.dispatcher, CONSOLIDATE, { variables: { zone } });
    expect(made.data.batchesCreated).toBeGreaterThanOrEqual(1);
    for (const cookie of [c.viewer, c.dispatcher, c.owner]) {
      const listed = (await as(t, cookie, BATCHES)) as Array<{ id: string; orders: Array<{ id: string }> }>;
      expect(listed.map((x) => x.id).sort()).toEqual(made.data.batches.map((x: { id: string }) => x.id).sort());
      expect(listed.flatMap((x) => x.orders.map((o) => o.id))).toEqual(expect.arrayContaining([a.id, b.id]));
    }
    const one = made.data.batches[0].id as string;
    expect((await as(t, c.viewer, BATCH, { variables: { id: one } })).data).toMatchObject({ id: one, vehicleType: 'car', orders: expect.arrayContaining([expect.objectContaining({ isTest: true })]) });

    expect(await as(t, c.viewer, BATCHES, { mode: 'live' })).toEqual([]);
    expect((await as(t, c.viewer, BATCH, { variables: { id: one }, mode: 'live' })).code).toBe('NOT_FOUND');
    expect(await as(t, c.rivalOwner, BATCHES)).toEqual([]);
    expect((await as(t, c.rivalOwner, BATCH, { variables: { id: one } })).code).toBe('NOT_FOUND');
  });
});
