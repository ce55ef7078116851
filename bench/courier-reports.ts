/**
 * Courier position reports, HTTP against the courier socket: N couriers (each on duty with one
 * assigned order, nobody watching) report once a second, through POST /api/v1/couriers/me/location
 * or as frames on /api/v1/couriers/me/live, on the same app process in alternating windows
 * (http, socket, raw, raw, socket, http, …); `raw` sends the same frames to a plain ws server that
 * only parses and acks them (the floor of any socket report). Measures the server CPU per report and the answer time (HTTP
 * response or socket ack). Target: a socket report costs at most 0.35× an HTTP one.
 * Prints the table and writes bench/results/courier-reports.json.
 *
 *   npm run bench:courier-reports -- [--duration 10] [--warmup 3] [--couriers 2000] [--rounds 2]
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startApp } from './lib/app.js';
import { BASELINE_LABELS, startBaseline } from './lib/baselines.js';
import { startClients, warmupProfile } from './lib/clients-process.js';
import type { ProfileSummary } from './lib/profile.js';
import { machineTicks, type LoadResult } from './lib/load.js';
import { benchSettings } from './lib/options.js';
import { seedAssignedOrders } from './lib/seed.js';
import { reportResults, type Row, type Target } from './lib/report.js';

const { values } = parseArgs({ options: { couriers: { type: 'string' } }, strict: false });
const COURIERS = Number(values.couriers ?? process.env.BENCH_REPORT_COURIERS ?? 2000);
if (!Number.isInteger(COURIERS) || COURIERS < 10) throw new Error(`--couriers must be an integer ≥ 10, got ${String(values.couriers)}`);
const MAX_COST_RATIO = 0.35;
const settings = { ...benchSettings(), connections: COURIERS };
const rounds = Math.max(1, Math.ceil(settings.rounds / 2));
/** Far from every stop: no arrival fires. */
const basePosition = (i: number) => ({ lat: -33.5 - (i % 40) * 0.002, lng: -70.7 + Math.floor(i / 40) * 0.002 });

/** `raw`: the same frames to a plain ws server that only parses and acks them (bench/lib/baselines/ws-ack.ts). */
type Via = 'http' | 'socket' | 'raw';
const profiles: Record<Via, ProfileSummary | null> = { http: null, socket: null, raw: null };
const emptyTotals = () => ({ cpuSeconds: 0, seconds: 0, reports: 0, non2xx: 0, errors: 0, loadCpu: 0, otherCores: 0, p50: [] as number[], p99: [] as number[], windows: 0 });
/** Summed over the windows of each kind. */
const totals: Record<Via, ReturnType<typeof emptyTotals>> = { http: emptyTotals(), socket: emptyTotals(), raw: emptyTotals() };

console.log(`seeding ${COURIERS} couriers on duty, each with one assigned order …`);
const assigned: Array<{ token: string; trackingNumber: string }> = [];
const app = await startApp({
  merchant: { name: 'Bench Reports Merchant', address: 'Av. Providencia 1234, Providencia' },
  rateLimitPerMin: 1_000_000,
  env: { SANDBOX_SIMULATOR: 'false' },
  seed: async (container, merchant) => void assigned.push(...(await seedAssignedOrders(container, merchant, { count: COURIERS, platePrefix: 'BCR' }))),
  nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/app`] : [],
});
const rawServer = await startBaseline('wsAck');

async function window(via: Via): Promise<void> {
  console.log(`measuring reports over ${via} (${COURIERS} couriers × 1/s) …`);
  let cpuBefore = 0;
  let machineBefore = machineTicks();
  let startedAt = 0;
  const t = totals[via];
  // The first window of each kind is profiled through its warm-up.
  const profile = t.windows === 0 && via !== 'raw' ? warmupProfile(app) : null;
  const server = via === 'raw' ? rawServer : app.server;
  const { result } = startClients(
    {
      target: 'app', reportVia: via === 'http' ? 'http' : 'socket', url: server.url, subscriptions: [], localAddresses: [], socketsPerAddress: 1,
      couriers: assigned.map((a, i) => ({ token: a.token, base: basePosition(i) })),
      reportsPerSecondPerCourier: 1, warmupS: settings.warmup, durationS: settings.duration, drainS: 1,
    },
    (edge) => {
      profile?.edge(edge);
      if (edge === 'connected') return;
      if (edge === 'start') {
        startedAt = performance.now();
        cpuBefore = server.cpuSeconds();
        machineBefore = machineTicks();
        return;
      }
      const seconds = (performance.now() - startedAt) / 1000;
      const cpu = server.cpuSeconds() - cpuBefore;
      const after = machineTicks();
      t.cpuSeconds += cpu;
      t.seconds += seconds;
      if (after && machineBefore) t.otherCores += ((after.busy - machineBefore.busy) / (after.total - machineBefore.total)) * availableParallelism() - cpu / seconds;
    },
  );
  const r = await result;
  t.reports += r.reportsAnsweredInWindow;
  t.non2xx += r.reportsNon2xx;
  t.errors += r.reportErrors + r.socketsClosed;
  t.loadCpu += r.cpu;
  t.p50.push(r.reportLatency?.p50 ?? 0);
  t.p99.push(r.reportLatency?.p99 ?? 0);
  t.windows++;
  if (profile) profiles[via] = await profile.summary();
}

try {
  for (let round = 0; round < rounds; round++) {
    const order: Via[] = round % 2 === 0 ? ['http', 'socket', 'raw'] : ['raw', 'socket', 'http'];
    for (const via of order) await window(via);
  }
} finally {
  await app.stop();
  await rawServer.stop();
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const max = (xs: number[]) => Math.max(...xs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function resultOf(via: Via): LoadResult {
  const t = totals[via];
  const serverCpu = t.cpuSeconds / t.seconds;
  return {
    rps: Math.round(t.reports / t.seconds), p50: median(t.p50), p99: max(t.p99), non2xx: t.non2xx, errors: t.errors, requests: t.reports,
    serverCpu: round2(serverCpu), serverUsPerRequest: t.reports ? Math.round((t.cpuSeconds * 1e6) / t.reports) : null,
    loadCpu: round2(t.loadCpu / t.windows), otherCpu: round2(Math.max(0, (t.otherCores - t.loadCpu) / t.windows)),
  };
}
const rows: Row[] = [
  { id: 'http', label: `POST /api/v1/couriers/me/location (${COURIERS} couriers × 1/s)`, result: resultOf('http'), unit: 'reports/s', profile: profiles.http },
  { id: 'socket', label: `frames on /api/v1/couriers/me/live (${COURIERS} couriers × 1/s)`, result: resultOf('socket'), unit: 'reports/s', baseline: 'http', profile: profiles.socket },
  { id: 'raw', label: `${BASELINE_LABELS.wsAck}: the floor of a socket report (${COURIERS} sockets × 1/s)`, result: resultOf('raw'), unit: 'reports/s' },
];
const [http, socket] = [rows[0]!.result, rows[1]!.result];
const cost = http.serverUsPerRequest && socket.serverUsPerRequest ? socket.serverUsPerRequest / http.serverUsPerRequest : null;
function rawShare(): string {
  const raw = rows[2]!.result.serverUsPerRequest;
  if (!raw || !socket.serverUsPerRequest || !http.serverUsPerRequest) return '';
  return ` (here ${socket.serverUsPerRequest - raw} µs; the raw server alone is ${(raw / http.serverUsPerRequest).toFixed(3)}× an HTTP report)`;
}
const targets: Target[] = [
  {
    label: `server CPU per socket report ≤ ${MAX_COST_RATIO}× an HTTP report`,
    pass: cost !== null && cost <= MAX_COST_RATIO && http.non2xx + http.errors + socket.non2xx + socket.errors === 0,
    measured: cost === null ? 'no CPU figures' : `${cost.toFixed(3)}× (${socket.serverUsPerRequest} µs vs ${http.serverUsPerRequest} µs)`,
    row: 'socket',
    ratio: MAX_COST_RATIO,
  },
];
const notes = [
  `${COURIERS} couriers, each on duty with one assigned order and nobody watching it, 1 report/s each, open loop; ${rounds} round(s) of alternating windows (${settings.warmup} s warm-up + ${settings.duration} s measured each)`,
  'one app process (compiled build unless --runtime tsx, SQLite on disk, live mode, LOG_LEVEL=info: one access-log line per HTTP report, none per frame) serves every window',
  '"rps" = reports answered per second; "server µs/req" = server CPU per answered report; p50/p99 = HTTP response or socket ack time (median and worst of the windows)',
  'both paths run the same domain work per report: budget, validation, the courier as stored now, the coalesced position write (POSITION_FLUSH_MS, default 1 s), the active order, the courier-location webhook check, the bus message and the fan-out (nobody watching)',
  `the raw row is a plain ws server (its own process) that parses each frame and acks it: the frame read, the ack write and the event loop that any socket report pays; the app socket's own work is the difference${rawShare()}`,
  'bench/courier-report-micro.ts measures the app work of a frame in one process, stage by stage',
];
reportResults({ name: 'courier-reports', title: 'Courier position reports: HTTP vs the courier socket', settings, rows, ratios: [], targets, notes });
