import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.js';

export type SqliteDatabase = Database.Database;

/** How long a write waits for another connection's (or process's) write lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** Opens (creating if needed) the SQLite file in WAL mode and applies pending migrations. */
export function openSqliteDatabase(file: string): SqliteDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: SqliteDatabase): void {
  // IMMEDIATE takes the write lock first, so two processes starting together migrate once.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let i = current; i < MIGRATIONS.length; i++) {
      db.exec(MIGRATIONS[i]!);
      db.pragma(`user_version = ${i + 1}`);
    }
  }).immediate();
}
