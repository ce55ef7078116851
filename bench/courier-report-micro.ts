/**
 * Micro-benchmark of a courier socket frame's stages in one process (issue #18 item 1: where a
 * socket report's server CPU goes besides the socket itself): parsing the frame, the budget, the
 * position command, the domain's report (courier read, coalesced position write, active order,
 * live ETA, courier-location webhook check, bus message) and the ack. CPU µs per call on a real
 * SQLite file, N couriers each with one assigned order, reports far from any stop. Not part of
 * `npm run bench`. "no session held" reads the courier and its orders per report (what the
 * socket did before courier snapshots); "session held" is what an open socket does now.
 *
 *   npx tsx bench/courier-report-micro.ts [--couriers 500] [--seconds 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { buildContainer } from '../src/container.js';
import { reportPositionCommand } from '../src/edge/position-wire.js';
import { seedAssignedOrders } from './lib/seed.js';

const { values } = parseArgs({ options: { couriers: { type: 'string' }, seconds: { type: 'string' } }, strict: false });
const COURIERS = Number(values.couriers ?? 500);
const SECONDS = Number(values.seconds ?? 2);

const dataDir = mkdtempSync(join(tmpdir(), 'exd-report-micro-'));
const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', LOG_LEVEL: 'silent', COURIER_RATE_LIMIT_PER_MIN: '100000000' }), { logger: pino({ level: 'silent' }) });
try {
  const { admin, auth, couriers } = container.services;
  const created = await admin.createMerchant({ input: { name: 'Micro Merchant', address: 'Av. Providencia 1234, Providencia' } });
  const seeded = await seedAssignedOrders(container, { merchantId: created.merchantId, liveKey: created.liveKey, testKey: created.testKey }, { count: COURIERS, platePrefix: 'MIC' });
  const callers = await Promise.all(seeded.map(async (s) => ({ kind: 'courier' as const, courier: await auth.authenticateCourier({ token: s.token }), address: '127.0.0.1' })));
  const frames = callers.map((_, i) => JSON.stringify({ type: 'position', id: i, lat: -33.5 - (i % 40) * 0.002, lng: -70.7 + Math.floor(i / 40) * 0.002, heading: 90, speed_kmh: 20 }));

  /** Calls `run` for about a second of wall time; CPU µs per call, less what an empty call costs (timers, GC in the background). */
  let idleMicros = 0;
  const stage = async (label: string, run: (i: number) => unknown) => {
    for (let i = 0; i < COURIERS; i++) await run(i); // warm-up round
    const start = process.cpuUsage();
    const until = performance.now() + SECONDS * 1000;
    let calls = 0;
    while (performance.now() < until) for (let i = 0; i < COURIERS; i++, calls++) await run(i);
    const used = process.cpuUsage(start);
    const micros = (used.user + used.system) / calls;
    console.log(`${label.padEnd(60)} ${(micros - idleMicros).toFixed(1).padStart(7)} µs CPU per call (${calls} calls)`);
    return micros;
  };
  idleMicros = await stage('(an empty call: subtracted from the others)', () => undefined);
  const parsed = frames.map((f) => JSON.parse(f) as Record<string, unknown>);
  const bodies = parsed.map(({ type: _type, id: _id, ...body }) => body);
  const inputs = bodies.map((b) => reportPositionCommand(b));
  await stage('frame text → object (JSON.parse, envelope split)', (i) => {
    const { type: _type, id: _id, ...body } = JSON.parse(frames[i]!) as Record<string, unknown>;
    return body;
  });
  await stage('budget (frontDoor.admit, in-memory limiter)', (i) => container.services.frontDoor.admit(callers[i]!));
  await stage('position command (zod)', (i) => reportPositionCommand(bodies[i]));
  await stage('courier read (store.couriers.findById)', (i) => container.store.couriers.findById(callers[i]!.courier.courier.id));
  const sessionReport = (i: number) => couriers.reportSessionPosition({ courierId: callers[i]!.courier.courier.id, input: inputs[i]! });
  for (let repeat = 0; repeat < 2; repeat++) {
    await stage('domain report with the courier in hand (reportPosition)', (i) => couriers.reportPosition({ courier: callers[i]!.courier.courier, input: inputs[i]! }));
    await stage('domain report, no session held (reads the store)', sessionReport);
    // What a socket does: its session holds the courier's snapshot (courier-snapshots.ts).
    const releases = callers.map((c) => couriers.holdSession({ courierId: c.courier.courier.id }));
    await stage('domain report, session held (snapshot)', sessionReport);
    for (const release of releases) release();
  }
  await stage('ack (JSON.stringify)', (i) => JSON.stringify({ type: 'ack', id: i, arrivals: [] }));
  // Not per frame: the front door checks every held socket's token again every CREDENTIAL_RECHECK_MS (2 s: ½ a check per report at 1/s).
  await stage('session recheck (auth.authenticateCourier), per held socket', (i) => auth.authenticateCourier({ token: seeded[i]!.token }));
} finally {
  await container.close();
  rmSync(dataDir, { recursive: true, force: true });
}
