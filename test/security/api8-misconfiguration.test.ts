/**
 * OWASP API8:2023 Security Misconfiguration. Security headers on every API response (REST and
 * GraphQL, success and error), the tracking page's and the reference page's own CSPs, no
 * X-Powered-By anywhere, no credentialed CORS, and errors that never show internals: a store that
 * throws a driver error gives a generic 500 (REST) / INTERNAL_ERROR (GraphQL) while the log keeps
 * the detail with the request id.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectOk, formA, merchantApi } from '../orders/support.js';
import { startSecurityApp } from './support.js';

const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

function expectApiHeaders(headers: Headers, what: string): void {
  for (const [name, value] of Object.entries(API_HEADERS)) expect(headers.get(name), `${what}: ${name}`).toBe(value);
  expect(headers.get('x-powered-by'), what).toBeNull();
}

function memoryLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  return { stream, text: () => lines.join('\n') };
}

describe('API8: security misconfiguration', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let tracking: string;
  const log = memoryLog();

  beforeAll(async () => {
    t = await startSecurityApp({}, { logger: createLogger({ level: 'info', destination: log.stream }) });
    m = await t.createMerchant({ name: 'Headers Shop' });
    tracking = expectOk(await merchantApi(t, m.testKey).create(formA()), 201).body.tracking_number;
  });
  afterAll(() => t?.stop());

  it('REST responses carry the security headers, on success and on every kind of error', async () => {
    const cases: Array<[string, Parameters<typeof api>[1]]> = [
      ['/api/v1/merchants/me', { key: m.testKey }],
      ['/api/v1/merchants/me', {}],
      ['/api/v1/nope', { key: m.testKey }],
      ['/api/v1/orders', { key: m.testKey, rawBody: '{', headers: { 'content-type': 'application/json' } }],
      ['/api/v1/orders', { key: m.testKey, body: { padding: 'x'.repeat(110_000) } }],
      ['/api/v1/health', {}],
      ['/api/v1/openapi.json', {}],
      [`/api/v1/tracking/${tracking}`, {}],
    ];
    for (const [path, init] of cases) {
      const res = await api(`${t.url}${path}`, init);
      expectApiHeaders(res.headers, `${path} (${res.status})`);
    }
  });

  it('GraphQL responses carry them too: success, errors, refusals', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${m.testKey}`, ...headers }, body });
    const answers = [
      await post('{"query":"{ viewer { mode } }"}'),
      await post('{"query":"{ nope }"}'),
      await post('{"query":"{ viewer { mode } }"}', { authorization: 'Bearer ak_test_wrong' }),
      await post('not json'),
      await post(JSON.stringify({ query: '{ viewer { mode } }', variables: { x: 'x'.repeat(110_000) } })),
      await post('x', { 'content-type': 'image/png' }),
    ];
    for (const res of answers) {
      await res.arrayBuffer();
      expectApiHeaders(res.headers, `/graphql (${res.status})`);
    }
  });

  it('the tracking page, the reference page and GraphiQL have their own CSP, still framing-proof and nosniff', async () => {
    const pages = [
      { path: `/track/${tracking}`, accept: 'text/html', script: true },
      { path: '/api/v1/docs', accept: 'text/html', script: true },
      { path: '/graphql', accept: 'text/html', script: false },
    ];
    for (const page of pages) {
      const res = await fetch(`${t.url}${page.path}`, { headers: { accept: page.accept } });
      expect(res.status, page.path).toBe(200);
      expect(res.headers.get('content-type'), page.path).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, page.path).toContain("frame-ancestors 'none'");
      if (page.script) {
        expect(csp, page.path).toContain("default-src 'none'");
        expect(csp, page.path).toContain("script-src 'self'");
        expect(csp, page.path).not.toContain('unsafe-inline');
        expect(csp, page.path).not.toContain('unsafe-eval');
      }
      expect(res.headers.get('x-content-type-options'), page.path).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), page.path).toBe('DENY');
      await res.arrayBuffer();
    }
  });

  it('no response anywhere says X-Powered-By', async () => {
    const paths = ['/', '/metrics', '/track/assets/track.js', '/track/NOPE', '/api/v1/docs/assets/docs-init.js', '/graphql', '/api/v1/nope', '/nope'];
    for (const path of paths) {
      const res = await fetch(`${t.url}${path}`);
      await res.arrayBuffer();
      expect(res.headers.get('x-powered-by'), path).toBeNull();
    }
  });

  it('no credentialed CORS: REST answers no CORS headers to a foreign origin; GraphQL never allows credentials', async () => {
    const origin = { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' };
    for (const method of ['OPTIONS', 'GET']) {
      const rest = await fetch(`${t.url}/api/v1/merchants/me`, { method, headers: { ...origin, authorization: `Bearer ${m.testKey}` } });
      await rest.arrayBuffer();
      expect(rest.headers.get('access-control-allow-origin'), `REST ${method}`).toBeNull();
    }
    for (const method of ['OPTIONS', 'POST']) {
      const res = await fetch(`${t.url}/graphql`, { method, headers: { ...origin, 'content-type': 'application/json' }, ...(method === 'POST' && { body: '{"query":"{ __typename }"}' }) });
      await res.arrayBuffer();
      expect(res.headers.get('access-control-allow-credentials'), `GraphQL ${method}`).toBeNull();
    }
  });

  describe('internal errors show nothing of the internals', () => {
    const DETAIL = 'SQLITE_CORRUPT: database disk image is malformed (orders_by_ref idx) at /var/lib/exd/data.db';
    let restore: () => void;
    beforeAll(() => {
      const orders = t.app.container.store.orders;
      const original = orders.findByAnyId;
      orders.findByAnyId = async () => {
        throw Object.assign(new Error(DETAIL), { code: 'SQLITE_CORRUPT' });
      };
      restore = () => {
        orders.findByAnyId = original;
      };
    });
    afterAll(() => restore());

    it('REST: a generic 500 INTERNAL_ERROR with a request id; the log has the driver message, its stack and that id', async () => {
      const res = await api(`${t.url}/api/v1/orders/${tracking}`, { key: m.testKey, headers: { 'x-request-id': 'api8-internal-1' } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
      const text = JSON.stringify(res.body);
      for (const leak of ['SQLITE', 'malformed', 'data.db', 'findByAnyId', 'orders_by_ref', ' at ', '.ts:', 'node_modules']) expect(text, leak).not.toContain(leak);
      expect(res.headers.get('x-request-id')).toBe('api8-internal-1');
      expectApiHeaders(res.headers, 'the 500');
      const logged = log.text().split('\n').find((line) => line.includes('api8-internal-1') && line.includes(DETAIL));
      expect(logged, 'a log line with the request id and the driver message').toBeDefined();
      expect(logged).toMatch(/"stack":"Error: SQLITE_CORRUPT/);
    });

    it('GraphQL: INTERNAL_ERROR "Unexpected error." with no detail; the log has it', async () => {
      const res = await gql(t.url, `{ order(id: "${tracking}") { ... on AppError { code } ... on QueryOrderSuccess { data { id } } } }`, { key: m.testKey });
      expect(res.status).toBe(200);
      expect(res.body.errors).toEqual([expect.objectContaining({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_ERROR' } })]);
      const text = JSON.stringify(res.body);
      for (const leak of ['SQLITE', 'malformed', 'data.db', 'stack']) expect(text, leak).not.toContain(leak);
      expect(log.text()).toContain('graphql resolver failed');
      expect(log.text().split('\n').some((line) => line.includes('graphql resolver failed') && line.includes(DETAIL))).toBe(true);
    });

    it('a thrown non-Error value is as generic', async () => {
      const orders = t.app.container.store.orders;
      const failing = orders.findByAnyId;
      orders.findByAnyId = async () => {
        throw 'raw string with /etc/secret-path';
      };
      try {
        const res = await api(`${t.url}/api/v1/orders/${tracking}`, { key: m.testKey });
        expect(res.status).toBe(500);
        expect(JSON.stringify(res.body)).not.toContain('secret-path');
      } finally {
        orders.findByAnyId = failing;
      }
    });
  });
});
