import type { CourierSession, CourierSessionRepository, CourierSignInCode } from '../../ports/courier-sessions.js';
import type { SqliteDatabase } from './database.js';

interface CodeRow { hash: string; courier_id: string; created_at: string; expires_at: string; used_at: string | null }
interface SessionRow { hash: string; courier_id: string; created_at: string; expires_at: string }

const toCode = (r: CodeRow): CourierSignInCode => ({ hash: r.hash, courierId: r.courier_id, createdAt: r.created_at, expiresAt: r.expires_at, usedAt: r.used_at });
const toSession = (r: SessionRow): CourierSession => ({ hash: r.hash, courierId: r.courier_id, createdAt: r.created_at, expiresAt: r.expires_at });

export function createSqliteCourierSessionRepository(db: SqliteDatabase): CourierSessionRepository {
  const deleteUnusedCodes = db.prepare<[string]>('DELETE FROM courier_sign_in_codes WHERE courier_id = ? AND used_at IS NULL');
  const insertCode = db.prepare('INSERT INTO courier_sign_in_codes (hash, courier_id, created_at, expires_at, used_at) VALUES (@hash, @courierId, @createdAt, @expiresAt, @usedAt)');
  const consumeCode = db.prepare<[string, string, string], CodeRow>('UPDATE courier_sign_in_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING *');
  const insertSession = db.prepare('INSERT INTO courier_sessions (hash, courier_id, created_at, expires_at) VALUES (@hash, @courierId, @createdAt, @expiresAt)');
  const sessionByHash = db.prepare<[string], SessionRow>('SELECT * FROM courier_sessions WHERE hash = ?');
  const deleteSession = db.prepare<[string]>('DELETE FROM courier_sessions WHERE hash = ?');
  const deleteSessionsOf = db.prepare<[string]>('DELETE FROM courier_sessions WHERE courier_id = ?');
  const trim = db.prepare<{ courierId: string; keep: number }>(
    `DELETE FROM courier_sessions WHERE courier_id = @courierId AND hash IN (
       SELECT hash FROM courier_sessions WHERE courier_id = @courierId ORDER BY created_at DESC, hash DESC LIMIT -1 OFFSET @keep)`,
  );
  const pruneSessions = db.prepare<[string, number]>('DELETE FROM courier_sessions WHERE rowid IN (SELECT rowid FROM courier_sessions WHERE expires_at < ? LIMIT ?)');
  const pruneCodes = db.prepare<[string, number]>('DELETE FROM courier_sign_in_codes WHERE rowid IN (SELECT rowid FROM courier_sign_in_codes WHERE expires_at < ? LIMIT ?)');

  const replaceCode = db.transaction((code: CourierSignInCode) => {
    deleteUnusedCodes.run(code.courierId);
    insertCode.run(code);
  });
  const deleteAll = db.transaction((courierId: string) => {
    deleteUnusedCodes.run(courierId);
    return deleteSessionsOf.run(courierId).changes;
  });
  const prune = db.transaction((before: string, limit: number) => pruneSessions.run(before, limit).changes + pruneCodes.run(before, limit).changes);

  return {
    async replaceSignInCode(code) {
      replaceCode.immediate(code);
    },
    async consumeSignInCode({ hash, now }) {
      const row = consumeCode.get(now, hash, now);
      return row ? toCode(row) : null;
    },
    async insertSession(session) {
      insertSession.run(session);
    },
    async findSession(hash) {
      const row = sessionByHash.get(hash);
      return row ? toSession(row) : null;
    },
    async deleteSession(hash) {
      return deleteSession.run(hash).changes > 0;
    },
    async deleteAllOf(courierId) {
      return deleteAll.immediate(courierId);
    },
    async trimSessionsOf({ courierId, keep }) {
      return trim.run({ courierId, keep }).changes;
    },
    async pruneExpired({ before, limit }) {
      return prune.immediate(before, limit);
    },
  };
}
