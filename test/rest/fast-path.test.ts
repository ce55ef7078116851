import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.js';
import { createRestApp } from '../../rest/app.js';
import { createRestFastPath } from '../../rest/fast-path.js';
import { expectJsonApiHeaders, fastAndPlainSides, startEdgeServer } from '../helpers/fast-path-sides.js';

/**
 * The REST fast path (rest/fast-path.ts) answers as Express does: two servers, one with the fast
 * path in front of Express and one with Express alone, each on its own store with the same ids and
 * a frozen clock, get the same requests in the same order; status, headers (all but Date) and body
 * must be the same. Requests the fast path leaves to Express are in the list too: both sides then
 * answer through Express, and the count of fast-pathed requests shows which were which.
 */
interface Side {
  url: string;
  keys: { key: string; liveKey: string; limitedKey: string; otherKey: string };
  fastPathed: () => number;
  stop(): Promise<void>;
}

async function startSide(fastPath: boolean): Promise<Side> {
  let restFastPath: ReturnType<typeof createRestFastPath> | undefined;
  const server = await startEdgeServer((edge) => {
    const metrics = createMetrics();
    const rest = createRestApp(edge, metrics);
    restFastPath = createRestFastPath(edge, metrics);
    return (req, res) => {
      if (!fastPath || !restFastPath!.serve(req, res)) rest(req, res);
    };
    // One master key for both sides: the tracking links' capability is derived from it (and must match).
  }, { PUBLIC_RATE_LIMIT_PER_MIN: String(ANONYMOUS_PER_MIN), MASTER_KEY: Buffer.alloc(32, 5).toString('base64') });
  const { admin } = server;
  const address = 'Av. Providencia 1234, Providencia';
  const shop = await admin.createMerchant({ input: { name: 'Fast Shop', address } });
  const limited = await admin.createMerchant({ input: { name: 'Limited Shop', address } });
  const other = await admin.createMerchant({ input: { name: 'Other Shop', address } });
  await admin.setMerchantRateLimit({ input: { merchantId: limited.merchantId, perMin: 3 } });
  return {
    url: server.url,
    keys: { key: shop.testKey, liveKey: shop.liveKey, limitedKey: limited.testKey, otherKey: other.testKey },
    fastPathed: () => restFastPath!.served,
    stop: server.stop,
  };
}

interface Call {
  name: string;
  method?: string;
  path: string;
  /** Sent as Bearer. */
  as?: keyof Side['keys'];
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent as it is (not JSON-encoded). */
  raw?: string | Blob;
}

async function send(side: Side, call: Call) {
  const method = call.method ?? (call.body !== undefined || call.raw !== undefined ? 'POST' : 'GET');
  const headers: Record<string, string> = {
    // A request id of our own: the generated one is random.
    'x-request-id': 'fast-path-test',
    ...(method !== 'GET' && method !== 'HEAD' && { 'content-type': 'application/json' }),
    ...(call.as && { authorization: `Bearer ${side.keys[call.as]}` }),
    ...call.headers,
  };
  const body = call.raw ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  const res = await fetch(`${side.url}${call.path}`, { method, headers, ...(body !== undefined && { body }) });
  const seen = [...res.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive' && name !== 'connection');
  return { status: res.status, headers: Object.fromEntries(seen), body: await res.text() };
}

const QUOTE = { destination: { address: 'Av. Apoquindo 4501, depto 1203, Las Condes' }, total_weight_kg: 2.5 };
const FORM_B = {
  customer_name: 'Javier Muñoz',
  customer_phone: '+56 9 8765 4321',
  customer_rut: '12.345.678-5',
  dropoff_address: 'Av. Apoquindo 3000, Las Condes',
  payment_mode: 'prepaid',
  reference_id: 'REF-1001',
};
/** The tracking calls below spend this budget (one client address), and one more is refused. */
const ANONYMOUS_PER_MIN = 4;
const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });

// The first order ('create') is bk_000014, EXD-000000000016, 1000000015 on both sides (the same
// ids in the same order); 'create, reference taken' makes a second REF-1001, which a read by
// reference finds first (newest first).
const ORDER = '/api/v1/orders';
const CALLS: Call[] = [
  { name: 'quote', path: '/api/v1/shipping/quote', as: 'key', body: QUOTE },
  { name: 'quote, invalid (field names in the caller terms)', path: '/api/v1/shipping/quote', as: 'key', body: { destination: 42 } },
  { name: 'quote, unauthenticated', path: '/api/v1/shipping/quote', body: QUOTE },
  { name: 'create', path: ORDER, as: 'key', body: FORM_B, headers: { 'idempotency-key': 'k-1' } },
  { name: 'create, replayed', path: ORDER, as: 'key', body: FORM_B, headers: { 'idempotency-key': 'k-1' } },
  { name: 'create, same key, other body', path: ORDER, as: 'key', body: { ...FORM_B, reference_id: 'REF-1002' }, headers: { 'idempotency-key': 'k-1' } },
  { name: 'create, without a key', path: ORDER, as: 'key', body: { ...FORM_B, reference_id: 'REF-1003' } },
  { name: 'create, reference taken', path: ORDER, as: 'key', body: FORM_B },
  { name: 'create, gzipped', path: ORDER, as: 'key', raw: new Blob([gzipSync(JSON.stringify({ ...FORM_B, reference_id: 'REF-1004' }))]), headers: { 'content-encoding': 'gzip' } },
  { name: 'create, byte-order mark', path: ORDER, as: 'key', raw: `\ufeff${JSON.stringify({ ...FORM_B, reference_id: 'REF-1005' })}` },
  { name: 'create, charset utf-8', path: ORDER, as: 'key', body: { ...FORM_B, reference_id: 'REF-1006' }, headers: { 'content-type': 'application/json; charset=utf-8' } },
  { name: 'create, invalid', path: ORDER, as: 'key', body: { ...FORM_B, customer_rut: '12.345.678-9', dropoff_address: '' } },
  { name: 'create, malformed JSON', path: ORDER, as: 'key', raw: '{"customer_name": ' },
  { name: 'create, malformed JSON and no key (the body is read first)', path: ORDER, raw: '{' },
  { name: 'create, JSON that is not an object', path: ORDER, as: 'key', raw: '"order"' },
  { name: 'create, an array', path: ORDER, as: 'key', raw: '[]' },
  { name: 'create, whitespace only', path: ORDER, as: 'key', raw: '  \n' },
  { name: 'create, empty body', path: ORDER, as: 'key', raw: '' },
  { name: 'create, nested too deep', path: ORDER, as: 'key', body: { ...FORM_B, order_notes: deep(40) } },
  { name: 'create, oversized', path: ORDER, as: 'key', body: { ...FORM_B, order_notes: 'x'.repeat(110 * 1024) } },
  { name: 'create, unsupported encoding', path: ORDER, as: 'key', raw: JSON.stringify(FORM_B), headers: { 'content-encoding': 'compress' } },
  { name: 'create, live key of an unactivated merchant', path: ORDER, as: 'liveKey', body: { ...FORM_B, reference_id: 'REF-1007' } },
  { name: 'create, unknown key', path: ORDER, body: FORM_B, headers: { authorization: 'Bearer sk_test_nope' } },
  { name: 'create, X-API-Key header', path: ORDER, body: { ...FORM_B, reference_id: 'REF-1008' }, headers: { 'x-api-key': 'sk_test_nope' } },
  { name: 'create, latin-1 (refused by the body parser)', path: ORDER, as: 'key', raw: JSON.stringify(FORM_B), headers: { 'content-type': 'application/json; charset=latin1' } },
  { name: 'create, text/plain (Express)', path: ORDER, as: 'key', raw: JSON.stringify(FORM_B), headers: { 'content-type': 'text/plain' } },
  { name: 'create, query string (Express)', path: `${ORDER}?x=1`, as: 'key', body: { ...FORM_B, reference_id: 'REF-1009' } },
  { name: 'create, trailing slash (Express)', path: `${ORDER}/`, as: 'key', body: { ...FORM_B, reference_id: 'REF-1010' } },
  { name: 'read by booking id', path: `${ORDER}/bk_000014`, as: 'key' },
  { name: 'read by reference', path: `${ORDER}/REF-1001`, as: 'key' },
  { name: 'read by tracking number', path: `${ORDER}/EXD-000000000016`, as: 'key' },
  { name: 'read by order number', path: `${ORDER}/1000000015`, as: 'key' },
  { name: 'read, unknown', path: `${ORDER}/bk_nope.x~y`, as: 'key' },
  { name: "read another merchant's order", path: `${ORDER}/REF-1001`, as: 'otherKey' },
  { name: 'read in the other mode', path: `${ORDER}/REF-1001`, as: 'liveKey' },
  { name: 'read, X-Test-Mode on a live key', path: `${ORDER}/REF-1001`, as: 'liveKey', headers: { 'x-test-mode': 'true' } },
  { name: 'read, unauthenticated', path: `${ORDER}/REF-1001` },
  { name: 'read, percent-encoded (Express)', path: `${ORDER}/REF%2D1001`, as: 'key' },
  { name: 'read, bad percent-encoding (Express)', path: `${ORDER}/%E0%A4%A`, as: 'key' },
  { name: 'read, query string (Express)', path: `${ORDER}/REF-1001?x=1`, as: 'key' },
  { name: 'read, capitals (Express)', path: '/API/V1/ORDERS/REF-1001', as: 'key' },
  { name: 'read, HEAD (Express)', method: 'HEAD', path: `${ORDER}/REF-1001`, as: 'key' },
  { name: 'rate-limited 1', path: `${ORDER}/x`, as: 'limitedKey' },
  { name: 'rate-limited 2', path: ORDER, as: 'limitedKey', body: FORM_B },
  { name: 'rate-limited 3', path: '/api/v1/shipping/quote', as: 'limitedKey', body: QUOTE },
  { name: 'rate-limited 4 (refused)', path: `${ORDER}/x`, as: 'limitedKey' },
  { name: 'rate-limited 5 (refused)', path: ORDER, as: 'limitedKey', body: FORM_B },
  { name: 'read after all that', path: `${ORDER}/REF-1003`, as: 'key' },
  { name: 'track by order number', path: '/api/v1/tracking/1000000015' },
  { name: 'track by tracking number', path: '/api/v1/tracking/EXD-000000000016' },
  { name: 'track, percent-encoded (Express)', path: '/api/v1/tracking/1000000015%20' },
  { name: 'track, unknown', path: '/api/v1/tracking/EXD-AAAA-BBBB-CCCC' },
  { name: 'track, budget spent', path: '/api/v1/tracking/1000000015' },
  // Issue #26 item 5: what the fast path must answer as Express does, or leave to it.
  { name: 'create, invalid idempotency key', path: ORDER, as: 'key', body: FORM_B, headers: { 'idempotency-key': 'has spaces' } },
  { name: 'create, two different keys', path: ORDER, body: FORM_B, headers: { authorization: 'Bearer ak_test_one', 'x-api-key': 'ak_test_two' } },
  { name: 'read, two different keys', path: `${ORDER}/REF-1001`, headers: { authorization: 'Bearer ak_test_one', 'x-api-key': 'ak_test_two' } },
  { name: 'wrong method on the order path (Express)', method: 'PUT', path: `${ORDER}/REF-1001`, as: 'key', body: {} },
  { name: 'wrong method on the orders path (Express)', method: 'DELETE', path: ORDER, as: 'key' },
  { name: 'GET on the quote path (Express)', path: '/api/v1/shipping/quote', as: 'key' },
];
/** Those above that the fast path takes. */
const FAST_PATHED = CALLS.filter((c) => !c.name.endsWith('(Express)')).length;

describe('REST fast path: the same answers as Express', () => {
  const { fast, plain: express } = fastAndPlainSides(startSide);

  it('every request: same status, headers and body, with or without the fast path', async () => {
    const statusOf: Record<string, number> = {};
    const headersOf: Record<string, Record<string, string>> = {};
    for (const call of CALLS) {
      const [a, b] = [await send(fast(), call), await send(express(), call)];
      expect(a, call.name).toEqual(b);
      statusOf[call.name] = a.status;
      headersOf[call.name] = a.headers;
    }
    expect(headersOf['create, replayed']).toHaveProperty('idempotent-replayed', 'true');
    expect(headersOf.create).not.toHaveProperty('idempotent-replayed');
    expect(headersOf['wrong method on the order path (Express)']).toHaveProperty('allow', 'GET, HEAD');
    expect(headersOf['GET on the quote path (Express)']).toHaveProperty('allow', 'POST');
    expect(express().fastPathed()).toBe(0);
    expect(fast().fastPathed()).toBe(FAST_PATHED);
    // The calls cover what they say.
    expect(statusOf).toMatchObject({
      create: 201, 'create, replayed': 200, 'create, malformed JSON': 400, 'create, oversized': 413, 'create, unknown key': 401,
      'read by tracking number': 200, "read another merchant's order": 404, 'read, unauthenticated': 401, 'rate-limited 4 (refused)': 429,
      'track by order number': 200, 'track, unknown': 404, 'track, budget spent': 429,
      'create, invalid idempotency key': 400, 'create, two different keys': 400, 'read, two different keys': 400,
      'wrong method on the order path (Express)': 405, 'wrong method on the orders path (Express)': 405, 'GET on the quote path (Express)': 405,
    });
  });

  it('a GET with a body is left to Express', async () => {
    const getWithBody = (side: Side) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const headers = { authorization: `Bearer ${side.keys.key}`, 'content-type': 'application/json', 'content-length': '2', 'x-request-id': 'fast-path-test' };
        const req = request(`${side.url}${ORDER}/REF-1001`, { method: 'GET', headers });
        let body = '';
        req.on('response', (res) => res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: res.statusCode!, body })));
        req.on('error', reject);
        req.end('{}');
      });
    const before = fast().fastPathed();
    expect(await getWithBody(fast())).toEqual(await getWithBody(express()));
    expect(fast().fastPathed()).toBe(before);
  });

  it('the fast path answers a read with the rate-limit, security and content headers', async () => {
    const before = fast().fastPathed();
    const res = await send(fast(), { name: 'read', path: `${ORDER}/REF-1001`, as: 'key' });
    expect(fast().fastPathed()).toBe(before + 1);
    expect(res.status).toBe(200);
    expectJsonApiHeaders(res);
    expect(res.headers['x-request-id']).toBe('fast-path-test');
    expect(JSON.parse(res.body)).toMatchObject({ success: true, booking_id: 'bk_000030', reference_id: 'REF-1001' });
  });
});
