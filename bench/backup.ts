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
 * The end of a backup (issue #41 item 2): the copy pins the WAL, which grows for as long as it
 * reads; its growth (the disk a backup needs beyond the copy) and the app's longest event-loop stall
 * (perf_hooks monitorEventLoopDelay) and longest on-CPU stall (the main thread's own CPU time between
 * two 2 ms timer turns, /proc/thread-self/schedstat) during the copy and the 3 s after it, for
 *   - as shipped: the worker copies the backlog after the reader left (src/adapters/sqlite/checkpointer.ts),
 *   - before: the same, but the connection on the event loop that adds to the write load (below)
 *     keeps the automatic checkpoint the serving connection had (50,000 pages): what it did at the
 *     end of a backup before (at 1M orders the WAL reached 639 MB),
 * with, in both, 400 kB rewritten every 20 ms from the app's process besides the clients' creates
 * (up to 20 MB/s into the WAL, so that it passes 50,000 pages during the copy, as at 1M orders),
 * with a baseline window of the same load without a copy.
 *
 *   nice -n 10 npx tsx bench/backup.ts        (BACKUP_BENCH_ORDERS=1000000 for a 1M-order file;
 *                                              BACKUP_BENCH_END_ONLY=1: the end-of-backup figures only)
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { SQLITE_FILE_NAME } from '../src/adapters/sqlite/store.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from '../src/adapters/sqlite/checkpointer.js';
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
    }).immediate();
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

/** The main thread's own time on a CPU, in ms (Linux). */
const onCpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;

interface Stalls {
  /** monitorEventLoopDelay's max: the longest the loop was late. */
  loopDelayMs: number;
  /** The most CPU the main thread used between two turns of a 2 ms timer. */
  onCpuMs: number;
}

/** Watches the event loop from now until stop(); `mark()` starts a second window (after the copy). */
function watchStalls() {
  const windows: Array<{ histogram: ReturnType<typeof monitorEventLoopDelay>; onCpuMs: number }> = [];
  const open = () => {
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    histogram.enable();
    windows.push({ histogram, onCpuMs: 0 });
  };
  open();
  let cpu = onCpuMs();
  const timer = setInterval(() => {
    const now = onCpuMs();
    const window = windows.at(-1)!;
    window.onCpuMs = Math.max(window.onCpuMs, now - cpu);
    cpu = now;
  }, 2);
  const figures = (w: (typeof windows)[number]): Stalls => ({ loopDelayMs: Math.round(w.histogram.max / 1e5) / 10, onCpuMs: Math.round(w.onCpuMs * 10) / 10 });
  return {
    mark: open,
    stop(): Stalls[] {
      clearInterval(timer);
      for (const w of windows) w.histogram.disable();
      return windows.map(figures);
    },
  };
}

/** A connection on the event loop with SQLite's own automatic checkpoint (`autocheckpointPages`, 0: off), rewriting 400 kB every 20 ms. */
function tickWriter(file: string, autocheckpointPages: number) {
  const db = new Database(file);
  db.pragma('busy_timeout = 1000');
  db.pragma(`wal_autocheckpoint = ${autocheckpointPages}`);
  db.exec('CREATE TABLE IF NOT EXISTS bench_ticks (id INTEGER PRIMARY KEY, body BLOB)');
  const write = db.prepare('INSERT OR REPLACE INTO bench_ticks (id, body) VALUES (1, randomblob(400000))');
  const timer = setInterval(() => {
    try {
      write.run();
    } catch {
      // busy: the next tick writes
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      db.close();
    },
  };
}

const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** One admin backup under load, with the stalls during the copy and in the 3 s after it and the WAL's growth. */
async function backupEndStalls(app: RunningApp, out: string, arm: 'shipped' | 'before') {
  const file = join(app.dataDir, SQLITE_FILE_NAME);
  // The WAL emptied first (the app is idle), so that its file's size is the growth.
  const truncate = new Database(file);
  truncate.pragma('busy_timeout = 5000');
  truncate.pragma('wal_checkpoint(TRUNCATE)');
  truncate.close();
  const writer = tickWriter(file, arm === 'before' ? FALLBACK_AUTOCHECKPOINT_PAGES : 0);
  const walBefore = sizeOf(`${file}-wal`);
  let walPeak = walBefore;
  const walTimer = setInterval(() => (walPeak = Math.max(walPeak, sizeOf(`${file}-wal`))), 50);
  let watch: ReturnType<typeof watchStalls> | null = null;
  try {
    const measured = await underLoad(
      app,
      async () => {
        const copying = run(['--import', 'tsx', 'src/admin-cli.ts', 'backup', '--out', out, '--json'], { DATA_DIR: app.dataDir, LOG_LEVEL: 'warn' });
        // Watched from after the spawn: forking this process is the bench's own stall.
        watch = watchStalls();
        const result = await copying;
        watch.mark();
        return result;
      },
      3000,
    );
    const [during, after] = watch!.stop();
    const copy = JSON.parse(measured.result) as { duration_ms: number; bytes: number };
    return { ...measured, copy, during: during!, after: after!, walGrowth: walPeak - walBefore, walPeak };
  } finally {
    clearInterval(walTimer);
    writer.stop();
  }
}

/** Runs `work` while CLIENTS create orders; returns its result with the creates acknowledged meanwhile and the slowest. */
async function underLoad<T>(app: RunningApp, work: () => T | Promise<T>, afterMs = 300) {
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
  await new Promise((r) => setTimeout(r, afterMs));
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

    let baseline: Stalls[] = [];
    const baselineWriter = tickWriter(file, 0);
    const idle = await underLoad(app, async () => {
      const watch = watchStalls();
      await new Promise((r) => setTimeout(r, 5000));
      baseline = watch.stop();
    });
    baselineWriter.stop();
    console.log(`no copy (5 s): creates acknowledged ${idle.acknowledgedMeanwhile}, slowest create ${idle.slowestCreateMs} ms; longest stall: loop ${baseline[0]!.loopDelayMs} ms, on-CPU ${baseline[0]!.onCpuMs} ms`);

    // The end of a backup: as shipped, then the old behaviour, each after the WAL was caught up.
    for (const arm of ['shipped', 'before'] as const) {
      await new Promise((r) => setTimeout(r, 3000));
      const end = await backupEndStalls(app, join(out, `end-${arm}`), arm);
      console.log(
        `backup end, ${arm === 'shipped' ? 'as shipped (the worker catches up)' : 'before (a connection on the loop with the automatic checkpoint)'}: copy ${end.copy.duration_ms} ms, ${mib(end.copy.bytes)}; ` +
          `WAL +${mib(end.walGrowth)} (peak ${mib(end.walPeak)}); creates acknowledged ${end.acknowledgedMeanwhile}, slowest ${end.slowestCreateMs} ms; ` +
          `longest stall during the copy: loop ${end.during.loopDelayMs} ms, on-CPU ${end.during.onCpuMs} ms; in the 3 s after: loop ${end.after.loopDelayMs} ms, on-CPU ${end.after.onCpuMs} ms`,
      );
      if (arm === 'before' && end.walPeak < FALLBACK_AUTOCHECKPOINT_PAGES * 4096) console.log(`  (the WAL stayed below ${FALLBACK_AUTOCHECKPOINT_PAGES.toLocaleString('en')} pages: the old safety net did not fire at this size; at 1M orders it did)`);
      console.log(`  disk a backup needs: the copy (${mib(end.copy.bytes)}) + the WAL's growth (${mib(end.walGrowth)}) = ${((end.copy.bytes + end.walGrowth) / size).toFixed(2)}× the store file`);
    }
    if (process.env.BACKUP_BENCH_END_ONLY === '1') return;

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
