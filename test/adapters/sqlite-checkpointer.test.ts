import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { CHECKPOINT_INTERVAL_MS, FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer, type Checkpointer } from '../../src/adapters/sqlite/checkpointer.js';
import { backupSqliteStore } from '../../src/adapters/sqlite/backup.js';
import { createSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { createWriteGuard, writeFaultOf } from '../../src/adapters/sqlite/write-guard.js';

const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ROW = 'x'.repeat(3000);
/** Waits for a condition (a busy machine is slow, never wrong): fails after 30 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; !condition(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** The WAL checkpointed from a worker thread (src/adapters/sqlite/checkpointer.ts), on a file on disk. */
describe('SQLite checkpointer', () => {
  let dir: string;
  let file: string;
  let db: SqliteDatabase;
  let checkpointer: Checkpointer | null;
  const insertRows = (count: number) => {
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < count; i++) insert.run(ROW);
    })();
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
    file = join(dir, 'db.sqlite');
    db = openSqliteDatabase(file);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    checkpointer = null;
  });
  afterEach(async () => {
    await checkpointer?.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file while the serving connection only writes', async () => {
    checkpointer = startCheckpointer(db, file);
    const before = sizeOf(file);
    insertRows(500); // ~1.5 MB, far below the serving connection's own automatic checkpoint
    expect(sizeOf(file)).toBe(before);
    await sleep(CHECKPOINT_INTERVAL_MS * 5);
    expect(sizeOf(file) - before).toBeGreaterThan(1_000_000);
  });

  it('without it, nothing reaches the database file below the automatic checkpoint (the test above can fail)', async () => {
    db.pragma('wal_autocheckpoint = 50000');
    const before = sizeOf(file);
    insertRows(500);
    await sleep(CHECKPOINT_INTERVAL_MS * 5);
    expect(sizeOf(file)).toBe(before);
  });

  it('keeps the WAL bounded under steady writes: past the restart size the checkpointer finishes a checkpoint (RESTART) in its thread', async () => {
    // ~20 MB/s in small commits a millisecond apart: the worker never sees the WAL fully copied,
    // so without the finishing step the WAL grows by all of it (measured: 78 MB in 2 s).
    const restartBytes = 4 * 1024 * 1024;
    checkpointer = startCheckpointer(db, file, { restartBytes });
    // By bytes, not by time: a busy machine writes slower, and the WAL must stay bounded all the same.
    let largest = 0;
    for (let written = 0; written <= restartBytes * 5; written += 10 * ROW.length) {
      insertRows(10);
      largest = Math.max(largest, sizeOf(`${file}-wal`));
      await sleep(1);
    }
    expect(largest).toBeLessThan(restartBytes * 3);
  });

  it('keeps checkpointing after the WAL started over, while its file keeps one size', async () => {
    const restartBytes = 1024 * 1024;
    checkpointer = startCheckpointer(db, file, { restartBytes });
    for (let i = 0; i < 30; i++) {
      insertRows(40); // ~3.6 MB in all: past the restart size
      await sleep(10);
    }
    await sleep(CHECKPOINT_INTERVAL_MS * 4);
    insertRows(1); // the first write after the finished checkpoint: the WAL starts over
    await sleep(CHECKPOINT_INTERVAL_MS * 3);
    const walSize = sizeOf(`${file}-wal`);
    expect(walSize).toBeLessThanOrEqual(restartBytes);
    for (const rows of [100, 100]) {
      const before = sizeOf(file);
      insertRows(rows); // ~300 kB, within the WAL's present size
      await sleep(CHECKPOINT_INTERVAL_MS * 4);
      expect(sizeOf(`${file}-wal`)).toBe(walSize);
      expect(sizeOf(file) - before).toBeGreaterThan(250_000);
    }
  });

  it("our writes wait out the checkpointer's RESTART: not unavailable past their deadline, /health never degraded by it", async () => {
    // A reader that stays in the WAL makes each RESTART hold the write lock for RESTART_WAIT_MS
    // before it gives up; a 1 ms lock wait is far shorter, so without telling our lock from another
    // process's every collision would end in a 503.
    const restartBytes = 1024 * 1024;
    insertRows(400); // past the restart size before the reader starts
    const reader = new Database(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    checkpointer = startCheckpointer(db, file, { restartBytes });
    const guard = createWriteGuard(db, { lockWaitMs: 1, lockIsOurs: checkpointer.holdsWriteLock });
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const writeRows = db.transaction((count: number) => {
      for (let i = 0; i < count; i++) insert.run(ROW);
    });
    let collisions = 0;
    let failures = 0;
    const degraded: string[] = [];
    const until = Date.now() + 3000;
    while (Date.now() < until && collisions < 5) {
      await guard
        .run(async () => {
          try {
            writeRows(10);
          } catch (error) {
            if (writeFaultOf(error) === 'lock') collisions++;
            throw error;
          }
        })
        .catch(() => failures++);
      const health = guard.probe();
        if (health.status === 'degraded') degraded.push(health.reason);
      await sleep(1);
    }
    reader.exec('COMMIT');
    reader.close();
    expect(collisions).toBeGreaterThan(0);
    expect(failures).toBe(0);
    expect(degraded).toEqual([]);
  });

  it('while a reader pins the WAL the serving connection checkpoints nothing itself; the worker copies the backlog after it left, then the safety net is back', async () => {
    const restartBytes = 1024 * 1024;
    checkpointer = startCheckpointer(db, file, { restartBytes });
    insertRows(10);
    const autocheckpoint = () => db.pragma('wal_autocheckpoint', { simple: true }) as number;
    expect(autocheckpoint()).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    const reader = new Database(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    for (let i = 0; i < 20; i++) {
      insertRows(40); // ~2.4 MB in all, past the restart size, none of it copied past the reader
      await sleep(5);
    }
    await until(() => autocheckpoint() === 0, 'the serving connection to turn its automatic checkpoint off');
    expect(sizeOf(`${file}-wal`)).toBeGreaterThan(2_000_000);
    const before = sizeOf(file);
    reader.exec('COMMIT');
    reader.close();
    // The serving connection writes nothing from here on and checkpoints nothing: the worker copies.
    await until(() => autocheckpoint() === FALLBACK_AUTOCHECKPOINT_PAGES, 'the safety net to come back');
    expect(sizeOf(file) - before).toBeGreaterThan(2_000_000);
    const after = new Database(file);
    try {
      // Everything is in the database file: a checkpoint from another connection finds nothing left to copy.
      const { log, checkpointed } = (after.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>)[0]!;
      expect(checkpointed).toBe(log);
    } finally {
      after.close();
    }
  });

  it('a backup under steady writes is a consistent copy that passes integrity_check, and the serving connection gets its safety net back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkpointer-backup-'));
    const served = openSqliteDatabase(join(dataDir, SQLITE_FILE_NAME));
    const servedFile = join(dataDir, SQLITE_FILE_NAME);
    served.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = served.prepare('INSERT INTO t (body) VALUES (?)');
    served.transaction(() => {
      for (let i = 0; i < 5000; i++) insert.run(ROW); // ~15 MB: the copy takes a while
    })();
    const servedCheckpointer = startCheckpointer(served, servedFile, { restartBytes: 256 * 1024 });
    // Another connection in a thread of its own writes meanwhile (the backup below holds this one).
    const writer = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      const db = new (require(workerData.betterSqlite3))(workerData.file);
      db.pragma('busy_timeout = 5000'); db.pragma('wal_autocheckpoint = 0');
      const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
      let stop = false; parentPort.on('message', () => (stop = true));
      const loop = () => { if (stop) { db.close(); parentPort.close(); return; } for (let i = 0; i < 5; i++) insert.run('y'.repeat(3000)); setImmediate(loop); };
      loop();`,
      { eval: true, workerData: { file: servedFile, betterSqlite3: createRequire(import.meta.url).resolve('better-sqlite3') } },
    );
    const count = () => served.prepare<[], number>('SELECT count(*) FROM t').pluck().get()!;
    try {
      await until(() => count() > 5200, 'the writer to write');
      const before = count();
      const copy = backupSqliteStore({ dataDir, outDir: join(dataDir, 'backup'), keyInDataDir: false });
      const after = count();
      expect(after).toBeGreaterThan(before);
      const restored = new Database(copy.file, { readonly: true });
      try {
        expect(restored.pragma('integrity_check', { simple: true })).toBe('ok');
        const rows = restored.prepare<[], number>('SELECT count(*) FROM t').pluck().get()!;
        expect(rows).toBeGreaterThanOrEqual(before);
        expect(rows).toBeLessThanOrEqual(after);
      } finally {
        restored.close();
      }
      writer.postMessage('stop');
      await new Promise((resolve) => writer.once('exit', resolve));
      await until(() => served.pragma('wal_autocheckpoint', { simple: true }) === FALLBACK_AUTOCHECKPOINT_PAGES, 'the safety net to come back');
    } finally {
      await writer.terminate();
      await servedCheckpointer.stop();
      served.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a checkpointer that fails leaves SQLite its own automatic checkpoint', async () => {
    checkpointer = startCheckpointer(db, join(dir, 'missing.sqlite'));
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBeGreaterThan(1000);
    await checkpointer.stop(); // resolves once the failed thread is gone
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });

  it("the store's close stops the worker and, last to close, removes the WAL", async () => {
    const storeDir = mkdtempSync(join(tmpdir(), 'checkpointer-store-'));
    try {
      const store = createSqliteStore({ dataDir: storeDir });
      await store.leases.acquire({ name: 'x', owner: 'a', ttlMs: 1000 });
      expect(existsSync(join(storeDir, `${SQLITE_FILE_NAME}-wal`))).toBe(true);
      await store.close();
      expect(existsSync(join(storeDir, `${SQLITE_FILE_NAME}-wal`))).toBe(false);
    } finally {
      rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
