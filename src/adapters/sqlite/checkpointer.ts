import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './database.js';

/** How often the checkpointer looks at the WAL. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** Past this size the checkpointer finishes a checkpoint (see below), so that the next write starts the WAL over. */
export const RESTART_WAL_BYTES = 64 * 1024 * 1024;
/**
 * The serving connection's own automatic checkpoint, a safety net only: it runs (on the event
 * loop) when the WAL reaches this many pages, which happens only if the checkpointer has stopped.
 * SQLite's default is 1,000.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 50_000;
/**
 * How long the worker's finishing checkpoint waits (in its own thread, holding the write lock) for
 * the writer in progress and for readers to leave the WAL. Ours are short; a long one (a backup, a
 * sqlite3 shell) makes it give up, and it tries again only after RESTART_BACKOFF_MS.
 */
export const RESTART_WAIT_MS = 25;
export const RESTART_BACKOFF_MS = 1000;
/**
 * A write that met the lock this soon after the checkpointer released it met the checkpointer: the
 * busy handler of the serving connection retries at intervals and may return just after.
 */
export const RECENTLY_RELEASED_MS = 50;

// A CommonJS script (eval: true), so it runs alike under tsx, vitest and the compiled build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.restartWaitMs);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
const pageSize = db.pragma('page_size', { simple: true });
// [1 while the RESTART holds the write lock, when it last released it (ms)]
const lock = new BigInt64Array(workerData.lock);
let restartAfter = 0;
// A reader that stays in the WAL (a backup, a quick_check, a sqlite3 shell) keeps the RESTART from
// finishing: the serving connection is told, and checkpoints nothing itself until one finishes.
let pinned = false;
const pin = (value) => {
  if (value !== pinned) parentPort.postMessage({ pinned: (pinned = value) });
};
// With nothing new in the WAL a checkpoint returns at once (no copy, no sync). The WAL file's size
// says nothing: a WAL that started over is rewritten from its start at the same size.
const timer = setInterval(() => {
  let framesSinceRestart;
  try { framesSinceRestart = checkpoint.get().log; } catch { return; /* busy: the next turn retries */ }
  if (framesSinceRestart * pageSize < workerData.restartBytes) return pin(false);
  if (Date.now() < restartAfter) return;
  Atomics.store(lock, 0, 1n);
  try {
    const busy = restart.get().busy;
    if (busy) restartAfter = Date.now() + workerData.restartBackoffMs;
    pin(Boolean(busy));
  } catch {
    restartAfter = Date.now() + workerData.restartBackoffMs;
    pin(true);
  } finally {
    Atomics.store(lock, 1, BigInt(Date.now()));
    Atomics.store(lock, 0, 0n);
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /**
   * True while the checkpointer itself holds the write lock (a short RESTART checkpoint) or released
   * it within RECENTLY_RELEASED_MS: a busy lock then is not another process's.
   */
  holdsWriteLock(): boolean;
  /** Stops the worker and closes its connection; resolves when the thread has exited. */
  stop(): Promise<void>;
}

/**
 * Checkpoints the WAL from a worker thread with its own connection. A checkpoint copies the WAL's
 * pages into the database file and syncs both; on the serving connection (SQLite's automatic
 * checkpoint, every 1,000 pages) it blocked the event loop for all of that, about a tenth of order
 * creation's throughput (bench/orders). PASSIVE never blocks a reader or a writer.
 *
 * Under a steady stream of writes the worker never catches up with the last frame, and the WAL
 * starts over only after a checkpoint that did (measured: 360 MB after 40,000 orders). So past
 * RESTART_WAL_BYTES the worker runs a RESTART checkpoint: it holds the write lock while it copies
 * the few pages written since its PASSIVE one and syncs the file, and the next write starts the WAL
 * over. The serving connection's writes meet SQLITE_BUSY meanwhile and are tried again off the
 * event loop (write-guard.ts). This used to be the serving connection's own PASSIVE checkpoint:
 * the copy and the sync on the event loop stalled it 50–120 ms each time, 780 ms at worst, while
 * retention pruned a store of 1M orders (bench:growth).
 *
 * A long reader (a backup) keeps every checkpoint from passing its snapshot, and the WAL grows for
 * as long as it reads. The RESTART then fails (busy): the worker tells the serving connection, which
 * turns its automatic checkpoint off; once the reader has left the worker's PASSIVE checkpoint copies
 * the backlog in its thread, its RESTART succeeds, and the safety net is turned back on.
 */
export function startCheckpointer(db: SqliteDatabase, file: string, options: { restartBytes?: number } = {}): Checkpointer {
  const restartBytes = options.restartBytes ?? RESTART_WAL_BYTES;
  db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  // A restarted WAL is cut back to this size (else the file keeps its largest size).
  db.pragma(`journal_size_limit = ${restartBytes}`);
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  // Written by the worker around its RESTART checkpoint; read here without a message's delay.
  const lockBuffer = new SharedArrayBuffer(16);
  const lock = new BigInt64Array(lockBuffer);
  const workerData = { file, betterSqlite3, intervalMs: CHECKPOINT_INTERVAL_MS, restartBytes, restartWaitMs: RESTART_WAIT_MS, restartBackoffMs: RESTART_BACKOFF_MS, lock: lockBuffer };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  // While a reader pins the WAL the backlog cannot be copied; the moment it leaves, the serving
  // connection's safety net would copy all of it on the event loop at its next commit (measured:
  // 1.4 s after a 38 s backup of a 4.8 GB store, a 639 MB WAL). Off until the worker has caught up.
  worker.on('message', (message: { pinned: boolean }) => db.open && db.pragma(`wal_autocheckpoint = ${message.pinned ? 0 : FALLBACK_AUTOCHECKPOINT_PAGES}`));
  // A checkpointer that fails leaves SQLite's own in charge; it never takes the process down.
  worker.on('error', () => db.open && db.pragma('wal_autocheckpoint = 1000'));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    holdsWriteLock: () => Atomics.load(lock, 0) === 1n || Date.now() - Number(Atomics.load(lock, 1)) < RECENTLY_RELEASED_MS,
    async stop() {
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
