import { describe, expect, it } from 'vitest';
import { serveGraphQLHttp } from '../../schema/http.js';
import { createGraphQLHttp } from '../../schema/yoga.js';
import { expectJsonApiHeaders, fastAndPlainSides, startEdgeServer } from '../helpers/fast-path-sides.js';

/**
 * The node:http fast path (schema/fast-http.ts) answers as Yoga does: two servers, one with the
 * fast path and one without, each on its own store with the same ids and a frozen clock, get the
 * same requests in the same order; status, headers (all but Date) and body must be the same.
 */
interface Side {
  url: string;
  key: string;
  limitedKey: string;
  fastPathed: () => number;
  stop(): Promise<void>;
}

async function startSide(fastPath: boolean): Promise<Side> {
  let handle: ReturnType<typeof createGraphQLHttp>['handle'] | undefined;
  const server = await startEdgeServer((edge) => {
    handle = createGraphQLHttp(edge, { fastPath }).handle;
    return (req, res) => serveGraphQLHttp(handle!, req, res);
  });
  const { admin } = server;
  const shop = await admin.createMerchant({ input: { name: 'Fast Shop', address: 'Av. Providencia 1234, Providencia' } });
  const limited = await admin.createMerchant({ input: { name: 'Limited Shop', address: 'Av. Providencia 1234, Providencia' } });
  await admin.setMerchantRateLimit({ input: { merchantId: limited.merchantId, perMin: 3 } });
  return {
    url: `${server.url}/graphql`,
    key: shop.testKey,
    limitedKey: limited.testKey,
    fastPathed: () => (handle && 'fastPathed' in handle ? handle.fastPathed : 0),
    stop: server.stop,
  };
}

const QUOTE = `query Quote($input: QuoteInput!) {
  quote(input: $input) {
    __typename
    ... on QueryQuoteSuccess { data { quoteId price currency expiresAt rates { id cost } } }
    ... on AppError { code message }
  }
}`;
const INPUT = { destination: { address: 'Av. Apoquindo 4501, depto 1203, Las Condes' }, totalWeightKg: 2.5, packageType: 'box' };

interface Call {
  name: string;
  method?: string;
  query?: string;
  headers?: Record<string, string>;
  /** A key of the side's (`key`, `limitedKey`) sent as Bearer. */
  as?: 'key' | 'limitedKey';
  body?: unknown;
  /** Sent as it is (not JSON-encoded). */
  raw?: string;
}

async function send(side: Side, call: Call) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(call.as && { authorization: `Bearer ${side[call.as]}` }), ...call.headers };
  const res = await fetch(`${side.url}${call.query ?? ''}`, {
    method: call.method ?? 'POST',
    headers,
    ...((call.method ?? 'POST') === 'POST' && { body: call.raw ?? JSON.stringify(call.body) }),
  });
  const seen = [...res.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive' && name !== 'connection');
  return { status: res.status, headers: Object.fromEntries(seen), body: await res.text() };
}

const quote = (extra: Record<string, unknown> = {}) => ({ query: QUOTE, variables: { input: INPUT }, ...extra });

/** In order: the document is compiled after its second successful run; later calls may take the fast path. */
const CALLS: Call[] = [
  { name: 'first run (interpreted)', as: 'key', body: quote() },
  { name: 'second run (compiles)', as: 'key', body: quote() },
  { name: 'success', as: 'key', body: quote() },
  { name: 'success, with its operation name', as: 'key', body: quote({ operationName: 'Quote' }) },
  { name: 'graphql-response+json', as: 'key', body: quote(), headers: { accept: 'application/graphql-response+json' } },
  { name: 'both JSON types', as: 'key', body: quote(), headers: { accept: 'application/graphql-response+json, application/json;q=0.9' } },
  { name: 'cross-origin (CORS)', as: 'key', body: quote(), headers: { origin: 'https://shop.example.com' } },
  { name: 'variables error', as: 'key', body: { query: QUOTE, variables: { input: { destination: 42 } } } },
  { name: 'variables missing', as: 'key', body: { query: QUOTE } },
  { name: 'variables nested too deep', as: 'key', body: quote({ extensions: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }) },
  { name: 'unknown parameter', as: 'key', body: quote({ extra: true }) },
  { name: 'variables not an object', as: 'key', body: { query: QUOTE, variables: [1] } },
  { name: 'unauthenticated', body: quote() },
  { name: 'unknown key', body: quote(), headers: { authorization: 'Bearer sk_test_nope' } },
  { name: 'session cookie without the CSRF header', body: quote(), headers: { cookie: 'exd_session=abc' } },
  { name: 'ended session cookie, with the CSRF header', body: quote(), headers: { cookie: 'exd_session=abc', 'x-graphql-csrf': '1' } },
  { name: 'rate-limited 1', as: 'limitedKey', body: quote() },
  { name: 'rate-limited 2', as: 'limitedKey', body: quote() },
  { name: 'rate-limited 3', as: 'limitedKey', body: quote() },
  { name: 'rate-limited 4 (refused)', as: 'limitedKey', body: quote() },
  { name: 'validation error', as: 'key', body: { query: '{ quote { nope } }' } },
  { name: 'a mutation', as: 'key', body: { query: 'mutation { __typename }' } },
  { name: 'batched', as: 'key', body: [quote()] },
  { name: 'wrong content type', as: 'key', raw: JSON.stringify(quote()), headers: { 'content-type': 'text/plain' } },
  { name: 'content type in capitals', as: 'key', raw: JSON.stringify(quote()), headers: { 'content-type': 'Application/JSON' } },
  { name: 'malformed JSON', as: 'key', raw: '{"query": ' },
  { name: 'JSON that is not an object', as: 'key', raw: '"query"' },
  { name: 'byte-order mark', as: 'key', raw: `\ufeff${JSON.stringify(quote())}` },
  { name: 'oversized body', as: 'key', body: quote({ extensions: { pad: 'x'.repeat(110 * 1024) } }) },
  { name: 'GET query', as: 'key', method: 'GET', query: `?query=${encodeURIComponent(QUOTE)}&variables=${encodeURIComponent(JSON.stringify({ input: INPUT }))}` },
  { name: 'query string on a POST', as: 'key', query: '?x=1', body: quote() },
  { name: 'event stream only', as: 'key', body: quote(), headers: { accept: 'text/event-stream' } },
  { name: 'nothing acceptable', as: 'key', body: quote(), headers: { accept: 'text/html' } },
  { name: 'success after all that', as: 'key', body: quote() },
];

describe('GraphQL fast path: the same answers as Yoga', () => {
  const { fast, plain: yoga } = fastAndPlainSides(startSide);

  it('every request: same status, headers and body, with or without the fast path', async () => {
    for (const call of CALLS) {
      const [a, b] = [await send(fast(), call), await send(yoga(), call)];
      expect(a, call.name).toEqual(b);
    }
    expect(yoga().fastPathed()).toBe(0);
    // Taken by the 18 calls after the second with the compiled document, POSTed as JSON to /graphql, JSON accepted; the rest went to Yoga.
    expect(fast().fastPathed()).toBe(18);
  });

  it('the fast path answers a success with the rate-limit, security and content headers', async () => {
    const before = fast().fastPathed();
    const res = await send(fast(), { name: 'success', as: 'key', body: quote() });
    expect(fast().fastPathed()).toBe(before + 1);
    expect(res.status).toBe(200);
    expectJsonApiHeaders(res);
    expect(JSON.parse(res.body)).toMatchObject({ data: { quote: { __typename: 'QueryQuoteSuccess', data: { currency: 'CLP' } } } });
  });
});
