import type { Batch } from '../../domain/types.js';
import type { BatchRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import { createDeliveryWriter } from './webhooks.js';
import { createFeedWriter } from './events.js';

type DocRow = { doc: string };

export function createSqliteBatchRepository(db: SqliteDatabase): BatchRepository {
  const insert = db.prepare('INSERT INTO batches (id, merchant_id, mode, status, vehicle_type, created_at, doc) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const byId = db.prepare<[string], DocRow>('SELECT doc FROM batches WHERE id = ?');
  const write = db.prepare('UPDATE batches SET status = ?, doc = ? WHERE id = ?');
  const update = db.transaction((options: Parameters<BatchRepository['update']>[0]): Batch | null => {
    const row = byId.get(options.id);
    const current = row ? (JSON.parse(row.doc) as Batch) : null;
    if (!current || !options.from.includes(current.status)) return null;
    const patch = Object.fromEntries(Object.entries(options.patch).filter(([, value]) => value !== undefined)); // undefined = absent
    const next: Batch = Object.assign({}, current, patch, { updatedAt: options.updatedAt });
    write.run(next.status, JSON.stringify(next), next.id);
    return next;
  });
  const writeOutbox = createDeliveryWriter(db);
  const writeFeed = createFeedWriter(db);
  const insertWithOutbox = db.transaction((b: Batch, outbox: Parameters<BatchRepository['insert']>[1], feed: Parameters<BatchRepository['insert']>[2]) => {
    insert.run(b.id, b.merchantId, b.mode, b.status, b.vehicleType, b.createdAt, JSON.stringify(b));
    if (outbox) writeOutbox(outbox);
    writeFeed(feed);
  });
  return {
    async insert(b, outbox, feed) {
      insertWithOutbox.immediate(b, outbox, feed);
    },
    async findById(id) {
      const row = byId.get(id);
      return row ? (JSON.parse(row.doc) as Batch) : null;
    },
    async update(options) {
      return update.immediate(options);
    },
    async list({ merchantId, mode, after, limit }) {
      const sql = `SELECT doc FROM batches WHERE merchant_id = ? AND mode = ?${after ? ' AND id < ?' : ''} ORDER BY id DESC LIMIT ?`;
      const params = after ? [merchantId, mode, after, limit] : [merchantId, mode, limit];
      return db.prepare<unknown[], DocRow>(sql).all(...params).map((r) => JSON.parse(r.doc) as Batch);
    },
    async listPending({ mode, vehicleTypes, limit }) {
      if (vehicleTypes.length === 0) return [];
      const sql = `SELECT doc FROM batches WHERE mode = ? AND status = 'pending' AND vehicle_type IN (${vehicleTypes.map(() => '?').join(', ')})
        ORDER BY created_at, id LIMIT ?`;
      return db.prepare<unknown[], DocRow>(sql).all(mode, ...vehicleTypes, limit).map((r) => JSON.parse(r.doc) as Batch);
    },
  };
}
