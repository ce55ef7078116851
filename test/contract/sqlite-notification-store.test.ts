import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { describeNotificationStoreContract } from './notification-store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'exd-notification-store-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeNotificationStoreContract('sqlite (file on disk)', async () => createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }));
