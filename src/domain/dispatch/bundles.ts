import { distanceMeters } from '../geo.js';
import { createYielder } from './candidates.js';
import type { LatLng, Order } from '../types.js';
import type { RoundJob } from './planner.js';
import { readyAtOf, type DispatchPolicy } from './policy.js';

/**
 * Dynamic bundling (issue #37): among the round's orders, one merchant's express orders (same
 * vehicle class, one drop-off each) whose ready times lie within `readyWithinMs` of the first go as
 * one job when their drop-offs lie on one way — visited nearest first, the route is at most
 * `maxDetourRatio` times the straight way to the last one — and no order of the bundle would arrive
 * after its promise (its estimated delivery, plus `promiseSlackMs`), at the travel model's speed with `stopMs` at each
 * drop-off, picking up when the last of them is ready. Every order is in exactly one job. Yields
 * to the event loop between merchants once `sliceMs` has passed (2,000 orders take a few hundred ms).
 */
export async function formBundles(options: {
  orders: Order[];
  policy: DispatchPolicy['bundle'];
  /** Minutes of travel between two points at the travel model (vehicle speed, detour factor). */
  travelMins: (from: LatLng, to: LatLng, order: Order) => number;
  now: number;
  stopMs: number;
  sliceMs?: number;
}): Promise<RoundJob[]> {
  const { orders, policy } = options;
  const jobs: RoundJob[] = [];
  const byMerchant = new Map<string, Order[]>();
  for (const o of orders) {
    if (o.stops || o.batchWindow) {
      jobs.push({ orders: [o], readyAt: readyAtOf(o) });
      continue;
    }
    const key = `${o.merchantId}:${o.vehicleType}:${o.pickup.lat},${o.pickup.lng}`;
    const group = byMerchant.get(key);
    if (group) group.push(o);
    else byMerchant.set(key, [o]);
  }
  const yielder = createYielder(options.sliceMs ?? 10);
  for (const group of byMerchant.values()) {
    await yielder();
    if (group.length === 1) {
      jobs.push({ orders: group, readyAt: readyAtOf(group[0]!) });
      continue;
    }
    const left = [...group].sort((a, b) => readyAtOf(a) - readyAtOf(b));
    while (left.length > 0) {
      const seed = left.shift()!;
      let bundle = [seed];
      for (let i = 0; i < left.length && bundle.length < policy.maxOrders; i++) {
        const candidate = left[i]!;
        if (readyAtOf(candidate) - readyAtOf(seed) > policy.readyWithinMs) break;
        const tried = onOneWay([...bundle, candidate], options);
        if (!tried) continue;
        bundle = tried;
        left.splice(i--, 1);
      }
      jobs.push({ orders: bundle, readyAt: Math.max(...bundle.map(readyAtOf)) });
    }
  }
  return jobs;
}

/** The orders in visiting order (nearest drop-off first) when they make one way and keep every promise; null otherwise. */
function onOneWay(orders: Order[], options: Parameters<typeof formBundles>[0]): Order[] | null {
  const pickup = orders[0]!.pickup;
  const route = [...orders].sort((a, b) => distanceMeters(pickup, a.dropoff) - distanceMeters(pickup, b.dropoff));
  let path = 0;
  let at: LatLng = pickup;
  for (const o of route) {
    path += distanceMeters(at, o.dropoff);
    at = o.dropoff;
  }
  if (path > options.policy.maxDetourRatio * distanceMeters(pickup, route.at(-1)!.dropoff)) return null;
  let time = Math.max(options.now, ...route.map(readyAtOf));
  at = pickup;
  for (const o of route) {
    time += options.travelMins(at, o.dropoff, o) * 60_000;
    if (time > Date.parse(o.estimatedDeliveryAt) + options.policy.promiseSlackMs) return null;
    time += options.stopMs;
    at = o.dropoff;
  }
  return route;
}
