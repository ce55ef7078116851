import { MongoClient, type ClientSession, type Collection, type Db, type TransactionOptions } from 'mongodb';
import type {
  ApiKeyRecord,
  Batch,
  Courier,
  LedgerEntry,
  Merchant,
  MerchantSecretRecord,
  Order,
  OrderEvent,
  RegisteredUser,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../domain/types.js';
import type { IdempotencyRecord, IntegrationTelemetry } from '../../ports/store.js';

/*
 * Documents as stored: the domain record with its id as `_id`, camelCase fields, times as the
 * domain's ISO-8601 strings (they sort chronologically). Repositories map them back field by field.
 */
export type MerchantDoc = Omit<Merchant, 'id'> & {
  _id: string;
  /** Bumped by key replacement / secret rotation so concurrent ones on a merchant conflict (see touchMerchant). */
  apiKeysVersion?: number;
  secretsVersion?: number;
};
export type ApiKeyDoc = Omit<ApiKeyRecord, 'id'> & { _id: string };
export type MerchantSecretDoc = Omit<MerchantSecretRecord, 'id'> & { _id: string };
export type UserDoc = Omit<RegisteredUser, 'id'> & { _id: string };
export type CourierDoc = Omit<Courier, 'id'> & { _id: string };
/** `_id` is the natural key: merchant, mode, integration and site (empty string when unknown). */
export type TelemetryDoc = Omit<IntegrationTelemetry, 'site'> & { _id: string; site: string };
export type OrderDoc = Omit<Order, 'id'> & { _id: string };
export type OrderEventDoc = Omit<OrderEvent, 'id'> & { _id: string };
/**
 * `_id` is the natural key (merchant, mode, key), so the unique `_id` index is what makes a key
 * claim atomic. `expiresAt` stays an ISO string like every other time; `expireAt` is the same
 * instant as a BSON Date, which is what the TTL index needs to remove expired keys.
 */
export type IdempotencyDoc = IdempotencyRecord & { _id: string; expireAt: Date };
export type BatchDoc = Omit<Batch, 'id'> & { _id: string };
export type LedgerDoc = Omit<LedgerEntry, 'id'> & { _id: string };
export type WebhookEndpointDoc = Omit<WebhookEndpoint, 'id'> & { _id: string };
export type WebhookDeliveryDoc = Omit<WebhookDelivery, 'id'> & { _id: string };
export type WebhookAttemptDoc = Omit<WebhookAttempt, 'id'> & { _id: string };

export interface MongoCollections {
  merchants: Collection<MerchantDoc>;
  merchantSecrets: Collection<MerchantSecretDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  users: Collection<UserDoc>;
  couriers: Collection<CourierDoc>;
  telemetry: Collection<TelemetryDoc>;
  orders: Collection<OrderDoc>;
  orderEvents: Collection<OrderEventDoc>;
  idempotencyKeys: Collection<IdempotencyDoc>;
  batches: Collection<BatchDoc>;
  ledger: Collection<LedgerDoc>;
  webhookEndpoints: Collection<WebhookEndpointDoc>;
  webhookDeliveries: Collection<WebhookDeliveryDoc>;
  webhookAttempts: Collection<WebhookAttemptDoc>;
}

export interface MongoDatabase {
  client: MongoClient;
  db: Db;
  collections: MongoCollections;
  /** Runs fn in one session transaction (retried by the driver on transient errors, so fn must be repeatable). */
  inTransaction<T>(fn: (session: ClientSession) => Promise<T>): Promise<T>;
}

/*
 * Multi-document units of work use session transactions, which MongoDB only offers on a replica
 * set or sharded cluster: run MongoDB 7/8 as a replica set (a single-node one is enough, as in
 * docker-compose.yml). Against a standalone mongod the transactional methods fail.
 */
const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: { w: 'majority' },
  readPreference: 'primary',
};

/** Connects, creates the indexes every query relies on (idempotent, safe on concurrent start-up). */
export async function openMongoDatabase(options: { url: string; dbName: string }): Promise<MongoDatabase> {
  const client = new MongoClient(options.url);
  await client.connect();
  try {
    const db = client.db(options.dbName);
    const collections: MongoCollections = {
      merchants: db.collection<MerchantDoc>('merchants'),
      merchantSecrets: db.collection<MerchantSecretDoc>('merchant_secrets'),
      apiKeys: db.collection<ApiKeyDoc>('api_keys'),
      users: db.collection<UserDoc>('users'),
      couriers: db.collection<CourierDoc>('couriers'),
      telemetry: db.collection<TelemetryDoc>('integration_telemetry'),
      orders: db.collection<OrderDoc>('orders'),
      orderEvents: db.collection<OrderEventDoc>('order_events'),
      idempotencyKeys: db.collection<IdempotencyDoc>('idempotency_keys'),
      batches: db.collection<BatchDoc>('batches'),
      ledger: db.collection<LedgerDoc>('ledger'),
      webhookEndpoints: db.collection<WebhookEndpointDoc>('webhook_endpoints'),
      webhookDeliveries: db.collection<WebhookDeliveryDoc>('webhook_deliveries'),
      webhookAttempts: db.collection<WebhookAttemptDoc>('webhook_attempts'),
    };
    await createIndexes(collections);
    return {
      client,
      db,
      collections,
      async inTransaction(fn) {
        const session = client.startSession();
        try {
          return await session.withTransaction(() => fn(session), TRANSACTION_OPTIONS);
        } finally {
          await session.endSession();
        }
      },
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

async function createIndexes(c: MongoCollections): Promise<void> {
  await Promise.all([
    c.apiKeys.createIndex({ hash: 1 }, { unique: true, name: 'api_keys_hash' }),
    c.apiKeys.createIndex({ merchantId: 1, mode: 1, status: 1 }, { name: 'api_keys_merchant' }),
    c.merchantSecrets.createIndex({ merchantId: 1, createdAt: -1, _id: -1 }, { name: 'merchant_secrets_merchant' }),
    c.users.createIndex({ rut: 1 }, { unique: true, name: 'users_rut' }),
    c.couriers.createIndex({ tokenHash: 1 }, { unique: true, name: 'couriers_token_hash' }),
    c.couriers.createIndex({ mode: 1, _id: 1 }, { name: 'couriers_mode' }),
    c.merchants.createIndex(
      { 'settings.storefrontDomain': 1 },
      { unique: true, name: 'merchants_storefront_domain', partialFilterExpression: { 'settings.storefrontDomain': { $type: 'string' } } },
    ),
    c.telemetry.createIndex({ merchantId: 1, lastSeenAt: -1 }, { name: 'telemetry_merchant' }),
    c.orders.createIndex({ orderNumber: 1 }, { unique: true, name: 'orders_order_number' }),
    c.orders.createIndex({ trackingNumber: 1 }, { unique: true, name: 'orders_tracking_number' }),
    c.orders.createIndex({ merchantId: 1, mode: 1, _id: -1 }, { name: 'orders_merchant' }),
    c.orders.createIndex({ merchantId: 1, mode: 1, referenceId: 1 }, { name: 'orders_reference' }),
    c.orders.createIndex({ merchantId: 1, mode: 1, ecommerceOrderId: 1 }, { name: 'orders_ecommerce' }),
    c.orders.createIndex({ mode: 1, status: 1, createdAt: 1 }, { name: 'orders_queue' }),
    // Consolidation reads a geohash prefix as a range ($gte prefix, $lt prefix + '~') on this index.
    c.orders.createIndex({ merchantId: 1, mode: 1, 'pickup.geohash': 1 }, { name: 'orders_zone' }),
    c.orderEvents.createIndex({ orderId: 1, sequence: 1 }, { unique: true, name: 'order_events_sequence' }),
    c.idempotencyKeys.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0, name: 'idempotency_keys_ttl' }),
    c.batches.createIndex({ merchantId: 1, mode: 1, _id: -1 }, { name: 'batches_merchant' }),
    c.batches.createIndex({ mode: 1, status: 1, createdAt: 1 }, { name: 'batches_pending' }),
    c.ledger.createIndex({ merchantId: 1, mode: 1, at: 1 }, { name: 'ledger_merchant' }),
    c.webhookEndpoints.createIndex({ merchantId: 1, mode: 1, _id: 1 }, { name: 'webhook_endpoints_merchant' }),
    // claimDue: equality on status, range and sort on nextAttemptAt (then _id, so the order is total).
    c.webhookDeliveries.createIndex({ status: 1, nextAttemptAt: 1, _id: 1 }, { name: 'webhook_deliveries_due' }),
    c.webhookDeliveries.createIndex({ merchantId: 1, mode: 1, _id: -1 }, { name: 'webhook_deliveries_merchant' }),
    c.webhookAttempts.createIndex({ deliveryId: 1, attempt: 1 }, { name: 'webhook_attempts_delivery' }),
  ]);
}

/**
 * Writes to the merchant document inside a transaction. Snapshot isolation only conflicts on
 * documents both transactions write, so two key replacements for a merchant with no active key
 * would otherwise both commit; bumping a counter here serialises them. Also the foreign-key
 * check: throws when the merchant does not exist.
 */
export async function touchMerchant(
  merchants: Collection<MerchantDoc>,
  merchantId: string,
  counter: 'apiKeysVersion' | 'secretsVersion',
  session: ClientSession,
): Promise<void> {
  const result = await merchants.updateOne({ _id: merchantId }, { $inc: { [counter]: 1 } }, { session });
  if (result.matchedCount === 0) throw new Error(`MongoDB store: merchant ${merchantId} does not exist`);
}
