import { notificationKey, type Notification } from '../../domain/notifications/types.js';
import type { NotificationRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

type DocRow = { doc: string };
const parse = (row: DocRow) => JSON.parse(row.doc) as Notification;

/**
 * Inserts notifications, skipping one whose (order, moment, channel) exists (the `dedupe` primary
 * key); shared by the outbox of order changes. Returns how many were inserted.
 */
export function createNotificationWriter(db: SqliteDatabase) {
  const insert = db.prepare(
    `INSERT INTO notifications (dedupe, id, merchant_id, mode, status, next_attempt_at, lease_until, created_at, doc)
     VALUES (@dedupe, @id, @merchantId, @mode, @status, @nextAttemptAt, @leaseUntil, @createdAt, @doc) ON CONFLICT (dedupe) DO NOTHING`,
  );
  return (notifications: readonly Notification[] | undefined): number => {
    let inserted = 0;
    for (const n of notifications ?? []) {
      inserted += insert.run({ dedupe: notificationKey(n), id: n.id, merchantId: n.merchantId, mode: n.mode, status: n.status, nextAttemptAt: n.nextAttemptAt, leaseUntil: n.leaseUntil, createdAt: n.createdAt, doc: JSON.stringify(n) }).changes;
    }
    return inserted;
  };
}

export function createSqliteNotificationRepository(db: SqliteDatabase): NotificationRepository {
  const write = createNotificationWriter(db);
  const clockRow = db.prepare<[], { ms: number }>("SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS ms");
  // Walks notifications_due (status, next_attempt_at): only pending rows, the due ones first.
  const DUE = "status = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until <= @dbNow)";
  const anyDue = db.prepare<{ now: string; dbNow: string }, { id: string }>(`SELECT id FROM notifications WHERE ${DUE} LIMIT 1`);
  const due = db.prepare<{ now: string; dbNow: string; limit: number }, DocRow>(`SELECT doc FROM notifications WHERE ${DUE} ORDER BY next_attempt_at, id LIMIT @limit`);
  const save = db.prepare('UPDATE notifications SET status = @status, next_attempt_at = @nextAttemptAt, lease_until = @leaseUntil, doc = @doc WHERE id = @id');
  const byId = db.prepare<[string], DocRow>('SELECT doc FROM notifications WHERE id = ?');
  const saveRow = (n: Notification) => save.run({ id: n.id, status: n.status, nextAttemptAt: n.nextAttemptAt, leaseUntil: n.leaseUntil, doc: JSON.stringify(n) });

  const claim = db.transaction((options: Parameters<NotificationRepository['claimDue']>[0]) => {
    const dbNowMs = clockRow.get()!.ms;
    const dbNow = new Date(dbNowMs).toISOString();
    const leaseUntil = new Date(dbNowMs + Math.round(options.leaseMs)).toISOString();
    return due.all({ now: options.now, dbNow, limit: options.limit }).map((row) => {
      const leased = Object.assign(parse(row), { leaseOwner: options.owner, leaseUntil });
      saveRow(leased);
      return leased;
    });
  });

  const complete = db.transaction((options: Parameters<NotificationRepository['complete']>[0]) => {
    const row = byId.get(options.id);
    const current = row && parse(row);
    if (!current || current.leaseOwner !== options.owner || current.status !== 'pending') return false;
    saveRow(Object.assign(current, {
      status: options.status, attempts: options.attempts, lastError: options.error, nextAttemptAt: options.nextAttemptAt,
      leaseOwner: null, leaseUntil: null, sentAt: options.status === 'sent' ? options.at : current.sentAt,
      ...(options.blockReason && { blockReason: options.blockReason }),
    }));
    return true;
  });

  const old = db.prepare<[string, number], { id: string }>('SELECT id FROM notifications WHERE created_at < ? ORDER BY created_at LIMIT ?');
  const drop = db.prepare<[string]>('DELETE FROM notifications WHERE id = ?');
  const prune = db.transaction((options: Parameters<NotificationRepository['prune']>[0]) => {
    const ids = old.all(options.createdBefore, options.limit);
    for (const { id } of ids) drop.run(id);
    return ids.length;
  });

  return {
    async insert(notifications) {
      return db.transaction(write).immediate(notifications);
    },
    async claimDue(options) {
      // An idle poll only reads (WAL readers never wait): the write lock is taken when there is work.
      if (options.limit <= 0 || !anyDue.get({ now: options.now, dbNow: new Date(clockRow.get()!.ms).toISOString() })) return [];
      return claim.immediate(options);
    },
    async complete(options) {
      return complete.immediate(options);
    },
    async list({ merchantId, mode, orderId, after, limit }) {
      // notifications_merchant (merchant_id, mode, id): a seek, newest first; an order's few rows are filtered from the JSON.
      const where = ['merchant_id = @merchantId', 'mode = @mode'];
      if (after !== undefined) where.push('id < @after');
      if (orderId !== undefined) where.push("json_extract(doc, '$.orderId') = @orderId");
      return db
        .prepare<Record<string, unknown>, DocRow>(`SELECT doc FROM notifications WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT @limit`)
        .all({ merchantId, mode, limit, ...(after !== undefined && { after }), ...(orderId !== undefined && { orderId }) })
        .map(parse);
    },
    async prune(options) {
      return prune.immediate(options);
    },
  };
}
