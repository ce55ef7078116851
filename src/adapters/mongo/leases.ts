import { MongoServerError } from 'mongodb';
import type { LeaseRepository } from '../../ports/store.js';
import type { MongoDatabase } from './database.js';

export function createMongoLeaseRepository(database: MongoDatabase): LeaseRepository {
  const { leases } = database.collections;
  /** The server's clock (hello's localTime), not this node's: every node compares against one time. */
  const serverNow = async (): Promise<Date> => {
    const reply = await database.db.command({ hello: 1 });
    return reply.localTime instanceof Date ? reply.localTime : new Date();
  };
  return {
    async acquire({ name, owner, ttlMs }) {
      const now = await serverNow();
      try {
        // Matches only a lease that is this owner's or expired; a missing one is inserted. A lease
        // held by another owner matches nothing, and the upsert's insert then fails on _id.
        await leases.updateOne(
          { _id: name, $or: [{ owner }, { until: { $lte: now } }] },
          { $set: { owner, until: new Date(now.getTime() + Math.round(ttlMs)) } },
          { upsert: true },
        );
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === 11000) return false;
        throw error;
      }
    },
    async release({ name, owner }) {
      await leases.deleteOne({ _id: name, owner });
    },
    async takeSlot({ name, at, intervalMs }) {
      const atDate = new Date(at);
      try {
        // As acquire: a slot still running past `at` matches nothing, and the upsert fails on _id.
        await leases.updateOne({ _id: name, until: { $lte: atDate } }, { $set: { owner: 'slot', until: new Date(atDate.getTime() + Math.round(intervalMs)) } }, { upsert: true });
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === 11000) return false;
        throw error;
      }
    },
    async pruneExpired({ olderThanMs }) {
      const now = await serverNow();
      const result = await leases.deleteMany({ until: { $lt: new Date(now.getTime() - Math.round(olderThanMs)) } });
      return result.deletedCount;
    },
  };
}
