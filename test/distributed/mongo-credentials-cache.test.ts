import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import { isAppError } from '../../src/domain/errors.js';
import { mongoForTestFile, mongoNodeEnv, uniqueDbName, type MongoServer } from '../helpers/mongo.js';
import { hasRedisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis.js';

const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
const { mongo, skipReason } = await mongoForTestFile();
const reason = !mongo ? skipReason : hasRedisServerBinary() ? '' : 'no redis-server on PATH';

/**
 * MongoDB mode remembers valid API keys for CREDENTIAL_CACHE_MS, and a revocation made on one node
 * reaches every node's cache at once through the Redis bus. Two containers (two nodes) on one
 * MongoDB database and one real redis-server.
 */
describe.skipIf(reason !== '')(`MongoDB credentials cache across nodes${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let redis: RedisServer;
  let a: Container;
  let b: Container;
  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { ...mongoNodeEnv(mongo as MongoServer), MONGODB_DB: uniqueDbName('exd_cred_cache'), REDIS_URL: redis.url, MASTER_KEY, LOG_LEVEL: 'silent', SEED_DEMO: 'false', CREDENTIAL_CACHE_MS: '30000' };
    a = await buildContainer(loadConfig(env));
    b = await buildContainer(loadConfig(env));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
    await mongo?.stop();
  });

  const authenticate = (node: Container, apiKey: string) =>
    node.services.auth.authenticateApiKey({ apiKey }).then(
      (principal) => principal.merchant.id,
      (error: unknown) => (isAppError(error) ? error.code : Promise.reject(error)),
    );

  it('a key is remembered (a change written behind the service is not seen within the cache time)', async () => {
    const shop = await a.services.admin.createMerchant({ input: { name: 'Cache Shop' } });
    expect(await authenticate(b, shop.testKey)).toBe(shop.merchantId);
    // Revoked straight in the store, as nothing in the service would: node B still answers from its cache.
    await a.store.apiKeys.revoke({ merchantId: shop.merchantId, mode: 'test', revokedAt: new Date().toISOString() });
    expect(await authenticate(b, shop.testKey)).toBe(shop.merchantId);
  });

  it('a revocation through the admin service is refused on the other node at once, not after the cache time', async () => {
    const shop = await a.services.admin.createMerchant({ input: { name: 'Revoked Shop' } });
    expect(await authenticate(b, shop.liveKey)).toBe(shop.merchantId);
    expect(await authenticate(a, shop.liveKey)).toBe(shop.merchantId);
    const started = Date.now();
    await a.services.admin.revokeApiKeys({ input: { merchantId: shop.merchantId, mode: 'live' } });
    expect(await authenticate(a, shop.liveKey)).toBe('INVALID_API_KEY');
    for (;;) {
      if ((await authenticate(b, shop.liveKey)) === 'INVALID_API_KEY') break;
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });

  it('a suspension reaches the other node at once too', async () => {
    const shop = await a.services.admin.createMerchant({ input: { name: 'Suspended Shop' } });
    const principal = await b.services.auth.authenticateApiKey({ apiKey: shop.testKey });
    expect(principal.merchant.status).toBe('active');
    await a.services.admin.setMerchantStatus({ input: { merchantId: shop.merchantId, status: 'suspended' } });
    const started = Date.now();
    for (;;) {
      const now = await b.services.auth.authenticateApiKey({ apiKey: shop.testKey });
      if (now.merchant.status === 'suspended') break;
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
});
