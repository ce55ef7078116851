import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, makePrivate } from '../private-files.js';
import { MASTER_KEY_FILE_NAME } from '../master-key.js';
import { SQLITE_FILE_NAME } from './store.js';

/** A backup that cannot start as asked (no store, an occupied target); nothing was written. */
export class BackupRefusedError extends Error {
  override name = 'BackupRefusedError';
}

export interface SqliteBackup {
  /** The copy of the database: `<dir>/express-delivery.sqlite`. */
  file: string;
  bytes: number;
  /** The copy of DATA_DIR/master.key beside it, or null when the key is not a file there (MASTER_KEY is set). */
  keyFile: string | null;
  /** Orders in the copy (read back from it: the copy opens). */
  orders: number;
  durationMs: number;
}

/**
 * Writes a consistent copy of a live embedded store into `outDir`, which then is a complete
 * DATA_DIR: the database and the master key its API secrets are encrypted under.
 *
 * `VACUUM INTO` from a connection of its own: one read transaction, so the copy is the store as of
 * its start (a WAL snapshot) while the server goes on committing; it never takes the write lock and
 * never starts over. (The online backup API copies a few pages per step and restarts whenever
 * another process commits in between: under steady writes it never finishes.) The WAL grows during
 * the copy, since its frames cannot be checkpointed past the snapshot; the checkpointer catches up
 * afterwards. SQLite does not sync a VACUUM INTO file, so it is written aside, synced, then renamed.
 */
export function backupSqliteStore(options: { dataDir: string; outDir: string; keyInDataDir: boolean }): SqliteBackup {
  const started = performance.now();
  const source = join(options.dataDir, SQLITE_FILE_NAME);
  const file = join(options.outDir, SQLITE_FILE_NAME);
  if (!existsSync(source) || statSync(source).size === 0) throw new BackupRefusedError(`No store to back up: ${source} is missing or empty`);
  ensurePrivateDir(options.outDir);
  if (existsSync(file)) throw new BackupRefusedError(`${file} already exists: give --out an empty or new directory`);
  const draft = `${file}.partial`;
  rmSync(draft, { force: true });
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(draft);
    clearLeases(draft);
  } catch (error) {
    rmSync(draft, { force: true });
    throw error;
  } finally {
    db.close();
  }
  makePrivate(draft);
  syncFile(draft);
  renameSync(draft, file);
  syncFile(options.outDir);

  let keyFile: string | null = null;
  const key = join(options.dataDir, MASTER_KEY_FILE_NAME);
  if (options.keyInDataDir && existsSync(key)) {
    keyFile = join(options.outDir, MASTER_KEY_FILE_NAME);
    copyFileSync(key, keyFile);
    makePrivate(keyFile);
    syncFile(keyFile);
  }
  return { file, bytes: statSync(file).size, keyFile, orders: countOrders(file), durationMs: Math.round(performance.now() - started) };
}

/**
 * A restored copy holds no lease (issue #41 item 4): the nodes that held them in the original are
 * not the ones that will run on the copy, and a lease of theirs would hold the retention job or the
 * reconciler back until it ran out. Courier-location slots ('slot' rows) are not leases of a node.
 */
function clearLeases(file: string): void {
  const copy = new Database(file, { fileMustExist: true });
  try {
    copy.prepare("DELETE FROM leases WHERE owner <> 'slot'").run();
  } finally {
    copy.close();
  }
}

function countOrders(file: string): number {
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return copy.prepare<[], number>('SELECT count(*) FROM orders').pluck().get()!;
  } finally {
    copy.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
