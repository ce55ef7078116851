import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { ORDER_STATUSES, type OrderStatus } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { at, creation, order, storeMerchant } from '../contract/fixtures.js';

/**
 * Every statement the SQLite adapters prepare, with the plan SQLite chooses for it: no full scan
 * of a table that grows (orders, events, deliveries, …), no temporary B-tree sorting the rows a
 * limited page is taken from, and the expected index where one is named below. The statements are collected, not listed by hand: every `prepare` made while the store is built
 * and while the methods that build their SQL per call run with every optional filter set, so a new
 * query is checked without touching this file.
 */

/** Tables that stay small whatever the traffic (one row per lease name, …): scanning them is fine. */
// operators: the people who run the service (tens), listed whole.
// sqlite_master: the schema, read once at opening to check the status-set indexes (status-filters.ts).
const SMALL_TABLES = new Set(['leases', 'operators', 'sqlite_master']);

/**
 * A temporary sort on a limited query that is accepted, with why (matched on the statement's text).
 * Keep this short. Sorts of unlimited reads (one merchant's keys, one delivery's attempts, …) are
 * not checked: the read costs as much as the sort.
 */
const SORT_ACCEPTED: Array<{ sql: RegExp; why: string }> = [
  { sql: /pickup_geohash >= \?/, why: "consolidation: a geohash range cannot also give creation order; the zone's open orders are few" },
  { sql: /FROM \( SELECT doc, 0 AS rank/, why: 'findByAnyId sorts only the rows its four indexed lookups matched' },
  { sql: /^SELECT created_at, id, doc FROM orders INDEXED BY orders_late WHERE/, why: "the operators' late orders: read on orders_late only when fewer than the bound of rows read are late (issue #41), then sorted by creation" },
  { sql: /WHERE tracking_number = @ref OR order_number = @ref/, why: 'at most two rows, each from a unique index' },
  { sql: /SELECT hash FROM member_sessions WHERE member_id = @ownerId ORDER BY created_at DESC/, why: "one member's sessions, at most MEMBER_MAX_SESSIONS + 1 when it runs (at each sign-in)" },
  { sql: /SELECT hash FROM operator_sessions WHERE operator_id = @ownerId ORDER BY created_at DESC/, why: "one operator's sessions, at most MEMBER_MAX_SESSIONS + 1 when it runs (at each sign-in)" },
  { sql: /SELECT hash FROM courier_sessions WHERE courier_id = @courierId ORDER BY created_at DESC/, why: "one courier's app sessions, a handful at most when it runs (at each sign-in), ordered by the index but for the last tie-breaking term" },
];

/** The index a query must use (a plan can use an index and still walk far more than it needs). */
const EXPECTED: Array<{ sql: RegExp; indexes: string[] }> = [
  { sql: /FROM orders WHERE mode = \? AND status = 'new' AND courier_id IS NULL/, indexes: ['orders_queue_fifo'] },
  { sql: /FROM orders INDEXED BY orders_new_in_batch WHERE mode = \? AND status = 'new' AND batch_id IS NOT NULL/, indexes: ['orders_new_in_batch'] },
  // The reconciler's walk of the queue: a seek from where the last round stopped, on the queue's index.
  { sql: /FROM orders WHERE mode = \? AND status = 'new' AND \(created_at, id\) > \(\?, \?\)/, indexes: ['orders_queue_fifo'] },
  // Retention: only orders over with events left are in this index, so a step never walks past handled ones.
  { sql: /SELECT id FROM orders INDEXED BY orders_events_prunable/, indexes: ['orders_events_prunable'] },
  { sql: /FROM batches WHERE mode = \? AND status = 'pending'/, indexes: ['batches_pending_fifo'] },
  { sql: /FROM \( SELECT doc, 0 AS rank/, indexes: ['orders_reference', 'orders_ecommerce'] },
  { sql: /FROM orders WHERE merchant_id = @merchantId AND mode = @mode/, indexes: ['orders_merchant_status'] },
  // Operators' orders across merchants: the queue's index serves every (mode, status) arm; one merchant's, its own;
  // a zone of 5 or 6 characters, orders_zone5/6 (issue #41); late orders, orders_late when fewer than the bound.
  { sql: /^SELECT created_at, id, .* FROM orders INDEXED BY orders_queue_fifo WHERE mode = @m0 AND status = @s0(?! AND merchant_id)/, indexes: ['orders_queue_fifo'] },
  { sql: /^SELECT created_at, id, .* FROM orders INDEXED BY orders_merchant_status WHERE mode = @m0 AND status = @s0 AND merchant_id = @merchantId/, indexes: ['orders_merchant_status'] },
  { sql: /^SELECT created_at, id, .* FROM orders INDEXED BY orders_zone5 WHERE mode = @m0 AND status = @s0 AND pickup_zone5 = @zone/, indexes: ['orders_zone5'] },
  { sql: /^SELECT created_at, id, .* FROM orders INDEXED BY orders_zone6 WHERE mode = @m0 AND status = @s0 AND pickup_zone6 = @zone/, indexes: ['orders_zone6'] },
  { sql: /^SELECT created_at, id, doc FROM orders INDEXED BY orders_late WHERE status IN/, indexes: ['orders_late'] },
  { sql: /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM orders INDEXED BY orders_late/, indexes: ['orders_late'] },
  { sql: /FROM webhook_deliveries WHERE merchant_id = @merchantId AND status = 'pending'/, indexes: ['webhook_deliveries_due_merchant'] },
  { sql: /FROM webhook_deliveries WHERE status = 'pending' AND lease_until > @dbNow/, indexes: ['webhook_deliveries_leased'] },
  // The merchants with due webhooks: one seek per merchant, never a read of every due delivery.
  { sql: /WITH RECURSIVE pending\(id\)/, indexes: ['webhook_deliveries_due_merchant'] },
  // Cash on delivery (issue #30): a merchant's COD lines and sums, a courier's sums.
  { sql: /FROM ledger WHERE merchant_id = @merchantId AND mode = @mode AND kind/, indexes: ['ledger_cod_merchant'] },
  { sql: /FROM ledger WHERE courier_id = \?/, indexes: ['ledger_cod_courier'] },
];

/** Statements that are definitions or settings, not queries. */
const NOT_A_QUERY = /^\s*(PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|CREATE|DROP|ALTER|ANALYZE|VACUUM)\b/i;

/** The statements, and a second connection to the store's file to plan them on (the schema the adapters see). */
async function collectStatements(): Promise<{ statements: string[]; planner: Database.Database; close: () => Promise<void> }> {
  const seen = new Set<string>();
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (this: Database.Database, source: string) {
    seen.add(source.replace(/\s+/g, ' ').trim());
    return prepare.call(this, source);
  } as typeof prepare;
  const dir = mkdtempSync(join(tmpdir(), 'exd-plans-'));
  let store: Store;
  try {
    store = createSqliteStore({ dataDir: dir });
    await exerciseDynamicQueries(store);
  } finally {
    Database.prototype.prepare = prepare;
  }
  const planner = new Database(join(dir, SQLITE_FILE_NAME), { readonly: true });
  const close = async () => {
    planner.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { statements: [...seen].filter((sql) => !NOT_A_QUERY.test(sql)).sort(), planner, close };
}

/** The methods that build their SQL per call, with no optional filter and with every one. */
async function exerciseDynamicQueries(store: Store): Promise<void> {
  const page = { merchantId: 'm', mode: 'test' as const, limit: 10 };
  const range = { createdFrom: '2020-01-01T00:00:00.000Z', createdTo: '2030-01-01T00:00:00.000Z', after: 'x' };
  await exerciseOrderList(store);
  await exerciseAcrossMerchants(store);
  await store.orders.listQueued({ mode: 'test', vehicleTypes: ['motorcycle', 'car'], limit: 10 });
  await store.orders.listQueued({ mode: 'test', vehicleTypes: ['motorcycle', 'car'], limit: 10, dueBy: '2030-01-01T00:00:00.000Z' });
  await store.orders.listNewInBatches({ mode: 'test', limit: 10 });
  await store.orders.listNewInBatches({ mode: 'test', limit: 10, after: { createdAt: '2020-01-01T00:00:00.000Z', id: 'x' } });
  await store.orders.scanQueued({ mode: 'test', vehicleTypes: ['motorcycle', 'car'], dueBy: '2030-01-01T00:00:00.000Z', after: null, examine: 10 });
  await store.orders.scanQueued({ mode: 'test', vehicleTypes: ['motorcycle', 'car'], dueBy: '2030-01-01T00:00:00.000Z', after: { createdAt: '2020-01-01T00:00:00.000Z', id: 'x' }, examine: 10 });
  await store.orders.listConsolidatable({ merchantId: 'm', mode: 'test', geohashPrefix: '66j', limit: 10 });
  await store.batches.list(page);
  await store.batches.list({ ...page, after: 'x' });
  await store.batches.listPending({ mode: 'test', vehicleTypes: ['motorcycle', 'car'], limit: 10 });
  await store.webhooks.listDeliveries(page);
  await store.webhooks.listDeliveries({ ...page, ...range, endpointId: 'e', status: 'failed' });
}

/**
 * The merchant's order list with every combination of filters the API accepts: no status, one,
 * two, all of them; created_from, created_to, both or neither; no cursor, a cursor, a cursor and a
 * created_to above or below it. The cursor must be one of the merchant's orders.
 */
async function exerciseOrderList(store: Store): Promise<void> {
  const merchantId = await storeMerchant(store);
  const cursor = order({ merchantId, mode: 'test', createdAt: at(100) });
  await store.orders.create(creation(cursor));
  const all: OrderStatus[] = [...ORDER_STATUSES];
  for (const statuses of [undefined, ['completed'], ['new', 'cancelled'], all] as const) {
    for (const createdFrom of [undefined, at(0)]) {
      for (const [createdTo, after] of [[undefined, undefined], [at(200), undefined], [undefined, cursor.id], [at(200), cursor.id], [at(50), cursor.id]] as const) {
        await store.orders.list({
          merchantId, mode: 'test', limit: 21,
          ...(statuses && { statuses: [...statuses] }), ...(createdFrom && { createdFrom }), ...(createdTo && { createdTo }), ...(after && { after }),
        });
      }
    }
  }
}

/** Operators' list across merchants: one or both modes, few or every status, one merchant or all, each bound, late or in a zone (3, 5, 6 characters) or neither. */
async function exerciseAcrossMerchants(store: Store): Promise<void> {
  const merchantId = await storeMerchant(store);
  const cursor = order({ merchantId, mode: 'live', createdAt: at(100) });
  await store.orders.create(creation(cursor));
  for (const modes of [['live'], ['live', 'test']] as const) {
    for (const statuses of [['new'], ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed', 'cancelled']] as const) {
      for (const one of [undefined, merchantId]) {
        for (const [lateAt, pickupZone] of [[undefined, undefined], [at(500), undefined], [undefined, '66j'], [undefined, '66jcc'], [undefined, '66jcc4']] as const) {
          for (const [createdFrom, createdTo, after] of [[undefined, undefined, undefined], [at(0), at(200), undefined], [undefined, undefined, cursor.id]] as const) {
            await store.orders.listAcrossMerchants({
              modes: [...modes], statuses: [...statuses], limit: 21, examineAtMost: 5000,
              ...(one && { merchantId: one }), ...(lateAt && { lateAt }), ...(pickupZone && { pickupZone }), ...(createdFrom && { createdFrom }), ...(createdTo && { createdTo }), ...(after && { after }),
            });
            // As many late orders as the bound (the cursor's order, due at 100 s + 32 min, is late at 5000 s): lateness tested on each order read.
            if (lateAt) {
              await store.orders.listAcrossMerchants({
                modes: [...modes], statuses: [...statuses], limit: 21, examineAtMost: 1,
                ...(one && { merchantId: one }), lateAt: at(5000), ...(createdFrom && { createdFrom }), ...(createdTo && { createdTo }), ...(after && { after }),
              });
            }
          }
        }
      }
    }
  }
}

/**
 * The operators' list must seek like the merchant's: each arm a SEARCH on mode and status (and
 * the merchant when asked), and the date range or cursor.
 */
function acrossSeekProblems(sql: string, plan: string[]): string[] {
  if (!/^SELECT created_at, id, .* FROM orders INDEXED BY \w+ WHERE mode = @m0 AND status = @s0/.test(sql)) return [];
  const needed = ['mode=?', 'status=?'];
  // The merchant is a seek unless a zone is (then it is tested on the rows read, within the bound).
  if (/WHERE mode = @m0 AND status = @s0 AND merchant_id = @merchantId/.test(sql)) needed.push('merchant_id=?');
  const zone = /AND (pickup_zone[56]) = @zone/.exec(sql)?.[1];
  if (zone) needed.push(`${zone}=?`);
  if (/created_at >= @createdFrom/.test(sql)) needed.push('created_at>?');
  if (/created_at < @createdTo/.test(sql)) needed.push('created_at<?');
  if (/\(created_at, id\) < \(@cursorAt, @cursorId\)/.test(sql)) needed.push('(created_at,id)<(?,?)');
  const reads = plan.filter((step) => /^(SEARCH|SCAN) orders\b/.test(step));
  const arms = (sql.match(/ FROM orders /g) ?? []).length;
  const problems = reads.length === arms ? [] : [`${arms} reads of orders expected, the plan has ${reads.length}`];
  for (const step of reads) {
    const missing = needed.filter((c) => !seekOf(step).includes(c));
    if (missing.length > 0) problems.push(`${step}: does not seek on ${missing.join(', ')}`);
  }
  return problems;
}

/** Named parameters get null, positional ones too: the plan does not depend on the values. */
function bindingsOf(sql: string): unknown[] {
  const named = [...sql.matchAll(/[@:$]([A-Za-z_]\w*)/g)].map((m) => m[1]!);
  if (named.length > 0) return [Object.fromEntries(named.map((n) => [n, null]))];
  return Array.from(sql.matchAll(/\?/g), () => null);
}

function planOf(db: Database.Database, sql: string): string[] {
  const rows = db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(...bindingsOf(sql));
  return rows.map((r) => r.detail);
}

/** What is wrong with a plan: a full scan of a table that grows, or (on a limited query) a sort in a temporary B-tree. */
function problemsOf(sql: string, plan: string[]): string[] {
  const limited = /\bLIMIT\b/i.test(sql);
  // A common table expression's own rows (a recursive walk's steps) are not a table.
  const cteNames = new Set([...sql.matchAll(/(?:\bWITH(?: RECURSIVE)?|,)\s+(\w+)(?:\([^)]*\))? AS \(/gi)].map((m) => m[1]!));
  return plan.filter((step) => {
    const scan = /^SCAN (\w+)(.*)$/.exec(step);
    if (scan) return scan[1] !== 'CONSTANT' && !SMALL_TABLES.has(scan[1]!) && !cteNames.has(scan[1]!) && !/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY|VIRTUAL TABLE/.test(scan[2]!);
    return limited && /USE TEMP B-TREE/.test(step) && !SORT_ACCEPTED.some((a) => a.sql.test(sql));
  });
}

/** The constraints a SEARCH step seeks on (`merchant_id=?`, `created_at>?`, …), as SQLite prints them. */
function seekOf(step: string): string[] {
  const constraints = /^SEARCH \w+ USING (?:COVERING )?INDEX \w+ \((.*)\)$/.exec(step)?.[1];
  return constraints ? constraints.split(' AND ') : [];
}

/**
 * A merchant's order list must seek on every filter it has, not just "use an index": each read
 * of orders is a SEARCH whose index prefix takes the merchant, the mode, the status (when
 * filtered) and the bounds of the date range and the cursor. A plan that walks the merchant's
 * orders and tests the filter on each row (what an index on merchant and mode alone gives) fails.
 */
function listSeekProblems(sql: string, plan: string[]): string[] {
  if (!/FROM orders WHERE merchant_id = @merchantId AND mode = @mode/.test(sql)) return [];
  const needed = ['merchant_id=?', 'mode=?'];
  if (/status = @s\d/.test(sql)) needed.push('status=?');
  if (/created_at >= @createdFrom/.test(sql)) needed.push('created_at>?');
  if (/created_at < @createdTo/.test(sql)) needed.push('created_at<?');
  if (/\(created_at, id\) < \(@cursorAt, @cursorId\)/.test(sql)) needed.push('(created_at,id)<(?,?)');
  const reads = plan.filter((step) => /^(SEARCH|SCAN) orders\b/.test(step));
  const arms = (sql.match(/ FROM orders /g) ?? []).length;
  const problems = reads.length === arms ? [] : [`${arms} reads of orders expected, the plan has ${reads.length}`];
  for (const step of reads) {
    const missing = needed.filter((c) => !seekOf(step).includes(c));
    if (missing.length > 0) problems.push(`${step}: does not seek on ${missing.join(', ')}`);
  }
  return problems;
}

const { statements, planner, close } = await collectStatements();

describe('SQLite query plans: every query of the adapters uses an index', () => {
  afterAll(() => close());

  it(`collects the adapters' statements (${statements.length})`, () => {
    // Sanity: the collection works (orders by tracking number, the webhook claim, the order list).
    expect(statements.length).toBeGreaterThan(50);
    expect(statements.some((s) => /FROM orders WHERE merchant_id = @merchantId AND mode = @mode AND status = @s0/.test(s))).toBe(true);
  });

  it('the order list is planned for every combination of filters (statuses 1, 2, all (or none) × from × to/cursor)', () => {
    const lists = statements.filter((sql) => /^SELECT doc, created_at, id FROM orders WHERE merchant_id = @merchantId/.test(sql));
    // 3 status shapes (none asked reads them all) × 2 (from or not) × 3 upper bounds (none, created_to, cursor).
    expect(lists).toHaveLength(18);
  });

  it.each(statements)('%s', (sql) => {
    const plan = planOf(planner, sql);
    expect(problemsOf(sql, plan), `plan:\n  ${plan.join('\n  ')}`).toEqual([]);
    expect(listSeekProblems(sql, plan), `plan:\n  ${plan.join('\n  ')}`).toEqual([]);
    expect(acrossSeekProblems(sql, plan), `plan:\n  ${plan.join('\n  ')}`).toEqual([]);
    for (const expected of EXPECTED.filter((e) => e.sql.test(sql))) {
      for (const index of expected.indexes) expect(plan.some((step) => step.includes(`INDEX ${index} `)), `${index} in:\n  ${plan.join('\n  ')}`).toBe(true);
    }
  });

  it("the operators' list across merchants is planned for every shape (modes × statuses × merchant × late or zone or neither × bounds)", () => {
    const merged = statements.filter((sql) => /^SELECT created_at, id, .* FROM orders INDEXED BY \w+ WHERE mode = @m0/.test(sql));
    const late = statements.filter((sql) => /^SELECT created_at, id, doc FROM orders INDEXED BY orders_late WHERE/.test(sql));
    // Late (read on orders_late when fewer than the bound, else tested on the rows read) or a zone of 3, 5 or 6 characters or neither.
    expect(merged).toHaveLength(2 * 2 * 2 * 5 * 3);
    expect(merged.filter((sql) => /CASE WHEN .*late_at < @lateAt/.test(sql))).toHaveLength(2 * 2 * 2 * 3);
    expect(late).toHaveLength(2 * 2 * 2 * 3);
    // No arm reads a zone of 5 or 6 characters but by seeking it.
    for (const sql of merged.filter((s) => /@zone/.test(s) && !/pickup_zone[56] = @zone/.test(s))) expect(sql).toMatch(/CASE WHEN .*substr\(pickup_geohash/);
  });

  it('every expected index is checked against a statement the adapters prepare', () => {
    expect(EXPECTED.filter((e) => !statements.some((sql) => e.sql.test(sql))).map((e) => String(e.sql))).toEqual([]);
  });

  it('the checker itself flags a full scan and a temporary sort on a limited query', () => {
    const scan = 'SELECT doc FROM orders WHERE status = ?';
    expect(problemsOf(scan, planOf(planner, scan))).toEqual(['SCAN orders']);
    const sorted = "SELECT doc FROM orders WHERE merchant_id = 'm' AND mode = 'test' ORDER BY vehicle_type LIMIT 10";
    expect(problemsOf(sorted, planOf(planner, sorted))).toEqual(['USE TEMP B-TREE FOR ORDER BY']);
    // A status tested on each of the merchant's orders (`+status` keeps it off the index; no sort, an index named): not a seek.
    const walked = 'SELECT doc, created_at, id FROM orders WHERE merchant_id = @merchantId AND mode = @mode AND +status = @s0 AND created_at >= @createdFrom ORDER BY created_at DESC, id DESC LIMIT @limit';
    const plan = planOf(planner, walked);
    expect(listSeekProblems(walked, plan)).toEqual([`${plan.find((step) => step.startsWith('SEARCH orders'))}: does not seek on status=?, created_at>?`]);
  });
});
