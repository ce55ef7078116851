import type { Statement } from 'better-sqlite3';
import type { AcrossMerchantsPage, AcrossMerchantsResult } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import { statusInSql } from './status-filters.js';

type Row = { created_at: string; id: string; doc: string | null };

/** Statuses in progress: orders_late's filter (checked at opening), written the same so the planner may use it. */
const IN_PROGRESS_SQL = statusInSql('active');

/** Options of one page's statement: everything but the values. */
interface Shape {
  modes: number;
  statuses: number;
  merchant: boolean;
  from: boolean;
  upper: 'createdTo' | 'cursor' | null;
  /** A zone of 5 or 6 characters is a seek on orders_zone5/6; a shorter one a row test. */
  zone: 5 | 6 | 'row' | null;
  /** `index`: the late orders are read on orders_late (there are fewer than the bound); `row`: tested on each row read. */
  late: 'index' | 'row' | null;
}

const rangeSql = (shape: Shape) =>
  [
    shape.from ? ' AND created_at >= @createdFrom' : '',
    shape.upper === 'createdTo' ? ' AND created_at < @createdTo' : shape.upper === 'cursor' ? ' AND (created_at, id) < (@cursorAt, @cursorId)' : '',
  ].join('');

const ZONE_ROW_TEST = 'substr(pickup_geohash, 1, length(@zone)) = @zone';

/**
 * Orders of every merchant, newest first, for operators: one arm per (mode, status), each a seek
 * in creation order, merged in order (MERGE UNION ALL stops when the caller stops reading). The
 * seek is on orders_zone5/6 (mode, status, zone, created_at, id) for a zone of 5 or 6 characters,
 * else on orders_merchant_status for one merchant, else on orders_queue_fifo. The date range and
 * the cursor cut each arm's range. What no index serves (a shorter zone, the merchant beside a
 * zone, lateness when many orders are late) is tested on each row read: the row comes back without
 * its document when it fails, and the caller stops at `examineAtMost` rows read.
 */
function pageSql(shape: Shape): string {
  if (shape.late === 'index') return lateSql(shape);
  const seek = [
    shape.zone === 5 || shape.zone === 6 ? ` AND pickup_zone${shape.zone} = @zone` : '',
    shape.merchant && (shape.zone === null || shape.zone === 'row') ? ' AND merchant_id = @merchantId' : '',
    rangeSql(shape),
  ].join('');
  const index = shape.zone === 5 || shape.zone === 6 ? `orders_zone${shape.zone}` : shape.merchant ? 'orders_merchant_status' : 'orders_queue_fifo';
  const tests = [
    shape.merchant && (shape.zone === 5 || shape.zone === 6) ? 'merchant_id = @merchantId' : '',
    shape.zone === 'row' ? ZONE_ROW_TEST : '',
    shape.late === 'row' ? 'late_at < @lateAt' : '',
  ].filter(Boolean);
  const doc = tests.length ? `CASE WHEN ${tests.join(' AND ')} THEN doc END AS doc` : 'doc';
  const arms: string[] = [];
  for (let m = 0; m < shape.modes; m++) {
    for (let s = 0; s < shape.statuses; s++) arms.push(`SELECT created_at, id, ${doc} FROM orders INDEXED BY ${index} WHERE mode = @m${m} AND status = @s${s}${seek}`);
  }
  // Every row read is a match when nothing is tested on rows: the page's size bounds the read.
  return `${arms.join(' UNION ALL ')} ORDER BY created_at DESC, id DESC LIMIT ${tests.length ? '@examine' : '@limit'}`;
}

/**
 * Late orders, when fewer than the bound are late: read on orders_late (orders in progress by
 * late_at), every other filter tested on them, sorted by creation. The on-time orders in progress
 * are never read.
 */
function lateSql(shape: Shape): string {
  const list = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `@${prefix}${i}`).join(', ');
  const where = [
    ` AND mode IN (${list('m', shape.modes)}) AND status IN (${list('s', shape.statuses)})`,
    shape.merchant ? ' AND merchant_id = @merchantId' : '',
    shape.zone === 5 || shape.zone === 6 || shape.zone === 'row' ? ` AND ${ZONE_ROW_TEST}` : '',
    rangeSql(shape),
  ].join('');
  return `SELECT created_at, id, doc FROM orders INDEXED BY orders_late WHERE ${IN_PROGRESS_SQL} AND late_at < @lateAt${where} ORDER BY created_at DESC, id DESC LIMIT @limit`;
}

export function createAcrossMerchantsList(db: SqliteDatabase) {
  const cursorOf = db.prepare<[string], { created_at: string }>('SELECT created_at FROM orders WHERE id = ?');
  // How many orders are late, counted up to the bound on the index's keys alone.
  const lateCount = db.prepare<{ lateAt: string; examine: number }, { n: number }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM orders INDEXED BY orders_late WHERE ${IN_PROGRESS_SQL} AND late_at < @lateAt LIMIT @examine)`,
  );
  const pages = new Map<string, Statement<Record<string, unknown>, Row>>();
  const pageOf = (shape: Shape) => {
    const key = JSON.stringify(shape);
    let statement = pages.get(key);
    if (!statement) pages.set(key, (statement = db.prepare<Record<string, unknown>, Row>(pageSql(shape))));
    return statement;
  };

  return (options: AcrossMerchantsPage): AcrossMerchantsResult<string> => {
    const modes = [...new Set(options.modes)];
    const statuses = [...new Set(options.statuses)];
    const examine = Math.max(1, options.examineAtMost);
    if (modes.length === 0 || statuses.length === 0 || options.limit <= 0) return { orders: [], resumeAfter: null };
    const params: Record<string, unknown> = { limit: options.limit, examine };
    modes.forEach((m, i) => (params[`m${i}`] = m));
    statuses.forEach((s, i) => (params[`s${i}`] = s));
    let upper: Shape['upper'] = options.createdTo ? 'createdTo' : null;
    if (options.createdTo) params.createdTo = options.createdTo;
    if (options.after) {
      const cursor = cursorOf.get(options.after);
      if (!cursor) return { orders: [], resumeAfter: null };
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
    const zone = options.pickupZone;
    if (zone) params.zone = zone;
    let late: Shape['late'] = null;
    if (options.lateAt) late = lateCount.get({ lateAt: options.lateAt, examine })!.n < examine ? 'index' : 'row';
    const shape: Shape = {
      modes: modes.length, statuses: statuses.length, merchant: !!options.merchantId, from: !!options.createdFrom, upper, late,
      zone: !zone ? null : zone.length === 5 ? 5 : zone.length === 6 ? 6 : 'row',
    };
    const statement = pageOf(shape);
    if (late === 'index') return { orders: statement.all(params).map((r) => r.doc!), resumeAfter: null };
    // Rows come as the merge yields them: stop at the page's size, or at the bound of rows read.
    const orders: string[] = [];
    let read = 0;
    let last: string | null = null;
    for (const row of statement.iterate(params)) {
      read++;
      last = row.id;
      if (row.doc !== null && orders.push(row.doc) >= options.limit) return { orders, resumeAfter: null };
    }
    return { orders, resumeAfter: read >= examine && orders.length < read ? last : null };
  };
}
