/**
 * Operators' order filters (issue #41): does a zone or `late` page cost the same on 200k orders as
 * on 10k?
 *
 *   npx tsx bench/ops-filters.ts [--sizes 10000,200000] [--calls 200]
 *
 * For each size, a temporary SQLite store is filled with orders of many merchants (raw rows from
 * one template: 90 % over, 10 % in progress of which 1 in 20 late; pickups spread over 64 cells of
 * 5 characters in Santiago, one small merchant alone in a cell of its own), then the operators'
 * list is asked as the ops page asks it (both modes, every status, 20 a page, the domain's bound of
 * orders read) for: an empty zone of 6, 5 and 3 characters, the small merchant's zone, and
 * late: true. Prints main-thread CPU per request (process.cpuUsage) and the ratio to the smallest size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createSqliteStore, SQLITE_FILE_NAME } from '../src/adapters/sqlite/store.js';
import { OPERATOR_LIST_EXAMINE_MAX } from '../src/domain/orders/operator-orders.js';
import { MODES, ORDER_STATUSES } from '../src/domain/types.js';
import type { AcrossMerchantsPage } from '../src/ports/store.js';
import { order, storeMerchant } from '../test/contract/fixtures.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,200000' }, calls: { type: 'string', default: '200' } } });
const sizes = values.sizes.split(',').map(Number);
const calls = Number(values.calls);
const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';
const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const IN_PROGRESS = ['new', 'assigned', 'picked_up'] as const;

async function measure(size: number): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'exd-ops-filters-'));
  try {
    const store = createSqliteStore({ dataDir: dir });
    const merchants: string[] = [];
    for (let i = 0; i < 20; i++) merchants.push(await storeMerchant(store));
    const small = await storeMerchant(store);
    await store.close();
    const db = new Database(join(dir, SQLITE_FILE_NAME));
    const insert = db.prepare(
      `INSERT INTO orders (id, merchant_id, mode, order_number, tracking_number, reference_id, ecommerce_order_id, status, courier_id, batch_id, vehicle_type, pickup_geohash, created_at, dispatch_after, doc)
       VALUES (@id, @merchantId, @mode, @orderNumber, @trackingNumber, NULL, NULL, @status, NULL, NULL, 'motorcycle', @geohash, @createdAt, NULL, @doc)`,
    );
    const template = order({ merchantId: merchants[0]! });
    db.transaction(() => {
      for (let i = 0; i < size; i++) {
        const createdAt = new Date(NOW - (size - i) * 1000).toISOString();
        const inProgress = i % 10 === 0;
        const status = inProgress ? IN_PROGRESS[(i / 10) % 3]! : i % 3 === 0 ? 'cancelled' : 'completed';
        const late = inProgress && i % 200 === 0;
        const isSmall = i % 1000 === 7;
        const geohash = isSmall ? '66jcfzzzz' : `66jc${BASE32[i % 8]}${BASE32[(i >> 3) % 8]}${BASE32[(i >> 6) % 32]}zz`;
        const estimatedDeliveryAt = new Date(late ? NOW - 600_000 : NOW + 3_600_000).toISOString();
        const id = `bk_${String(i).padStart(10, '0')}`;
        const doc = { ...template, id, merchantId: isSmall ? small : merchants[i % 20]!, status, createdAt, estimatedDeliveryAt, orderNumber: `N${i}`, trackingNumber: `T${i}`, pickup: { ...template.pickup, geohash } };
        insert.run({ id, merchantId: doc.merchantId, mode: 'live', orderNumber: doc.orderNumber, trackingNumber: doc.trackingNumber, status, geohash, createdAt, doc: JSON.stringify(doc) });
      }
    })();
    db.exec('ANALYZE');
    db.close();
    const reopened = createSqliteStore({ dataDir: dir });
    const page = { modes: [...MODES], statuses: [...ORDER_STATUSES], limit: 21, examineAtMost: OPERATOR_LIST_EXAMINE_MAX };
    const cases: Record<string, Partial<AcrossMerchantsPage>> = {
      'empty zone (6)': { pickupZone: '66jcc9' },
      'empty zone (5)': { pickupZone: '66jcz' },
      'empty zone (3, row test)': { pickupZone: '67z' },
      "small merchant's zone (6)": { pickupZone: '66jcfz' },
      'late: true': { lateAt: new Date(NOW).toISOString(), statuses: ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'delivery_failed', 'returning'] },
    };
    const out: Record<string, number> = {};
    for (const [name, filter] of Object.entries(cases)) {
      for (let i = 0; i < 10; i++) await reopened.orders.listAcrossMerchants({ ...page, ...filter });
      const start = process.cpuUsage();
      for (let i = 0; i < calls; i++) await reopened.orders.listAcrossMerchants({ ...page, ...filter });
      const used = process.cpuUsage(start);
      out[name] = (used.user + used.system) / calls / 1000;
    }
    await reopened.close();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Array<[number, Record<string, number>]> = [];
for (const size of sizes) results.push([size, await measure(size)]);
const [base] = results;
console.log(`operators' list, CPU ms per request (${calls} calls each); ratio to ${base![0]} orders`);
for (const name of Object.keys(base![1])) {
  const cells = results.map(([size, r]) => `${size}: ${r[name]!.toFixed(3)} ms`).join('  ');
  const ratio = results.at(-1)![1][name]! / base![1][name]!;
  console.log(`  ${name.padEnd(28)} ${cells}  ratio ${ratio.toFixed(2)}×`);
}
