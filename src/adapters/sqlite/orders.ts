import { withStoredGeofence, withStoredPrecision } from '../../domain/geo.js';
import { INSERT_LEDGER_SQL, ledgerRow } from './ledger.js';
import { ORDER_STATUSES, type Order, type OrderEvent } from '../../domain/types.js';
import { DuplicateOrderIdentifierError, type IdempotencyRecord, type OrderRepository } from '../../ports/store.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase, WriteQueue } from './database.js';
import { createDeliveryWriter } from './webhooks.js';
import { createFeedWriter } from './events.js';
import { createNotificationWriter } from './notifications.js';
import { createAcrossMerchantsList } from './orders-across.js';
import { statusInSql } from './status-filters.js';

type DocRow = { doc: string };
/** A stored order; rows from before precision and geofence outcomes were recorded get them here. */
function orderOf(doc: string): Order {
  const order = JSON.parse(doc) as Order;
  if (!order.dropoff.precision || !order.pickup.precision || (order.proof && !order.proof.geofence)) {
    order.pickup = withStoredPrecision(order.pickup);
    order.dropoff = withStoredPrecision(order.dropoff);
    order.proof = withStoredGeofence(order.proof);
  }
  return order;
}
const parseOrder = (row: DocRow | undefined): Order | null => (row ? orderOf(row.doc) : null);

interface IdempotencyRow {
  merchant_id: string;
  mode: IdempotencyRecord['mode'];
  key: string;
  request_hash: string;
  order_id: string;
  created_at: string;
  expires_at: string;
}

const toIdempotency = (r: IdempotencyRow): IdempotencyRecord => ({
  merchantId: r.merchant_id,
  mode: r.mode,
  key: r.key,
  requestHash: r.request_hash,
  orderId: r.order_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

const columns = (o: Order) => ({
  id: o.id,
  merchantId: o.merchantId,
  mode: o.mode,
  orderNumber: o.orderNumber,
  trackingNumber: o.trackingNumber,
  referenceId: o.referenceId,
  ecommerceOrderId: o.ecommerceOrderId,
  status: o.status,
  courierId: o.courierId,
  batchId: o.batchId,
  vehicleType: o.vehicleType,
  pickupGeohash: o.pickup.geohash,
  createdAt: o.createdAt,
  dispatchAfter: o.dispatchAfter ?? null,
  doc: JSON.stringify(o),
});

/** What bounds a page from above: created_to, the cursor's position, or nothing. */
type PageBound = 'createdTo' | 'cursor' | null;

/**
 * One merchant's orders in one mode, newest first (created_at, then id), in keyset pages, all on
 * orders_merchant_status: one seek per status, merged in order (MERGE UNION ALL: each arm delivers
 * its rows in index order and the merge stops at the limit). Without a status filter every status
 * is one arm, so one index serves every filter and order creation writes no more B-trees than
 * before. The date range and the cursor cut each arm's range, so a page costs the same at any size.
 */
function listPageSql(statuses: number, from: boolean, upper: PageBound): string {
  const bounds = [
    from ? ' AND created_at >= @createdFrom' : '',
    upper === 'createdTo' ? ' AND created_at < @createdTo' : upper === 'cursor' ? ' AND (created_at, id) < (@cursorAt, @cursorId)' : '',
  ].join('');
  const arms = Array.from({ length: statuses }, (_, i) => `SELECT doc, created_at, id FROM orders WHERE merchant_id = @merchantId AND mode = @mode AND status = @s${i}${bounds}`);
  return `${arms.join(' UNION ALL ')} ORDER BY created_at DESC, id DESC LIMIT @limit`;
}

export function createSqliteOrderRepository(db: SqliteDatabase, inTransaction: WriteQueue): OrderRepository {
  const insertOrder = db.prepare(
    `INSERT INTO orders (id, merchant_id, mode, order_number, tracking_number, reference_id, ecommerce_order_id, status, courier_id, batch_id, vehicle_type, pickup_geohash, created_at, dispatch_after, doc)
     VALUES (@id, @merchantId, @mode, @orderNumber, @trackingNumber, @referenceId, @ecommerceOrderId, @status, @courierId, @batchId, @vehicleType, @pickupGeohash, @createdAt, @dispatchAfter, @doc)`,
  );
  const updateOrder = db.prepare('UPDATE orders SET status = @status, courier_id = @courierId, batch_id = @batchId, doc = @doc WHERE id = @id');
  const insertEvent = db.prepare('INSERT INTO order_events (id, order_id, sequence, doc) VALUES (?, ?, ?, ?)');
  const insertLedger = db.prepare(INSERT_LEDGER_SQL);
  const claimKey = db.prepare(
    `INSERT INTO idempotency_keys (merchant_id, mode, key, request_hash, order_id, created_at, expires_at)
     VALUES (@merchantId, @mode, @key, @requestHash, @orderId, @createdAt, @expiresAt) ON CONFLICT DO NOTHING`,
  );
  const reclaimExpiredKey = db.prepare(
    `UPDATE idempotency_keys SET request_hash = @requestHash, order_id = @orderId, created_at = @createdAt, expires_at = @expiresAt
     WHERE merchant_id = @merchantId AND mode = @mode AND key = @key AND expires_at <= @createdAt`,
  );
  const selectKey = db.prepare<[string, string, string], IdempotencyRow>(
    'SELECT * FROM idempotency_keys WHERE merchant_id = ? AND mode = ? AND key = ?',
  );
  const byId = db.prepare<[string], DocRow>('SELECT doc FROM orders WHERE id = ?');
  // One indexed lookup per kind of id (an OR across the four let SQLite walk all the merchant's
  // orders): references first, then tracking number, then order number; newest first within each.
  const byAnyId = db.prepare<{ m: string; mode: string; ref: string }, DocRow>(
    `SELECT doc FROM (
       SELECT doc, 0 AS rank, id FROM orders WHERE merchant_id = @m AND mode = @mode AND reference_id = @ref
       UNION ALL SELECT doc, 0, id FROM orders WHERE merchant_id = @m AND mode = @mode AND ecommerce_order_id = @ref
       UNION ALL SELECT doc, 1, id FROM orders WHERE tracking_number = @ref AND merchant_id = @m AND mode = @mode
       UNION ALL SELECT doc, 2, id FROM orders WHERE order_number = @ref AND merchant_id = @m AND mode = @mode
     ) ORDER BY rank, id DESC LIMIT 1`,
  );
  const byTrackingRef = db.prepare<{ ref: string }, DocRow>(
    'SELECT doc FROM orders WHERE tracking_number = @ref OR order_number = @ref ORDER BY tracking_number = @ref DESC LIMIT 1',
  );
  const cursorOf = db.prepare<[string, string, string], { created_at: string }>('SELECT created_at FROM orders WHERE id = ? AND merchant_id = ? AND mode = ?');
  const pages = new Map<string, Statement<Record<string, unknown>, DocRow>>();
  /** A page statement per shape of filter (prepared once): see listPageSql. */
  const pageOf = (statuses: number, from: boolean, upper: PageBound) => {
    const shape = `${statuses}/${from}/${upper}`;
    let statement = pages.get(shape);
    if (!statement) pages.set(shape, (statement = db.prepare<Record<string, unknown>, DocRow>(listPageSql(statuses, from, upper))));
    return statement;
  };
  const acrossMerchants = createAcrossMerchantsList(db);
  const writeOutbox = createDeliveryWriter(db);
  const writeFeed = createFeedWriter(db);
  const writeNotifications = createNotificationWriter(db);
  const eventsOf = db.prepare<[string], DocRow>('SELECT doc FROM order_events WHERE order_id = ? ORDER BY sequence');
  // Over, old, events left: a seek on the partial index orders_events_prunable, which an order
  // leaves once handled (events_pruned), so no step ever walks past the orders already done.
  const prunableOrders = db.prepare<[string, number], { id: string }>(
    `SELECT id FROM orders INDEXED BY orders_events_prunable WHERE ${statusInSql('terminal')} AND events_pruned IS NULL AND created_at < ? ORDER BY created_at, id LIMIT ?`,
  );
  const dropEvents = db.prepare<[string]>('DELETE FROM order_events WHERE order_id = ?');
  const markPruned = db.prepare<[string]>('UPDATE orders SET events_pruned = 1 WHERE id = ?');
  const pruneStep = db.transaction((createdBefore: string, limit: number) => {
    const ids = prunableOrders.all(createdBefore, limit);
    for (const { id } of ids) {
      dropEvents.run(id);
      markPruned.run(id);
    }
    return ids.length;
  });
  // The mode's new orders from a position on (a row-value seek on orders_queue_fifo); the document
  // comes back only for those listQueued would list.
  const scanQueuedSql = (vehicleTypes: number, from: boolean) =>
    `SELECT created_at, id, CASE WHEN courier_id IS NULL AND batch_id IS NULL AND vehicle_type IN (${Array(vehicleTypes).fill('?').join(', ')})
       AND (dispatch_after IS NULL OR dispatch_after <= ?) THEN doc END AS doc
     FROM orders WHERE mode = ? AND status = 'new' ${from ? 'AND (created_at, id) > (?, ?)' : ''} ORDER BY created_at, id LIMIT ?`;

  const create = db.transaction(
    (o: Parameters<OrderRepository['create']>[0]) => {
      const key = o.idempotency;
      if (key && claimKey.run(key).changes === 0 && reclaimExpiredKey.run(key).changes === 0) {
        return { created: false as const, existing: toIdempotency(selectKey.get(key.merchantId, key.mode, key.key)!) };
      }
      try {
        insertOrder.run(columns(o.order));
      } catch (error) {
        // id, order_number and tracking_number are the orders table's unique columns.
        throw (error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT_') && /UNIQUE|PRIMARY/.test(String(error)) ? new DuplicateOrderIdentifierError() : error;
      }
      insertEvent.run(o.event.id, o.event.orderId, o.event.sequence, JSON.stringify(o.event));
      for (const entry of [o.ledger ?? []].flat()) insertLedger.run(ledgerRow(entry));
      if (o.outbox) writeOutbox(o.outbox);
      writeFeed(o.feed);
      writeNotifications(o.notifications);
      return { created: true as const };
    },
  );

  const updateDoc = db.prepare<[string, string]>('UPDATE orders SET doc = ? WHERE id = ?');
  const tryPin = db.transaction((id: string, pin: string, maxAttempts: number, stopId: string | undefined) => {
    const order = parseOrder(byId.get(id));
    const current = stopId === undefined ? order?.deliveryPin : order?.stopPins?.[stopId];
    if (!order || !current) return null;
    if (current.failedAttempts >= maxAttempts) return { outcome: 'locked' as const, failedAttempts: current.failedAttempts };
    if (current.pin === pin) return { outcome: 'ok' as const, failedAttempts: current.failedAttempts };
    const counted = Object.assign({}, current, { failedAttempts: current.failedAttempts + 1 });
    const patch = stopId === undefined ? { deliveryPin: counted } : { stopPins: Object.assign({}, order.stopPins, { [stopId]: counted }) };
    updateDoc.run(JSON.stringify(Object.assign(order, patch)), id);
    return { outcome: 'invalid' as const, failedAttempts: counted.failedAttempts };
  });

  const apply = db.transaction((options: Parameters<OrderRepository['apply']>[0]): Order | null => {
    const current = parseOrder(byId.get(options.id));
    if (!current || !options.from.includes(current.status)) return null;
    // A field given as undefined is absent from the patch (it must not erase the stored value).
    const patch = Object.fromEntries(Object.entries(options.patch ?? {}).filter(([, value]) => value !== undefined));
    const next: Order = Object.assign({}, current, patch);
    if (options.to) next.status = options.to;
    let event: OrderEvent | null = null;
    if (options.event) {
      next.sequence = current.sequence + 1;
      event = Object.assign({}, options.event, { from: current.status, sequence: next.sequence });
      insertEvent.run(event.id, event.orderId, event.sequence, JSON.stringify(event));
      next.updatedAt = event.at;
    }
    updateOrder.run({ id: next.id, status: next.status, courierId: next.courierId, batchId: next.batchId, doc: JSON.stringify(next) });
    if (options.ledger) insertLedger.run(ledgerRow(options.ledger));
    if (options.outbox && event) writeOutbox(options.outbox(next, event));
    if (options.feed && event) writeFeed(options.feed(next, event));
    if (options.notifications && event) writeNotifications(options.notifications(next, event));
    return next;
  });

  const addTip = db.transaction((options: Parameters<OrderRepository['addTip']>[0]): Order | null => {
    const current = parseOrder(byId.get(options.id));
    if (!current || !options.from.includes(current.status) || (current.tip ?? 0) + options.amount > options.maxTotal) return null;
    const next: Order = Object.assign({}, current, { tip: (current.tip ?? 0) + options.amount });
    updateDoc.run(JSON.stringify(next), next.id);
    const entry = options.ledger(next);
    if (entry) insertLedger.run(ledgerRow(entry));
    if (options.outbox) writeOutbox(options.outbox(next));
    writeFeed(options.feed(next));
    return next;
  });
  const deliveredBy = db.prepare<[string, string, string, number], DocRow>(
    `SELECT doc FROM orders INDEXED BY orders_delivered_by WHERE courier_id = ? AND status = 'completed'
       AND json_extract(doc, '$.proof.deliveredAt') >= ? AND json_extract(doc, '$.proof.deliveredAt') < ?
     ORDER BY json_extract(doc, '$.proof.deliveredAt'), id LIMIT ?`,
  );

  const updateEstimate = db.transaction((options: Parameters<OrderRepository['updateEstimate']>[0]): Order | null => {
    const current = parseOrder(byId.get(options.id));
    if (!current || current.courierId !== options.courierId || !options.from.includes(current.status)) return null;
    const etaAnnounced = options.etaAnnounced ?? current.etaAnnounced ?? options.etaBaseline;
    const next: Order = Object.assign({}, current, { estimatedDeliveryAt: options.estimatedDeliveryAt }, etaAnnounced && { etaAnnounced });
    updateOrder.run({ id: next.id, status: next.status, courierId: next.courierId, batchId: next.batchId, doc: JSON.stringify(next) });
    if (options.outbox) writeOutbox(options.outbox(next));
    return next;
  });

  return {
    async create(options) {
      return inTransaction(() => create(options));
    },
    async findById(id) {
      return parseOrder(byId.get(id));
    },
    async findIdempotencyKey({ merchantId, mode, key }) {
      const row = selectKey.get(merchantId, mode, key);
      return row ? toIdempotency(row) : null;
    },
    async findByAnyId({ merchantId, mode, ref }) {
      const direct = parseOrder(byId.get(ref));
      if (direct && direct.merchantId === merchantId && direct.mode === mode) return direct;
      return parseOrder(byAnyId.get({ m: merchantId, mode, ref }));
    },
    async findByTrackingRef(ref) {
      return parseOrder(byTrackingRef.get({ ref }));
    },
    async apply(options) {
      return inTransaction(() => apply(options));
    },
    async updateEstimate(options) {
      return inTransaction(() => updateEstimate(options));
    },
    async addTip(options) {
      return inTransaction(() => addTip(options));
    },
    async listDeliveredBy({ courierId, from, to, limit }) {
      return deliveredBy.all(courierId, from, to, limit).map((row) => orderOf(row.doc));
    },
    async list({ merchantId, mode, statuses, createdFrom, createdTo, after, limit }) {
      const params: Record<string, unknown> = { merchantId, mode, limit };
      let upper: PageBound = createdTo ? 'createdTo' : null;
      if (createdTo) params.createdTo = createdTo;
      if (after) {
        // The page goes on below the cursor's order, newest first; an id that is not one of this
        // merchant's orders in this mode has nothing below it.
        const cursor = cursorOf.get(after, merchantId, mode);
        if (!cursor) return [];
        // Only the lower of the two upper bounds is written: it implies the other, and one bound
        // is what the index range is cut by.
        if (!createdTo || cursor.created_at < createdTo) {
          upper = 'cursor';
          Object.assign(params, { cursorAt: cursor.created_at, cursorId: after });
          delete params.createdTo;
        }
      }
      if (createdFrom) params.createdFrom = createdFrom;
      const distinct = statuses?.length ? [...new Set(statuses)] : ORDER_STATUSES;
      distinct.forEach((s, i) => (params[`s${i}`] = s));
      return pageOf(distinct.length, Boolean(createdFrom), upper).all(params).map((r) => orderOf(r.doc));
    },
    async listAcrossMerchants(options) {
      const page = acrossMerchants(options);
      return { orders: page.orders.map(orderOf), resumeAfter: page.resumeAfter };
    },
    async listEvents(orderId) {
      return eventsOf.all(orderId).map((r) => JSON.parse(r.doc) as OrderEvent);
    },
    async pruneEvents({ createdBefore, limit }) {
      return limit > 0 ? pruneStep.immediate(createdBefore, limit) : 0;
    },
    async listQueued({ mode, vehicleTypes, limit, dueBy }) {
      if (vehicleTypes.length === 0) return [];
      const due = dueBy === undefined ? '' : 'AND (dispatch_after IS NULL OR dispatch_after <= ?)';
      const sql = `SELECT doc FROM orders WHERE mode = ? AND status = 'new' AND courier_id IS NULL AND batch_id IS NULL
        AND vehicle_type IN (${vehicleTypes.map(() => '?').join(', ')}) ${due} ORDER BY created_at, id LIMIT ?`;
      const params = dueBy === undefined ? [mode, ...vehicleTypes, limit] : [mode, ...vehicleTypes, dueBy, limit];
      return db.prepare<unknown[], DocRow>(sql).all(...params).map((r) => orderOf(r.doc));
    },
    async scanQueued({ mode, vehicleTypes, dueBy, after, examine }) {
      if (examine <= 0) return { orders: [], next: after };
      const types = vehicleTypes.length > 0 ? vehicleTypes : [null];
      const params = [...types, dueBy, mode, ...(after ? [after.createdAt, after.id] : []), examine];
      const rows = db.prepare<unknown[], { created_at: string; id: string; doc: string | null }>(scanQueuedSql(types.length, !!after)).all(...params);
      const last = rows.at(-1);
      return {
        orders: rows.flatMap((r) => (r.doc === null ? [] : [orderOf(r.doc)])),
        next: rows.length < examine || !last ? null : { createdAt: last.created_at, id: last.id },
      };
    },
    async tryDeliveryPin({ id, pin, maxAttempts, stopId }) {
      return inTransaction(() => tryPin(id, pin, maxAttempts, stopId));
    },
    async listNewInBatches({ mode, limit, after }) {
      // On the partial index orders_new_in_batch, which holds only such orders (the planner, without
      // statistics, would take orders_queue_fifo and walk every new order).
      const from = after ? 'AND (created_at, id) > (?, ?)' : '';
      const sql = `SELECT doc FROM orders INDEXED BY orders_new_in_batch WHERE mode = ? AND status = 'new' AND batch_id IS NOT NULL ${from} ORDER BY created_at, id LIMIT ?`;
      const params = after ? [mode, after.createdAt, after.id, limit] : [mode, limit];
      return db.prepare<unknown[], DocRow>(sql).all(...params).map((r) => orderOf(r.doc));
    },
    async listConsolidatable({ merchantId, mode, geohashPrefix, limit }) {
      const sql = `SELECT doc FROM orders WHERE merchant_id = ? AND mode = ? AND status IN ('new', 'assigned') AND batch_id IS NULL
        AND pickup_geohash >= ? AND pickup_geohash < ? ORDER BY created_at, id LIMIT ?`;
      return db
        .prepare<unknown[], DocRow>(sql)
        .all(merchantId, mode, geohashPrefix, `${geohashPrefix}~`, limit)
        .map((r) => orderOf(r.doc));
    },
  };
}
