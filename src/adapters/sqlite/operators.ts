import type { AuditEntry, Operator, OperatorPasswordToken, OperatorSession } from '../../domain/types.js';
import { endsAdmin, type AuditRepository, type OperatorPatch, type OperatorRepository } from '../../ports/operators.js';
import { createSqliteAccountSessions } from './account-sessions.js';
import type { SqliteDatabase } from './database.js';

interface OperatorRow {
  id: string;
  email: string;
  role: Operator['role'];
  status: Operator['status'];
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

const toOperator = (r: OperatorRow): Operator => ({
  id: r.id,
  email: r.email,
  role: r.role,
  status: r.status,
  passwordHash: r.password_hash,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createSqliteOperatorRepository(db: SqliteDatabase): OperatorRepository {
  const accounts = createSqliteAccountSessions<OperatorPasswordToken, OperatorSession>(db, { kind: 'operator' });
  const insert = db.prepare(
    `INSERT INTO operators (id, email, role, status, password_hash, created_at, updated_at)
     VALUES (@id, @email, @role, @status, @passwordHash, @createdAt, @updatedAt) ON CONFLICT (email) DO NOTHING`,
  );
  const byId = db.prepare<[string], OperatorRow>('SELECT * FROM operators WHERE id = ?');
  const byEmail = db.prepare<[string], OperatorRow>('SELECT * FROM operators WHERE email = ?');
  const all = db.prepare<[], OperatorRow>('SELECT * FROM operators ORDER BY created_at, id');
  const update = db.prepare<{ id: string; role: string | null; status: string | null; passwordHash: string | null; updatedAt: string }, OperatorRow>(
    `UPDATE operators SET role = coalesce(@role, role), status = coalesce(@status, status),
       password_hash = coalesce(@passwordHash, password_hash), updated_at = @updatedAt WHERE id = @id RETURNING *`,
  );
  const otherActiveAdmins = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM operators WHERE id <> ? AND role = 'admin' AND status = 'active'");
  /** Run immediate (other writers wait), so the count cannot change before the write. */
  const updateOperator = db.transaction((id: string, patch: OperatorPatch, updatedAt: string) => {
    const current = byId.get(id);
    if (!current) return null;
    if (endsAdmin(toOperator(current), patch) && otherActiveAdmins.get(id)!.n === 0) return 'last_admin' as const;
    const row = update.get({ id, role: patch.role ?? null, status: patch.status ?? null, passwordHash: patch.passwordHash ?? null, updatedAt });
    return row ? toOperator(row) : null;
  });

  return {
    async insert(operator) {
      return insert.run(operator).changes === 1;
    },
    async findById(id) {
      const row = byId.get(id);
      return row ? toOperator(row) : null;
    },
    async findByEmail(email) {
      const row = byEmail.get(email);
      return row ? toOperator(row) : null;
    },
    async list() {
      return all.all().map(toOperator);
    },
    async update({ id, patch, updatedAt }) {
      return updateOperator.immediate(id, patch, updatedAt);
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

interface AuditRow {
  id: string;
  at: string;
  actor: string;
  actor_kind: AuditEntry['actorKind'];
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  target_type: AuditEntry['targetType'];
  target_id: string;
  before: string | null;
  after: string | null;
}

const toEntry = (r: AuditRow): AuditEntry => ({
  id: r.id,
  at: r.at,
  actorKind: r.actor_kind,
  actorId: r.actor_id,
  actorEmail: r.actor_email,
  action: r.action,
  targetType: r.target_type,
  targetId: r.target_id,
  before: r.before === null ? null : (JSON.parse(r.before) as Record<string, unknown>),
  after: r.after === null ? null : (JSON.parse(r.after) as Record<string, unknown>),
});

/** The filter's `actor`: an operator's id, or the kind (`admin_token`, `cli`) for the others. */
export const auditActorKey = (entry: Pick<AuditEntry, 'actorKind' | 'actorId'>) => entry.actorId ?? entry.actorKind;

export function createSqliteAuditRepository(db: SqliteDatabase): AuditRepository {
  const insert = db.prepare(
    `INSERT INTO audit_log (id, at, actor, actor_kind, actor_id, actor_email, action, target_type, target_id, before, after)
     VALUES (@id, @at, @actor, @actorKind, @actorId, @actorEmail, @action, @targetType, @targetId, @before, @after)`,
  );
  const prune = db.prepare<[string, number]>('DELETE FROM audit_log WHERE rowid IN (SELECT rowid FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)');
  return {
    async append(entry) {
      insert.run(Object.assign({}, entry, {
        actor: auditActorKey(entry),
        before: entry.before === null ? null : JSON.stringify(entry.before),
        after: entry.after === null ? null : JSON.stringify(entry.after),
      }));
    },
    async list({ filter, limit, beforeId }) {
      // Built from a closed set of clauses; every value is a bound parameter.
      const where: string[] = [];
      const params: Record<string, string | number> = { limit };
      const add = (clause: string, name: string, value: string | undefined) => {
        if (value === undefined) return;
        where.push(clause);
        params[name] = value;
      };
      add('actor = @actor', 'actor', filter.actor);
      add('action = @action', 'action', filter.action);
      add('target_type = @targetType', 'targetType', filter.targetType);
      add('target_id = @targetId', 'targetId', filter.targetId);
      add('at >= @from', 'from', filter.from);
      add('at < @to', 'to', filter.to);
      add('id < @beforeId', 'beforeId', beforeId);
      const sql = `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`;
      return db.prepare<Record<string, string | number>, AuditRow>(sql).all(params).map(toEntry);
    },
    async prune({ before, limit }) {
      return prune.run(before, limit).changes;
    },
  };
}
