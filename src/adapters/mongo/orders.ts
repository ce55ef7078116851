import { type ClientSession, type Filter, MongoServerError, type UpdateFilter } from 'mongodb';
import { withStoredGeofence, withStoredPrecision } from '../../domain/geo.js';
import { ORDER_STATUSES, type LedgerEntry, type Order, type OrderEvent, type WebhookDelivery } from '../../domain/types.js';
import { DuplicateOrderIdentifierError, type IdempotencyRecord, type NewFeedEvent, type OrderPatch, type OrderRepository, type QueuePosition } from '../../ports/store.js';
import { writeFeedEvent } from './events.js';
import { statusIn, type IdempotencyDoc, type MongoDatabase, type OrderDoc, type OrderEventDoc } from './database.js';
import { toLedgerDoc } from './ledger.js';
import { writeDeliveries } from './webhooks.js';
import { writeNotifications } from './notifications.js';
import type { Notification } from '../../domain/notifications/types.js';

const toOrderDoc = (o: Order): OrderDoc => ({
  _id: o.id,
  merchantId: o.merchantId,
  mode: o.mode,
  orderNumber: o.orderNumber,
  trackingNumber: o.trackingNumber,
  referenceId: o.referenceId,
  ecommerceOrderId: o.ecommerceOrderId,
  status: o.status,
  pickup: o.pickup,
  dropoff: o.dropoff,
  customer: o.customer,
  paymentMode: o.paymentMode,
  items: o.items,
  notes: o.notes,
  weightKg: o.weightKg,
  vehicleType: o.vehicleType,
  price: o.price,
  currency: o.currency,
  prepTimeMins: o.prepTimeMins,
  estimatedPickupAt: o.estimatedPickupAt,
  estimatedDeliveryAt: o.estimatedDeliveryAt,
  courierId: o.courierId,
  batchId: o.batchId,
  proof: o.proof,
  cancellation: o.cancellation,
  sequence: o.sequence,
  createdAt: o.createdAt,
  updatedAt: o.updatedAt,
  ...(o.dimensions && { dimensions: o.dimensions }),
  ...(o.quote && { quote: o.quote }),
  ...(o.scheduledPickupAt && { scheduledPickupAt: o.scheduledPickupAt }),
  ...(o.deliverBefore && { deliverBefore: o.deliverBefore }),
  ...(o.dispatchAfter && { dispatchAfter: o.dispatchAfter }),
  ...(o.deliveryPin && { deliveryPin: o.deliveryPin }),
  ...(o.idCheck && { idCheck: o.idCheck }),
  ...(o.codAmount != null && { codAmount: o.codAmount }),
  ...(o.codCollection && { codCollection: o.codCollection }),
  ...(o.etaAnnounced && { etaAnnounced: o.etaAnnounced }),
  ...(o.failedAttemptPolicy && { failedAttemptPolicy: o.failedAttemptPolicy }),
  ...(o.failedAttempts && { failedAttempts: o.failedAttempts }),
  ...(o.returnLeg && { returnLeg: o.returnLeg }),
  ...(o.tip && { tip: o.tip }),
  ...(o.stops && { stops: o.stops, route: o.route ?? 'given' }),
  ...(o.stopPins && { stopPins: o.stopPins }),
});

const toOrder = (d: OrderDoc): Order => ({
  id: d._id,
  merchantId: d.merchantId,
  mode: d.mode,
  orderNumber: d.orderNumber,
  trackingNumber: d.trackingNumber,
  referenceId: d.referenceId,
  ecommerceOrderId: d.ecommerceOrderId,
  status: d.status,
  // Documents from before precision and geofence outcomes were recorded get them here.
  pickup: withStoredPrecision(d.pickup),
  dropoff: withStoredPrecision(d.dropoff),
  customer: d.customer,
  paymentMode: d.paymentMode,
  items: d.items,
  notes: d.notes,
  weightKg: d.weightKg,
  vehicleType: d.vehicleType,
  price: d.price,
  currency: d.currency,
  prepTimeMins: d.prepTimeMins,
  estimatedPickupAt: d.estimatedPickupAt,
  estimatedDeliveryAt: d.estimatedDeliveryAt,
  courierId: d.courierId,
  batchId: d.batchId,
  proof: withStoredGeofence(d.proof),
  cancellation: d.cancellation,
  sequence: d.sequence,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
  ...(d.dimensions && { dimensions: d.dimensions }),
  ...(d.quote && { quote: d.quote }),
  ...(d.scheduledPickupAt && { scheduledPickupAt: d.scheduledPickupAt }),
  ...(d.deliverBefore && { deliverBefore: d.deliverBefore }),
  ...(d.dispatchAfter && { dispatchAfter: d.dispatchAfter }),
  ...(d.deliveryPin && { deliveryPin: d.deliveryPin }),
  ...(d.idCheck && { idCheck: d.idCheck }),
  ...(d.codAmount != null && { codAmount: d.codAmount }),
  ...(d.codCollection && { codCollection: d.codCollection }),
  ...(d.etaAnnounced && { etaAnnounced: d.etaAnnounced }),
  ...(d.failedAttemptPolicy && { failedAttemptPolicy: d.failedAttemptPolicy }),
  ...(d.failedAttempts && { failedAttempts: d.failedAttempts }),
  ...(d.returnLeg && { returnLeg: d.returnLeg }),
  ...(d.tip && { tip: d.tip }),
  ...(d.stops && { stops: d.stops, route: d.route ?? 'given' }),
  ...(d.stopPins && { stopPins: d.stopPins }),
});

const toEventDoc = (e: OrderEvent): OrderEventDoc => ({
  _id: e.id,
  orderId: e.orderId,
  merchantId: e.merchantId,
  mode: e.mode,
  sequence: e.sequence,
  from: e.from,
  to: e.to,
  actor: e.actor,
  location: e.location,
  reason: e.reason,
  at: e.at,
});

const toEvent = (d: OrderEventDoc): OrderEvent => ({
  id: d._id,
  orderId: d.orderId,
  merchantId: d.merchantId,
  mode: d.mode,
  sequence: d.sequence,
  from: d.from,
  to: d.to,
  actor: d.actor,
  location: d.location,
  reason: d.reason,
  at: d.at,
});

/** Orders after a position in creation order (createdAt, then _id): a seek on an index ending in those two. */
const afterPosition = (p: QueuePosition): Filter<OrderDoc> => ({ $or: [{ createdAt: { $gt: p.createdAt } }, { createdAt: p.createdAt, _id: { $gt: p.id } }] });

const idempotencyId = (r: Pick<IdempotencyRecord, 'merchantId' | 'mode' | 'key'>) => JSON.stringify([r.merchantId, r.mode, r.key]);

const toIdempotencyDoc = (r: IdempotencyRecord): IdempotencyDoc => ({
  _id: idempotencyId(r),
  merchantId: r.merchantId,
  mode: r.mode,
  key: r.key,
  requestHash: r.requestHash,
  orderId: r.orderId,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  expireAt: new Date(r.expiresAt),
});

const toIdempotency = (d: IdempotencyDoc): IdempotencyRecord => ({
  merchantId: d.merchantId,
  mode: d.mode,
  key: d.key,
  requestHash: d.requestHash,
  orderId: d.orderId,
  createdAt: d.createdAt,
  expiresAt: d.expiresAt,
});

const PATCH_FIELDS = [
  'courierId',
  'batchId',
  'estimatedPickupAt',
  'estimatedDeliveryAt',
  'proof',
  'cancellation',
  'price',
  'deliveryPin',
  'failedAttempts',
  'returnLeg',
  'codCollection',
  'stops',
  'stopPins',
] as const satisfies readonly (keyof OrderPatch)[];

/** Thrown inside the create transaction when the idempotency key's unique `_id` already exists. */
class KeyTaken extends Error {}

const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;

/** Claims can race with the TTL monitor deleting the key they collided with; a few rounds settle it. */
const CLAIM_ATTEMPTS = 5;

export function createMongoOrderRepository(database: MongoDatabase): OrderRepository {
  const { orders, orderEvents, idempotencyKeys, ledger, webhookDeliveries, eventFeed, notifications: notificationRows } = database.collections;

  async function insertOrder(
    o: { order: Order; event: OrderEvent; ledger: LedgerEntry | readonly LedgerEntry[] | null; outbox?: WebhookDelivery[]; feed?: NewFeedEvent | NewFeedEvent[]; notifications?: Notification[] },
    session: ClientSession,
  ) {
    try {
      await orders.insertOne(toOrderDoc(o.order), { session });
    } catch (error) {
      // _id, orderNumber and trackingNumber are the orders collection's unique indexes.
      throw isDuplicateKey(error) ? new DuplicateOrderIdentifierError() : error;
    }
    await orderEvents.insertOne(toEventDoc(o.event), { session });
    for (const entry of [o.ledger ?? []].flat()) await ledger.insertOne(toLedgerDoc(entry), { session });
    await writeDeliveries(webhookDeliveries, o.outbox, session);
    await writeFeedEvent(eventFeed, o.feed, session);
    await writeNotifications(notificationRows, o.notifications, session);
  }




  return {
    async create(options) {
      const claim = options.idempotency;
      if (!claim) {
        await database.inTransaction((session) => insertOrder(options, session));
        return { created: true };
      }
      const keyDoc = toIdempotencyDoc(claim);
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        // The unique _id decides who claims the key; a concurrent claimer conflicts and retries, then sees 11000.
        try {
          await database.inTransaction(async (session) => {
            try {
              await idempotencyKeys.insertOne(keyDoc, { session });
            } catch (error) {
              throw isDuplicateKey(error) ? new KeyTaken() : error;
            }
            await insertOrder(options, session);
          });
          return { created: true };
        } catch (error) {
          if (!(error instanceof KeyTaken)) throw error;
        }
        // Taken: reclaim it only if it has expired by this request's time, in one conditional write.
        const reclaimed = await database.inTransaction(async (session) => {
          const result = await idempotencyKeys.replaceOne({ _id: keyDoc._id, expiresAt: { $lte: claim.createdAt } }, keyDoc, { session });
          if (result.matchedCount === 0) return false;
          await insertOrder(options, session);
          return true;
        });
        if (reclaimed) return { created: true };
        const existing = await idempotencyKeys.findOne({ _id: keyDoc._id });
        if (existing) return { created: false, existing: toIdempotency(existing) };
        // Removed by the TTL monitor in between: claim again.
      }
      throw new Error(`MongoDB store: could not claim idempotency key ${keyDoc._id}`);
    },

    async findById(id) {
      const doc = await orders.findOne({ _id: id });
      return doc ? toOrder(doc) : null;
    },

    async findIdempotencyKey(key) {
      const doc = await idempotencyKeys.findOne({ _id: idempotencyId(key) });
      return doc ? toIdempotency(doc) : null;
    },

    async findByAnyId({ merchantId, mode, ref }) {
      const direct = await orders.findOne({ _id: ref, merchantId, mode });
      if (direct) return toOrder(direct);
      // Reference / shop ids may repeat; tracking and order numbers are unique, so at most two
      // matches are not reference matches and the newest reference match is among the top three.
      const docs = await orders
        .find({
          merchantId,
          mode,
          $or: [{ referenceId: ref }, { ecommerceOrderId: ref }, { trackingNumber: ref }, { orderNumber: ref }],
        })
        .sort({ _id: -1 })
        .limit(3)
        .toArray();
      const rank = (d: OrderDoc) => (d.referenceId === ref || d.ecommerceOrderId === ref ? 0 : d.trackingNumber === ref ? 1 : 2);
      const best = docs.reduce<OrderDoc | null>((found, d) => (found === null || rank(d) < rank(found) ? d : found), null);
      return best ? toOrder(best) : null;
    },

    async findByTrackingRef(ref) {
      const docs = await orders.find({ $or: [{ trackingNumber: ref }, { orderNumber: ref }] }).limit(2).toArray();
      const best = docs.find((d) => d.trackingNumber === ref) ?? docs[0];
      return best ? toOrder(best) : null;
    },

    async apply({ id, from, to, patch = {}, event, ledger: entry, outbox, feed, notifications }) {
      const set: Partial<OrderDoc> = {};
      for (const name of PATCH_FIELDS) if (patch[name] !== undefined) Object.assign(set, { [name]: patch[name] });
      if (to) set.status = to;
      if (event) set.updatedAt = event.at;
      const filter: Filter<OrderDoc> = { _id: id, status: { $in: from } };
      const update = { ...(Object.keys(set).length > 0 && { $set: set }), ...(event && { $inc: { sequence: 1 } }) } as UpdateFilter<OrderDoc>;

      if (Object.keys(update).length === 0) {
        const doc = await orders.findOne(filter);
        return doc ? toOrder(doc) : null;
      }
      if (!event && !entry && !outbox && !feed && !notifications) {
        const doc = await orders.findOneAndUpdate(filter, update, { returnDocument: 'after' });
        return doc ? toOrder(doc) : null;
      }
      // The status in the filter is the compare-and-set; a concurrent apply on the same order is a
      // write conflict, retried by the driver, and then no longer matches. The pre-image gives the
      // event's real `from`; the updated order is that document with the same $set and $inc applied.
      return database.inTransaction(async (session) => {
        const before = await orders.findOneAndUpdate(filter, update, { returnDocument: 'before', session });
        if (!before) return null;
        const updated = toOrder(Object.assign({}, before, set, { sequence: event ? before.sequence + 1 : before.sequence }));
        const stored = event ? Object.assign({}, event, { from: before.status, sequence: updated.sequence }) : null;
        if (stored) await orderEvents.insertOne(toEventDoc(stored), { session });
        if (entry) await ledger.insertOne(toLedgerDoc(entry), { session });
        if (outbox && stored) await writeDeliveries(webhookDeliveries, outbox(updated, stored), session);
        if (feed && stored) await writeFeedEvent(eventFeed, feed(updated, stored), session);
        if (notifications && stored) await writeNotifications(notificationRows, notifications(updated, stored), session);
        return updated;
      });
    },

    async addTip({ id, from, amount, maxTotal, ledger: entryOf, outbox, feed }) {
      // No tip yet (the field is absent on such orders), or one that leaves room for this amount.
      const room = { $or: [{ tip: { $exists: false } }, { tip: { $lte: maxTotal - amount } }] };
      return database.inTransaction(async (session) => {
        const doc = await orders.findOneAndUpdate(Object.assign({ _id: id, status: { $in: from } }, room), { $inc: { tip: amount } }, { returnDocument: 'after', session });
        if (!doc) return null;
        const updated = toOrder(doc);
        const entry = entryOf(updated);
        if (entry) await ledger.insertOne(toLedgerDoc(entry), { session });
        if (outbox) await writeDeliveries(webhookDeliveries, outbox(updated), session);
        await writeFeedEvent(eventFeed, feed(updated), session);
        return updated;
      });
    },

    async listDeliveredBy({ courierId, from, to, limit }) {
      const docs = await orders
        .find({ courierId, status: 'completed', 'proof.deliveredAt': { $gte: from, $lt: to } })
        .sort({ 'proof.deliveredAt': 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toOrder);
    },

    async updateEstimate({ id, courierId, from, estimatedDeliveryAt, etaAnnounced, etaBaseline, outbox }) {
      const filter: Filter<OrderDoc> = { _id: id, courierId, status: { $in: from } };
      const update: UpdateFilter<OrderDoc> = { $set: Object.assign({ estimatedDeliveryAt }, etaAnnounced && { etaAnnounced }) };
      const write = async (session?: ClientSession) => {
        if (etaBaseline && !etaAnnounced) {
          // The baseline only where none is stored (a missing field matches null); else the estimate alone.
          const first = await orders.findOneAndUpdate(Object.assign({ etaAnnounced: null }, filter), { $set: { estimatedDeliveryAt, etaAnnounced: etaBaseline } }, { returnDocument: 'after', session });
          if (first) return first;
        }
        return orders.findOneAndUpdate(filter, update, { returnDocument: 'after', session });
      };
      if (!outbox) {
        const doc = await write();
        return doc ? toOrder(doc) : null;
      }
      return database.inTransaction(async (session) => {
        const doc = await write(session);
        if (!doc) return null;
        const updated = toOrder(doc);
        await writeDeliveries(webhookDeliveries, outbox(updated), session);
        return updated;
      });
    },

    async list({ merchantId, mode, statuses, createdFrom, createdTo, after, limit }) {
      if (limit <= 0) return []; // MongoDB reads limit 0 as "no limit"
      // Newest first by (createdAt, _id) on orders_merchant_status: one index scan per status
      // (every status when none is asked), merged in order, so no in-memory sort.
      const distinct = statuses?.length ? [...new Set(statuses)] : [...ORDER_STATUSES];
      const filter: Filter<OrderDoc> = { merchantId, mode, status: distinct.length === 1 ? distinct[0]! : { $in: distinct } };
      const createdAt: { $gte?: string; $lt?: string; $lte?: string } = {};
      if (createdFrom) createdAt.$gte = createdFrom;
      if (createdTo) createdAt.$lt = createdTo;
      if (after) {
        // The page goes on below the cursor's order; an id that is not one of this merchant's
        // orders in this mode has nothing below it.
        const cursor = await orders.findOne({ _id: after, merchantId, mode }, { projection: { createdAt: 1 } });
        if (!cursor) return [];
        // The index range ends at the cursor's time (unless created_to ends it first); among the
        // orders of that same millisecond only those with a lower _id follow it.
        if (!createdTo || cursor.createdAt < createdTo) {
          delete createdAt.$lt;
          createdAt.$lte = cursor.createdAt;
          filter.$nor = [{ createdAt: cursor.createdAt, _id: { $gte: after } }];
        }
      }
      if (Object.keys(createdAt).length) filter.createdAt = createdAt;
      const docs = await orders.find(filter).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray();
      return docs.map(toOrder);
    },

    async listAcrossMerchants({ modes, statuses, merchantId, createdFrom, createdTo, lateAt, pickupZone, after, limit, examineAtMost }) {
      if (limit <= 0 || modes.length === 0 || statuses.length === 0) return { orders: [], resumeAfter: null };
      // Newest first by (createdAt, _id): on orders_queue_fifo (mode, status, createdAt, _id) read
      // backwards, one scan per (mode, status) merged in order; on orders_merchant_status for one merchant.
      const one = <T>(values: T[]) => (values.length === 1 ? values[0]! : { $in: [...new Set(values)] });
      const filter: Filter<OrderDoc> = { mode: one(modes), status: one(statuses), ...(merchantId && { merchantId }) };
      const createdAt: { $gte?: string; $lt?: string; $lte?: string } = {};
      if (createdFrom) createdAt.$gte = createdFrom;
      if (createdTo) createdAt.$lt = createdTo;
      if (after) {
        const cursor = await orders.findOne({ _id: after }, { projection: { createdAt: 1 } });
        if (!cursor) return { orders: [], resumeAfter: null };
        if (!createdTo || cursor.createdAt < createdTo) {
          delete createdAt.$lt;
          createdAt.$lte = cursor.createdAt;
          filter.$nor = [{ createdAt: cursor.createdAt, _id: { $gte: after } }];
        }
      }
      if (Object.keys(createdAt).length) filter.createdAt = createdAt;
      const newestFirst = { createdAt: -1, _id: -1 } as const;
      if (!pickupZone && !lateAt) return { orders: (await orders.find(filter).sort(newestFirst).limit(limit).toArray()).map(toOrder), resumeAfter: null };
      const examine = Math.max(1, examineAtMost);
      if (lateAt) {
        // Fewer late orders than the bound (counted on orders_late_eta/_window): read only them, sorted by creation.
        const lateOnes = { $or: [{ estimatedDeliveryAt: { $lt: lateAt } }, { deliverBefore: { $lt: lateAt } }], ...statusIn('active') } as Filter<OrderDoc>;
        if ((await orders.countDocuments(lateOnes, { limit: examine })) < examine) {
          const inZone = pickupZone ? { 'pickup.geohash': { $gte: pickupZone, $lt: `${pickupZone}~` } } : {};
          const docs = await orders.find({ $and: [filter, lateOnes, inZone] }).sort(newestFirst).limit(limit).toArray();
          return { orders: docs.map(toOrder), resumeAfter: null };
        }
      }
      // The zone and lateness are tested here on each order read, at most examineAtMost of them
      // (issue #41); only the matching orders' documents are then read whole.
      const matches = (d: Pick<OrderDoc, 'pickup' | 'estimatedDeliveryAt' | 'deliverBefore'>) =>
        (!pickupZone || d.pickup.geohash.startsWith(pickupZone)) && (!lateAt || d.estimatedDeliveryAt < lateAt || (!!d.deliverBefore && d.deliverBefore < lateAt));
      const read = orders
        .find(filter, { projection: { _id: 1, createdAt: 1, 'pickup.geohash': 1, estimatedDeliveryAt: 1, deliverBefore: 1 } })
        .sort(newestFirst).limit(examine).batchSize(Math.min(examine, 1000));
      const hits: string[] = [];
      let examined = 0;
      let last: string | null = null;
      for await (const d of read) {
        examined++;
        last = d._id;
        if (matches(d) && hits.push(d._id) >= limit) break;
      }
      await read.close();
      const docs = hits.length ? await orders.find({ _id: { $in: hits } }).toArray() : [];
      const byId = new Map(docs.map((d) => [d._id, d]));
      const found = hits.flatMap((id) => (byId.has(id) ? [toOrder(byId.get(id)!)] : []));
      return { orders: found, resumeAfter: hits.length < limit && examined >= examine ? last : null };
    },

    async listEvents(orderId) {
      const docs = await orderEvents.find({ orderId }).sort({ sequence: 1 }).toArray();
      return docs.map(toEvent);
    },

    async pruneEvents({ createdBefore, limit }) {
      if (limit <= 0) return 0;
      // On orders_events_prunable_ended (its partial filter is this $in): an order handled is marked and leaves the seek.
      const over = await orders
        .find({ eventsPruned: null, createdAt: { $lt: createdBefore }, ...statusIn('terminal') }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      if (over.length === 0) return 0;
      const ids = over.map((d) => d._id);
      await orderEvents.deleteMany({ orderId: { $in: ids } });
      await orders.updateMany({ _id: { $in: ids } }, { $set: { eventsPruned: true } });
      return ids.length;
    },

    async listQueued({ mode, vehicleTypes, limit, dueBy }) {
      if (vehicleTypes.length === 0 || limit <= 0) return [];
      const filter: Filter<OrderDoc> = { mode, status: 'new', courierId: null, batchId: null, vehicleType: { $in: vehicleTypes } };
      // A missing dispatchAfter (an unscheduled order) matches null.
      if (dueBy !== undefined) filter.$or = [{ dispatchAfter: null }, { dispatchAfter: { $lte: dueBy } }];
      const docs = await orders
        .find(filter)
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toOrder);
    },

    async scanQueued({ mode, vehicleTypes, dueBy, after, examine }) {
      if (examine <= 0) return { orders: [], next: after };
      const filter: Filter<OrderDoc> = { mode, status: 'new', ...(after && afterPosition(after)) };
      const docs = await orders.find(filter).sort({ createdAt: 1, _id: 1 }).limit(examine).toArray();
      const queued = (d: OrderDoc) => !d.courierId && !d.batchId && vehicleTypes.includes(d.vehicleType) && (!d.dispatchAfter || d.dispatchAfter <= dueBy);
      const last = docs.at(-1);
      return { orders: docs.filter(queued).map(toOrder), next: docs.length < examine || !last ? null : { createdAt: last.createdAt, id: last._id } };
    },

    async tryDeliveryPin({ id, pin, maxAttempts, stopId }) {
      // The order's PIN, or a multi-stop order's stop PIN (stopPins.<stop id>: ids are `stp_` + ULID, safe as field names).
      const path = stopId === undefined ? 'deliveryPin' : `stopPins.${stopId}`;
      const held = (d: OrderDoc | null) => (stopId === undefined ? d?.deliveryPin : d?.stopPins?.[stopId]);
      // Counted only while under the limit and wrong, in one conditional write: concurrent tries never count past it.
      const counted = await orders.findOneAndUpdate(
        { _id: id, [`${path}.failedAttempts`]: { $lt: maxAttempts }, [`${path}.pin`]: { $ne: pin } },
        { $inc: { [`${path}.failedAttempts`]: 1 } },
        { returnDocument: 'after' },
      );
      const countedPin = held(counted);
      if (countedPin) return { outcome: 'invalid', failedAttempts: countedPin.failedAttempts };
      const current = held(await orders.findOne({ _id: id }));
      if (!current) return null;
      if (current.failedAttempts >= maxAttempts) return { outcome: 'locked', failedAttempts: current.failedAttempts };
      // Not counted: right (or the PIN was reset in between, and this try is answered against the new one).
      return current.pin === pin ? { outcome: 'ok', failedAttempts: current.failedAttempts } : { outcome: 'invalid', failedAttempts: current.failedAttempts };
    },


    async listNewInBatches({ mode, limit, after }) {
      if (limit <= 0) return [];
      // `$type: 'string'` (batch ids are strings) is the partial filter of orders_new_in_batch, which holds only these orders.
      const filter: Filter<OrderDoc> = { mode, status: 'new', batchId: { $type: 'string' }, ...(after && afterPosition(after)) };
      const docs = await orders.find(filter).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toOrder);
    },

    async listConsolidatable({ merchantId, mode, geohashPrefix, limit }) {
      if (limit <= 0) return [];
      // A prefix as an index range: every geohash character sorts below '~'.
      const docs = await orders
        .find({
          merchantId,
          mode,
          'pickup.geohash': { $gte: geohashPrefix, $lt: `${geohashPrefix}~` },
          status: { $in: ['new', 'assigned'] },
          batchId: null,
        })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toOrder);
    },
  };
}
