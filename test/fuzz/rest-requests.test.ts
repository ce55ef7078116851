/**
 * Hostile requests around the body: malformed JSON text and bytes, deep nesting, huge strings,
 * header values (credentials, Content-Type, Content-Encoding, idempotency keys, request ids,
 * forwarding headers), path segments and methods, for every REST operation; plus raw bytes on the
 * socket for what fetch refuses to send.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/app.js';
import {
  credentialFor,
  describeRequest,
  expectAppIntact,
  expectMemoryBounded,
  expectRestAnswer,
  fcParams,
  hostileSegment,
  memorySnapshot,
  pathValues,
  runsFor,
  startFuzzApp,
  urlOf,
  FUZZ_RUNS,
  timeoutFor,
  type FuzzApp,
  type Operation,
} from './support.js';

/** Malformed JSON: the example cut, spliced with junk, or one of JSON's classic traps. */
function malformedJson(example: unknown): fc.Arbitrary<string> {
  const text = JSON.stringify(example) ?? '{}';
  return fc.oneof(
    fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n)),
    fc.tuple(fc.nat({ max: text.length }), fc.string({ unit: 'binary', minLength: 1, maxLength: 5 })).map(([n, junk]) => text.slice(0, n) + junk + text.slice(n)),
    fc.constantFrom(
      '', ' ', '{', '}', '[', '{"a":}', '{"a" 1}', "{'a': 1}", '{a: 1}', '{"a": 1,}', '[1,]', '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}',
      '{"a": undefined}', '{"a": 0x10}', '{"a": 01}', '{"a": .5}', '{"a": 1e999999}', `{"a": 1${'0'.repeat(5000)}}`, '{"a": "\\x41"}', '{"a": "\\u12"}',
      '{"a": "line\nbreak"}', '{"a": "tab\tin string"}', '/* c */ {}', '{} // c', '{}{}', '{} []', 'null', 'true', '0', '"string"', '[]',
      '{"__proto__": {"polluted": "yes"}}', '{"constructor": {"prototype": {"polluted": "yes"}}}', '{"a": 1, "a": 2, "a": {"b": []}}',
      '\uFEFF{}', '\uFEFF\uFEFF{}', '\u0000', '{"a":"\u0000"}', '{"\ud800": 1}', '"\\ud800"',
    ),
  );
}

/** Bytes that are not UTF-8 or not text at all. */
const junkBytes = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 200 }),
  fc.constantFrom(Uint8Array.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]), Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), Uint8Array.from([0x1f, 0x8b, 0x08, 0x00])),
);

/** Deep nesting: arrays, objects, and a nest inside a real field of the body. */
const deepJson = fc.oneof(
  fc.constantFrom(1_000, 10_000, 40_000).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.constantFrom(1_000, 10_000).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.constantFrom(10_000, 50_000).map((n) => '['.repeat(n)),
  fc.constantFrom(5_000, 10_000).map((n) => `{"customer_name": ${'['.repeat(n)}${']'.repeat(n)}, "reason": {"a": ${'['.repeat(n)}1${']'.repeat(n)}}}`),
);

/** Huge strings just under and over the 100 kB limit, in every field position. */
const hugeJson = fc.oneof(
  fc.constantFrom(90_000, 101_000, 2_000_000).map((n) => JSON.stringify({ reason: 'x'.repeat(n) })),
  fc.constantFrom(30_000, 60_000).map((n) => JSON.stringify({ customer_name: '🚚'.repeat(n / 2) })),
  fc.constantFrom(20_000).map((n) => JSON.stringify(Object.fromEntries(Array.from({ length: n / 4 }, (_, i) => [`k${i}`, i])))),
);

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'application/json;charset=utf-16',
  'application/json; charset="utf-8"', 'application/json; boundary=x', 'application/vnd.api+json', 'application/merge-patch+json', 'text/json',
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=----x', 'application/json, text/plain', '*/*', 'application/*',
  'application', ';', 'application/json; charset=', 'application/json; charset=utf-8; charset=utf-16', 'application/xml', 'image/png',
];
const ENCODINGS = ['gzip', 'deflate', 'br', 'zstd', 'compress', 'identity', 'gzip, gzip', 'GZIP', 'x-gzip', 'chunked', '*', ''];

/** Header values fetch can carry (Latin-1, no CR/LF/NUL): junk of all kinds around credentials. */
const headerJunk = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }).map((s) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '')),
  fc.constantFrom('', ' ', 'null', 'undefined', 'Bearer', 'Bearer ', 'Bearer  ', 'bearer ak_test_', 'Basic YWs6', 'Bearer ak_live_x y', 'Digest x', 'Bearer ct_', 'ak_test_' + 'Z'.repeat(43), 'ct_' + 'Z'.repeat(43), '\u00e9\u00ff', '%00', '{"$ne": null}', 'a'.repeat(8_000)),
);

const REQUEST_HEADER_NAMES = ['authorization', 'x-api-key', 'x-test-mode', 'idempotency-key', 'x-request-id', 'x-forwarded-for', 'x-forwarded-proto', 'forwarded', 'x-shopify-hmac-sha256', 'x-shopify-shop-domain', 'accept', 'accept-encoding', 'origin', 'user-agent', 'x-plugin-version', 'x-site-url', 'range', 'if-none-match', 'expect'];
/** What fetch sends (it refuses TRACE, CONNECT and TRACK; the raw-socket property covers those). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'M-SEARCH', 'PURGE', 'LINK', 'QUERY'];

describe('fuzz: raw request text, headers, paths and methods', () => {
  let app: FuzzApp;
  let memoryBefore: ReturnType<typeof memorySnapshot>;
  let ops: Operation[];
  let rawCases = 0;

  beforeAll(async () => {
    app = await startFuzzApp();
    ops = app.operations;
    memoryBefore = memorySnapshot();
  });
  afterAll(async () => {
    console.log(`fuzz rest-requests: ${(app?.count() ?? 0) + rawCases} requests, ${rawCases} of them raw bytes on a socket (FUZZ_RUNS=${FUZZ_RUNS})`);
    await app?.t.stop();
  });

  const takesBody = (op: Operation) => op.method !== 'GET' && op.method !== 'DELETE';
  const exampleBody = (op: Operation) => JSON.stringify(op.body?.example ?? {});
  const anyOp = () => fc.constantFrom(...ops);
  const bodyOp = () => fc.constantFrom(...ops.filter(takesBody));

  /** One property over any operation: build the request from the operation, send it, check it. */
  async function fuzz<T>(share: number, opArb: fc.Arbitrary<Operation>, build: (op: Operation) => fc.Arbitrary<T>, toRequest: (op: Operation, v: T) => Parameters<FuzzApp['send']>[0]) {
    await fc.assert(
      fc.asyncProperty(opArb.chain((op) => build(op).map((v) => [op, v] as const)), async ([op, v]) => {
        const request = toRequest(op, v);
        expectRestAnswer(await app.send(request), describeRequest(request));
      }),
      fcParams(runsFor(share)),
    );
  }

  /** Bodies sent as application/json to the operations that take one, with real path values and a credential. */
  async function fuzzJsonBodies(share: number, bodies: (op: Operation) => fc.Arbitrary<string | Uint8Array<ArrayBuffer>>) {
    await fuzz(
      share,
      bodyOp(),
      (op) => fc.record({ body: bodies(op), values: pathValues(app, op), credential: credentialFor(app, op) }),
      (op, v) => ({ method: op.method, path: urlOf(app, op, v.values), headers: { ...v.credential, 'content-type': 'application/json' }, body: v.body }),
    );
  }

  it('malformed JSON text and non-UTF-8 bytes → 400/415 in the error shape', async () => {
    await fuzzJsonBodies(0.08, (op) => fc.oneof(malformedJson(op.body?.example ?? {}), junkBytes));
  }, timeoutFor(FUZZ_RUNS * 0.08));

  it('deep nesting (up to 50,000 levels) and huge strings → 4xx, never a crash', async () => {
    await fuzzJsonBodies(0.03, () => fc.oneof(deepJson, hugeJson));
  }, timeoutFor(FUZZ_RUNS * 0.03));

  it('Content-Type and Content-Encoding variants (corrupt compressed bodies included)', async () => {
    await fuzz(
      0.05,
      bodyOp(),
      (op) =>
        fc.record({
          type: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }),
          encoding: fc.option(fc.constantFrom(...ENCODINGS), { nil: undefined }),
          body: fc.oneof(fc.constant(exampleBody(op)), junkBytes),
          values: pathValues(app, op),
          credential: credentialFor(app, op),
        }),
      (op, v) => ({
        method: op.method,
        path: urlOf(app, op, v.values),
        headers: { ...v.credential, ...(v.type !== undefined && { 'content-type': v.type }), ...(v.encoding !== undefined && { 'content-encoding': v.encoding }) },
        body: v.body,
      }),
    );
  }, timeoutFor(FUZZ_RUNS * 0.05));

  it('junk in every request header (credentials, test mode, idempotency key, request id, forwarding)', async () => {
    await fuzz(
      0.1,
      anyOp(),
      (op) =>
        fc.record({
          headers: fc.dictionary(fc.constantFrom(...REQUEST_HEADER_NAMES), headerJunk, { minKeys: 1, maxKeys: 5 }),
          keepValidKey: fc.boolean(),
          values: pathValues(app, op),
        }),
      (op, v) => {
        const valid = op.auth === 'courier' ? app.courier.token : op.auth === 'admin' ? ADMIN_TOKEN : app.merchant.testKey;
        const headers: Record<string, string> = { ...(v.keepValidKey && { authorization: `Bearer ${valid}` }), ...v.headers };
        const hasBody = takesBody(op);
        if (hasBody) headers['content-type'] = 'application/json';
        // `expect` other than 100-continue is refused by node itself with a bare 417.
        delete headers.expect;
        return { method: op.method, path: urlOf(app, op, v.values), headers, ...(hasBody && { body: exampleBody(op) }) };
      },
    );
  }, timeoutFor(FUZZ_RUNS * 0.1));

  it('hostile path segments and query strings on every operation', async () => {
    const query = fc.oneof(
      fc.constant(''),
      fc.constantFrom('?limit=100000', '?limit=-1', '?limit=abc', '?limit=1e3', '?limit[]=1', '?limit=1&limit=2', '?status=xyz', '?status=new&status=new', '?after=%00',
        '?after=' + 'A'.repeat(3000), '?created_from=2024-13-01', '?created_to=yesterday', '?mode=live', '?mode=__proto__', '?prep_time_mins=NaN', '?__proto__[x]=1',
        '?constructor[prototype][polluted]=1', '?endpoint_id=%ED%A0%80', '?%=', '?&&&', '?a=' + '%25'.repeat(1000)),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 30 }), { maxKeys: 4 }).map((d) => `?${new URLSearchParams(d).toString()}`),
    );
    await fuzz(
      0.1,
      anyOp(),
      (op) =>
        fc.record({
          segments: fc.record(Object.fromEntries(op.pathParams.map((p) => [p, hostileSegment]))),
          query,
          suffix: fc.oneof({ arbitrary: fc.constant(''), weight: 4 }, { arbitrary: hostileSegment.map((s) => `/${s}`), weight: 1 }),
          credential: credentialFor(app, op),
        }),
      (op, v) => {
        const hasBody = takesBody(op);
        return {
          method: op.method,
          path: urlOf(app, op, v.segments as Record<string, string>) + v.suffix + v.query,
          headers: { ...v.credential, ...(hasBody && { 'content-type': 'application/json' }) },
          ...(hasBody && { body: exampleBody(op) }),
        };
      },
    );
  }, timeoutFor(FUZZ_RUNS * 0.1));

  it('random methods on every route, and random paths under /api/v1', async () => {
    await fuzz(
      0.05,
      anyOp(),
      (op) =>
        fc.record({
          method: fc.constantFrom(...METHODS),
          randomPath: fc.option(fc.array(hostileSegment, { minLength: 1, maxLength: 4 }), { nil: undefined }),
          values: pathValues(app, op),
          credential: credentialFor(app, op),
        }),
      (op, v) => ({
        method: v.method,
        path: v.randomPath ? `/api/v1/${v.randomPath.join('/')}` : urlOf(app, op, v.values),
        headers: v.credential,
      }),
    );
  }, timeoutFor(FUZZ_RUNS * 0.05));

  it('raw bytes on the socket (what fetch will not send): the server answers or closes, and keeps serving', async () => {
    const line = fc.oneof(
      fc.constantFrom(
        'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u0000ak\r\n\r\n',
        'GET /api/v1/merchants/me HTTP/1.1\r\nHost: x\r\nX-API-Key: \u00ff\u00fe\r\n\r\n',
        'POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a"',
        'POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n{}',
        'POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
        'POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        'GET /api/v1/orders/%00 HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET /api/v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET http://evil.example/api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
        'TRACE /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n',
        'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n',
        'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
        'GARBAGE\r\n\r\n',
        '\r\n\r\n\r\n',
        `GET /api/v1/orders/${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      ),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
      fc.tuple(fc.constantFrom('/api/v1/health', '/api/v1/orders', '/graphql', '/track/x'), fc.string({ unit: 'binary', maxLength: 80 })).map(
        ([path, junk]) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Junk: ${junk}\r\n\r\n`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(line, async (raw) => {
        rawCases++;
        const reply = await rawExchange(app.t.url, raw);
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(reply)?.[1];
        if (status) expect(Number(status), `${JSON.stringify(raw.slice(0, 120))} → ${reply.slice(0, 200)}`).toBeLessThan(500);
      }),
      fcParams(runsFor(0.02)),
    );
  }, timeoutFor(FUZZ_RUNS * 0.1));

  it('the app is intact afterwards: health answers, nothing logged at error level, no prototype pollution', async () => {
    await expectAppIntact(app);
  });

  it('memory stays bounded', () => {
    expectMemoryBounded(memoryBefore, 'fuzz rest-requests');
  });
});

/** Writes raw bytes to the server and returns what it answers before closing (or 0.5 s passing: an incomplete request waits). */
function rawExchange(url: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, 500);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One complete response is enough.
      if (/\r\n\r\n/.test(Buffer.concat(chunks).toString('latin1'))) setTimeout(done, 20);
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.write(Buffer.from(raw, 'latin1'));
  });
}
