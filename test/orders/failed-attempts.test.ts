/**
 * Failed delivery attempts and the return to the pickup end to end (issue #30 item 2): the courier's
 * REST and GraphQL doors, the policy per order, refused moves as 409 / typed errors, the return fee
 * in the live ledger, the order's answers and the event feed — the real app on a SQLite file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { failedAttemptResponseSchema, orderDetailsResponseSchema, orderStatusResponseSchema } from '../../rest/openapi/responses-orders.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { Mode } from '../../src/domain/types.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, expectWireShape, formA, historyOf, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const RETURN_FEE = DEFAULT_SANTIAGO_TARIFF.return_fee;
const ERR = '... on AppError { code message }';
const REPORT = `mutation ($id: ID!, $reason: FailedAttemptReason!, $note: String, $coords: LatLngInput!) {
  courierReportFailedAttempt(id: $id, reason: $reason, note: $note, coords: $coords) {
    __typename ... on MutationCourierReportFailedAttemptSuccess { data { id status failedAttemptPolicy failedAttempts { reason note outcome } returnFee } } ${ERR} } }`;
const RETURN = `mutation ($id: ID!, $coords: LatLngInput!, $photo: String, $signature: String) {
  courierConfirmReturn(id: $id, coords: $coords, photoUrl: $photo, signatureUrl: $signature) {
    __typename ... on MutationCourierConfirmReturnSuccess { data { id status returnProof { driverId geofence } } } ${ERR} ... on GeofenceError { distanceM } } }`;

let t: TestApp;
let m: MerchantCredentials;
let hired: CourierClient[] = [];
const keyOf = (mode: Mode) => (mode === 'live' ? m.liveKey : m.testKey);

/** The courier's own calls for the new routes. */
const courierCall = (c: CourierClient, id: string, action: 'failed-attempt' | 'return', body: unknown) =>
  api(`${t.url}/api/v1/couriers/me/orders/${encodeURIComponent(id)}/${action}`, { key: c.token, body });

/** An order of `mode` picked up by a fresh courier standing at the pickup. */
async function pickedUp(mode: Mode, overrides: Record<string, unknown> = {}): Promise<{ id: string; courier: CourierClient }> {
  const courier = await courierOnDuty(t, { mode, at: north(PLACES.providencia, 300) });
  hired.push(courier);
  const created = expectOk(await merchantApi(t, keyOf(mode)).create(formA(overrides)), 201).body;
  expect(created.status).toBe('assigned');
  expectOk(await courier.status(created.booking_id, 'picked_up'));
  return { id: created.booking_id, courier };
}

const ledgerOf = async (mode: Mode, orderId: string) =>
  (await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode })).filter((e) => e.orderId === orderId).map((e) => [e.kind, e.amount]);

beforeAll(async () => {
  t = await startOrdersApp();
  m = await t.createMerchant({ name: 'Failed Attempts Merchant', address: 'Av. Providencia 1234, Providencia' });
});
afterAll(() => t?.stop());
afterEach(async () => {
  await standDown(...hired);
  hired = [];
});

describe.each(['live', 'test'] as const)('a failed attempt over REST in %s mode', (mode) => {
  it('return (the default): recorded, returning with the fee, refused moves are 409, the proof at the pickup ends it returned', async () => {
    const { id, courier } = await pickedUp(mode);
    const orders = merchantApi(t, keyOf(mode));
    const price = expectOk(await orders.get(id)).body.price as number;
    expectError(await courierCall(courier, id, 'failed-attempt', { reason: 'lost', coords: PLACES.lasCondes }), 400, 'VALIDATION_ERROR');

    const failed = expectOk(await courierCall(courier, id, 'failed-attempt', { reason: 'recipient_absent', note: 'Nadie responde', coords: PLACES.lasCondes })).body;
    expectWireShape(failedAttemptResponseSchema, failed);
    expect(failed).toEqual({ success: true, booking_id: id, status: 'returning', attempts: 1 });
    // Every door refuses what the table forbids from `returning`.
    expectError(await courierCall(courier, id, 'failed-attempt', { reason: 'refused', coords: PLACES.lasCondes }), 409, 'INVALID_STATUS_TRANSITION');
    expectError(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }), 409, 'INVALID_STATUS_TRANSITION');
    expectError(await courier.status(id, 'arrived_dropoff'), 409, 'INVALID_STATUS_TRANSITION');
    expectError(await orders.cancel(id), 409, 'ORDER_NOT_CANCELLABLE');
    expectError(await courierCall(courier, id, 'return', { coords: PLACES.providencia, photo_url: EVIDENCE.photo_url }), 400, 'VALIDATION_ERROR');
    expectError(await courierCall(courier, id, 'return', { coords: PLACES.lasCondes, ...EVIDENCE }), 400, 'GEOFENCE_FAILED');
    expect(expectOk(await courier.orders()).body.orders.map((o: Wire) => o.status)).toEqual(['returning']);

    const returned = expectOk(await courierCall(courier, id, 'return', { coords: PLACES.providencia, ...EVIDENCE })).body;
    expectWireShape(orderStatusResponseSchema, returned);
    expect(returned).toEqual({ success: true, booking_id: id, status: 'returned' });
    expect(expectOk(await courier.me()).body.courier).toMatchObject({ status: 'available', job: null });

    const details = expectOk(await orders.get(id)).body;
    expectWireShape(orderDetailsResponseSchema, details);
    expect(details).toMatchObject({
      status: 'returned', failed_attempt_policy: 'return', return_fee: RETURN_FEE,
      failed_attempts: [{ reason: 'recipient_absent', note: 'Nadie responde', photo_url: null, coords: PLACES.lasCondes, courier_id: courier.id, outcome: 'returning' }],
      return_proof: { driver_id: courier.id, geofence: 'passed', photo_url: EVIDENCE.photo_url, signature_url: EVIDENCE.signature_url },
    });
    expect(historyOf(expectOk(await orders.events(id)).body.events)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'delivery_failed', 'returning', 'returned']);
    expect(await ledgerOf(mode, id)).toEqual(mode === 'live' ? [['charge', price], ['charge', RETURN_FEE]] : []);

    const feed = expectOk(await api(`${t.url}/api/v1/events?limit=100`, { key: keyOf(mode) })).body.events as Wire[];
    const ofOrder = feed.filter((e) => e.order_id === id).map((e) => e.payload);
    expect(ofOrder.find((p) => p.status === 'delivery_failed')).toMatchObject({ failed_attempt: { reason: 'recipient_absent', outcome: 'returning' }, attempts: 1 });
    expect(ofOrder.find((p) => p.status === 'returning')).toMatchObject({ return_fee: RETURN_FEE });
    expect(ofOrder.find((p) => p.status === 'returned')).toMatchObject({ return_proof: { geofence: 'passed' } });
  });
});

describe('the policy per order', () => {
  it('retry: the courier keeps the parcel (picked_up) and may still deliver it', async () => {
    const { id, courier } = await pickedUp('test', { failed_attempt_policy: 'retry' });
    const failed = expectOk(await courierCall(courier, id, 'failed-attempt', { reason: 'unsafe', coords: PLACES.lasCondes })).body;
    expect(failed).toMatchObject({ status: 'picked_up', attempts: 1 });
    expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    const details = expectOk(await merchantApi(t, m.testKey).get(id)).body;
    expect(details).toMatchObject({ status: 'completed', failed_attempt_policy: 'retry', return_fee: null, failed_attempts: [{ reason: 'unsafe', outcome: 'picked_up' }] });
  });

  it("the merchant's default (settings) applies to orders that name none, copied at creation; an order's own policy wins", async () => {
    const settings = (body: unknown) => api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body });
    expect(expectOk(await settings({ failed_attempt_policy: 'dispose' })).body.settings).toMatchObject({ failed_attempt_policy: 'dispose' });
    try {
      const orders = merchantApi(t, m.testKey);
      const byDefault = expectOk(await orders.create(formA()), 201).body.booking_id as string;
      const own = expectOk(await orders.create(formA({ failed_attempt_policy: 'retry' })), 201).body.booking_id as string;
      expectOk(await settings({ failed_attempt_policy: 'return' }));
      expect(expectOk(await orders.get(byDefault)).body.failed_attempt_policy).toBe('dispose');
      expect(expectOk(await orders.get(own)).body.failed_attempt_policy).toBe('retry');
      expectError(await settings({ failed_attempt_policy: 'burn' }), 400, 'VALIDATION_ERROR');
      for (const id of [byDefault, own]) expectOk(await orders.cancel(id));
    } finally {
      expectOk(await settings({ failed_attempt_policy: 'return' }));
    }
  });

  it('an unknown policy is refused at creation', async () => {
    expectError(await merchantApi(t, m.testKey).create(formA({ failed_attempt_policy: 'burn' })), 400, 'VALIDATION_ERROR');
  });
});

describe('a failed attempt over GraphQL', () => {
  const as = (key: string) => (query: string, variables: Record<string, unknown> = {}) => gql(t.url, query, { key, variables }).then((r) => {
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data as Wire;
  });

  it("updateMerchantSettings sets the merchant's default policy; createOrder takes an order's own", async () => {
    const merchant = as(m.testKey);
    const SETTINGS = `mutation ($p: FailedAttemptPolicy!) { updateMerchantSettings(input: { failedAttemptPolicy: $p }) {
      __typename ... on MutationUpdateMerchantSettingsSuccess { data { settings { failedAttemptPolicy } } } ${ERR} } }`;
    expect((await merchant(SETTINGS, { p: 'retry' })).updateMerchantSettings.data.settings).toEqual({ failedAttemptPolicy: 'retry' });
    expect((await merchant(SETTINGS, { p: 'return' })).updateMerchantSettings.data.settings).toEqual({ failedAttemptPolicy: 'return' });
    const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
      __typename ... on MutationCreateOrderSuccess { data { id failedAttemptPolicy } } ${ERR} } }`;
    const input = {
      pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
      customerName: 'Camila Rojas', customerPhone: '+56912345678', totalWeightKg: 1, failedAttemptPolicy: 'dispose',
    };
    const created = (await merchant(CREATE, { input })).createOrder;
    expect(created.data.failedAttemptPolicy, JSON.stringify(created)).toBe('dispose');
    expectOk(await merchantApi(t, m.testKey).cancel(created.data.id));
  });

  it('dispose ends the order disposed; a move the table forbids is a typed INVALID_STATUS_TRANSITION', async () => {
    const { id, courier } = await pickedUp('test', { failed_attempt_policy: 'dispose' });
    const rider = as(courier.token);
    const reported = (await rider(REPORT, { id, reason: 'wrong_address', note: 'No existe el número', coords: PLACES.lasCondes })).courierReportFailedAttempt;
    expect(reported).toEqual({
      __typename: 'MutationCourierReportFailedAttemptSuccess',
      data: { id, status: 'disposed', failedAttemptPolicy: 'dispose', failedAttempts: [{ reason: 'wrong_address', note: 'No existe el número', outcome: 'disposed' }], returnFee: null },
    });
    expect((await rider(REPORT, { id, reason: 'other', coords: PLACES.lasCondes })).courierReportFailedAttempt).toMatchObject({ __typename: 'AppError', code: 'INVALID_STATUS_TRANSITION' });
  });

  it('return: the return leg is confirmed with proof at the pickup; before it, confirming is refused', async () => {
    const { id, courier } = await pickedUp('test');
    const rider = as(courier.token);
    const early = (await rider(RETURN, { id, coords: PLACES.providencia, photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url })).courierConfirmReturn;
    expect(early).toMatchObject({ __typename: 'AppError', code: 'INVALID_STATUS_TRANSITION' });
    expect((await rider(REPORT, { id, reason: 'refused', coords: PLACES.lasCondes })).courierReportFailedAttempt.data).toMatchObject({ status: 'returning', returnFee: RETURN_FEE });
    expect((await rider(RETURN, { id, coords: PLACES.lasCondes, photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url })).courierConfirmReturn)
      .toMatchObject({ __typename: 'GeofenceError' });
    expect((await rider(RETURN, { id, coords: PLACES.providencia, photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url })).courierConfirmReturn).toEqual({
      __typename: 'MutationCourierConfirmReturnSuccess', data: { id, status: 'returned', returnProof: { driverId: courier.id, geofence: 'passed' } },
    });
  });
});
