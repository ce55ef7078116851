import { createMongoAccountSessions } from './account-sessions.js';
import type { ClientSession, Filter } from 'mongodb';
import type { AuditEntry, Operator, OperatorPasswordToken, OperatorSession } from '../../domain/types.js';
import { endsAdmin, type AuditRepository, type OperatorPatch, type OperatorRepository } from '../../ports/operators.js';
import type { AuditDoc, MongoDatabase, OperatorDoc } from './database.js';

const toOperator = (d: OperatorDoc): Operator => ({
  id: d._id,
  email: d.email,
  role: d.role,
  status: d.status,
  passwordHash: d.passwordHash,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});



const patchOf = (patch: OperatorPatch, updatedAt: string) => ({
  updatedAt,
  ...(patch.role !== undefined && { role: patch.role }),
  ...(patch.status !== undefined && { status: patch.status }),
  ...(patch.passwordHash !== undefined && { passwordHash: patch.passwordHash }),
});

export function createMongoOperatorRepository(database: MongoDatabase): OperatorRepository {
  const { operators, operatorPasswordTokens: tokens, operatorSessions: sessions, leases } = database.collections;
  const accounts = createMongoAccountSessions<'operatorId', OperatorPasswordToken, OperatorSession>({ owner: 'operatorId', tokens, sessions });

  /**
   * Inside a transaction. Every guarded change first writes the same guard document, so two at once
   * conflict: the driver retries the loser, whose new snapshot sees the winner's change (as members' owners).
   */
  async function wouldLeaveNoAdmin(session: ClientSession, id: string, patch: OperatorPatch): Promise<boolean> {
    await leases.updateOne({ _id: 'operators:admins' }, { $set: { owner: 'admin-guard', until: new Date() } }, { upsert: true, session });
    const operator = await operators.findOne({ _id: id }, { session });
    if (!operator || !endsAdmin(operator, patch)) return false;
    return (await operators.countDocuments({ _id: { $ne: id }, role: 'admin', status: 'active' }, { session })) === 0;
  }
  return {
    async insert(operator) {
      // Insert-if-absent on the unique email index.
      const result = await operators.updateOne(
        { email: operator.email },
        {
          $setOnInsert: {
            _id: operator.id,
            role: operator.role,
            status: operator.status,
            passwordHash: operator.passwordHash,
            createdAt: operator.createdAt,
            updatedAt: operator.updatedAt,
          },
        },
        { upsert: true },
      );
      return result.upsertedCount === 1;
    },
    async findById(id) {
      const doc = await operators.findOne({ _id: id });
      return doc ? toOperator(doc) : null;
    },
    async findByEmail(email) {
      const doc = await operators.findOne({ email });
      return doc ? toOperator(doc) : null;
    },
    async list() {
      return (await operators.find({}).sort({ createdAt: 1, _id: 1 }).toArray()).map(toOperator);
    },
    async update({ id, patch, updatedAt }) {
      const apply = async (session?: ClientSession) => {
        const doc = await operators.findOneAndUpdate({ _id: id }, { $set: patchOf(patch, updatedAt) }, { returnDocument: 'after', session });
        return doc ? toOperator(doc) : null;
      };
      const mayEndAdmin = (patch.role !== undefined && patch.role !== 'admin') || (patch.status !== undefined && patch.status !== 'active');
      if (!mayEndAdmin) return apply();
      return database.inTransaction(async (session) => ((await wouldLeaveNoAdmin(session, id, patch)) ? ('last_admin' as const) : apply(session)));
    },
    replacePasswordToken: accounts.replacePasswordToken,
    consumePasswordToken: accounts.consumePasswordToken,
    insertSession: accounts.insertSession,
    findSession: accounts.findSession,
    touchSession: accounts.touchSession,
    deleteSession: accounts.deleteSession,
    trimSessionsOf: ({ operatorId, keep }) => accounts.trimSessionsOf(operatorId, keep),
    deleteSessionsOf: accounts.deleteSessionsOf,
    pruneExpired: accounts.pruneExpired,
  };
}

const toEntry = (d: AuditDoc): AuditEntry => ({
  id: d._id,
  at: d.at,
  actorKind: d.actorKind,
  actorId: d.actorId,
  actorEmail: d.actorEmail,
  action: d.action,
  targetType: d.targetType,
  targetId: d.targetId,
  before: d.before,
  after: d.after,
});

export function createMongoAuditRepository(database: MongoDatabase): AuditRepository {
  const { auditLog } = database.collections;
  return {
    async append(entry) {
      const { id, ...rest } = entry;
      await auditLog.insertOne({ _id: id, ...rest, actor: entry.actorId ?? entry.actorKind });
    },
    async list({ filter, limit, beforeId }) {
      const query: Filter<AuditDoc> = {};
      if (filter.actor !== undefined) query.actor = filter.actor;
      if (filter.action !== undefined) query.action = filter.action;
      if (filter.targetType !== undefined) query.targetType = filter.targetType;
      if (filter.targetId !== undefined) query.targetId = filter.targetId;
      if (filter.from !== undefined || filter.to !== undefined) query.at = { ...(filter.from !== undefined && { $gte: filter.from }), ...(filter.to !== undefined && { $lt: filter.to }) };
      if (beforeId !== undefined) query._id = { $lt: beforeId };
      return (await auditLog.find(query).sort({ _id: -1 }).limit(limit).toArray()).map(toEntry);
    },
    async prune({ before, limit }) {
      if (limit <= 0) return 0;
      const ids = (await auditLog.find({ at: { $lt: before } }, { projection: { _id: 1 } }).sort({ at: 1 }).limit(limit).toArray()).map((d) => d._id);
      return ids.length > 0 ? (await auditLog.deleteMany({ _id: { $in: ids } })).deletedCount : 0;
    },
  };
}
