import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './database.js';

/** How often the checkpointer looks at the WAL. */
export const CHECKPOINT_INTERVAL_MS = 100;
/**
 * Past this size the serving connection finishes the checkpoint itself (see below), so that the
 * next write starts the WAL over.
 */
export const RESTART_WAL_BYTES = 64 * 1024 * 1024;
/**
 * The serving connection's own automatic checkpoint, a safety net only: it runs (on the event
 * loop) when the WAL reaches this many pages, which happens only if the checkpointer has stopped.
 * SQLite's default is 1,000.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 50_000;

// A CommonJS script (eval: true), so it runs alike under tsx, vitest and the compiled build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.file, { fileMustExist: true });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const pageSize = db.pragma('page_size', { simple: true });
// Set while the serving connection finishes a checkpoint: two checkpointers would make it busy.
let finishing = false;
// With nothing new in the WAL a checkpoint returns at once (no copy, no sync). The WAL file's size
// says nothing: a WAL that started over is rewritten from its start at the same size.
const timer = setInterval(() => {
  if (finishing) return;
  let framesSinceRestart;
  try { framesSinceRestart = checkpoint.get().log; } catch { return; /* busy: the next turn retries */ }
  if (framesSinceRestart * pageSize < workerData.restartBytes) return;
  finishing = true;
  parentPort.postMessage('finish');
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'finished') return void (finishing = false);
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
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
 * RESTART_WAL_BYTES the worker asks the serving connection to finish: with no write of its own in
 * between, its PASSIVE checkpoint copies the few pages written since the worker's and completes, and
 * the next write starts the WAL over. (A RESTART checkpoint in the worker would block our writers
 * in SQLite's busy handler, which sleeps in steps of up to 100 ms.)
 */
export function startCheckpointer(db: SqliteDatabase, file: string, options: { restartBytes?: number } = {}): Checkpointer {
  const restartBytes = options.restartBytes ?? RESTART_WAL_BYTES;
  db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  // A restarted WAL is cut back to this size (else the file keeps its largest size).
  db.pragma(`journal_size_limit = ${restartBytes}`);
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = { file, betterSqlite3, intervalMs: CHECKPOINT_INTERVAL_MS, restartBytes };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  worker.on('message', () => {
    if (db.open && !db.inTransaction) db.pragma('wal_checkpoint(PASSIVE)');
    worker.postMessage('finished');
  });
  // A checkpointer that fails leaves the safety net in charge; it never takes the process down.
  worker.on('error', () => db.open && db.pragma('wal_autocheckpoint = 1000'));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
