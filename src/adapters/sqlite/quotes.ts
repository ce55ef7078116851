import type { StoredQuote } from '../../domain/types.js';
import type { QuoteRepository } from '../../ports/store.js';
import type { SqliteDatabase, WriteQueue } from './database.js';

export function createSqliteQuoteRepository(db: SqliteDatabase, inTransaction: WriteQueue): QuoteRepository {
  const insert = db.prepare<[string, string, string, string, string]>('INSERT INTO quotes (id, merchant_id, mode, expires_at, doc) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[string, string, string], { doc: string }>('SELECT doc FROM quotes WHERE id = ? AND merchant_id = ? AND mode = ?');
  // On the expiry index, in chunks: each call is one short write.
  const prune = db.prepare<[string, number]>('DELETE FROM quotes WHERE id IN (SELECT id FROM quotes WHERE expires_at < ? LIMIT ?)');
  return {
    // Group commit: the quotes of one event-loop turn share one commit (one WAL append).
    async insert(quote) {
      const doc = JSON.stringify(quote);
      await inTransaction(() => insert.run(quote.id, quote.merchantId, quote.mode, quote.expiresAt, doc));
    },
    async find({ id, merchantId, mode }) {
      const row = byId.get(id, merchantId, mode);
      return row ? (JSON.parse(row.doc) as StoredQuote) : null;
    },
    async prune({ expiredBefore, limit }) {
      return prune.run(expiredBefore, limit).changes;
    },
  };
}
