import { setImmediate } from 'node:timers/promises';
import { around } from 'geokdbush';
import KDBush from 'kdbush';
import type { LatLng } from '../types.js';
import { FORBIDDEN_COST } from './assignment.js';
import { solveSparseAssignmentAsync, type SparseRow } from './sparse-assignment.js';

/**
 * The pairs a round prices (issue #37): each job with its k nearest couriers and each courier with
 * its k nearest jobs, by great-circle distance (kdbush + geokdbush). A courier farther than that
 * from every job it could take is not considered: at 2,000 × 2,000 the round prices ~60,000 pairs
 * instead of 4,000,000 and the assignment searches only among them.
 */
export async function nearestPairs(options: { couriers: readonly LatLng[]; jobs: readonly LatLng[]; k: number; sliceMs?: number }): Promise<Array<[courier: number, job: number]>> {
  const { couriers, jobs, k } = options;
  if (couriers.length === 0 || jobs.length === 0) return [];
  const seen = new Set<number>();
  const pairs: Array<[number, number]> = [];
  const add = (c: number, j: number) => {
    const key = c * jobs.length + j;
    if (seen.has(key)) return;
    seen.add(key);
    pairs.push([c, j]);
  };
  const yielder = createYielder(options.sliceMs ?? 10);
  const courierTree = indexOf(couriers);
  for (const [j, job] of jobs.entries()) {
    for (const c of around(courierTree, job.lng, job.lat, k)) add(c, j);
    if (j % 32 === 31) await yielder();
  }
  const jobTree = indexOf(jobs);
  for (const [c, courier] of couriers.entries()) {
    for (const j of around(jobTree, courier.lng, courier.lat, k)) add(c, j);
    if (c % 32 === 31) await yielder();
  }
  return pairs;
}

/** A function to await every few steps of a long loop: it yields to the event loop once `sliceMs` has passed since the last time. */
export function createYielder(sliceMs: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await setImmediate();
    since = performance.now();
  };
}

function indexOf(points: readonly LatLng[]): KDBush {
  const tree = new KDBush(points.length);
  for (const p of points) tree.add(p.lng, p.lat);
  return tree.finish();
}

/**
 * One minimum-cost matching of couriers to jobs over their nearest pairs: `cost(c, j)` is asked only
 * for the pairs `nearestPairs` lists (FORBIDDEN_COST or more: not allowed). Returns, per courier, its
 * job or -1. Prices in slices and yields to the event loop between them and within the solve, so
 * no slice holds it for much more than `sliceMs`.
 */
export async function matchNearest(options: {
  couriers: readonly LatLng[];
  jobs: readonly LatLng[];
  cost: (courier: number, job: number) => number;
  k: number;
  sliceMs?: number;
}): Promise<number[]> {
  const { couriers, jobs, cost } = options;
  const sliceMs = options.sliceMs ?? 10;
  const pairs = await nearestPairs({ couriers, jobs, k: options.k, sliceMs });
  // The smaller side is the solver's rows: a row left without a column searches its whole part of the graph.
  const byJob = jobs.length < couriers.length;
  const rows: SparseRow[] = Array.from({ length: byJob ? jobs.length : couriers.length }, () => ({ cols: [], costs: [] }));
  const yielder = createYielder(sliceMs);
  for (let i = 0; i < pairs.length; i++) {
    const [c, j] = pairs[i]!;
    const price = cost(c, j);
    if (price < FORBIDDEN_COST) {
      const row = rows[byJob ? j : c]!;
      row.cols.push(byJob ? c : j);
      row.costs.push(price);
    }
    if (i % 256 === 255) await yielder();
  }
  await setImmediate();
  const match = await solveSparseAssignmentAsync({ cols: byJob ? couriers.length : jobs.length, rows }, { sliceMs });
  if (!byJob) return match;
  const perCourier = new Array<number>(couriers.length).fill(-1);
  for (const [j, c] of match.entries()) if (c >= 0) perCourier[c] = j;
  return perCourier;
}
