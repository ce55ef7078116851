import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, makeDataDir, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { acquireRedis } from '../helpers/redis.js';

type Response = Awaited<ReturnType<typeof api>>;

const me = (url: string, key: string) => api(`${url}/api/v1/merchants/me`, { key });

/** Sends n sequential requests and returns the responses. */
async function burst(n: number, send: () => Promise<Response>): Promise<Response[]> {
  const out: Response[] = [];
  for (let i = 0; i < n; i++) out.push(await send());
  return out;
}

function expectRateLimited(res: Response, limit: number): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: expect.any(String) } });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
}

function expectHeaders(res: Response, limit: number, remaining: number): void {
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
  expect(res.headers.get('retry-after')).toBeNull();
}

/** The per-key cases, run against the in-memory limiter and against Redis. */
function perKeySuite(getApp: () => TestApp) {
  it('120 requests a minute pass with RateLimit-* headers; the 121st is 429 RATE_LIMITED with Retry-After', async () => {
    const t = getApp();
    const m = await t.createMerchant();
    const passed = await burst(120, () => me(t.url, m.liveKey));
    passed.forEach((res, i) => {
      expect(res.status).toBe(200);
      expectHeaders(res, 120, 119 - i);
    });
    expectRateLimited(await me(t.url, m.liveKey), 120);
    // Either header style counts against the same key.
    expectRateLimited(await api(`${t.url}/api/v1/merchants/me`, { headers: { 'x-api-key': m.liveKey } }), 120);
  });

  it('counts per key: another merchant and the same merchant in the other mode still pass', async () => {
    const t = getApp();
    const m = await t.createMerchant();
    const other = await t.createMerchant();
    await burst(120, () => me(t.url, m.testKey));
    expectRateLimited(await me(t.url, m.testKey), 120);

    const otherRes = await me(t.url, other.testKey);
    expect(otherRes.status).toBe(200);
    expectHeaders(otherRes, 120, 119);
    const liveRes = await me(t.url, m.liveKey);
    expect(liveRes.status).toBe(200);
    expectHeaders(liveRes, 120, 119);
  });

  it('a rotated key starts a new count (limits follow the key id)', async () => {
    const t = getApp();
    const m = await t.createMerchant();
    await burst(121, () => me(t.url, m.testKey));
    const { apiKey } = await t.app.container.services.admin.rotateApiKey({ input: { merchantId: m.merchantId, mode: 'test' } });
    const res = await me(t.url, apiKey);
    expect(res.status).toBe(200);
    expectHeaders(res, 120, 119);
  });
}

describe('rate limits, in-memory limiter', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '5', TRUST_PROXY: '127.0.0.1,::1' } });
  });
  afterAll(() => t.stop());

  perKeySuite(() => t);

  it('the per-merchant override (admin setMerchantRateLimit) changes the limit, for both keys', async () => {
    const m = await t.createMerchant();
    await t.app.container.services.admin.setMerchantRateLimit({ input: { merchantId: m.merchantId, perMin: 3 } });
    const passed = await burst(3, () => me(t.url, m.liveKey));
    passed.forEach((res, i) => {
      expect(res.status).toBe(200);
      expectHeaders(res, 3, 2 - i);
    });
    expect(passed[0]!.body.merchant.rate_limit_per_min).toBe(3);
    expectRateLimited(await me(t.url, m.liveKey), 3);
    expect((await me(t.url, m.testKey)).headers.get('ratelimit-limit')).toBe('3');

    const raised = await t.createMerchant();
    await t.app.container.services.admin.setMerchantRateLimit({ input: { merchantId: raised.merchantId, perMin: 200 } });
    const many = await burst(150, () => me(t.url, raised.liveKey));
    expect(many.every((r) => r.status === 200)).toBe(true);
    expectHeaders(many[149]!, 200, 50);
  });

  it('GraphQL calls count against the same per-key budget', async () => {
    const m = await t.createMerchant();
    await t.app.container.services.admin.setMerchantRateLimit({ input: { merchantId: m.merchantId, perMin: 2 } });
    expect((await me(t.url, m.liveKey)).status).toBe(200);
    const gqlRes = await api(`${t.url}/graphql`, { key: m.liveKey, body: { query: '{ viewer { mode } }' } });
    expect(gqlRes.status).toBe(200);
    expect(gqlRes.headers.get('ratelimit-remaining')).toBe('0');
    expectRateLimited(await me(t.url, m.liveKey), 2);
    const refused = await api(`${t.url}/graphql`, { key: m.liveKey, body: { query: '{ viewer { mode } }' } });
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });

  it('public /health is limited per client IP (PUBLIC_RATE_LIMIT_PER_MIN)', async () => {
    // TRUST_PROXY names the loopback peer, so X-Forwarded-For from the test client names the client IP.
    const health = (ip: string) => api(`${t.url}/api/v1/health`, { headers: { 'x-forwarded-for': ip } });
    const passed = await burst(5, () => health('203.0.113.7'));
    passed.forEach((res, i) => {
      expect(res.status).toBe(200);
      expectHeaders(res, 5, 4 - i);
    });
    expectRateLimited(await health('203.0.113.7'), 5);
    const otherIp = await health('198.51.100.9');
    expect(otherIp.status).toBe(200);
    expectHeaders(otherIp, 5, 4);
  });
});

const { redis, skipReason } = await acquireRedis();

describe.skipIf(!redis)(`rate limits, Redis limiter${redis ? '' : ` (${skipReason})`}`, () => {
  const redisUrl = redis?.url ?? '';
  const dataDir = makeDataDir();
  let a: TestApp;
  let b: TestApp;

  /** The Redis client refuses commands until connected (no offline queue); wait so the shared store is used. */
  async function redisReady(t: TestApp): Promise<void> {
    const client = t.app.container.redis!;
    if (client.status !== 'ready') await once(client, 'ready');
  }

  beforeAll(async () => {
    // Two app instances on one SQLite file and one redis-server: two nodes of one deployment.
    a = await startTestApp({ dataDir, env: { REDIS_URL: redisUrl } });
    b = await startTestApp({ dataDir, env: { REDIS_URL: redisUrl } });
    await Promise.all([redisReady(a), redisReady(b)]);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  perKeySuite(() => a);

  it('two instances share the count: 60 on A + 60 on B, then the 121st on either is 429', async () => {
    const m: MerchantCredentials = await a.createMerchant();
    const onA = await burst(60, () => me(a.url, m.liveKey));
    const onB = await burst(60, () => me(b.url, m.liveKey));
    expect([...onA, ...onB].every((r) => r.status === 200)).toBe(true);
    expectHeaders(onB[0]!, 120, 59);
    expectHeaders(onB[59]!, 120, 0);
    expectRateLimited(await me(a.url, m.liveKey), 120);
    expectRateLimited(await me(b.url, m.liveKey), 120);
    // The other mode's key is a separate count on both nodes.
    expect((await me(b.url, m.testKey)).status).toBe(200);
  });
});
