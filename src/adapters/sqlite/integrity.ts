import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { StoreUnavailableError } from '../../ports/unavailable.js';
import { writePrivateFile } from '../private-files.js';

/**
 * Written beside the database once a store has opened: from then on, a missing or empty database
 * file in that DATA_DIR is a lost store, not a first start (STORE_CREATE=true starts a new one).
 */
export const STORE_MARKER_FILE_NAME = 'express-delivery.store';

const RESTORE =
  'Restore the latest backup (docs/operations.md "Backups and restore"): stop the server, move DATA_DIR aside, ' +
  'put the backup\'s express-delivery.sqlite and master.key in an empty DATA_DIR, start.';

/** A store file that must not be opened or served from as it is; the message says what is wrong and what to do. */
export class DamagedStoreError extends Error {
  override name = 'DamagedStoreError';
}

/** SQLite's own words for a damaged or foreign file. */
export function isDamage(error: unknown): boolean {
  return /^SQLITE_(CORRUPT|NOTADB)/.test(String((error as { code?: unknown } | null)?.code ?? ''));
}

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Before the server opens `file`: refuses a missing or empty file where a store existed (unless
 * `create`), a file that is not SQLite, one shorter than its header says (cut short), and an SQLite
 * database of something else. Reads the header and the schema only: milliseconds at any size.
 */
export function inspectStoreFile(options: { file: string; create: boolean }): void {
  const { file } = options;
  const size = sizeOf(file);
  // A WAL with content may still hold pages the database file lacks: SQLite replays it on open.
  const walSize = sizeOf(`${file}-wal`);
  if (size <= 0 && walSize <= 0) {
    const marker = join(dirname(file), STORE_MARKER_FILE_NAME);
    if (!options.create && existsSync(marker)) {
      throw new DamagedStoreError(
        `Refusing to start: ${file} is ${size < 0 ? 'missing' : 'empty (0 bytes)'}, but a store was created in ${dirname(file)} (${STORE_MARKER_FILE_NAME}). ` +
          `${RESTORE} To start a new, empty store here instead, set STORE_CREATE=true for one start.`,
      );
    }
    return;
  }
  if (size <= 0) return;
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  const read = readSync(fd, header, 0, 100, 0);
  closeSync(fd);
  if (read < 100 || !header.subarray(0, 16).equals(HEADER)) {
    throw new DamagedStoreError(`Refusing to start: ${file} is not an SQLite database (no SQLite header: overwritten, or another kind of file). ${RESTORE}`);
  }
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = header.readUInt32BE(28);
  // The header's page count is valid when its "version-valid-for" matches the change counter.
  const declared = header.readUInt32BE(92) === header.readUInt32BE(24) ? pages * pageSize : 0;
  if (walSize <= 0 && (size % pageSize !== 0 || size < declared)) {
    throw new DamagedStoreError(
      `Refusing to start: ${file} is truncated: ${size} bytes on disk, ${declared ? `its header says ${declared}` : `not a whole number of ${pageSize}-byte pages`} ` +
        `(an interrupted copy, a full disk or a damaged volume). ${RESTORE}`,
    );
  }
  const db = new Database(file, { fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all();
    if (tables.length > 0 && (version === 0 || !tables.includes('orders'))) {
      throw new DamagedStoreError(
        `Refusing to start: ${file} is an SQLite database of something else (tables ${tables.slice(0, 5).join(', ')}; no express-delivery schema). ` +
          `Move it out of DATA_DIR, or ${RESTORE.charAt(0).toLowerCase()}${RESTORE.slice(1)}`,
      );
    }
  } catch (error) {
    if (isDamage(error)) throw damaged(file, `SQLite: ${(error as Error).message}`);
    throw error;
  } finally {
    db.close();
  }
}

/** `what`: the finding, e.g. SQLite's message or quick_check's first problems. */
export function damaged(file: string, what: string): DamagedStoreError {
  return new DamagedStoreError(`Refusing to start: ${file} is damaged (${what}). ${RESTORE}`);
}

/** Records that a store has opened in this DATA_DIR (see STORE_MARKER_FILE_NAME). */
export function markStoreCreated(file: string): void {
  const marker = join(dirname(file), STORE_MARKER_FILE_NAME);
  if (!existsSync(marker)) writePrivateFile(marker, `${basename(file)} created or first opened at ${new Date().toISOString()}\n`);
}

/** What the store knows of damage found while serving: the reason /health reports (degraded). */
export interface DamageRecord {
  reason(): string | null;
  report(reason: string): void;
}

export function createDamageRecord(onReport: (reason: string) => void = () => {}): DamageRecord {
  let reason: string | null = null;
  return {
    reason: () => reason,
    report(found) {
      if (reason === null) onReport(found);
      reason ??= found;
    },
  };
}

/**
 * Wraps every function of every repository of a store: an SQLITE_CORRUPT or SQLITE_NOTADB from any
 * statement is recorded (the store turns degraded) and thrown on as a StoreUnavailableError, which
 * every entrance answers with 503 SERVICE_UNAVAILABLE rather than 500.
 */
export function withDamageWatch<T extends object>(store: T, damage: DamageRecord): T {
  const fail = (error: unknown): never => {
    if (!isDamage(error)) throw error;
    const reason = `the SQLite file is damaged (${(error as Error).message}); restore it from a backup`;
    damage.report(reason);
    throw new StoreUnavailableError(`store damaged: ${(error as Error).message}`, { cause: error });
  };
  const guard = <F extends (...args: never[]) => unknown>(fn: F, self: object): F =>
    function guarded(...args: Parameters<F>) {
      let result: unknown;
      try {
        result = fn.apply(self, args);
      } catch (error) {
        return fail(error);
      }
      return result instanceof Promise ? result.catch(fail) : result;
    } as F;
  for (const [name, value] of Object.entries(store)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [method, fn] of Object.entries(value)) {
        if (typeof fn === 'function') (value as Record<string, unknown>)[method] = guard(fn as (...args: never[]) => unknown, value);
      }
    } else if (typeof value === 'function' && name === 'credentialsVersion') {
      (store as Record<string, unknown>)[name] = guard(value as (...args: never[]) => unknown, store);
    }
  }
  return store;
}

// A CommonJS script (eval: true), so it runs alike under tsx, vitest and the compiled build.
const QUICK_CHECK_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  const rows = db.pragma('quick_check(' + workerData.maxErrors + ')', { simple: false }).map((r) => r.quick_check);
  parentPort.postMessage({ problems: rows.length === 1 && rows[0] === 'ok' ? [] : rows });
} catch (error) {
  parentPort.postMessage({ problems: [error.message], code: String(error.code || '') });
} finally {
  if (db) db.close();
}
`;

export type QuickCheckOutcome =
  | { state: 'ok' }
  | { state: 'damaged'; reason: string }
  | { state: 'running' }
  /** The check could not read the file for another reason (busy, unreadable): nothing was found. */
  | { state: 'unchecked'; reason: string };

/**
 * `PRAGMA quick_check` over the whole file (every page of every table and index: B-tree structure,
 * free lists, record formats, NOT NULL / CHECK; not whether each index agrees with its table) in a
 * worker thread with a read-only connection of its own. Resolves with its outcome, or with
 * 'running' once `budgetMs` has passed; then the check goes on in the background and `onLate` gets
 * damage it finds later. It never holds a lock that a writer waits for (a WAL read transaction).
 */
export function startQuickCheck(options: { file: string; budgetMs: number; onLate: (reason: string) => void }): { outcome: Promise<QuickCheckOutcome>; stop(): void } {
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(QUICK_CHECK_SOURCE, { eval: true, workerData: { file: options.file, betterSqlite3, maxErrors: 10 } });
  worker.unref();
  let late = false;
  const outcome = new Promise<QuickCheckOutcome>((resolve) => {
    const timer = setTimeout(() => {
      late = true;
      resolve({ state: 'running' });
    }, options.budgetMs);
    const finish = (problems: string[], code?: string) => {
      clearTimeout(timer);
      const result: QuickCheckOutcome =
        problems.length === 0 ? { state: 'ok' }
        : code && !isDamage({ code }) ? { state: 'unchecked', reason: problems.join('; ') }
        : { state: 'damaged', reason: `quick_check: ${problems.join('; ')}` };
      if (late && result.state === 'damaged') options.onLate(result.reason);
      resolve(result);
    };
    worker.once('message', (message: { problems: string[]; code?: string }) => finish(message.problems, message.code));
    worker.once('error', (error) => finish([error.message], 'WORKER'));
  });
  return { outcome, stop: () => void worker.terminate() };
}

/** The file's size, or -1 when it does not exist. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return -1;
    throw error;
  }
}
