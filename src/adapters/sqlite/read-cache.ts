import type { SqliteDatabase } from './database.js';

/**
 * A read cache for the rows every request reads (API keys, merchants) that stays exact across
 * processes: SQLite's `PRAGMA data_version` changes whenever another connection commits, and then
 * the whole cache is dropped; writes through this connection clear their entries themselves.
 * One pragma (a few µs) replaces a query plus a JSON parse on the hot path of every request.
 */
export function createReadCache<T>(db: SqliteDatabase, maxEntries = 10_000) {
  const dataVersion = db.prepare<[], { data_version: number }>('PRAGMA data_version');
  const entries = new Map<string, T>();
  let version = -1;

  function fresh(): void {
    const current = dataVersion.get()!.data_version;
    if (current !== version) {
      entries.clear();
      version = current;
    }
  }

  return {
    get(key: string, load: () => T | null): T | null {
      fresh();
      const hit = entries.get(key);
      if (hit !== undefined) return hit;
      const value = load();
      if (value !== null) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(key, value);
      }
      return value;
    },
    clear(): void {
      entries.clear();
    },
  };
}
