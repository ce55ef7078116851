import type { StoredQuote } from '../../domain/types.js';
import type { QuoteRepository } from '../../ports/store.js';
import type { MongoDatabase, QuoteDoc } from './database.js';

function toQuoteDoc(q: StoredQuote): QuoteDoc {
  const { id, ...rest } = q;
  return Object.assign({ _id: id }, rest, { expireAt: new Date(q.expiresAt) });
}

function toQuote(d: QuoteDoc): StoredQuote {
  return {
    id: d._id, merchantId: d.merchantId, mode: d.mode, origin: d.origin, destination: d.destination, weightKg: d.weightKg,
    vehicleType: d.vehicleType, prepTimeMins: d.prepTimeMins, rates: d.rates, pickupAfter: d.pickupAfter, deliverBefore: d.deliverBefore,
    createdAt: d.createdAt, expiresAt: d.expiresAt, ...(d.via && { via: d.via }),
  };
}

/** Quotes; the TTL index removes them a day after they expire (prune() does the same on demand). */
export function createMongoQuoteRepository(database: MongoDatabase): QuoteRepository {
  const { quotes } = database.collections;
  return {
    async insert(quote) {
      await quotes.insertOne(toQuoteDoc(quote));
    },
    async find({ id, merchantId, mode }) {
      const doc = await quotes.findOne({ _id: id, merchantId, mode });
      return doc ? toQuote(doc) : null;
    },
    async prune({ expiredBefore, limit }) {
      if (limit <= 0) return 0;
      const ids = (await quotes.find({ expiresAt: { $lt: expiredBefore } }).limit(limit).toArray()).map((d) => d._id);
      if (ids.length === 0) return 0;
      return (await quotes.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
  };
}
