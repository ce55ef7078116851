import { ORDER_STATUS_SETS, type OrderStatusSet } from '../../domain/vocabulary.js';
import type { SqliteDatabase } from './database.js';

/** `status IN ('a', 'b')`: a status set as SQL, written the way the migrations wrote the index filters. */
export function statusInSql(set: OrderStatusSet): string {
  return `status IN (${ORDER_STATUS_SETS[set].map((status) => `'${status}'`).join(', ')})`;
}

/**
 * The partial indexes whose filter is a status set. The migrations that made them are append-only
 * text, so they cannot follow the set: opening checks them instead (assertStatusIndexes), and a
 * changed set needs a new migration that recreates its index.
 */
export const STATUS_SET_INDEXES = { orders_events_prunable: 'terminal', orders_late: 'active' } as const satisfies Record<string, OrderStatusSet>;

/** Fails opening with what to do when an index's filter no longer says what its status set says. */
export function assertStatusIndexes(db: SqliteDatabase): void {
  const read = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?");
  for (const [index, set] of Object.entries(STATUS_SET_INDEXES)) {
    const sql = read.get(index)?.sql ?? '';
    if (!sql.replace(/\s+/g, ' ').includes(statusInSql(set))) {
      throw new Error(
        `SQLite index ${index} does not filter on the domain's '${set}' statuses (src/domain/vocabulary.ts): it says ` +
          `${JSON.stringify(sql)}, the set writes ${JSON.stringify(statusInSql(set))}. Add a migration that drops and recreates ${index} with the set's filter.`,
      );
    }
  }
}
