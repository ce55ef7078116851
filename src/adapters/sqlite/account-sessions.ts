import type { SqliteDatabase } from './database.js';

interface TokenBase { hash: string; createdAt: string; expiresAt: string; usedAt: string | null }
interface SessionBase { hash: string; createdAt: string; lastSeenAt: string; expiresAt: string }

const camel = (column: string) => column.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
const fromRow = <T>(row: Record<string, unknown>): T => Object.fromEntries(Object.entries(row).map(([k, v]) => [camel(k), v])) as T;

/**
 * The password-link tokens and sign-in sessions of one kind of account — team members, operators —
 * kept alike in `<kind>_password_tokens` and `<kind>_sessions`, whose account column is `<kind>_id`
 * and which may carry more columns (`scope`: a member's merchant_id).
 */
export function createSqliteAccountSessions<Token extends TokenBase, Session extends SessionBase>(db: SqliteDatabase, options: { kind: 'member' | 'operator'; scope?: string[] }) {
  const { kind } = options;
  const owner = `${kind}_id`;
  const ownerOf = camel(owner) as keyof Token & keyof Session;
  const tokenColumns = ['hash', owner, ...(options.scope ?? []), 'created_at', 'expires_at', 'used_at'];
  const sessionColumns = ['hash', owner, ...(options.scope ?? []), 'created_at', 'last_seen_at', 'expires_at'];
  const insertInto = (table: string, columns: string[]) =>
    db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${camel(c)}`).join(', ')})`);
  const tokens = `${kind}_password_tokens`;
  const sessions = `${kind}_sessions`;

  const insertToken = insertInto(tokens, tokenColumns);
  const deleteUnusedTokensOf = db.prepare<[string]>(`DELETE FROM ${tokens} WHERE ${owner} = ? AND used_at IS NULL`);
  const deleteTokensOf = db.prepare<[string]>(`DELETE FROM ${tokens} WHERE ${owner} = ?`);
  const consumeToken = db.prepare<[string, string, string], Record<string, unknown>>(`UPDATE ${tokens} SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING *`);
  const insertSession = insertInto(sessions, sessionColumns);
  const sessionByHash = db.prepare<[string], Record<string, unknown>>(`SELECT * FROM ${sessions} WHERE hash = ?`);
  const touch = db.prepare<[string, string, string]>(`UPDATE ${sessions} SET last_seen_at = ? WHERE hash = ? AND last_seen_at < ?`);
  const deleteSession = db.prepare<[string]>(`DELETE FROM ${sessions} WHERE hash = ?`);
  const deleteSessionsOf = db.prepare<[string]>(`DELETE FROM ${sessions} WHERE ${owner} = ?`);
  const trimSessionsOf = db.prepare<{ ownerId: string; keep: number }>(
    `DELETE FROM ${sessions} WHERE ${owner} = @ownerId AND hash IN (
       SELECT hash FROM ${sessions} WHERE ${owner} = @ownerId ORDER BY created_at DESC, hash DESC LIMIT -1 OFFSET @keep)`,
  );
  const pruneOf = (table: string) => db.prepare<[string, number]>(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE expires_at < ? LIMIT ?)`);
  const pruneSessions = pruneOf(sessions);
  const pruneTokens = pruneOf(tokens);
  const replaceToken = db.transaction((token: Token) => {
    deleteUnusedTokensOf.run(token[ownerOf] as string);
    insertToken.run(token);
  });
  const prune = db.transaction((before: string, limit: number) => pruneSessions.run(before, limit).changes + pruneTokens.run(before, limit).changes);

  return {
    async replacePasswordToken(token: Token): Promise<void> {
      replaceToken.immediate(token);
    },
    async consumePasswordToken({ hash, now }: { hash: string; now: string }): Promise<Token | null> {
      const row = consumeToken.get(now, hash, now);
      return row ? fromRow<Token>(row) : null;
    },
    async insertSession(session: Session): Promise<void> {
      insertSession.run(session);
    },
    async findSession(hash: string): Promise<Session | null> {
      const row = sessionByHash.get(hash);
      return row ? fromRow<Session>(row) : null;
    },
    async touchSession({ hash, lastSeenAt }: { hash: string; lastSeenAt: string }): Promise<void> {
      touch.run(lastSeenAt, hash, lastSeenAt);
    },
    async deleteSession(hash: string): Promise<boolean> {
      return deleteSession.run(hash).changes > 0;
    },
    /** All but the account's `keep` newest sessions. */
    async trimSessionsOf(ownerId: string, keep: number): Promise<number> {
      return trimSessionsOf.run({ ownerId, keep }).changes;
    },
    async deleteSessionsOf(ownerId: string): Promise<number> {
      return deleteSessionsOf.run(ownerId).changes;
    },
    async pruneExpired({ before, limit }: { before: string; limit: number }): Promise<number> {
      return prune.immediate(before, limit);
    },
    /** Inside the caller's transaction (synchronous): an account removed takes its sessions and tokens with it. */
    deleteAllOf(ownerId: string): void {
      deleteSessionsOf.run(ownerId);
      deleteTokensOf.run(ownerId);
    },
  };
}
