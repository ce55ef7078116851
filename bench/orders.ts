/**
 * Orders benchmark: POST /api/v1/orders (a unique Idempotency-Key per request, so every request
 * creates an order) and GET /api/v1/orders/:id (cycling over booking ids created beforehand) of the
 * real app, beside a bare Express baseline started by this script that answers the same two
 * requests with a constant JSON. Every server runs in its own process; autocannon runs here.
 * Prints the table and writes bench/results/orders.json.
 *
 *   npm run bench:orders -- [--duration 10] [--warmup 3] [--connections 50] [--rounds 4] [--only express-create,express-read,create,read]
 *
 * Each app row and its baseline are measured together, in alternating windows (runInterleaved).
 */
import type autocannon from 'autocannon';
import { startApp } from './lib/app.js';
import { BASELINE_LABELS, startBaseline } from './lib/baselines.js';
import { measureTogether, type MeasuredTarget } from './lib/measure.js';
import { benchSettings } from './lib/options.js';
import { clean, ratio, reportResults, rowById, type Ratio, type Row, type Target } from './lib/report.js';

const MERCHANT = { name: 'Bench Orders Merchant', address: 'Av. Providencia 1234, Providencia' };
/** Form B: the drop-off as one address string naming its comuna; pickup from the merchant profile. */
const CREATE_BODY = JSON.stringify({
  customer_name: 'Camila Rojas',
  customer_phone: '+56 9 8765 4321',
  customer_rut: '12.345.678-5',
  dropoff_address: 'Av. Apoquindo 4501, depto 1203, Las Condes',
  payment_mode: 'prepaid',
  prep_time_mins: 10,
  order_notes: 'Llamar al llegar',
});
/** Orders created before the read measurement; GET cycles over their booking ids. */
const READ_IDS = 1000;
/** Issue #18 item 4 (the first pass asked 0.4× and 0.6×). */
const CREATE_RATIO = 0.5;
const READ_RATIO = 0.75;
const P99_MS = 50;

const settings = benchSettings();
const wanted = (id: string) => !settings.only || settings.only.includes(id);
const cpuProfileArgs = (target: string) =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${target}`] : [];

const runId = Date.now().toString(36);
let keySequence = 0;
/** Every request gets an idempotency key never used before (in this run or any other). */
const uniqueKey = (request: autocannon.Request): autocannon.Request => ({
  ...request,
  headers: { ...request.headers, 'idempotency-key': `bench-${runId}-${++keySequence}` },
});
/** GET paths cycle over `ids` (one per request, in order). */
const cyclePaths = (ids: string[]) => {
  let next = 0;
  return (request: autocannon.Request): autocannon.Request => ({ ...request, path: `/api/v1/orders/${encodeURIComponent(ids[next++ % ids.length]!)}` });
};

const rows: Row[] = [];
const BASELINE_OF: Record<string, string> = { create: 'express-create', read: 'express-read' };

const JSON_HEADERS = { 'content-type': 'application/json' };

const servers: Array<{ stop(): Promise<void> }> = [];
let notesFromApp: string[] = [];
try {
  const baseline = wanted('express-create') || wanted('express-read') ? await startBaseline('express', { nodeArgs: cpuProfileArgs('express') }) : null;
  if (baseline) servers.push(baseline);
  // The sandbox simulator is off, so no courier is on duty: dispatch runs on every creation, finds
  // nobody in the geo index, and the order stays `new` in the queue.
  const app = wanted('create') || wanted('read') ? await startApp({ merchant: MERCHANT, rateLimitPerMin: 1_000_000, nodeArgs: cpuProfileArgs('app'), env: { SANDBOX_SIMULATOR: 'false' } }) : null;
  if (app) servers.push(app);
  const headers = app && { ...JSON_HEADERS, authorization: `Bearer ${app.merchant.testKey}` };
  const ordersUrl = app && `${app.server.url}/api/v1/orders`;

  const ids: string[] = [];
  if (app && headers && ordersUrl && wanted('read')) {
    console.log(`creating ${READ_IDS} orders for the read measurement …`);
    for (let batch = 0; batch < READ_IDS; batch += 20) {
      const created = await Promise.all(
        Array.from({ length: Math.min(20, READ_IDS - batch) }, async () => {
          const res = await fetch(ordersUrl, { method: 'POST', headers: { ...headers, 'idempotency-key': `seed-${runId}-${++keySequence}` }, body: CREATE_BODY });
          const body = (await res.json()) as { booking_id?: string; status?: string };
          if (res.status !== 201 || !body.booking_id) throw new Error(`seeding an order answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
          return body;
        }),
      );
      ids.push(...created.map((o) => o.booking_id!));
      if (batch === 0 && created[0]!.status !== 'new') throw new Error(`expected a queued order (no courier on duty), got status ${created[0]!.status}`);
    }
  }

  const createGroup: MeasuredTarget[] = [];
  if (baseline && wanted('express-create')) {
    createGroup.push({ id: 'express-create', label: `${BASELINE_LABELS.express}: POST (constant 201)`, server: baseline, request: { url: `${baseline.url}/api/v1/orders`, headers: JSON_HEADERS, body: CREATE_BODY, setupRequest: uniqueKey }, check: (status, body) => status === 201 && body.includes('"price"') });
  }
  if (app && headers && ordersUrl && wanted('create')) {
    createGroup.push({ id: 'create', label: 'REST POST /api/v1/orders (Form B, unique key)', server: app.server, profile: app.profile, request: { url: ordersUrl, headers, body: CREATE_BODY, setupRequest: uniqueKey }, check: (status, body) => status === 201 && /"success":true.*"booking_id":"[^"]+".*"status":"new"/.test(body) });
  }
  const readGroup: MeasuredTarget[] = [];
  if (baseline && wanted('express-read')) {
    const constantIds = Array.from({ length: READ_IDS }, (_, i) => `ord_${String(i).padStart(26, '0')}`);
    readGroup.push({ id: 'express-read', label: `${BASELINE_LABELS.express}: GET /:id (constant)`, server: baseline, request: { url: `${baseline.url}/api/v1/orders/x`, method: 'GET', setupRequest: cyclePaths(constantIds) }, check: (status, body) => status === 200 && body.includes('"price"') });
  }
  if (app && headers && ordersUrl && wanted('read')) {
    readGroup.push({ id: 'read', label: 'REST GET /api/v1/orders/:booking_id', server: app.server, profile: app.profile, request: { url: `${ordersUrl}/x`, method: 'GET', headers: { authorization: headers.authorization }, setupRequest: cyclePaths(ids) }, check: (status, body) => status === 200 && /"success":true.*"booking_id":"[^"]+"/.test(body) });
  }
  for (const group of [createGroup, readGroup]) if (group.length > 0) rows.push(...(await measureTogether({ targets: group, settings, baselineOf: BASELINE_OF })));

  if (app) {
    const createdTotal = rows.find((r) => r.id === 'create')?.result.requests ?? 0;
    notesFromApp = [
      `app logged ${(app.logBytes() / 2 ** 20).toFixed(1)} MiB at LOG_LEVEL=info to a file in its DATA_DIR (one access-log line per request)`,
      `${ids.length} orders created before measuring; the read row cycles over their booking ids; the create row created ${createdTotal} more (warm-up not counted)`,
    ];
  }
} finally {
  for (const server of servers) await server.stop();
}

const has = (...ids: string[]) => ids.every((id) => rows.some((r) => r.id === id));
const ratios: Ratio[] = [];
if (has('create', 'express-create')) ratios.push(ratio(rows, 'create order / bare Express POST', 'create', 'express-create'));
if (has('read', 'express-read')) ratios.push(ratio(rows, 'read order / bare Express GET', 'read', 'express-read'));

const targets: Target[] = [];
const measured = (r: Ratio) => `${r.value.toFixed(3)}× by rps${r.costValue === null ? '' : `, ${r.costValue.toFixed(3)}× by server CPU per request`}`;
for (const [id, base, min, what] of [
  ['create', 'express-create', CREATE_RATIO, 'create order'],
  ['read', 'express-read', READ_RATIO, 'read order by booking_id'],
] as const) {
  if (has(id, base)) {
    const r = ratios.find((x) => x.of === id)!;
    targets.push({ label: `${what} ≥ ${min}× bare Express rps`, pass: r.value >= min && clean(rowById(rows, id)), measured: measured(r), row: id, ratio: min });
  }
  if (has(id)) {
    const row = rowById(rows, id);
    targets.push({
      label: `${what} p99 < ${P99_MS} ms at 50 connections`,
      pass: row.result.p99 < P99_MS && settings.connections === 50 && clean(row),
      measured: `${row.result.p99} ms at ${settings.connections} connections`,
      row: id,
      p99Ms: P99_MS,
    });
  }
}

const notes = [
  'each server runs in its own child process; autocannon runs in the bench process',
  `each row and its baseline measured in ${settings.rounds} alternating windows (A B, B A, …) totalling ${settings.duration} s each; percentiles over every response of the windows`,
  'app rows: the real app (src/main.ts), durable SQLite on disk, test key, auth + per-key rate limiter (limit raised via setMerchantRateLimit) + zod',
  'create: Form B body (dropoff_address string in a comuna, customer, customer_rut, payment_mode); a unique Idempotency-Key per request (autocannon setupRequest), so every request inserts an order, its key, its first history event',
  'create: dispatch runs on every order; no courier is on duty (SANDBOX_SIMULATOR=false, no couriers created), so every order is queued as `new`',
  'baseline rows: the same requests (same body, same unique key header, same paths) to bare Express answering a constant JSON',
  ...notesFromApp,
];
for (const row of rows) if (!clean(row)) notes.push(`${row.label}: ${row.result.non2xx} non-2xx / ${row.result.errors} errors — its figures are not valid`);

reportResults({ name: 'orders', title: 'Orders benchmark', settings, rows, ratios, targets, notes });
