import type { Fix } from './coalesce.js';

/**
 * The positions not yet acknowledged by the server, on the device (IndexedDB, no library): every
 * kept fix goes here first and leaves when the socket's `ack` for it arrives, so a dead zone, a
 * closed tab or a dropped socket loses none. Read back oldest fix first.
 */
const DB = 'exd-courier';
const STORE = 'positions';
/** The server takes backlog fixes up to 24 h old; older ones are dropped on read. */
const MAX_AGE_MS = 23 * 3600_000;
/** Past this many (days offline at 15 s), the oldest go first. */
const MAX_KEPT = 20_000;

export interface StoredFix { key: number; fix: Fix }

let opened: Promise<IDBDatabase> | null = null;

function open(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore(STORE, { keyPath: 'key', autoIncrement: true });
      store.createIndex('at', 'at');
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => {
      opened = null;
      reject(request.error ?? new Error('IndexedDB unavailable'));
    };
  });
  return opened;
}

function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T> | void): Promise<T> {
  return open().then((db) => new Promise<T>((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request ? request.result : (undefined as T));
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  }));
}

export function keepFix(fix: Fix): Promise<void> {
  return run('readwrite', (store) => {
    store.add({ at: Date.parse(fix.recorded_at), fix });
  });
}

/** Up to `limit` fixes, oldest fix time first (ties: the order they were kept); stale ones are dropped. */
export async function oldestFixes(limit: number): Promise<StoredFix[]> {
  const rows = await run<Array<{ key: number; at: number; fix: Fix }>>('readonly', (store) => store.index('at').getAll(null, limit + 64));
  const cutoff = Date.now() - MAX_AGE_MS;
  const stale = rows.filter((row) => row.at < cutoff).map((row) => row.key);
  if (stale.length) await dropFixes(stale);
  const total = await countFixes();
  if (total > MAX_KEPT) await dropFixes(rows.slice(0, total - MAX_KEPT).map((row) => row.key));
  return rows.filter((row) => row.at >= cutoff).sort((a, b) => a.at - b.at || a.key - b.key).slice(0, limit).map(({ key, fix }) => ({ key, fix }));
}

export function dropFixes(keys: number[]): Promise<void> {
  return run('readwrite', (store) => {
    for (const key of keys) store.delete(key);
  });
}

export function countFixes(): Promise<number> {
  return run('readonly', (store) => store.count());
}

export function clearFixes(): Promise<void> {
  return run('readwrite', (store) => {
    store.clear();
  });
}
