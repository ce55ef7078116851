import type { ClientSession, Collection, Filter } from 'mongodb';
import { notificationKey, type Notification } from '../../domain/notifications/types.js';
import type { NotificationRepository } from '../../ports/store.js';
import type { MongoDatabase, NotificationDoc } from './database.js';
import { serverNow } from './server-clock.js';

const toDoc = (n: Notification): NotificationDoc => Object.assign({ _id: notificationKey(n), createdOn: new Date(n.createdAt) }, n);

function toNotification(d: NotificationDoc): Notification {
  const { _id: _key, createdOn: _createdOn, ...n } = d;
  return n;
}

/**
 * Inserts notifications inside the caller's session, skipping one whose (order, moment, channel)
 * exists: `_id` is that key and each write is an upsert that only sets on insert (a duplicate-key
 * error would abort the order's transaction). Returns how many were inserted.
 */
export async function writeNotifications(collection: Collection<NotificationDoc>, notifications: readonly Notification[] | undefined, session?: ClientSession): Promise<number> {
  if (!notifications || notifications.length === 0) return 0;
  const result = await collection.bulkWrite(
    notifications.map((n) => ({ updateOne: { filter: { _id: notificationKey(n) }, update: { $setOnInsert: toDoc(n) }, upsert: true } })),
    { ordered: true, ...(session && { session }) },
  );
  return result.upsertedCount;
}

export function createMongoNotificationRepository(database: MongoDatabase): NotificationRepository {
  const { notifications } = database.collections;

  return {
    async insert(list) {
      return writeNotifications(notifications, list);
    },

    async claimDue({ owner, now, leaseMs, limit }) {
      if (limit <= 0) return [];
      const dbNow = await serverNow(database);
      const leaseUntil = new Date(dbNow.getTime() + Math.round(leaseMs)).toISOString();
      const dueFilter: Filter<NotificationDoc> = {
        status: 'pending',
        nextAttemptAt: { $lte: now },
        $or: [{ leaseUntil: null }, { leaseUntil: { $lte: dbNow.toISOString() } }],
      };
      // notifications_due (status, nextAttemptAt, id); each lease is one conditional findAndModify that
      // re-checks "due and unleased", so two workers racing for one row cannot both take it.
      const candidates = await notifications.find(dueFilter).sort({ nextAttemptAt: 1, id: 1 }).limit(limit).toArray();
      const claimed: Notification[] = [];
      for (const candidate of candidates) {
        const doc = await notifications.findOneAndUpdate({ _id: candidate._id, ...dueFilter }, { $set: { leaseOwner: owner, leaseUntil } }, { returnDocument: 'after' });
        if (doc) claimed.push(toNotification(doc));
      }
      return claimed;
    },

    async complete({ id, owner, attempts, status, error, at, nextAttemptAt, blockReason }) {
      const result = await notifications.updateOne(
        { id, leaseOwner: owner, status: 'pending' },
        { $set: { status, attempts, lastError: error, nextAttemptAt, leaseOwner: null, leaseUntil: null, ...(status === 'sent' && { sentAt: at }), ...(blockReason && { blockReason }) } },
      );
      return result.modifiedCount === 1;
    },

    async list({ merchantId, mode, orderId, after, limit }) {
      const filter: Filter<NotificationDoc> = { merchantId, mode, ...(after !== undefined && { id: { $lt: after } }), ...(orderId !== undefined && { orderId }) };
      const docs = await notifications.find(filter).sort({ id: -1 }).limit(limit).toArray();
      return docs.map(toNotification);
    },

    async prune({ createdBefore, limit }) {
      const old = await notifications.find({ createdAt: { $lt: createdBefore } }, { projection: { _id: 1 } }).sort({ createdAt: 1 }).limit(limit).toArray();
      if (old.length === 0) return 0;
      const result = await notifications.deleteMany({ _id: { $in: old.map((d) => d._id) } });
      return result.deletedCount;
    },
  };
}
