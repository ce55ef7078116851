import { MongoServerError } from 'mongodb';
import type { ProofBudgetRepository } from '../../ports/proof-store.js';
import type { MongoDatabase } from './database.js';

const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;

/**
 * The upload budgets' counters (issue #39): one document per key, `_id` the key. A take is one
 * conditional upsert: it matches only while the total stays within the limit; when the counter
 * exists but did not match, the upsert's insert collides on `_id`, and one conditional update
 * without upsert decides. The TTL index removes a counter at `expireAt`.
 */
export function createMongoProofBudgetRepository(database: MongoDatabase): ProofBudgetRepository {
  const { proofBudgets: budgets } = database.collections;
  return {
    async take({ key, amount, limit, expiresAt }) {
      const full = async () => ({ taken: false, used: (await budgets.findOne({ _id: key }))?.used ?? 0 });
      if (amount > limit) return full();
      try {
        const after = await budgets.findOneAndUpdate(
          { _id: key, used: { $lte: limit - amount } },
          { $inc: { used: amount }, $setOnInsert: { expireAt: new Date(expiresAt) } },
          { upsert: true, returnDocument: 'after' },
        );
        return { taken: true, used: after?.used ?? amount };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      // The counter exists: full, or made by a concurrent first take between our match and our insert
      // (the server does not retry such an upsert, its filter being more than the _id): take once more without upserting.
      const after = await budgets.findOneAndUpdate({ _id: key, used: { $lte: limit - amount } }, { $inc: { used: amount } }, { returnDocument: 'after' });
      return after ? { taken: true, used: after.used } : full();
    },
    async giveBack({ key, amount }) {
      // Two steps, each atomic: the decrement, then a floor at zero should a give-back outrun its take.
      await budgets.updateOne({ _id: key }, { $inc: { used: -amount } });
      await budgets.updateOne({ _id: key, used: { $lt: 0 } }, { $set: { used: 0 } });
    },
    async prune({ before, limit }) {
      const ids = (await budgets.find({ expireAt: { $lt: new Date(before) } }, { projection: { _id: 1 } }).limit(limit).toArray()).map((d) => d._id);
      if (ids.length === 0) return 0;
      return (await budgets.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
  };
}
