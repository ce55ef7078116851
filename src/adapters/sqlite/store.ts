import { join } from 'node:path';
import type { Store } from '../../ports/store.js';
import { createSqliteApiKeyRepository } from './api-keys.js';
import { createSqliteCourierRepository } from './couriers.js';
import { BUSY_TIMEOUT_MS, createWriteQueue, openSqliteDatabase } from './database.js';
import { startCheckpointer } from './checkpointer.js';
import { createSqliteMerchantRepository } from './merchants.js';
import { createSqliteTelemetryRepository } from './telemetry.js';
import { createSqliteOrderRepository } from './orders.js';
import { createSqliteWebhookRepository } from './webhooks.js';
import { createSqliteBatchRepository, createSqliteLedgerRepository } from './batches.js';
import { createSqliteUserRepository } from './users.js';
import { createSqliteMemberRepository } from './members.js';
import { createSqliteLeaseRepository } from './leases.js';
import { createSqliteIdempotentWriteRepository } from './idempotent-writes.js';
import { createSqliteEventFeedRepository } from './events.js';
import { createSqliteQuoteRepository } from './quotes.js';
import { createDamageRecord, withDamageWatch, type DamageRecord } from './integrity.js';

export const SQLITE_FILE_NAME = 'express-delivery.sqlite';
/** The health probe waits this long for the write lock (better-sqlite3 blocks the event loop meanwhile). */
const PING_BUSY_TIMEOUT_MS = 500;

/**
 * The embedded store: one SQLite file under dataDir (or ':memory:'). The server opens it through
 * openSqliteStore (open-store.ts), which checks the file first; `damage` records corruption met by
 * any statement (see withDamageWatch).
 */
export function createSqliteStore(options: ({ dataDir: string } | { file: string }) & { damage?: DamageRecord }): Store {
  const file = 'file' in options ? options.file : join(options.dataDir, SQLITE_FILE_NAME);
  const damage = options.damage ?? createDamageRecord();
  const db = openSqliteDatabase(file);
  const checkpointer = file === ':memory:' ? null : startCheckpointer(db, file);
  // The health probe takes the write lock (and commits nothing): WAL reads never wait, so only a
  // write shows another process holding the file — the state in which writes answer 503.
  const probeWriteLock = db.transaction(() => {});
  const writes = createWriteQueue(db);
  // data_version moves when another connection (or process) commits; this connection's own
  // merchant and key writes are counted here.
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let credentialWrites = 0;
  const countCredentialWrite = () => void credentialWrites++;
  return withDamageWatch({
    kind: 'sqlite',
    merchants: createSqliteMerchantRepository(db, countCredentialWrite),
    apiKeys: createSqliteApiKeyRepository(db, countCredentialWrite),
    users: createSqliteUserRepository(db),
    members: createSqliteMemberRepository(db),
    couriers: createSqliteCourierRepository(db, writes),
    telemetry: createSqliteTelemetryRepository(db),
    orders: createSqliteOrderRepository(db, writes),
    batches: createSqliteBatchRepository(db),
    ledger: createSqliteLedgerRepository(db),
    webhooks: createSqliteWebhookRepository(db),
    leases: createSqliteLeaseRepository(db),
    idempotentWrites: createSqliteIdempotentWriteRepository(db),
    events: createSqliteEventFeedRepository(db),
    quotes: createSqliteQuoteRepository(db, writes),
    credentialsVersion() {
      return `${dataVersion.get()}:${credentialWrites}`;
    },
    async ping() {
      db.pragma(`busy_timeout = ${PING_BUSY_TIMEOUT_MS}`);
      try {
        probeWriteLock.immediate();
      } finally {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    },
    async close() {
      if (!db.open) return;
      writes.flush();
      // Last to close, the serving connection checkpoints what is left and removes the WAL.
      await checkpointer?.stop();
      db.close();
    },
    degradedReason: () => damage.reason(),
  } satisfies Store, damage);
}
