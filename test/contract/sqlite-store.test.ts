import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { withCoalescedLocations } from '../../src/adapters/coalesced-locations.js';
import { courier, merchantBundle } from './fixtures.js';
import { describeStoreContract } from './store.contract.js';

// A real SQLite file on disk per case (WAL mode, migrations applied), not ':memory:'.
const dir = mkdtempSync(join(tmpdir(), 'exd-store-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite (file on disk)', async () => createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }));
// The batching position writer must keep every promise of the port (read-your-writes included).
describeStoreContract('sqlite behind the coalescing position writer', async () =>
  withCoalescedLocations(createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }), { flushMs: 20, onFlushError: (error) => { throw error; } }).store,
);

describe('sqlite credentialsVersion across connections', () => {
  it('moves when another connection (another process) commits, and not on reads', async () => {
    const file = join(dir, 'shared.sqlite');
    const mine = createSqliteStore({ file });
    const theirs = createSqliteStore({ file });
    try {
      const before = mine.credentialsVersion();
      expect(before).not.toBeNull();
      await mine.merchants.count();
      expect(mine.credentialsVersion()).toBe(before);
      await theirs.merchants.create(merchantBundle());
      expect(mine.credentialsVersion()).not.toBe(before);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });
});

describe('sqlite migration of couriers stored before accounts could be disabled', () => {
  it('gives every existing courier the active account status, keeping the rest', async () => {
    const file = join(dir, 'legacy-couriers.sqlite');
    const legacy = courier();
    const { accountStatus: _, ...before } = legacy;
    const db = new Database(file);
    const upTo = MIGRATIONS.findIndex((m) => m.includes('$.accountStatus'));
    for (const migration of MIGRATIONS.slice(0, upTo)) db.exec(migration);
    db.pragma(`user_version = ${upTo}`);
    db.prepare('INSERT INTO couriers (id, mode, token_hash, status, doc) VALUES (?, ?, ?, ?, ?)').run(legacy.id, legacy.mode, legacy.tokenHash, legacy.status, JSON.stringify(before));
    db.close();
    const store = createSqliteStore({ file });
    try {
      expect(await store.couriers.findByTokenHash(legacy.tokenHash)).toStrictEqual(legacy);
    } finally {
      await store.close();
    }
  });
});

describe('sqlite migration of couriers stored before shifts had a planned end (issue #37)', () => {
  it('gives every existing courier a null shiftEndsAt, keeping the rest', async () => {
    const file = join(dir, 'legacy-shift-couriers.sqlite');
    const legacy = courier({ status: 'available' });
    const { shiftEndsAt: _, ...before } = legacy;
    const db = new Database(file);
    const upTo = MIGRATIONS.findIndex((m) => m.includes('$.shiftEndsAt'));
    for (const migration of MIGRATIONS.slice(0, upTo)) db.exec(migration);
    db.pragma(`user_version = ${upTo}`);
    db.prepare('INSERT INTO couriers (id, mode, token_hash, status, doc) VALUES (?, ?, ?, ?, ?)').run(legacy.id, legacy.mode, legacy.tokenHash, legacy.status, JSON.stringify(before));
    db.close();
    const store = createSqliteStore({ file });
    try {
      expect(await store.couriers.findById(legacy.id)).toStrictEqual(legacy);
      const stored = new Database(file, { readonly: true });
      const doc = stored.prepare<[string], { doc: string }>('SELECT doc FROM couriers WHERE id = ?').get(legacy.id)!.doc;
      stored.close();
      expect(JSON.parse(doc)).toHaveProperty('shiftEndsAt', null);
    } finally {
      await store.close();
    }
  });
});

describe('sqlite migration to fewer B-trees per order (issue #18 item 4)', () => {
  it('keeps every idempotency key, history event and feed event, and drops the id indexes', async () => {
    const file = join(dir, 'before-fewer-btrees.sqlite');
    const db = new Database(file);
    const upTo = MIGRATIONS.findIndex((m) => m.includes('idempotency_keys_v2'));
    for (const migration of MIGRATIONS.slice(0, upTo)) db.exec(migration);
    db.pragma(`user_version = ${upTo}`);
    const at = '2026-11-26T10:00:00.000Z';
    db.pragma('foreign_keys = OFF'); // an order without its merchant row: only the order's events are checked here
    db.prepare('INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?, ?)').run('m_1', 'test', 'key-1', 'hash-1', 'bk_1', at, '2026-11-27T10:00:00.000Z');
    db.prepare(
      "INSERT INTO orders (id, merchant_id, mode, order_number, tracking_number, status, vehicle_type, pickup_geohash, created_at, doc) VALUES ('bk_1', 'm_1', 'test', '1000000001', 'EXD-0000-0000-0001', 'new', 'motorcycle', '66jc', ?, '{}')",
    ).run(at);
    db.prepare('INSERT INTO order_events (id, order_id, sequence, doc) VALUES (?, ?, ?, ?)').run('evt_1', 'bk_1', 1, JSON.stringify({ id: 'evt_1', orderId: 'bk_1', sequence: 1 }));
    const feedEvent = { id: 'evt_1', merchantId: 'm_1', mode: 'test', type: 'order.status_changed', orderId: 'bk_1', sequence: 1, body: '{}', at };
    db.prepare('INSERT INTO event_feed VALUES (?, ?, ?, ?, ?, ?)').run('m_1', 'test', 1, 'evt_1', at, JSON.stringify(feedEvent));
    db.close();

    const store = createSqliteStore({ file });
    try {
      expect(await store.orders.listEvents('bk_1')).toEqual([{ id: 'evt_1', orderId: 'bk_1', sequence: 1 }]);
      expect(await store.events.list({ merchantId: 'm_1', mode: 'test', after: 0, limit: 10 })).toEqual([{ ...feedEvent, position: 1 }]);
    } finally {
      await store.close();
    }
    const after = new Database(file, { readonly: true });
    try {
      expect(after.prepare('SELECT key, request_hash FROM idempotency_keys').all()).toEqual([{ key: 'key-1', request_hash: 'hash-1' }]);
      const sqlOf = (name: string) => String(after.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name));
      expect(sqlOf('idempotency_keys')).toMatch(/WITHOUT ROWID/);
      const indexedColumns = (table: string) =>
        (after.prepare(`PRAGMA index_list(${table})`).all() as Array<{ name: string }>).map((i) => (after.prepare(`PRAGMA index_info(${i.name})`).all() as Array<{ name: string }>).map((c) => c.name).join(','));
      expect(indexedColumns('order_events')).toEqual(['order_id,sequence']);
      expect(indexedColumns('event_feed').sort()).toEqual(['created_at', 'merchant_id,mode,position']);
    } finally {
      after.close();
    }
  });
});

describe('sqlite migration of the ledger for cash on delivery (issue #30 item 3)', () => {
  it('keeps every charge and reversal exactly, and takes COD lines without a merchant or an order', async () => {
    const file = join(dir, 'before-cod.sqlite');
    const db = new Database(file);
    const upTo = MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE ledger_cod'));
    for (const migration of MIGRATIONS.slice(0, upTo)) db.exec(migration);
    db.pragma(`user_version = ${upTo}`);
    const insert = db.prepare('INSERT INTO ledger (id, merchant_id, mode, order_id, kind, amount, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    insert.run('led_1', 'm_1', 'live', 'bk_1', 'charge', 3990, '2026-11-26T10:00:00.000Z');
    insert.run('led_2', 'm_1', 'live', 'bk_1', 'reversal', -3990, '2026-11-26T10:05:00.000Z');
    db.close();

    const store = createSqliteStore({ file });
    try {
      expect(await store.ledger.listByMerchant({ merchantId: 'm_1', mode: 'live' })).toStrictEqual([
        { id: 'led_1', merchantId: 'm_1', mode: 'live', orderId: 'bk_1', kind: 'charge', amount: 3990, at: '2026-11-26T10:00:00.000Z' },
        { id: 'led_2', merchantId: 'm_1', mode: 'live', orderId: 'bk_1', kind: 'reversal', amount: -3990, at: '2026-11-26T10:05:00.000Z' },
      ]);
      await store.ledger.append({ id: 'led_3', merchantId: null, mode: 'live', orderId: null, kind: 'cod_settlement', amount: 100, courierId: 'cr_1', at: '2026-11-27T10:00:00.000Z' });
      expect(await store.ledger.courierCodSums({ courierId: 'cr_1' })).toStrictEqual({ collected: 0, pending: 0, handedOver: 100, paidOut: 0, mismatches: 0 });
    } finally {
      await store.close();
    }
  });
});
