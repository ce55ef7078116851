import { createMongoProofBudgetRepository } from './proof-budgets.js';
import { createGridFsProofStore } from './proof-gridfs.js';
import { createMongoCourierSessionRepository } from './courier-sessions.js';
import type { Store } from '../../ports/store.js';
import { createMongoApiKeyRepository } from './api-keys.js';
import { createMongoBatchRepository } from './batches.js';
import { createMongoCourierRepository } from './couriers.js';
import { DEFAULT_OPERATION_TIMEOUT_MS, openMongoDatabase } from './database.js';
import { guardRepository, withinDeadline, type StoreCircuit } from './guard.js';
import { createMongoLeaseRepository } from './leases.js';
import { createMongoIdempotentWriteRepository } from './idempotent-writes.js';
import { createMongoEventFeedRepository } from './events.js';
import { createMongoLedgerRepository } from './ledger.js';
import { createMongoMerchantRepository } from './merchants.js';
import { createMongoOrderRepository } from './orders.js';
import { createMongoQuoteRepository } from './quotes.js';
import { createMongoTelemetryRepository } from './telemetry.js';
import { createMongoUserRepository } from './users.js';
import { createMongoMemberRepository } from './members.js';
import { createMongoAuditRepository, createMongoOperatorRepository } from './operators.js';
import { createMongoWebhookRepository } from './webhooks.js';
import { createMongoNotificationRepository } from './notifications.js';

/**
 * The distributed store: MongoDB 7/8 through the official driver. It must be a replica set (a
 * single node is enough): merchant creation, key replacement and secret rotation are session
 * transactions, and so are order creation (idempotency key, order, first event, ledger entry) and
 * order transitions (compare-and-set, event, ledger entry, webhook outbox). Single-document operations
 * (updates, compare-and-set of couriers and batches, webhook leases) need no transaction.
 */
export async function createMongoStore(options: { url: string; dbName: string; operationTimeoutMs?: number; webhookRetentionMs?: number }): Promise<Store> {
  const database = await openMongoDatabase(options);
  const deadlineMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  const circuit: StoreCircuit = { failFastUntil: 0 };
  const guard = <T extends object>(name: string, repository: T) => guardRepository(name, repository, deadlineMs, circuit);
  return {
    kind: 'mongodb',
    merchants: guard('merchants', createMongoMerchantRepository(database)),
    apiKeys: guard('apiKeys', createMongoApiKeyRepository(database)),
    users: guard('users', createMongoUserRepository(database)),
    members: guard('members', createMongoMemberRepository(database)),
    operators: guard('operators', createMongoOperatorRepository(database)),
    audit: guard('audit', createMongoAuditRepository(database)),
    courierSessions: guard('courierSessions', createMongoCourierSessionRepository(database)),
    proofs: guard('proofs', createGridFsProofStore({ db: database.db })),
    proofBudgets: guard('proofBudgets', createMongoProofBudgetRepository(database)),
    couriers: guard('couriers', createMongoCourierRepository(database)),
    telemetry: guard('telemetry', createMongoTelemetryRepository(database)),
    orders: guard('orders', createMongoOrderRepository(database)),
    batches: guard('batches', createMongoBatchRepository(database)),
    ledger: guard('ledger', createMongoLedgerRepository(database)),
    webhooks: guard('webhooks', createMongoWebhookRepository(database)),
    leases: guard('leases', createMongoLeaseRepository(database)),
    idempotentWrites: guard('idempotentWrites', createMongoIdempotentWriteRepository(database)),
    events: guard('events', createMongoEventFeedRepository(database)),
    quotes: guard('quotes', createMongoQuoteRepository(database)),
    notifications: guard('notifications', createMongoNotificationRepository(database)),
    // Asking the replica set is a round trip, as costly as the lookups it would save.
    credentialsVersion() {
      return null;
    },
    // The WiredTiger engine reuses and returns freed space by itself.
    reclaimSpace: async () => 0,
    ping: guard('store', {
      async ping() {
        await database.db.command({ ping: 1 });
      },
    }).ping,
    async close() {
      // A paused server must not hold a shutdown beyond its grace: closing is bounded too.
      await withinDeadline(() => database.client.close(), deadlineMs, 'close').catch(() => {});
    },
  };
}
