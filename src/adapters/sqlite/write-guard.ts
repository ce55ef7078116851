import { statfsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { STORE_OK, type StoreCondition } from '../../ports/store-condition.js';
import { StoreUnavailableError } from '../../ports/unavailable.js';
import type { SqliteDatabase } from './database.js';

/**
 * The serving connection's busy_timeout. better-sqlite3 is synchronous: SQLite's busy handler
 * sleeps on the event loop, so a write that finds the lock taken may hold every request this long
 * at most; it is then tried again asynchronously (run, and the write queue), with the loop free.
 */
export const LOCK_BUSY_TIMEOUT_MS = 5;
/** How long a write waits for another process's write lock before 503 (STORE_TIMEOUT_MS). */
export const DEFAULT_LOCK_WAIT_MS = 1500;

/**
 * After the disk was found full, the store is degraded until this much space is free again: a
 * small write may still commit into space the WAL file already has on a disk that is full.
 */
export const RESUME_FREE_BYTES = 4 * 1024 * 1024;
/**
 * A disk fault is what the last write met; only when no write has been made for this long does the
 * health probe make a small write of its own to find out (so /health recovers with no traffic).
 */
export const DISK_RECHECK_MS = 5000;

/** Why a write could not be made: nothing of it was written, and trying again later may succeed. */
export type WriteFault = 'lock' | 'full' | 'unwritable';

const REASONS: Record<WriteFault, string> = {
  lock: 'another process holds the database write lock',
  full: 'the disk holding the database is full',
  unwritable: 'the database file cannot be written (I/O error or read-only)',
};

export function writeFaultOf(error: unknown): WriteFault | null {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'lock';
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return 'full';
  if (/^SQLITE_(IOERR|READONLY|CANTOPEN)/.test(code) || code === 'EFBIG' || code === 'EROFS' || code === 'EIO') return 'unwritable';
  return null;
}

export interface WriteGuard {
  /** How long a write may wait for the lock, in all. */
  readonly lockWaitMs: number;
  /**
   * Makes one store call; while another connection holds the write lock it is made again (after
   * backoffMs, off the event loop) until lockWaitMs has passed. A call that gives up, or meets a
   * full or unwritable disk, fails with StoreUnavailableError (503 with Retry-After).
   */
  run<T>(call: () => Promise<T>): Promise<T>;
  /** The repository with every method made through run(). */
  repository<R extends object>(repository: R): R;
  /** What a caller is given for this error: a StoreUnavailableError naming the fault (noted for health), or the error itself. */
  failure(error: unknown): unknown;
  /** A write committed: the lock was had and the disk took it (a full disk also needs RESUME_FREE_BYTES free). */
  committed(): void;
  /** The pause before the attempt after `attempt` failed ones. */
  backoffMs(attempt: number): number;
  /** The lock is held by this process's own checkpointer: a write waits it out, past its deadline. */
  lockIsOurs(): boolean;
  /**
   * The health probe, never waiting longer than LOCK_BUSY_TIMEOUT_MS: can the write lock be had
   * now? After a disk fault: what the last write met, or, when writes have been quiet for
   * DISK_RECHECK_MS, whether a small write commits now. Throws on any other failure.
   */
  probe(): StoreCondition;
}

/**
 * Sets the connection's busy_timeout to LOCK_BUSY_TIMEOUT_MS: every write on it must go through
 * the guard. `dir`: the database's directory, whose free space ends a disk-full condition.
 * `lockIsOurs`: the lock is held by this process's own checkpointer (briefly), not another process.
 */
export function createWriteGuard(db: SqliteDatabase, options: { lockWaitMs?: number; dir?: string; lockIsOurs?: () => boolean } = {}): WriteGuard {
  const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  const { dir } = options;
  db.pragma(`busy_timeout = ${LOCK_BUSY_TIMEOUT_MS}`);
  let fault: WriteFault | null = null;
  let lastWriteAt = 0;
  const takeLock = db.transaction(() => {});
  // A row written and removed in one transaction: its page still goes to the WAL at commit.
  const insertProbe = db.prepare("INSERT OR REPLACE INTO leases (name, owner, until_ms) VALUES ('store-write-probe', 'health', 0)");
  const deleteProbe = db.prepare("DELETE FROM leases WHERE name = 'store-write-probe'");
  const writeProbe = db.transaction(() => {
    insertProbe.run();
    deleteProbe.run();
  });

  const lockIsOurs = () => options.lockIsOurs?.() ?? false;
  const backoffMs = (attempt: number) => Math.min(5 * 2 ** attempt, 100);
  const spaceIsBack = () => {
    if (!dir) return true;
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize >= RESUME_FREE_BYTES;
  };
  function failure(error: unknown): unknown {
    const kind = writeFaultOf(error);
    if (!kind) return error;
    fault = kind;
    lastWriteAt = Date.now();
    return new StoreUnavailableError(REASONS[kind], { cause: error });
  }
  async function retry<T>(call: () => Promise<T>, first: unknown): Promise<T> {
    const deadline = Date.now() + lockWaitMs;
    let error = first;
    for (let attempt = 0; writeFaultOf(error) === 'lock' && (Date.now() < deadline || lockIsOurs()); attempt++) {
      await sleep(Math.min(backoffMs(attempt), Math.max(deadline - Date.now(), 1)));
      try {
        return await call();
      } catch (next) {
        error = next;
      }
    }
    throw failure(error);
  }
  const run = <T>(call: () => Promise<T>): Promise<T> => call().catch((error: unknown) => retry(call, error));

  return {
    lockWaitMs,
    run,
    repository<R extends object>(repository: R): R {
      const guarded: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(repository)) {
        guarded[name] = typeof value === 'function' ? (...args: unknown[]) => run(async () => value.apply(repository, args)) : value;
      }
      return guarded as R;
    },
    failure,
    committed() {
      lastWriteAt = Date.now();
      if (fault && (fault !== 'full' || spaceIsBack())) fault = null;
    },
    backoffMs,
    lockIsOurs,
    probe() {
      const diskFault = fault === 'full' || fault === 'unwritable';
      if (diskFault && Date.now() - lastWriteAt < DISK_RECHECK_MS) return { status: 'degraded', reason: REASONS[fault!] };
      try {
        if (diskFault) writeProbe.immediate();
        else takeLock.immediate();
        if (fault !== 'full' || spaceIsBack()) fault = null;
      } catch (error) {
        const kind = writeFaultOf(error);
        if (!kind) throw error;
        if (kind !== 'lock' || !lockIsOurs()) fault = kind;
      }
      return fault ? { status: 'degraded', reason: REASONS[fault] } : STORE_OK;
    },
  };
}
