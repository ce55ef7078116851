import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { describeDispatchStoreContract } from './dispatch-store.contract.js';

// A real SQLite file on disk per case (WAL mode, migrations applied), not ':memory:'.
const dir = mkdtempSync(join(tmpdir(), 'exd-dispatch-store-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDispatchStoreContract('sqlite (file on disk)', async () => createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }));

describe('sqlite leases across connections (processes sharing the file)', () => {
  it('a lease held through one connection is refused through another until released', async () => {
    const file = join(dir, 'shared-leases.sqlite');
    const one = createSqliteStore({ file });
    const two = createSqliteStore({ file });
    try {
      expect(await one.leases.acquire({ name: 'reconciler', owner: 'one', ttlMs: 60_000 })).toBe(true);
      expect(await two.leases.acquire({ name: 'reconciler', owner: 'two', ttlMs: 60_000 })).toBe(false);
      await one.leases.release({ name: 'reconciler', owner: 'one' });
      expect(await two.leases.acquire({ name: 'reconciler', owner: 'two', ttlMs: 60_000 })).toBe(true);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
