import type { EventFeedRepository, FeedEvent, NewFeedEvent } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

type Row = { doc: string; position: number };

/**
 * Appends a feed event with the next position of its merchant and mode. Called inside the
 * transaction of the change: SQLite serialises writers, so positions follow commit order, and a
 * rolled-back change gives its position back (no gaps).
 */
export function createFeedWriter(db: SqliteDatabase) {
  const next = db
    .prepare<[string, string], number>(
      `INSERT INTO event_feed_positions (merchant_id, mode, last) VALUES (?, ?, 1)
       ON CONFLICT (merchant_id, mode) DO UPDATE SET last = last + 1 RETURNING last`,
    )
    .pluck();
  const insert = db.prepare('INSERT INTO event_feed (merchant_id, mode, position, id, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)');
  return (events: NewFeedEvent | NewFeedEvent[] | undefined) => {
    for (const event of events === undefined ? [] : Array.isArray(events) ? events : [events]) {
      const position = next.get(event.merchantId, event.mode)!;
      insert.run(event.merchantId, event.mode, position, event.id, event.at, JSON.stringify(event));
    }
  };
}

export function createSqliteEventFeedRepository(db: SqliteDatabase): EventFeedRepository {
  const page = db.prepare<[string, string, number, number], Row>(
    'SELECT doc, position FROM event_feed WHERE merchant_id = ? AND mode = ? AND position > ? ORDER BY position LIMIT ?',
  );
  const last = db.prepare<[string, string], number>('SELECT last FROM event_feed_positions WHERE merchant_id = ? AND mode = ?').pluck();
  const prune = db.prepare('DELETE FROM event_feed WHERE rowid IN (SELECT rowid FROM event_feed WHERE created_at < ? LIMIT ?)');
  return {
    async list({ merchantId, mode, after, limit }) {
      return page.all(merchantId, mode, after, limit).map((r) => Object.assign(JSON.parse(r.doc) as FeedEvent, { position: r.position }));
    },
    async lastPosition({ merchantId, mode }) {
      return last.get(merchantId, mode) ?? 0;
    },
    async prune({ createdBefore, limit }) {
      return prune.run(createdBefore, limit).changes;
    },
  };
}
