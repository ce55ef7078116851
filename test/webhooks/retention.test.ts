/**
 * Retention with the app running: the pruning job (one node, by lease) removes webhook deliveries
 * past WEBHOOK_RETENTION_DAYS with their attempts, and the events of orders that are over past
 * ORDER_EVENTS_RETENTION_DAYS, while active orders keep theirs. Retention is shrunk to seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupSqliteStore } from '../../src/adapters/sqlite/backup.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { loadConfig } from '../../src/config.js';
import { createRetention, RETENTION_LEASE } from '../../src/domain/retention.js';
import { SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { makeDataDir, type TestApp } from '../helpers/app.js';
import { expectOk, formA, merchantApi, startOrdersApp } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi } from './support.js';

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** 3 seconds, in days. */
const THREE_SECONDS = String(3 / 86_400);

describe('retention', () => {
  it('prunes old deliveries (with attempts) and the events of old orders that are over; active orders keep theirs', async () => {
    const t: TestApp = await startWebhooksApp({ WEBHOOK_RETENTION_DAYS: THREE_SECONDS, ORDER_EVENTS_RETENTION_DAYS: THREE_SECONDS, RETENTION_PRUNE_MS: '1000' });
    cleanup.push(() => t.stop());
    const r = await startReceiver();
    cleanup.push(() => r.close());
    const m = await t.createMerchant({ name: 'Retention' });
    const hooks = webhooksApi(t.url, m.testKey);
    const orders = merchantApi(t, m.testKey);
    expectOk(await hooks.create({ url: `${r.url}/kept-for-a-while` }), 201);

    const over = expectOk(await orders.create(formA()), 201).body.booking_id as string;
    expectOk(await orders.cancel(over));
    const active = expectOk(await orders.create(formA()), 201).body.booking_id as string;
    await waitFor(() => r.receipts.length >= 3, { what: 'the three webhooks' });
    const deliveries = expectOk(await hooks.deliveries()).body.deliveries as Array<{ id: string }>;
    expect(deliveries).toHaveLength(3);
    const { store } = t.app.container;
    expect(await store.webhooks.listAttempts(deliveries[0]!.id)).toHaveLength(1);

    // Within a few pruning periods after they are 3 s old: the log is empty, the attempts are gone.
    await waitFor(async () => (expectOk(await hooks.deliveries()).body.deliveries as unknown[]).length === 0, { what: 'the pruned log' });
    for (const d of deliveries) expect(await store.webhooks.listAttempts(d.id)).toEqual([]);
    await waitFor(async () => (expectOk(await orders.events(over)).body.events as unknown[]).length === 0, { what: 'the pruned events' });
    // The order that is over is still there; the active one keeps its history.
    expect(expectOk(await orders.get(over)).body.status).toBe('cancelled');
    expect((expectOk(await orders.events(active)).body.events as unknown[]).length).toBeGreaterThan(0);
  });

  it('runs on one node at a time: another owner does not prune while the lease is held', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exd-retention-'));
    const store = createSqliteStore({ file: join(dir, 'store.sqlite') });
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanup.push(() => store.close());
    const node = () => createRetention({ store, clock: { now: () => new Date() }, webhookMs: 60_000, orderEventsMs: 60_000 });
    const [a, b] = [node(), node()];
    expect(await a.pruneIfLeader({ owner: 'node-a', leaseMs: 60_000 })).toEqual({ deliveries: 0, orderEvents: 0, leases: 0, quotes: 0, feedEvents: 0, idempotentWrites: 0, members: 0, notifications: 0, operators: 0, audit: 0, proofs: 0, unusedProofs: 0, proofBudgets: 0, courierSessions: 0, freedPages: 0 });
    expect(await b.pruneIfLeader({ owner: 'node-b', leaseMs: 60_000 })).toBeNull();
    expect(await a.pruneIfLeader({ owner: 'node-a', leaseMs: 60_000 })).not.toBeNull();
    await store.leases.release({ name: RETENTION_LEASE, owner: 'node-a' });
    expect(await b.pruneIfLeader({ owner: 'node-b', leaseMs: 60_000 })).not.toBeNull();
  });

  it('a node that crashed holding the lease (never renewed) is replaced after one lease length (JOB_LEASE_MS), not three periods', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exd-retention-'));
    const store = createSqliteStore({ file: join(dir, 'store.sqlite') });
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanup.push(() => store.close());
    // One period is an hour: three of them (the old lease) would be three hours.
    const config = loadConfig({ DATA_DIR: dir, RETENTION_PRUNE_MS: '3600000', JOB_LEASE_MS: '400' });
    expect(config.retention.leaseMs).toBe(400);
    const node = () => createRetention({ store, clock: { now: () => new Date() }, webhookMs: 60_000, orderEventsMs: 60_000 });
    // The crashed node took the lease as its runner does, then never renewed it (no heartbeat).
    expect(await store.leases.acquire({ name: RETENTION_LEASE, owner: 'node-a', ttlMs: config.retention.leaseMs })).toBe(true);
    const b = node();
    expect(await b.pruneIfLeader({ owner: 'node-b', leaseMs: config.retention.leaseMs })).toBeNull();
    await waitFor(async () => (await b.pruneIfLeader({ owner: 'node-b', leaseMs: config.retention.leaseMs })) !== null, { what: 'node-b taking the abandoned lease', timeoutMs: 10_000 });
    expect(await store.leases.acquire({ name: RETENTION_LEASE, owner: 'node-a', ttlMs: 400 })).toBe(false);
  });

  it('a backup (the copy a restore starts from) holds no lease of the nodes that ran on the original', async () => {
    const dataDir = makeDataDir();
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const store = createSqliteStore({ file: join(dataDir, SQLITE_FILE_NAME) });
    expect(await store.leases.acquire({ name: RETENTION_LEASE, owner: 'node-a', ttlMs: 3_600_000 })).toBe(true);
    expect(await store.leases.acquire({ name: 'dispatch-reconciler', owner: 'node-a', ttlMs: 3_600_000 })).toBe(true);
    await store.close();
    const backup = backupSqliteStore({ dataDir, outDir: join(dataDir, 'backup'), keyInDataDir: false });
    const names = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare("SELECT name FROM leases WHERE owner <> 'slot' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
      } finally {
        db.close();
      }
    };
    expect(names(backup.file)).toEqual([]);
    expect(names(join(dataDir, SQLITE_FILE_NAME))).toEqual(['dispatch-reconciler', RETENTION_LEASE]);
    // Restored, a node takes the retention lease at once.
    const restored = createSqliteStore({ file: backup.file });
    cleanup.push(() => restored.close());
    expect(await restored.leases.acquire({ name: RETENTION_LEASE, owner: 'node-new', ttlMs: 60_000 })).toBe(true);
  });

  it('gives its lease up when the app stops: a new instance on the same store prunes at its first period, not three periods later', async () => {
    const dataDir = makeDataDir();
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // One period is an hour: only the run at start-up happens within this test.
    const env = { ORDER_EVENTS_RETENTION_DAYS: String(0.2 / 86_400), RETENTION_PRUNE_MS: '3600000' };
    const holder = () => {
      const db = new Database(join(dataDir, SQLITE_FILE_NAME), { readonly: true });
      try {
        return (db.prepare('SELECT owner FROM leases WHERE name = ?').get(RETENTION_LEASE) as { owner: string } | undefined)?.owner ?? null;
      } finally {
        db.close();
      }
    };
    const first = await startOrdersApp({ dataDir, env });
    await waitFor(() => holder() !== null, { what: 'the first instance taking the retention lease' });
    const m = await first.createMerchant({ name: 'Restart' });
    const orders = merchantApi(first, m.testKey);
    const over = expectOk(await orders.create(formA()), 201).body.booking_id as string;
    expectOk(await orders.cancel(over));
    expect((await first.app.container.store.orders.listEvents(over)).length).toBeGreaterThan(0);
    await first.stop();
    expect(holder()).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the events are past their 0.2 s retention

    const second = await startOrdersApp({ dataDir, env });
    cleanup.push(() => second.stop());
    await waitFor(async () => (await second.app.container.store.orders.listEvents(over)).length === 0, { what: 'the restarted node pruning', timeoutMs: 10_000 });
    expect(holder()).not.toBeNull();
  });
});

