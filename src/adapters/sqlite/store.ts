import { createSqliteCourierSessionRepository } from './courier-sessions.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFileProofStore } from '../proof-files.js';
import type { Store } from '../../ports/store.js';
import { createSqliteApiKeyRepository } from './api-keys.js';
import { createSqliteCourierRepository } from './couriers.js';
import { createWriteQueue, openSqliteDatabase } from './database.js';
import { createWriteGuard } from './write-guard.js';
import { startCheckpointer } from './checkpointer.js';
import { createSqliteSpaceReclaimer } from './space.js';
import { createSqliteMerchantRepository } from './merchants.js';
import { createSqliteTelemetryRepository } from './telemetry.js';
import { createSqliteOrderRepository } from './orders.js';
import { createSqliteWebhookRepository } from './webhooks.js';
import { createSqliteBatchRepository } from './batches.js';
import { createSqliteLedgerRepository } from './ledger.js';
import { createSqliteUserRepository } from './users.js';
import { createSqliteMemberRepository } from './members.js';
import { createSqliteAuditRepository, createSqliteOperatorRepository } from './operators.js';
import { createSqliteLeaseRepository } from './leases.js';
import { createSqliteIdempotentWriteRepository } from './idempotent-writes.js';
import { createSqliteEventFeedRepository } from './events.js';
import { createSqliteQuoteRepository } from './quotes.js';
import { createSqliteNotificationRepository } from './notifications.js';
import { createSqliteProofBudgetRepository } from './proof-budgets.js';
import { createDamageRecord, withDamageWatch, type DamageRecord } from './integrity.js';

export const SQLITE_FILE_NAME = 'express-delivery.sqlite';

/**
 * The embedded store: one SQLite file under dataDir (or ':memory:'). The server opens it through
 * openSqliteStore (open-store.ts), which checks the file first. `lockWaitMs`: how long a write waits
 * for another process's write lock (off the event loop) before 503; `damage` records corruption met
 * by any statement (see withDamageWatch).
 */
export function createSqliteStore(options: ({ dataDir: string } | { file: string }) & { lockWaitMs?: number; damage?: DamageRecord }): Store {
  const file = 'file' in options ? options.file : join(options.dataDir, SQLITE_FILE_NAME);
  const damage = options.damage ?? createDamageRecord();
  const db = openSqliteDatabase(file);
  const checkpointer = file === ':memory:' ? null : startCheckpointer(db, file);
  // Every write goes through the guard (the queue, or each repository method): WAL reads never wait.
  const guard = createWriteGuard(db, { lockWaitMs: options.lockWaitMs, ...(checkpointer && { dir: dirname(file), lockIsOurs: checkpointer.holdsWriteLock }) });
  const writes = createWriteQueue(db, guard);
  // data_version moves when another connection (or process) commits; this connection's own
  // merchant and key writes are counted here.
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const reclaim = createSqliteSpaceReclaimer(db);
  let credentialWrites = 0;
  const countCredentialWrite = () => void credentialWrites++;
  return withDamageWatch({
    kind: 'sqlite',
    merchants: guard.repository(createSqliteMerchantRepository(db, countCredentialWrite)),
    apiKeys: guard.repository(createSqliteApiKeyRepository(db, countCredentialWrite)),
    users: guard.repository(createSqliteUserRepository(db)),
    members: guard.repository(createSqliteMemberRepository(db)),
    operators: guard.repository(createSqliteOperatorRepository(db)),
    audit: guard.repository(createSqliteAuditRepository(db)),
    courierSessions: guard.repository(createSqliteCourierSessionRepository(db)),
    // DATA_DIR/proofs; beside a database file named alone, `<file>-proofs`; a private temporary directory for an in-memory one.
    proofs: createFileProofStore({ dir: 'dataDir' in options ? join(options.dataDir, 'proofs') : file === ':memory:' ? mkdtempSync(join(tmpdir(), 'exd-proofs-')) : `${file}-proofs` }),
    proofBudgets: guard.repository(createSqliteProofBudgetRepository(db)),
    couriers: guard.repository(createSqliteCourierRepository(db, writes)),
    telemetry: guard.repository(createSqliteTelemetryRepository(db)),
    orders: guard.repository(createSqliteOrderRepository(db, writes)),
    batches: guard.repository(createSqliteBatchRepository(db)),
    ledger: guard.repository(createSqliteLedgerRepository(db)),
    webhooks: guard.repository(createSqliteWebhookRepository(db)),
    leases: guard.repository(createSqliteLeaseRepository(db)),
    idempotentWrites: guard.repository(createSqliteIdempotentWriteRepository(db)),
    events: guard.repository(createSqliteEventFeedRepository(db)),
    quotes: guard.repository(createSqliteQuoteRepository(db, writes)),
    notifications: guard.repository(createSqliteNotificationRepository(db)),
    credentialsVersion() {
      return `${dataVersion.get()}:${credentialWrites}`;
    },
    reclaimSpace: (options) => guard.run(() => reclaim(options)),
    async ping() {
      const damaged = damage.reason();
      return damaged === null ? guard.probe() : { status: 'degraded' as const, reason: damaged };
    },
    async close() {
      if (!db.open) return;
      writes.flush();
      // Last to close, the serving connection checkpoints what is left and removes the WAL.
      await checkpointer?.stop();
      db.close();
    },
  } satisfies Store, damage);
}
