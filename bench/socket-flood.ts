/**
 * Issue #26's socket floods against the real app in its own process (embedded mode, LOG_LEVEL=info,
 * stdout and stderr to one log file): 4 anonymous graphql-ws sockets sending `{"type":"ping"}` as
 * fast as the server takes them, then 1 courier socket (valid token) sending refused frames; the
 * clients never read. A socket the server closes is opened again at once, so the flood lasts the
 * whole window. Prints the app's RSS growth (end and peak) and how much it logged in each window.
 * Targets (the issue's): RSS growth < 50 MB and log < 1 MB per window.
 *
 *   npm run bench:socket-flood -- [--seconds 60] [--sockets 4] [--runtime dist|tsx]
 */
import { parseArgs } from 'node:util';
import { startApp, type RunningApp } from './lib/app.js';
import { flood, rssBytes, type FloodOptions } from '../test/helpers/socket-flood.js';

const { values } = parseArgs({ options: { seconds: { type: 'string' }, sockets: { type: 'string' } }, strict: false });
const SECONDS = Number(values.seconds ?? 60);
const SOCKETS = Number(values.sockets ?? 4);
const MAX_RSS_GROWTH = 50 * 1024 * 1024;
const MAX_LOG_BYTES = 1024 * 1024;
const MiB = 1024 * 1024;

let courierToken = '';
const app = await startApp({
  merchant: { name: 'Bench Flood Merchant', address: 'Av. Providencia 1234, Providencia' },
  rateLimitPerMin: 1000,
  env: { SANDBOX_SIMULATOR: 'false' },
  seed: async (container) => {
    const created = await container.services.admin.createCourier({ input: { name: 'Flood Courier', phone: '+56987654321', vehicle: 'car', plate: 'FLOOD1', mode: 'test' } });
    courierToken = created.token;
  },
});
const ws = app.server.url.replace(/^http/, 'ws');

interface Row {
  scenario: string;
  rssGrowthMiB: number;
  peakGrowthMiB: number;
  logKiB: number;
  connections: number;
  closedByServer: number;
  refusedUpgrades: number;
  framesSent: number;
  pass: boolean;
}

/** `sockets` clients flood for the window, each opening a new socket whenever the server closes its last one. */
async function run(scenario: string, sockets: number, options: Omit<FloodOptions, 'read' | 'durationMs'>, target: RunningApp): Promise<Row> {
  const pid = target.server.pid;
  await new Promise((resolve) => setTimeout(resolve, 2000)); // settle
  const rssBefore = rssBytes(pid);
  const logBefore = target.logBytes();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 250);
  const deadline = Date.now() + SECONDS * 1000;
  const counts = { connections: 0, closedByServer: 0, refusedUpgrades: 0, framesSent: 0 };
  await Promise.all(
    Array.from({ length: sockets }, async () => {
      while (Date.now() < deadline) {
        try {
          const result = await flood({ ...options, read: false, durationMs: deadline - Date.now() });
          counts.connections++;
          counts.framesSent += result.sent;
          if (result.closed) counts.closedByServer++;
        } catch {
          // Refused at the upgrade (a spent budget, the socket cap): try again shortly.
          counts.refusedUpgrades++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 2000)); // failed writes reported, the log flushed
  clearInterval(sampler);
  const rssAfter = rssBytes(pid);
  peak = Math.max(peak, rssAfter);
  const logBytes = target.logBytes() - logBefore;
  const growth = rssAfter - rssBefore;
  return {
    scenario,
    rssGrowthMiB: +(growth / MiB).toFixed(1),
    peakGrowthMiB: +((peak - rssBefore) / MiB).toFixed(1),
    logKiB: +(logBytes / 1024).toFixed(1),
    ...counts,
    pass: peak - rssBefore < MAX_RSS_GROWTH && logBytes < MAX_LOG_BYTES,
  };
}

const rows: Row[] = [];
try {
  console.log(`${SOCKETS} anonymous graphql-ws sockets flooding pings for ${SECONDS} s …`);
  rows.push(await run(`graphql-ws pings × ${SOCKETS}`, SOCKETS, { url: `${ws}/graphql`, protocol: 'graphql-transport-ws', init: JSON.stringify({ type: 'connection_init' }), frame: JSON.stringify({ type: 'ping' }) }, app));
  console.log(`1 courier socket flooding refused frames for ${SECONDS} s …`);
  rows.push(await run('courier refused frames × 1', 1, { url: `${ws}/api/v1/couriers/me/live`, headers: { authorization: `Bearer ${courierToken}` }, frame: JSON.stringify({ type: 'hello' }) }, app));
} finally {
  await app.stop();
}
console.table(rows);
console.log(`targets: RSS growth (peak) < ${MAX_RSS_GROWTH / MiB} MiB, log < ${MAX_LOG_BYTES / 1024} KiB per window: ${rows.every((r) => r.pass) ? 'PASS' : 'MISS'}`);
