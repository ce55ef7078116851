/**
 * Webhook benchmark: signed deliveries per second from the real app's worker to a node:http
 * receiver on loopback. N orders are created first (one order.status_changed delivery each) on a
 * SQLite file in a temp DATA_DIR, with no worker running; then the app starts in its
 * own process and its worker drains the backlog while the receiver (in this process) answers 204.
 * Afterwards every receipt is verified with the `standardwebhooks` package and the delivery log is
 * read for the attempt latencies. The app runs compiled (`dist/`, built first when stale) unless `--runtime tsx`. Prints the table and writes bench/results/webhooks.json.
 *
 *   npm run bench:webhooks -- [--orders 5000]     (or BENCH_WEBHOOK_ORDERS; other bench flags are ignored)
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../src/config.js';
import { buildContainer } from '../src/container.js';
import { machineTicks, type LoadResult } from './lib/load.js';
import { appScript } from './lib/app.js';
import { inspectorUrlFrom, profileWhile, summarizeProfile, type ProfileSummary } from './lib/profile.js';
import { spawnServer } from './lib/processes.js';
import { reportResults, type Target } from './lib/report.js';

const { values } = parseArgs({ options: { orders: { type: 'string' } }, strict: false });
const ORDERS = Number(values.orders ?? process.env.BENCH_WEBHOOK_ORDERS ?? 5000);
if (!Number.isInteger(ORDERS) || ORDERS < 100) throw new Error(`--orders must be an integer ≥ 100, got ${String(values.orders)}`);
/** The runner claims this many deliveries per round and sends them concurrently (src/webhook-runner.ts). */
const WORKER_BATCH = 50;
const TARGET_PER_SECOND = 1000;

const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
const appEnv = { DATA_DIR: dataDir, SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info' };

// --- The receiver: records arrival time, headers and body; answers 204 --------------------------

interface Receipt {
  at: number;
  headers: Record<string, string>;
  body: string;
}
const receipts = new Map<string, Receipt[]>();
let received = 0;
let firstAt = 0;
let lastAt = 0;
let onFirst: () => void = () => {};
let onAll: () => void = () => {};
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    if (received === 0) {
      firstAt = at;
      onFirst();
    }
    lastAt = at;
    received++;
    const headers = req.headers as Record<string, string>;
    const id = headers['webhook-id'] ?? '';
    receipts.set(id, [...(receipts.get(id) ?? []), { at, headers, body: Buffer.concat(chunks).toString('utf8') }]);
    res.writeHead(204).end();
    if (receipts.size === ORDERS) onAll();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

// --- Seed: a merchant, a sandbox endpoint, N orders (the outbox writes one delivery each) -------

console.log(`seeding ${ORDERS} orders …`);
const seedStarted = performance.now();
const container = await buildContainer(loadConfig(appEnv), { logger: pino({ level: 'silent' }) });
let apiSecret: string;
let merchantId: string;
try {
  const { admin, auth, orders, webhookEndpoints } = container.services;
  const created = await admin.createMerchant({ input: { name: 'Bench Webhooks', address: 'Av. Providencia 1234, Providencia' } });
  apiSecret = created.apiSecret;
  merchantId = created.merchantId;
  const principal = await auth.authenticateApiKey({ apiKey: created.testKey });
  await webhookEndpoints.createEndpoint({ principal, input: { url: receiverUrl, events: ['order.status_changed'] } });
  for (let i = 0; i < ORDERS; i++) {
    await orders.createOrder({
      principal,
      input: {
        pickup: { address: 'Av. Providencia 1234', coords: { lat: -33.4214, lng: -70.6033 } },
        dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: { lat: -33.4154, lng: -70.5837 } },
        customerName: 'Bench Customer',
        customerPhone: '+56912345678',
        referenceId: `BENCH-${i}`,
        items: [{ name: 'Box', quantity: 1, weight_kg: 1 }],
      },
    });
  }
} finally {
  await container.close();
}
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; starting the app, whose worker drains the backlog …`);

// --- Drain: the app starts; time from the first receipt to the last -----------------------------

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const firstReceipt = new Promise<void>((resolve) => (onFirst = resolve));
const allReceived = new Promise<void>((resolve) => (onAll = resolve));
// BENCH_PROFILE=1 (the profiling pass of npm run bench): the drain runs under a CPU profile taken over the inspector.
const profiling = process.env.BENCH_PROFILE === '1';
const appLog = join(dataDir, 'app.log');
const nodeArgs = [...(profiling ? ['--inspect=127.0.0.1:0'] : []), ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/app`] : [])];
const server = await spawnServer({ script: appScript(), env: { ...appEnv, PORT: '0', HOST: '127.0.0.1' }, ready: 'log', logFile: appLog, nodeArgs });
let profile: ProfileSummary | null = null;
let result: LoadResult;
let drainSeconds: number;
const failures: string[] = [];
let latencies: number[] = [];
try {
  if (!(await within(firstReceipt, 30_000))) throw new Error('no delivery arrived within 30 s of the app starting');
  const serverCpuBefore = server.cpuSeconds();
  const benchCpuBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const drain = () => within(allReceived, 120_000);
  const inspector = profiling ? inspectorUrlFrom(appLog) : null;
  let drained: boolean;
  if (inspector) {
    const profiled = await profileWhile(inspector, drain);
    drained = profiled.result;
    profile = summarizeProfile(profiled.profile);
  } else drained = await drain();
  if (!drained) failures.push(`timed out: ${receipts.size}/${ORDERS} deliveries received after 120 s`);
  const serverCpu = server.cpuSeconds() - serverCpuBefore;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const machineAfter = machineTicks();
  drainSeconds = (lastAt - firstAt) / 1000;
  const benchCores = (benchCpu.user + benchCpu.system) / 1e6 / drainSeconds;
  const machineCores =
    machineBefore && machineAfter ? ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * availableParallelism() : null;

  // The figures count only if every delivery arrived once, signed correctly, and the log agrees.
  const verifier = new Webhook(apiSecret);
  let duplicates = 0;
  for (const [id, list] of receipts) {
    if (list.length > 1) duplicates += list.length - 1;
    try {
      verifier.verify(list[0]!.body, list[0]!.headers);
    } catch (error) {
      failures.push(`${id}: ${(error as Error).message}`);
    }
  }
  if (duplicates > 0) failures.push(`${duplicates} duplicate receipts`);
  const reader = await buildContainer(loadConfig(appEnv), { logger: pino({ level: 'silent' }) });
  try {
    const log = await reader.store.webhooks.listDeliveries({ merchantId, mode: 'test', limit: ORDERS + 1 });
    const undelivered = log.filter((d) => d.status !== 'delivered').length;
    if (log.length !== ORDERS || undelivered > 0) failures.push(`delivery log: ${log.length} deliveries, ${undelivered} not delivered`);
    for (const d of log) latencies.push(...(await reader.store.webhooks.listAttempts(d.id)).map((a) => a.latencyMs));
  } finally {
    await reader.close();
  }
  latencies = latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  const perSecond = Math.round((received - 1) / drainSeconds);
  result = {
    rps: perSecond,
    p50: pct(50),
    p99: pct(99),
    non2xx: 0,
    errors: failures.length,
    requests: received,
    serverCpu: Math.round((serverCpu / drainSeconds) * 100) / 100,
    serverUsPerRequest: Math.round((serverCpu * 1e6) / received),
    loadCpu: Math.round(benchCores * 100) / 100,
    otherCpu: machineCores === null ? null : Math.round(Math.max(0, machineCores - serverCpu / drainSeconds - benchCores) * 100) / 100,
  };
} finally {
  await server.stop();
  receiver.closeAllConnections();
  receiver.close();
  if (!process.env.BENCH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
}

const clean = failures.length === 0;
const targets: Target[] = [
  { label: `≥ ${TARGET_PER_SECOND.toLocaleString('en')} signed deliveries/s to a loopback receiver`, pass: clean && result.rps >= TARGET_PER_SECOND, measured: `${result.rps}/s`, row: 'webhooks' },
];
const notes = [
  `${ORDERS} order.status_changed deliveries seeded before the app started, drained in ${drainSeconds.toFixed(2)} s (first to last receipt)`,
  `"rps" = deliveries per second; p50/p99 = attempt latency (request to response) from the delivery log, in ms`,
  `"connections" = the worker's round size: ${WORKER_BATCH} deliveries claimed per round and sent concurrently, a new connection each`,
  'each delivery: lease (claim), secrets decrypted, HMAC-SHA256 signed, POSTed, attempt recorded (one SQLite transaction)',
  'server = the app process (compiled unless --runtime tsx, SQLite on disk); "autocannon CPU" here = this process: the node:http receiver',
  'every receipt verified afterwards with the standardwebhooks package (not timed)',
  ...failures.slice(0, 10).map((f) => `FAILED CHECK: ${f}`),
];
reportResults({
  name: 'webhooks',
  title: 'Webhook delivery benchmark',
  settings: { connections: WORKER_BATCH, duration: Math.round(drainSeconds * 100) / 100, warmup: 0, rounds: 1, only: null },
  rows: [{ id: 'webhooks', label: 'signed webhook deliveries (backlog drain)', result, unit: 'deliveries/s', profile }],
  ratios: [],
  targets,
  notes,
});
if (!clean) process.exitCode = 1;
