import type { ProofBudgetRepository } from '../../ports/proof-store.js';
import type { SqliteDatabase } from './database.js';

/**
 * The upload budgets' counters (issue #39): one row per key. A take is one conditional upsert
 * (SQLite serialises writers, so two processes never both take the last unit).
 */
export function createSqliteProofBudgetRepository(db: SqliteDatabase): ProofBudgetRepository {
  const take = db.prepare(
    `INSERT INTO proof_budgets (key, used, expires_at) VALUES (@key, @amount, @expiresAt)
     ON CONFLICT (key) DO UPDATE SET used = proof_budgets.used + @amount WHERE proof_budgets.used + @amount <= @limit`,
  );
  const used = db.prepare<[string], number>('SELECT used FROM proof_budgets WHERE key = ?').pluck();
  const giveBack = db.prepare('UPDATE proof_budgets SET used = max(0, used - @amount) WHERE key = @key');
  const prune = db.prepare('DELETE FROM proof_budgets WHERE rowid IN (SELECT rowid FROM proof_budgets WHERE expires_at < ? LIMIT ?)');
  const takeOne = db.transaction((o: { key: string; amount: number; limit: number; expiresAt: string }) => {
    const taken = o.amount <= o.limit && take.run(o).changes > 0;
    return { taken, used: used.get(o.key) ?? 0 };
  });
  return {
    async take(options) {
      return takeOne.immediate(options);
    },
    async giveBack(options) {
      giveBack.run(options);
    },
    async prune({ before, limit }) {
      return prune.run(before, limit).changes;
    },
  };
}
