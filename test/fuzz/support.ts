/**
 * The fuzz harness: one in-process app with a merchant, a courier and real records to aim at,
 * the operations of the OpenAPI document, hostile value generators, and the checks every
 * response must pass (no 5xx, the error shape, no internals in messages).
 *
 * Case counts: FUZZ_RUNS (default 300) is the total for the whole fuzz suite; each property takes
 * a share of it (see runsFor). `npm test` runs the default sample, `npm run test:fuzz` 10,000.
 * FUZZ_SEED replays a failing run (fast-check prints the seed and path of a counterexample).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import ngeohash from 'ngeohash';
import { expect } from 'vitest';
import { buildOpenApiDocument } from '../../rest/openapi/document.js';
import { ERROR_CODES } from '../../src/domain/errors.js';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { courierOnDuty, expectOk, formA, merchantApi, PLACES, type CourierClient } from '../orders/support.js';

export const FUZZ_RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 300));
const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** A property's share of FUZZ_RUNS (at least 3 cases, so the small sample still touches each). */
export function runsFor(share: number): number {
  return Math.max(3, Math.round(FUZZ_RUNS * share));
}

/** fast-check parameters: no shrinking storm on a slow HTTP property, the seed replayable. */
export function fcParams(numRuns: number): fc.Parameters<unknown> {
  return { numRuns, ...(FUZZ_SEED !== undefined && { seed: FUZZ_SEED }), endOnFailure: true };
}

/* ------------------------------------------------------------------------------------------ */
/* The app under fuzz                                                                          */
/* ------------------------------------------------------------------------------------------ */

export interface Operation {
  method: string;
  /** The OpenAPI path template, e.g. /orders/{id}/cancel. */
  path: string;
  auth: 'merchant' | 'courier' | 'admin' | 'public';
  pathParams: string[];
  queryParams: string[];
  /** Request headers the operation requires (the Idempotency-Key of a tip). */
  requiredHeaders: string[];
  /** The documented JSON request body (resolved schema and its example). */
  body: { schema: JsonSchema; example: unknown } | null;
}

export type JsonSchema = Record<string, unknown>;

export interface FuzzApp {
  t: TestApp;
  base: string;
  merchant: MerchantCredentials;
  courier: CourierClient;
  operations: Operation[];
  /** Real identifiers of each kind, so that mutated requests reach the handlers. */
  ids: { orders: string[]; courierOrders: string[]; tracking: string[]; batches: string[]; endpoints: string[]; deliveries: string[] };
  /** Error-level log lines of the app (an unhandled error is logged here with its detail). */
  errorLog: () => string[];
  /** Requests sent so far by this file. */
  count: () => number;
  send: (request: FuzzRequest) => Promise<FuzzResponse>;
}

export interface FuzzRequest {
  method: string;
  /** Path and query, from the server root (e.g. /api/v1/orders?limit=5). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

export interface FuzzResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Rate limits out of the way, no outbound webhooks, private receivers allowed (nothing is sent). */
const FUZZ_ENV = {
  RATE_LIMIT_PER_MIN: '1000000000',
  COURIER_RATE_LIMIT_PER_MIN: '1000000000',
  PUBLIC_RATE_LIMIT_PER_MIN: '1000000000',
  WEBHOOK_WORKER: 'false',
  WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true',
};

export async function startFuzzApp(): Promise<FuzzApp> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const t = await startTestApp({ env: FUZZ_ENV, logger: createLogger({ level: 'error', destination: stream }) });
  const merchant = await t.createMerchant({ name: 'Fuzz Merchant' });
  const orders = merchantApi(t, merchant.testKey);

  // An order assigned to the fuzz courier (courier paths), two more to consolidate far from it (a batch).
  const courier = await courierOnDuty(t, { mode: 'test', at: PLACES.providencia, name: 'Fuzz Courier' });
  const assigned = expectOk(await orders.create(formA({ pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia } })), 201).body;
  const spare = expectOk(await orders.create(formA({ pickup: { address: 'Av. Irarrázaval 3000', coords: PLACES.nunoa } })), 201).body;
  const pooled = [];
  for (let i = 0; i < 2; i++) pooled.push(expectOk(await orders.create(formA({ pickup: { address: 'Alameda 100', coords: PLACES.santiago } })), 201).body);
  // Santiago centro's cell at precision 5 (66jcb) holds the pooled orders only.
  const batch = expectOk(await orders.consolidate({ geohash_zone: ngeohash.encode(PLACES.santiago.lat, PLACES.santiago.lng, 5), target_car_type: 'car' })).body;

  // A webhook endpoint and a delivery (pending: the worker is off) from one more order.
  const hook = await fetchJson(t.url, 'POST', '/api/v1/webhooks', merchant.testKey, { url: 'http://127.0.0.1:9/fuzz' });
  await orders.create(formA());
  const deliveries = await fetchJson(t.url, 'GET', '/api/v1/webhooks/deliveries', merchant.testKey);

  const identifiers = (o: { booking_id: string; tracking_number: string; order_number: string; reference_id?: string }) =>
    [o.booking_id, o.tracking_number, o.order_number, o.reference_id].filter((v): v is string => typeof v === 'string');
  const details = await Promise.all([assigned, spare].map(async (o) => expectOk(await orders.get(o.booking_id)).body));

  let count = 0;
  const send = async (request: FuzzRequest): Promise<FuzzResponse> => {
    count++;
    const res = await fetch(`${t.url}${request.path}`, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.body !== undefined && { body: request.body }),
      signal: AbortSignal.timeout(15_000),
    });
    return fuzzResponse(res, await res.text());
  };

  return {
    t,
    base: '/api/v1',
    merchant,
    courier,
    operations: documentedOperations(),
    ids: {
      orders: details.flatMap(identifiers),
      courierOrders: [assigned.booking_id, assigned.tracking_number],
      tracking: [assigned.tracking_number, assigned.order_number],
      batches: (batch.batch_ids as string[]) ?? [],
      endpoints: [hook.endpoint.id as string],
      deliveries: (deliveries.deliveries as Array<{ id: string }>).map((d) => d.id),
    },
    errorLog: () => lines,
    count: () => count,
    send,
  };
}

/** A response as the checks read it: its text, and the JSON in it when it is JSON. */
export function fuzzResponse(res: Response, text: string): FuzzResponse {
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

async function fetchJson(base: string, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/* ------------------------------------------------------------------------------------------ */
/* Operations from the OpenAPI document                                                        */
/* ------------------------------------------------------------------------------------------ */

type OpenApiDoc = ReturnType<typeof buildOpenApiDocument>;

/** Every documented operation, with its body schema ($refs resolved) and example. */
export function documentedOperations(doc: OpenApiDoc = buildOpenApiDocument()): Operation[] {
  const raw = JSON.parse(JSON.stringify(doc)) as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, JsonSchema> } }; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document as JSON
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(raw.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const security = (op.security ?? []) as Array<Record<string, unknown>>;
      const auth = security.length === 0 ? 'public' : security.some((s) => 'courierToken' in s) ? 'courier' : security.some((s) => 'adminToken' in s) ? 'admin' : 'merchant';
      const params = (op.parameters ?? []) as Array<{ in: string; name: string; required?: boolean }>;
      const media = op.requestBody?.content?.['application/json'];
      ops.push({
        method: method.toUpperCase(),
        path,
        auth,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        requiredHeaders: params.filter((p) => p.in === 'header' && p.required === true).map((p) => p.name),
        body: media ? { schema: resolveRefs(media.schema, raw.components.schemas), example: media.example ?? {} } : null,
      });
    }
  }
  return ops;
}

function resolveRefs(schema: unknown, components: Record<string, JsonSchema>, seen = new Set<string>()): JsonSchema {
  if (Array.isArray(schema)) return schema.map((s) => resolveRefs(s, components, seen)) as unknown as JsonSchema;
  if (!schema || typeof schema !== 'object') return schema as JsonSchema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref) {
    const name = ref.split('/').pop()!;
    if (seen.has(name)) return {};
    return resolveRefs(components[name], components, new Set([...seen, name]));
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolveRefs(v, components, seen)]));
}

/** Field paths of a body: those its schema documents and those its example uses (array items as index 0). */
export function fieldPaths(schema: JsonSchema, example: unknown, depth = 4): Array<Array<string | number>> {
  const out = new Map<string, Array<string | number>>();
  const add = (p: Array<string | number>) => out.set(JSON.stringify(p), p);
  const walkSchema = (s: unknown, p: Array<string | number>) => {
    if (!s || typeof s !== 'object' || p.length >= depth) return;
    const node = s as { properties?: Record<string, unknown>; items?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[]; additionalProperties?: unknown };
    for (const [key, sub] of Object.entries(node.properties ?? {})) {
      add([...p, key]);
      walkSchema(sub, [...p, key]);
    }
    if (node.items) {
      add([...p, 0]);
      walkSchema(node.items, [...p, 0]);
    }
    for (const alt of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) walkSchema(alt, p);
  };
  const walkValue = (v: unknown, p: Array<string | number>) => {
    if (!v || typeof v !== 'object' || p.length >= depth) return;
    if (Array.isArray(v)) {
      if (v.length > 0) {
        add([...p, 0]);
        walkValue(v[0], [...p, 0]);
      }
      return;
    }
    for (const [key, sub] of Object.entries(v)) {
      add([...p, key]);
      walkValue(sub, [...p, key]);
    }
  };
  walkSchema(schema, []);
  walkValue(example, []);
  return [...out.values()];
}

/** A copy of `value` with `path` set to `replacement` (own properties, even `__proto__`). */
export function setPath(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const container = (
    value && typeof value === 'object' ? (Array.isArray(value) ? [...value] : { ...value }) : typeof head === 'number' ? [] : {}
  ) as Record<string | number, unknown>;
  const current = Object.prototype.hasOwnProperty.call(container, head!) ? container[head!] : undefined;
  Object.defineProperty(container, head!, { value: setPath(current, rest, replacement), enumerable: true, writable: true, configurable: true });
  return container;
}

/** A copy of `value` without the field at `path`. */
export function deletePath(value: unknown, path: Array<string | number>): unknown {
  if (!value || typeof value !== 'object' || path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0) copy.splice(Number(head), 1);
    else copy[Number(head)] = deletePath(copy[Number(head)], rest);
    return copy;
  }
  const copy: Record<string, unknown> = { ...value };
  if (rest.length === 0) delete copy[String(head)];
  else if (Object.prototype.hasOwnProperty.call(copy, head!)) copy[String(head)] = deletePath(copy[String(head)], rest);
  return copy;
}

/* ------------------------------------------------------------------------------------------ */
/* Hostile values                                                                              */
/* ------------------------------------------------------------------------------------------ */

/** Keys that attack object handling rather than validation. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', '$where', '$gt', '$ne', '.', ''];

/** An object with an own `__proto__` (or other dangerous) key, as JSON.parse builds it. */
export function objectWith(key: string, value: unknown): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  return o;
}

const NUMBER_LIKE_STRINGS = ['NaN', 'Infinity', '-Infinity', '1e309', '-0', '0x10', '1_000', ' 12 ', '', ' ', '12abc', '١٢', '1e-400', '9007199254740993', '00012', '+5', '.5', '5.'];
const DATE_LIKE_STRINGS = ['2024-13-45T99:99:99Z', '0000-00-00T00:00:00Z', '2024-02-30T00:00:00Z', '9999-12-31T23:59:59.999999999Z', '-271821-04-20T00:00:00Z', 'yesterday', '1700000000'];
const INJECTION_STRINGS = [
  "' OR 1=1 --", '"; DROP TABLE orders; --', '{"$gt": ""}', '${7*7}', '{{7*7}}', '<script>alert(1)</script>', '../../../../etc/passwd',
  '%00', '\u0000', 'a\u0000b', '\r\nX-Injected: 1', '\u202e\u2066', '\ud800', '\udfff\ud800', '🚚'.repeat(50), 'ǅ'.repeat(30), '\uFEFF', 'null', 'undefined', 'true',
  'ak_test_' + 'A'.repeat(40), 'http://169.254.169.254/latest/meta-data/', 'javascript:alert(1)', 'file:///etc/passwd',
];

/** Strings of every sort: empty, huge, unicode (lone surrogates included), number- and date-like, injections. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string(), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.constantFrom(...NUMBER_LIKE_STRINGS, ...DATE_LIKE_STRINGS, ...INJECTION_STRINGS), weight: 4 },
  { arbitrary: fc.integer({ min: 300, max: 60_000 }).map((n) => 'x'.repeat(n)), weight: 1 },
  { arbitrary: fc.tuple(fc.constantFrom('é', '🚚', '\u0301', 'ñ', '\u200b'), fc.integer({ min: 100, max: 5_000 })).map(([c, n]) => c.repeat(n)), weight: 1 },
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.5, -0.000001, 1e308, -1e308, 5e-324, 2 ** 53 + 2, -(2 ** 63), 241, 100_001, 1e21, 180.0000001, -90.5),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any JSON value that is wrong somewhere: null, numbers, strings, arrays, objects, prototype keys, deep nests. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(null, true, false, [], {}, [null], [[]], [{}]), weight: 3 },
  { arbitrary: hostileNumber, weight: 3 },
  { arbitrary: hostileString, weight: 5 },
  { arbitrary: fc.array(fc.oneof(hostileNumber, fc.string(), fc.constant(null)), { maxLength: 8 }), weight: 1 },
  { arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => i)), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => objectWith(k, v)), weight: 2 },
  { arbitrary: fc.constantFrom(objectWith('__proto__', { polluted: 'yes' }), objectWith('constructor', { prototype: { polluted: 'yes' } })), weight: 1 },
  { arbitrary: fc.integer({ min: 50, max: 2_000 }).map((n) => nested(n)), weight: 1 },
);

/** `n` arrays nested in one another. */
export function nested(n: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

/** A random extra field name: plausible, prototype-ish or junk. */
export const extraKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PROTOTYPE_KEYS, 'merchant_id', 'id', 'mode', 'is_test', 'status', 'price', 'courier_id', 'admin', 'role'),
  fc.string({ minLength: 1, maxLength: 30 }),
);

/** A documented body mutated: fields replaced, removed or added, or the whole body swapped. */
export function mutatedBody(op: Operation): fc.Arbitrary<unknown> {
  const example = op.body?.example ?? {};
  const paths = fieldPaths(op.body?.schema ?? {}, example);
  const path = paths.length ? fc.constantFrom(...paths) : fc.constant<Array<string | number>>(['x']);
  const replace = fc.record({ path, value: hostileValue });
  return fc.oneof(
    { arbitrary: replace.map(({ path: p, value }) => setPath(example, p, value)), weight: 6 },
    { arbitrary: fc.array(replace, { minLength: 2, maxLength: 5 }).map((rs) => rs.reduce<unknown>((b, r) => setPath(b, r.path, r.value), example)), weight: 3 },
    { arbitrary: fc.array(path, { minLength: 1, maxLength: 3 }).map((ps) => ps.reduce<unknown>((b, p) => deletePath(b, p), example)), weight: 2 },
    { arbitrary: fc.array(fc.tuple(extraKey, hostileValue), { minLength: 1, maxLength: 4 }).map((kvs) => kvs.reduce<unknown>((b, [k, v]) => setPath(b, [k], v), example)), weight: 2 },
    { arbitrary: hostileValue, weight: 1 },
    { arbitrary: fc.constant(example), weight: 1 },
  );
}

/** Path segments that try to escape their route: encoded slashes and dots, NUL, huge, unicode, junk. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%2F', '..%2F..%2Fhealth', '%2e%2e', '%00', 'a%00b', '%', '%zz', '%C0%AF', '%E2%80%AE', '%FF%FE', '%ED%A0%80', 'null', 'undefined', '0', '-1',
    '__proto__', 'constructor', '%5F%5Fproto%5F%5F', '*', '%2A', '%20', '+', ';', ',', "'", '%27%20OR%201%3D1', '$gt', 'me', 'consolidate', 'deliveries', 'redeliver-failed'),
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  fc.integer({ min: 65, max: 3_000 }).map((n) => 'A'.repeat(n)),
  fc.stringMatching(/^(bk|ba|we|wd|cr|mer)_[0-9A-Z]{26}$/),
);

/* ------------------------------------------------------------------------------------------ */
/* The checks                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** What a message may never show: stack frames, source paths, driver errors. */
const INTERNALS = /\n\s+at\s|node_modules|\.ts:\d+|\.js:\d+|SQLITE_|better-sqlite3|MongoServerError|ECONNREFUSED|TypeError|RangeError|ReferenceError|Cannot read prop/;

/** REST: no 5xx; a non-2xx is JSON in the error shape with a code of the closed list; no internals. */
export function expectRestAnswer(res: FuzzResponse, what: string): void {
  const method = what.split(' ')[0];
  expect(res.status, `${what} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if ((res.status >= 200 && res.status < 300) || method === 'HEAD') return;
  // node:http itself refuses request headers over 16 KB in all (a bare 431) before the app sees them.
  if (res.status === 431 && res.text === '') return;
  expect(res.headers.get('content-type') ?? '', `${what} content-type`).toMatch(/^application\/json/);
  const body = res.json as { success?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
  expect(body?.success, `${what} → ${res.text.slice(0, 300)}`).toBe(false);
  expect(ERROR_CODES, `${what} → code ${String(body?.error?.code)}`).toContain(body?.error?.code);
  expect(typeof body?.error?.message, what).toBe('string');
  expect(String(body?.error?.message), what).not.toMatch(INTERNALS);
}

/** Codes GraphQL itself (Yoga, graphql-js, armor) puts on errors beside the domain's. */
const GRAPHQL_CODES = ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND', 'OPERATION_RESOLUTION_FAILURE'];

/** GraphQL: no 5xx, no INTERNAL_ERROR (masked crash); a failure carries a non-empty errors array. */
export function expectGraphQLAnswer(res: FuzzResponse, what: string): void {
  expect(res.status, `${what} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.text, `${what}: a resolver crashed`).not.toContain('"INTERNAL_ERROR"');
  if (res.status === 431 && res.text === '') return; // node:http's own refusal of headers over 16 KB
  if (res.status === 204 && res.text === '') return; // CORS preflight (OPTIONS)
  const body = res.json as { data?: unknown; errors?: Array<{ message?: unknown; extensions?: { code?: unknown } }> } | undefined;
  expect(body && typeof body === 'object', `${what} → ${res.status} ${res.text.slice(0, 300)}`).toBe(true);
  const ok = res.status >= 200 && res.status < 300 && !body!.errors;
  if (ok) return;
  expect(Array.isArray(body!.errors) && body!.errors.length > 0, `${what} → ${res.status} ${res.text.slice(0, 300)}`).toBe(true);
  for (const error of body!.errors!) {
    expect(typeof error.message, what).toBe('string');
    expect(String(error.message), what).not.toMatch(INTERNALS);
    const code = error.extensions?.code;
    if (code !== undefined) expect([...ERROR_CODES, ...GRAPHQL_CODES], `${what} → code ${String(code)}`).toContain(code);
  }
}

/** After the run: no unhandled error was logged, health answers, and nothing polluted Object.prototype. */
export async function expectAppIntact(app: FuzzApp): Promise<void> {
  const health = await fetch(`${app.t.url}/api/v1/health`);
  expect(health.status).toBe(200);
  expect(((await health.json()) as { status: string }).status).toBe('ok');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(app.errorLog(), 'error-level log lines during the fuzz run').toEqual([]);
}

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * A real garbage collection: global.gc under --expose-gc, else the flag set at run time and the
 * gc function taken from a fresh context (works on Node 20). Null if neither is possible.
 */
export function collectGarbage(): (() => void) | null {
  const g = globalThis as { gc?: () => void };
  if (g.gc) return g.gc;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
}

/**
 * The memory bound of a fuzz file: heap after a full GC may exceed the heap after warm-up by at
 * most 160 MB. What legitimately stays: Yoga's parse and validation caches (LRU, 1,000 documents
 * each; filled with unique invalid documents they were measured at ~80 MB, then flat), the
 * prepared statements and per-key rate-limit buckets. A leak of 20 kB a request would exceed the
 * bound at FUZZ_RUNS=10000. Without a GC, RSS may not grow by more than 1 GB (a loose check).
 */
export const HEAP_GROWTH_LIMIT = 160 * 1024 * 1024;
export const RSS_GROWTH_LIMIT = 1024 * 1024 * 1024;

/** A test's time limit: generous per case, so FUZZ_RUNS=10000 never trips it. */
export function timeoutFor(runs: number): number {
  return 60_000 + runs * 30;
}

export function memorySnapshot(): { heapUsed: number; rss: number; gc: boolean } {
  const gc = collectGarbage();
  if (gc) {
    gc();
    gc();
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss, gc: gc !== null };
}

export function expectMemoryBounded(before: ReturnType<typeof memorySnapshot>, label: string): void {
  const after = memorySnapshot();
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  console.log(`${label}: heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)}, rss ${mb(before.rss)} → ${mb(after.rss)} (gc: ${after.gc})`);
  if (after.gc) expect(after.heapUsed - before.heapUsed).toBeLessThan(HEAP_GROWTH_LIMIT);
  else expect(after.rss - before.rss).toBeLessThan(RSS_GROWTH_LIMIT);
}

/* ------------------------------------------------------------------------------------------ */
/* Credentials and URLs                                                                        */
/* ------------------------------------------------------------------------------------------ */

/** The credential an operation wants (mostly valid, so the fuzz reaches the handlers). */
export function credentialFor(app: FuzzApp, op: Operation): fc.Arbitrary<Record<string, string>> {
  const valid = op.auth === 'courier' ? app.courier.token : op.auth === 'admin' ? ADMIN_TOKEN : app.merchant.testKey;
  return fc.oneof(
    { arbitrary: fc.constant({ authorization: `Bearer ${valid}` }), weight: 8 },
    { arbitrary: fc.constant({ 'x-api-key': op.auth === 'courier' ? app.courier.token : op.auth === 'admin' ? ADMIN_TOKEN : app.merchant.liveKey }), weight: 1 },
    { arbitrary: fc.constant({}), weight: 1 },
  );
}

/** Path parameter values: real identifiers most of the time, hostile segments otherwise. */
export function pathValue(app: FuzzApp, op: Operation): fc.Arbitrary<string> {
  const p = op.path;
  const real = p.startsWith('/couriers/')
    ? app.ids.courierOrders
    : p.startsWith('/tracking/')
      ? app.ids.tracking
      : p.startsWith('/batches/')
        ? app.ids.batches
        : p.startsWith('/webhooks/deliveries/')
          ? app.ids.deliveries
          : p.startsWith('/webhooks/')
            ? app.ids.endpoints
            : app.ids.orders;
  const known = real.length ? fc.constantFrom(...real).map(encodeURIComponent) : hostileSegment;
  return fc.oneof({ arbitrary: known, weight: 3 }, { arbitrary: hostileSegment, weight: 1 });
}

/** The concrete URL of an operation with its path parameters filled in. */
export function urlOf(app: FuzzApp, op: Operation, values: Record<string, string>, query = ''): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? 'x');
  return `${app.base}${path}${query}`;
}

/** Arbitrary path values for every parameter of an operation. */
export function pathValues(app: FuzzApp, op: Operation): fc.Arbitrary<Record<string, string>> {
  return fc.record(Object.fromEntries(op.pathParams.map((name) => [name, pathValue(app, op)])));
}

export function describeRequest(r: FuzzRequest): string {
  const body = r.body === undefined ? '' : typeof r.body === 'string' ? ` ${r.body.slice(0, 200)}` : ` <${r.body.length} bytes>`;
  return `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers ?? {}).slice(0, 200)}${body}`;
}
