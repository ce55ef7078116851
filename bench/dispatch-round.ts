/**
 * The dispatch round at scale (issue #37): N available couriers × N due orders over a 15 × 15 km
 * piece of Santiago, ready times within the horizon, one merchant per 10 orders (bundling on).
 * Measures, in one run and on the same data:
 *   - planned: the planner's real round (src/domain/dispatch/planner.ts — candidate lists, bundling,
 *     the sparse assignment), on an in-memory store stub, commits counted but not written;
 *   - greedy: what DISPATCH_POLICY=greedy does for the same orders, each in turn taking the nearest
 *     free courier from the embedded geo index (src/adapters/geo-index/memory.ts) and leaving it;
 *   - dense (≤ 500 only): the previous round, every pair priced and the dense Hungarian solve.
 * For each: CPU time (process.cpuUsage), the longest event-loop stall (perf_hooks
 * monitorEventLoopDelay, and a 1 ms timer probe), and the assignment's total cost. Store I/O is left
 * out of both (it is the same per commit). Target: no stall over 50 ms at 2,000 × 2,000.
 *
 *   npm run bench:dispatch-round [-- --sizes 200,2000] [--k 16]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createMemoryGeoIndex } from '../src/adapters/geo-index/memory.js';
import { solveAssignmentAsync } from '../src/domain/dispatch/assignment.js';
import { formBundles } from '../src/domain/dispatch/bundles.js';
import { createDispatchPlanner } from '../src/domain/dispatch/planner.js';
import { DEFAULT_DISPATCH_POLICY, readyAtOf } from '../src/domain/dispatch/policy.js';
import { distanceMeters } from '../src/domain/geo.js';
import type { Courier, LatLng, Order } from '../src/domain/types.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const sizes = (arg('sizes') ?? '200,2000').split(',').map(Number);
const k = Number(arg('k') ?? DEFAULT_DISPATCH_POLICY.candidates);
const NOW = Date.parse('2026-03-02T15:00:00.000Z');
const SPEED_MPM = 320;
const iso = (ms: number) => new Date(ms).toISOString();

function scenario(size: number) {
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const place = (): LatLng => ({ lat: -33.52 + random() * 0.135, lng: -70.72 + random() * 0.162 });
  const couriers = Array.from({ length: size }, (_, i) => ({
    id: `c${i}`, status: 'available', accountStatus: 'active', location: place(), locationAt: iso(NOW), vehicle: 'bike', mode: 'live', job: null,
    shiftEndsAt: i % 5 === 0 ? iso(NOW + random() * 60 * 60_000) : null,
  })) as unknown as Courier[];
  const merchants = Array.from({ length: Math.max(1, size / 10) }, place);
  const orders = Array.from({ length: size }, (_, i) => {
    const m = Math.floor(random() * merchants.length);
    return {
      id: `o${i}`, status: 'new', mode: 'live', merchantId: `m${m}`, vehicleType: 'bike', pickup: merchants[m]!, dropoff: place(), stops: null, batchWindow: null, batchId: null,
      createdAt: iso(NOW - 10 * 60_000), prepTimeMins: Math.round(random() * 45), scheduledPickupAt: null, estimatedDeliveryAt: iso(NOW + 75 * 60_000),
    };
  }) as unknown as Order[];
  return { couriers, orders };
}

const approach = (c: Courier, o: Order) => Math.ceil(distanceMeters(c.location!, o.pickup) / SPEED_MPM);

/**
 * Runs `work` while measuring its CPU time and the event loop's longest stall: wall time between two
 * turns of a 1 ms timer (and monitorEventLoopDelay's max), and the CPU this process used between two
 * turns — on a machine shared with other work the wall figure also counts time the process was not
 * running at all, the CPU figure does not.
 */
async function measure<T>(work: () => Promise<T>): Promise<{ value: T; cpuMs: number; wallMs: number; stallMs: number; cpuStallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = 0;
  let worstCpu = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    worst = Math.max(worst, now - last);
    worstCpu = Math.max(worstCpu, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
  }, 1);
  histogram.enable();
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - wall;
  // One more turn so a stall at the very end is seen by the probe.
  await new Promise((resolve) => setTimeout(resolve, 5));
  histogram.disable();
  clearInterval(probe);
  return { value, cpuMs: (used.user + used.system) / 1000, wallMs, stallMs: Math.max(worst, histogram.max / 1e6), cpuStallMs: worstCpu };
}

/** The planner's own round on a stub store: every due pair it commits is recorded with its cost. */
async function plannedRound(size: number, candidates: number) {
  const { couriers, orders } = scenario(size);
  const policy = Object.assign({}, DEFAULT_DISPATCH_POLICY, { candidates, commitSlackMs: 60 * 60_000 });
  let cost = 0;
  const byId = new Map(couriers.map((c) => [c.id, c]));
  const planner = createDispatchPlanner({
    store: { orders: { listQueued: async () => orders }, couriers: { listByMode: async () => couriers } } as never,
    clock: { now: () => new Date(NOW) }, policy, vehicles: ['bike'],
    dispatch: {
      approachMinutes: approach, isLive: () => true, carriable: () => ['bike'],
      commitOrder: async ({ order, courierId }: { order: Order; courierId: string }) => {
        cost += Math.max(approach(byId.get(courierId)!, order), (readyAtOf(order) - NOW) / 60_000);
        return order;
      },
    } as never,
    commitBundle: async () => true,
    formJobs: (round) => formBundles({ orders: round.orders, policy: policy.bundle, now: round.now, stopMs: policy.handoverMs, travelMins: (a, b) => Math.ceil(distanceMeters(a, b) / SPEED_MPM) }),
  });
  const report = await planner.planRound();
  return { committed: report.committed, cost };
}

/** DISPATCH_POLICY=greedy on the same orders: each, in turn, takes the nearest free courier from the geo index. */
async function greedyRound(size: number) {
  const { couriers, orders } = scenario(size);
  const index = createMemoryGeoIndex();
  const byId = new Map(couriers.map((c) => [c.id, c]));
  for (const c of couriers) await index.upsert({ courierId: c.id, mode: 'live', vehicle: 'bike', location: c.location! });
  let committed = 0;
  let cost = 0;
  for (const order of orders) {
    for (const hit of await index.nearest({ mode: 'live', vehicles: ['bike'], point: order.pickup, limit: 25 })) {
      const courier = byId.get(hit.courierId)!;
      const pickupAt = NOW + Math.max(approach(courier, order), (readyAtOf(order) - NOW) / 60_000) * 60_000;
      if (courier.shiftEndsAt && pickupAt > Date.parse(courier.shiftEndsAt)) continue;
      await index.remove({ courierId: courier.id, mode: 'live', vehicle: 'bike' });
      committed++;
      cost += (pickupAt - NOW) / 60_000;
      break;
    }
  }
  return { committed, cost };
}

/** The previous round: every pair priced, the dense Hungarian (yielding between rows). */
async function denseRound(size: number) {
  const { couriers, orders } = scenario(size);
  const matrix = couriers.map((c) => orders.map((o) => Math.max(approach(c, o), (readyAtOf(o) - NOW) / 60_000)));
  const match = await solveAssignmentAsync(matrix, { sliceMs: 10 });
  return { committed: match.filter((j) => j >= 0).length, cost: match.reduce((s, j, i) => (j >= 0 ? s + matrix[i]![j]! : s), 0) };
}

const f1 = (n: number) => n.toFixed(1);
console.log(`dispatch round: couriers × due orders, k = ${k} (CPU ms, longest event-loop stall ms, commitments; store I/O left out)\n`);
console.log('| size | planned CPU | planned max stall: wall / CPU | greedy CPU | greedy max stall: wall / CPU | planned / greedy CPU | committed planned / greedy | mean pickup in (min) planned / greedy | dense (old round) CPU, stall wall / CPU |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const size of sizes) {
  await plannedRound(Math.min(size, 50), k); // warm-up (JIT)
  const planned = await measure(() => plannedRound(size, k));
  const greedy = await measure(() => greedyRound(size));
  const dense = size <= 500 ? await measure(() => denseRound(size)) : null;
  console.log(`| ${size} × ${size} | ${f1(planned.cpuMs)} | ${f1(planned.stallMs)} / ${f1(planned.cpuStallMs)} | ${f1(greedy.cpuMs)} | ${f1(greedy.stallMs)} / ${f1(greedy.cpuStallMs)} | ${(planned.cpuMs / greedy.cpuMs).toFixed(2)} | ${planned.value.committed} / ${greedy.value.committed} | ${f1(planned.value.cost / Math.max(1, planned.value.committed))} / ${f1(greedy.value.cost / Math.max(1, greedy.value.committed))} | ${dense ? `${f1(dense.cpuMs)}, ${f1(dense.stallMs)} / ${f1(dense.cpuStallMs)}` : '–'} |`);
  console.log(`  planned round, longest stall ≤ 50 ms: ${planned.cpuStallMs <= 50 ? 'PASS' : 'FAIL'} by CPU (${f1(planned.cpuStallMs)} ms), ${planned.stallMs <= 50 ? 'PASS' : 'FAIL'} by wall clock (${f1(planned.stallMs)} ms)`);
}
