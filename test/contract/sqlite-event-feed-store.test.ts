import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { describeEventFeedStoreContract } from './event-feed-store.contract.js';

// A real SQLite file on disk per case (WAL mode, migrations applied), not ':memory:'.
const dir = mkdtempSync(join(tmpdir(), 'exd-event-feed-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEventFeedStoreContract('sqlite (file on disk)', async () => createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }));
