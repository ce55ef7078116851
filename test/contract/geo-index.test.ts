import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryGeoIndex } from '../../src/adapters/geo-index/memory.js';
import { createRedisGeoIndex } from '../../src/adapters/geo-index/redis.js';
import { acquireRedis, freePort } from '../helpers/redis.js';
import { describeGeoIndexContract } from './geo-index.contract.js';

describeGeoIndexContract('memory', async () => createMemoryGeoIndex());

const { redis: server, skipReason } = await acquireRedis();

/** Connected as the container connects: no offline queue, one retry per request. */
async function connect(url: string): Promise<Redis> {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve);
    client.once('error', reject);
  });
  return client;
}

if (!server) {
  describe('CourierGeoIndex contract: redis', () => {
    it.skip(`skipped: ${skipReason}`, () => {});
  });
} else {
  // A unique prefix per file run and per case, so cases and a shared REDIS_URL never collide.
  const filePrefix = `test:geo:${randomUUID()}`;
  let client: Redis;
  let n = 0;

  beforeAll(async () => {
    client = await connect(server.url);
  });
  afterAll(async () => {
    const keys = await client.keys(`${filePrefix}:*`);
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
    await server.stop();
  });

  describeGeoIndexContract('redis', async () => createRedisGeoIndex({ redis: client, keyPrefix: `${filePrefix}:${++n}` }));

  describe('CourierGeoIndex redis: Redis unreachable', () => {
    it('upsert, remove and nearest reject instead of waiting', async () => {
      const port = await freePort();
      const down = new Redis(`redis://127.0.0.1:${port}`, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
      down.on('error', () => {});
      try {
        const index = createRedisGeoIndex({ redis: down, keyPrefix: `${filePrefix}:down` });
        const location = { lat: -33.4175, lng: -70.6067 };
        await expect(index.upsert({ courierId: 'c', mode: 'live', vehicle: 'car', location })).rejects.toThrow();
        await expect(index.remove({ courierId: 'c', mode: 'live', vehicle: 'car' })).rejects.toThrow();
        await expect(index.nearest({ mode: 'live', vehicles: ['car', 'bike'], point: location, limit: 5 })).rejects.toThrow();
      } finally {
        down.disconnect();
      }
    });
  });
}
