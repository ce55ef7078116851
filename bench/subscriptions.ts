/**
 * GraphQL subscriptions benchmark: 10,000 `tracking(reference)` subscriptions over graphql-ws on one
 * app node (2,000 orders × 5 subscribers, one connection each), the order's courier reporting its
 * position once a second over its live socket (/api/v1/couriers/me/live; `--report-via http` for
 * POST /api/v1/couriers/me/location). The baseline is the public
 * tracking socket (/api/v1/tracking/<ref>/live) under the same load on the same app process, in
 * the same run: both are fed by the domain's one indexed fan-out, so the ratio is the cost of the
 * GraphQL delivery path (execution per event, graphql-ws framing) against the socket's. Targets:
 * p99 delivery < 100 ms, nothing lost, server CPU per delivered message ≤ 3× the socket's (all
 * the window's server CPU per message; the figure with the reports' own CPU — a first window with
 * the same reports and nobody watching — subtracted is printed beside it).
 * Prints the table and writes bench/results/subscriptions.json.
 *
 *   npm run bench:subscriptions -- [--duration 20] [--warmup 5] [--orders 2000] [--only reports,socket,graphql] [--runtime dist|tsx] [--report-via socket|http]
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startApp, type RunningApp } from './lib/app.js';
import { loadResultOf, startClients, warmupProfile } from './lib/clients-process.js';
import { seedAssignedOrders } from './lib/seed.js';
import { machineTicks } from './lib/load.js';
import { benchSettings } from './lib/options.js';
import type { ServerProcess } from './lib/processes.js';
import { clean, ratio, reportResults, type Ratio, type Row, type Target } from './lib/report.js';
import type { TrackingClientConfig, TrackingClientResult } from './lib/tracking-clients.js';

const { values } = parseArgs({ options: { orders: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, 'report-via': { type: 'string' } }, strict: false });
/** Couriers report over their live socket (as the courier app does), or with POST /couriers/me/location. */
const REPORT_VIA = String(values['report-via'] ?? process.env.BENCH_REPORT_VIA ?? 'socket') as 'socket' | 'http';
if (REPORT_VIA !== 'socket' && REPORT_VIA !== 'http') throw new Error(`--report-via must be socket or http, got ${REPORT_VIA}`);
const explicit = (flag: unknown, env: string | undefined) => typeof flag === 'string' || env !== undefined;
const ORDERS = Number(values.orders ?? process.env.BENCH_SUBSCRIPTION_ORDERS ?? 2000);
if (!Number.isInteger(ORDERS) || ORDERS < 10) throw new Error(`--orders must be an integer ≥ 10, got ${String(values.orders)}`);
const PER_ORDER = 5;
const SUBSCRIBERS = ORDERS * PER_ORDER;
const REPORTS_PER_SECOND = 1;
/** The app's default MAX_SOCKETS_PER_ADDRESS: respected by spreading clients over loopback addresses. */
const PER_ADDRESS = 20;
const P99_MS = 100;
const MAX_COST_RATIO = 3;
const DRAIN_S = 2;
const QUERY = 'subscription ($ref: String!) { tracking(reference: $ref) { status location { lat lng } at } }';

const common = benchSettings();
const settings = {
  ...common,
  duration: explicit(values.duration, process.env.BENCH_DURATION) ? common.duration : 20,
  warmup: explicit(values.warmup, process.env.BENCH_WARMUP) ? common.warmup : 5,
  connections: SUBSCRIBERS,
};
const wanted = (id: string) => !settings.only || settings.only.includes(id);

/**
 * 127.0.1.1, 127.0.1.2, … for the sockets and 127.1.1.1, … for GraphQL: each kind starts on fresh
 * addresses, so one kind's connections never count against the other's per-address budget.
 */
const addresses = (block: number) =>
  Array.from({ length: Math.ceil(SUBSCRIBERS / PER_ADDRESS) }, (_, i) => `127.${block}.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);
/** Courier i stands in a grid in the south of Santiago, kilometres from every pickup and drop-off (no arrival fires). */
const basePosition = (i: number) => ({ lat: -33.5 - (i % 40) * 0.002, lng: -70.7 + Math.floor(i / 40) * 0.002 });

const rows: Row[] = [];
const details: string[] = [];
const delivered = new Map<string, TrackingClientResult>();
/** Server CPU (cores) of each window, and of the reports-only window (the same reports, nobody watching). */
const cpuOf = new Map<string, number>();

/** One measured window of `subscriptions` against the app, its server CPU sampled at the window's edges. */
async function measure(id: string, label: string, server: ServerProcess, couriers: TrackingClientConfig['couriers'], subscriptions: TrackingClientConfig['subscriptions'], block: number, app?: RunningApp) {
  console.log(`measuring ${label}: connecting ${subscriptions.length} clients …`);
  let serverBefore = 0;
  let serverCpu = 0;
  let machineBefore = machineTicks();
  let machineCores = 0;
  let windowSeconds = settings.duration;
  let startedAt = 0;
  const profile = app ? warmupProfile(app) : null;
  const { result: running } = startClients(
    {
      target: 'app', reportVia: REPORT_VIA, url: server.url, couriers, subscriptions, localAddresses: addresses(block), socketsPerAddress: PER_ADDRESS,
      reportsPerSecondPerCourier: REPORTS_PER_SECOND, warmupS: settings.warmup, durationS: settings.duration, drainS: DRAIN_S,
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
  const r = await running;
  cpuOf.set(id, serverCpu);
  if (subscriptions.length === 0) {
    details.push(`${label}: server ${round2(serverCpu)} cores for ${r.reportsSent} reports (${r.reportsOk} ok) — subtracted below to get the delivery cost alone`);
    return;
  }
  const result = loadResultOf(r, { serverCpu, windowSeconds, machineCores });
  rows.push({ id, label, result, unit: 'msgs/s', ...(id === 'graphql' && { baseline: 'socket' }), ...(profile && { profile: await profile.summary() }) });
  delivered.set(id, r);
  const lost = r.expected - r.delivered;
  details.push(
    `${label}: ${r.sockets} clients (ready in ${r.connectSeconds} s), ${r.reportsSent} reports sent (${r.reportsOk} ok); ` +
      `in the window ${r.expected} messages expected, ${r.delivered} arrived within ${DRAIN_S} s of the last report (${lost} lost); ` +
      `latency ms p50 ${r.latency.p50} / p90 ${r.latency.p90} / p99 ${r.latency.p99} / p99.9 ${r.latency.p999} / max ${r.latency.max}` +
      (r.reportLatency ? `; report answer (${REPORT_VIA === 'socket' ? 'ack' : 'HTTP response'}) ms p50 ${r.reportLatency.p50} / p99 ${r.reportLatency.p99}` : '') +
      `; load generator ${r.rssMiB} MiB RSS`,
  );
}

const round2 = (n: number) => Math.round(n * 100) / 100;

console.log(`seeding ${ORDERS} couriers on duty, each with one assigned order …`);
const assigned: Array<{ token: string; trackingNumber: string }> = [];
const app = await startApp({
  merchant: { name: 'Bench Subscriptions Merchant', address: 'Av. Providencia 1234, Providencia' },
  rateLimitPerMin: 1_000_000,
  // Nothing but the couriers below moves; socket caps and public budgets stay at their defaults
  // (clients are spread over addresses to respect them).
  env: { SANDBOX_SIMULATOR: 'false', TRACKING_MAX_SOCKETS: String(Math.max(20_000, SUBSCRIBERS * 2)) },
  seed: async (container, merchant) => void assigned.push(...(await seedAssignedOrders(container, merchant, { count: ORDERS, platePrefix: 'BSU' }))),
  nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/app`] : [],
});
try {
  const couriers = assigned.map((a, i) => ({ token: a.token, base: basePosition(i) }));
  const order = (i: number) => Math.floor(i / PER_ORDER);
  if (wanted('reports')) await measure('reports', `reports only, no subscribers (${ORDERS} couriers)`, app.server, couriers, [], 2);
  if (wanted('socket')) {
    await measure('socket', `tracking socket /tracking/:ref/live (${SUBSCRIBERS} sockets, ${ORDERS} couriers)`, app.server, couriers,
      Array.from({ length: SUBSCRIBERS }, (_, i) => ({ path: `/api/v1/tracking/${assigned[order(i)]!.trackingNumber}/live`, courier: order(i) })), 0, app);
  }
  if (wanted('graphql')) {
    await measure('graphql', `GraphQL tracking subscription over graphql-ws (${SUBSCRIBERS} subscriptions, ${ORDERS} couriers)`, app.server, couriers,
      Array.from({ length: SUBSCRIBERS }, (_, i) => ({
        path: '/graphql', courier: order(i),
        graphql: { query: QUERY, variables: { ref: assigned[order(i)]!.trackingNumber }, field: 'tracking' },
      })), 1, app);
  }
  details.push(`app logged ${(app.logBytes() / 2 ** 20).toFixed(1)} MiB at LOG_LEVEL=info (one access-log line per report)`);
} finally {
  await app.stop();
}

const ratios: Ratio[] = [];
const targets: Target[] = [];
const socketRow = rows.find((r) => r.id === 'socket');
const graphqlRow = rows.find((r) => r.id === 'graphql');
const graphqlResult = delivered.get('graphql');
if (graphqlRow && graphqlResult) {
  const lost = graphqlResult.expected - graphqlResult.delivered;
  targets.push({
    label: `GraphQL delivery p99 < ${P99_MS} ms (${SUBSCRIBERS} subscriptions, ${ORDERS} reports/s)`,
    pass: graphqlRow.result.p99 < P99_MS && clean(graphqlRow),
    measured: `p99 ${graphqlRow.result.p99} ms, p50 ${graphqlRow.result.p50} ms`,
    row: 'graphql',
    p99Ms: P99_MS,
  });
  targets.push({
    label: 'GraphQL: nothing lost',
    pass: lost === 0 && clean(graphqlRow),
    measured: `${graphqlResult.delivered} of ${graphqlResult.expected} delivered`,
    row: 'graphql',
  });
}
if (socketRow && graphqlRow) {
  ratios.push(ratio(rows, 'GraphQL subscriptions / tracking socket', 'graphql', 'socket'));
  // Per delivered message: all the server CPU of the window (what the target names), and, for
  // reading, without the reports' own work (the reports-only window's CPU). With reports over the
  // courier socket that work is small, and subtracting a figure measured in another window mostly
  // subtracts that window's noise, so the whole-window figure is the one judged.
  const perMessage = (row: Row, minus = 0) => {
    const messages = delivered.get(row.id)!.receivedInWindow / settings.duration;
    return messages > 0 ? ((cpuOf.get(row.id)! - minus) * 1e6) / messages : null;
  };
  const reportsCpu = cpuOf.get('reports');
  const [socketUs, graphqlUs] = [perMessage(socketRow, reportsCpu), perMessage(graphqlRow, reportsCpu)];
  const delivery = socketUs !== null && graphqlUs !== null && socketUs > 0 && graphqlUs > 0 ? graphqlUs / socketUs : null;
  const [socketAll, graphqlAll] = [perMessage(socketRow), perMessage(graphqlRow)];
  const cost = socketAll && graphqlAll ? graphqlAll / socketAll : null;
  targets.push({
    label: `GraphQL server CPU per delivered message ≤ ${MAX_COST_RATIO}× the tracking socket's`,
    pass: cost !== null && cost <= MAX_COST_RATIO && clean(graphqlRow) && clean(socketRow),
    measured:
      (cost === null ? 'no CPU figures' : `${cost.toFixed(2)}× (${Math.round(graphqlAll!)} µs vs ${Math.round(socketAll!)} µs per message, the reports' work included)`) +
      (delivery === null ? '' : `; delivery alone ${delivery.toFixed(2)}× (${Math.round(graphqlUs!)} µs vs ${Math.round(socketUs!)} µs, the reports-only window subtracted)`),
    row: 'graphql',
  });
}

const notes = [
  `${SUBSCRIBERS} subscribers (${PER_ORDER} per order, one connection each) over ${addresses(0).length} loopback addresses (${PER_ADDRESS} each), ${ORDERS} couriers × ${REPORTS_PER_SECOND} report/s, open loop; ${settings.warmup} s warm-up, ${settings.duration} s measured per kind`,
  'one app process (src/main.ts or its build, SQLite on disk, live mode, no simulator) serves every window, one after the other in the same run: the reports alone (nobody watching), the tracking sockets, then the GraphQL subscriptions',
  `couriers report over ${REPORT_VIA === 'socket' ? 'their live socket (/api/v1/couriers/me/live, one frame per report)' : 'HTTP (POST /api/v1/couriers/me/location)'}`,
  '"rps" = position messages received per second by all subscribers during the window; "server µs/req" = server CPU per received message (the reports\' own work included, the same for both kinds)',
  `GraphQL: \`${QUERY}\` per connection (graphql-transport-ws, anonymous); a message counts when its data carries the report's location`,
  'latency = report sent → message received (load generator clock, matched by the exact latitude); it includes the report, the server, the fan-out and the load generator\'s own event loop',
  ...details,
];
for (const row of rows) if (!clean(row)) notes.push(`${row.label}: ${row.result.non2xx} non-2xx reports / ${row.result.errors} errors (report errors + clients closed) — its figures are not valid`);

reportResults({ name: 'subscriptions', title: 'GraphQL subscriptions benchmark', settings, rows, ratios, targets, notes });
