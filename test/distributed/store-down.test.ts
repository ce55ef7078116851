import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { api } from '../helpers/app.js';
import type { ServerProcess } from '../helpers/process.js';
import { errorLogs, expectStatus, healthOf, orderBody, PLACES, quoteBody, startCluster, until, withDeadline, type Cluster } from './support.js';

/**
 * "Store down" in embedded mode: another process holds the SQLite file's write lock (BEGIN
 * EXCLUSIVE: a stuck writer, a backup tool). WAL readers are never blocked, so reads keep
 * answering; every write waits busy_timeout (5 s in src/adapters/sqlite/database.ts), then fails
 * with SQLITE_BUSY. The lock is held long enough for one write to time out, and no longer.
 */
const BUSY_TIMEOUT_MS = 5000;
const LOCK_MS = BUSY_TIMEOUT_MS + 2500;

describe('store down (SQLite file locked by another process): 503, no crash, recovery on its own', () => {
  let cluster: Cluster;
  let node: ServerProcess;
  let existing: string;
  let locker: Database.Database | null = null;
  let lockedAt = 0;
  let releaseTimer: NodeJS.Timeout | undefined;

  const release = () => {
    clearTimeout(releaseTimer);
    if (locker?.inTransaction) locker.exec('ROLLBACK');
    locker?.close();
    locker = null;
  };

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 1, couriers: 0, redis: false });
    node = cluster.nodes[0]!;
  });
  afterAll(async () => {
    release();
    await cluster?.stop();
  });

  const shop = (path: string, body?: unknown) => api(`${node.url}/api/v1${path}`, { key: cluster.shop.testKey, ...(body !== undefined && { body }) });

  it('step 1: baseline: writes, reads and /health ok', async () => {
    existing = expectStatus(await shop('/orders', orderBody(PLACES.santiago)), 201).body.booking_id;
    expect(await healthOf(node)).toMatchObject({ status: 200, body: { status: 'ok', checks: { store: 'ok' } } });
  });

  it('step 2: another connection takes the exclusive lock: /health reports the store down with 503', async () => {
    locker = new Database(join(cluster.dataDir, SQLITE_FILE_NAME));
    locker.exec('BEGIN EXCLUSIVE');
    lockedAt = Date.now();
    // Released on its own, whatever happens to the assertions below.
    releaseTimer = setTimeout(release, LOCK_MS);
    const health = await healthOf(node);
    expect(health).toMatchObject({ status: 503, body: { success: false, status: 'down', checks: { store: 'down' } } });
  });

  it('step 3: while locked: a write answers 503 SERVICE_UNAVAILABLE in the error shape; reads and quotes keep answering', async () => {
    const write = await withDeadline(shop('/orders', orderBody(PLACES.santiago)), LOCK_MS, 'the write under the lock');
    expect(Date.now() - lockedAt).toBeLessThan(LOCK_MS); // answered while the lock was still held
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBe('5');
    expect(write.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
    expectStatus(await shop(`/orders/${existing}`), 200);
    expectStatus(await shop('/shipping/quote', quoteBody), 200);
    expect(node.child.exitCode).toBeNull();
  });

  it('step 4: lock released: writes succeed and /health is ok again, without a restart', async () => {
    await until(() => locker === null, 'the lock to be released', LOCK_MS + 1000, 50);
    await until(async () => (await shop('/orders', orderBody(PLACES.santiago))).status === 201, 'a write to succeed again', 10_000, 100);
    await until(async () => (await healthOf(node)).status === 200, '/health to answer 200 again', 10_000, 100);
    expect(await healthOf(node)).toMatchObject({ status: 200, body: { status: 'ok', checks: { store: 'ok' } } });
    expect(node.child.exitCode).toBeNull();
    expect(errorLogs(node)).toEqual([]);
  });
});
