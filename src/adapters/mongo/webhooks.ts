import type { ClientSession, Collection, Filter } from 'mongodb';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../domain/types.js';
import type { WebhookEndpointPatch, WebhookRepository } from '../../ports/store.js';
import type { MongoDatabase, WebhookAttemptDoc, WebhookDeliveryDoc, WebhookEndpointDoc } from './database.js';
import { serverNow } from './server-clock.js';

const toEndpointDoc = (e: WebhookEndpoint): WebhookEndpointDoc => ({
  _id: e.id,
  merchantId: e.merchantId,
  mode: e.mode,
  url: e.url,
  description: e.description,
  events: e.events,
  payloadShape: e.payloadShape,
  signing: e.signing,
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  failingSince: e.failingSince,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

const toEndpoint = (d: WebhookEndpointDoc): WebhookEndpoint => ({
  id: d._id,
  merchantId: d.merchantId,
  mode: d.mode,
  url: d.url,
  description: d.description,
  events: d.events,
  payloadShape: d.payloadShape,
  // Written before asymmetric signatures: symmetric.
  signing: d.signing ?? 'symmetric',
  enabled: d.enabled,
  disabledReason: d.disabledReason,
  failingSince: d.failingSince,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const toDeliveryDoc = (d: WebhookDelivery): WebhookDeliveryDoc => ({
  _id: d.id,
  endpointId: d.endpointId,
  merchantId: d.merchantId,
  mode: d.mode,
  eventType: d.eventType,
  orderId: d.orderId,
  sequence: d.sequence,
  body: d.body,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt,
  leaseOwner: d.leaseOwner,
  leaseUntil: d.leaseUntil,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  lastLatencyMs: d.lastLatencyMs,
  createdAt: d.createdAt,
  deliveredAt: d.deliveredAt,
  createdOn: new Date(d.createdAt),
});

const toDelivery = (d: WebhookDeliveryDoc): WebhookDelivery => ({
  id: d._id,
  endpointId: d.endpointId,
  merchantId: d.merchantId,
  mode: d.mode,
  eventType: d.eventType,
  orderId: d.orderId,
  sequence: d.sequence,
  body: d.body,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt,
  leaseOwner: d.leaseOwner,
  leaseUntil: d.leaseUntil,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  lastLatencyMs: d.lastLatencyMs,
  createdAt: d.createdAt,
  deliveredAt: d.deliveredAt,
});

const toAttemptDoc = (a: WebhookAttempt): WebhookAttemptDoc => ({
  _id: a.id,
  deliveryId: a.deliveryId,
  attempt: a.attempt,
  at: a.at,
  statusCode: a.statusCode,
  latencyMs: a.latencyMs,
  error: a.error,
  atOn: new Date(a.at),
});

const toAttempt = (d: WebhookAttemptDoc): WebhookAttempt => ({
  id: d._id,
  deliveryId: d.deliveryId,
  attempt: d.attempt,
  at: d.at,
  statusCode: d.statusCode,
  latencyMs: d.latencyMs,
  error: d.error,
});

/** Inserts webhook deliveries inside the caller's session: the outbox of order transitions and batches. */
export async function writeDeliveries(
  deliveries: Collection<WebhookDeliveryDoc>,
  outbox: readonly WebhookDelivery[] | undefined,
  session: ClientSession,
): Promise<void> {
  if (!outbox || outbox.length === 0) return; // insertMany refuses an empty list
  await deliveries.insertMany(outbox.map(toDeliveryDoc), { session });
}

const ENDPOINT_PATCH_FIELDS = [
  'url',
  'description',
  'events',
  'payloadShape',
  'signing',
  'enabled',
  'disabledReason',
  'failingSince',
] as const satisfies readonly (keyof WebhookEndpointPatch)[];

/** A createdAt condition: from inclusive, to exclusive; an absent bound is open. */
const createdBetween = (from: string | undefined, to: string | undefined) => ({
  ...(from !== undefined && { $gte: from }),
  ...(to !== undefined && { $lt: to }),
});

export function createMongoWebhookRepository(database: MongoDatabase): WebhookRepository {
  const { webhookEndpoints: endpoints, webhookDeliveries: deliveries, webhookAttempts: attempts } = database.collections;

  return {
    async insertEndpoint(endpoint) {
      await endpoints.insertOne(toEndpointDoc(endpoint));
    },

    async findEndpoint({ id, merchantId, mode }) {
      const doc = await endpoints.findOne({ _id: id, ...(merchantId !== undefined && { merchantId }), ...(mode !== undefined && { mode }) });
      return doc ? toEndpoint(doc) : null;
    },

    async listEndpoints({ merchantId, mode, enabledOnly }) {
      const docs = await endpoints
        .find({ merchantId, mode, ...(enabledOnly && { enabled: true }) })
        .sort({ _id: 1 })
        .toArray();
      return docs.map(toEndpoint);
    },

    async listTroubledEndpoints({ merchantId, mode, limit }) {
      const troubled = { $or: [{ failingSince: { $ne: null } }, { enabled: false, disabledReason: { $ne: null } }] };
      const docs = await endpoints
        .find({ ...(merchantId !== undefined && { merchantId }), ...(mode !== undefined && { mode }), ...troubled })
        .sort({ merchantId: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toEndpoint);
    },

    async updateEndpoint({ id, patch, updatedAt }) {
      const set: Record<string, unknown> = { updatedAt };
      for (const name of ENDPOINT_PATCH_FIELDS) if (patch[name] !== undefined) set[name] = patch[name]; // undefined = absent
      const doc = await endpoints.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
      return doc ? toEndpoint(doc) : null;
    },

    async deleteEndpoint({ id, merchantId, mode }) {
      const result = await endpoints.deleteOne({ _id: id, merchantId, mode });
      return result.deletedCount === 1;
    },

    async insertDeliveries(list) {
      if (list.length === 0) return;
      if (list.length === 1) {
        await deliveries.insertOne(toDeliveryDoc(list[0]!));
        return;
      }
      await database.inTransaction((session) => writeDeliveries(deliveries, list, session));
    },

    async claimDue({ owner, now, leaseMs, limit, merchantConcurrency, endpointConcurrency }) {
      /**
       * The merchants with pending deliveries, one index seek each (webhook_deliveries_due_merchant),
       * as the SQLite adapter does: a distinct over the due filter read every due delivery (its
       * lease condition is not in the index), the whole backlog, on every claim. A merchant with
       * nothing due yet costs its seek and an empty find below.
       */
      async function* merchantsWithPending(): AsyncGenerator<string> {
        for (let after: string | null = null; ; ) {
          const next: WebhookDeliveryDoc | null = await deliveries.findOne(
            { status: 'pending', ...(after !== null && { merchantId: { $gt: after } }) },
            { sort: { status: 1, merchantId: 1 }, projection: { merchantId: 1 } },
          );
          if (!next) return;
          yield (after = next.merchantId);
        }
      }

      if (limit <= 0) return [];
      const dbNow = await serverNow(database);
      const nowOnServer = dbNow.toISOString();
      const leaseUntil = new Date(dbNow.getTime() + Math.round(leaseMs)).toISOString();
      const dueFilter: Filter<WebhookDeliveryDoc> = {
        status: 'pending',
        nextAttemptAt: { $lte: now },
        $or: [{ leaseUntil: null }, { leaseUntil: { $lte: nowOnServer } }],
      };
      const perMerchant = merchantConcurrency ?? Number.MAX_SAFE_INTEGER;
      const perEndpoint = endpointConcurrency ?? Number.MAX_SAFE_INTEGER;
      // In flight now (leased, unexpired): few by construction, bounded by the caps.
      const busyMerchant = new Map<string, number>();
      const busyEndpoint = new Map<string, number>();
      const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
      const leased = await deliveries.find({ status: 'pending', leaseUntil: { $gt: nowOnServer } }, { projection: { merchantId: 1, endpointId: 1 } }).toArray();
      for (const d of leased) {
        bump(busyMerchant, d.merchantId);
        bump(busyEndpoint, d.endpointId);
      }
      // Each merchant's oldest due deliveries that fit its and their endpoints' caps; then taken in turns.
      const turns: WebhookDeliveryDoc[][] = [];
      for await (const merchantId of merchantsWithPending()) {
        const room = Math.min(perMerchant - (busyMerchant.get(merchantId) ?? 0), limit);
        if (room <= 0) continue;
        const candidates = await deliveries.find({ merchantId, ...dueFilter }).sort({ nextAttemptAt: 1, _id: 1 }).limit(room * 4).toArray();
        const picked: WebhookDeliveryDoc[] = [];
        for (const c of candidates) {
          if (picked.length >= room) break;
          if ((busyEndpoint.get(c.endpointId) ?? 0) >= perEndpoint) continue;
          bump(busyEndpoint, c.endpointId);
          picked.push(c);
        }
        picked.forEach((c, turn) => (turns[turn] ??= []).push(c));
      }
      const order = turns.flatMap((turn) => turn.sort((a, b) => (a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : a._id < b._id ? -1 : 1)));
      // Each lease is one conditional findAndModify: the filter re-checks "due and unleased" on the
      // document it updates, so two workers racing for one delivery cannot both match it.
      const claimed: WebhookDelivery[] = [];
      for (const candidate of order.slice(0, limit)) {
        const doc = await deliveries.findOneAndUpdate({ _id: candidate._id, ...dueFilter }, { $set: { leaseOwner: owner, leaseUntil } }, { returnDocument: 'after' });
        if (!doc) continue;
        if (await overCap(doc)) {
          await deliveries.updateOne({ _id: doc._id, leaseOwner: owner, leaseUntil }, { $set: { leaseOwner: null, leaseUntil: null } });
          continue;
        }
        claimed.push(toDelivery(doc));
      }
      return claimed;

      /**
       * The caps were checked on counts read before leasing: another node may have leased for the
       * same endpoint or merchant since. Counted again after this lease, a lease beyond a cap is
       * given back. Of two racing leases at least one sees the other (each counts after its own
       * write), so the caps hold; when both see both, both give back and the next poll retries.
       */
      async function overCap(doc: WebhookDeliveryDoc): Promise<boolean> {
        if (merchantConcurrency === undefined && endpointConcurrency === undefined) return false;
        const inFlight = { status: 'pending' as const, leaseUntil: { $gt: nowOnServer } };
        if (endpointConcurrency !== undefined && (await deliveries.countDocuments({ endpointId: doc.endpointId, ...inFlight })) > perEndpoint) return true;
        return merchantConcurrency !== undefined && (await deliveries.countDocuments({ merchantId: doc.merchantId, ...inFlight })) > perMerchant;
      }
    },

    async completeAttempt({ id, owner, attempt, outcome }) {
      const set: Record<string, unknown> = {
        status: outcome.status,
        attempts: attempt.attempt,
        leaseOwner: null,
        leaseUntil: null,
        lastStatusCode: attempt.statusCode,
        lastError: attempt.error,
        lastLatencyMs: attempt.latencyMs,
      };
      if (outcome.nextAttemptAt !== null) set.nextAttemptAt = outcome.nextAttemptAt;
      if (outcome.status === 'delivered') set.deliveredAt = attempt.at;
      return database.inTransaction(async (session) => {
        // The lease owner in the filter: a worker whose lease expired and was taken over writes nothing.
        const result = await deliveries.updateOne({ _id: id, leaseOwner: owner, status: 'pending' }, { $set: set }, { session });
        if (result.matchedCount === 0) return false;
        await attempts.insertOne(toAttemptDoc(attempt), { session });
        return true;
      });
    },

    async findDelivery({ id, merchantId, mode }) {
      const doc = await deliveries.findOne({ _id: id, merchantId, mode });
      return doc ? toDelivery(doc) : null;
    },

    async listDeliveries({ merchantId, mode, endpointId, status, createdFrom, createdTo, after, limit }) {
      if (limit <= 0) return []; // MongoDB reads limit 0 as "no limit"
      const filter: Filter<WebhookDeliveryDoc> = { merchantId, mode };
      if (endpointId !== undefined) filter.endpointId = endpointId;
      if (status !== undefined) filter.status = status;
      if (createdFrom !== undefined || createdTo !== undefined) filter.createdAt = createdBetween(createdFrom, createdTo);
      if (after !== undefined) filter._id = { $lt: after };
      const docs = await deliveries.find(filter).sort({ _id: -1 }).limit(limit).toArray();
      return docs.map(toDelivery);
    },

    async listAttempts(deliveryId) {
      const docs = await attempts.find({ deliveryId }).sort({ attempt: 1, _id: 1 }).toArray();
      return docs.map(toAttempt);
    },

    async countPending({ endpointId, limit }) {
      if (limit <= 0) return 0;
      return deliveries.countDocuments({ endpointId, status: 'pending' }, { limit: Math.min(limit, 2 ** 31 - 1) }); // $limit takes a 32-bit count
    },

    async prune({ createdBefore, limit }) {
      if (limit <= 0) return 0;
      const old = await deliveries.find({ createdAt: { $lt: createdBefore } }, { projection: { _id: 1 } }).sort({ createdAt: 1 }).limit(limit).toArray();
      if (old.length === 0) return 0;
      const ids = old.map((d) => d._id);
      await attempts.deleteMany({ deliveryId: { $in: ids } });
      const result = await deliveries.deleteMany({ _id: { $in: ids } });
      return result.deletedCount;
    },

    async requeue({ merchantId, mode, ids, status, createdFrom, createdTo, now }) {
      if (ids && ids.length === 0) return 0;
      const filter: Filter<WebhookDeliveryDoc> = { merchantId, mode };
      if (ids) filter._id = { $in: ids };
      if (status !== undefined) filter.status = status;
      if (createdFrom !== undefined || createdTo !== undefined) filter.createdAt = createdBetween(createdFrom, createdTo);
      const result = await deliveries.updateMany(filter, {
        $set: { status: 'pending', attempts: 0, nextAttemptAt: now, leaseOwner: null, leaseUntil: null },
      });
      return result.matchedCount;
    },
  };
}
