import { pruneExpiredDocs } from './expired.js';
import type { CourierSessionRepository } from '../../ports/courier-sessions.js';
import type { CourierSessionDoc, CourierSignInCodeDoc, MongoDatabase } from './database.js';

export function createMongoCourierSessionRepository(database: MongoDatabase): CourierSessionRepository {
  const { courierSignInCodes: codes, courierSessions: sessions } = database.collections;
  const toCode = (d: CourierSignInCodeDoc) => ({ hash: d._id, courierId: d.courierId, createdAt: d.createdAt, expiresAt: d.expiresAt, usedAt: d.usedAt });
  const toSession = (d: CourierSessionDoc) => ({ hash: d._id, courierId: d.courierId, createdAt: d.createdAt, expiresAt: d.expiresAt });
  return {
    async replaceSignInCode(code) {
      await codes.deleteMany({ courierId: code.courierId, usedAt: null });
      await codes.insertOne({ _id: code.hash, courierId: code.courierId, createdAt: code.createdAt, expiresAt: code.expiresAt, usedAt: code.usedAt, expireOn: new Date(code.expiresAt) });
    },
    async consumeSignInCode({ hash, now }) {
      const doc = await codes.findOneAndUpdate({ _id: hash, usedAt: null, expiresAt: { $gt: now } }, { $set: { usedAt: now } }, { returnDocument: 'after' });
      return doc ? toCode(doc) : null;
    },
    async insertSession(session) {
      await sessions.insertOne({ _id: session.hash, courierId: session.courierId, createdAt: session.createdAt, expiresAt: session.expiresAt, expireOn: new Date(session.expiresAt) });
    },
    async findSession(hash) {
      const doc = await sessions.findOne({ _id: hash });
      return doc ? toSession(doc) : null;
    },
    async deleteSession(hash) {
      return (await sessions.deleteOne({ _id: hash })).deletedCount > 0;
    },
    async deleteAllOf(courierId) {
      await codes.deleteMany({ courierId, usedAt: null });
      return (await sessions.deleteMany({ courierId })).deletedCount;
    },
    async trimSessionsOf({ courierId, keep }) {
      const beyond = await sessions.find({ courierId }, { projection: { _id: 1 } }).sort({ createdAt: -1, _id: -1 }).skip(keep).toArray();
      if (beyond.length === 0) return 0;
      return (await sessions.deleteMany({ courierId, _id: { $in: beyond.map((d) => d._id) } })).deletedCount;
    },
    async pruneExpired({ before, limit }) {
      return (await pruneExpiredDocs(sessions, { before, limit })) + (await pruneExpiredDocs(codes, { before, limit }));
    },
  };
}
