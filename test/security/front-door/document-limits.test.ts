import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../../helpers/app.js';
import { createCourier, startOrdersApp, type CourierClient } from '../../orders/support.js';
import { codesOf, HOSTILE_DOCUMENTS, wsClient } from './support.js';

/**
 * The same document limits, masking and budgets over GraphQL HTTP and graphql-ws: the socket runs
 * through Yoga's envelop, so nothing HTTP refuses runs over the socket.
 */
describe('abuse: GraphQL over HTTP and over WebSocket apply the same rules', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let courier: CourierClient;
  const sockets: Array<ReturnType<typeof wsClient>> = [];
  const socket = (params?: Record<string, unknown>) => {
    const s = wsClient(t.url, params);
    sockets.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await startOrdersApp({ env: { COURIER_RATE_LIMIT_PER_MIN: '4', RATE_LIMIT_PER_MIN: '1000000' } });
    shop = await t.createMerchant({ name: 'Limits Shop' });
    courier = await createCourier(t, { mode: 'test' });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.dispose()));
    await t.stop();
  });

  for (const [name, document] of Object.entries(HOSTILE_DOCUMENTS)) {
    it(`refuses the ${name} document on both transports, with the same errors`, async () => {
      const overHttp = await gql(t.url, document, { key: shop.testKey });
      expect(overHttp.body.data ?? null).toBeNull();
      const httpMessages = (overHttp.body.errors as Array<{ message: string }>).map((e) => e.message);
      expect(httpMessages.length).toBeGreaterThan(0);

      const overSocket = await socket({ authorization: `Bearer ${shop.testKey}` }).run(document);
      expect(overSocket.results.filter((r) => r.data)).toEqual([]);
      expect(overSocket.errors.map((e) => e.message)).toEqual(httpMessages);
    });
  }

  it('variables nested deeper than 8 levels are a VALIDATION_ERROR on both transports', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i++) deep = { deep };
    const query = 'query ($v: String) { __typename }';
    const overHttp = await gql(t.url, query, { key: shop.testKey, variables: { v: deep } as Record<string, unknown> });
    expect(overHttp.status).toBe(400);
    expect(codesOf(overHttp.body)).toEqual(['VALIDATION_ERROR']);
    expect(codesOf(await socket({ authorization: `Bearer ${shop.testKey}` }).run(query, { v: deep }))).toEqual(['VALIDATION_ERROR']);
  });

  it('a refusal in a resolver is presented the same way over the socket (code, message, path)', async () => {
    const query = '{ viewer { mode } }';
    const overHttp = await gql(t.url, query);
    const overSocket = await socket().run(query);
    expect(codesOf(overSocket)).toEqual(['INVALID_API_KEY']);
    const strip = (errors: Array<{ message: string; path?: unknown; extensions?: { code?: string } }>) => errors.map((e) => [e.message, e.path, e.extensions?.code]);
    expect(strip(overSocket.results.flatMap((r) => (r.errors ?? []) as never[]))).toEqual(strip(overHttp.body.errors));
  });

  it('couriers draw from their budget on GraphQL too: HTTP and socket operations share it', async () => {
    const query = '{ __typename }';
    const first = await gql(t.url, query, { key: courier.token });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('4');
    const c = socket({ authorization: `Bearer ${courier.token}` });
    expect(codesOf(await c.run(query))).toEqual([]);
    expect(codesOf(await c.run(query))).toEqual([]);
    expect((await gql(t.url, query, { key: courier.token })).status).toBe(200);
    // Four operations taken: the fifth is refused on either transport.
    const refusedHttp = await gql(t.url, query, { key: courier.token });
    expect(refusedHttp.status).toBe(429);
    expect(refusedHttp.headers.get('retry-after')).not.toBeNull();
    expect(codesOf(await c.run(query))).toEqual(['RATE_LIMITED']);
  });
});
