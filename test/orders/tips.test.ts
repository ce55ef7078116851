/**
 * Tips end to end (issue #30 item 4): set at creation (both forms), added until 24 h after the
 * delivery under a required idempotency key, the live ledger (never the sandbox's), the event feed
 * and the courier's earnings — over REST and GraphQL, against the real app on each store: a SQLite
 * file, and MongoDB (jongodb, or MONGODB_URL) when one is available.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { courierEarningsResponseSchema, orderDetailsResponseSchema, tipAddedResponseSchema } from '../../rest/openapi/responses-orders.js';
import type { Mode } from '../../src/domain/types.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { appStores } from '../helpers/mongo.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, expectWireShape, formA, formB, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message }';
const ADD_TIP = `mutation ($id: String!, $amount: Int!, $key: String!) { addTip(id: $id, amount: $amount, idempotencyKey: $key) {
  __typename ... on MutationAddTipSuccess { data { id status tip } } ${ERR} } }`;
const EARNINGS = `query ($from: DateTime!, $to: DateTime!) { courierEarnings(from: $from, to: $to) {
  __typename ... on QueryCourierEarningsSuccess { data { currency deliveryCount totalDeliveryPay totalTips totalEarnings truncated
    deliveries { orderId orderNumber deliveredAt deliveryPay tip } } } ${ERR} } }`;

let t: TestApp;
let m: MerchantCredentials;
let other: MerchantCredentials;
let hired: CourierClient[] = [];
let keys = 0;
const keyOf = (mode: Mode) => (mode === 'live' ? m.liveKey : m.testKey);
const newKey = () => `tip-${++keys}-${Date.now()}`;

/** POST /orders/{id}/tip; `key` null sends no Idempotency-Key. */
const tip = (key: string, id: string, body: unknown, idempotencyKey: string | null = newKey()) =>
  api(`${t.url}/api/v1/orders/${encodeURIComponent(id)}/tip`, { key, body, ...(idempotencyKey !== null && { headers: { 'idempotency-key': idempotencyKey } }) });

const ledgerOf = async (mode: Mode, orderId: string) =>
  (await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode })).filter((e) => e.orderId === orderId).map((e) => [e.kind, e.amount]);

const earnings = (c: CourierClient, query: string) => api(`${t.url}/api/v1/couriers/me/earnings?${query}`, { key: c.token });

/** A fresh courier on duty by the pickup (the next order is theirs). */
async function hire(mode: Mode): Promise<CourierClient> {
  const courier = await courierOnDuty(t, { mode, at: north(PLACES.providencia, 300) });
  hired.push(courier);
  return courier;
}

/** An order of `mode` delivered by a fresh courier. */
async function delivered(mode: Mode, overrides: Record<string, unknown> = {}): Promise<{ id: string; courier: CourierClient }> {
  const courier = await hire(mode);
  const id = expectOk(await merchantApi(t, keyOf(mode)).create(formA(overrides)), 201).body.booking_id as string;
  expectOk(await courier.status(id, 'picked_up'));
  expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
  return { id, courier };
}

const STORES = await appStores('tips');

describe.each(STORES)('tips on %s', (_store, env) => {
  beforeAll(async () => {
    t = await startOrdersApp({ env });
    m = await t.createMerchant({ name: 'Tips Merchant', address: 'Av. Providencia 1234, Providencia' });
    other = await t.createMerchant({ name: 'Another Tips Merchant' });
  });
  afterAll(() => t?.stop());
  afterEach(async () => {
    await standDown(...hired);
    hired = [];
  });

  describe.each(['live', 'test'] as const)('tips over REST in %s mode', (mode) => {
    it('a tip set at creation (form A and form B) is on the order; live mode charges it beside the price, the sandbox never', async () => {
      const orders = merchantApi(t, keyOf(mode));
      for (const body of [formA({ tip: 1500 }), formB({ tip: 1500 })]) {
        const id = expectOk(await orders.create(body), 201).body.booking_id as string;
        const order = expectOk(await orders.get(id)).body;
        expectWireShape(orderDetailsResponseSchema, order);
        expect(order.tip).toBe(1500);
        // One time for both entries: their order among themselves is not the point.
        expect((await ledgerOf(mode, id)).sort()).toEqual(mode === 'live' ? [['charge', order.price], ['tip', 1500]] : []);
        expectOk(await orders.cancel(id));
      }
      const plain = expectOk(await orders.create(formA()), 201).body.booking_id as string;
      expect(expectOk(await orders.get(plain)).body.tip).toBe(0);
      expect(await ledgerOf(mode, plain)).toHaveLength(mode === 'live' ? 1 : 0);
      // Queued orders would be the next courier's job.
      expectOk(await orders.cancel(plain));
    });

    it('adds to the tip under a required key: a repeat answers the same without tipping twice; a reused key with another amount is refused', async () => {
      const { id } = await delivered(mode, { tip: 500 });
      expectError(await tip(keyOf(mode), id, { amount: 1000 }, null), 400, 'VALIDATION_ERROR');
      const key = newKey();
      const first = expectOk(await tip(keyOf(mode), id, { amount: 1000 }, key));
      expectWireShape(tipAddedResponseSchema, first.body);
      expect(first.body).toEqual({ success: true, booking_id: id, status: 'completed', amount: 1000, tip: 1500, currency: 'CLP', message: 'Tip added' });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = expectOk(await tip(keyOf(mode), id, { amount: 1000 }, key));
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expectError(await tip(keyOf(mode), id, { amount: 2000 }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(expectOk(await merchantApi(t, keyOf(mode)).get(id)).body.tip).toBe(1500);
      const price = expectOk(await merchantApi(t, keyOf(mode)).get(id)).body.price;
      expect((await ledgerOf(mode, id)).sort()).toEqual(mode === 'live' ? [['charge', price], ['tip', 1000], ['tip', 500]] : []);
      // A tip is not a status change: the history has no event for it; the feed has order.tip_added.
      const events = expectOk(await merchantApi(t, keyOf(mode)).events(id)).body.events as Wire[];
      expect(events.map((e) => e.status)).not.toContain(undefined);
      const feed = expectOk(await api(`${t.url}/api/v1/events?limit=100`, { key: keyOf(mode) })).body.events as Wire[];
      const added = feed.filter((e) => e.order_id === id && e.type === 'order.tip_added');
      expect(added.map((e) => e.payload)).toEqual([expect.objectContaining({ event: 'order.tip_added', booking_id: id, status: 'completed', tip: { amount: 1000, total: 1500, currency: 'CLP' } })]);
      expect(added[0]!.payload.proof).toBeUndefined();
    });

    it('while on its way a tip is taken; cancelled orders and deliveries over 24 h old answer 409 TIP_NOT_ALLOWED', async () => {
      const orders = merchantApi(t, keyOf(mode));
      const onItsWay = expectOk(await orders.create(formA()), 201).body.booking_id as string;
      expect(expectOk(await tip(keyOf(mode), onItsWay, { amount: 300 })).body).toMatchObject({ status: 'new', tip: 300 });
      expectOk(await orders.cancel(onItsWay));
      expectError(await tip(keyOf(mode), onItsWay, { amount: 300 }), 409, 'TIP_NOT_ALLOWED');

      const { id } = await delivered(mode);
      const store = t.app.container.store;
      const order = (await store.orders.findById(id))!;
      // The delivery moved back 24 h and a minute: the window has closed.
      const deliveredAt = new Date(Date.now() - 24 * 3_600_000 - 60_000).toISOString();
      await store.orders.apply({ id, from: ['completed'], patch: { proof: Object.assign({}, order.proof!, { deliveredAt }) } });
      expectError(await tip(keyOf(mode), id, { amount: 300 }), 409, 'TIP_NOT_ALLOWED');
      expect(expectOk(await orders.get(id)).body.tip).toBe(0);
    });

    it('hostile amounts are 400 on amount; the tip never passes 200,000; another merchant or the other mode gets 404', async () => {
      const id = expectOk(await merchantApi(t, keyOf(mode)).create(formA({ tip: 199_000 })), 201).body.booking_id as string;
      for (const body of [{ amount: 0 }, { amount: -5 }, { amount: 1.5 }, { amount: '100' }, { amount: 200_001 }, {}, { amount: 100, extra: 1 }, [1]]) {
        expectError(await tip(keyOf(mode), id, body), 400, 'VALIDATION_ERROR');
      }
      const over = expectError(await tip(keyOf(mode), id, { amount: 1001 }), 400, 'VALIDATION_ERROR');
      expect(over.body.error.fields).toEqual([expect.objectContaining({ field: 'amount' })]);
      expect(expectOk(await tip(keyOf(mode), id, { amount: 1000 })).body.tip).toBe(200_000);
      expectError(await merchantApi(t, keyOf(mode)).create(formA({ tip: 200_001 })), 400, 'VALIDATION_ERROR');
      expectError(await merchantApi(t, keyOf(mode)).create(formA({ tip: -1 })), 400, 'VALIDATION_ERROR');
      expectError(await tip(mode === 'live' ? m.testKey : m.liveKey, id, { amount: 100 }), 404, 'ORDER_NOT_FOUND');
      expectError(await tip(mode === 'live' ? other.liveKey : other.testKey, id, { amount: 100 }), 404, 'ORDER_NOT_FOUND');
      expectError(await tip('ak_live_not_a_key', id, { amount: 100 }), 401, 'INVALID_API_KEY');
      expectOk(await merchantApi(t, keyOf(mode)).cancel(id));
    });
  });

  describe('tips over GraphQL', () => {
    const as = (key: string) => (query: string, variables: Record<string, unknown> = {}) => gql(t.url, query, { key, variables }).then((r) => {
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data as Wire;
    });

    it('createOrder takes a tip, addTip adds to it (a repeated key repeats the answer, shared with REST), and refusals are typed', async () => {
      const merchant = as(m.liveKey);
      const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id tip } } ${ERR} } }`;
      const input = { dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes }, customerName: 'Ana', customerPhone: '+56912345678', tip: 700 };
      const { id, tip: atCreation } = (await merchant(CREATE, { input })).createOrder.data;
      expect(atCreation).toBe(700);
      const key = newKey();
      const first = (await merchant(ADD_TIP, { id, amount: 300, key })).addTip;
      expect(first).toEqual({ __typename: 'MutationAddTipSuccess', data: { id, status: expect.any(String), tip: 1000 } });
      expect((await merchant(ADD_TIP, { id, amount: 300, key })).addTip).toEqual(first);
      // The same key through REST is the same record: answered again, not tipped again.
      expect(expectOk(await tip(m.liveKey, id, { amount: 300 }, key)).headers.get('idempotent-replayed')).toBe('true');
      expect((await merchant(ADD_TIP, { id, amount: 300, key })).addTip.data.tip).toBe(1000);
      const price = expectOk(await merchantApi(t, m.liveKey).get(id)).body.price;
      expect((await ledgerOf('live', id)).sort()).toEqual([['charge', price], ['tip', 300], ['tip', 700]]);

      expect((await merchant(ADD_TIP, { id, amount: 0, key: newKey() })).addTip).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
      expectOk(await merchantApi(t, m.liveKey).cancel(id));
      expect((await merchant(ADD_TIP, { id, amount: 300, key: newKey() })).addTip).toMatchObject({ __typename: 'AppError', code: 'TIP_NOT_ALLOWED' });
      expect((await as(other.liveKey)(ADD_TIP, { id, amount: 300, key: newKey() })).addTip).toMatchObject({ __typename: 'AppError', code: 'ORDER_NOT_FOUND' });
      // The key is required by the schema itself.
      const keyless = await gql(t.url, 'mutation ($id: String!) { addTip(id: $id, amount: 100) { __typename } }', { key: m.liveKey, variables: { id } });
      expect(keyless.body.errors?.[0]?.message).toMatch(/idempotencyKey/);
    });
  });

  describe.each(['live', 'test'] as const)("the courier's earnings in %s mode", (mode) => {
    it('REST and GraphQL list the courier\'s deliveries in the range with their tips; no delivery pay in the tariff: earnings are the tips', async () => {
      const { id, courier } = await delivered(mode, { tip: 1200 });
      expectOk(await tip(keyOf(mode), id, { amount: 800 }));
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const to = new Date(Date.now() + 60_000).toISOString();
      const rest = expectOk(await earnings(courier, new URLSearchParams({ from, to }).toString())).body;
      expectWireShape(courierEarningsResponseSchema, rest);
      expect(rest).toMatchObject({
        currency: 'CLP', truncated: false, totals: { deliveries: 1, delivery_pay: null, tips: 2000, earnings: 2000 },
        deliveries: [{ booking_id: id, delivery_pay: null, tip: 2000 }],
      });
      const graph = (await gql(t.url, EARNINGS, { key: courier.token, variables: { from, to } })).body.data.courierEarnings;
      expect(graph).toMatchObject({
        __typename: 'QueryCourierEarningsSuccess',
        data: { currency: 'CLP', deliveryCount: 1, totalDeliveryPay: null, totalTips: 2000, totalEarnings: 2000, truncated: false, deliveries: [{ orderId: id, deliveryPay: null, tip: 2000 }] },
      });
      // Outside the range: nothing.
      const before = new URLSearchParams({ from: new Date(Date.now() - 7_200_000).toISOString(), to: from }).toString();
      expect(expectOk(await earnings(courier, before)).body.deliveries).toEqual([]);
    });

    it("another courier sees none of it; bad ranges are 400; a merchant key is not a courier's", async () => {
      const { courier } = await delivered(mode, { tip: 100 });
      const stranger = await hire(mode);
      const range = new URLSearchParams({ from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }).toString();
      expect(expectOk(await earnings(stranger, range)).body.totals).toEqual({ deliveries: 0, delivery_pay: null, tips: 0, earnings: 0 });
      for (const query of ['', 'from=yesterday&to=today', `from=${encodeURIComponent('2026-01-02T00:00:00Z')}&to=${encodeURIComponent('2026-01-01T00:00:00Z')}`,
        `from=${encodeURIComponent('2025-01-01T00:00:00Z')}&to=${encodeURIComponent('2026-01-01T00:00:00Z')}`, `${range}&extra=1`]) {
        expectError(await earnings(courier, query), 400, 'VALIDATION_ERROR');
      }
      expect((await api(`${t.url}/api/v1/couriers/me/earnings?${range}`, { key: keyOf(mode) })).status).toBe(401);
      const asMerchant = await gql(t.url, EARNINGS, { key: keyOf(mode), variables: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() } });
      expect(asMerchant.body.data?.courierEarnings ?? asMerchant.body.errors?.[0]?.extensions).toMatchObject({ code: expect.stringMatching(/FORBIDDEN|INVALID/) });
    });
  });
});
