/**
 * Tracking fan-out benchmark: 20,000 public tracking sockets (/api/v1/tracking/<ref>/live) on one
 * app node, 10 per order, and 2,000 couriers (each on duty with one assigned order) reporting their
 * position once a second over their live socket (/api/v1/couriers/me/live; `--report-via http`
 * for POST /api/v1/couriers/me/location). Measures fan-out latency
 * (report sent → frame received, see bench/lib/tracking-clients.ts) and delivered frames/s, beside
 * a raw `ws` broadcast server with the same sockets and rate (bench/lib/baselines/ws-broadcast.ts).
 * Servers and the load generator each run in their own process; this process only orchestrates.
 * Prints the table and writes bench/results/tracking.json.
 *
 *   npm run bench:tracking -- [--duration 20] [--warmup 5] [--couriers 2000] [--viewers-per-order 10] [--report-via socket|http] [--only ws,app]
 *   (BENCH_TRACKING_COURIERS, BENCH_TRACKING_VIEWERS_PER_ORDER, BENCH_REPORT_VIA; the 50-connection flags do not apply)
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startApp, type RunningApp } from './lib/app.js';
import { loadResultOf, startClients, warmupProfile } from './lib/clients-process.js';
import { seedAssignedOrders } from './lib/seed.js';
import { BASELINE_LABELS, startBaseline } from './lib/baselines.js';
import { benchSettings } from './lib/options.js';
import type { ServerProcess } from './lib/processes.js';
import { clean, ratio, reportResults, rowById, type Ratio, type Row, type Target } from './lib/report.js';
import type { TrackingClientConfig, TrackingClientResult } from './lib/tracking-clients.js';

const { values } = parseArgs({
  options: { couriers: { type: 'string' }, 'viewers-per-order': { type: 'string' }, 'report-via': { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' } },
  strict: false,
});
const explicit = (flag: unknown, env: string | undefined) => typeof flag === 'string' || env !== undefined;
const WANTED_COURIERS = Number(values.couriers ?? process.env.BENCH_TRACKING_COURIERS ?? 2000);
if (!Number.isInteger(WANTED_COURIERS) || WANTED_COURIERS < 10) throw new Error(`--couriers must be an integer ≥ 10, got ${String(values.couriers)}`);
const SOCKETS_PER_ORDER = Number(values['viewers-per-order'] ?? process.env.BENCH_TRACKING_VIEWERS_PER_ORDER ?? 10);
if (!Number.isInteger(SOCKETS_PER_ORDER) || SOCKETS_PER_ORDER < 1) throw new Error(`--viewers-per-order must be a positive integer`);
/**
 * The server and the load generator each hold every viewer and courier socket: both must fit under
 * the open-file limit the processes inherit (a container may not let even root raise it), with
 * room for the store's files and the listener. Fewer couriers are measured when it does not fit.
 */
const FD_LIMIT = openFileLimit();
const COURIERS = Math.min(WANTED_COURIERS, Math.floor((FD_LIMIT - 500) / (SOCKETS_PER_ORDER + 1)));
if (COURIERS < WANTED_COURIERS) {
  console.log(`open-file limit ${FD_LIMIT}: measuring ${COURIERS} couriers × ${SOCKETS_PER_ORDER} viewers instead of ${WANTED_COURIERS} (raise \`ulimit -n\` for the full size)`);
}
/** Couriers report over their live socket (as the courier app does), or with POST /couriers/me/location. */
const REPORT_VIA = String(values['report-via'] ?? process.env.BENCH_REPORT_VIA ?? 'socket') as 'socket' | 'http';
if (REPORT_VIA !== 'socket' && REPORT_VIA !== 'http') throw new Error(`--report-via must be socket or http, got ${REPORT_VIA}`);
/** Server CPU per delivered frame, at most this many times the raw ws server's. */
const MAX_COST_RATIO = 3;
const SOCKETS = COURIERS * SOCKETS_PER_ORDER;
const REPORTS_PER_SECOND = 1;
/** The app's default MAX_SOCKETS_PER_ADDRESS: respected by spreading sockets over loopback addresses. */
const SOCKETS_PER_ADDRESS = 20;
const P99_MS = 100;
const MIN_RATIO = 0.5;
const DRAIN_S = 2;

const common = benchSettings();
// This benchmark's own defaults (20 s measured, 5 s warm-up) unless the flags or env set them.
const settings = {
  ...common,
  duration: explicit(values.duration, process.env.BENCH_DURATION) ? common.duration : 20,
  warmup: explicit(values.warmup, process.env.BENCH_WARMUP) ? common.warmup : 5,
  connections: SOCKETS,
};
const wanted = (id: string) => !settings.only || settings.only.includes(id);

/** 127.0.1.1, 127.0.1.2, …: every 127/8 address is local on Linux, each with its own port range. */
const localAddresses = Array.from({ length: Math.ceil(SOCKETS / SOCKETS_PER_ADDRESS) }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);
/** Courier i stands in a grid in the south of Santiago, kilometres from every pickup and drop-off (no arrival fires). */
const basePosition = (i: number) => ({ lat: -33.5 - (i % 40) * 0.002, lng: -70.7 + Math.floor(i / 40) * 0.002 });

/** This process's soft limit of open files (children inherit it). */
function openFileLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s+/)[3]);
    return Number.isFinite(soft) && soft > 0 ? soft : Infinity;
  } catch {
    return Infinity;
  }
}

/** Busy and total CPU ticks of the whole machine (first line of /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

const rows: Row[] = [];
const details: string[] = [];

/** Runs the load generator against `server` and turns its figures into a row. */
async function measure(id: string, label: string, server: ServerProcess, config: Omit<TrackingClientConfig, 'warmupS' | 'durationS' | 'drainS' | 'localAddresses' | 'socketsPerAddress' | 'reportsPerSecondPerCourier' | 'url'>, app?: RunningApp) {
  console.log(`measuring ${label}: connecting ${config.subscriptions.length} sockets …`);
  let serverBefore = 0;
  let serverCpu = 0;
  let machineBefore = machineTicks();
  let machineCores = 0;
  let windowSeconds = settings.duration;
  let startedAt = 0;
  const profile = app ? warmupProfile(app) : null;
  const client = startClients(
    {
      ...config, url: server.url, localAddresses, socketsPerAddress: SOCKETS_PER_ADDRESS, reportsPerSecondPerCourier: REPORTS_PER_SECOND,
      warmupS: settings.warmup, durationS: settings.duration, drainS: DRAIN_S,
    },
    (edge) => {
      profile?.edge(edge);
      if (edge === 'connected') return;
      if (edge === 'start') {
        console.log(`  reporting; measuring ${settings.duration} s …`);
        startedAt = performance.now();
        serverBefore = server.cpuSeconds();
        machineBefore = machineTicks();
        return;
      }
      windowSeconds = (performance.now() - startedAt) / 1000;
      serverCpu = (server.cpuSeconds() - serverBefore) / windowSeconds;
      const after = machineTicks();
      if (after && machineBefore) machineCores = ((after.busy - machineBefore.busy) / (after.total - machineBefore.total)) * availableParallelism();
    },
  );
  const r = await client.result;
  const result = loadResultOf(r, { serverCpu, windowSeconds, machineCores });
  rows.push({ id, label, result, unit: 'msgs/s', ...(id === 'app' && { baseline: 'ws' }), ...(profile && { profile: await profile.summary() }) });
  const lost = r.expected - r.delivered;
  details.push(
    `${label}: ${r.sockets} sockets (ready in ${r.connectSeconds} s), ${r.reportsSent} reports sent (${r.reportsOk} ok); ` +
      `in the window ${r.expected} frames expected, ${r.delivered} arrived within ${DRAIN_S} s of the last report (${lost} lost, ${pct(lost, r.expected)}); ` +
      `latency ms p50 ${r.latency.p50} / p90 ${r.latency.p90} / p99 ${r.latency.p99} / p99.9 ${r.latency.p999} / max ${r.latency.max}` +
      (r.reportLatency ? `; report answer ms p50 ${r.reportLatency.p50} / p99 ${r.reportLatency.p99}` : '') +
      `; load generator ${r.rssMiB} MiB RSS`,
  );
  return r;
}

const pct = (part: number, whole: number) => (whole ? `${((part / whole) * 100).toFixed(2)} %` : '-');

let wsDelivered: TrackingClientResult | null = null;
let appDelivered: TrackingClientResult | null = null;
if (wanted('ws')) {
  const server = await startBaseline('ws');
  try {
    wsDelivered = await measure('ws', `${BASELINE_LABELS.ws} (${SOCKETS} sockets, ${COURIERS} publishers)`, server, {
      target: 'raw',
      couriers: Array.from({ length: COURIERS }, (_, i) => ({ token: null, base: basePosition(i) })),
      subscriptions: Array.from({ length: SOCKETS }, (_, i) => ({ path: `/sub/${Math.floor(i / SOCKETS_PER_ORDER)}`, courier: Math.floor(i / SOCKETS_PER_ORDER) })),
    });
  } finally {
    await server.stop();
  }
}

if (wanted('app')) {
  console.log(`seeding ${COURIERS} couriers on duty, each with one assigned order …`);
  const assigned: Array<{ token: string; trackingNumber: string }> = [];
  const app = await startApp({
    merchant: { name: 'Bench Tracking Merchant', address: 'Av. Providencia 1234, Providencia' },
    rateLimitPerMin: 1_000_000,
    // No simulator: nothing but the couriers below moves. Socket caps and rate limits stay at their
    // defaults: 20 sockets per address (MAX_SOCKETS_PER_ADDRESS and the public per-address budget),
    // one report a second per courier (≤ COURIER_RATE_LIMIT_PER_MIN).
    env: { SANDBOX_SIMULATOR: 'false', TRACKING_MAX_SOCKETS: String(Math.max(20_000, SOCKETS * 2)) },
    seed: async (container, merchant) => void assigned.push(...(await seedAssignedOrders(container, merchant, { count: COURIERS, platePrefix: 'BCH' }))),
    nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/app`] : [],
  });
  try {
    appDelivered = await measure('app', `position fan-out to /tracking/:ref/live (${SOCKETS} sockets, ${COURIERS} couriers)`, app.server, {
      target: 'app',
      reportVia: REPORT_VIA,
      couriers: assigned.map((a, i) => ({ token: a.token, base: basePosition(i) })),
      subscriptions: Array.from({ length: SOCKETS }, (_, i) => {
        const courier = Math.floor(i / SOCKETS_PER_ORDER);
        return { path: `/api/v1/tracking/${assigned[courier]!.trackingNumber}/live`, courier };
      }),
    }, app);
    details.push(`app logged ${(app.logBytes() / 2 ** 20).toFixed(1)} MiB at LOG_LEVEL=info (one access-log line per report)`);
  } finally {
    await app.stop();
  }
}

const ratios: Ratio[] = [];
if (rows.length === 2) ratios.push(ratio(rows, 'app fan-out / raw ws broadcast', 'app', 'ws'));

const targets: Target[] = [];
if (appDelivered) {
  const appRow = rowById(rows, 'app');
  const complete = appDelivered.delivered === appDelivered.expected;
  targets.push({
    label: `fan-out latency p99 < ${P99_MS} ms (${SOCKETS} sockets, ${COURIERS} reports/s)`,
    pass: appRow.result.p99 < P99_MS && clean(appRow),
    measured: `p99 ${appRow.result.p99} ms, p50 ${appRow.result.p50} ms`,
    row: 'app',
    p99Ms: P99_MS,
  });
  if (wsDelivered) {
    const r = ratios[0]!;
    targets.push({
      label: `delivered msgs/s ≥ ${MIN_RATIO}× the raw ws broadcast baseline, nothing lost`,
      pass: r.value >= MIN_RATIO && clean(appRow) && complete,
      measured: `${r.value.toFixed(3)}× by msgs/s${r.costValue === null ? '' : `, ${r.costValue.toFixed(3)}× by server CPU per message`}${complete ? '' : `; ${appDelivered.expected - appDelivered.delivered} frames lost`}`,
      row: 'app',
      ratio: MIN_RATIO,
    });
    // costValue = raw ws µs per frame / app µs per frame.
    const cost = r.costValue === null ? null : 1 / r.costValue;
    targets.push({
      label: `server CPU per delivered frame ≤ ${MAX_COST_RATIO}× the raw ws server's`,
      pass: cost !== null && cost <= MAX_COST_RATIO && clean(appRow) && complete,
      measured: cost === null ? 'no CPU figures' : `${cost.toFixed(2)}× (${appRow.result.serverUsPerRequest} µs vs ${rowById(rows, 'ws').result.serverUsPerRequest} µs)`,
      row: 'app',
    });
  }
}

const notes = [
  ...(COURIERS < WANTED_COURIERS ? [`asked for ${WANTED_COURIERS} couriers × ${SOCKETS_PER_ORDER} viewers; this machine's open-file limit (${FD_LIMIT}; the container refuses to raise it, even for root) fits ${COURIERS} in one process`] : []),
  `${SOCKETS} sockets (${SOCKETS_PER_ORDER} per order) over ${localAddresses.length} loopback addresses (${SOCKETS_PER_ADDRESS} each), ${COURIERS} couriers × ${REPORTS_PER_SECOND} report/s, open loop; ${settings.warmup} s warm-up, ${settings.duration} s measured`,
  'servers and the load generator each run in their own process; "autocannon CPU" = the load generator process (sockets + reporters), no autocannon here',
  '"rps" = position frames received per second by all sockets during the window; "server µs/req" = server CPU per received frame',
  'latency = report sent (load generator clock) → frame received on a socket (same clock); the frame is matched to its report by its exact latitude (6th decimal = report sequence); it includes the report, the server, the fan-out and the load generator\'s own event-loop delays',
  `app: the compiled build unless --runtime tsx (SQLite on disk, live mode, no simulator); couriers report ${REPORT_VIA === 'socket' ? 'over their live socket (/api/v1/couriers/me/live)' : 'with POST /api/v1/couriers/me/location'}; each report = budget + zod + the courier as stored + coalesced position write + active-order read + bus publish + fan-out to ${SOCKETS_PER_ORDER} sockets${REPORT_VIA === 'http' ? ' + HTTP auth and an access log line' : ''}`,
  `raw ws: couriers publish over one ws each (no auth, no storage); the server re-encodes each as the app's position frame and sends it to the ${SOCKETS_PER_ORDER} subscribers`,
  'at a fixed offered rate both deliver the same msgs/s while they keep up, so the msgs/s ratio is ~1 until the app saturates; the server-CPU-per-message ratio is the capacity comparison',
  ...details,
];
for (const row of rows) if (!clean(row)) notes.push(`${row.label}: ${row.result.non2xx} non-2xx reports / ${row.result.errors} errors (report errors + sockets closed) — its figures are not valid`);

reportResults({ name: 'tracking', title: 'Tracking fan-out benchmark', settings, rows, ratios, targets, notes });
