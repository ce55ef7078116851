/**
 * Idempotency keys on every state-changing write (issue #17 item 5): replay, reuse with another
 * request (422), concurrent requests (one runs), stored 4xx answers, isolation by merchant, mode,
 * courier and operation, REST and GraphQL sharing one record.
 */
import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENDPOINTS } from '../../src/domain/webhooks/endpoints.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { startReceiver, startWebhooksApp, type Receiver } from '../webhooks/support.js';
import { PLACES, createCourier, expectError, expectOk, formA, merchantApi } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startWebhooksApp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

const post = (key: string, path: string, body: unknown, idempotencyKey?: string, method = 'POST') =>
  api(`${t.url}/api/v1${path}`, { method, key, body, ...(idempotencyKey !== undefined && { headers: { 'idempotency-key': idempotencyKey } }) });

async function newOrder(key: string): Promise<string> {
  return expectOk(await merchantApi(t, key).create(formA()), 201).body.booking_id as string;
}

async function cancellations(key: string, id: string): Promise<number> {
  const events = expectOk(await merchantApi(t, key).events(id)).body.events as Json[];
  return events.filter((e) => e.status === 'cancelled').length;
}

describe('the OpenAPI document', () => {
  it('documents the Idempotency-Key header and 409/422 on every state-changing merchant and courier POST/PATCH', async () => {
    const served = await api(`${t.url}/api/v1/openapi.json`);
    expect(served.status).toBe(200);
    const doc = served.body as Json;
    // Not writes of record: quotes and the integrations' rate callbacks answer, they change nothing;
    // order creation keeps its own `idempotency-key`; storefront order webhooks are keyed by the shop's order id;
    // a proof upload sent twice stores the same bytes once (content-addressed) under a second id nothing refers to, pruned by retention.
    // A decision on a cash-on-delivery claim is a compare-and-set: sent again, it answers the claim again.
    const exempt = new Set(['/admin/cod/claims/{id}/confirm', '/admin/cod/claims/{id}/reject', '/shipping/quote', '/plugin/shipping-quote', '/erp/rate-shipment', '/storefront/carrier-service', '/storefront/webhooks/orders-create', '/orders', '/couriers/me/orders/{id}/proof']);
    const writes = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      (['post', 'patch'] as const).flatMap((method) => (item[method] && !exempt.has(path) && (item[method].security as Json[]).length > 0 ? [[method, path, item[method]] as const] : [])),
    );
    expect(writes.map(([method, path]) => `${method} ${path}`)).toEqual(expect.arrayContaining(['post /orders/{id}/cancel', 'post /webhooks', 'post /couriers/me/duty', 'patch /merchants/settings']));
    for (const [method, path, op] of writes) {
      const headers = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'header').map((p) => p.name);
      expect(headers, `${method} ${path}`).toContain('Idempotency-Key');
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['409', '422']));
    }
  });
});

describe('Idempotency-Key on a cancel (REST)', () => {
  let m: MerchantCredentials;
  beforeAll(async () => {
    m = await t.createMerchant({ name: 'Idempotent Cancels' });
  });

  it('the same key and body answer the first answer again, marked as a replay, without running twice', async () => {
    const id = await newOrder(m.testKey);
    const first = expectOk(await post(m.testKey, `/orders/${id}/cancel`, { reason: 'Cliente desistió' }, 'cancel-1'));
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = expectOk(await post(m.testKey, `/orders/${id}/cancel`, { reason: 'Cliente desistió' }, 'cancel-1'));
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await cancellations(m.testKey, id)).toBe(1);
    // Without the key the retry runs, and the state machine refuses it.
    expectError(await post(m.testKey, `/orders/${id}/cancel`, { reason: 'Cliente desistió' }), 409, 'ORDER_NOT_CANCELLABLE');
  });

  it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and runs nothing', async () => {
    const id = await newOrder(m.testKey);
    const other = await newOrder(m.testKey);
    expectOk(await post(m.testKey, `/orders/${id}/cancel`, { reason: 'A' }, 'cancel-2'));
    expectError(await post(m.testKey, `/orders/${id}/cancel`, { reason: 'B' }, 'cancel-2'), 422, 'IDEMPOTENCY_KEY_REUSED');
    // Another order is another request too.
    expectError(await post(m.testKey, `/orders/${other}/cancel`, { reason: 'A' }, 'cancel-2'), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(expectOk(await merchantApi(t, m.testKey).get(other)).body.status).toBe('new');
  });

  it('refuses a malformed key with 400 and runs nothing', async () => {
    const id = await newOrder(m.testKey);
    expectError(await post(m.testKey, `/orders/${id}/cancel`, {}, 'has spaces'), 400, 'VALIDATION_ERROR');
    expectError(await post(m.testKey, `/orders/${id}/cancel`, {}, 'k'.repeat(256)), 400, 'VALIDATION_ERROR');
    expect(expectOk(await merchantApi(t, m.testKey).get(id)).body.status).toBe('new');
  });

  it("another merchant's key, the other mode's and another operation's are records of their own", async () => {
    const other = await t.createMerchant({ name: 'Other Merchant' });
    const [mine, theirs, live] = [await newOrder(m.testKey), await newOrder(other.testKey), await newOrder(m.liveKey)];
    expectOk(await post(m.testKey, `/orders/${mine}/cancel`, {}, 'shared-key'));
    expect(expectOk(await post(other.testKey, `/orders/${theirs}/cancel`, {}, 'shared-key')).headers.get('idempotent-replayed')).toBeNull();
    expect(expectOk(await post(m.liveKey, `/orders/${live}/cancel`, {}, 'shared-key')).headers.get('idempotent-replayed')).toBeNull();
    expect(await cancellations(other.testKey, theirs)).toBe(1);
    expect(await cancellations(m.liveKey, live)).toBe(1);
    // The same key on another operation (settings) runs it.
    const settings = expectOk(await post(m.testKey, '/merchants/settings', { prep_time_mins: 7 }, 'shared-key'));
    expect(settings.body.prep_time_mins).toBe(7);
    expect(settings.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('Idempotency-Key on webhook endpoint creation', () => {
  it('concurrent requests with one key create one endpoint; the others answer it or 409 IDEMPOTENCY_KEY_IN_FLIGHT', async () => {
    const m = await t.createMerchant({ name: 'Concurrent Endpoints' });
    const body = { url: `${receiver.url}/concurrent` };
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(m.testKey, '/webhooks', body, 'endpoint-1')));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 409, 'IDEMPOTENCY_KEY_IN_FLIGHT');
    expect(new Set(created.map((a) => a.body.endpoint.id as string)).size).toBe(1);
    const list = expectOk(await api(`${t.url}/api/v1/webhooks`, { key: m.testKey })).body.endpoints as Json[];
    expect(list.map((e) => e.id)).toEqual([created[0]!.body.endpoint.id]);
    // Once answered, a retry is a replay of the 201.
    const replay = expectOk(await post(m.testKey, '/webhooks', body, 'endpoint-1'), 201);
    expect(replay.body).toEqual(created[0]!.body);
  });

  it('a 4xx answer is kept: the replay repeats it even after the cause went away', async () => {
    const m = await t.createMerchant({ name: 'Full Endpoints' });
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS; i++) ids.push(expectOk(await post(m.testKey, '/webhooks', { url: `${receiver.url}/full-${i}` }), 201).body.endpoint.id);
    const body = { url: `${receiver.url}/one-too-many` };
    const refused = expectError(await post(m.testKey, '/webhooks', body, 'endpoint-over'), 409, 'CONFLICT');
    expectOk(await api(`${t.url}/api/v1/webhooks/${ids[0]}`, { method: 'DELETE', key: m.testKey }));
    const replay = expectError(await post(m.testKey, '/webhooks', body, 'endpoint-over'), 409, 'CONFLICT');
    expect(replay.body).toEqual(refused.body);
    // A new key runs it.
    expectOk(await post(m.testKey, '/webhooks', body, 'endpoint-over-2'), 201);
  });
});

describe('Idempotency-Key on writes a blind retry would repeat', () => {
  it('a consolidation retried with its key answers the same batches and makes no other', async () => {
    const m = await t.createMerchant({ name: 'Idempotent Consolidation' });
    for (let i = 0; i < 3; i++) await newOrder(m.liveKey);
    const body = { geohash_zone: ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5), target_car_type: 'car' };
    const first = expectOk(await post(m.liveKey, '/orders/consolidate', body, 'consolidate-1'));
    expect(first.body.batches_created).toBeGreaterThan(0);
    const again = expectOk(await post(m.liveKey, '/orders/consolidate', body, 'consolidate-1'));
    expect(again.body).toEqual(first.body);
    // Without the key a retry finds the orders already batched.
    expect(expectOk(await post(m.liveKey, '/orders/consolidate', body)).body.batches_created).toBe(0);
  });
});

describe('Idempotency-Key for couriers', () => {
  it("a courier's duty change replays; another courier's same key is its own", async () => {
    // Live couriers: the sandbox queue of the other cases could keep a test courier busy.
    const a = await createCourier(t, { mode: 'live' });
    const b = await createCourier(t, { mode: 'live' });
    const duty = (token: string, onDuty: boolean, key: string) =>
      api(`${t.url}/api/v1/couriers/me/duty`, { key: token, body: { on_duty: onDuty }, headers: { 'idempotency-key': key } });
    const first = expectOk(await duty(a.token, true, 'duty-1'));
    expect(first.body.courier.status).not.toBe('off_duty');
    expectOk(await a.duty(false));
    const replay = expectOk(await duty(a.token, true, 'duty-1'));
    expect(replay.body).toEqual(first.body);
    expect(expectOk(await a.me()).body.courier.status).toBe('off_duty');
    expectError(await duty(a.token, false, 'duty-1'), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(expectOk(await duty(b.token, true, 'duty-1')).headers.get('idempotent-replayed')).toBeNull();
    expectOk(await b.duty(false));
  });
});

describe('idempotencyKey on GraphQL mutations', () => {
  const ERR = '... on AppError { code message }';
  const CANCEL = `mutation ($id: String!, $reason: String, $key: String) { cancelOrder(id: $id, reason: $reason, idempotencyKey: $key) {
    __typename ... on MutationCancelOrderSuccess { data { id status cancellationReason } } ${ERR} } }`;

  it('replays the first answer, refuses another request with a typed IDEMPOTENCY_KEY_REUSED, and shares the record with REST', async () => {
    const m = await t.createMerchant({ name: 'GraphQL Idempotency' });
    const id = await newOrder(m.testKey);
    const cancel = async (variables: Json, key = m.testKey) => (await gql(t.url, CANCEL, { key, variables })).body.data.cancelOrder as Json;
    const first = await cancel({ id, reason: 'Duplicado', key: 'gql-cancel-1' });
    expect(first).toMatchObject({ __typename: 'MutationCancelOrderSuccess', data: { id, status: 'cancelled', cancellationReason: 'Duplicado' } });
    expect(await cancel({ id, reason: 'Duplicado', key: 'gql-cancel-1' })).toEqual(first);
    expect(await cancel({ id, reason: 'Otro', key: 'gql-cancel-1' })).toMatchObject({ __typename: 'AppError', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await cancel({ id, reason: 'Duplicado', key: 'bad key' })).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    // REST with the same key and the same command answers the stored result.
    const rest = expectOk(await post(m.testKey, `/orders/${id}/cancel`, { reason: 'Duplicado' }, 'gql-cancel-1'));
    expect(rest.headers.get('idempotent-replayed')).toBe('true');
    expect(rest.body).toMatchObject({ booking_id: id, status: 'cancelled', reason: 'Duplicado' });
    expect(await cancellations(m.testKey, id)).toBe(1);
    // Another merchant's same key on its own order runs.
    const other = await t.createMerchant({ name: 'GraphQL Other' });
    const theirs = await newOrder(other.testKey);
    expect(await cancel({ id: theirs, reason: 'Duplicado', key: 'gql-cancel-1' }, other.testKey)).toMatchObject({ data: { id: theirs, status: 'cancelled' } });
  });

  it("a courier mutation's key replays its first answer; another courier's same key is its own", async () => {
    const DUTY = `mutation ($on: Boolean!, $key: String) { courierSetDuty(onDuty: $on, idempotencyKey: $key) {
      __typename ... on MutationCourierSetDutySuccess { data { id status } } ${ERR} } }`;
    const a = await createCourier(t, { mode: 'live' });
    const b = await createCourier(t, { mode: 'live' });
    const duty = async (token: string, on: boolean, key: string) => (await gql(t.url, DUTY, { key: token, variables: { on, key } })).body.data.courierSetDuty as Json;
    const first = await duty(a.token, true, 'gql-duty-1');
    expect(first).toMatchObject({ __typename: 'MutationCourierSetDutySuccess', data: { id: a.id } });
    expectOk(await a.duty(false));
    expect(await duty(a.token, true, 'gql-duty-1')).toEqual(first);
    expect(expectOk(await a.me()).body.courier.status).toBe('off_duty');
    expect(await duty(a.token, false, 'gql-duty-1')).toMatchObject({ __typename: 'AppError', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await duty(b.token, true, 'gql-duty-1')).toMatchObject({ data: { id: b.id } });
    expectOk(await b.duty(false));
  });
});
