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
  ...(l.codState != null && { codState: l.codState }),
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
  ...(d.codState != null && { codState: d.codState }),
});

const COD_KINDS = ['cod_collected', 'cod_settlement', 'cod_handover'] as LedgerDoc['kind'][];
/** A claim counts unless it waits for an operator or was rejected (issue #39). */
const COUNTS: Filter<LedgerDoc> = { codState: { $nin: ['pending_confirmation', 'rejected'] } };

/** Charges and reversals are written by the order repository, in the transaction of the change they charge for. */
export function createMongoLedgerRepository(database: MongoDatabase): LedgerRepository {
  const { ledger, leases } = database.collections;
  /** The COD totals of the matched lines (one plain sum per figure), and their collections flagged as mismatches. */
  const sums = async (match: Filter<LedgerDoc>, session?: ClientSession): Promise<CodSums> => {
    const sum = async (filter: Filter<LedgerDoc>) => {
      const [row] = await ledger.aggregate<{ total: number }>([{ $match: { $and: [match, filter] } }, { $group: { _id: null, total: { $sum: '$amount' } } }], { session }).toArray();
      return row?.total ?? 0;
    };
    const [collected, pending, handedOver, paidOut, mismatches] = await Promise.all([
      sum(Object.assign({ kind: 'cod_collected' as const }, COUNTS)),
      sum({ kind: 'cod_collected', codState: 'pending_confirmation' }),
      sum({ $or: [{ kind: 'cod_handover' }, { kind: 'cod_settlement', courierId: { $exists: true } }] }),
      sum({ kind: 'cod_settlement', courierId: { $exists: false } }),
      ledger.countDocuments(Object.assign({}, match, { kind: 'cod_collected' as const, mismatch: true }), { session }),
    ]);
    return { collected, pending, handedOver, paidOut, mismatches };
  };
  /** Every write of one holder first writes the same guard document, so two at once conflict: the driver retries the loser, whose new snapshot sees the winner. */
  const guard = (holder: string, session: ClientSession) =>
    leases.updateOne({ _id: `cod-settlement:${holder}` }, { $set: { owner: 'cod-guard', until: new Date() } }, { upsert: true, session });
  return {
    async listByMerchant({ merchantId, mode }) {
      const docs = await ledger.find({ merchantId, mode }).sort({ at: 1, _id: 1 }).toArray();
      return docs.map(toLedgerEntry);
    },
    async append(entry) {
      await ledger.insertOne(toLedgerDoc(entry));
    },
    async findById(id) {
      const doc = await ledger.findOne({ _id: id });
      return doc ? toLedgerEntry(doc) : null;
    },
    async handOverCod({ courierId, plan }) {
      return database.inTransaction(async (session) => {
        await guard(`courier:${courierId}`, session);
        const [claims, handed, legacy] = await Promise.all([
          ledger.find(Object.assign({ courierId, kind: 'cod_collected' as const, mode: 'live' as const }, COUNTS), { session }).sort({ at: 1, _id: 1 }).toArray(),
          ledger.aggregate<{ _id: string; total: number }>([{ $match: { courierId, kind: 'cod_handover' } }, { $group: { _id: '$orderId', total: { $sum: '$amount' } } }], { session }).toArray(),
          ledger.aggregate<{ total: number }>([{ $match: { courierId, kind: 'cod_settlement' } }, { $group: { _id: null, total: { $sum: '$amount' } } }], { session }).toArray(),
        ]);
        const byOrder = new Map(handed.map((h) => [h._id, h.total]));
        const lines = plan({ claims: claims.map((c) => ({ claim: toLedgerEntry(c), handedOver: byOrder.get(c.orderId!) ?? 0 })), legacyHandedOver: legacy[0]?.total ?? 0 });
        if (lines.length > 0) await ledger.insertMany(lines.map(toLedgerDoc), { session });
        return lines;
      });
    },
    async payOutCod(entry) {
      return database.inTransaction(async (session) => {
        await guard(`merchant:${entry.merchantId}`, session);
        const { handedOver, paidOut } = await sums({ merchantId: entry.merchantId, mode: 'live', kind: { $in: COD_KINDS } }, session);
        if (entry.amount > handedOver - paidOut) return { paid: false as const, handedOver, paidOut };
        await ledger.insertOne(toLedgerDoc(entry), { session });
        return { paid: true as const };
      });
    },
    async resolveCodClaim({ id, to }) {
      const doc = await ledger.findOneAndUpdate({ _id: id, kind: 'cod_collected', codState: 'pending_confirmation' }, { $set: { codState: to } }, { returnDocument: 'after' });
      return doc ? toLedgerEntry(doc) : null;
    },
    async listCodClaims({ state, courierId, afterId, limit }) {
      const filter: Filter<LedgerDoc> = Object.assign({ codState: state, kind: 'cod_collected' as const }, courierId !== undefined && { courierId });
      if (afterId !== undefined) {
        const last = await ledger.findOne({ _id: afterId }, { projection: { at: 1 } });
        if (!last) return [];
        filter.$or = [{ at: { $gt: last.at } }, { at: last.at, _id: { $gt: afterId } }];
      }
      const docs = await ledger.find(filter).sort({ at: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toLedgerEntry);
    },
    async handedOverByOrder({ orderIds }) {
      if (orderIds.length === 0) return new Map();
      const rows = await ledger.aggregate<{ _id: string; total: number }>([{ $match: { kind: 'cod_handover', orderId: { $in: orderIds } } }, { $group: { _id: '$orderId', total: { $sum: '$amount' } } }]).toArray();
      return new Map(rows.map((r) => [r._id, r.total]));
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
      return sums({ merchantId, mode, kind: { $in: COD_KINDS }, at: { $gte: from, $lt: to } });
    },
    courierCodSums({ courierId }) {
      return sums({ courierId });
    },
  };
}
