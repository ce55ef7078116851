/**
 * The dispatch round's assignment at scale (issue #37): 2,000 available couriers × 2,000 due
 * orders, costs as the planner builds them (travel minutes over a 15 × 15 km city, ready times
 * within the horizon). Prints the solve time and the longest event-loop stall while it runs (the
 * solver yields between rows every `sliceMs`); target: no stall over 50 ms.
 *
 *   npm run bench:dispatch-round [-- --size 2000]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { solveAssignment, solveAssignmentAsync } from '../src/domain/dispatch/assignment.js';

const sizeArg = process.argv.indexOf('--size');
const size = sizeArg >= 0 ? Number(process.argv[sizeArg + 1]) : 2000;
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const point = () => ({ x: random() * 15_000, y: random() * 15_000 });
const couriers = Array.from({ length: size }, point);
const orders = Array.from({ length: size }, () => Object.assign(point(), { readyIn: random() * 45 }));
const cost = couriers.map((c) => {
  const row = new Float64Array(size);
  orders.forEach((o, j) => {
    const travel = Math.ceil(Math.hypot(c.x - o.x, c.y - o.y) / 320);
    row[j] = Math.max(0, travel - o.readyIn) + 0.2 * Math.max(0, o.readyIn - travel) + 0.3 * travel;
  });
  return row;
});

// A probe: the longest gap between 1 ms timers while the solver runs, and the histogram's max.
const histogram = monitorEventLoopDelay({ resolution: 5 });
let last = performance.now();
let worstGap = 0;
const probe = setInterval(() => {
  const now = performance.now();
  worstGap = Math.max(worstGap, now - last);
  last = now;
}, 1);
histogram.enable();
const started = performance.now();
const answer = await solveAssignmentAsync(cost, { sliceMs: 10 });
const asyncMs = performance.now() - started;
histogram.disable();
clearInterval(probe);
const matched = answer.filter((c) => c >= 0).length;
const total = answer.reduce((s, c, r) => (c >= 0 ? s + cost[r]![c]! : s), 0);
const syncStarted = performance.now();
const sync = size <= 2000 ? solveAssignment(cost) : null;
const syncMs = performance.now() - syncStarted;
console.log(`dispatch round assignment, ${size} couriers × ${size} orders`);
console.log(`  matched ${matched}, total cost ${total.toFixed(1)}${sync ? ` (synchronous solver: same total ${sync.reduce((s, c, r) => (c >= 0 ? s + cost[r]![c]! : s), 0).toFixed(1)})` : ''}`);
console.log(`  solve time: ${(asyncMs / 1000).toFixed(2)} s yielding (synchronous: ${(syncMs / 1000).toFixed(2)} s in one stall)`);
console.log(`  longest event-loop stall while yielding: ${worstGap.toFixed(1)} ms (histogram max ${(histogram.max / 1e6).toFixed(1)} ms) — target ≤ 50 ms: ${worstGap <= 50 ? 'PASS' : 'FAIL'}`);
