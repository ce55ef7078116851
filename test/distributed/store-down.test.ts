import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { api } from '../helpers/app.js';
import type { ServerProcess } from '../helpers/process.js';
import { errorLogs, expectStatus, healthOf, orderBody, PLACES, sleep, startCluster, until, withDeadline, type Cluster } from './support.js';

/**
 * "Store down" in embedded mode: another process (this test's) holds the SQLite file's write lock
 * with BEGIN IMMEDIATE (a stuck writer, a `sqlite3` shell, a backup tool). WAL readers are never
 * blocked; a write waits for the lock off the node's event loop (STORE_TIMEOUT_MS, 1.5 s here),
 * then answers 503. So reads and /health answer at once meanwhile, before the waiting write does;
 * on a node that waited on its event loop (busy_timeout 5 s) they answered after it, 5 s later.
 */
const LOCK_MS = 8000;

describe('store locked by another process: reads and /health answer at once, writes 503, recovery on its own', () => {
  let cluster: Cluster;
  let node: ServerProcess;
  const acknowledged: string[] = [];
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
    cluster = await startCluster({ nodes: 1, couriers: 0, redis: false, env: { STORE_TIMEOUT_MS: '1500' } });
    node = cluster.nodes[0]!;
  });
  afterAll(async () => {
    release();
    await cluster?.stop();
  });

  const shop = (path: string, body?: unknown) => api(`${node.url}/api/v1${path}`, { key: cluster.shop.testKey, ...(body !== undefined && { body }) });
  const create = async () => {
    const res = expectStatus(await shop('/orders', orderBody(PLACES.santiago)), 201);
    acknowledged.push(res.body.booking_id as string);
  };

  it('step 1: baseline: writes, reads and /health ok', async () => {
    await create();
    expect(await healthOf(node)).toMatchObject({ status: 200, body: { status: 'ok', checks: { store: 'ok' } } });
  });

  it('step 2: another process takes the write lock: /health answers 200 degraded, naming the lock', async () => {
    locker = new Database(join(cluster.dataDir, SQLITE_FILE_NAME));
    locker.exec('BEGIN IMMEDIATE');
    lockedAt = Date.now();
    // Released on its own, whatever happens to the assertions below.
    releaseTimer = setTimeout(release, LOCK_MS);
    const health = await healthOf(node);
    expect(Date.now() - lockedAt).toBeLessThan(LOCK_MS);
    expect(health).toMatchObject({ status: 200, body: { success: true, status: 'degraded', checks: { store: 'degraded' } } });
    expect((health.body as { reasons?: Record<string, string> }).reasons).toEqual({ store: 'another process holds the database write lock' });
  });

  it('step 3: while locked: a waiting write holds nobody up (reads and /health sent after it answer first); it answers 503 with Retry-After', async () => {
    const answered: string[] = [];
    const track = <T>(name: string, request: Promise<T>) => request.then((res) => (answered.push(name), res));
    const write = track('write', shop('/orders', orderBody(PLACES.santiago)));
    await sleep(150); // the write is waiting for the lock in the node by now
    const [read, list, health] = await Promise.all([
      track('read', shop(`/orders/${acknowledged[0]}`)),
      track('list', shop('/orders?limit=5')),
      track('health', healthOf(node)),
    ]);
    const refused = await withDeadline(write, LOCK_MS, 'the write under the lock');
    expect(Date.now() - lockedAt).toBeLessThan(LOCK_MS); // everything answered while the lock was still held
    expect(answered.indexOf('write')).toBe(3);
    expectStatus(read, 200);
    expectStatus(list, 200);
    expect(health.body.status).toBe('degraded');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
    expect(node.child.exitCode).toBeNull();
  });

  it('step 4: lock released: writes succeed and /health is ok again without a restart; every acknowledged order is there', async () => {
    await until(() => locker === null, 'the lock to be released', LOCK_MS + 1000, 50);
    await until(async () => (await shop('/orders', orderBody(PLACES.santiago))).status === 201, 'a write to succeed again', 10_000, 100);
    await create();
    expect(await healthOf(node)).toMatchObject({ status: 200, body: { status: 'ok', checks: { store: 'ok' } } });
    for (const id of acknowledged) expectStatus(await shop(`/orders/${id}`), 200);
    expect(node.child.exitCode).toBeNull();
    expect(errorLogs(node)).toEqual([]);
  });
});
