import type { IdempotentWriteRecord, IdempotentWriteRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

type Row = { doc: string; outcome: string | null };
const KEY = 'owner_id = @ownerId AND mode = @mode AND operation = @operation AND key = @key';

export function createSqliteIdempotentWriteRepository(db: SqliteDatabase): IdempotentWriteRepository {
  const select = db.prepare<Record<string, unknown>, Row>(`SELECT doc, outcome FROM idempotent_writes WHERE ${KEY}`);
  const upsert = db.prepare(
    `INSERT INTO idempotent_writes (owner_id, mode, operation, key, token, outcome, locked_until, expires_at, doc)
     VALUES (@ownerId, @mode, @operation, @key, @token, NULL, @lockedUntil, @expiresAt, @doc)
     ON CONFLICT (owner_id, mode, operation, key) DO UPDATE SET
       token = excluded.token, outcome = NULL, locked_until = excluded.locked_until, expires_at = excluded.expires_at, doc = excluded.doc
     WHERE idempotent_writes.expires_at <= @now OR (idempotent_writes.outcome IS NULL AND idempotent_writes.locked_until <= @now)`,
  );
  const complete = db.prepare(`UPDATE idempotent_writes SET outcome = @outcome WHERE ${KEY} AND token = @token AND outcome IS NULL`);
  const release = db.prepare(`DELETE FROM idempotent_writes WHERE ${KEY} AND token = @token AND outcome IS NULL`);
  const prune = db.prepare('DELETE FROM idempotent_writes WHERE rowid IN (SELECT rowid FROM idempotent_writes WHERE expires_at < ? LIMIT ?)');

  const toRecord = (row: Row): IdempotentWriteRecord => Object.assign(JSON.parse(row.doc) as IdempotentWriteRecord, { outcome: row.outcome });

  // Insert-or-take-over and the read of the holder are one transaction: SQLite serialises writers.
  const claim = db.transaction((record: IdempotentWriteRecord, now: string) => {
    const { outcome: _outcome, ...fields } = record;
    const changed = upsert.run(Object.assign({ doc: JSON.stringify(fields), now }, fields)).changes;
    if (changed > 0) return { claimed: true as const };
    const { ownerId, mode, operation, key } = record;
    return { claimed: false as const, existing: toRecord(select.get({ ownerId, mode, operation, key })!) };
  });

  return {
    async claim(record, now) {
      return claim.immediate(record, now);
    },
    async complete(options) {
      return complete.run(options).changes > 0;
    },
    async release(options) {
      release.run(options);
    },
    async prune({ before, limit }) {
      return prune.run(before, limit).changes;
    },
  };
}
