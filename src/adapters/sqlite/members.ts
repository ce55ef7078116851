import type { Member, MemberPasswordToken, MemberSession } from '../../domain/types.js';
import { endsOwnership, type MemberPatch, type MemberRepository } from '../../ports/members.js';
import type { SqliteDatabase } from './database.js';

interface MemberRow {
  id: string;
  merchant_id: string;
  email: string;
  role: Member['role'];
  status: Member['status'];
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

interface TokenRow {
  hash: string;
  member_id: string;
  merchant_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

interface SessionRow {
  hash: string;
  member_id: string;
  merchant_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

const toMember = (r: MemberRow): Member => ({
  id: r.id,
  merchantId: r.merchant_id,
  email: r.email,
  role: r.role,
  status: r.status,
  passwordHash: r.password_hash,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toToken = (r: TokenRow): MemberPasswordToken => ({
  hash: r.hash,
  memberId: r.member_id,
  merchantId: r.merchant_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
});

const toSession = (r: SessionRow): MemberSession => ({
  hash: r.hash,
  memberId: r.member_id,
  merchantId: r.merchant_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
});

export function createSqliteMemberRepository(db: SqliteDatabase): MemberRepository {
  const insert = db.prepare(
    `INSERT INTO members (id, merchant_id, email, role, status, password_hash, created_at, updated_at)
     VALUES (@id, @merchantId, @email, @role, @status, @passwordHash, @createdAt, @updatedAt)
     ON CONFLICT (merchant_id, email) DO NOTHING`,
  );
  const byId = db.prepare<[string, string], MemberRow>('SELECT * FROM members WHERE id = ? AND merchant_id = ?');
  const byEmail = db.prepare<[string, string], MemberRow>('SELECT * FROM members WHERE merchant_id = ? AND email = ?');
  const activeByEmail = db.prepare<[string, number], MemberRow>(
    "SELECT * FROM members WHERE email = ? AND status = 'active' AND password_hash IS NOT NULL ORDER BY created_at, id LIMIT ?",
  );
  const byMerchant = db.prepare<[string], MemberRow>('SELECT * FROM members WHERE merchant_id = ? ORDER BY created_at, id');
  const update = db.prepare<{ id: string; merchantId: string; role: string | null; status: string | null; passwordHash: string | null; updatedAt: string }>(
    `UPDATE members SET role = coalesce(@role, role), status = coalesce(@status, status),
       password_hash = coalesce(@passwordHash, password_hash), updated_at = @updatedAt
     WHERE id = @id AND merchant_id = @merchantId`,
  );
  const deleteMember = db.prepare<[string, string]>('DELETE FROM members WHERE id = ? AND merchant_id = ?');
  const deleteTokensOf = db.prepare<[string]>('DELETE FROM member_password_tokens WHERE member_id = ?');
  const deleteUnusedTokensOf = db.prepare<[string]>('DELETE FROM member_password_tokens WHERE member_id = ? AND used_at IS NULL');
  const insertToken = db.prepare(
    `INSERT INTO member_password_tokens (hash, member_id, merchant_id, created_at, expires_at, used_at)
     VALUES (@hash, @memberId, @merchantId, @createdAt, @expiresAt, @usedAt)`,
  );
  const consumeToken = db.prepare<[string, string, string], TokenRow>(
    'UPDATE member_password_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING *',
  );
  const insertSession = db.prepare(
    `INSERT INTO member_sessions (hash, member_id, merchant_id, created_at, last_seen_at, expires_at)
     VALUES (@hash, @memberId, @merchantId, @createdAt, @lastSeenAt, @expiresAt)`,
  );
  const sessionByHash = db.prepare<[string], SessionRow>('SELECT * FROM member_sessions WHERE hash = ?');
  const touch = db.prepare<[string, string, string]>('UPDATE member_sessions SET last_seen_at = ? WHERE hash = ? AND last_seen_at < ?');
  const deleteSession = db.prepare<[string]>('DELETE FROM member_sessions WHERE hash = ?');
  const deleteSessionsOf = db.prepare<[string]>('DELETE FROM member_sessions WHERE member_id = ?');
  const trimSessionsOf = db.prepare<{ memberId: string; keep: number }>(
    `DELETE FROM member_sessions WHERE member_id = @memberId AND hash IN (
       SELECT hash FROM member_sessions WHERE member_id = @memberId ORDER BY created_at DESC, hash DESC LIMIT -1 OFFSET @keep)`,
  );
  const pruneSessions = db.prepare<[string, number]>('DELETE FROM member_sessions WHERE rowid IN (SELECT rowid FROM member_sessions WHERE expires_at < ? LIMIT ?)');
  const pruneTokens = db.prepare<[string, number]>('DELETE FROM member_password_tokens WHERE rowid IN (SELECT rowid FROM member_password_tokens WHERE expires_at < ? LIMIT ?)');

  const otherActiveOwners = db.prepare<[string, string], { n: number }>(
    "SELECT COUNT(*) AS n FROM members WHERE merchant_id = ? AND id <> ? AND role = 'owner' AND status = 'active'",
  );
  /** Inside a write transaction (immediate: other writers wait), so the count cannot change before the write. */
  const wouldLeaveNoOwner = (id: string, merchantId: string, patch: MemberPatch | null): boolean => {
    const row = byId.get(id, merchantId);
    return !!row && endsOwnership(toMember(row), patch) && otherActiveOwners.get(merchantId, id)!.n === 0;
  };
  const updateMember = db.transaction((options: Parameters<MemberRepository['update']>[0]) => {
    const { id, merchantId, patch, updatedAt } = options;
    if (wouldLeaveNoOwner(id, merchantId, patch)) return 'last_owner' as const;
    const changed = update.run({ id, merchantId, role: patch.role ?? null, status: patch.status ?? null, passwordHash: patch.passwordHash ?? null, updatedAt });
    return changed.changes === 0 ? null : toMember(byId.get(id, merchantId)!);
  });
  const remove = db.transaction((id: string, merchantId: string) => {
    if (wouldLeaveNoOwner(id, merchantId, null)) return 'last_owner' as const;
    if (deleteMember.run(id, merchantId).changes === 0) return false;
    deleteSessionsOf.run(id);
    deleteTokensOf.run(id);
    return true;
  });
  const replaceToken = db.transaction((token: MemberPasswordToken) => {
    deleteUnusedTokensOf.run(token.memberId);
    insertToken.run(token);
  });
  const prune = db.transaction((before: string, limit: number) => pruneSessions.run(before, limit).changes + pruneTokens.run(before, limit).changes);

  return {
    async insert(member) {
      return insert.run(member).changes === 1;
    },
    async findById({ id, merchantId }) {
      const row = byId.get(id, merchantId);
      return row ? toMember(row) : null;
    },
    async findByEmail({ merchantId, email }) {
      const row = byEmail.get(merchantId, email);
      return row ? toMember(row) : null;
    },
    async listActiveByEmail({ email, limit }) {
      return activeByEmail.all(email, limit).map(toMember);
    },
    async listByMerchant(merchantId) {
      return byMerchant.all(merchantId).map(toMember);
    },
    async update(options) {
      return updateMember.immediate(options);
    },
    async remove({ id, merchantId }) {
      return remove.immediate(id, merchantId);
    },
    async replacePasswordToken(token) {
      replaceToken.immediate(token);
    },
    async consumePasswordToken({ hash, now }) {
      const row = consumeToken.get(now, hash, now);
      return row ? toToken(row) : null;
    },
    async insertSession(session) {
      insertSession.run(session);
    },
    async findSession(hash) {
      const row = sessionByHash.get(hash);
      return row ? toSession(row) : null;
    },
    async touchSession({ hash, lastSeenAt }) {
      touch.run(lastSeenAt, hash, lastSeenAt);
    },
    async deleteSession(hash) {
      return deleteSession.run(hash).changes > 0;
    },
    async trimSessionsOf({ memberId, keep }) {
      return trimSessionsOf.run({ memberId, keep }).changes;
    },
    async deleteSessionsOf(memberId) {
      return deleteSessionsOf.run(memberId).changes;
    },
    async pruneExpired({ before, limit }) {
      return prune.immediate(before, limit);
    },
  };
}
