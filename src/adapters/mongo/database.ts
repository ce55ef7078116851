import { MongoClient, MongoServerError, type ClientSession, type Collection, type Db, type MongoClientOptions, type TransactionOptions } from 'mongodb';
import { ORDER_STATUS_SETS, type OrderStatusSet } from '../../domain/vocabulary.js';
import type {
  ApiKeyRecord,
  Batch,
  Courier,
  LedgerEntry,
  Member,
  MemberPasswordToken,
  MemberSession,
  Operator,
  OperatorPasswordToken,
  OperatorSession,
  AuditEntry,
  Merchant,
  MerchantSecretRecord,
  Order,
  OrderEvent,
  RegisteredUser,
  StoredQuote,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../domain/types.js';
import type { FeedEvent, IdempotencyRecord, IdempotentWriteRecord, IntegrationTelemetry } from '../../ports/store.js';
import type { Notification } from '../../domain/notifications/types.js';
import type { CourierSession, CourierSignInCode } from '../../ports/courier-sessions.js';
import { isTransientTransactionError, isUnknownCommitResult } from './failures.js';

/**
 * The partial indexes whose filter is a status set of the domain (src/domain/vocabulary.ts), by name.
 * Opening checks an existing one against its set before building (assertStatusIndexes): a changed set
 * needs its index renamed here (and the old name retired), since an index's filter never changes in place.
 */
export const STATUS_SET_INDEXES = {
  orders_events_prunable_ended: 'terminal',
  orders_late_eta: 'active',
  orders_late_window: 'active',
} as const satisfies Record<string, OrderStatusSet>;

/** A status set as the partial filter (and query) `{ status: { $in: [...] } }`. */
export const statusIn = (set: OrderStatusSet) => ({ status: { $in: [...ORDER_STATUS_SETS[set]] } });

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
/** `eventsPruned`: set by retention on an order that is over once its events are deleted (never read back into an Order). */
export type OrderDoc = Omit<Order, 'id'> & { _id: string; eventsPruned?: true | null };
export type OrderEventDoc = Omit<OrderEvent, 'id'> & { _id: string };
/**
 * `_id` is the natural key (merchant, mode, key), so the unique `_id` index is what makes a key
 * claim atomic. `expiresAt` stays an ISO string like every other time; `expireAt` is the same
 * instant as a BSON Date, which is what the TTL index needs to remove expired keys.
 */
export type IdempotencyDoc = IdempotencyRecord & { _id: string; expireAt: Date };
export type BatchDoc = Omit<Batch, 'id'> & { _id: string };
/** `mismatch`: cod_collected only, derived (amount ≠ expected) for counting. */
export type LedgerDoc = Omit<LedgerEntry, 'id'> & { _id: string; mismatch?: boolean };
export type WebhookEndpointDoc = Omit<WebhookEndpoint, 'id'> & { _id: string };
/** `createdOn` (and an attempt's `atOn`): the same instant as a BSON Date, for the retention TTL index. */
export type WebhookDeliveryDoc = Omit<WebhookDelivery, 'id'> & { _id: string; createdOn?: Date };
export type WebhookAttemptDoc = Omit<WebhookAttempt, 'id'> & { _id: string; atOn?: Date };
/** `expireAt`: expiresAt as a BSON Date, for the TTL index (a day later, so an expired quote still answers QUOTE_EXPIRED). */
export type QuoteDoc = Omit<StoredQuote, 'id'> & { _id: string; expireAt: Date };
/** Team members; `_id` is the member id. */
export type MemberDoc = Omit<Member, 'id'> & { _id: string };
/** `_id` is the token's SHA-256; `expireOn` is expiresAt as a BSON Date for the TTL index. */
export type MemberPasswordTokenDoc = Omit<MemberPasswordToken, 'hash'> & { _id: string; expireOn: Date };
/** `_id` is the session id's SHA-256; `expireOn` is the absolute expiry as a BSON Date for the TTL index. */
export type MemberSessionDoc = Omit<MemberSession, 'hash'> & { _id: string; expireOn: Date };
/** Operators; `_id` is the operator id. */
export type OperatorDoc = Omit<Operator, 'id'> & { _id: string };
/** `_id` is the token's SHA-256; `expireOn`: expiresAt as a BSON Date for the TTL index. */
export type OperatorPasswordTokenDoc = Omit<OperatorPasswordToken, 'hash'> & { _id: string; expireOn: Date };
/** `_id` is the session id's SHA-256; `expireOn`: the absolute expiry as a BSON Date for the TTL index. */
export type OperatorSessionDoc = Omit<OperatorSession, 'hash'> & { _id: string; expireOn: Date };
/** `_id` is the entry id (time-ordered); `actor` is the operator id or the actor kind (the filter's key). */
export type AuditDoc = Omit<AuditEntry, 'id'> & { _id: string; actor: string };
/** `_id` is the code's / session id's SHA-256; `expireOn` is expiresAt as a BSON Date for the TTL index (issue #27). */
export type CourierSignInCodeDoc = Omit<CourierSignInCode, 'hash'> & { _id: string; expireOn: Date };
export type CourierSessionDoc = Omit<CourierSession, 'hash'> & { _id: string; expireOn: Date };
/** `_id` is JSON [ownerId, mode, operation, key]; `expireAt` is expiresAt as a BSON Date for the TTL index. */
export type IdempotentWriteDoc = IdempotentWriteRecord & { _id: string; expireAt: Date };
/** An upload budget's counter (issue #39): `_id` is its key; the TTL index removes it at `expireAt`. */
export type ProofBudgetDoc = { _id: string; used: number; expireAt: Date };
/** `position` is null until the feed's sequencer gives it one (see events.ts). */
export type FeedEventDoc = Omit<FeedEvent, 'id' | 'position'> & { _id: string; position: number | null };
/** `_id` is JSON [merchantId, mode]; `last` is the highest position given out. */
export type FeedPositionDoc = { _id: string; last: number };
/** `_id` is the lease's name; `until` is a BSON Date on the server's clock. */
export type LeaseDoc = { _id: string; owner: string; until: Date };

/** `_id` is the (order, moment, channel) dedupe key; `createdOn` the creation as a BSON Date (retention TTL). */
export type NotificationDoc = Notification & { _id: string; createdOn: Date };

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
  leases: Collection<LeaseDoc>;
  idempotentWrites: Collection<IdempotentWriteDoc>;
  proofBudgets: Collection<ProofBudgetDoc>;
  eventFeed: Collection<FeedEventDoc>;
  eventFeedPositions: Collection<FeedPositionDoc>;
  members: Collection<MemberDoc>;
  memberPasswordTokens: Collection<MemberPasswordTokenDoc>;
  memberSessions: Collection<MemberSessionDoc>;
  courierSignInCodes: Collection<CourierSignInCodeDoc>;
  courierSessions: Collection<CourierSessionDoc>;
  quotes: Collection<QuoteDoc>;
  notifications: Collection<NotificationDoc>;
  operators: Collection<OperatorDoc>;
  operatorPasswordTokens: Collection<OperatorPasswordTokenDoc>;
  operatorSessions: Collection<OperatorSessionDoc>;
  auditLog: Collection<AuditDoc>;
}

export interface MongoDatabase {
  client: MongoClient;
  db: Db;
  collections: MongoCollections;
  /** Runs fn in one session transaction (run again after a transient error, so fn must be repeatable). */
  inTransaction<T>(fn: (session: ClientSession) => Promise<T>): Promise<T>;
}

/*
 * Multi-document units of work use session transactions, which MongoDB only offers on a replica
 * set or sharded cluster: run MongoDB 7/8 as a replica set (a single node is enough, as in
 * docker-compose.yml). Against a standalone mongod the transactional methods fail.
 */
const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  readPreference: 'primary',
};

/** Each of the driver's waits: two thirds of the call's deadline, so the driver's own error usually comes first. */
const step = (timeoutMs: number) => Math.max(200, Math.floor(timeoutMs * 0.66));

/** Default of STORE_TIMEOUT_MS: what one store call may take before it is answered as unavailable. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 1500;

/**
 * Every wait of the driver is bounded (the driver's defaults are 30 s of server selection and no
 * socket timeout, so a paused or absent MongoDB hung every request): server selection, connecting,
 * waiting for a pooled connection, a reply on the socket, and the replication of a write. Writes
 * are acknowledged by a majority, stated here rather than left to the URL or the server default.
 */
export function mongoClientOptions(operationTimeoutMs: number): MongoClientOptions {
  const wait = step(operationTimeoutMs);
  return {
    serverSelectionTimeoutMS: wait,
    connectTimeoutMS: wait,
    waitQueueTimeoutMS: wait,
    socketTimeoutMS: operationTimeoutMs,
    heartbeatFrequencyMS: 2000,
    retryReads: true,
    retryWrites: true,
    writeConcern: { w: 'majority', wtimeoutMS: wait },
  };
}

/** Connects, creates the indexes every query relies on (idempotent, safe on concurrent start-up). */
export async function openMongoDatabase(options: { url: string; dbName: string; operationTimeoutMs?: number; webhookRetentionMs?: number }): Promise<MongoDatabase> {
  const timeoutMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  // First, with the patience a start-up deserves (MongoDB may be starting too); then the bounded client.
  await createIndexesUnbounded(options.url, options.dbName, Math.round((options.webhookRetentionMs ?? DEFAULT_WEBHOOK_RETENTION_MS) / 1000));
  const client = new MongoClient(options.url, mongoClientOptions(timeoutMs));
  await client.connect();
  try {
    const db = client.db(options.dbName);
    const collections = collectionsOf(db, step(timeoutMs));
    return {
      client,
      db,
      collections,
      inTransaction: (fn) => runTransaction(client, fn),
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/**
 * A transaction, run at most twice (again only after a transient error, when nothing was
 * committed) with the commit retried once when its result is unknown. The driver's
 * withTransaction retries for up to 120 s, far beyond any request's deadline.
 */
async function runTransaction<T>(client: MongoClient, fn: (session: ClientSession) => Promise<T>): Promise<T> {
  const session = client.startSession();
  try {
    for (let attempt = 1; ; attempt++) {
      session.startTransaction(TRANSACTION_OPTIONS);
      try {
        const result = await fn(session);
        await commit(session);
        return result;
      } catch (error) {
        if (session.inTransaction()) await session.abortTransaction().catch(() => {});
        if (attempt < 2 && isTransientTransactionError(error)) continue;
        throw error;
      }
    }
  } finally {
    await session.endSession().catch(() => {});
  }
}

async function commit(session: ClientSession): Promise<void> {
  try {
    await session.commitTransaction();
  } catch (error) {
    if (!isUnknownCommitResult(error)) throw error;
    await session.commitTransaction();
  }
}

/** Read and find-and-modify commands, by the index of their options argument: they carry maxTimeMS. */
const TIMED_METHODS: Record<string, number> = {
  find: 1, findOne: 1, countDocuments: 1, aggregate: 1, distinct: 2, findOneAndUpdate: 2, findOneAndReplace: 2, findOneAndDelete: 1,
};

/**
 * The collection with maxTimeMS added to every read and find-and-modify (unless the call sets its
 * own): a slow query is ended by the server, not left running after the caller gave up.
 */
function withMaxTime<T extends object>(collection: Collection<T>, maxTimeMS: number): Collection<T> {
  return new Proxy(collection, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      const at = typeof property === 'string' ? TIMED_METHODS[property] : undefined;
      if (at === undefined || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const given = (args[at] ?? {}) as { maxTimeMS?: number };
        args[at] = given.maxTimeMS === undefined ? Object.assign({}, given, { maxTimeMS }) : given;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Index builds may take long on big collections: they run on a client of their own without the socket timeout. */
async function createIndexesUnbounded(url: string, dbName: string, webhookRetentionSeconds: number): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000, writeConcern: { w: 'majority' } });
  try {
    await client.connect();
    const db = client.db(dbName);
    const collections = collectionsOf(db, null);
    await assertStatusIndexes(collections);
    await createIndexes(collections, db, webhookRetentionSeconds);
    await dropRetiredIndexes(collections);
  } finally {
    await client.close();
  }
}

/** The collections, with maxTimeMS on their reads when given. */
function collectionsOf(db: Db, maxTimeMS: number | null): MongoCollections {
  const open = <T extends object>(name: string): Collection<T> => {
    const collection = db.collection<T>(name);
    return maxTimeMS === null ? collection : withMaxTime(collection, maxTimeMS);
  };
  return {
    merchants: open<MerchantDoc>('merchants'),
    merchantSecrets: open<MerchantSecretDoc>('merchant_secrets'),
    apiKeys: open<ApiKeyDoc>('api_keys'),
    users: open<UserDoc>('users'),
    couriers: open<CourierDoc>('couriers'),
    telemetry: open<TelemetryDoc>('integration_telemetry'),
    orders: open<OrderDoc>('orders'),
    orderEvents: open<OrderEventDoc>('order_events'),
    idempotencyKeys: open<IdempotencyDoc>('idempotency_keys'),
    batches: open<BatchDoc>('batches'),
    ledger: open<LedgerDoc>('ledger'),
    webhookEndpoints: open<WebhookEndpointDoc>('webhook_endpoints'),
    webhookDeliveries: open<WebhookDeliveryDoc>('webhook_deliveries'),
    webhookAttempts: open<WebhookAttemptDoc>('webhook_attempts'),
    leases: open<LeaseDoc>('leases'),
    idempotentWrites: open<IdempotentWriteDoc>('idempotent_writes'),
    proofBudgets: open<ProofBudgetDoc>('proof_budgets'),
    eventFeed: open<FeedEventDoc>('event_feed'),
    eventFeedPositions: open<FeedPositionDoc>('event_feed_positions'),
    members: open<MemberDoc>('members'),
    memberPasswordTokens: open<MemberPasswordTokenDoc>('member_password_tokens'),
    memberSessions: open<MemberSessionDoc>('member_sessions'),
    courierSignInCodes: open<CourierSignInCodeDoc>('courier_sign_in_codes'),
    courierSessions: open<CourierSessionDoc>('courier_sessions'),
    quotes: open<QuoteDoc>('quotes'),
    notifications: open<NotificationDoc>('notifications'),
    operators: open<OperatorDoc>('operators'),
    operatorPasswordTokens: open<OperatorPasswordTokenDoc>('operator_password_tokens'),
    operatorSessions: open<OperatorSessionDoc>('operator_sessions'),
    auditLog: open<AuditDoc>('audit_log'),
  };
}

/** Default of WEBHOOK_RETENTION_DAYS. */
export const DEFAULT_WEBHOOK_RETENTION_MS = 30 * 86_400_000;

/** A TTL index whose expiry follows the setting: an existing one with another expiry is changed in place (collMod). */
async function ttlIndex<T extends object>(db: Db, collection: Collection<T>, field: string, name: string, seconds: number): Promise<void> {
  try {
    await collection.createIndex({ [field]: 1 }, { expireAfterSeconds: seconds, name });
  } catch (error) {
    if (!(error instanceof MongoServerError) || (error.code !== 85 && error.code !== 86)) throw error;
    await db.command({ collMod: collection.collectionName, index: { name, expireAfterSeconds: seconds } });
  }
}

/**
 * Indexes earlier versions created that no query reads any more: each one costs every write.
 * orders_merchant served the list in _id order (now orders_merchant_status); orders_queue and
 * batches_pending are prefixes of their `_fifo` successors; orders_events_prunable left out the ends
 * of a failed delivery (now orders_events_prunable_ended).
 */
const RETIRED_INDEXES: Array<[keyof MongoCollections, string]> = [
  ['orders', 'orders_merchant'],
  ['orders', 'orders_queue'],
  ['batches', 'batches_pending'],
  // Superseded by orders_events_prunable_ended, whose filter also holds returned and disposed orders.
  ['orders', 'orders_events_prunable'],
];

async function dropRetiredIndexes(c: MongoCollections): Promise<void> {
  for (const collection of new Set(RETIRED_INDEXES.map(([name]) => name))) {
    // Listed first: only an index that exists is dropped (and a store that never had one asks nothing).
    const present = new Set((await c[collection].listIndexes().toArray()).map((index) => String(index.name)));
    for (const [owner, name] of RETIRED_INDEXES) {
      if (owner !== collection || !present.has(name)) continue;
      try {
        await c[collection].dropIndex(name);
      } catch (error) {
        // Dropped meanwhile by another node starting up (IndexNotFound).
        if (!(error instanceof MongoServerError) || error.code !== 27) throw error;
      }
    }
  }
}

/** Fails opening with what to do when a status-set index no longer filters on its set. */
async function assertStatusIndexes(c: MongoCollections): Promise<void> {
  const indexes = await c.orders.listIndexes().toArray().catch((error: unknown) => {
    if (error instanceof MongoServerError && error.code === 26) return []; // NamespaceNotFound: a new store
    throw error;
  });
  for (const index of indexes) {
    const set = STATUS_SET_INDEXES[String(index.name) as keyof typeof STATUS_SET_INDEXES];
    // A store that does not report the filter (jongodb may not) has nothing to compare.
    if (!set || index.partialFilterExpression === undefined) continue;
    const found = JSON.stringify(index.partialFilterExpression ?? null);
    if (found !== JSON.stringify(statusIn(set))) {
      throw new Error(
        `MongoDB index orders.${String(index.name)} does not filter on the domain's '${set}' statuses (src/domain/vocabulary.ts): it says ${found}, ` +
          `the set writes ${JSON.stringify(statusIn(set))}. Give the index a new name in STATUS_SET_INDEXES and createIndexes, and retire the old one (RETIRED_INDEXES).`,
      );
    }
  }
}

async function createIndexes(c: MongoCollections, db: Db, webhookRetentionSeconds: number): Promise<void> {
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
    // A merchant's order list, newest first, seeks for every filter: one index scan per status
    // (every status when none is asked), merged in order; the date range and the keyset cursor are
    // ranges of createdAt within each.
    c.orders.createIndex({ merchantId: 1, mode: 1, status: 1, createdAt: -1, _id: -1 }, { name: 'orders_merchant_status' }),
    c.orders.createIndex({ merchantId: 1, mode: 1, referenceId: 1 }, { name: 'orders_reference' }),
    c.orders.createIndex({ merchantId: 1, mode: 1, ecommerceOrderId: 1 }, { name: 'orders_ecommerce' }),
    // The queue in its exact order (createdAt, then _id): a page of it without an in-memory sort of every queued order.
    c.orders.createIndex({ mode: 1, status: 1, createdAt: 1, _id: 1 }, { name: 'orders_queue_fifo' }),
    // Retention (orders.pruneEvents): orders over with events left, a seek on eventsPruned = null; an
    // order gets its entry when it ends (not at creation). The reconciler's orders still new in a batch.
    c.orders.createIndex(
      { status: 1, eventsPruned: 1, createdAt: 1, _id: 1 },
      { name: 'orders_events_prunable_ended', partialFilterExpression: statusIn('terminal') },
    ),
    c.orders.createIndex({ mode: 1, createdAt: 1, _id: 1 }, { name: 'orders_new_in_batch', partialFilterExpression: { status: 'new', batchId: { $type: 'string' } } }),
    // Consolidation reads a geohash prefix as a range ($gte prefix, $lt prefix + '~') on this index.
    c.orders.createIndex({ merchantId: 1, mode: 1, 'pickup.geohash': 1 }, { name: 'orders_zone' }),
    // Operators' late orders (issue #41): orders in progress by ETA and by delivery window end, the
    // two branches of the late test ($or), so the on-time orders in progress are never read.
    c.orders.createIndex({ estimatedDeliveryAt: 1 }, { name: 'orders_late_eta', partialFilterExpression: statusIn('active') }),
    c.orders.createIndex({ deliverBefore: 1 }, { name: 'orders_late_window', partialFilterExpression: statusIn('active') }),
    // A courier's deliveries by delivery time (the courier's earnings, issue #30 item 4).
    c.orders.createIndex({ courierId: 1, 'proof.deliveredAt': 1, _id: 1 }, { name: 'orders_delivered_by', partialFilterExpression: { status: 'completed' } }),
    c.orderEvents.createIndex({ orderId: 1, sequence: 1 }, { unique: true, name: 'order_events_sequence' }),
    c.idempotencyKeys.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0, name: 'idempotency_keys_ttl' }),
    c.batches.createIndex({ merchantId: 1, mode: 1, _id: -1 }, { name: 'batches_merchant' }),
    c.batches.createIndex({ mode: 1, status: 1, createdAt: 1, _id: 1 }, { name: 'batches_pending_fifo' }),
    c.ledger.createIndex({ merchantId: 1, mode: 1, at: 1 }, { name: 'ledger_merchant' }),
    c.ledger.createIndex({ merchantId: 1, mode: 1, kind: 1, at: 1, _id: 1 }, { name: 'ledger_cod_merchant' }),
    c.ledger.createIndex({ courierId: 1 }, { name: 'ledger_cod_courier', partialFilterExpression: { courierId: { $exists: true } } }),
    // Issue #39: the claims waiting for an operator, and what was handed over against an order's claim.
    c.ledger.createIndex({ codState: 1, at: 1, _id: 1 }, { name: 'ledger_cod_waiting', partialFilterExpression: { codState: { $exists: true } } }),
    c.ledger.createIndex({ orderId: 1 }, { name: 'ledger_cod_handover_order', partialFilterExpression: { kind: 'cod_handover' } }),
    c.webhookEndpoints.createIndex({ merchantId: 1, mode: 1, _id: 1 }, { name: 'webhook_endpoints_merchant' }),
    // Recipient notifications: due rows (claimDue), a merchant's page newest first, retention by age.
    c.notifications.createIndex({ status: 1, nextAttemptAt: 1, id: 1 }, { name: 'notifications_due' }),
    c.notifications.createIndex({ merchantId: 1, mode: 1, id: -1 }, { name: 'notifications_merchant' }),
    c.notifications.createIndex({ id: 1 }, { unique: true, name: 'notifications_id' }),
    c.notifications.createIndex({ createdAt: 1 }, { name: 'notifications_created' }),
    // claimDue: equality on status, range and sort on nextAttemptAt (then _id, so the order is total).
    c.webhookDeliveries.createIndex({ status: 1, nextAttemptAt: 1, _id: 1 }, { name: 'webhook_deliveries_due' }),
    c.webhookDeliveries.createIndex({ merchantId: 1, mode: 1, _id: -1 }, { name: 'webhook_deliveries_merchant' }),
    // claimDue's fair share: one merchant's due deliveries, oldest first; and the leases in flight.
    c.webhookDeliveries.createIndex({ status: 1, merchantId: 1, nextAttemptAt: 1, _id: 1 }, { name: 'webhook_deliveries_due_merchant' }),
    c.webhookDeliveries.createIndex({ status: 1, leaseUntil: 1 }, { name: 'webhook_deliveries_leased' }),
    c.webhookAttempts.createIndex({ deliveryId: 1, attempt: 1 }, { name: 'webhook_attempts_delivery' }),
    // Leases and courier-location slots that ran out an hour ago (pruneExpired does the same on demand).
    c.leases.createIndex({ until: 1 }, { expireAfterSeconds: 3600, name: 'leases_ttl' }),
    // Retention: deliveries and attempts go WEBHOOK_RETENTION_DAYS after creation (prune() does the same on demand).
    ttlIndex(db, c.webhookDeliveries, 'createdOn', 'webhook_deliveries_ttl', webhookRetentionSeconds),
    ttlIndex(db, c.webhookAttempts, 'atOn', 'webhook_attempts_ttl', webhookRetentionSeconds),
    c.idempotentWrites.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0, name: 'idempotent_writes_ttl' }),
    c.proofBudgets.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0, name: 'proof_budgets_ttl' }),
    // The feed: one merchant's events by position (null = not sequenced yet). No TTL index: retention
    // (events.prune) gives waiting events their positions before it removes them, so no gap goes unseen.
    c.eventFeed.createIndex({ merchantId: 1, mode: 1, position: 1, at: 1 }, { name: 'event_feed_position' }),
    c.eventFeed.createIndex({ at: 1 }, { name: 'event_feed_at' }),
    c.webhookDeliveries.createIndex({ createdAt: 1 }, { name: 'webhook_deliveries_created' }),
    c.webhookDeliveries.createIndex({ endpointId: 1, status: 1 }, { name: 'webhook_deliveries_endpoint' }),
    // Team members: one email per merchant; tokens and sessions go at their expiry (pruneExpired does the same on demand).
    c.members.createIndex({ merchantId: 1, email: 1 }, { unique: true, name: 'members_email' }),
    // An email-only sign-in finds the person's memberships across merchants (issue #28).
    c.members.createIndex({ email: 1, createdAt: 1 }, { name: 'members_by_email' }),
    c.memberPasswordTokens.createIndex({ memberId: 1 }, { name: 'member_password_tokens_member' }),
    c.memberPasswordTokens.createIndex({ expireOn: 1 }, { expireAfterSeconds: 0, name: 'member_password_tokens_ttl' }),
    c.memberSessions.createIndex({ memberId: 1 }, { name: 'member_sessions_member' }),
    c.memberSessions.createIndex({ expireOn: 1 }, { expireAfterSeconds: 0, name: 'member_sessions_ttl' }),
    // Couriers' sign-in codes and app sessions (issue #27), the same way.
    c.courierSignInCodes.createIndex({ courierId: 1 }, { name: 'courier_sign_in_codes_courier' }),
    c.courierSignInCodes.createIndex({ expireOn: 1 }, { expireAfterSeconds: 0, name: 'courier_sign_in_codes_ttl' }),
    c.courierSessions.createIndex({ courierId: 1 }, { name: 'courier_sessions_courier' }),
    c.courierSessions.createIndex({ expireOn: 1 }, { expireAfterSeconds: 0, name: 'courier_sessions_ttl' }),
    // Quotes go a day after they expire (until then an order naming one gets QUOTE_EXPIRED, not QUOTE_NOT_FOUND).
    c.quotes.createIndex({ expireAt: 1 }, { expireAfterSeconds: 86_400, name: 'quotes_ttl' }),
    c.quotes.createIndex({ expiresAt: 1 }, { name: 'quotes_expiry' }),
    // Operators: one email each; tokens and sessions go at their expiry, like members'.
    c.operators.createIndex({ email: 1 }, { unique: true, name: 'operators_email' }),
    c.operatorPasswordTokens.createIndex({ operatorId: 1 }, { name: 'operator_password_tokens_operator' }),
    c.operatorPasswordTokens.createIndex({ expireOn: 1 }, { expireAfterSeconds: 0, name: 'operator_password_tokens_ttl' }),
    c.operatorSessions.createIndex({ operatorId: 1 }, { name: 'operator_sessions_operator' }),
    c.operatorSessions.createIndex({ expireOn: 1 }, { expireAfterSeconds: 0, name: 'operator_sessions_ttl' }),
    // The audit log: newest first by _id within each filter; pruned by age (retention, in batches).
    c.auditLog.createIndex({ at: 1 }, { name: 'audit_log_at' }),
    c.auditLog.createIndex({ actor: 1, _id: -1 }, { name: 'audit_log_actor' }),
    c.auditLog.createIndex({ action: 1, _id: -1 }, { name: 'audit_log_action' }),
    c.auditLog.createIndex({ targetType: 1, targetId: 1, _id: -1 }, { name: 'audit_log_target' }),
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
