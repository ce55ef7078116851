import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildContainer } from '../../src/container.js';
import { api } from '../helpers/app.js';
import { jongodbBinary, startJongodb, type MongoServer } from '../helpers/mongo.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { hasRedisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis.js';
import { quoteBody, sleep } from './support.js';

const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');
const binary = jongodbBinary();
const reason = !binary ? 'no jongodb binary' : hasRedisServerBinary() ? '' : 'no redis-server on PATH';

/** Answers within `budgetMs`, or fails the step (a hang is the defect under test). */
async function timed<T>(what: string, call: () => Promise<T>, budgetMs = 2000): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await Promise.race([call(), sleep(budgetMs + 3000).then(() => Promise.reject(new Error(`${what}: no answer`)))]);
  const ms = Date.now() - started;
  expect(ms, `${what} answered in ${ms} ms`).toBeLessThan(budgetMs);
  return { value, ms };
}

/**
 * A paused MongoDB (jongodb stopped with SIGSTOP: connections stay open and nothing answers) and a
 * paused Redis, under two real app processes in distributed mode. Every request answers within
 * 2 s: 503 SERVICE_UNAVAILABLE with Retry-After where the store is needed, 200 for quotes; a node
 * stopped with SIGTERM meanwhile exits within its grace; after SIGCONT the nodes recover on their own.
 */
describe.skipIf(reason !== '')(`MongoDB and Redis paused under two nodes${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let mongo: MongoServer;
  let redis: RedisServer;
  let nodes: ServerProcess[] = [];
  let key: string;
  let orderId: string;
  const figures: Record<string, number> = {};

  beforeAll(async () => {
    mongo = await startJongodb(binary!);
    redis = await startRedisServer();
    const env = { MONGODB_URL: mongo.url, MONGODB_DB: 'exd_faults', REDIS_URL: redis.url, MASTER_KEY, SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', SHUTDOWN_GRACE_MS: '500', PUBLIC_RATE_LIMIT_PER_MIN: '1000000' };
    const seeder = await buildContainer(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    const shop = await seeder.services.admin.createMerchant({ input: { name: 'Fault Shop', address: 'Av. Providencia 1234, Providencia' } });
    await seeder.services.admin.setMerchantRateLimit({ input: { merchantId: shop.merchantId, perMin: 1_000_000 } });
    await seeder.close();
    key = shop.testKey;
    nodes = await Promise.all([spawnServer(env), spawnServer(env)]);
  }, 60_000);
  afterAll(async () => {
    mongo?.process?.kill('SIGCONT');
    redis?.process?.kill('SIGCONT');
    await Promise.all(nodes.map((node) => (node.child.exitCode === null && node.child.signalCode === null ? node.terminate() : null)));
    await mongo?.stop();
    await redis?.stop();
    console.info(`mongo-faults figures (ms): ${JSON.stringify(figures)}`);
  });

  const [first] = [() => nodes[0]!];

  it('before the fault: orders and quotes answer', async () => {
    const created = await api(`${first().url}/api/v1/orders`, { key, body: { pickup: { address: 'Av. Providencia 1234', coords: quoteBody.origin.coords }, dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: quoteBody.destination.coords }, customer_name: 'Ana Pérez', customer_phone: '+56912345678' } });
    expect(created.status).toBe(201);
    orderId = created.body.booking_id;
    expect((await api(`${first().url}/api/v1/shipping/quote`, { key, body: quoteBody })).status).toBe(200);
  });

  it('MongoDB paused: store requests 503 with Retry-After within 2 s, quotes 200, health 503', async () => {
    mongo.process!.kill('SIGSTOP');
    const list = await timed('GET /orders', () => api(`${first().url}/api/v1/orders`, { key }));
    expect(list.value.status).toBe(503);
    expect(list.value.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(list.value.headers.get('retry-after')).toMatch(/^\d+$/);
    figures.ordersWhileMongoPaused = list.ms;
    const read = await timed('GET /orders/{id}', () => api(`${first().url}/api/v1/orders/${orderId}`, { key }));
    expect(read.value.status).toBe(503);
    const quote = await timed('POST /shipping/quote', () => api(`${first().url}/api/v1/shipping/quote`, { key, body: quoteBody }));
    expect(quote.value.status).toBe(200);
    figures.quoteWhileMongoPaused = quote.ms;
    const health = await timed('GET /health', () => api(`${first().url}/api/v1/health`));
    expect(health.value.status).toBe(503);
  });

  it('MongoDB paused: SIGTERM exits within its grace', async () => {
    const second = nodes[1]!;
    const started = Date.now();
    const code = await second.terminate();
    figures.sigtermWhileMongoPaused = Date.now() - started;
    expect(code).toBe(0);
    expect(figures.sigtermWhileMongoPaused).toBeLessThan(500 + 3000);
  });

  it('MongoDB resumed: the node recovers on its own', async () => {
    mongo.process!.kill('SIGCONT');
    const started = Date.now();
    for (;;) {
      const res = await api(`${first().url}/api/v1/orders`, { key });
      if (res.status === 200) break;
      expect(Date.now() - started).toBeLessThan(15_000);
      await sleep(100);
    }
    figures.mongoRecovery = Date.now() - started;
  });

  it('Redis paused: every request still answers within 2 s (quotes and store reads 200)', async () => {
    redis.process!.kill('SIGSTOP');
    try {
      const quote = await timed('POST /shipping/quote', () => api(`${first().url}/api/v1/shipping/quote`, { key, body: quoteBody }));
      expect(quote.value.status).toBe(200);
      const read = await timed('GET /orders/{id}', () => api(`${first().url}/api/v1/orders/${orderId}`, { key }));
      expect(read.value.status).toBe(200);
      figures.readWhileRedisPaused = read.ms;
    } finally {
      redis.process!.kill('SIGCONT');
    }
  });
});
