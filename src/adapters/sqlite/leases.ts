import type { LeaseRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

/** SQLite's own clock in milliseconds: every process sharing the file reads the same one. */
const NOW_MS = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

export function createSqliteLeaseRepository(db: SqliteDatabase): LeaseRepository {
  // The upsert's WHERE leaves a lease held (unexpired) by another owner untouched: no row changes.
  const take = db.prepare<[string, string, number]>(
    `INSERT INTO leases (name, owner, until_ms) VALUES (?, ?, ${NOW_MS} + ?)
     ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until_ms = excluded.until_ms
     WHERE leases.owner = excluded.owner OR leases.until_ms <= ${NOW_MS}`,
  );
  const drop = db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND owner = ?');
  const slot = db.prepare<{ name: string; at: number; until: number }>(
    `INSERT INTO leases (name, owner, until_ms) VALUES (@name, 'slot', @until)
     ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until_ms = excluded.until_ms WHERE leases.until_ms <= @at`,
  );
  const prune = db.prepare<[number]>(`DELETE FROM leases WHERE until_ms < ${NOW_MS} - ?`);
  return {
    async acquire({ name, owner, ttlMs }) {
      return take.run(name, owner, Math.round(ttlMs)).changes === 1;
    },
    async release({ name, owner }) {
      drop.run(name, owner);
    },
    async takeSlot({ name, at, intervalMs }) {
      const ms = Date.parse(at);
      return slot.run({ name, at: ms, until: ms + Math.round(intervalMs) }).changes === 1;
    },
    async pruneExpired({ olderThanMs }) {
      return prune.run(Math.round(olderThanMs)).changes;
    },
  };
}
