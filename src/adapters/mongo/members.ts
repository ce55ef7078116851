import { createMongoAccountSessions } from './account-sessions.js';
import type { Member, MemberPasswordToken, MemberSession } from '../../domain/types.js';
import type { ClientSession } from 'mongodb';
import { endsOwnership, mayEndOwnership, type MemberPatch, type MemberRepository } from '../../ports/members.js';
import type { MemberDoc, MongoDatabase } from './database.js';

const toMember = (d: MemberDoc): Member => ({
  id: d._id,
  merchantId: d.merchantId,
  email: d.email,
  role: d.role,
  status: d.status,
  passwordHash: d.passwordHash,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});



const patchOf = (patch: MemberPatch, updatedAt: string) => ({
  updatedAt,
  ...(patch.role !== undefined && { role: patch.role }),
  ...(patch.status !== undefined && { status: patch.status }),
  ...(patch.passwordHash !== undefined && { passwordHash: patch.passwordHash }),
});

export function createMongoMemberRepository(database: MongoDatabase): MemberRepository {
  const { members, memberPasswordTokens: tokens, memberSessions: sessions, leases } = database.collections;
  const accounts = createMongoAccountSessions<'memberId', MemberPasswordToken, MemberSession>({ owner: 'memberId', tokens, sessions });

  /**
   * Inside a transaction. Every guarded change of one merchant's team first writes the same guard
   * document, so two at once conflict: the driver retries the loser, whose new snapshot sees the
   * winner's change (without it, each would count the other as the remaining owner).
   */
  async function wouldLeaveNoOwner(session: ClientSession, id: string, merchantId: string, patch: MemberPatch | null): Promise<boolean> {
    await leases.updateOne({ _id: `owners:${merchantId}` }, { $set: { owner: 'team-guard', until: new Date() } }, { upsert: true, session });
    const member = await members.findOne({ _id: id, merchantId }, { session });
    if (!member || !endsOwnership(member, patch)) return false;
    return (await members.countDocuments({ merchantId, _id: { $ne: id }, role: 'owner', status: 'active' }, { session })) === 0;
  }
  return {
    async insert(member) {
      // Insert-if-absent on the unique (merchant, email) index, as the users repository does for RUTs.
      const result = await members.updateOne(
        { merchantId: member.merchantId, email: member.email },
        {
          $setOnInsert: {
            _id: member.id,
            role: member.role,
            status: member.status,
            passwordHash: member.passwordHash,
            createdAt: member.createdAt,
            updatedAt: member.updatedAt,
          },
        },
        { upsert: true },
      );
      return result.upsertedCount === 1;
    },
    async findById({ id, merchantId }) {
      const doc = await members.findOne({ _id: id, merchantId });
      return doc ? toMember(doc) : null;
    },
    async findByEmail({ merchantId, email }) {
      const doc = await members.findOne({ merchantId, email });
      return doc ? toMember(doc) : null;
    },
    async listActiveByEmail({ email, limit }) {
      const docs = await members.find({ email, status: 'active', passwordHash: { $ne: null } }).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toMember);
    },
    async listByMerchant(merchantId) {
      const docs = await members.find({ merchantId }).sort({ createdAt: 1, _id: 1 }).toArray();
      return docs.map(toMember);
    },
    async update({ id, merchantId, patch, updatedAt }) {
      const apply = async (session?: ClientSession) => {
        const doc = await members.findOneAndUpdate({ _id: id, merchantId }, { $set: patchOf(patch, updatedAt) }, { returnDocument: 'after', session });
        return doc ? toMember(doc) : null;
      };
      if (!mayEndOwnership(patch)) return apply();
      return database.inTransaction(async (session) => ((await wouldLeaveNoOwner(session, id, merchantId, patch)) ? ('last_owner' as const) : apply(session)));
    },
    async remove({ id, merchantId }) {
      // The member first: a session or token left by a failure after it matches no member and admits nobody.
      const deleteMember = async (session: ClientSession) => (await members.deleteOne({ _id: id, merchantId }, { session })).deletedCount === 1;
      const outcome = await database.inTransaction(async (session) => ((await wouldLeaveNoOwner(session, id, merchantId, null)) ? ('last_owner' as const) : deleteMember(session)));
      if (outcome !== true) return outcome;
      await accounts.deleteSessionsOf(id);
      await accounts.deleteTokensOf(id);
      return true;
    },
    replacePasswordToken: accounts.replacePasswordToken,
    consumePasswordToken: accounts.consumePasswordToken,
    insertSession: accounts.insertSession,
    findSession: accounts.findSession,
    touchSession: accounts.touchSession,
    deleteSession: accounts.deleteSession,
    trimSessionsOf: ({ memberId, keep }) => accounts.trimSessionsOf(memberId, keep),
    deleteSessionsOf: accounts.deleteSessionsOf,
    pruneExpired: accounts.pruneExpired,
  };
}
