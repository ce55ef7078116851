import type { LedgerEntry } from '../../domain/types.js';
import type { CodSums, LedgerRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

interface LedgerRow {
  id: string;
  merchant_id: string | null;
  mode: LedgerEntry['mode'];
  order_id: string | null;
  kind: LedgerEntry['kind'];
  amount: number;
  at: string;
  courier_id: string | null;
  expected: number | null;
}

const toEntry = (r: LedgerRow): LedgerEntry => ({
  id: r.id, merchantId: r.merchant_id, mode: r.mode, orderId: r.order_id, kind: r.kind, amount: r.amount, at: r.at,
  ...(r.courier_id !== null && { courierId: r.courier_id }),
  ...(r.expected !== null && { expected: r.expected }),
});

/** The row of an entry: the optional columns are NULL when the entry leaves them out. */
export const ledgerRow = (e: LedgerEntry) => ({
  id: e.id, merchantId: e.merchantId, mode: e.mode, orderId: e.orderId, kind: e.kind, amount: e.amount, at: e.at,
  courierId: e.courierId ?? null, expected: e.expected ?? null,
});

export const INSERT_LEDGER_SQL =
  'INSERT INTO ledger (id, merchant_id, mode, order_id, kind, amount, at, courier_id, expected) VALUES (@id, @merchantId, @mode, @orderId, @kind, @amount, @at, @courierId, @expected)';

const SUMS = `COALESCE(SUM(CASE kind WHEN 'cod_collected' THEN amount END), 0) AS collected,
  COALESCE(SUM(CASE kind WHEN 'cod_settlement' THEN amount END), 0) AS settled,
  COUNT(CASE WHEN kind = 'cod_collected' AND amount <> expected THEN 1 END) AS mismatches`;

/** Charges and reversals are written by the order repository, in the transaction of the change they charge for. */
export function createSqliteLedgerRepository(db: SqliteDatabase): LedgerRepository {
  const byMerchant = db.prepare<[string, string], LedgerRow>('SELECT * FROM ledger WHERE merchant_id = ? AND mode = ? ORDER BY at, id');
  const insert = db.prepare(INSERT_LEDGER_SQL);
  const merchantSums = db.prepare<{ merchantId: string; mode: string; from: string; to: string }, CodSums>(
    `SELECT ${SUMS} FROM ledger WHERE merchant_id = @merchantId AND mode = @mode AND kind IN ('cod_collected', 'cod_settlement') AND at >= @from AND at < @to`,
  );
  const courierSums = db.prepare<[string], CodSums>(`SELECT ${SUMS} FROM ledger WHERE courier_id = ?`);
  const page = (after: boolean) =>
    db.prepare<Record<string, unknown>, LedgerRow>(
      `SELECT * FROM ledger WHERE merchant_id = @merchantId AND mode = @mode AND kind = 'cod_collected' AND at >= @from AND at < @to
       ${after ? 'AND (at, id) > (SELECT at, id FROM ledger WHERE id = @afterId)' : ''} ORDER BY at, id LIMIT @limit`,
    );
  /** Immediate (other writers wait): what is outstanding cannot change between the sum and the write. */
  const settle = db.transaction((entry: LedgerEntry) => {
    const sums = entry.courierId != null ? courierSums.get(entry.courierId)! : merchantSums.get({ merchantId: entry.merchantId!, mode: 'live', from: '', to: '\uffff' })!;
    const outstanding = sums.collected - sums.settled;
    if (entry.amount > outstanding) return { settled: false as const, outstanding };
    insert.run(ledgerRow(entry));
    return { settled: true as const };
  });
  const firstPage = page(false);
  const nextPage = page(true);
  return {
    async listByMerchant({ merchantId, mode }) {
      return byMerchant.all(merchantId, mode).map(toEntry);
    },
    async append(entry) {
      insert.run(ledgerRow(entry));
    },
    async settleCod(entry) {
      return settle.immediate(entry);
    },
    async listCodCollections({ merchantId, mode, from = '', to, afterId, limit }) {
      const params = { merchantId, mode, from, to, limit };
      return (afterId === undefined ? firstPage.all(params) : nextPage.all(Object.assign({}, params, { afterId }))).map(toEntry);
    },
    async merchantCodSums({ merchantId, mode, from = '', to }) {
      return merchantSums.get({ merchantId, mode, from, to })!;
    },
    async courierCodSums({ courierId }) {
      return courierSums.get(courierId)!;
    },
  };
}
