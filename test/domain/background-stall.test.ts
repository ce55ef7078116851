/**
 * Retention and the dispatch reconciler over a large store never hold the event loop for long
 * (issue #25 item 2): a SQLite file on disk is filled directly (bulk SQL of realistic rows: orders
 * over with their events, most of them past retention; a long queue of new orders, the oldest ones
 * scheduled for tomorrow; old webhook deliveries and feed events), then each job runs through the
 * container's services while a timer notes the longest stall of the event loop. The bound here is
 * generous (a busy machine must not make it flaky; before the jobs worked in bounded, yielding
 * steps they stalled for seconds on this store); the 50 ms target is bench:growth's.
 *
 * Sizes: STALL_TEST_ORDERS (default 50 000 orders over) and STALL_TEST_QUEUED (default 250 000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { order, transition } from '../contract/fixtures.js';

const OVER = Number(process.env.STALL_TEST_ORDERS ?? 50_000);
const QUEUED = Number(process.env.STALL_TEST_QUEUED ?? 250_000);
const OLD_DELIVERIES = Math.round(OVER / 10);
/**
 * The longest stall accepted (ms): far above the 50 ms target, far below the seconds measured before
 * (main: 8.4 s for retention, 4.3 s for a reconciler round on this store). 500 ms was exceeded once
 * (547 ms) with the whole suite running on 2 cores: a descheduled process stalls too.
 */
const STALL_BOUND_MS = 2000;
const DAY = 86_400_000;

/**
 * Runs `work` and returns the longest event-loop stall seen meanwhile, in ms: a 5 ms interval
 * timer notes the longest time between two of its ticks (monitorEventLoopDelay records nothing
 * when the work holds the loop from start to end).
 */
async function longestStall(what: string, work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  try {
    await work();
    await new Promise((resolve) => setTimeout(resolve, 20)); // the probe's tick after the last stretch
  } finally {
    clearInterval(probe);
  }
  console.info(`${what}: ${(performance.now() - started).toFixed(0)} ms in all, longest stall ${longest.toFixed(1)} ms`);
  return longest;
}

/** Fills the store's file: orders over (90 % past retention) with two events each, the queue, old deliveries and feed events. */
function fill(file: string, merchantId: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // a test fixture: nothing to lose
  const now = Date.now();
  const template = order({ merchantId, createdAt: new Date(now).toISOString() });
  const insertOrder = db.prepare(
    `INSERT INTO orders (id, merchant_id, mode, order_number, tracking_number, status, vehicle_type, pickup_geohash, created_at, dispatch_after, doc)
     VALUES (?, ?, ?, ?, ?, ?, 'motorcycle', ?, ?, ?, ?)`,
  );
  const insertEvent = db.prepare('INSERT INTO order_events (id, order_id, sequence, doc) VALUES (?, ?, ?, ?)');
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, endpoint_id, merchant_id, mode, status, next_attempt_at, created_at, doc) VALUES (?, 'we_1', ?, 'live', 'delivered', ?, ?, ?)`,
  );
  const insertAttempt = db.prepare('INSERT INTO webhook_attempts (id, delivery_id, attempt, doc) VALUES (?, ?, 1, ?)');
  const insertFeed = db.prepare('INSERT INTO event_feed (merchant_id, mode, position, id, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)');
  const pad = (n: number) => String(n).padStart(9, '0');
  db.transaction(() => {
    for (let i = 0; i < OVER; i++) {
      // 90 % created two years ago (past the 365-day retention of order events), the rest last week.
      const createdAt = new Date(now - (i % 10 === 0 ? 7 * DAY : 730 * DAY) + i * 1000).toISOString();
      const status = i % 3 === 0 ? 'cancelled' : 'completed';
      const id = `bk_over_${pad(i)}`;
      const o = Object.assign({}, template, { id, status, createdAt, updatedAt: createdAt, orderNumber: `ON${pad(i)}`, trackingNumber: `TN${pad(i)}` });
      insertOrder.run(id, merchantId, 'live', o.orderNumber, o.trackingNumber, status, template.pickup.geohash, createdAt, null, JSON.stringify(o));
      insertEvent.run(`ev_${id}_1`, id, 1, JSON.stringify(Object.assign(transition(o, null, 'new', createdAt), { sequence: 1 })));
      insertEvent.run(`ev_${id}_2`, id, 2, JSON.stringify(Object.assign(transition(o, 'new', status, createdAt), { sequence: 2 })));
    }
    for (let i = 0; i < QUEUED; i++) {
      // The oldest 80 % are scheduled for tomorrow: not due, so a round that walks the queue for due ones finds none there.
      const createdAt = new Date(now - DAY + i * 100).toISOString();
      const dispatchAfter = i < QUEUED * 0.8 ? new Date(now + DAY).toISOString() : null;
      const id = `bk_queued_${pad(i)}`;
      const o = Object.assign({}, template, { id, createdAt, updatedAt: createdAt, orderNumber: `OQ${pad(i)}`, trackingNumber: `TQ${pad(i)}`, ...(dispatchAfter && { dispatchAfter }) });
      insertOrder.run(id, merchantId, 'live', o.orderNumber, o.trackingNumber, 'new', template.pickup.geohash, createdAt, dispatchAfter, JSON.stringify(o));
      insertEvent.run(`ev_${id}_1`, id, 1, JSON.stringify(Object.assign(transition(o, null, 'new', createdAt), { sequence: 1 })));
    }
    const delivery = JSON.stringify({ event: 'order.completed', payload: template, attempts: 1 });
    for (let i = 0; i < OLD_DELIVERIES; i++) {
      const createdAt = new Date(now - 60 * DAY + i * 1000).toISOString();
      insertDelivery.run(`wd_${pad(i)}`, merchantId, createdAt, createdAt, delivery);
      insertAttempt.run(`wa_${pad(i)}`, `wd_${pad(i)}`, JSON.stringify({ statusCode: 200, latencyMs: 80, at: createdAt }));
      insertFeed.run(merchantId, 'live', i + 1, `fe_${pad(i)}`, createdAt, delivery);
    }
  })();
  db.close();
}

describe(`background jobs over a large SQLite store (${OVER} orders over, ${QUEUED} queued)`, () => {
  let dataDir: string;
  let container: Container;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'exd-stall-'));
    const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false' });
    const first = await buildContainer(config, { logger: createLogger({ level: 'silent' }) });
    const { merchantId } = await first.services.admin.createMerchant({ input: { name: 'Big', address: 'Av. Providencia 1234, Providencia' } });
    await first.close();
    const started = performance.now();
    fill(join(dataDir, SQLITE_FILE_NAME), merchantId);
    console.info(`filled in ${(performance.now() - started).toFixed(0)} ms`);
    container = await buildContainer(config, { logger: createLogger({ level: 'silent' }) });
  }, 600_000);

  afterAll(async () => {
    await container?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('retention prunes everything due in steps: no stall over the bound, and a run with nothing left is as smooth', async () => {
    const { retention } = container.services;
    let report: Awaited<ReturnType<typeof retention.pruneStorage>> | undefined;
    const stall = await longestStall('retention, first run', async () => (report = await retention.pruneStorage()));
    expect(report).toMatchObject({ orderEvents: OVER * 0.9, deliveries: OLD_DELIVERIES, feedEvents: OLD_DELIVERIES });
    expect(stall, `longest stall ${stall.toFixed(1)} ms`).toBeLessThan(STALL_BOUND_MS);
    const { store } = container;
    expect(await store.orders.listEvents('bk_over_000000001')).toEqual([]);
    expect(await store.orders.listEvents('bk_over_000000010')).toHaveLength(2); // created last week: kept

    const again = await longestStall('retention, nothing left', async () => (report = await retention.pruneStorage()));
    expect(report).toMatchObject({ orderEvents: 0, deliveries: 0, feedEvents: 0 });
    expect(again, `longest stall ${again.toFixed(1)} ms`).toBeLessThan(STALL_BOUND_MS);
  }, 600_000);

  it('a reconciler round reads a bounded part of the queue: no stall over the bound', async () => {
    const { reconciler } = container.services;
    const stall = await longestStall('reconciler, first round', () => reconciler.reconcile());
    expect(stall, `longest stall ${stall.toFixed(1)} ms`).toBeLessThan(STALL_BOUND_MS);
    // The next round goes on further into the queue (test/domain/reconciler-walk.test.ts checks the walk).
    const second = await longestStall('reconciler, second round', () => reconciler.reconcile());
    expect(second, `longest stall ${second.toFixed(1)} ms`).toBeLessThan(STALL_BOUND_MS);
  }, 600_000);
});
