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
  cod_state: LedgerEntry['codState'];
}

const toEntry = (r: LedgerRow): LedgerEntry => ({
  id: r.id, merchantId: r.merchant_id, mode: r.mode, orderId: r.order_id, kind: r.kind, amount: r.amount, at: r.at,
  ...(r.courier_id !== null && { courierId: r.courier_id }),
  ...(r.expected !== null && { expected: r.expected }),
  ...(r.cod_state != null && { codState: r.cod_state }),
});

/** The row of an entry: the optional columns are NULL when the entry leaves them out. */
export const ledgerRow = (e: LedgerEntry) => ({
  id: e.id, merchantId: e.merchantId, mode: e.mode, orderId: e.orderId, kind: e.kind, amount: e.amount, at: e.at,
  courierId: e.courierId ?? null, expected: e.expected ?? null, codState: e.codState ?? null,
});

export const INSERT_LEDGER_SQL =
  'INSERT INTO ledger (id, merchant_id, mode, order_id, kind, amount, at, courier_id, expected, cod_state) VALUES (@id, @merchantId, @mode, @orderId, @kind, @amount, @at, @courierId, @expected, @codState)';

/** A claim counts unless it waits for an operator or was rejected (issue #39). */
const COUNTS = `(cod_state IS NULL OR cod_state = 'confirmed')`;
const SUMS = `COALESCE(SUM(CASE WHEN kind = 'cod_collected' AND ${COUNTS} THEN amount END), 0) AS collected,
  COALESCE(SUM(CASE WHEN kind = 'cod_collected' AND cod_state = 'pending_confirmation' THEN amount END), 0) AS pending,
  COALESCE(SUM(CASE WHEN kind = 'cod_handover' OR (kind = 'cod_settlement' AND courier_id IS NOT NULL) THEN amount END), 0) AS handedOver,
  COALESCE(SUM(CASE WHEN kind = 'cod_settlement' AND courier_id IS NULL THEN amount END), 0) AS paidOut,
  COUNT(CASE WHEN kind = 'cod_collected' AND amount <> expected THEN 1 END) AS mismatches`;
const COD_KINDS = `kind IN ('cod_collected', 'cod_settlement', 'cod_handover')`;

/** Charges and reversals are written by the order repository, in the transaction of the change they charge for. */
export function createSqliteLedgerRepository(db: SqliteDatabase): LedgerRepository {
  const byMerchant = db.prepare<[string, string], LedgerRow>('SELECT * FROM ledger WHERE merchant_id = ? AND mode = ? ORDER BY at, id');
  const byId = db.prepare<[string], LedgerRow>('SELECT * FROM ledger WHERE id = ?');
  const insert = db.prepare(INSERT_LEDGER_SQL);
  const merchantSums = db.prepare<{ merchantId: string; mode: string; from: string; to: string }, CodSums>(
    `SELECT ${SUMS} FROM ledger WHERE merchant_id = @merchantId AND mode = @mode AND ${COD_KINDS} AND at >= @from AND at < @to`,
  );
  const courierSums = db.prepare<[string], CodSums>(`SELECT ${SUMS} FROM ledger WHERE courier_id = ?`);
  const page = (after: boolean) =>
    db.prepare<Record<string, unknown>, LedgerRow>(
      `SELECT * FROM ledger WHERE merchant_id = @merchantId AND mode = @mode AND kind = 'cod_collected' AND at >= @from AND at < @to
       ${after ? 'AND (at, id) > (SELECT at, id FROM ledger WHERE id = @afterId)' : ''} ORDER BY at, id LIMIT @limit`,
    );
  const claimsPage = (after: boolean, courier: boolean) =>
    db.prepare<Record<string, unknown>, LedgerRow>(
      `SELECT * FROM ledger WHERE cod_state = @state AND kind = 'cod_collected' ${courier ? 'AND courier_id = @courierId' : ''}
       ${after ? 'AND (at, id) > (SELECT at, id FROM ledger WHERE id = @afterId)' : ''} ORDER BY at, id LIMIT @limit`,
    );
  const claimPages = [claimsPage(false, false), claimsPage(true, false), claimsPage(false, true), claimsPage(true, true)];
  const courierClaims = db.prepare<[string], LedgerRow>(
    `SELECT * FROM ledger WHERE courier_id = ? AND kind = 'cod_collected' AND mode = 'live' AND ${COUNTS} ORDER BY at, id`,
  );
  const courierHandOvers = db.prepare<[string], { order_id: string; total: number }>(
    `SELECT order_id, SUM(amount) AS total FROM ledger WHERE courier_id = ? AND kind = 'cod_handover' GROUP BY order_id`,
  );
  const courierLegacy = db.prepare<[string], { total: number }>(
    `SELECT COALESCE(SUM(amount), 0) AS total FROM ledger WHERE courier_id = ? AND kind = 'cod_settlement'`,
  );
  const resolve = db.prepare<{ id: string; to: string }, LedgerRow>(
    `UPDATE ledger SET cod_state = @to WHERE id = @id AND kind = 'cod_collected' AND cod_state = 'pending_confirmation' RETURNING *`,
  );
  /** Immediate (other writers wait): what is held cannot change between the read and the write. */
  const handOver = db.transaction((courierId: string, plan: Parameters<LedgerRepository['handOverCod']>[0]['plan']) => {
    const handed = new Map(courierHandOvers.all(courierId).map((r) => [r.order_id, r.total]));
    const claims = courierClaims.all(courierId).map((r) => ({ claim: toEntry(r), handedOver: handed.get(r.order_id!) ?? 0 }));
    const lines = plan({ claims, legacyHandedOver: courierLegacy.get(courierId)!.total });
    for (const line of lines) insert.run(ledgerRow(line));
    return lines;
  });
  const payOut = db.transaction((entry: LedgerEntry) => {
    const sums = merchantSums.get({ merchantId: entry.merchantId!, mode: 'live', from: '', to: '\uffff' })!;
    if (entry.amount > sums.handedOver - sums.paidOut) return { paid: false as const, handedOver: sums.handedOver, paidOut: sums.paidOut };
    insert.run(ledgerRow(entry));
    return { paid: true as const };
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
    async findById(id) {
      const row = byId.get(id);
      return row ? toEntry(row) : null;
    },
    async handOverCod({ courierId, plan }) {
      return handOver.immediate(courierId, plan);
    },
    async payOutCod(entry) {
      return payOut.immediate(entry);
    },
    async resolveCodClaim({ id, to }) {
      const row = resolve.get({ id, to });
      return row ? toEntry(row) : null;
    },
    async listCodClaims({ state, courierId, afterId, limit }) {
      const statement = claimPages[(afterId === undefined ? 0 : 1) + (courierId === undefined ? 0 : 2)]!;
      const params: Record<string, unknown> = { state, limit, courierId, afterId };
      return statement.all(params).map(toEntry);
    },
    async listCodCollections({ merchantId, mode, from = '', to, afterId, limit }) {
      const params = { merchantId, mode, from, to, limit };
      return (afterId === undefined ? firstPage.all(params) : nextPage.all(Object.assign({}, params, { afterId }))).map(toEntry);
    },
    async handedOverByOrder({ orderIds }) {
      if (orderIds.length === 0) return new Map();
      const rows = db
        .prepare<string[], { order_id: string; total: number }>(
          `SELECT order_id, SUM(amount) AS total FROM ledger WHERE kind = 'cod_handover' AND order_id IN (${orderIds.map(() => '?').join(', ')}) GROUP BY order_id`,
        )
        .all(...orderIds);
      return new Map(rows.map((r) => [r.order_id, r.total]));
    },
    async merchantCodSums({ merchantId, mode, from = '', to }) {
      return merchantSums.get({ merchantId, mode, from, to })!;
    },
    async courierCodSums({ courierId }) {
      return courierSums.get(courierId)!;
    },
  };
}
