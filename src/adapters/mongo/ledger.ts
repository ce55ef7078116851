import type { ClientSession, Filter } from 'mongodb';
import type { LedgerEntry } from '../../domain/types.js';
import type { CodSums, LedgerRepository } from '../../ports/store.js';
import type { LedgerDoc, MongoDatabase } from './database.js';

export const toLedgerDoc = (l: LedgerEntry): LedgerDoc => ({
  _id: l.id,
  merchantId: l.merchantId,
  mode: l.mode,
  orderId: l.orderId,
  kind: l.kind,
  amount: l.amount,
  at: l.at,
  ...(l.courierId != null && { courierId: l.courierId }),
  ...(l.expected != null && { expected: l.expected }),
  // Derived, for counting mismatches with a plain filter.
  ...(l.kind === 'cod_collected' && { mismatch: l.expected != null && l.amount !== l.expected }),
});

const toLedgerEntry = (d: LedgerDoc): LedgerEntry => ({
  id: d._id,
  merchantId: d.merchantId,
  mode: d.mode,
  orderId: d.orderId,
  kind: d.kind,
  amount: d.amount,
  at: d.at,
  ...(d.courierId != null && { courierId: d.courierId }),
  ...(d.expected != null && { expected: d.expected }),
});

/** Charges and reversals are written by the order repository, in the transaction of the change they charge for. */
export function createMongoLedgerRepository(database: MongoDatabase): LedgerRepository {
  const { ledger, leases } = database.collections;
  /** The COD kinds' totals of the matched lines, and their collections flagged as mismatches. */
  const sums = async (match: Filter<LedgerDoc>, session?: ClientSession): Promise<CodSums> => {
    const [byKind, mismatches] = await Promise.all([
      ledger.aggregate<{ _id: string; total: number }>([{ $match: match }, { $group: { _id: '$kind', total: { $sum: '$amount' } } }], { session }).toArray(),
      ledger.countDocuments(Object.assign({}, match, { kind: 'cod_collected' as const, mismatch: true }), { session }),
    ]);
    const total = (kind: string) => byKind.find((k) => k._id === kind)?.total ?? 0;
    return { collected: total('cod_collected'), settled: total('cod_settlement'), mismatches };
  };
  return {
    async listByMerchant({ merchantId, mode }) {
      const docs = await ledger.find({ merchantId, mode }).sort({ at: 1, _id: 1 }).toArray();
      return docs.map(toLedgerEntry);
    },
    async append(entry) {
      await ledger.insertOne(toLedgerDoc(entry));
    },
    async settleCod(entry) {
      const holder = entry.courierId != null ? `courier:${entry.courierId}` : `merchant:${entry.merchantId}`;
      const match: Filter<LedgerDoc> = entry.courierId != null ? { courierId: entry.courierId } : { merchantId: entry.merchantId, mode: 'live', kind: { $in: ['cod_collected', 'cod_settlement'] } };
      return database.inTransaction(async (session) => {
        // Every settlement of one holder first writes the same guard document, so two at once
        // conflict: the driver retries the loser, whose new snapshot sees the winner's settlement.
        await leases.updateOne({ _id: `cod-settlement:${holder}` }, { $set: { owner: 'cod-guard', until: new Date() } }, { upsert: true, session });
        const { collected, settled } = await sums(match, session);
        if (entry.amount > collected - settled) return { settled: false as const, outstanding: collected - settled };
        await ledger.insertOne(toLedgerDoc(entry), { session });
        return { settled: true as const };
      });
    },
    async listCodCollections({ merchantId, mode, from = '', to, afterId, limit }) {
      const filter: Record<string, unknown> = { merchantId, mode, kind: 'cod_collected', at: { $gte: from, $lt: to } };
      if (afterId !== undefined) {
        const last = await ledger.findOne({ _id: afterId }, { projection: { at: 1 } });
        if (!last) return [];
        filter.$or = [{ at: { $gt: last.at, $lt: to } }, { at: last.at, _id: { $gt: afterId } }];
      }
      const docs = await ledger.find(filter).sort({ at: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toLedgerEntry);
    },
    merchantCodSums({ merchantId, mode, from = '', to }) {
      return sums({ merchantId, mode, kind: { $in: ['cod_collected', 'cod_settlement'] }, at: { $gte: from, $lt: to } });
    },
    courierCodSums({ courierId }) {
      return sums({ courierId });
    },
  };
}
