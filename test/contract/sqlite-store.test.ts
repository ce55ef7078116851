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
