/**
 * Cancellation fees end to end (issue #30 item 5): the preview over REST and GraphQL, the fee the
 * cancel keeps, and the ledger (live only) — against the real app on a SQLite file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cancellationPreviewResponseSchema } from '../../rest/openapi/responses-orders.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { Mode } from '../../src/domain/types.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectWireShape } from '../helpers/openapi.js';
import { gqlOps, signedInOperator } from '../operators/support.js';
import { PLACES, courierOnDuty, expectError, expectOk, formA, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const { assigned_fee: ASSIGNED_FEE, at_pickup_fee: AT_PICKUP_FEE } = DEFAULT_SANTIAGO_TARIFF.cancellation;
const ERR = '... on AppError { code message }';
const PREVIEW = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { id status
  cancellationPreview { cancellable fee currency basis validUntil } } } ${ERR} } }`;
const CANCEL = `mutation ($id: String!, $key: String) { cancelOrder(id: $id, idempotencyKey: $key) {
  __typename ... on MutationCancelOrderSuccess { data { id status cancellationFee } } ${ERR} } }`;

let t: TestApp;
let m: MerchantCredentials;
let other: MerchantCredentials;
let hired: CourierClient[] = [];
const keyOf = (mode: Mode) => (mode === 'live' ? m.liveKey : m.testKey);

async function hire(mode: Mode): Promise<CourierClient> {
  const courier = await courierOnDuty(t, { mode, at: north(PLACES.providencia, 600) });
  hired.push(courier);
  return courier;
}

const priceOf = async (key: string, id: string): Promise<number> => expectOk(await merchantApi(t, key).get(id)).body.price;

const ledgerOf = async (mode: Mode, orderId: string) =>
  (await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode })).filter((e) => e.orderId === orderId).map((e) => [e.kind, e.amount]);

beforeAll(async () => {
  t = await startOrdersApp();
  m = await t.createMerchant({ name: 'Cancellation Fees Merchant', address: 'Av. Providencia 1234, Providencia' });
  other = await t.createMerchant({ name: 'Another Merchant' });
});
afterAll(() => t?.stop());
afterEach(async () => {
  await standDown(...hired);
  hired = [];
});

describe.each(['live', 'test'] as const)('cancellation fees over REST in %s mode', (mode) => {
  it('free while new: the preview says 0 with no end known, the cancel keeps nothing and reverses the whole charge', async () => {
    const orders = merchantApi(t, keyOf(mode));
    const form = formA();
    const created = expectOk(await orders.create(form), 201).body;
    expect(created.status).toBe('new');
    // Every identifier the other order routes accept.
    for (const ref of [created.booking_id, form.reference_id, created.tracking_number, created.order_number]) {
      const preview = expectOk(await orders.cancellation(ref)).body;
      expectWireShape(cancellationPreviewResponseSchema, preview);
      expect(preview, ref).toEqual({ success: true, booking_id: created.booking_id, cancellable: true, fee: 0, currency: 'CLP', status: 'new', valid_until: null });
    }
    const price = await priceOf(keyOf(mode), created.booking_id);
    expect(expectOk(await orders.cancel(created.booking_id)).body.cancellation_fee).toBe(0);
    expect(await ledgerOf(mode, created.booking_id)).toEqual(mode === 'live' ? [['charge', price], ['reversal', -price]] : []);
  });

  it('at the pickup the fee is higher; the cancel keeps it, frees the courier, and picked up orders are refused', async () => {
    const orders = merchantApi(t, keyOf(mode));
    const courier = await hire(mode);
    const created = expectOk(await orders.create(formA()), 201).body;
    const id: string = created.booking_id;
    const price = await priceOf(keyOf(mode), id);
    const assigned = expectOk(await orders.cancellation(id)).body;
    expect(assigned).toMatchObject({ cancellable: true, fee: ASSIGNED_FEE, status: 'assigned' });
    // While assigned, the fee holds until the courier is due at the pickup.
    // (null only when that time has already passed.)
    expect([null, expectOk(await orders.get(id)).body.estimated_pickup_time]).toContain(assigned.valid_until);

    expectOk(await courier.status(id, 'arrived_pickup'));
    expect(expectOk(await orders.cancellation(id)).body).toMatchObject({ cancellable: true, fee: AT_PICKUP_FEE, status: 'arrived_pickup', valid_until: null });
    expect(expectOk(await orders.cancel(id)).body).toMatchObject({ status: 'cancelled', cancellation_fee: AT_PICKUP_FEE });
    expect(expectOk(await orders.get(id)).body.cancellation_fee).toBe(AT_PICKUP_FEE);
    expect(expectOk(await courier.me()).body.courier).toMatchObject({ status: 'available', job: null });
    expect(await ledgerOf(mode, id)).toEqual(mode === 'live' ? [['charge', price], ['reversal', -(price - AT_PICKUP_FEE)]] : []);
    // The event feed carries the webhook's event shape: the cancellation with its fee.
    const feed = expectOk(await api(`${t.url}/api/v1/events?limit=100`, { key: keyOf(mode) })).body.events as Wire[];
    const change = feed.find((e) => e.order_id === id && e.payload.status === 'cancelled');
    expect(change?.payload).toMatchObject({ event: 'order.status_changed', booking_id: id, cancellation_fee: AT_PICKUP_FEE });

    const second = expectOk(await orders.create(formA()), 201).body.booking_id as string;
    expectOk(await courier.status(second, 'picked_up'));
    expect(expectOk(await orders.cancellation(second)).body).toMatchObject({ cancellable: false, fee: null, status: 'picked_up', valid_until: null });
    expectError(await orders.cancel(second), 409, 'ORDER_NOT_CANCELLABLE');
    expect(await ledgerOf(mode, second)).toHaveLength(mode === 'live' ? 1 : 0);
  });

  it('is scoped to the merchant and the mode: another merchant or the other mode gets 404', async () => {
    const id = expectOk(await merchantApi(t, keyOf(mode)).create(formA()), 201).body.booking_id as string;
    expectError(await merchantApi(t, mode === 'live' ? m.testKey : m.liveKey).cancellation(id), 404, 'ORDER_NOT_FOUND');
    expectError(await merchantApi(t, mode === 'live' ? other.liveKey : other.testKey).cancellation(id), 404, 'ORDER_NOT_FOUND');
    expectOk(await merchantApi(t, keyOf(mode)).cancel(id));
  });
});

describe('cancellation fees over GraphQL', () => {
  const as = (key: string) => (query: string, variables: Record<string, unknown> = {}) => gql(t.url, query, { key, variables }).then((r) => {
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data as Wire;
  });

  it('order.cancellationPreview answers what REST answers; cancelOrder carries the fee, and a repeated key repeats it without charging twice', async () => {
    const merchant = as(m.liveKey);
    await hire('live');
    const created = expectOk(await merchantApi(t, m.liveKey).create(formA()), 201).body;
    const id: string = created.booking_id;
    const price = await priceOf(m.liveKey, id);
    const rest = expectOk(await merchantApi(t, m.liveKey).cancellation(id)).body;
    expect((await merchant(PREVIEW, { id })).order.data.cancellationPreview).toEqual({
      cancellable: true, fee: ASSIGNED_FEE, currency: 'CLP', basis: 'assigned', validUntil: rest.valid_until,
    });
    const first = (await merchant(CANCEL, { id, key: `cancel-${id}` })).cancelOrder;
    expect(first).toEqual({ __typename: 'MutationCancelOrderSuccess', data: { id, status: 'cancelled', cancellationFee: ASSIGNED_FEE } });
    expect((await merchant(CANCEL, { id, key: `cancel-${id}` })).cancelOrder).toEqual(first);
    expect(await ledgerOf('live', id)).toEqual([['charge', price], ['reversal', -(price - ASSIGNED_FEE)]]);
    expect((await merchant(PREVIEW, { id })).order.data.cancellationPreview).toMatchObject({ cancellable: false, fee: null, basis: 'cancelled' });
  });
});

describe('an operator cancelling on the merchant\'s behalf', () => {
  it('keeps the same fee as the merchant\'s own cancel, and the live ledger nets it', async () => {
    const { cookie } = await signedInOperator(t, 'dispatcher-fees@ops.example.cl', 'dispatcher');
    await hire('live');
    const id = expectOk(await merchantApi(t, m.liveKey).create(formA()), 201).body.booking_id as string;
    const price = await priceOf(m.liveKey, id);
    const CANCEL_AS_OPERATOR = `mutation ($id: ID!) { adminCancelOrder(orderId: $id, reason: "tienda cerrada") {
      __typename ... on MutationAdminCancelOrderSuccess { data { status } } ... on AppError { code message } } }`;
    const answer = await gqlOps(t, cookie, CANCEL_AS_OPERATOR, { variables: { id } });
    expect(answer.body.data.adminCancelOrder, JSON.stringify(answer.body)).toMatchObject({ data: { status: 'cancelled' } });
    expect(expectOk(await merchantApi(t, m.liveKey).get(id)).body.cancellation_fee).toBe(ASSIGNED_FEE);
    expect(await ledgerOf('live', id)).toEqual([['charge', price], ['reversal', -(price - ASSIGNED_FEE)]]);
  });
});
