/**
 * Backup at size: fills an embedded store to BACKUP_BENCH_ORDERS orders (default 300,000: a few
 * real orders created through the API, copied by bulk SQL with their events, feed entries and
 * idempotency keys), then, while clients keep creating orders through the running server, times
 *   - the admin command's copy (VACUUM INTO from its own connection, src/adapters/sqlite/backup.ts),
 *   - SQLite's online backup API with every page in one step (better-sqlite3 `db.backup`),
 *   - PRAGMA quick_check over the whole file (what start-up checks in the background).
 * each in a process of its own (as an operator runs them), and prints them with the creates
 * acknowledged meanwhile and the slowest create.
 *
 *   nice -n 10 npx tsx bench/backup.ts        (BACKUP_BENCH_ORDERS=1000000 for a 1M-order file)
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { SQLITE_FILE_NAME } from '../src/adapters/sqlite/store.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { PROJECT_ROOT } from './lib/processes.js';

interface RunningApp {
  server: { url: string };
  merchant: { testKey: string };
  dataDir: string;
  stop(): Promise<void>;
}

/** The app in this process (the copies and checks below run in processes of their own). */
async function startApp(): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'backup-bench-store-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false' });
  const app = await buildApp({ config, overrides: { logger: createLogger({ level: 'silent' }) } });
  const { url } = await app.start();
  const { admin } = app.container.services;
  const merchant = await admin.createMerchant({ input: { name: 'Backup Bench', address: 'Av. Providencia 1234, Providencia' } });
  await admin.setMerchantRateLimit({ input: { merchantId: merchant.merchantId, perMin: 1_000_000 } });
  return {
    server: { url },
    merchant,
    dataDir,
    async stop() {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const ORDERS = Number(process.env.BACKUP_BENCH_ORDERS ?? 300_000);
const TEMPLATES = 50;
const CLIENTS = 4;
const BODY = JSON.stringify({
  customer_name: 'Camila Rojas',
  customer_phone: '+56 9 8765 4321',
  dropoff_address: 'Av. Apoquindo 4501, depto 1203, Las Condes',
  payment_mode: 'prepaid',
  prep_time_mins: 10,
  order_notes: 'Llamar al llegar',
});

let sequence = 0;
async function createOrder(app: RunningApp): Promise<boolean> {
  const res = await fetch(`${app.server.url}/api/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.merchant.testKey}`, 'content-type': 'application/json', 'idempotency-key': `backup-bench-${Date.now()}-${++sequence}` },
    body: BODY,
  });
  await res.arrayBuffer();
  return res.status === 201 || res.status === 200;
}

/** Copies the template rows `copies` times per batch: new ids for every unique column. */
function fill(file: string, target: number): void {
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  const templates = db.prepare<[], number>('SELECT count(*) FROM orders').pluck().get()!;
  const suffix = (n: string) => `|| '-' || ${n}`;
  const batch = Math.max(1, Math.floor(20_000 / templates));
  for (let done = templates, round = 1; done < target; round++) {
    const copies = Math.min(batch, Math.ceil((target - done) / templates));
    const seq = `WITH RECURSIVE seq(n) AS (SELECT ${round * 1_000_000} UNION ALL SELECT n + 1 FROM seq WHERE n < ${round * 1_000_000 + copies - 1})`;
    db.transaction(() => {
      db.exec(`${seq} INSERT INTO orders SELECT ${columns(db, 'orders', { id: suffix('n'), order_number: suffix('n'), tracking_number: suffix('n') })} FROM orders o, seq WHERE o.id NOT LIKE '%-%'`);
      db.exec(`${seq} INSERT INTO order_events SELECT ${columns(db, 'order_events', { id: suffix('n'), order_id: suffix('n') })} FROM order_events o, seq WHERE o.order_id NOT LIKE '%-%'`);
      db.exec(`${seq} INSERT INTO event_feed SELECT ${columns(db, 'event_feed', { id: suffix('n'), position: '+ n * 1000' })} FROM event_feed o, seq WHERE o.id NOT LIKE '%-%'`);
      db.exec(`${seq} INSERT INTO idempotency_keys SELECT ${columns(db, 'idempotency_keys', { key: suffix('n'), order_id: suffix('n') })} FROM idempotency_keys o, seq WHERE o.key NOT LIKE '%-%'`);
    })();
    done += copies * templates;
  }
  // The fill's WAL into the database file now, so that what follows measures the copy alone.
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function columns(db: Database.Database, table: string, changed: Record<string, string>): string {
  const names = (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
  return names.map((name) => (changed[name] ? `o.${name} ${changed[name]}` : `o.${name}`)).join(', ');
}

/** Runs a child process to its end; resolves with its stdout. */
function run(args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => child.once('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)))));
}

/** A CommonJS snippet with better-sqlite3 as `Database` and the store file as `file`. */
const sqliteScript = (file: string, body: string) => ['-e', `const Database = require('better-sqlite3'); const file = ${JSON.stringify(file)}; ${body}`];

/** Runs `work` while CLIENTS create orders; returns its result with the creates acknowledged meanwhile and the slowest. */
async function underLoad<T>(app: RunningApp, work: () => T | Promise<T>) {
  let stop = false;
  let acknowledged = 0;
  let slowestMs = 0;
  const client = async () => {
    while (!stop) {
      const started = performance.now();
      if (await createOrder(app).catch(() => false)) acknowledged++;
      slowestMs = Math.max(slowestMs, performance.now() - started);
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  await new Promise((r) => setTimeout(r, 500));
  const before = acknowledged;
  const started = performance.now();
  const result = await work();
  const ms = Math.round(performance.now() - started);
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await Promise.all(clients);
  return { result, ms, acknowledgedMeanwhile: acknowledged - before, slowestCreateMs: Math.round(slowestMs) };
}

async function main(): Promise<void> {
  const app = await startApp();
  const out = mkdtempSync(join(tmpdir(), 'backup-bench-'));
  try {
    for (let i = 0; i < TEMPLATES; i++) await createOrder(app);
    const file = join(app.dataDir, SQLITE_FILE_NAME);
    let started = performance.now();
    fill(file, ORDERS);
    console.log(`filled to ${ORDERS.toLocaleString('en')} orders in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const reader = new Database(file, { readonly: true });
    started = performance.now();
    const size = statSync(file).size;
    console.log(`file: ${(size / 1024 / 1024).toFixed(0)} MiB`);

    const idle = await underLoad(app, () => new Promise((r) => setTimeout(r, 5000)));
    console.log(`no copy (5 s): creates acknowledged ${idle.acknowledgedMeanwhile}, slowest create ${idle.slowestCreateMs} ms`);

    const vacuum = await underLoad(app, () => run(['--import', 'tsx', 'src/admin-cli.ts', 'backup', '--out', join(out, 'vacuum'), '--json'], { DATA_DIR: app.dataDir, LOG_LEVEL: 'warn' }));
    const copy = JSON.parse(vacuum.result) as { duration_ms: number; orders: number; bytes: number };
    console.log(
      `admin backup (VACUUM INTO): ${copy.duration_ms} ms copying (${vacuum.ms} ms with the CLI's start), ${copy.orders.toLocaleString('en')} orders in the copy, ` +
        `${(copy.bytes / 1024 / 1024).toFixed(0)} MiB; creates acknowledged meanwhile ${vacuum.acknowledgedMeanwhile}, slowest create ${vacuum.slowestCreateMs} ms`,
    );

    const online = await underLoad(app, () => run(sqliteScript(file, `new Database(file).backup(${JSON.stringify(join(out, 'online.sqlite'))}, { progress: () => 1e9 }).then(() => {});`)));
    console.log(`online backup API, all pages in one step: ${online.ms} ms; creates acknowledged meanwhile ${online.acknowledgedMeanwhile}, slowest create ${online.slowestCreateMs} ms`);

    const check = await underLoad(app, () => run(sqliteScript(file, `console.log(JSON.stringify(new Database(file, { readonly: true }).pragma('quick_check')));`)));
    console.log(`PRAGMA quick_check (whole file): ${check.ms} ms → ${check.result}`);
    reader.close();
  } finally {
    await app.stop();
    rmSync(out, { recursive: true, force: true });
  }
}

void main();
