/**
 * Growth benchmark: does a request cost the same on a store of 1M orders as on one of 10k?
 *
 *   npm run bench:growth -- [--sizes 10k,100k,1m] [--duration 5] [--warmup 1] [--connections 10] [--only create,status,…] [--fill-only]
 *
 * For each size, an embedded store is filled THROUGH THE DOMAIN SERVICES (bench/lib/growth-fill.ts:
 * `size` orders of one merchant, 30 % cancelled, plus size / 10 pending webhook deliveries of a
 * second merchant), kept in GROWTH_CACHE_DIR for later runs, and copied to a scratch directory the
 * app then runs on (its own process, the compiled build, WEBHOOK_WORKER=false, no couriers). Each
 * operation is loaded by autocannon for `--duration` seconds: server CPU per request (the figure
 * least disturbed by other work on the machine), p50 and p99, and the ratio of its CPU per request
 * to the smallest size's. The webhook claim runs in this process on the store (the worker's
 * claimDue over the backlog). Last, the app starts again with a retention of a few milliseconds
 * and a reconciler round every second: the longest event-loop stall (perf_hooks, in the app) while
 * the first prune deletes most of the store's history and the reconciler walks the queue.
 *
 * Targets: every operation ≤ 1.5× its cost at the smallest size, at the largest; no stall > 50 ms.
 * Writes bench/results/growth.json and the "Growth" section of bench/results/REPORT.md.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { SQLITE_FILE_NAME } from '../src/adapters/sqlite/store.js';
import { loadConfig } from '../src/config.js';
import { buildContainer } from '../src/container.js';
import { cursorOf } from '../src/domain/webhooks/feed.js';
import { appScript } from './lib/app.js';
import { filledStore, growthEnv, sizeLabel, type GrowthMerchants } from './lib/growth-fill.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { PROJECT_ROOT, spawnServer, type ServerProcess } from './lib/processes.js';
import { machine } from './lib/report.js';
import { spliceGrowthSection } from './lib/summary.js';

const COST_RATIO = 1.5;
const STALL_MS = 50;

const { values } = parseArgs({
  options: {
    sizes: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' },
    only: { type: 'string' }, 'fill-only': { type: 'boolean' }, 'stall-max': { type: 'string' }, runtime: { type: 'string' },
  },
  strict: false,
});
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
const parseSize = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s.trim());
  if (!m) throw new Error(`--sizes: not a size: ${s} (e.g. 10k, 100k, 1m)`);
  return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 'm' ? 1e6 : m[2] ? 1e3 : 1));
};
const sizes = (text(values.sizes) ?? process.env.GROWTH_SIZES ?? '10k,100k').split(',').map(parseSize).sort((a, b) => a - b);
const duration = Number(text(values.duration) ?? process.env.BENCH_DURATION ?? 5);
const warmup = Number(text(values.warmup) ?? process.env.BENCH_WARMUP ?? 1);
const connections = Number(text(values.connections) ?? process.env.BENCH_CONNECTIONS ?? 10);
const only = text(values.only)?.split(',') ?? null;
const stallMaxSeconds = Number(text(values['stall-max']) ?? 120);
const runtime = (text(values.runtime) ?? process.env.BENCH_RUNTIME ?? 'dist') as 'dist' | 'tsx';
const cacheDir = process.env.GROWTH_CACHE_DIR ?? join(tmpdir(), 'exd-growth-cache');
mkdirSync(cacheDir, { recursive: true });

/** What the operations read: ids of orders spread over the store, deep cursors, a date range, the feed's end. */
interface Samples {
  orders: Array<{ id: string; reference: string; tracking: string; number: string }>;
  deepCursors: string[];
  range: { from: string; to: string };
  feedTail: string;
}

function sample(dir: string, merchants: GrowthMerchants): Samples {
  const db = new Database(join(dir, SQLITE_FILE_NAME), { readonly: true });
  try {
    const maxRowid = (db.prepare('SELECT max(rowid) AS n FROM orders').get() as { n: number }).n;
    type Found = { id: string; reference_id: string; tracking_number: string; order_number: string };
    const at = db.prepare<[number, string], Found>('SELECT id, reference_id, tracking_number, order_number FROM orders WHERE rowid >= ? AND merchant_id = ? LIMIT 1');
    const pick = (from: number, span: number) => at.get(from + Math.floor(Math.random() * span), merchants.a.merchantId);
    const orders = Array.from({ length: 500 }, () => pick(1, maxRowid)).filter((o): o is Found => Boolean(o));
    const deep = Array.from({ length: 200 }, () => pick(1, Math.max(1, Math.floor(maxRowid / 10)))).filter((o): o is Found => Boolean(o));
    const count = (db.prepare("SELECT count(*) AS n FROM orders WHERE merchant_id = ? AND mode = 'live'").get(merchants.a.merchantId) as { n: number }).n;
    const createdAt = (offset: number) =>
      (db.prepare("SELECT created_at FROM orders WHERE merchant_id = ? AND mode = 'live' ORDER BY created_at, id LIMIT 1 OFFSET ?").get(merchants.a.merchantId, offset) as { created_at: string }).created_at;
    // A window of about 1 % of the merchant's orders in the middle of its history.
    const range = { from: createdAt(Math.floor(count / 2)), to: createdAt(Math.min(count - 1, Math.floor(count / 2) + Math.max(50, Math.floor(count / 100)))) };
    const last = (db.prepare("SELECT last FROM event_feed_positions WHERE merchant_id = ? AND mode = 'live'").get(merchants.a.merchantId) as { last: number }).last;
    return {
      orders: orders.map((o) => ({ id: o.id, reference: o.reference_id, tracking: o.tracking_number, number: o.order_number })),
      deepCursors: deep.map((o) => o.id),
      range,
      feedTail: cursorOf(Math.max(0, last - 20)),
    };
  } finally {
    db.close();
  }
}

const CREATE_BODY = JSON.stringify({
  customer_name: 'Camila Rojas', customer_phone: '+56 9 8765 4321', dropoff_address: 'Av. Apoquindo 4501, depto 1203, Las Condes', payment_mode: 'prepaid', prep_time_mins: 10,
});

interface Operation {
  id: string;
  label: string;
  /** The request (a path cycling over samples through setupRequest where it varies). */
  request: (s: Samples) => { method: 'GET' | 'POST'; path: string; body?: string; cycle?: string[] };
}

const q = (params: Record<string, string | string[]>) =>
  new URLSearchParams(Object.entries(params).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]))).toString();

const OPERATIONS: Operation[] = [
  { id: 'create', label: 'POST /orders (create)', request: () => ({ method: 'POST', path: '/api/v1/orders', body: CREATE_BODY }) },
  { id: 'read-id', label: 'GET /orders/{booking_id}', request: (s) => ({ method: 'GET', path: '', cycle: s.orders.map((o) => `/api/v1/orders/${o.id}`) }) },
  { id: 'read-reference', label: 'GET /orders/{reference_id}', request: (s) => ({ method: 'GET', path: '', cycle: s.orders.map((o) => `/api/v1/orders/${encodeURIComponent(o.reference)}`) }) },
  { id: 'read-tracking', label: 'GET /orders/{tracking_number}', request: (s) => ({ method: 'GET', path: '', cycle: s.orders.map((o) => `/api/v1/orders/${o.tracking}`) }) },
  { id: 'read-number', label: 'GET /orders/{order_number}', request: (s) => ({ method: 'GET', path: '', cycle: s.orders.map((o) => `/api/v1/orders/${o.number}`) }) },
  { id: 'list-first', label: 'GET /orders (first page)', request: () => ({ method: 'GET', path: '/api/v1/orders?limit=20' }) },
  { id: 'list-deep', label: 'GET /orders?after= (a page 90 % deep)', request: (s) => ({ method: 'GET', path: '', cycle: s.deepCursors.map((id) => `/api/v1/orders?${q({ limit: '20', after: id })}`) }) },
  { id: 'status', label: 'GET /orders?status=cancelled', request: () => ({ method: 'GET', path: `/api/v1/orders?${q({ status: 'cancelled', limit: '20' })}` }) },
  { id: 'status-rare', label: 'GET /orders?status=completed (none match)', request: () => ({ method: 'GET', path: `/api/v1/orders?${q({ status: 'completed', limit: '20' })}` }) },
  { id: 'statuses', label: 'GET /orders?status=picked_up&status=cancelled', request: () => ({ method: 'GET', path: `/api/v1/orders?${q({ status: ['picked_up', 'cancelled'], limit: '20' })}` }) },
  { id: 'date', label: 'GET /orders?created_from&created_to (1 % mid-history)', request: (s) => ({ method: 'GET', path: `/api/v1/orders?${q({ created_from: s.range.from, created_to: s.range.to, limit: '20' })}` }) },
  { id: 'status-date', label: 'GET /orders?status=cancelled&created_from&created_to', request: (s) => ({ method: 'GET', path: `/api/v1/orders?${q({ status: 'cancelled', created_from: s.range.from, created_to: s.range.to, limit: '20' })}` }) },
  { id: 'feed-oldest', label: 'GET /events (oldest page)', request: () => ({ method: 'GET', path: '/api/v1/events?limit=50' }) },
  { id: 'feed-newest', label: 'GET /events?after= (newest page)', request: (s) => ({ method: 'GET', path: `/api/v1/events?${q({ after: s.feedTail, limit: '50' })}` }) },
  { id: 'tracking', label: 'GET /tracking/{tracking_number} (public)', request: (s) => ({ method: 'GET', path: '', cycle: s.orders.map((o) => `/api/v1/tracking/${o.tracking}`) }) },
];

interface Measured {
  result: LoadResult;
}
interface SizeResult {
  size: number;
  fillSeconds: number;
  ops: Record<string, Measured>;
  claim: { usPerClaim: number; p50: number; p99: number; claimed: number; backlog: number };
  /** Longest event-loop delay while the operations ran (reconciler rounds included). */
  servingStallMs: number | null;
  stall: { maxMs: number | null; pruned: boolean; watchedSeconds: number };
}

async function measureOperations(server: ServerProcess, merchants: GrowthMerchants, samples: Samples): Promise<Record<string, Measured>> {
  const out: Record<string, Measured> = {};
  const runId = Date.now().toString(36);
  let key = 0;
  for (const op of OPERATIONS.filter((o) => !only || only.includes(o.id))) {
    const r = op.request(samples);
    let next = 0;
    const setupRequest = (request: autocannon.Request): autocannon.Request => ({
      ...request,
      ...(r.cycle && { path: r.cycle[next++ % r.cycle.length] }),
      ...(r.method === 'POST' && { headers: { ...request.headers, 'idempotency-key': `growth-${runId}-${++key}` } }),
    });
    const headers = { 'content-type': 'application/json', ...(op.id !== 'tracking' && { authorization: `Bearer ${merchants.a.liveKey}` }) };
    // One request first: the answer must be the real one.
    const probe = await fetch(`${server.url}${r.cycle ? r.cycle[0] : r.path}`, { method: r.method, headers: { ...headers, 'idempotency-key': `growth-${runId}-probe` }, ...(r.body && { body: r.body }) });
    if (probe.status >= 300) throw new Error(`${op.label} answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);
    await probe.arrayBuffer().catch(() => {});
    const result = await runLoad({
      url: `${server.url}${r.path || '/'}`, method: r.method, headers, ...(r.body && { body: r.body }), setupRequest,
      connections, duration, warmup, serverCpuSeconds: () => server.cpuSeconds(),
    });
    out[op.id] = { result };
    console.log(`  ${op.label.padEnd(56)} ${String(result.serverUsPerRequest ?? '–').padStart(6)} µs/req  p50 ${result.p50} ms  p99 ${result.p99} ms  (${result.rps} rps, ${result.non2xx} non-2xx)`);
  }
  return out;
}

/** The webhook worker's claim over merchant B's backlog, in this process on the store: CPU and time per claim. */
async function measureClaim(dir: string): Promise<SizeResult['claim']> {
  const container = await buildContainer(loadConfig(growthEnv(dir)), { logger: pino({ level: 'silent' }) });
  try {
    const { webhooks } = container.config;
    const db = new Database(join(dir, SQLITE_FILE_NAME), { readonly: true });
    const backlog = (db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get() as { n: number }).n;
    db.close();
    const claimOnce = async (i: number) =>
      // Leases that end at once: every claim finds the backlog as it was (nothing stays in flight,
      // so each takes as many as the endpoint's cap allows, at every size).
      (await container.store.webhooks.claimDue({
        owner: 'growth-bench', now: new Date(Date.now() + i * 2).toISOString(), leaseMs: 0, limit: webhooks.maxInFlight,
        merchantConcurrency: webhooks.merchantConcurrency, endpointConcurrency: webhooks.endpointConcurrency,
      })).length;
    for (let i = 0; i < 50; i++) await claimOnce(i);
    const times: number[] = [];
    let claimed = 0;
    const cpu = process.cpuUsage();
    const rounds = 1000;
    for (let i = 0; i < rounds; i++) {
      const t = performance.now();
      claimed += await claimOnce(50 + i);
      times.push(performance.now() - t);
    }
    const used = process.cpuUsage(cpu);
    times.sort((x, y) => x - y);
    const pct = (p: number) => Math.round(times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]! * 100) / 100;
    return { usPerClaim: Math.round((used.user + used.system) / rounds), p50: pct(50), p99: pct(99), claimed, backlog };
  } finally {
    await container.close();
  }
}

/** The app started with a retention of milliseconds and a reconciler round every second: the longest event-loop stall. */
async function measureStall(dir: string): Promise<SizeResult['stall']> {
  // The operations' app held the retention lease (for three periods): a new node would wait for it.
  const db = new Database(join(dir, SQLITE_FILE_NAME));
  db.prepare('DELETE FROM leases').run();
  db.close();
  const logFile = join(dir, 'stall.log');
  const stallFile = join(dir, 'stall.json');
  const env = { ...growthEnv(dir), ORDER_EVENTS_RETENTION_DAYS: '0.000001', WEBHOOK_RETENTION_DAYS: '0.000001', DISPATCH_RECONCILE_MS: '1000', LOOP_STALL_FILE: stallFile };
  const server = await spawnServer({ script: appScript(runtime), env, ready: 'log', logFile, startTimeoutMs: 180_000, nodeArgs: ['--import', join(PROJECT_ROOT, 'bench/lib/loop-stall.mjs')] });
  const started = Date.now();
  let pruned = false;
  try {
    // At least ten reconciler rounds; until the first prune has finished (or failed), within --stall-max.
    while (Date.now() - started < stallMaxSeconds * 1000) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      pruned = /"msg":"storage prun(ed|ing failed)"/.test(readFileSync(logFile, 'utf8'));
      if (pruned && Date.now() - started > 10_000) break;
    }
  } finally {
    await server.stop();
  }
  const stall = existsSync(stallFile) ? (JSON.parse(readFileSync(stallFile, 'utf8')) as { maxMs: number }) : null;
  return { maxMs: stall?.maxMs ?? null, pruned, watchedSeconds: Math.round((Date.now() - started) / 1000) };
}

async function measureSize(size: number): Promise<SizeResult> {
  const filled = await filledStore(cacheDir, size);
  if (values['fill-only']) return { size, fillSeconds: filled.fillSeconds } as SizeResult;
  const work = mkdtempSync(join(tmpdir(), `exd-growth-${sizeLabel(size)}-`));
  try {
    console.log(`growth ${sizeLabel(size)}: copying the store …`);
    cpSync(filled.dir, work, { recursive: true });
    const samples = sample(work, filled.merchants);
    const logFile = join(work, 'app.log');
    const stallFile = join(work, 'serving-stall.json');
    // The reconciler runs once at start and then not for ten minutes: its rounds are the stall
    // phase's subject, and their CPU would count as the requests' here.
    const server = await spawnServer({
      script: appScript(runtime), env: { ...growthEnv(work), DISPATCH_RECONCILE_MS: '600000', LOOP_STALL_FILE: stallFile }, ready: 'log', logFile, startTimeoutMs: 180_000,
      nodeArgs: ['--import', join(PROJECT_ROOT, 'bench/lib/loop-stall.mjs')],
    });
    let ops: Record<string, Measured>;
    try {
      // Let the start-up round of the reconciler (it logs that this node leads once its first
      // round is done) and the retention job finish first.
      const settled = Date.now();
      while (Date.now() - settled < 120_000 && !/this node leads/.test(readFileSync(logFile, 'utf8'))) await new Promise((resolve) => setTimeout(resolve, 500));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      console.log(`growth ${sizeLabel(size)}: ${duration} s per operation, ${connections} connections`);
      ops = await measureOperations(server, filled.merchants, samples);
    } finally {
      await server.stop();
    }
    const servingStallMs = existsSync(stallFile) ? (JSON.parse(readFileSync(stallFile, 'utf8')) as { maxMs: number }).maxMs : null;
    const claim = await measureClaim(work);
    console.log(`  webhook claim over ${claim.backlog} pending deliveries: ${claim.usPerClaim} µs per claim (p50 ${claim.p50} ms, p99 ${claim.p99} ms)`);
    console.log(`growth ${sizeLabel(size)}: the first retention prune (retention of milliseconds) and reconciler rounds every second …`);
    const stall = await measureStall(work).catch((error: unknown) => {
      console.log(`  the stall phase failed: ${(error as Error).message}`);
      return { maxMs: null, pruned: false, watchedSeconds: 0 };
    });
    console.log(`  longest event-loop stall: ${stall.maxMs ?? '–'} ms over ${stall.watchedSeconds} s (prune ${stall.pruned ? 'finished' : 'still running at the end'}); while serving: ${servingStallMs ?? '–'} ms`);
    return { size, fillSeconds: filled.fillSeconds, ops, claim, servingStallMs, stall };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const results: SizeResult[] = [];
for (const size of sizes) results.push(await measureSize(size));
if (values['fill-only']) {
  for (const r of results) console.log(`growth: ${sizeLabel(r.size)} filled (${Math.round(r.fillSeconds)} s this run)`);
  process.exit(0);
}

// ---- the report ----

const base = results[0]!;
const largest = results.at(-1)!;
const ratioOf = (cost: number | null | undefined, baseCost: number | null | undefined) => (cost && baseCost ? Math.round((cost / baseCost) * 100) / 100 : null);
interface Line { label: string; cells: string[]; ratio: number | null; pass: boolean | null }
const lines: Line[] = [];
for (const op of OPERATIONS.filter((o) => base.ops[o.id])) {
  const ratio = ratioOf(largest.ops[op.id]?.result.serverUsPerRequest, base.ops[op.id]!.result.serverUsPerRequest);
  lines.push({
    label: op.label,
    cells: results.map((r) => {
      const m = r.ops[op.id]?.result;
      return m ? `${m.serverUsPerRequest ?? '–'} µs · ${m.p50} / ${m.p99} ms` : '–';
    }),
    ratio,
    pass: ratio === null || results.length < 2 ? null : ratio <= COST_RATIO,
  });
}
const claimRatio = ratioOf(largest.claim.usPerClaim, base.claim.usPerClaim);
lines.push({
  label: 'webhook claim over the pending backlog (in process)',
  cells: results.map((r) => `${r.claim.usPerClaim} µs · ${r.claim.p50} / ${r.claim.p99} ms (${r.claim.backlog} pending)`),
  ratio: claimRatio,
  pass: claimRatio === null || results.length < 2 ? null : claimRatio <= COST_RATIO,
});
const worstStall = Math.max(...results.map((r) => r.stall.maxMs ?? Infinity));
const stallPass = results.every((r) => r.stall.maxMs !== null && r.stall.maxMs <= STALL_MS && r.stall.pruned);
const times = (n: number | null) => (n === null ? '–' : `${n.toFixed(2)}×`);
const verdict = (pass: boolean | null) => (pass === null ? '–' : pass ? '**PASS**' : '**MISS**');

const md: string[] = [];
md.push('## Growth', '');
md.push(
  `Written by \`npm run bench:growth -- --sizes ${sizes.map(sizeLabel).join(',')}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC ` +
    `(${duration} s per operation after ${warmup} s warm-up, ${connections} connections). Stores filled through the domain services: ` +
    'N orders of one merchant (30 % cancelled, 70 % queued `new`) and N/20 orders of a second merchant, created and cancelled, leaving N/10 pending webhook deliveries. ' +
    'Cells: server CPU per request · p50 / p99. Ratio: CPU per request at the largest size over the smallest.',
  '',
);
md.push(`| operation | ${results.map((r) => sizeLabel(r.size)).join(' | ')} | ratio ${sizeLabel(largest.size)} / ${sizeLabel(base.size)} | ≤ ${COST_RATIO}× |`);
md.push(`|---|${results.map(() => '---:').join('|')}|---:|---|`);
for (const l of lines) md.push(`| ${l.label} | ${l.cells.join(' | ')} | ${times(l.ratio)} | ${verdict(l.pass)} |`);
md.push(
  `| longest event-loop stall: first retention prune + reconciler rounds (1 s) | ${results.map((r) => `${r.stall.maxMs ?? '–'} ms${r.stall.pruned ? '' : ' (prune unfinished)'}`).join(' | ')} | – | ${verdict(stallPass)} (≤ ${STALL_MS} ms) |`,
);
md.push(`| longest event-loop stall while serving the operations | ${results.map((r) => `${r.servingStallMs ?? '–'} ms`).join(' | ')} | – | – |`, '');
const misses = lines.filter((l) => l.pass === false);
md.push(`- ${results.length < 2 ? '– (one size: nothing to compare)' : misses.length === 0 ? 'PASS' : 'MISS'} — every operation ≤ ${COST_RATIO}× its ${sizeLabel(base.size)} cost at ${sizeLabel(largest.size)}${misses.length ? ` (over: ${misses.map((l) => `${l.label} ${times(l.ratio)}`).join('; ')})` : ''}`);
md.push(`- ${stallPass ? 'PASS' : 'MISS'} — no event-loop stall over ${STALL_MS} ms during the prune and the reconciler (worst ${Number.isFinite(worstStall) ? `${worstStall} ms` : 'not measured'})`);
const fills = results.filter((r) => r.fillSeconds > 0);
if (fills.length) md.push(`- Filled in this run: ${fills.map((r) => `${sizeLabel(r.size)} in ${Math.round(r.fillSeconds)} s`).join(', ')} (cached in ${cacheDir} for later runs).`);
md.push('');

const section = md.join('\n');
console.log(`\n${section}`);
const resultsDir = join(PROJECT_ROOT, 'bench', 'results');
writeFileSync(join(resultsDir, 'growth.json'), JSON.stringify({ name: 'growth', measuredAt: new Date().toISOString(), machine: machine(), settings: { sizes, duration, warmup, connections, runtime }, results }, null, 2));
writeFileSync(join(resultsDir, 'GROWTH.md'), section);
spliceGrowthSection();
console.log(`figures written to bench/results/growth.json, bench/results/GROWTH.md and the Growth section of bench/results/REPORT.md`);
process.exit(0);
