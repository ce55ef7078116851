import { MongoServerError } from 'mongodb';
import type { IdempotentWriteKey, IdempotentWriteRecord, IdempotentWriteRepository } from '../../ports/store.js';
import type { IdempotentWriteDoc, MongoDatabase } from './database.js';

const idOf = (k: IdempotentWriteKey) => JSON.stringify([k.ownerId, k.mode, k.operation, k.key]);
const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;
/** A claim can race with the TTL monitor removing the record it collided with; a few rounds settle it. */
const CLAIM_ATTEMPTS = 5;

const toRecord = ({ _id: _ignored, expireAt: _expireAt, ...record }: IdempotentWriteDoc): IdempotentWriteRecord => record;

/** Single-document writes only: the unique `_id` decides between concurrent claims. */
export function createMongoIdempotentWriteRepository(database: MongoDatabase): IdempotentWriteRepository {
  const { idempotentWrites: writes } = database.collections;
  return {
    async claim(record, now) {
      const doc: IdempotentWriteDoc = Object.assign({ _id: idOf(record), expireAt: new Date(record.expiresAt) }, record, { outcome: null });
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        try {
          await writes.insertOne(doc);
          return { claimed: true };
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
        // Taken: take it over only when expired or abandoned, in one conditional write.
        const takeover = await writes.replaceOne(
          { _id: doc._id, $or: [{ expiresAt: { $lte: now } }, { outcome: null, lockedUntil: { $lte: now } }] },
          doc,
        );
        if (takeover.matchedCount > 0) return { claimed: true };
        const existing = await writes.findOne({ _id: doc._id });
        if (existing) return { claimed: false, existing: toRecord(existing) };
      }
      throw new Error(`MongoDB store: could not claim idempotency key ${doc._id}`);
    },
    async complete(options) {
      const result = await writes.updateOne({ _id: idOf(options), token: options.token, outcome: null }, { $set: { outcome: options.outcome } });
      return result.matchedCount > 0;
    },
    async release(options) {
      await writes.deleteOne({ _id: idOf(options), token: options.token, outcome: null });
    },
    async prune({ before, limit }) {
      // On `expireAt` (expiresAt as a Date), the field the TTL index `idempotent_writes_ttl` covers.
      const ids = (await writes.find({ expireAt: { $lt: new Date(before) } }, { projection: { _id: 1 } }).limit(limit).toArray()).map((d) => d._id);
      if (ids.length === 0) return 0;
      return (await writes.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
  };
}
