import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { ensurePrivateDir, makePrivate, touchPrivate } from '../private-files.js';
import { StoreUnavailableError } from '../../ports/unavailable.js';
import { MIGRATIONS } from './migrations.js';
import { assertStatusIndexes } from './status-filters.js';
import { createWriteGuard, writeFaultOf, type WriteGuard } from './write-guard.js';

export type SqliteDatabase = Database.Database;

/**
 * How long opening (migrations) waits for another connection's (or process's) write lock. The
 * serving connection then waits far less, off the event loop (write-guard.ts).
 */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) the SQLite file in WAL mode, applies pending migrations and checks the
 * status-set indexes against the domain's sets (status-filters.ts). The
 * directory is owner-only and so are the database, -wal and -shm files (older ones are tightened).
 */
export function openSqliteDatabase(file: string): SqliteDatabase {
  const onDisk = file !== ':memory:';
  if (onDisk) {
    ensurePrivateDir(dirname(file));
    touchPrivate(file);
  }
  const db = new Database(file);
  // Only a new file takes it (before its first table, and before WAL mode); an older one keeps
  // auto_vacuum = NONE until `admin db:vacuum` rebuilds it (space.ts).
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  migrate(db);
  assertStatusIndexes(db);
  if (onDisk) makePrivate(file, `${file}-wal`, `${file}-shm`);
  return db;
}

function migrate(db: SqliteDatabase): void {
  // Up to date: no write lock needed, so a node starts while another process holds it.
  if (db.pragma('user_version', { simple: true }) === MIGRATIONS.length) return;
  // IMMEDIATE takes the write lock first, so two processes starting together migrate once.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let i = current; i < MIGRATIONS.length; i++) {
      db.exec(MIGRATIONS[i]!);
      db.pragma(`user_version = ${i + 1}`);
    }
  }).immediate();
}

/** Runs a write in a transaction; resolves once that transaction has committed. */
export interface WriteQueue {
  <T>(work: () => T): Promise<T>;
  /** Commits the writes waiting for this turn's group now (before closing the connection). */
  flush(): void;
}

interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Past this time (ms) the write stops waiting for the lock and fails as unavailable. */
  deadline: number;
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

/**
 * Group commit: the writes asked for during one event-loop turn run in one IMMEDIATE transaction,
 * each in its own savepoint, so a write that throws rolls back only itself. Every commit appends
 * each page it touched to the WAL; writes to the same tables share their pages, so a group costs
 * about as much as one write (bench/orders: order creation). Nobody is answered before the commit;
 * if the commit itself fails, every write of the group fails with that error. So does an error that
 * makes SQLite roll back the whole transaction rather than the savepoint (disk full, I/O error):
 * the writes after it must not commit on their own while the ones before it are gone.
 *
 * While another process holds the write lock the group waits off the event loop (a timer with
 * backoff; writes asked meanwhile join it); each write gives up at its deadline with
 * StoreUnavailableError, as does a group that meets a full or unwritable disk (guard.failure).
 */
export function createWriteQueue(db: SqliteDatabase, guard: WriteGuard = createWriteGuard(db)): WriteQueue {
  let pending: QueuedWrite[] = [];
  let waitingForLock: NodeJS.Timeout | undefined;
  let attempt = 0;
  const inSavepoint = db.transaction((work: () => unknown) => work());
  const commitGroup = db.transaction((writes: QueuedWrite[]) => {
    for (const write of writes) {
      try {
        write.outcome = { ok: true, value: inSavepoint(write.work) };
      } catch (error) {
        if (!db.inTransaction) throw error;
        write.outcome = { ok: false, error };
      }
    }
  });
  function commit(): void {
    waitingForLock = undefined;
    const writes = pending;
    if (writes.length === 0) return;
    pending = [];
    try {
      commitGroup.immediate(writes);
    } catch (error) {
      if (db.open && writeFaultOf(error) === 'lock') return waitForLock(writes, error);
      const failure = db.open ? guard.failure(error) : new StoreUnavailableError('the store is closed', { cause: error });
      for (const write of writes) write.reject(failure);
      return;
    }
    attempt = 0;
    guard.committed();
    for (const { outcome, resolve, reject } of writes) {
      if (outcome!.ok) resolve(outcome!.value);
      else reject(guard.failure(outcome!.error));
    }
  }
  function waitForLock(writes: QueuedWrite[], error: unknown): void {
    const now = Date.now();
    const waiting = writes.filter((write) => write.deadline > now || guard.lockIsOurs() || void write.reject(guard.failure(error)));
    pending = waiting.concat(pending);
    if (pending.length === 0) return void (attempt = 0);
    waitingForLock = setTimeout(commit, guard.backoffMs(attempt++));
  }
  function flush(): void {
    clearTimeout(waitingForLock);
    commit();
  }
  const inTransaction = <T>(work: () => T) =>
    new Promise<T>((resolve, reject) => {
      const write = { work, resolve: resolve as (value: unknown) => void, reject, deadline: Date.now() + guard.lockWaitMs };
      if (pending.push(write) === 1) setImmediate(commit);
    });
  return Object.assign(inTransaction, { flush });
}
