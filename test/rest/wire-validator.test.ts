/**
 * The document's nullable and int64 forms, and the one wire validator every test goes through:
 * it accepts what the server really answers and refuses drift (a wrong type, an undocumented
 * field or status, a bad webhook payload).
 */
import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../rest/openapi/document.js';
import { registry } from '../../rest/openapi/registry.js';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { checkRestResponse, checkWebhookDelivery, takeWireProblems } from '../helpers/wire-validator.js';
import { formA, merchantApi, startOrdersApp } from '../orders/support.js';

type Schema = Record<string, unknown>;

function walk(node: unknown, visit: (n: Schema, at: string) => void, at = '#'): void {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, visit, `${at}/${i}`));
  else if (node && typeof node === 'object') {
    visit(node as Schema, at);
    for (const [k, v] of Object.entries(node)) walk(v, visit, `${at}/${k}`);
  }
}

const nullTypedBranch = (n: Schema) => Array.isArray(n.allOf) && n.allOf.some((b: Schema) => Array.isArray(b.type) && b.type.includes('null'));

describe('nullable and 64-bit fields in the document', () => {
  const doc = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Schema;

  it('writes no nullable reference as allOf (which can never accept null), and the generator alone would', () => {
    const raw = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: { title: 'raw', version: '0' } });
    const rawHits: string[] = [];
    walk(raw, (n, at) => nullTypedBranch(n) && rawHits.push(at));
    expect(rawHits.length).toBeGreaterThan(0); // the correction below is still needed
    const hits: string[] = [];
    walk(doc, (n, at) => nullTypedBranch(n) && hits.push(at));
    expect(hits).toEqual([]);
    const order = (doc.components as { schemas: Record<string, Schema> }).schemas.Order!.properties as Record<string, Schema>;
    expect(order.proof).toEqual({ anyOf: [{ $ref: '#/components/schemas/DeliveryProof' }, { type: 'null' }] });
    expect(order.driver).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/Driver' }, { type: 'null' }], description: expect.any(String) });
  });

  it('a nullable reference accepts null and the object, and refuses anything else', () => {
    const ajv = new Ajv2020({ strict: false });
    const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
    ajv.addSchema({ $id: 'd', $defs: schemas });
    const v = ajv.compile({ ...JSON.parse(JSON.stringify(schemas.Driver!.properties).replaceAll('#/components/schemas/', 'd#/$defs/')).current_location });
    expect([v(null), v({ lat: -33.4, lng: -70.6 }), v('here'), v({ lat: 'x', lng: 1 })]).toEqual([true, true, false, false]);
  });

  it('types the webhook order_id (10 digits) as int64, and every integer that can pass 2^31 − 1 too', () => {
    const flat = (doc.components as { schemas: Record<string, Schema> }).schemas.WebhookPayloadFlat!.properties as Record<string, Schema>;
    expect(flat.order_id).toMatchObject({ type: 'integer', format: 'int64', maximum: 9_999_999_999 });
    const int32Overflows: string[] = [];
    walk(doc, (n, at) => n.type === 'integer' && typeof n.maximum === 'number' && n.maximum > 2 ** 31 - 1 && n.format !== 'int64' && int32Overflows.push(at));
    expect(int32Overflows).toEqual([]);
  });
});

describe('the wire validator', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let order: Record<string, unknown>;

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant();
    const created = await merchantApi(t, m.testKey).create(formA());
    expect(created.status).toBe(201);
    const read = await merchantApi(t, m.testKey).get(created.body.booking_id as string);
    expect(read.status).toBe(200);
    order = read.body as Record<string, unknown>;
  });
  afterAll(() => t?.stop());

  const check = (body: unknown, status = 200, url = `http://x/api/v1/orders/bk_1`) => {
    const problems = checkRestResponse({ method: 'GET', url, status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) });
    takeWireProblems(); // deliberate mismatches must not fail this test in afterEach
    return problems;
  };

  it('accepts a real order answer with proof, driver and batch null', () => {
    expect([order.proof, order.batch_id, order.cancellation]).toEqual([null, null, null]);
    expect(check(order)).toEqual([]);
  });

  it('refuses a wrong type, a missing field, an undocumented field, an undocumented status', () => {
    expect(check({ ...order, order_number: 4820193746 }).join()).toMatch(/order_number.*must be string/);
    const { tracking_url: _dropped, ...missing } = order;
    expect(check(missing).join()).toMatch(/tracking_url/);
    expect(check({ ...order, precision_guess: 'x' }).join()).toMatch(/unevaluated properties/);
    expect(check({ ...order, dropoff: { ...(order.dropoff as object), extra: 1 } }).join()).toMatch(/dropoff.*unevaluated/);
    expect(check({ success: false, error: { code: 'ORDER_NOT_FOUND', message: 'x' } }, 418).join()).toMatch(/status not documented/);
    expect(check({ success: false, error: { code: 'NOT_A_CODE', message: 'x' } }, 404).join()).toMatch(/allowed values/);
  });

  it('refuses an error answer of the wrong shape on an undocumented route', async () => {
    const res = await api(`${t.url}/api/v1/no-such-route`, { key: m.testKey });
    expect(res.status).toBe(404);
    expect(check({ error: 'nope' }, 404, `${t.url}/api/v1/no-such-route`).length).toBeGreaterThan(0);
  });

  it('checks webhook deliveries: headers and payload', () => {
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1738332300', 'webhook-signature': 'v1,abc', 'webhook-event': 'order.status_changed' };
    const flat = {
      order_id: 4820193746, ecommerce_order_id: '', booking_id: 'bk_1', reference: 'R', status: 'delivered', driver_name: '', driver_phone: '',
      driver_image: '', vehicle_model: '', vehicle_number: '', tracking_url: 'https://x/track/1', sequence: 1, timestamp: '2025-01-31T14:05:00.000Z',
    };
    expect(checkWebhookDelivery(headers, JSON.stringify(flat))).toEqual([]);
    expect(checkWebhookDelivery(headers, JSON.stringify({ ...flat, order_id: '4820193746' })).length).toBeGreaterThan(0);
    expect(checkWebhookDelivery({ ...headers, 'webhook-timestamp': 'soon' }, JSON.stringify(flat)).join()).toMatch(/webhook-timestamp/);
    expect(checkWebhookDelivery({ ...headers, 'webhook-event': 'order.exploded' }, JSON.stringify(flat)).join()).toMatch(/not a documented webhook/);
    takeWireProblems();
  });
});
