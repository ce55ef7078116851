import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponseSchema } from '../../rest/openapi/registry.js';
import { api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectWireShape } from '../helpers/openapi.js';
import { checkRestResponse } from '../helpers/wire-validator.js';
import { formA } from '../orders/support.js';

type Response = Awaited<ReturnType<typeof api>>;

/** Exactly `{success:false, error:{code, message}}`, with the status the code maps to. */
function expectExactError(res: Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  expect(res.body.error.message.length).toBeGreaterThan(0);
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function expectSecurityHeaders(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name), name).toBe(value);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('x-powered-by')).toBeNull();
}

describe('transport errors', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    m = await t.createMerchant();
  });
  afterAll(() => t.stop());

  const settings = (init: { headers?: Record<string, string>; rawBody?: string; method?: string }) =>
    api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: m.testKey, ...init });

  it('malformed JSON is 400 MALFORMED_JSON', async () => {
    for (const rawBody of ['{"prep_time_mins": 5', "{'prep_time_mins': 5}", '{"a":1,}', 'prep_time_mins=5']) {
      expectExactError(await settings({ headers: { 'content-type': 'application/json' }, rawBody }), 400, 'MALFORMED_JSON');
    }
  });

  it('malformed JSON is refused before authentication as well (no key)', async () => {
    const res = await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, rawBody: '{' });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it('a body over 100 kB is 413 PAYLOAD_TOO_LARGE (with and without Content-Length)', async () => {
    const big = JSON.stringify({ prep_time_mins: 5, address: 'x'.repeat(110 * 1024) });
    expectExactError(await settings({ headers: { 'content-type': 'application/json' }, rawBody: big }), 413, 'PAYLOAD_TOO_LARGE');
    const chunked = await chunkedRequest(`${t.url}/api/v1/merchants/settings`, m.testKey, big);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text)).toEqual({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
  });

  it('a body just under 100 kB is parsed (then validated)', async () => {
    const nearly = JSON.stringify({ prep_time_mins: 5, address: 'x'.repeat(90 * 1024) });
    const res = await settings({ headers: { 'content-type': 'application/json' }, rawBody: nearly });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('text/plain, form and multipart bodies are 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const bodies: [string, string][] = [
      ['text/plain', '{"prep_time_mins":5}'],
      ['application/x-www-form-urlencoded', 'prep_time_mins=5'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="prep_time_mins"\r\n\r\n5\r\n--x--\r\n'],
      ['application/xml', '<prep_time_mins>5</prep_time_mins>'],
    ];
    for (const [type, rawBody] of bodies) {
      for (const method of ['PATCH', 'POST']) {
        expectExactError(await settings({ method, headers: { 'content-type': type }, rawBody }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    }
    expect((await api(`${t.url}/api/v1/merchants/me`, { key: m.testKey })).body.merchant.prep_time_mins).toBe(0);
  });

  it('a body without Content-Type is 415', async () => {
    const res = await fetch(`${t.url}/api/v1/merchants/settings`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${m.testKey}` },
      body: new Blob(['{"prep_time_mins":5}']),
    });
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('JSON in a charset other than UTF-8 is 415', async () => {
    const res = await settings({ headers: { 'content-type': 'application/json; charset=latin1' }, rawBody: '{"prep_time_mins":5}' });
    expectExactError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('application/json with a charset=utf-8 parameter is accepted', async () => {
    const res = await settings({ headers: { 'content-type': 'application/json; charset=utf-8' }, rawBody: '{"prep_time_mins":6}' });
    expect(res.status).toBe(200);
    expect(res.body.prep_time_mins).toBe(6);
  });

  it('unknown routes are 404 NOT_FOUND for GET and POST, inside and outside /api/v1', async () => {
    expectExactError(await api(`${t.url}/api/v1/nope`), 404, 'NOT_FOUND');
    expectExactError(await api(`${t.url}/api/v1/nope`, { body: { a: 1 } }), 404, 'NOT_FOUND');
    expectExactError(await api(`${t.url}/api/v1/nope`, { key: m.testKey, body: { a: 1 } }), 404, 'NOT_FOUND');
    expectExactError(await api(`${t.url}/nope`), 404, 'NOT_FOUND');
    expectExactError(await api(`${t.url}/nope`, { body: { a: 1 } }), 404, 'NOT_FOUND');
    expectExactError(await api(`${t.url}/api/v2/merchants/me`, { key: m.testKey }), 404, 'NOT_FOUND');
    // A known path with another method is 405 with Allow (test/rest/integrator-papercuts.test.ts).
    const wrongMethod = await api(`${t.url}/api/v1/merchants/me`, { method: 'DELETE', key: m.testKey });
    expectExactError(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
  });

  it('odd paths are 404 or served, never a 5xx', async () => {
    for (const path of ['/api/v1/%E0%A4%A', '/api/v1/merchants/%ZZ', '/api/v1//merchants//me', '/api/v1/../../etc/passwd']) {
      expectExactError(await api(`${t.url}${path}`, { key: m.testKey }), 404, 'NOT_FOUND');
    }
    // Express routing is not strict: a trailing slash reaches the same route.
    expect((await api(`${t.url}/api/v1/merchants/me/`, { key: m.testKey })).status).toBe(200);
  });

  it('prototype-pollution keys are unknown fields (400) and pollute nothing', async () => {
    const json = { 'content-type': 'application/json' };
    for (const [rawBody, field] of [
      ['{"__proto__":{"admin":true},"prep_time_mins":5}', '__proto__'],
      ['{"constructor":{"prototype":{"admin":true}},"prep_time_mins":5}', 'constructor'],
    ] as const) {
      const res = await settings({ headers: json, rawBody });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field, message: 'unknown field' }] });
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('deeply nested JSON is a 400, not a crash', async () => {
    const res = await settings({ headers: { 'content-type': 'application/json' }, rawBody: `${'['.repeat(5000)}${']'.repeat(5000)}` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api(`${t.url}/api/v1/health`)).status).toBe(200);
  });

  it('a deeply nested object inside items is a 400 VALIDATION_ERROR, not a 500 (was: stack overflow hashing the body)', async () => {
    const nest = (levels: number): unknown => (levels === 0 ? 1 : { a: nest(levels - 1) });
    const order = (extra: unknown) => ({ ...formA(), items: [{ name: 'Caja', quantity: 1, extra }] });
    for (const levels of [3000, 6]) {
      // body (1) → items (2) → item (3) → extra and 5 more objects inside it (4…9): 9 levels.
      const res = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: order(nest(levels)) });
      expect(res.status, `${levels} levels`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expectWireShape(errorResponseSchema, res.body);
    }
    // Exactly 8 levels is accepted.
    const deepest = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: order(nest(5)) });
    expect(deepest.status).toBe(201);
    // The same body with the nesting in an array, and in a field the schema knows.
    const arrays = await api(`${t.url}/api/v1/orders`, { key: m.testKey, rawBody: JSON.stringify(order([[[[[[[[[1]]]]]]]]])), headers: { 'content-type': 'application/json' } });
    expect(arrays.status).toBe(400);
    const inPickup = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: { ...formA(), pickup: nest(20) } });
    expect(inPickup.status).toBe(400);
    expectWireShape(errorResponseSchema, inPickup.body);
    expect((await api(`${t.url}/api/v1/health`)).status).toBe(200);
  });

  it('the depth limit holds on every JSON body: quotes, integrations and the storefront raw-body parser', async () => {
    const deep = { destination: { address: 'Providencia', extra: JSON.parse(`${'['.repeat(20)}${']'.repeat(20)}`) } };
    for (const path of ['/shipping/quote', '/plugin/shipping-quote', '/erp/rate-shipment', '/storefront/carrier-service']) {
      const res = await api(`${t.url}/api/v1${path}`, { key: m.testKey, body: deep });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('VALIDATION_ERROR');
      expectWireShape(errorResponseSchema, res.body);
    }
    // The storefront order webhook is parsed by the domain (Shopify orders nest deeper than 8): hostile depth is still a 4xx.
    const hook = await api(`${t.url}/api/v1/storefront/webhooks/orders-create`, {
      key: m.testKey,
      rawBody: `{"id":1,"x":${'['.repeat(40_000)}${']'.repeat(40_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(hook.status).toBeGreaterThanOrEqual(400);
    expect(hook.status).toBeLessThan(500);
  });

  it('GraphQL over HTTP: variables (and extensions) nested deeper than 8 levels are a 400, whether declared or not', async () => {
    const nest = (levels: number): unknown => (levels === 0 ? 'x' : { a: nest(levels - 1) });
    const viewer = '{ viewer { mode } }';
    const declared = 'query ($input: CreateOrderInput) { viewer { mode } }';
    for (const [query, variables] of [
      [viewer, { deep: nest(8) }],
      [declared, { input: { items: [{ name: 'x', extra: nest(3000) }] } }],
    ] as const) {
      const res = await gql(t.url, query, { key: m.testKey, variables: variables as Record<string, unknown> });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
      expect(res.body.data).toBeUndefined();
    }
    const ext = await api(`${t.url}/graphql`, { key: m.testKey, body: { query: viewer, extensions: { x: nest(10) } } });
    expect(ext.status).toBe(400);
    // Eight levels (the variables object is the first) are served.
    const ok = await gql(t.url, viewer, { key: m.testKey, variables: { deep: nest(7) } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.viewer.mode).toBe('test');
  });

  it('a UTF-8 byte-order mark before the JSON is tolerated', async () => {
    const res = await settings({ headers: { 'content-type': 'application/json' }, rawBody: '\uFEFF{"prep_time_mins":8}' });
    expect(res.status).toBe(200);
    expect(res.body.prep_time_mins).toBe(8);
  });

  it('echoes a valid X-Request-Id and generates one otherwise', async () => {
    const sent = await api(`${t.url}/api/v1/health`, { headers: { 'x-request-id': 'req-abc.123_XYZ' } });
    expect(sent.headers.get('x-request-id')).toBe('req-abc.123_XYZ');

    const generated = await api(`${t.url}/api/v1/health`);
    const id = generated.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api(`${t.url}/api/v1/health`)).headers.get('x-request-id')).not.toBe(id);

    for (const bad of ['has spaces in it', 'x'.repeat(65), '<script>', 'a/b']) {
      const res = await api(`${t.url}/api/v1/health`, { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).not.toBe(bad);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('error responses carry the request id too', async () => {
    const res = await api(`${t.url}/api/v1/merchants/me`, { headers: { 'x-request-id': 'trace-401' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe('trace-401');
  });

  it('security headers are on success and error responses alike', async () => {
    const responses = await Promise.all([
      api(`${t.url}/api/v1/health`),
      api(`${t.url}/api/v1/merchants/me`, { key: m.testKey }),
      api(`${t.url}/api/v1/merchants/me`),
      api(`${t.url}/api/v1/nope`),
      settings({ headers: { 'content-type': 'application/json' }, rawBody: '{' }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401, 404, 400]);
    responses.forEach(expectSecurityHeaders);
  });
});

/** A PATCH with Transfer-Encoding: chunked (no Content-Length), for the streaming body limit. */
function chunkedRequest(url: string, key: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'PATCH', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          checkRestResponse({ method: 'PATCH', url, status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? null, body: text });
          resolve({ status: res.statusCode ?? 0, text });
        });
      },
    );
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 8192) req.write(body.slice(i, i + 8192));
    req.end();
  });
}
