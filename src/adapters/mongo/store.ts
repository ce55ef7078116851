import type { Store } from '../../ports/store.js';
import { createMongoApiKeyRepository } from './api-keys.js';
import { createMongoCourierRepository } from './couriers.js';
import { openMongoDatabase } from './database.js';
import { createMongoMerchantRepository } from './merchants.js';
import { createMongoTelemetryRepository } from './telemetry.js';
import { createMongoUserRepository } from './users.js';

/**
 * The distributed store: MongoDB 7/8 through the official driver. It must be a replica set (a
 * single node is enough): merchant creation, key replacement and secret rotation are session
 * transactions. Single-document operations (updates, compare-and-set) need no transaction.
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
    async ping() {
      await database.db.command({ ping: 1 });
    },
    async close() {
      await database.client.close();
    },
  };
}
