/**
 * Crash during order-creation load: every order the service acknowledged exists after a restart,
 * and no request — retried with its idempotency key, as a client would — produces a second order.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { api, makeDataDir, type MerchantCredentials } from '../helpers/app.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { formB } from '../orders/support.js';

const CLIENTS = 8;
const env = (dataDir: string) => ({ DATA_DIR: dataDir, RATE_LIMIT_PER_MIN: '1000000', LOG_LEVEL: 'info' });

describe('SIGKILL during order creation load', () => {
  let dataDir: string;
  let merchant: MerchantCredentials;
  let node: ServerProcess;
  /** idempotency key → booking id, for every create the server answered 200/201. */
  const acknowledged = new Map<string, string>();
  const sent: string[] = [];

  beforeAll(async () => {
    dataDir = makeDataDir();
    const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false' }));
    merchant = await container.services.admin.createMerchant({ input: { name: 'Crash Shop', address: 'Av. Providencia 1234, Providencia' } });
    await container.close();
    node = await spawnServer(env(dataDir));
  });
  afterAll(async () => {
    if (node.child.exitCode === null && node.child.signalCode === null) await node.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('step 1: clients create orders concurrently, each with its own idempotency key, until the process is SIGKILLed', async () => {
    let stop = false;
    const client = async (c: number) => {
      for (let i = 0; !stop && i < 10_000; i++) {
        const key = `crash-${c}-${i}`;
        sent.push(key);
        try {
          const res = await api(`${node.url}/api/v1/orders`, { key: merchant.testKey, headers: { 'idempotency-key': key }, body: formB({ order_notes: key }) });
          if (res.status === 200 || res.status === 201) acknowledged.set(key, res.body.booking_id as string);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    await new Promise((r) => setTimeout(r, 1500));
    await node.kill();
    stop = true;
    await Promise.all(clients);
    expect(acknowledged.size).toBeGreaterThan(20);
  });

  it('step 2: after a restart every acknowledged order exists, with the booking id it was acknowledged with', async () => {
    node = await spawnServer(env(dataDir));
    for (const [key, bookingId] of acknowledged) {
      const res = await api(`${node.url}/api/v1/orders/${bookingId}`, { key: merchant.testKey });
      expect(res.status, key).toBe(200);
      expect(res.body.order_notes).toBe(key);
    }
  });

  it('step 3: retrying every request with its key creates nothing twice (acknowledged ones answer 200 with the same order)', async () => {
    const byKey = new Map<string, string>();
    for (const key of sent) {
      const res = await api(`${node.url}/api/v1/orders`, { key: merchant.testKey, headers: { 'idempotency-key': key }, body: formB({ order_notes: key }) });
      expect([200, 201], key).toContain(res.status);
      if (acknowledged.has(key)) {
        expect(res.status, key).toBe(200);
        expect(res.body.booking_id).toBe(acknowledged.get(key));
      }
      byKey.set(key, res.body.booking_id as string);
    }
    // Exactly one order per key: the merchant's order list holds each booking id once, and nothing else.
    const listed: string[] = [];
    let after: string | undefined;
    do {
      const page = await api(`${node.url}/api/v1/orders?limit=100${after ? `&after=${after}` : ''}`, { key: merchant.testKey });
      listed.push(...page.body.orders.map((o: { booking_id: string }) => o.booking_id));
      after = page.body.next_cursor ?? undefined;
    } while (after);
    expect(new Set(listed).size).toBe(listed.length);
    expect(new Set(listed)).toEqual(new Set(byKey.values()));
  });
});
