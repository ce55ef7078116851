import { MongoClient, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMongoDatabase, type MongoDatabase } from '../../src/adapters/mongo/database.js';
import { ORDER_STATUSES } from '../../src/domain/types.js';
import { mongoForTestFile, uniqueDbName, type MongoServer } from '../helpers/mongo.js';

/**
 * Every query path of the MongoDB adapters (src/adapters/mongo/*.ts), with the index that serves
 * it. Against a real MongoDB (MONGODB_URL) each one is explained: no COLLSCAN, the expected index
 * in the winning plan, and no in-memory SORT where the query takes a limited page. On jongodb (no
 * `explain`) the table is still checked against the indexes start-up creates: each named index
 * exists and its leading field is constrained by the query.
 *
 * A write (update, delete, find-and-modify) is planned as a find with its filter. Filters by `_id`
 * alone (findById, compare-and-set on one document, lease names) are one entry per collection.
 * The collections are empty when explained, so where two indexes serve a query equally well
 * (neither needs a sort) either is accepted; a new query path needs a row here.
 */
interface QueryPath {
  /** adapter file: method (what issues the query). */
  name: string;
  collection: string;
  filter: Document;
  sort?: Document;
  limit?: number;
  /** Index names one of which (each, for an $or) the winning plan uses. */
  index: string[];
  /** Why an in-memory SORT is acceptable on this limited query (omitted: none is). */
  sortAccepted?: string;
  /**
   * The fields the index's leading keys must be, in any order: the query seeks on each of them
   * (an index that merely starts with one constrained field can walk every document of a merchant).
   */
  seek?: string[];
}

const T = '2026-01-01T00:00:00.000Z';
const byId = (collection: string, what: string): QueryPath => ({ name: `${what} by _id`, collection, filter: { _id: 'x' }, index: ['_id_'] });

export const QUERY_PATHS: QueryPath[] = [
  // api-keys.ts
  { name: 'api-keys: findByHash', collection: 'api_keys', filter: { hash: 'h' }, index: ['api_keys_hash'] },
  { name: 'api-keys: listByMerchant', collection: 'api_keys', filter: { merchantId: 'm' }, sort: { createdAt: 1, _id: 1 }, index: ['api_keys_merchant'] },
  { name: 'api-keys: replace / revokeAll (active keys)', collection: 'api_keys', filter: { merchantId: 'm', mode: 'test', status: 'active' }, index: ['api_keys_merchant'] },
  // merchants.ts
  byId('merchants', 'merchants: findById, update, storefront secret'),
  { name: 'merchants: findByStorefrontDomain (partial index)', collection: 'merchants', filter: { 'settings.storefrontDomain': { $eq: 'shop.example.com', $type: 'string' } }, index: ['merchants_storefront_domain'] },
  { name: 'merchants: list (page by _id)', collection: 'merchants', filter: { _id: { $gt: 'x' } }, sort: { _id: 1 }, limit: 100, index: ['_id_'] },
  { name: 'merchants: listSecrets', collection: 'merchant_secrets', filter: { merchantId: 'm' }, sort: { createdAt: -1, _id: -1 }, index: ['merchant_secrets_merchant'] },
  { name: 'merchants: rotateSecret (expire the current)', collection: 'merchant_secrets', filter: { merchantId: 'm', expiresAt: null }, index: ['merchant_secrets_merchant'] },
  // users.ts
  { name: 'users: insert (upsert on RUT) / findByRut', collection: 'users', filter: { rut: '11111111-1' }, index: ['users_rut'] },
  // couriers.ts
  byId('couriers', 'couriers: findById, setStatus, setLocations, rotateToken, setAccountStatus'),
  { name: 'couriers: findByTokenHash', collection: 'couriers', filter: { tokenHash: 'h' }, index: ['couriers_token_hash'] },
  { name: 'couriers: listByMode', collection: 'couriers', filter: { mode: 'test' }, sort: { _id: 1 }, index: ['couriers_mode'] },
  { name: 'couriers: listPage (mode)', collection: 'couriers', filter: { _id: { $gt: 'c' }, mode: 'test', status: 'available' }, sort: { _id: 1 }, limit: 50, index: ['couriers_mode', '_id_'] },
  { name: 'couriers: listPage (all)', collection: 'couriers', filter: { _id: { $gt: 'c' } }, sort: { _id: 1 }, limit: 50, index: ['_id_'] },
  // telemetry.ts
  { name: 'telemetry: listByMerchant', collection: 'integration_telemetry', filter: { merchantId: 'm' }, sort: { lastSeenAt: -1, integration: 1, site: 1 }, index: ['telemetry_merchant'] },
  // orders.ts
  byId('orders', 'orders: findById, apply, assign, tryDeliveryPin'),
  byId('idempotency_keys', 'orders: idempotency key claim and lookup'),
  { name: 'orders: findByAnyId (merchant and one of four ids)', collection: 'orders', filter: { merchantId: 'm', mode: 'test', $or: [{ referenceId: 'r' }, { ecommerceOrderId: 'r' }, { trackingNumber: 'r' }, { orderNumber: 'r' }] }, sort: { _id: -1 }, limit: 3, index: ['orders_reference', 'orders_ecommerce', 'orders_tracking_number', 'orders_order_number'], sortAccepted: 'at most a few documents match the four ids' },
  { name: 'orders: findByTrackingRef', collection: 'orders', filter: { $or: [{ trackingNumber: 'r' }, { orderNumber: 'r' }] }, limit: 2, index: ['orders_tracking_number', 'orders_order_number'] },
  { name: 'orders: list (the page cursor: one of the merchant\'s orders)', collection: 'orders', filter: { _id: 'x', merchantId: 'm', mode: 'test' }, index: ['_id_'] },
  { name: 'orders: list (every status, each one scan, merged)', collection: 'orders', filter: { merchantId: 'm', mode: 'test', status: { $in: [...ORDER_STATUSES] } }, sort: { createdAt: -1, _id: -1 }, limit: 21, index: ['orders_merchant_status'], seek: ['merchantId', 'mode', 'status'] },
  { name: 'orders: list (every status, date range, below the cursor)', collection: 'orders', filter: { merchantId: 'm', mode: 'test', status: { $in: [...ORDER_STATUSES] }, createdAt: { $gte: T, $lte: T }, $nor: [{ createdAt: T, _id: { $gte: 'x' } }] }, sort: { createdAt: -1, _id: -1 }, limit: 21, index: ['orders_merchant_status'], seek: ['merchantId', 'mode', 'status', 'createdAt'] },
  { name: 'orders: list (one status, date range)', collection: 'orders', filter: { merchantId: 'm', mode: 'test', status: 'completed', createdAt: { $gte: T, $lt: T } }, sort: { createdAt: -1, _id: -1 }, limit: 21, index: ['orders_merchant_status'], seek: ['merchantId', 'mode', 'status', 'createdAt'] },
  { name: 'orders: list (several statuses merged, date range, below the cursor)', collection: 'orders', filter: { merchantId: 'm', mode: 'test', status: { $in: ['new', 'cancelled'] }, createdAt: { $gte: T, $lte: T }, $nor: [{ createdAt: T, _id: { $gte: 'x' } }] }, sort: { createdAt: -1, _id: -1 }, limit: 21, index: ['orders_merchant_status'], seek: ['merchantId', 'mode', 'status', 'createdAt'] },
  { name: 'orders: listAcrossMerchants (both modes, every status, date range, below the cursor)', collection: 'orders', filter: { mode: { $in: ['live', 'test'] }, status: { $in: [...ORDER_STATUSES] }, createdAt: { $gte: T, $lte: T }, $nor: [{ createdAt: T, _id: { $gte: 'x' } }] }, sort: { createdAt: -1, _id: -1 }, limit: 21, index: ['orders_queue_fifo'], seek: ['mode', 'status', 'createdAt'] },
  // late (issue #41): the late orders in progress counted up to the bound, each branch of the $or on its partial index.
  { name: 'orders: listAcrossMerchants (late: count the late orders, past the ETA or window)', collection: 'orders', filter: { status: { $in: ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'delivery_failed', 'returning'] }, $or: [{ estimatedDeliveryAt: { $lt: T } }, { deliverBefore: { $lt: T } }] }, limit: 5000, index: ['orders_late_eta', 'orders_late_window'] },
  { name: 'orders: listAcrossMerchants (one merchant)', collection: 'orders', filter: { mode: { $in: ['live', 'test'] }, status: { $in: [...ORDER_STATUSES] }, merchantId: 'm' }, sort: { createdAt: -1, _id: -1 }, limit: 21, index: ['orders_merchant_status'], seek: ['merchantId', 'mode', 'status'] },
  { name: 'orders: listAcrossMerchants (the page cursor, any merchant)', collection: 'orders', filter: { _id: 'x' }, index: ['_id_'] },
  { name: 'orders: listEvents', collection: 'order_events', filter: { orderId: 'o' }, sort: { sequence: 1 }, index: ['order_events_sequence'] },
  { name: 'orders: pruneEvents (old terminal orders)', collection: 'orders', filter: { mode: 'test', status: { $in: ['completed', 'cancelled', 'returned', 'disposed'] }, createdAt: { $lt: T } }, index: ['orders_queue_fifo'] },
  { name: 'orders: pruneEvents (events of those orders)', collection: 'order_events', filter: { orderId: { $in: ['a', 'b'] } }, index: ['order_events_sequence'] },
  { name: 'orders: listQueued', collection: 'orders', filter: { mode: 'test', status: 'new', courierId: null, batchId: null, vehicleType: { $in: ['motorcycle'] } }, sort: { createdAt: 1, _id: 1 }, limit: 100, index: ['orders_queue_fifo'] },
  { name: 'orders: listQueued with dueBy (scheduled orders not yet due left out)', collection: 'orders', filter: { mode: 'test', status: 'new', courierId: null, batchId: null, vehicleType: { $in: ['motorcycle'] }, $or: [{ dispatchAfter: null }, { dispatchAfter: { $lte: T } }] }, sort: { createdAt: 1, _id: 1 }, limit: 100, index: ['orders_queue_fifo'] },
  { name: 'orders: listNewInBatches', collection: 'orders', filter: { mode: 'test', status: 'new', batchId: { $ne: null } }, sort: { createdAt: 1, _id: 1 }, limit: 100, index: ['orders_queue_fifo'] },
  { name: "orders: listDeliveredBy (a courier's deliveries by delivery time)", collection: 'orders', filter: { courierId: 'c', status: 'completed', 'proof.deliveredAt': { $gte: T, $lt: T } }, sort: { 'proof.deliveredAt': 1, _id: 1 }, limit: 501, index: ['orders_delivered_by'], seek: ['courierId', 'proof.deliveredAt'] },
  { name: 'orders: listConsolidatable (geohash prefix)', collection: 'orders', filter: { merchantId: 'm', mode: 'test', 'pickup.geohash': { $gte: '66j', $lt: '66j~' }, status: { $in: ['new', 'assigned'] }, batchId: null }, sort: { createdAt: 1, _id: 1 }, limit: 50, index: ['orders_zone'], sortAccepted: "a geohash range cannot also give creation order; the zone's open orders are few" },
  // batches.ts
  byId('batches', 'batches: findById, update'),
  { name: 'batches: list', collection: 'batches', filter: { merchantId: 'm', mode: 'test', _id: { $lt: 'x' } }, sort: { _id: -1 }, limit: 50, index: ['batches_merchant'] },
  { name: 'batches: listPending', collection: 'batches', filter: { mode: 'test', status: 'pending', vehicleType: { $in: ['motorcycle'] } }, sort: { createdAt: 1, _id: 1 }, limit: 100, index: ['batches_pending_fifo'] },
  // ledger.ts
  { name: 'ledger: listByMerchant', collection: 'ledger', filter: { merchantId: 'm', mode: 'test' }, sort: { at: 1, _id: 1 }, index: ['ledger_merchant'] },
  { name: 'ledger: listCodCollections', collection: 'ledger', filter: { merchantId: 'm', mode: 'live', kind: 'cod_collected', at: { $gte: T, $lt: T } }, sort: { at: 1, _id: 1 }, limit: 51, index: ['ledger_cod_merchant'] },
  { name: 'ledger: merchantCodSums (mismatches)', collection: 'ledger', filter: { merchantId: 'm', mode: 'live', kind: 'cod_collected', at: { $gte: T, $lt: T }, mismatch: true }, index: ['ledger_cod_merchant'] },
  { name: 'ledger: courierCodSums', collection: 'ledger', filter: { courierId: 'cr' }, index: ['ledger_cod_courier'] },
  // webhooks.ts
  byId('webhook_endpoints', 'webhooks: findEndpoint, updateEndpoint, deleteEndpoint'),
  { name: 'webhooks: listEndpoints', collection: 'webhook_endpoints', filter: { merchantId: 'm', mode: 'test', enabled: true }, index: ['webhook_endpoints_merchant'] },
  byId('webhook_deliveries', 'webhooks: findDelivery, lease, completeAttempt'),
  { name: 'webhooks: claimDue (leases in flight)', collection: 'webhook_deliveries', filter: { status: 'pending', leaseUntil: { $gt: T } }, index: ['webhook_deliveries_leased'] },
  { name: 'webhooks: claimDue (the next merchant with pending deliveries, one seek each)', collection: 'webhook_deliveries', filter: { status: 'pending', merchantId: { $gt: 'm' } }, sort: { status: 1, merchantId: 1 }, limit: 1, index: ['webhook_deliveries_due_merchant'] },
  { name: "webhooks: claimDue (a merchant's due deliveries)", collection: 'webhook_deliveries', filter: { merchantId: 'm', status: 'pending', nextAttemptAt: { $lte: T }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: T } }] }, sort: { nextAttemptAt: 1, _id: 1 }, limit: 40, index: ['webhook_deliveries_due_merchant', 'webhook_deliveries_due'] },
  { name: 'webhooks: listDeliveries', collection: 'webhook_deliveries', filter: { merchantId: 'm', mode: 'test', endpointId: 'e', status: 'failed', createdAt: { $gte: T, $lt: T }, _id: { $lt: 'x' } }, sort: { _id: -1 }, limit: 50, index: ['webhook_deliveries_merchant'] },
  { name: 'webhooks: requeue', collection: 'webhook_deliveries', filter: { merchantId: 'm', mode: 'test', status: 'failed', createdAt: { $gte: T, $lt: T } }, index: ['webhook_deliveries_merchant'] },
  { name: 'webhooks: countPending (backlog bound)', collection: 'webhook_deliveries', filter: { endpointId: 'e', status: 'pending' }, index: ['webhook_deliveries_endpoint'] },
  { name: 'webhooks: prune (oldest first)', collection: 'webhook_deliveries', filter: { createdAt: { $lt: T } }, sort: { createdAt: 1 }, limit: 1000, index: ['webhook_deliveries_created'] },
  { name: 'webhooks: listAttempts, prune attempts', collection: 'webhook_attempts', filter: { deliveryId: 'd' }, sort: { attempt: 1, _id: 1 }, index: ['webhook_attempts_delivery'] },
  // leases.ts
  byId('leases', 'leases: acquire, release, takeSlot; members: the per-merchant owner guard'),
  { name: 'leases: pruneExpired', collection: 'leases', filter: { until: { $lt: new Date(T) } }, index: ['leases_ttl'] },
  // quotes.ts
  { name: 'quotes: find (by _id, within merchant and mode)', collection: 'quotes', filter: { _id: 'x', merchantId: 'm', mode: 'test' }, index: ['_id_'] },
  { name: 'quotes: prune (expired before)', collection: 'quotes', filter: { expiresAt: { $lt: T } }, limit: 1000, index: ['quotes_expiry'] },
  // idempotent-writes.ts
  byId('idempotent_writes', 'idempotent-writes: claim, take-over, complete, release'),
  { name: 'idempotent-writes: prune (expired before)', collection: 'idempotent_writes', filter: { expireAt: { $lt: new Date(T) } }, limit: 1000, index: ['idempotent_writes_ttl'] },
  // events.ts
  byId('event_feed_positions', 'events: sequence counter, lastPosition'),
  {
    name: "events: sequence (a merchant's events waiting for a position)", collection: 'event_feed', filter: { merchantId: 'm', mode: 'test', position: null }, sort: { at: 1, _id: 1 }, limit: 500, index: ['event_feed_position'],
    sortAccepted: 'the index gives `at` order; `_id` only breaks ties among the few events written in the same millisecond',
  },
  { name: 'events: list (feed page after a cursor)', collection: 'event_feed', filter: { merchantId: 'm', mode: 'test', position: { $gt: 0 } }, sort: { position: 1 }, limit: 100, index: ['event_feed_position'] },
  { name: 'events: prune (events still waiting, sequenced first)', collection: 'event_feed', filter: { position: null, at: { $lt: T } }, limit: 1000, index: ['event_feed_at'] },
  { name: 'events: prune (sequenced events past retention)', collection: 'event_feed', filter: { at: { $lt: T }, position: { $ne: null } }, limit: 1000, index: ['event_feed_at'] },
  // members.ts
  { name: 'members: insert (if absent, on merchant and email) / findByEmail', collection: 'members', filter: { merchantId: 'm', email: 'a@b.cl' }, index: ['members_email'] },
  { name: 'members: findById, update, remove (within the merchant)', collection: 'members', filter: { _id: 'x', merchantId: 'm' }, index: ['_id_', 'members_email'] },
  { name: 'members: list', collection: 'members', filter: { merchantId: 'm' }, sort: { createdAt: 1, _id: 1 }, index: ['members_email'] },
  { name: 'members: update, remove (the other active owners, in the guarded transaction)', collection: 'members', filter: { merchantId: 'm', _id: { $ne: 'x' }, role: 'owner', status: 'active' }, index: ['members_email'] },
  { name: 'members: trimSessionsOf (one member’s sessions, newest first)', collection: 'member_sessions', filter: { memberId: 'x' }, sort: { createdAt: -1, _id: -1 }, index: ['member_sessions_member'] },
  byId('member_sessions', 'members: findSession, touchSession, deleteSession'),
  { name: 'members: deleteSessionsOf, remove (sessions)', collection: 'member_sessions', filter: { memberId: 'x' }, index: ['member_sessions_member'] },
  { name: 'members: pruneExpired (sessions)', collection: 'member_sessions', filter: { expireOn: { $lt: new Date(T) } }, index: ['member_sessions_ttl'] },
  byId('member_password_tokens', 'members: consumePasswordToken'),
  { name: 'members: replacePasswordToken, remove (tokens)', collection: 'member_password_tokens', filter: { memberId: 'x', usedAt: null }, index: ['member_password_tokens_member'] },
  { name: 'members: pruneExpired (tokens)', collection: 'member_password_tokens', filter: { expireOn: { $lt: new Date(T) } }, index: ['member_password_tokens_ttl'] },
];

/** Field names a filter constrains at its top level (and in every branch of a top-level $or). */
function constrainedFields(filter: Document): Set<string> {
  const fields = new Set(Object.keys(filter).filter((k) => !k.startsWith('$')));
  const branches = filter.$or as Document[] | undefined;
  if (branches) {
    const each = branches.map((b) => new Set(Object.keys(b)));
    for (const f of each[0] ?? []) if (each.every((s) => s.has(f))) fields.add(f);
  }
  return fields;
}

/** The stages of a plan tree, depth first. */
function stagesOf(plan: Document): Document[] {
  const children = [plan.inputStage, ...((plan.inputStages as Document[] | undefined) ?? []), plan.queryPlan].filter(Boolean) as Document[];
  return [plan, ...children.flatMap(stagesOf)];
}

const { mongo, skipReason } = await mongoForTestFile();
const HOW_TO_RUN = 'MONGODB_URL=mongodb://localhost:27017/?replicaSet=rs0 npx vitest run test/adapters/mongo-query-plans.test.ts';

describe.skipIf(!mongo)(`MongoDB query paths and their indexes${mongo ? ` (${mongo.kind})` : ` (skipped: ${skipReason})`}`, () => {
  const server = mongo as MongoServer;
  const dbName = uniqueDbName('exd_query_plans');
  let database: MongoDatabase;
  let client: MongoClient;
  /** collection → index name → key pattern, as start-up created them. */
  const indexes = new Map<string, Map<string, Document>>();

  beforeAll(async () => {
    database = await openMongoDatabase({ url: server.url, dbName });
    client = new MongoClient(server.url);
    await client.connect();
    for (const collection of new Set(QUERY_PATHS.map((q) => q.collection))) {
      // A query on a collection never written to (no index either) still lists nothing: that fails below.
      const listed = await client.db(dbName).collection(collection).listIndexes().toArray().catch(() => []);
      indexes.set(collection, new Map(listed.map((i) => [String(i.name), i.key as Document])));
    }
  });
  afterAll(async () => {
    await client?.db(dbName).dropDatabase().catch(() => {});
    await client?.close();
    await database?.client.close();
    await server.stop();
  });

  it.each(QUERY_PATHS.map((q) => [q.name, q] as const))('%s: its index exists and leads with a field the query constrains', (_, query) => {
    const created = indexes.get(query.collection)!;
    const candidates = query.index.filter((name) => created.has(name));
    expect(candidates, `${query.collection} has none of ${query.index.join(', ')} (it has ${[...created.keys()].join(', ')})`).not.toEqual([]);
    const constrained = constrainedFields(query.filter);
    const branchFields = ((query.filter.$or as Document[] | undefined) ?? []).flatMap((b) => Object.keys(b));
    for (const name of candidates) {
      const leading = Object.keys(created.get(name)!)[0]!;
      expect(constrained.has(leading) || branchFields.includes(leading), `${name} leads with ${leading}, which the query does not constrain`).toBe(true);
      if (query.seek) {
        const prefix = Object.keys(created.get(name)!).slice(0, query.seek.length);
        expect([...prefix].sort(), `${name} must lead with ${query.seek.join(', ')} to seek on each (it has ${prefix.join(', ')})`).toEqual([...query.seek].sort());
        for (const field of query.seek) expect(constrained.has(field), `the query does not constrain ${field}`).toBe(true);
      }
    }
  });

  it('the retired indexes are not created (each would cost every write and serve no query)', () => {
    expect([...indexes.get('orders')!.keys()].filter((n) => ['orders_merchant', 'orders_queue', 'orders_events_prunable'].includes(n))).toEqual([]);
  });

  const explainable = server?.kind === 'external';
  if (mongo && !explainable) console.warn(`MongoDB query plans: explain() skipped on jongodb (it has no explain); to run it: ${HOW_TO_RUN}`);
  it.skipIf(!explainable)(`explain(): no COLLSCAN, the expected index, no in-memory SORT on a limited page${explainable ? '' : ` — skipped: jongodb has no explain; run against a real MongoDB replica set: ${HOW_TO_RUN}`}`, async () => {
    const db = client.db(dbName);
    const failures: string[] = [];
    for (const query of QUERY_PATHS) {
      let cursor = db.collection(query.collection).find(query.filter);
      if (query.sort) cursor = cursor.sort(query.sort);
      if (query.limit) cursor = cursor.limit(query.limit);
      const explained = await cursor.explain('queryPlanner');
      const winning = (explained.queryPlanner as Document).winningPlan as Document;
      const stages = stagesOf(winning);
      const names = stages.map((s) => String(s.stage));
      const used = stages.filter((s) => s.indexName).map((s) => String(s.indexName));
      const idHack = names.includes('IDHACK') || names.includes('EXPRESS_IXSCAN') || names.includes('EXPRESS_CLUSTERED_IXSCAN');
      if (names.includes('COLLSCAN')) failures.push(`${query.name}: COLLSCAN (${names.join(' < ')})`);
      else if (!idHack && !used.some((n) => query.index.includes(n))) failures.push(`${query.name}: uses ${used.join(', ') || names.join(' < ')}, expected ${query.index.join(' or ')}`);
      if (query.limit && query.sort && !query.sortAccepted && names.includes('SORT')) failures.push(`${query.name}: in-memory SORT (${names.join(' < ')})`);
    }
    expect(failures).toEqual([]);
  });

  it.skipIf(!explainable)(`the order list examines about as many index keys and documents as it returns, on a merchant with 3,000 orders and few matches${explainable ? '' : ' — skipped: jongodb has no explain'}`, async () => {
    const orders = client.db(dbName).collection<{ _id: string } & Document>('orders');
    const minute = (i: number) => new Date(Date.parse(T) + i * 60_000).toISOString();
    const statusOf = (i: number) => (i % 500 === 0 ? 'completed' : i % 300 === 0 ? 'cancelled' : 'new');
    await orders.insertMany(Array.from({ length: 3000 }, (_, i) => ({
      _id: `bk_seek_${String(i).padStart(5, '0')}`, merchantId: 'm_seek', mode: 'live', status: statusOf(i), createdAt: minute(i), orderNumber: `seek-${i}`, trackingNumber: `SEEK-${i}`,
    })));
    const page = { merchantId: 'm_seek', mode: 'live' };
    const filters: Document[] = [
      { ...page, status: { $in: [...ORDER_STATUSES] } },
      { ...page, status: 'completed' },
      { ...page, status: { $in: ['completed', 'cancelled'] } },
      { ...page, status: { $in: [...ORDER_STATUSES] }, createdAt: { $gte: minute(1000), $lt: minute(1010) } },
      { ...page, status: 'cancelled', createdAt: { $gte: minute(0), $lt: minute(1500) } },
      { ...page, status: { $in: ['completed', 'cancelled'] }, createdAt: { $gte: minute(0), $lte: minute(2000) }, $nor: [{ createdAt: minute(2000), _id: { $gte: 'bk_seek_02000' } }] },
    ];
    const failures: string[] = [];
    for (const filter of filters) {
      const explained = await orders.find(filter).sort({ createdAt: -1, _id: -1 }).limit(20).explain('executionStats');
      const stats = explained.executionStats as { nReturned: number; totalKeysExamined: number; totalDocsExamined: number };
      const names = stagesOf((explained.queryPlanner as Document).winningPlan as Document).map((s) => String(s.stage));
      // One extra key per index scan (where it stops) and a few for the merge.
      if (stats.totalKeysExamined > stats.nReturned + 4 || stats.totalDocsExamined > stats.nReturned + 4 || names.includes('SORT')) {
        failures.push(`${JSON.stringify(filter)}: returned ${stats.nReturned}, examined ${stats.totalKeysExamined} keys and ${stats.totalDocsExamined} documents (${names.join(' < ')})`);
      }
    }
    expect(failures).toEqual([]);
  });
});
