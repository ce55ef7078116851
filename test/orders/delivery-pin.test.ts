import { createClient, type Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createLogger } from '../../src/logger.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { memoryStream } from '../helpers/memory-log.js';
import { openLive, until } from '../realtime/support.js';
import { FAST_WEBHOOKS, startReceiver, waitFor, webhooksApi, type Receiver } from '../webhooks/support.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, formA, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message fields { field message } }';
const ORDER_PIN = 'id status deliveryPin deliveryPinRequired deliveryPinLocked';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { ${ORDER_PIN} } } ${ERR} } }`;
const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { ${ORDER_PIN} } } ${ERR} } }`;
const DELIVER = `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) {
  __typename ... on MutationConfirmDeliverySuccess { data { id status } } ${ERR} } }`;
const RESET = `mutation ($id: String!) { resetDeliveryPin(id: $id) { __typename ... on MutationResetDeliveryPinSuccess { data { ${ORDER_PIN} } } ${ERR} } }`;
const COURIER_ORDERS = `{ courier { activeOrders { ${ORDER_PIN} } } }`;
const COURIER_DELIVER = `mutation ($id: ID!, $coords: LatLngInput!, $photo: String!, $signature: String!, $pin: String) {
  courierConfirmDelivery(id: $id, coords: $coords, photoUrl: $photo, signatureUrl: $signature, pin: $pin) {
    __typename ... on MutationCourierConfirmDeliverySuccess { data { id status } } ${ERR} } }`;

/** Where a PIN would show in JSON or HTML: its field names, or the value itself as a string. */
const pinTraces = (text: string, pin: string) => [/"delivery_?pin"/i, /"pin"/, /deliveryPin[^A-Za-z]/, new RegExp(`"${pin}"`), new RegExp(`>${pin}<`)].filter((re) => re.test(text)).map(String);

describe('delivery PIN: proof of delivery by the recipient', () => {
  const logs = memoryStream();
  let t: TestApp;
  let m: MerchantCredentials;
  let receiver: Receiver;
  let courier: CourierClient;
  /** Every PIN issued in this file: none may reach the logs. */
  const issued: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startOrdersApp({ env: FAST_WEBHOOKS, logger: createLogger({ level: 'debug', destination: logs.stream }) });
    m = await t.createMerchant({ name: 'PIN Merchant' });
    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${receiver.url}/event`, payload_shape: 'event', events: ['order.status_changed'] }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}/flat`, payload_shape: 'flat', events: ['order.status_changed'] }), 201);
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });
  afterEach(() => standDown(courier));

  const orders = () => merchantApi(t, m.testKey);
  const at = north(PLACES.lasCondes, 5);

  /** An order with a PIN, carried by a fresh courier to the drop-off. */
  async function orderAtDropoff(): Promise<{ id: string; pin: string; trackingNumber: string }> {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const created = expectOk(await orders().create(formA({ delivery_pin: true })), 201).body;
    expect(created.status).toBe('assigned');
    expect(created.delivery_pin).toMatch(/^\d{4}$/);
    expectOk(await courier.status(created.booking_id, 'picked_up'));
    expectOk(await courier.status(created.booking_id, 'arrived_dropoff'));
    issued.push(created.delivery_pin);
    return { id: created.booking_id, pin: created.delivery_pin, trackingNumber: created.tracking_number };
  }
  const deliver = (id: string, extra: Record<string, unknown> = {}) => orders().deliver(id, { driver_id: courier.id, coords: at, ...EVIDENCE, ...extra });
  const wrongPin = (pin: string, n = 1) => String((Number(pin) + n) % 10_000).padStart(4, '0');

  it("the merchant's answers carry the PIN, the courier sees only that one is needed; delivery needs the right pin", async () => {
    const { id, pin } = await orderAtDropoff();
    expect(expectOk(await orders().get(id)).body).toMatchObject({ delivery_pin: pin, delivery_pin_locked: false });
    expect(expectOk(await orders().list('?limit=5')).body.orders.find((o: Wire) => o.booking_id === id).delivery_pin).toBe(pin);
    const mine = expectOk(await courier.orders()).body.orders[0];
    expect(mine).toMatchObject({ booking_id: id, delivery_pin_required: true });
    expect(mine).not.toHaveProperty('delivery_pin');

    const missing = expectError(await deliver(id), 400, 'DELIVERY_PIN_INVALID');
    expect(missing.body.error.fields).toEqual([{ field: 'pin', message: expect.any(String) }]);
    const wrong = expectError(await deliver(id, { pin: wrongPin(pin) }), 400, 'DELIVERY_PIN_INVALID');
    expect(wrong.body.error.details).toEqual({ attempts_left: 4 });
    expectError(await deliver(id, { pin: '12a4' }), 400, 'VALIDATION_ERROR');
    expect(expectOk(await orders().get(id)).body.status).toBe('arrived_dropoff');
    expect(expectOk(await courier.deliver(id, { driver_id: courier.id, coords: at, ...EVIDENCE, pin })).body.status).toBe('completed');
    // An order without a PIN is delivered as before.
    const plain = expectOk(await orders().create(formA()), 201).body;
    expect(plain.delivery_pin).toBeNull();
  });

  it('5 wrong PINs lock the delivery (concurrent tries counted once each) until the merchant resets it', async () => {
    const { id, pin } = await orderAtDropoff();
    const tries = await Promise.all(Array.from({ length: 8 }, (_, i) => deliver(id, { pin: wrongPin(pin, i + 1) })));
    const codes = tries.map((r) => `${r.status} ${r.body.error.code}`).sort();
    expect(codes).toEqual([...Array(5).fill('400 DELIVERY_PIN_INVALID'), ...Array(3).fill('409 DELIVERY_PIN_LOCKED')].sort());
    // Locked: even the right PIN is refused.
    expectError(await deliver(id, { pin }), 409, 'DELIVERY_PIN_LOCKED');
    expect(expectOk(await orders().get(id)).body).toMatchObject({ status: 'arrived_dropoff', delivery_pin_locked: true });

    // Only its merchant, in its mode, resets it.
    const stranger = await t.createMerchant({ name: 'Stranger' });
    expectError(await api(`${t.url}/api/v1/orders/${id}/delivery-pin/reset`, { key: stranger.testKey, body: {} }), 404, 'ORDER_NOT_FOUND');
    expectError(await api(`${t.url}/api/v1/orders/${id}/delivery-pin/reset`, { key: m.liveKey, body: {} }), 404, 'ORDER_NOT_FOUND');
    const resetOnce = () => api(`${t.url}/api/v1/orders/${id}/delivery-pin/reset`, { key: m.testKey, body: {}, headers: { 'idempotency-key': `reset-${id}` } });
    const reset = expectOk(await resetOnce()).body;
    expect(reset).toMatchObject({ booking_id: id, delivery_pin: expect.stringMatching(/^\d{4}$/) });
    issued.push(reset.delivery_pin);
    // A retried reset (same Idempotency-Key) answers the same PIN and issues no other.
    const retried = expectOk(await resetOnce());
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.delivery_pin).toBe(reset.delivery_pin);
    expect(expectOk(await orders().get(id)).body).toMatchObject({ delivery_pin: reset.delivery_pin, delivery_pin_locked: false });
    if (reset.delivery_pin !== pin) expectError(await deliver(id, { pin }), 400, 'DELIVERY_PIN_INVALID');
    expectOk(await deliver(id, { pin: reset.delivery_pin }));
    // Over: the PIN no longer changes; an order without one has none to reset.
    expectError(await api(`${t.url}/api/v1/orders/${id}/delivery-pin/reset`, { key: m.testKey, body: {} }), 409, 'INVALID_STATUS_TRANSITION');
    const plain = expectOk(await orders().create(formA()), 201).body;
    expectError(await api(`${t.url}/api/v1/orders/${plain.booking_id}/delivery-pin/reset`, { key: m.testKey, body: {} }), 409, 'CONFLICT');
    expectOk(await orders().cancel(plain.booking_id));
  });

  it('GraphQL: createOrder deliveryPin, the merchant reads it, the courier does not; wrong pin typed; resetDeliveryPin; courierConfirmDelivery with pin', async () => {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const g = (query: string, variables: Record<string, unknown>, key = m.testKey) => gql(t.url, query, { key, variables }).then((r) => {
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data as Wire;
    });
    const input = {
      pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes },
      customerName: 'Camila Rojas', customerPhone: '+56912345678', deliveryPin: true,
    };
    const created = (await g(CREATE, { input })).createOrder.data;
    expect(created).toMatchObject({ status: 'assigned', deliveryPin: expect.stringMatching(/^\d{4}$/), deliveryPinRequired: true, deliveryPinLocked: false });
    expect((await g(ORDER, { id: created.id })).order.data.deliveryPin).toBe(created.deliveryPin);
    const seen = (await g(COURIER_ORDERS, {}, courier.token)).courier.activeOrders;
    expect(seen).toEqual([{ id: created.id, status: 'assigned', deliveryPin: null, deliveryPinRequired: true, deliveryPinLocked: false }]);
    expectOk(await courier.status(created.id, 'picked_up'));
    expectOk(await courier.status(created.id, 'arrived_dropoff'));
    const deliveryInput = { driverId: courier.id, coords: at, photoUrl: EVIDENCE.photo_url, signatureUrl: EVIDENCE.signature_url };
    expect((await g(DELIVER, { id: created.id, input: { ...deliveryInput, pin: wrongPin(created.deliveryPin) } })).confirmDelivery).toMatchObject({ __typename: 'AppError', code: 'DELIVERY_PIN_INVALID' });
    const reset = (await g(RESET, { id: created.id })).resetDeliveryPin;
    expect(reset).toMatchObject({ __typename: 'MutationResetDeliveryPinSuccess', data: { deliveryPin: expect.stringMatching(/^\d{4}$/) } });
    const other = await t.createMerchant({ name: 'Other GraphQL Merchant' });
    expect((await g(RESET, { id: created.id }, other.testKey)).resetDeliveryPin).toMatchObject({ __typename: 'AppError', code: 'ORDER_NOT_FOUND' });
    const variables = { id: created.id, coords: at, photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url };
    expect((await g(COURIER_DELIVER, variables, courier.token)).courierConfirmDelivery).toMatchObject({ __typename: 'AppError', code: 'DELIVERY_PIN_INVALID' });
    const done = (await g(COURIER_DELIVER, { ...variables, pin: reset.data.deliveryPin }, courier.token)).courierConfirmDelivery;
    expect(done).toEqual({ __typename: 'MutationCourierConfirmDeliverySuccess', data: { id: created.id, status: 'completed' } });
  });

  it('the sandbox simulator hands over the PIN as the recipient would', async () => {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const created = expectOk(await orders().create(formA({ delivery_pin: true })), 201).body;
    const advance = () => api(`${t.url}/api/v1/sandbox/orders/${created.booking_id}/advance`, { key: m.testKey, body: {} });
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']) expect(expectOk(await advance()).body.status).toBe(status);
  });

  it("live mode: another merchant's keys and the merchant's test key cannot read, reset or confirm with the PIN; the merchant's live key delivers with it", async () => {
    courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
    const live = merchantApi(t, m.liveKey);
    const created = expectOk(await live.create(formA({ delivery_pin: true })), 201).body;
    expect(created).toMatchObject({ status: 'assigned', delivery_pin: expect.stringMatching(/^\d{4}$/) });
    const { booking_id: id, delivery_pin: pin } = created as { booking_id: string; delivery_pin: string };
    issued.push(pin);
    expectOk(await courier.status(id, 'picked_up'));
    expectOk(await courier.status(id, 'arrived_dropoff'));
    const stranger = await t.createMerchant({ name: 'PIN Stranger' });
    const body = { driver_id: courier.id, coords: at, ...EVIDENCE, pin };
    for (const [who, key] of Object.entries({ 'stranger live': stranger.liveKey, 'stranger test': stranger.testKey, 'own test mode': m.testKey })) {
      const read = expectError(await merchantApi(t, key).get(id), 404, 'ORDER_NOT_FOUND');
      expect(pinTraces(JSON.stringify(read.body), pin), who).toEqual([]);
      expectError(await api(`${t.url}/api/v1/orders/${id}/delivery-pin/reset`, { key, body: {} }), 404, 'ORDER_NOT_FOUND');
      expectError(await merchantApi(t, key).deliver(id, body), 404, 'ORDER_NOT_FOUND');
      expect((await gql(t.url, ORDER, { key, variables: { id } })).body.data.order, who).toMatchObject({ __typename: 'AppError', code: 'ORDER_NOT_FOUND' });
    }
    // Nothing of that touched the order: the PIN is unchanged and not locked.
    expect(expectOk(await live.get(id)).body).toMatchObject({ status: 'arrived_dropoff', delivery_pin: pin, delivery_pin_locked: false });
    expectError(await live.deliver(id, { ...body, pin: wrongPin(pin) }), 400, 'DELIVERY_PIN_INVALID');
    expect(expectOk(await live.deliver(id, body)).body.status).toBe('completed');
  });

  it('the PIN never appears on public tracking (REST, socket, page, GraphQL), in webhooks or in the logs', async () => {
    const { id, pin, trackingNumber } = await orderAtDropoff();
    const rest = expectOk(await api(`${t.url}/api/v1/tracking/${trackingNumber}`));
    const page = await fetch(`${t.url}/track/${trackingNumber}`).then((r) => r.text());
    const live = openLive(t.url, trackingNumber);
    await live.waitFor((msg) => msg.type === 'snapshot', 'the snapshot');
    const client: Client = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
    const updates: unknown[] = [];
    client.subscribe(
      { query: 'subscription ($ref: String!) { tracking(reference: $ref) { reference status location { lat lng } estimatedDeliveryTime at } }', variables: { ref: trackingNumber } },
      { next: (result) => void updates.push(result), error: () => {}, complete: () => {} },
    );
    await until(() => t.app.container.services.tracking.watchedOrders() >= 1, 'the GraphQL watch to register');
    // The tracking type has no field that could carry it.
    const fields = (await gql(t.url, '{ __type(name: "TrackingUpdate") { fields { name } } }')).body.data.__type.fields.map((f: Wire) => f.name);
    expect(fields.filter((name: string) => /pin/i.test(name))).toEqual([]);

    expectError(await deliver(id, { pin: wrongPin(pin) }), 400, 'DELIVERY_PIN_INVALID');
    expectOk(await deliver(id, { pin }));
    await until(() => live.messages.some((msg) => JSON.stringify(msg).includes('completed')) && updates.length >= 1, 'the completion on the socket and the subscription');
    const webhooks = await waitFor(() => {
      const mine = receiver.receipts.filter((r) => r.body.includes(id));
      return mine.filter((r) => r.body.includes('"completed"') || r.body.includes('"delivered"')).length >= 2 && mine;
    }, { what: 'the completion webhooks (both shapes)' });

    expect(pinTraces(JSON.stringify(rest.body), pin)).toEqual([]);
    expect(pinTraces(page, pin)).toEqual([]);
    expect(pinTraces(live.frames.join('\n'), pin)).toEqual([]);
    expect(pinTraces(JSON.stringify(updates), pin)).toEqual([]);
    expect(webhooks.length).toBeGreaterThanOrEqual(6);
    expect(pinTraces(webhooks.map((r) => r.body).join('\n'), pin)).toEqual([]);
    // The logs saw orders created with PINs, wrong and right tries and resets (earlier cases): no trace of any.
    expect(logs.text().length).toBeGreaterThan(0);
    for (const issuedPin of issued) expect(pinTraces(logs.text(), issuedPin), issuedPin).toEqual([]);
    await live.close();
    await client.dispose();
  });
});
