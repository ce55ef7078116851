import { join } from 'node:path';
import type { Store } from '../../ports/store.js';
import { createSqliteApiKeyRepository } from './api-keys.js';
import { createSqliteCourierRepository } from './couriers.js';
import { openSqliteDatabase } from './database.js';
import { createSqliteMerchantRepository } from './merchants.js';
import { createSqliteTelemetryRepository } from './telemetry.js';
import { createSqliteOrderRepository } from './orders.js';
import { createSqliteWebhookRepository } from './webhooks.js';
import { createSqliteBatchRepository, createSqliteLedgerRepository } from './batches.js';
import { createSqliteUserRepository } from './users.js';

export const SQLITE_FILE_NAME = 'express-delivery.sqlite';

/** The embedded store: one SQLite file under dataDir (or ':memory:'). */
export function createSqliteStore(options: { dataDir: string } | { file: string }): Store {
  const file = 'file' in options ? options.file : join(options.dataDir, SQLITE_FILE_NAME);
  const db = openSqliteDatabase(file);
  const ping = db.prepare('SELECT 1');
  return {
    kind: 'sqlite',
    merchants: createSqliteMerchantRepository(db),
    apiKeys: createSqliteApiKeyRepository(db),
    users: createSqliteUserRepository(db),
    couriers: createSqliteCourierRepository(db),
    telemetry: createSqliteTelemetryRepository(db),
    orders: createSqliteOrderRepository(db),
    batches: createSqliteBatchRepository(db),
    ledger: createSqliteLedgerRepository(db),
    webhooks: createSqliteWebhookRepository(db),
    async ping() {
      ping.get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
