/**
 * Sign-in under attack (issue #26 item 2): what one anonymous sign-in costs the server, and what a
 * burst of 100 concurrent anonymous sign-in attempts does to everyone else's requests. One app
 * process (TRUST_PROXY=127.0.0.1, so each attempt can come from an address of its own, as from a
 * botnet: no per-address budget or lockout stops them). Order reads (REST GET /api/v1/orders/:id,
 * an API key) are measured alone and while waves of 100 concurrent sign-ins (unknown emails, wrong
 * passwords; the next wave once all answered) run, in alternating windows. Target: the reads' p99
 * under the burst ≤ 2× alone. Prints figures only.
 *
 *   npm run bench:sign-in -- [--duration 20] [--rounds 4] [--connections 50] [--burst 100] [--runtime tsx]
 *   (order reads use connections / 5)
 */
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { startApp } from './lib/app.js';
import { machineTicks, mergedPercentile } from './lib/load.js';
import { benchSettings } from './lib/options.js';

const { values } = parseArgs({ options: { burst: { type: 'string' } }, strict: false });
const BURST = Number(values.burst ?? 100);
const settings = benchSettings();
const readConnections = Math.max(1, Math.round(settings.connections / 5));
const TARGET_RATIO = 2;
const ORDER_BODY = JSON.stringify({ customer_name: 'Camila Rojas', customer_phone: '+56 9 8765 4321', dropoff_address: 'Av. Apoquindo 4501, Las Condes', payment_mode: 'prepaid' });
const LOG_IN = 'mutation ($input: LogInInput!) { logIn(input: $input) { __typename ... on AppError { code } } }';

const app = await startApp({
  merchant: { name: 'Sign-in bench', address: 'Av. Providencia 1234, Providencia' },
  rateLimitPerMin: 1_000_000,
  env: { SANDBOX_SIMULATOR: 'false', TRUST_PROXY: '127.0.0.1' },
});

/**
 * The attackers: waves of BURST concurrent anonymous sign-ins (unknown emails, each attempt from an
 * address of its own), the next wave once all answered. In a process of their own, so that their
 * fetch work never delays autocannon's event loop (the reads' latencies are measured there).
 */
const ATTACKER_SOURCE = `
const parentPort = { on: (event, listener) => process.on(event, listener), postMessage: (message) => process.send(message) };
const workerData = JSON.parse(process.env.SIGN_IN_ATTACK);
const { url, merchantId, burst, query } = workerData;
let n = workerData.firstAttempt, running = false;
const answers = {};
async function attempt() {
  const i = n++;
  const res = await fetch(url + '/graphql', { method: 'POST',
    headers: { 'content-type': 'application/json', 'x-graphql-csrf': '1', 'x-forwarded-for': '10.' + ((i >> 16) & 255) + '.' + ((i >> 8) & 255) + '.' + (i & 255) },
    body: JSON.stringify({ query, variables: { input: { merchantId, email: 'nobody' + i + '@tienda.cl', password: 'a wrong password' } } }) });
  const body = await res.json();
  return (body.data && body.data.logIn && body.data.logIn.code) || 'HTTP ' + res.status;
}
parentPort.on('message', async (command) => {
  if (command === 'stop') { running = false; return; }
  running = true;
  while (running) for (const code of await Promise.all(Array.from({ length: burst }, attempt))) answers[code] = (answers[code] || 0) + 1;
  parentPort.postMessage({ answers, attempts: n });
  for (const code in answers) delete answers[code];
});
`;

let attemptNo = 0;
/** One anonymous sign-in from an address of its own (here, between windows); answers its code. */
async function signInOnce(): Promise<string> {
  const n = attemptNo++;
  const from = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const res = await fetch(`${app.server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-graphql-csrf': '1', 'x-forwarded-for': from },
    body: JSON.stringify({ query: LOG_IN, variables: { input: { merchantId: app.merchant.merchantId, email: `nobody${n}@tienda.cl`, password: 'a wrong password' } } }),
  });
  const body = (await res.json()) as { data?: { logIn?: { code?: string } }; errors?: Array<{ extensions?: { code?: string } }> };
  return body.data?.logIn?.code ?? body.errors?.[0]?.extensions?.code ?? `HTTP ${res.status}`;
}

const attackers = spawn(process.execPath, ['-e', ATTACKER_SOURCE], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  env: { PATH: process.env.PATH ?? '', SIGN_IN_ATTACK: JSON.stringify({ url: app.server.url, merchantId: app.merchant.merchantId, burst: BURST, query: LOG_IN, firstAttempt: 1_000_000 }) },
});
/** Starts the waves; `stop` resolves with the answers counted since the start. */
function startBurst() {
  attackers.send('start');
  return {
    stop: () => {
      const counted = new Promise<{ answers: Record<string, number> }>((resolve) => attackers.once('message', (m) => resolve(m as { answers: Record<string, number> })));
      attackers.send('stop');
      return counted.then((m) => m.answers);
    },
  };
}

async function readWindow(url: string, headers: Record<string, string>, seconds: number): Promise<{ latencies: number[]; requests: number; non2xx: number; serverCpu: number; otherCores: number }> {
  const cpuBefore = app.server.cpuSeconds();
  const machineBefore = machineTicks();
  const loadBefore = process.cpuUsage();
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, method: 'GET', headers, connections: readConnections, duration: seconds, pipelining: 1 }, (error, r) => (error ? reject(error) : resolve(r)));
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  const serverCpu = app.server.cpuSeconds() - cpuBefore;
  const load = process.cpuUsage(loadBefore);
  const machineAfter = machineTicks();
  const machineBusy = machineBefore && machineAfter ? ((machineAfter.busy - machineBefore.busy) / 100) : NaN;
  return { latencies, requests: result.requests.total, non2xx: result.non2xx, serverCpu, otherCores: (machineBusy - serverCpu - (load.user + load.system) / 1e6) / result.duration };
}

try {
  const created = await fetch(`${app.server.url}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.merchant.testKey}`, 'idempotency-key': `sign-in-bench-${Date.now()}` }, body: ORDER_BODY });
  const { booking_id: orderId } = (await created.json()) as { booking_id: string };
  if (!orderId) throw new Error(`order not created: ${created.status}`);
  const readUrl = `${app.server.url}/api/v1/orders/${orderId}`;
  const readHeaders = { authorization: `Bearer ${app.merchant.testKey}` };

  // The cost of one sign-in: sequential attempts (the decoy hash made first), server CPU per attempt.
  await signInOnce();
  const SEQUENTIAL = 10;
  const cpuBefore = app.server.cpuSeconds();
  const startedAt = performance.now();
  for (let i = 0; i < SEQUENTIAL; i++) await signInOnce();
  const perSignInMs = ((app.server.cpuSeconds() - cpuBefore) / SEQUENTIAL) * 1000;
  const wallMs = (performance.now() - startedAt) / SEQUENTIAL;
  console.log(`one anonymous sign-in: ${perSignInMs.toFixed(0)} ms of server CPU (${wallMs.toFixed(0)} ms answer time, one at a time)`);

  // Warm-up of both (JIT, the read path's caches).
  await readWindow(readUrl, readHeaders, settings.warmup);
  const warm = startBurst();
  await new Promise((resolve) => setTimeout(resolve, settings.warmup * 1000));
  await warm.stop();

  const windowSeconds = settings.duration / settings.rounds;
  const alone: Awaited<ReturnType<typeof readWindow>>[] = [];
  const under: Awaited<ReturnType<typeof readWindow>>[] = [];
  const burstAnswers: Record<string, number> = {};
  let burstSeconds = 0;
  console.log(`order reads at ${readConnections} connections, alone vs under waves of ${BURST} concurrent sign-ins: ${settings.rounds} windows of ${windowSeconds} s each …`);
  for (let round = 0; round < settings.rounds; round++) {
    for (const withBurst of round % 2 === 0 ? [false, true] : [true, false]) {
      if (!withBurst) {
        alone.push(await readWindow(readUrl, readHeaders, windowSeconds));
        continue;
      }
      const burst = startBurst();
      const began = performance.now();
      under.push(await readWindow(readUrl, readHeaders, windowSeconds));
      const answers = await burst.stop();
      burstSeconds += (performance.now() - began) / 1000;
      for (const [code, n] of Object.entries(answers)) burstAnswers[code] = (burstAnswers[code] ?? 0) + n;
    }
  }
  const describe = (label: string, windows: typeof alone) => {
    const requests = windows.reduce((s, w) => s + w.requests, 0);
    const cpu = windows.reduce((s, w) => s + w.serverCpu, 0);
    const other = windows.reduce((s, w) => s + w.otherCores, 0) / windows.length;
    const p99 = mergedPercentile(windows, 99);
    console.log(
      `${label.padEnd(34)} ${String(Math.round(requests / (windows.length * windowSeconds))).padStart(6)} reads/s  p50 ${String(mergedPercentile(windows, 50)).padStart(5)} ms  p99 ${String(p99).padStart(6)} ms  server ${(cpu / (windows.length * windowSeconds)).toFixed(2)} cores  other load ${other.toFixed(2)} cores  non-2xx ${windows.reduce((s, w) => s + w.non2xx, 0)}`,
    );
    return p99;
  };
  const p99Alone = describe('order reads alone', alone);
  const p99Under = describe(`order reads under ${BURST}-sign-in waves`, under);
  const attempts = Object.values(burstAnswers).reduce((a, b) => a + b, 0);
  console.log(`sign-in attempts during the burst windows: ${attempts} (${(attempts / burstSeconds).toFixed(0)}/s): ${JSON.stringify(burstAnswers)}`);
  const ratio = p99Under / p99Alone;
  console.log(`p99 under the burst / alone: ${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO}×): ${ratio <= TARGET_RATIO ? 'PASS' : 'MISS'}`);
} finally {
  attackers.kill();
  await app.stop();
}
