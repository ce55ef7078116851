/**
 * The outbox survives a crash, and leases keep several app processes from sending one attempt
 * twice: real child processes (src/main.ts) on one SQLite file in a shared DATA_DIR.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildContainer } from '../../src/container.js';
import { createLogger } from '../../src/logger.js';
import { api, makeDataDir, type MerchantCredentials } from '../helpers/app.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { freePort } from '../helpers/redis.js';
import { expectOk, formA } from '../orders/support.js';
import { allDeliveries, startReceiver, waitFor, webhooksApi, type Receiver } from './support.js';

/** Retries after ~60 ms, 300 ms, 900 ms, 1.8 s …; a 1 s timeout (lease 3 s); loopback receivers allowed in test mode. */
const ENV = {
  WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCALE: '0.001',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '1000',
  RATE_LIMIT_PER_MIN: '1000000',
};

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A DATA_DIR with one merchant, created through the admin service on the same store the processes will open. */
async function prepareDataDir(): Promise<{ dataDir: string; merchant: MerchantCredentials }> {
  const dataDir = makeDataDir();
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, SEED_DEMO: 'false' }), { logger: createLogger({ level: 'silent' }) });
  try {
    const merchant = await container.services.admin.createMerchant({ input: { name: 'Durable Merchant', address: 'Av. Providencia 1234, Providencia' } });
    return { dataDir, merchant };
  } finally {
    await container.close();
  }
}

async function spawnApp(dataDir: string): Promise<ServerProcess> {
  const server = await spawnServer({ ...ENV, DATA_DIR: dataDir });
  cleanup.push(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.kill();
  });
  return server;
}

async function createOrder(url: string, key: string): Promise<string> {
  return expectOk(await api(`${url}/api/v1/orders`, { key, body: formA() }), 201).body.booking_id as string;
}

async function trackReceiver(receiver: Receiver): Promise<Receiver> {
  cleanup.push(() => receiver.close());
  return receiver;
}

describe('webhook durability', () => {
  it('deliveries pending when the app is SIGKILLed are all delivered after it starts again', async () => {
    const { dataDir, merchant } = await prepareDataDir();
    const port = await freePort(); // the receiver is down: nothing listens here yet
    const first = await spawnApp(dataDir);
    expectOk(await webhooksApi(first.url, merchant.testKey).create({ url: `http://127.0.0.1:${port}/hooks` }), 201);

    const bookings: string[] = [];
    for (let i = 0; i < 10; i++) bookings.push(await createOrder(first.url, merchant.testKey));
    // Every one has failed at least once (connection refused) and waits for its retry.
    await waitFor(async () => {
      const log = await allDeliveries(webhooksApi(first.url, merchant.testKey));
      return log.length === 10 && log.every((d) => d.status === 'pending' && d.attempts >= 1 && d.last_status_code === null);
    });
    // Five more, and the process dies at once: some may be mid-claim or mid-attempt.
    for (let i = 0; i < 5; i++) bookings.push(await createOrder(first.url, merchant.testKey));
    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');

    const receiver = await trackReceiver(await startReceiver({ port }));
    const second = await spawnApp(dataDir);
    const hooks = webhooksApi(second.url, merchant.testKey);
    const log = await waitFor(
      async () => {
        const all = await allDeliveries(hooks);
        return all.length === 15 && all.every((d) => d.status === 'delivered') && all;
      },
      { timeoutMs: 30_000, what: 'all 15 deliveries delivered after the restart' },
    );
    const acknowledged = receiver.acknowledged();
    expect(new Set(acknowledged.map((r) => r.id)).size).toBe(acknowledged.length);
    expect(acknowledged.map((r) => r.id).sort()).toEqual(log.map((d) => d.id).sort());
    expect(acknowledged.map((r) => JSON.parse(r.body).booking_id).sort()).toEqual([...bookings].sort());
  }, 60_000);

  it('two app processes on one SQLite file, both running the worker, send each attempt exactly once', async () => {
    const { dataDir, merchant } = await prepareDataDir();
    const receiver = await trackReceiver(await startReceiver());
    // Every delivery fails once, then succeeds: two attempts each, both contended by the two workers.
    receiver.respond((_r, previous) => (previous.length === 0 ? 500 : 200));
    const a = await spawnApp(dataDir);
    const b = await spawnApp(dataDir);
    expectOk(await webhooksApi(a.url, merchant.testKey).create({ url: `${receiver.url}/hooks` }), 201);

    const bookings = (
      await Promise.all(Array.from({ length: 15 }, () => Promise.all([createOrder(a.url, merchant.testKey), createOrder(b.url, merchant.testKey)])))
    ).flat();
    const hooks = webhooksApi(b.url, merchant.testKey);
    const log = await waitFor(
      async () => {
        const all = await allDeliveries(hooks);
        return all.length === 30 && all.every((d) => d.status === 'delivered') && all;
      },
      { timeoutMs: 30_000, what: 'all 30 deliveries delivered' },
    );
    expect(log.map((d) => d.payload.booking_id).sort()).toEqual([...bookings].sort());
    for (const d of log) {
      // Exactly one request per attempt: the failed first one, then the successful retry.
      expect(receiver.of(d.id).map((r) => r.status), d.id).toEqual([500, 200]);
      expect(d.attempts).toBe(2);
      const detail = expectOk(await hooks.delivery(d.id)).body;
      expect(detail.attempts.map((x: { attempt: number; status_code: number }) => [x.attempt, x.status_code])).toEqual([
        [1, 500],
        [2, 200],
      ]);
    }
    expect(receiver.receipts).toHaveLength(60);
    // Both processes are still healthy.
    for (const server of [a, b]) expect((await api(`${server.url}/api/v1/health`)).status).toBe(200);
  }, 60_000);
});
