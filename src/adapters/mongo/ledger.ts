import type { LedgerEntry } from '../../domain/types.js';
import type { LedgerRepository } from '../../ports/store.js';
import type { LedgerDoc, MongoDatabase } from './database.js';

export const toLedgerDoc = (l: LedgerEntry): LedgerDoc => ({
  _id: l.id,
  merchantId: l.merchantId,
  mode: l.mode,
  orderId: l.orderId,
  kind: l.kind,
  amount: l.amount,
  at: l.at,
});

const toLedgerEntry = (d: LedgerDoc): LedgerEntry => ({
  id: d._id,
  merchantId: d.merchantId,
  mode: d.mode,
  orderId: d.orderId,
  kind: d.kind,
  amount: d.amount,
  at: d.at,
});

/** Entries are written by the order repository, in the transaction of the change they charge for. */
export function createMongoLedgerRepository(database: MongoDatabase): LedgerRepository {
  const { ledger } = database.collections;
  return {
    async listByMerchant({ merchantId, mode }) {
      const docs = await ledger.find({ merchantId, mode }).sort({ at: 1, _id: 1 }).toArray();
      return docs.map(toLedgerEntry);
    },
  };
}
