/**
 * OWASP API4:2023 Unrestricted Resource Consumption. Bodies over 100 kB are refused on every
 * documented operation, on /graphql (declared or chunked) and on the GraphQL socket; GraphQL
 * depth, cost, alias, directive and token limits refuse a document before it runs; rate limits
 * answer 429 with their headers per key, per courier and per client IP (REST and GraphQL); the
 * tracking socket caps connections per IP and in all; list endpoints cap `limit` at 100.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ADMIN_TOKEN, api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { createCourier, expectError, expectOk, type CourierClient } from '../orders/support.js';
import { openLive, until } from '../realtime/support.js';
import { documentedOperations, pathWith, startSecurityApp } from './support.js';

const OVER_LIMIT = 'x'.repeat(101 * 1024);

/** A body streamed without Content-Length (chunked). */
function chunked(text: string): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const bytes = new TextEncoder().encode(text);
  return {
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 16 * 1024) controller.enqueue(bytes.slice(i, i + 16 * 1024));
        controller.close();
      },
    }),
    duplex: 'half',
  };
}

describe('API4: resource limits', () => {
  describe('body size, GraphQL document limits, list sizes', () => {
    let t: TestApp;
    let m: MerchantCredentials;
    let courier: CourierClient;
    beforeAll(async () => {
      t = await startSecurityApp();
      m = await t.createMerchant({ name: 'Limits Shop' });
      courier = await createCourier(t, { mode: 'test' });
    });
    afterAll(() => t?.stop());

    it('every documented operation with a body refuses one over 100 kB: 413 PAYLOAD_TOO_LARGE', async () => {
      const ops = documentedOperations().filter((op) => op.body);
      expect(ops.length).toBeGreaterThanOrEqual(18);
      for (const op of ops) {
        const path = op.pathParams.length ? pathWith(op, 'bk_00000000000000000000000000') : `/api/v1${op.path}`;
        const key = op.auth === 'courier' ? courier.token : op.auth === 'admin' ? ADMIN_TOKEN : m.testKey;
        const res = await api(`${t.url}${path}`, { method: op.method, key, body: { padding: OVER_LIMIT } });
        expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      }
    });

    it('a chunked REST body over 100 kB (no Content-Length) is refused too', async () => {
      const res = await fetch(`${t.url}/api/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${m.testKey}`, 'content-type': 'application/json' },
        ...chunked(JSON.stringify({ padding: OVER_LIMIT })),
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('/graphql refuses a body over 100 kB, declared or chunked (413, errors array), and still serves small ones', async () => {
      const big = JSON.stringify({ query: '{ viewer { mode } }', variables: { padding: OVER_LIMIT } });
      const headers = { authorization: `Bearer ${m.testKey}`, 'content-type': 'application/json' };
      for (const init of [{ body: big }, chunked(big)]) {
        const res = await fetch(`${t.url}/graphql`, { method: 'POST', headers, ...init } as RequestInit);
        expect(res.status).toBe(413);
        expect(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('PAYLOAD_TOO_LARGE');
      }
      const small = await fetch(`${t.url}/graphql`, { method: 'POST', headers, ...chunked(JSON.stringify({ query: '{ viewer { mode } }' })) } as RequestInit);
      expect(await small.json()).toEqual({ data: { viewer: { mode: 'test' } } });
    });

    it('the GraphQL socket closes a message over 100 kB (1009)', async () => {
      const ws = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      ws.on('error', () => {});
      await new Promise((resolve) => ws.on('open', resolve));
      ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${m.testKey}`, padding: OVER_LIMIT } }));
      expect(await closed).toBe(1009);
    });

    const node = 'id status customerName pickup { lat lng address } dropoff { lat lng } driver { id name currentLocation { lat lng } } events { sequence status at } proof { distanceM }';
    const BOMBS: Record<string, { query: string; refusal: RegExp }> = {
      'depth over 10': { query: `{ viewer { merchant { settings { ${'a { '.repeat(8)}b${' }'.repeat(8)} } } } }`, refusal: /depth limit of 10/i },
      'recursive introspection': { query: '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }', refusal: /introspection depth/i },
      'more than 15 aliases': { query: `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: viewer { mode }`).join(' ')} }`, refusal: /aliases/i },
      'more than 20 directives': { query: `{ viewer ${'@include(if: true) '.repeat(21)}{ mode } }`, refusal: /directives/i },
      'more than 2,000 tokens': { query: `{ viewer { ${'mode '.repeat(2_001)}} }`, refusal: /token/i },
      'cost over 20,000': { query: `{ orders(first: 100) { ... on QueryOrdersSuccess { data { nodes { ${node} } edges { node { ${node} } } } } } }`, refusal: /cost/i },
    };

    it.each(Object.keys(BOMBS))('GraphQL refuses a document with %s before running it (not 5xx)', async (name) => {
      const { query, refusal } = BOMBS[name]!;
      let resolved = 0;
      const spy = t.app.container.services.auth.assertMerchantAccess;
      t.app.container.services.auth.assertMerchantAccess = (...args) => {
        resolved++;
        return spy(...args);
      };
      try {
        const res = await gql(t.url, query, { key: m.testKey });
        expect(res.status).toBeLessThan(500);
        expect(res.body.data).toBeUndefined();
        expect(res.body.errors[0].message).toMatch(refusal);
        expect(resolved, 'a resolver ran').toBe(0);
      } finally {
        t.app.container.services.auth.assertMerchantAccess = spy;
      }
    });

    it('REST lists refuse limit over 100 (400) and accept 100', async () => {
      for (const path of ['/orders', '/webhooks/deliveries']) {
        expectError(await api(`${t.url}/api/v1${path}?limit=101`, { key: m.testKey }), 400, 'VALIDATION_ERROR');
        expectError(await api(`${t.url}/api/v1${path}?limit=100000`, { key: m.testKey }), 400, 'VALIDATION_ERROR');
        expectOk(await api(`${t.url}/api/v1${path}?limit=100`, { key: m.testKey }));
      }
    });

    it('GraphQL lists: orders and webhookDeliveries refuse first > 100; batches asks the store for at most 100 (and huge `first` fails the cost limit)', async () => {
      const orders = await gql(t.url, '{ orders(first: 101) { ... on AppError { code } } }', { key: m.testKey });
      expect(orders.body.data.orders).toEqual({ code: 'VALIDATION_ERROR' });
      const deliveries = await gql(t.url, '{ webhookDeliveries(first: 101) { ... on AppError { code } } }', { key: m.testKey });
      expect(deliveries.body.data.webhookDeliveries).toEqual({ code: 'VALIDATION_ERROR' });
      const asked: number[] = [];
      const list = t.app.container.store.batches.list;
      t.app.container.store.batches.list = (options) => {
        asked.push(options.limit);
        return list(options);
      };
      try {
        expect((await gql(t.url, '{ batches(first: 150) { id } }', { key: m.testKey })).body.errors).toBeUndefined();
      } finally {
        t.app.container.store.batches.list = list;
      }
      expect(asked).toEqual([100]);
    });

    it('admin listing is capped too (at 200, admin token only)', async () => {
      const asked: number[] = [];
      const list = t.app.container.store.merchants.list;
      t.app.container.store.merchants.list = (options) => {
        asked.push(options.limit);
        return list(options);
      };
      try {
        expect((await gql(t.url, '{ adminMerchants(limit: 1000000) { id } }', { key: ADMIN_TOKEN })).body.errors).toBeUndefined();
      } finally {
        t.app.container.store.merchants.list = list;
      }
      expect(asked).toEqual([200]);
    });
  });

  describe('rate limits', () => {
    let t: TestApp;
    let m: MerchantCredentials;
    let courier: CourierClient;
    beforeAll(async () => {
      t = await startSecurityApp({ RATE_LIMIT_PER_MIN: '3', COURIER_RATE_LIMIT_PER_MIN: '3', PUBLIC_RATE_LIMIT_PER_MIN: '3' });
      m = await t.createMerchant({ name: 'Rate Shop' });
      courier = await createCourier(t, { mode: 'test' });
    });
    afterAll(() => t?.stop());

    async function expectLimited(send: () => Promise<Response>, what: string) {
      for (let i = 0; i < 3; i++) {
        const res = await send();
        await res.arrayBuffer();
        expect(res.status, `${what} #${i + 1}`).not.toBe(429);
        expect(res.headers.get('ratelimit-limit'), what).toBe('3');
        expect(res.headers.get('ratelimit-remaining'), what).toBe(String(2 - i));
        expect(Number(res.headers.get('ratelimit-reset')), what).toBeGreaterThan(0);
      }
      const limited = await send();
      expect(limited.status, what).toBe(429);
      expect(Number(limited.headers.get('retry-after')), what).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-remaining'), what).toBe('0');
      return limited.json() as Promise<{ success?: boolean; error?: { code: string }; errors?: Array<{ extensions: { code: string } }> }>;
    }

    it('per API key (REST): 429 RATE_LIMITED with RateLimit-* and Retry-After', async () => {
      const body = await expectLimited(() => fetch(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Bearer ${m.liveKey}` } }), 'merchant key');
      expect(body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    });

    it('per API key (GraphQL): 429 with the same headers and RATE_LIMITED in the errors array', async () => {
      const body = await expectLimited(
        () => fetch(`${t.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${m.testKey}`, 'content-type': 'application/json' }, body: '{"query":"{ viewer { mode } }"}' }),
        'GraphQL key',
      );
      expect(body.errors![0]!.extensions.code).toBe('RATE_LIMITED');
    });

    it('per courier token', async () => {
      const body = await expectLimited(() => fetch(`${t.url}/api/v1/couriers/me`, { headers: { authorization: `Bearer ${courier.token}` } }), 'courier');
      expect(body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    });

    it('per client IP on public endpoints, and the tracking socket is refused when over (4429)', async () => {
      const ip = '203.0.113.7';
      const body = await expectLimited(() => fetch(`${t.url}/api/v1/tracking/NOPE`, { headers: { 'x-forwarded-for': ip } }), 'public tracking');
      expect((await fetch(`${t.url}/api/v1/health`, { headers: { 'x-forwarded-for': ip } })).status).toBe(429);
      expect(body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
      const client = openLive(t.url, 'NOPE', { headers: { 'x-forwarded-for': ip } });
      expect((await client.closed).code).toBe(4429);
      // Another client address is not affected.
      expect((await fetch(`${t.url}/api/v1/tracking/NOPE`, { headers: { 'x-forwarded-for': '203.0.113.8' } })).status).toBe(404);
    });
  });

  describe('tracking socket caps', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startSecurityApp({ MAX_SOCKETS_PER_ADDRESS: '2', TRACKING_MAX_SOCKETS: '3' });
    });
    afterAll(() => t?.stop());

    it('per IP: the third socket from one address is closed with 4429; the total cap closes with 1013', async () => {
      const opened = [];
      const from = (ip: string) => {
        const client = openLive(t.url, 'NOPE-REF', { headers: { 'x-forwarded-for': ip } });
        opened.push(client);
        return client;
      };
      // Unknown references are closed (4404) after admission; what matters is the refusal code.
      const first = [from('198.51.100.1'), from('198.51.100.1')];
      const third = from('198.51.100.1');
      expect((await third.closed).code).toBe(4429);
      await Promise.all(first.map((c) => c.closed));
      await until(() => t.app.trackingSockets.stats().sockets === 0, 'sockets to close');

      // Hold three slots (raw sockets that never answer the server's close frame keep theirs), then a fourth.
      const holders = await Promise.all(['198.51.100.2', '198.51.100.3', '198.51.100.4'].map((ip) => holdSlot(t.url, ip)));
      const fourth = from('198.51.100.5');
      expect((await fourth.closed).code).toBe(1013);
      for (const h of holders) h.destroy();
    });
  });
});

/** A raw upgrade that never answers the server's close frame: its connection slot stays taken until destroyed. */
async function holdSlot(url: string, ip: string) {
  const { connect } = await import('node:net');
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise((resolve) => socket.on('connect', resolve));
  socket.write(
    `GET /api/v1/tracking/NOPE-REF/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Forwarded-For: ${ip}\r\n\r\n`,
  );
  // Once the server has answered the upgrade its slot is reserved; the socket stays open.
  await new Promise((resolve) => socket.once('data', resolve));
  return socket;
}
