import type { Member, MemberPasswordToken, MemberSession } from '../../domain/types.js';
import { endsOwnership, type MemberPatch, type MemberRepository } from '../../ports/members.js';
import { createSqliteAccountSessions } from './account-sessions.js';
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

export function createSqliteMemberRepository(db: SqliteDatabase): MemberRepository {
  const accounts = createSqliteAccountSessions<MemberPasswordToken, MemberSession>(db, { kind: 'member', scope: ['merchant_id'] });
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
    accounts.deleteAllOf(id);
    return true;
  });

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
