import type { Store } from '../../ports/store.js';
import { createMongoApiKeyRepository } from './api-keys.js';
import { createMongoBatchRepository } from './batches.js';
import { createMongoCourierRepository } from './couriers.js';
import { openMongoDatabase } from './database.js';
import { createMongoLedgerRepository } from './ledger.js';
import { createMongoMerchantRepository } from './merchants.js';
import { createMongoOrderRepository } from './orders.js';
import { createMongoTelemetryRepository } from './telemetry.js';
import { createMongoUserRepository } from './users.js';
import { createMongoWebhookRepository } from './webhooks.js';

/**
 * The distributed store: MongoDB 7/8 through the official driver. It must be a replica set (a
 * single node is enough): merchant creation, key replacement and secret rotation are session
 * transactions, and so are order creation (idempotency key, order, first event, ledger entry) and
 * order transitions (compare-and-set, event, ledger entry, webhook outbox). Single-document operations
 * (updates, compare-and-set of couriers and batches, webhook leases) need no transaction.
 */
export async function createMongoStore(options: { url: string; dbName: string }): Promise<Store> {
  const database = await openMongoDatabase(options);
  return {
    kind: 'mongodb',
    merchants: createMongoMerchantRepository(database),
    apiKeys: createMongoApiKeyRepository(database),
    users: createMongoUserRepository(database),
    couriers: createMongoCourierRepository(database),
    telemetry: createMongoTelemetryRepository(database),
    orders: createMongoOrderRepository(database),
    batches: createMongoBatchRepository(database),
    ledger: createMongoLedgerRepository(database),
    webhooks: createMongoWebhookRepository(database),
    // Asking the replica set is a round trip, as costly as the lookups it would save.
    credentialsVersion() {
      return null;
    },
    async ping() {
      await database.db.command({ ping: 1 });
    },
    async close() {
      await database.client.close();
    },
  };
}
