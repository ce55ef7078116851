/**
 * Orders benchmark: POST /api/v1/orders (a unique Idempotency-Key per request, so every request
 * creates an order) and GET /api/v1/orders/:id (cycling over booking ids created beforehand) of the
 * real app, beside a bare Express baseline started by this script that answers the same two
 * requests with a constant JSON. Every server runs in its own process; autocannon runs here.
 * Prints the table and writes bench/results/orders.json.
 *
 *   npm run bench:orders -- [--duration 10] [--warmup 3] [--connections 50] [--only express-create,express-read,create,read]
 */
import type autocannon from 'autocannon';
import { startApp } from './lib/app.js';
import { BASELINE_LABELS, startBaseline } from './lib/baselines.js';
import { runLoad, type LoadRequest } from './lib/load.js';
import { benchSettings } from './lib/options.js';
import type { ServerProcess } from './lib/processes.js';
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
const CREATE_RATIO = 0.4;
const READ_RATIO = 0.6;
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

async function measure(id: string, label: string, server: ServerProcess, request: LoadRequest, check: (status: number, body: string) => boolean) {
  // One request first (through the same setupRequest): the figures only count if the answer is the real one.
  const first = request.setupRequest ? request.setupRequest({ method: request.method ?? 'POST', path: new URL(request.url).pathname, headers: request.headers ?? {} }) : {};
  const url = new URL(first.path ?? new URL(request.url).pathname, request.url);
  const res = await fetch(url, { method: request.method ?? 'POST', headers: (first.headers ?? request.headers) as Record<string, string>, body: request.body ?? null });
  const text = await res.text();
  if (!check(res.status, text)) throw new Error(`${label} answered ${res.status}: ${text.slice(0, 500)}`);
  console.log(`measuring ${label} …`);
  const { connections, duration, warmup } = settings;
  const result = await runLoad({ ...request, connections, duration, warmup, serverCpuSeconds: server.cpuSeconds });
  rows.push({ id, label, result, ...(BASELINE_OF[id] && { baseline: BASELINE_OF[id] }) });
}

const JSON_HEADERS = { 'content-type': 'application/json' };

if (wanted('express-create') || wanted('express-read')) {
  const server = await startBaseline('express', { nodeArgs: cpuProfileArgs('express') });
  try {
    if (wanted('express-create')) {
      const request: LoadRequest = { url: `${server.url}/api/v1/orders`, headers: JSON_HEADERS, body: CREATE_BODY, setupRequest: uniqueKey };
      await measure('express-create', `${BASELINE_LABELS.express}: POST (constant 201)`, server, request, (status, body) => status === 201 && body.includes('"price"'));
    }
    if (wanted('express-read')) {
      const ids = Array.from({ length: READ_IDS }, (_, i) => `ord_${String(i).padStart(26, '0')}`);
      const request: LoadRequest = { url: `${server.url}/api/v1/orders/x`, method: 'GET', setupRequest: cyclePaths(ids) };
      await measure('express-read', `${BASELINE_LABELS.express}: GET /:id (constant)`, server, request, (status, body) => status === 200 && body.includes('"price"'));
    }
  } finally {
    await server.stop();
  }
}

let notesFromApp: string[] = [];
if (wanted('create') || wanted('read')) {
  // The sandbox simulator is off, so no courier is on duty: dispatch runs on every creation, finds
  // nobody in the geo index, and the order stays `new` in the queue.
  const app = await startApp({ merchant: MERCHANT, rateLimitPerMin: 1_000_000, nodeArgs: cpuProfileArgs('app'), env: { SANDBOX_SIMULATOR: 'false' } });
  try {
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${app.merchant.testKey}` };
    const ordersUrl = `${app.server.url}/api/v1/orders`;

    console.log(`creating ${READ_IDS} orders for the read measurement …`);
    const ids: string[] = [];
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

    if (wanted('create')) {
      await measure('create', 'REST POST /api/v1/orders (Form B, unique key)', app.server, { url: ordersUrl, headers, body: CREATE_BODY, setupRequest: uniqueKey }, (status, body) =>
        status === 201 && /"success":true.*"booking_id":"[^"]+".*"status":"new"/.test(body),
      );
    }
    if (wanted('read')) {
      await measure('read', 'REST GET /api/v1/orders/:booking_id', app.server, { url: `${ordersUrl}/x`, method: 'GET', headers: { authorization: headers.authorization }, setupRequest: cyclePaths(ids) }, (status, body) =>
        status === 200 && /"success":true.*"booking_id":"[^"]+"/.test(body),
      );
    }
    const createdTotal = rows.find((r) => r.id === 'create')?.result.requests ?? 0;
    notesFromApp = [
      `app logged ${(app.logBytes() / 2 ** 20).toFixed(1)} MiB at LOG_LEVEL=info to a file in its DATA_DIR (one access-log line per request)`,
      `${READ_IDS} orders created before measuring; the read row cycles over their booking ids; the create row created ${createdTotal} more (warm-up not counted)`,
    ];
  } finally {
    await app.stop();
  }
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
  'app rows: the real app (src/main.ts), durable SQLite on disk, test key, auth + per-key rate limiter (limit raised via setMerchantRateLimit) + zod',
  'create: Form B body (dropoff_address string in a comuna, customer, customer_rut, payment_mode); a unique Idempotency-Key per request (autocannon setupRequest), so every request inserts an order, its key, its first history event',
  'create: dispatch runs on every order; no courier is on duty (SANDBOX_SIMULATOR=false, no couriers created), so every order is queued as `new`',
  'baseline rows: the same requests (same body, same unique key header, same paths) to bare Express answering a constant JSON',
  ...notesFromApp,
];
for (const row of rows) if (!clean(row)) notes.push(`${row.label}: ${row.result.non2xx} non-2xx / ${row.result.errors} errors — its figures are not valid`);

reportResults({ name: 'orders', title: 'Orders benchmark', settings, rows, ratios, targets, notes });
