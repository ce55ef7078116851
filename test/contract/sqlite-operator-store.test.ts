import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { describeOperatorStoreContract } from './operator-store.contract.js';

// A real SQLite file on disk per case (WAL mode, migrations applied), not ':memory:'.
const dir = mkdtempSync(join(tmpdir(), 'exd-operator-store-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeOperatorStoreContract('sqlite (file on disk)', async () => createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }));
