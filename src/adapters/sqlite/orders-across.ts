import type { Statement } from 'better-sqlite3';
import type { AcrossMerchantsPage } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

type Row = { doc: string };

/** Options of one page's statement: everything but the values. */
interface Shape {
  modes: number;
  statuses: number;
  merchant: boolean;
  from: boolean;
  upper: 'createdTo' | 'cursor' | null;
  late: boolean;
  zone: boolean;
}

/**
 * Orders of every merchant, newest first, for operators: one arm per (mode, status), each a seek
 * on orders_queue_fifo (mode, status, created_at, id), or on orders_merchant_status when one
 * merchant is asked, merged in order (MERGE UNION ALL stops at the limit). The date range and the
 * cursor cut each arm's range. `late` and the pickup zone are tested on each row of the arms it reads: only statuses in
 * progress are asked with it, the working set, never the history of completed orders.
 */
function pageSql(shape: Shape): string {
  const where = [
    shape.merchant ? ' AND merchant_id = @merchantId' : '',
    shape.from ? ' AND created_at >= @createdFrom' : '',
    shape.upper === 'createdTo' ? ' AND created_at < @createdTo' : shape.upper === 'cursor' ? ' AND (created_at, id) < (@cursorAt, @cursorId)' : '',
    // Not a range on pickup_geohash: that would lure the planner to orders_zone, losing creation order.
    shape.zone ? ' AND substr(pickup_geohash, 1, length(@zone)) = @zone' : '',
    shape.late ? " AND (json_extract(doc, '$.estimatedDeliveryAt') < @lateAt OR json_extract(doc, '$.deliverBefore') < @lateAt)" : '',
  ].join('');
  const arms: string[] = [];
  for (let m = 0; m < shape.modes; m++) {
    for (let s = 0; s < shape.statuses; s++) arms.push(`SELECT doc, created_at, id FROM orders WHERE mode = @m${m} AND status = @s${s}${where}`);
  }
  return `${arms.join(' UNION ALL ')} ORDER BY created_at DESC, id DESC LIMIT @limit`;
}

export function createAcrossMerchantsList(db: SqliteDatabase) {
  const cursorOf = db.prepare<[string], { created_at: string }>('SELECT created_at FROM orders WHERE id = ?');
  const pages = new Map<string, Statement<Record<string, unknown>, Row>>();
  const pageOf = (shape: Shape) => {
    const key = JSON.stringify(shape);
    let statement = pages.get(key);
    if (!statement) pages.set(key, (statement = db.prepare<Record<string, unknown>, Row>(pageSql(shape))));
    return statement;
  };

  return (options: AcrossMerchantsPage): string[] => {
    const modes = [...new Set(options.modes)];
    const statuses = [...new Set(options.statuses)];
    if (modes.length === 0 || statuses.length === 0 || options.limit <= 0) return [];
    const params: Record<string, unknown> = { limit: options.limit };
    modes.forEach((m, i) => (params[`m${i}`] = m));
    statuses.forEach((s, i) => (params[`s${i}`] = s));
    let upper: Shape['upper'] = options.createdTo ? 'createdTo' : null;
    if (options.createdTo) params.createdTo = options.createdTo;
    if (options.after) {
      const cursor = cursorOf.get(options.after);
      if (!cursor) return [];
      // The lower of the two upper bounds is the one the index range is cut by (it implies the other).
      if (!options.createdTo || cursor.created_at < options.createdTo) {
        upper = 'cursor';
        Object.assign(params, { cursorAt: cursor.created_at, cursorId: options.after });
        delete params.createdTo;
      }
    }
    if (options.merchantId) params.merchantId = options.merchantId;
    if (options.createdFrom) params.createdFrom = options.createdFrom;
    if (options.lateAt) params.lateAt = options.lateAt;
    if (options.pickupZone) params.zone = options.pickupZone;
    const shape: Shape = { modes: modes.length, statuses: statuses.length, merchant: !!options.merchantId, from: !!options.createdFrom, upper, late: !!options.lateAt, zone: !!options.pickupZone };
    return pageOf(shape).all(params).map((r) => r.doc);
  };
}
