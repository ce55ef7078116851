import type { Filter } from 'mongodb';
import type { Batch } from '../../domain/types.js';
import type { BatchRepository } from '../../ports/store.js';
import type { BatchDoc, MongoDatabase } from './database.js';
import { writeFeedEvent } from './events.js';
import { writeDeliveries } from './webhooks.js';

const toBatchDoc = (b: Batch): BatchDoc => ({
  _id: b.id,
  merchantId: b.merchantId,
  mode: b.mode,
  geohashZone: b.geohashZone,
  vehicleType: b.vehicleType,
  orderIds: b.orderIds,
  totalWeightKg: b.totalWeightKg,
  courierId: b.courierId,
  status: b.status,
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
});

const toBatch = (d: BatchDoc): Batch => ({
  id: d._id,
  merchantId: d.merchantId,
  mode: d.mode,
  geohashZone: d.geohashZone,
  vehicleType: d.vehicleType,
  orderIds: d.orderIds,
  totalWeightKg: d.totalWeightKg,
  courierId: d.courierId,
  status: d.status,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const PATCH_FIELDS = ['status', 'courierId', 'orderIds', 'totalWeightKg'] as const;

export function createMongoBatchRepository(database: MongoDatabase): BatchRepository {
  const { batches, webhookDeliveries, eventFeed } = database.collections;
  return {
    async insert(batch, outbox, feed) {
      if ((!outbox || outbox.length === 0) && !feed) {
        await batches.insertOne(toBatchDoc(batch));
        return;
      }
      // The batch.created deliveries and feed event are the batch's outbox: written with it or not at all.
      await database.inTransaction(async (session) => {
        await batches.insertOne(toBatchDoc(batch), { session });
        await writeDeliveries(webhookDeliveries, outbox, session);
        await writeFeedEvent(eventFeed, feed, session);
      });
    },
    async findById(id) {
      const doc = await batches.findOne({ _id: id });
      return doc ? toBatch(doc) : null;
    },
    async update({ id, from, patch, updatedAt }) {
      // Compare-and-set in one document write: the expected statuses are part of the filter.
      const set: Record<string, unknown> = { updatedAt };
      for (const name of PATCH_FIELDS) if (patch[name] !== undefined) set[name] = patch[name];
      const doc = await batches.findOneAndUpdate({ _id: id, status: { $in: from } }, { $set: set }, { returnDocument: 'after' });
      return doc ? toBatch(doc) : null;
    },
    async list({ merchantId, mode, after, limit }) {
      if (limit <= 0) return []; // MongoDB reads limit 0 as "no limit"
      const filter: Filter<BatchDoc> = { merchantId, mode, ...(after && { _id: { $lt: after } }) };
      const docs = await batches.find(filter).sort({ _id: -1 }).limit(limit).toArray();
      return docs.map(toBatch);
    },
    async listPending({ mode, vehicleTypes, limit }) {
      if (vehicleTypes.length === 0 || limit <= 0) return [];
      const docs = await batches
        .find({ mode, status: 'pending', vehicleType: { $in: vehicleTypes } })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toBatch);
    },
  };
}
