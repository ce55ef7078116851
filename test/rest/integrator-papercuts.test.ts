/**
 * What integrators with generated clients and proxy validators tripped on (issue #26 item 5), on
 * the wire, through REST and GraphQL: malformed list cursors refused, one spelling of the
 * idempotency header with every replay saying so, idempotency-key errors naming the header, 405
 * with `Allow` for a known path, and two different keys in the two key headers refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { formB, startOrdersApp } from '../orders/support.js';

const ERR = '... on AppError { code fields { field message } }';

describe('integrator papercuts (issue #26 item 5)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let other: MerchantCredentials;
  const v1 = (path: string) => `${t.url}/api/v1${path}`;

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant();
    other = await t.createMerchant({ name: 'Other' });
  });
  afterAll(() => t?.stop());

  describe('a malformed `after` cursor is 400 VALIDATION_ERROR naming the field, on every list', () => {
    const GARBAGE = ['garbage', '', 'bk_', 'bk_garbage!', "bk_01J' OR 1=1", 'x'.repeat(3000)];

    it('REST: GET /orders and GET /webhooks/deliveries', async () => {
      const created = await api(v1('/orders'), { key: m.testKey, body: formB({ reference_id: 'CURSOR-1' }) });
      expect(created.status).toBe(201);
      await api(v1('/orders'), { key: m.testKey, body: formB({ reference_id: 'CURSOR-2' }) });
      for (const after of GARBAGE) {
        for (const [path, otherList] of [['/orders', 'msg_01J'], ['/webhooks/deliveries', 'bk_01J']] as const) {
          for (const cursor of [after, otherList]) {
            const res = await api(v1(`${path}?after=${encodeURIComponent(cursor)}`), { key: m.testKey });
            expect(res.status, `${path} ${cursor}`).toBe(400);
            expect(res.body.error.code).toBe('VALIDATION_ERROR');
            expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['after']);
          }
        }
      }
      // A real cursor still pages.
      const page1 = await api(v1('/orders?limit=1'), { key: m.testKey });
      expect(page1.body.next_cursor).toMatch(/^bk_/);
      const page2 = await api(v1(`/orders?limit=1&after=${page1.body.next_cursor}`), { key: m.testKey });
      expect(page2.status).toBe(200);
      expect(page2.body.orders[0].booking_id).toBe(created.body.booking_id);
      expect((await api(v1('/webhooks/deliveries?after=msg_01JHX3Z6Q8R2V4N7W9Y1A3C5E7'), { key: m.testKey })).status).toBe(200);
    });

    it('GraphQL: orders, batches, webhookDeliveries and adminMerchants', async () => {
      const orders = await gql(t.url, `{ orders(after: "garbage") { ... on QueryOrdersSuccess { data { nodes { id } } } ${ERR} } }`, { key: m.testKey });
      expect(orders.body.data.orders).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'after' }] });
      const deliveries = await gql(t.url, `{ webhookDeliveries(after: "garbage") { ... on QueryWebhookDeliveriesSuccess { data { id } } ${ERR} } }`, { key: m.testKey });
      expect(deliveries.body.data.webhookDeliveries).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'after' }] });
      const batches = await gql(t.url, '{ batches(after: "garbage") { id } }', { key: m.testKey });
      expect(batches.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'after' }] });
      expect((await gql(t.url, '{ batches(after: "bt_01JHX3Z6Q8R2V4N7W9Y1A3C5E7") { id } }', { key: m.testKey })).body).toEqual({ data: { batches: [] } });
      const admin = await gql(t.url, '{ adminMerchants(after: "garbage") { id } }', { key: ADMIN_TOKEN });
      expect(admin.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'after' }] });
      const listed = await gql(t.url, '{ adminMerchants(limit: 1) { id } }', { key: ADMIN_TOKEN });
      const next = await gql(t.url, `{ adminMerchants(limit: 1, after: "${listed.body.data.adminMerchants[0].id}") { id } }`, { key: ADMIN_TOKEN });
      expect(next.body.errors).toBeUndefined();
    });
  });

  describe('idempotency', () => {
    it('a replayed POST /orders says Idempotent-Replayed: true (the first answer does not)', async () => {
      const send = (key: string) => api(v1('/orders'), { key: m.testKey, headers: { 'Idempotency-Key': key }, body: formB({ reference_id: 'REPLAY-1' }) });
      const first = await send('replay-order-1');
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await send('replay-order-1');
      expect(again.status).toBe(200);
      expect(again.body.booking_id).toBe(first.body.booking_id);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });

    it('a kept 4xx answered again says so too', async () => {
      const cancel = () => api(v1('/orders/bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7/cancel'), { key: m.testKey, headers: { 'Idempotency-Key': 'cancel-missing-1' }, body: {} });
      const first = await cancel();
      expect(first.status).toBe(404);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await cancel();
      expect(again.status).toBe(404);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });

    it('an invalid key is reported against the Idempotency-Key header (REST), the idempotencyKey argument (GraphQL)', async () => {
      const bad = 'has spaces in it';
      const created = await api(v1('/orders'), { key: m.testKey, headers: { 'Idempotency-Key': bad }, body: formB() });
      expect(created.status).toBe(400);
      expect(created.body.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'Idempotency-Key' }] });
      const cancelled = await api(v1('/orders/bk_x/cancel'), { key: m.testKey, headers: { 'Idempotency-Key': bad }, body: {} });
      expect(cancelled.status).toBe(400);
      expect(cancelled.body.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'Idempotency-Key' }] });
      const mutation = await gql(t.url, `mutation { cancelOrder(id: "bk_x", idempotencyKey: "${bad}") { __typename ${ERR} } }`, { key: m.testKey });
      expect(mutation.body.data.cancelOrder).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'idempotencyKey' }] });
    });
  });

  describe('the two request forms', () => {
    const quote = (body: unknown) => api(v1('/shipping/quote'), { key: m.testKey, body });
    const here = { address: 'Av. Apoquindo 3000, Las Condes', coords: { lat: -33.4154, lng: -70.5837 } };

    it('a quote with both weight fields that disagree is 400 VALIDATION_ERROR naming both (total_weight_kg no longer wins)', async () => {
      const res = await quote({ destination: here, total_weight_kg: 50, total_weight: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['total_weight', 'total_weight_kg']);
      expect((await quote({ destination: 'Av. Apoquindo 3000, Las Condes', total_weight_kg: 1.0004, total_weight: 1.0006 })).status).toBe(400);
    });

    it('both weights agreeing to the gram, and each form alone, are quoted as before', async () => {
      const agreed = await quote({ destination: here, total_weight_kg: 2, total_weight: 2.0004 });
      expect(agreed.status).toBe(200);
      expect((await quote({ origin: { address: 'Av. Providencia 1234' }, destination: here, total_weight_kg: 2 })).status).toBe(200);
      expect((await quote({ destination: { lat: -33.4154, lng: -70.5837 }, total_weight: 2 })).status).toBe(200);
    });

    it('create order: both forms work; no destination, Form B without payment_mode and both destinations are refused', async () => {
      expect((await api(v1('/orders'), { key: m.testKey, body: formB({ reference_id: 'FORMS-B' }) })).status).toBe(201);
      const formA = { customer_name: 'Ana', customer_phone: '+56912345678', pickup: { address: 'Av. Providencia 1234', coords: { lat: -33.4214, lng: -70.6033 } }, dropoff: here };
      expect((await api(v1('/orders'), { key: m.testKey, body: formA })).status).toBe(201);
      const { dropoff: _dropoff, ...noDestination } = formA;
      const { payment_mode: _paymentMode, ...noPaymentMode } = formB();
      for (const [body, field] of [[noDestination, 'dropoff'], [noPaymentMode, 'payment_mode'], [{ ...formA, dropoff_address: 'Av. Apoquindo 3000', payment_mode: 'prepaid' }, 'dropoff_address']] as const) {
        const res = await api(v1('/orders'), { key: m.testKey, body });
        expect(res.status, field).toBe(400);
        expect(res.body.error.fields.map((f: { field: string }) => f.field), field).toContain(field);
      }
    });
  });

  describe('405 METHOD_NOT_ALLOWED with Allow for a known path', () => {
    it.each([
      ['PUT', '/orders', 'GET, HEAD, POST'],
      ['DELETE', '/orders/bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7', 'GET, HEAD'],
      ['GET', '/shipping/quote', 'POST'],
      ['PATCH', '/orders/bk_1/cancel', 'POST'],
      ['DELETE', '/merchants/settings', 'POST, PATCH'],
    ])('%s %s', async (method, path, allow) => {
      const res = await api(v1(path), { method, key: m.testKey });
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
    });

    it('an unknown path is still 404, and a known one with its own method still answers', async () => {
      expect((await api(v1('/nope'), { method: 'PUT', key: m.testKey })).status).toBe(404);
      expect((await api(v1('/orders/bk_1/nope'), { method: 'GET', key: m.testKey })).status).toBe(404);
      expect((await api(v1('/orders'), { key: m.testKey })).status).toBe(200);
    });
  });

  describe('Authorization and X-API-Key carrying two different keys', () => {
    it('REST: 400 VALIDATION_ERROR naming X-API-Key, whichever key is valid; the same key in both is fine', async () => {
      for (const headers of [
        { authorization: `Bearer ${m.testKey}`, 'x-api-key': other.testKey },
        { authorization: `Bearer ${m.testKey}`, 'x-api-key': 'ak_test_nope' },
        { authorization: 'Bearer ak_test_nope', 'x-api-key': m.testKey },
      ]) {
        const res = await api(v1('/merchants/me'), { headers });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'X-API-Key' }] });
        const order = await api(v1('/orders'), { headers, body: formB() });
        expect(order.status).toBe(400);
      }
      expect((await api(v1('/merchants/me'), { headers: { authorization: `Bearer ${m.testKey}`, 'x-api-key': m.testKey } })).status).toBe(200);
      expect((await api(v1('/merchants/me'), { headers: { 'x-api-key': m.testKey } })).status).toBe(200);
    });

    it('GraphQL: refused the same way', async () => {
      const res = await api(`${t.url}/graphql`, {
        headers: { authorization: `Bearer ${m.testKey}`, 'x-api-key': other.testKey },
        body: { query: '{ merchant { ... on QueryMerchantSuccess { data { id } } } }' },
      });
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'X-API-Key' }] });
      expect(res.body.data).toBeUndefined();
    });
  });
});
