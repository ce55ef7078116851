import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { merchantBundle } from './fixtures.js';
import { describeStoreContract } from './store.contract.js';

// A real SQLite file on disk per case (WAL mode, migrations applied), not ':memory:'.
const dir = mkdtempSync(join(tmpdir(), 'exd-store-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite (file on disk)', async () => createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }));

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
