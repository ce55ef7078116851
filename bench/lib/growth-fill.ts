/**
 * Fills an embedded store for bench/growth.ts THROUGH THE DOMAIN SERVICES (the same container the
 * app builds): merchant A gets `size` live orders (Form B, a reference id each), 30 % of them
 * cancelled; merchant B gets size / 20 orders, each cancelled with a webhook endpoint subscribed,
 * which leaves two pending deliveries per order, created and cancelled: size / 10 in all (the
 * endpoint is never called: the bench runs the
 * app with WEBHOOK_WORKER=false). Calls run CONCURRENCY at a time so the SQLite write queue
 * commits them in groups.
 *
 * Filled stores are kept (GROWTH_CACHE_DIR, default a directory in the system's tmp) and reused by
 * later runs: a larger size starts from a copy of the largest smaller one and only adds the rest.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import { createOrderCommandSchema } from '../../src/domain/orders/schemas.js';

export interface GrowthMerchants {
  /** The orders merchant: its list, filters, reads and feed are measured. */
  a: { merchantId: string; liveKey: string };
  /** The webhook merchant: its pending deliveries are the backlog the claim runs over. */
  b: { merchantId: string; liveKey: string };
}

interface Meta extends GrowthMerchants {
  /** The size this store is filled to (merchant A's orders). */
  size: number;
  /** Orders of merchant A created so far, and of merchant B. */
  ordersA: number;
  ordersB: number;
  complete: boolean;
}

const CONCURRENCY = 64;
const META = 'growth-meta.json';
/** Every order's drop-off (a Form B address in a comuna: the local gazetteer answers it). */
const DROPOFFS = ['Av. Apoquindo 4501, Las Condes', 'Av. Providencia 2124, Providencia', 'Av. Irarrázaval 3400, Ñuñoa', 'Av. Vicuña Mackenna 7110, La Florida'];

/** The environment the app and the fill share (embedded store in `dataDir`). */
export function growthEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SEED_DEMO: 'false', NODE_ENV: 'production',
    SANDBOX_SIMULATOR: 'false', WEBHOOK_WORKER: 'false', WEBHOOK_BACKLOG_MAX: '10000000', PUBLIC_RATE_LIMIT_PER_MIN: '100000000',
    // The start-up quick_check finishes before the app serves (seconds at 1M): left to go on in
    // the background, its thread's CPU and reads were counted as the measured operations'.
    STORE_CHECK_BUDGET_MS: '600000',
  };
}

export const sizeLabel = (n: number) => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

export const readMeta = (dir: string): Meta | null => (existsSync(join(dir, META)) ? (JSON.parse(readFileSync(join(dir, META), 'utf8')) as Meta) : null);

/** The directory of a store filled to `size` (filling it, or the part missing, first). */
export async function filledStore(cacheDir: string, size: number): Promise<{ dir: string; merchants: GrowthMerchants; fillSeconds: number }> {
  const dir = join(cacheDir, `orders-${sizeLabel(size)}`);
  const meta = readMeta(dir);
  if (meta?.complete) return { dir, merchants: meta, fillSeconds: 0 };
  if (!meta) {
    // Start from the largest complete smaller store, if one is cached.
    const cached = readdirSync(cacheDir).map((name) => ({ dir: join(cacheDir, name), meta: readMeta(join(cacheDir, name)) }));
    const from = cached.filter((c) => c.meta?.complete && c.meta.size < size).sort((x, y) => y.meta!.size - x.meta!.size)[0];
    rmSync(dir, { recursive: true, force: true });
    if (from) {
      console.log(`growth: ${sizeLabel(size)} starts from a copy of ${from.dir}`);
      cpSync(from.dir, dir, { recursive: true });
      writeMeta(dir, { ...from.meta!, size, complete: false });
    }
  }
  const started = Date.now();
  const merchants = await fill(dir, size);
  return { dir, merchants, fillSeconds: (Date.now() - started) / 1000 };
}

function writeMeta(dir: string, meta: Meta): void {
  writeFileSync(join(dir, META), JSON.stringify(meta, null, 2));
}

/** Orders of a merchant in the store file (a fill cut short resumes from what was committed). */
function countOrders(dir: string, merchantId: string): number {
  const db = new Database(join(dir, SQLITE_FILE_NAME), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM orders WHERE merchant_id = ?').get(merchantId) as { n: number }).n;
  } finally {
    db.close();
  }
}

async function fill(dir: string, size: number): Promise<GrowthMerchants> {
  mkdirSync(dir, { recursive: true });
  const container = await buildContainer(loadConfig(growthEnv(dir)), { logger: pino({ level: 'silent' }) });
  try {
    let meta = readMeta(dir);
    if (!meta) meta = { ...(await createMerchants(container)), size, ordersA: 0, ordersB: 0, complete: false };
    meta.ordersA = countOrders(dir, meta.a.merchantId);
    meta.ordersB = countOrders(dir, meta.b.merchantId);
    writeMeta(dir, meta);
    const { auth, orders } = container.services;
    const a = await auth.authenticateApiKey({ apiKey: meta.a.liveKey });
    const b = await auth.authenticateApiKey({ apiKey: meta.b.liveKey });
    const targetB = Math.round(size / 20);
    const started = Date.now();
    let done = 0;
    const total = size - meta.ordersA + (targetB - meta.ordersB);
    console.log(`growth: filling ${dir} to ${size} orders (+${targetB} leaving ${targetB * 2} pending webhook deliveries): ${total} to create …`);
    const create = async (principal: typeof a, i: number, cancel: boolean) => {
      const input = createOrderCommandSchema.parse({
        customerName: `Customer ${i}`, customerPhone: '+56912345678', dropoff: DROPOFFS[i % DROPOFFS.length], paymentMode: 'prepaid', totalWeightKg: 1,
        referenceId: `REF-${principal.merchant.id.slice(-6)}-${i}`,
      });
      const { order } = await orders.createOrder({ principal, input });
      if (cancel) await orders.cancelOrder({ principal, ref: order.id, input: { reason: 'growth bench' } });
    };
    let lastReport = Date.now();
    while (meta.ordersA < size || meta.ordersB < targetB) {
      const jobs: Array<Promise<void>> = [];
      for (let k = 0; k < CONCURRENCY; k++) {
        // One B order for every twenty A orders, interleaved, so every size has its share.
        if (meta.ordersB < targetB && (meta.ordersB * 20 <= meta.ordersA || meta.ordersA >= size)) {
          jobs.push(create(b, meta.ordersB++, true));
        } else if (meta.ordersA < size) {
          const i = meta.ordersA++;
          jobs.push(create(a, i, i % 10 < 3));
        }
      }
      await Promise.all(jobs);
      done += jobs.length;
      if (Date.now() - lastReport > 10_000 || (meta.ordersA >= size && meta.ordersB >= targetB)) {
        lastReport = Date.now();
        const rate = done / ((Date.now() - started) / 1000);
        console.log(`growth: ${meta.ordersA} + ${meta.ordersB} orders (${Math.round(rate)}/s, ~${Math.round((total - done) / rate)} s left)`);
        writeMeta(dir, meta);
      }
    }
    meta.complete = true;
    writeMeta(dir, meta);
    return meta;
  } finally {
    await container.close();
  }
}

async function createMerchants(container: Container): Promise<GrowthMerchants> {
  const { admin, auth, webhookEndpoints } = container.services;
  const make = async (name: string) => {
    const created = await admin.createMerchant({ input: { name, address: 'Av. Providencia 1234, Providencia' } });
    await admin.setMerchantRateLimit({ input: { merchantId: created.merchantId, perMin: 1_000_000 } });
    return { merchantId: created.merchantId, liveKey: created.liveKey };
  };
  const a = await make('Growth Orders Merchant');
  const b = await make('Growth Webhooks Merchant');
  // A public address literal: no DNS lookup, and never called (the worker is off).
  const principal = await auth.authenticateApiKey({ apiKey: b.liveKey });
  await webhookEndpoints.createEndpoint({ principal, input: { url: 'https://93.184.215.14/growth-bench', events: ['order.status_changed'] } });
  return { a, b };
}
