import type { Collection, Filter, OptionalUnlessRequiredId } from 'mongodb';
import { pruneExpiredDocs } from './expired.js';

interface TokenBase { hash: string; createdAt: string; expiresAt: string; usedAt: string | null }
interface SessionBase { hash: string; createdAt: string; lastSeenAt: string; expiresAt: string }
/** As stored: the hash is the `_id`; `expireOn` is expiresAt as a BSON Date for the TTL index. */
type Stored<T> = Omit<T, 'hash'> & { _id: string; expireOn: Date };

const toStored = <T extends { hash: string; expiresAt: string }>({ hash, ...rest }: T) => Object.assign({ _id: hash }, rest, { expireOn: new Date(rest.expiresAt) });
const fromStored = <T>({ _id, expireOn: _expireOn, ...rest }: Stored<T>): T => Object.assign({ hash: _id }, rest) as T;

/**
 * The password-link tokens and sign-in sessions of one kind of account — team members, operators —
 * kept alike; `owner` names the account's field (`memberId`, `operatorId`).
 */
export function createMongoAccountSessions<Owner extends string, Token extends TokenBase & Record<Owner, string>, Session extends SessionBase & Record<Owner, string>>(options: {
  owner: Owner;
  tokens: Collection<Stored<Token>>;
  sessions: Collection<Stored<Session>>;
}) {
  const { owner, tokens, sessions } = options;
  const ofToken = (filter: Record<string, unknown>) => filter as Filter<Stored<Token>>;
  const ofSession = (filter: Record<string, unknown>) => filter as Filter<Stored<Session>>;
  return {
    async replacePasswordToken(token: Token): Promise<void> {
      await tokens.deleteMany(ofToken({ [owner]: token[owner], usedAt: null }));
      await tokens.insertOne(toStored(token) as unknown as OptionalUnlessRequiredId<Stored<Token>>);
    },
    async consumePasswordToken({ hash, now }: { hash: string; now: string }): Promise<Token | null> {
      const doc = await tokens.findOneAndUpdate(ofToken({ _id: hash, usedAt: null, expiresAt: { $gt: now } }), { $set: { usedAt: now } as Partial<Stored<Token>> }, { returnDocument: 'after' });
      return doc ? fromStored<Token>(doc as Stored<Token>) : null;
    },
    async insertSession(session: Session): Promise<void> {
      await sessions.insertOne(toStored(session) as unknown as OptionalUnlessRequiredId<Stored<Session>>);
    },
    async findSession(hash: string): Promise<Session | null> {
      const doc = await sessions.findOne(ofSession({ _id: hash }));
      return doc ? fromStored<Session>(doc as Stored<Session>) : null;
    },
    async touchSession({ hash, lastSeenAt }: { hash: string; lastSeenAt: string }): Promise<void> {
      await sessions.updateOne(ofSession({ _id: hash, lastSeenAt: { $lt: lastSeenAt } }), { $set: { lastSeenAt } as Partial<Stored<Session>> });
    },
    async deleteSession(hash: string): Promise<boolean> {
      return (await sessions.deleteOne(ofSession({ _id: hash }))).deletedCount > 0;
    },
    /** All but the account's `keep` newest sessions. */
    async trimSessionsOf(ownerId: string, keep: number): Promise<number> {
      const beyond = await sessions.find(ofSession({ [owner]: ownerId }), { projection: { _id: 1 } }).sort({ createdAt: -1, _id: -1 }).skip(keep).toArray();
      if (beyond.length === 0) return 0;
      return (await sessions.deleteMany(ofSession({ [owner]: ownerId, _id: { $in: beyond.map((d) => d._id) } }))).deletedCount;
    },
    async deleteSessionsOf(ownerId: string): Promise<number> {
      return (await sessions.deleteMany(ofSession({ [owner]: ownerId }))).deletedCount;
    },
    async deleteTokensOf(ownerId: string): Promise<number> {
      return (await tokens.deleteMany(ofToken({ [owner]: ownerId }))).deletedCount;
    },
    async pruneExpired({ before, limit }: { before: string; limit: number }): Promise<number> {
      return (await pruneExpiredDocs(sessions, { before, limit })) + (await pruneExpiredDocs(tokens, { before, limit }));
    },
  };
}
