import { solveAssignment, FORBIDDEN_COST } from '../../../src/domain/dispatch/assignment.js';
import { locationsOf, travelMinutes, type MdrpInstance } from './instance.js';
import { summarize, type Solution, type SolutionAssignment, type SolutionOrder, type SolutionSummary } from './solution.js';

/**
 * The "simple periodic matching" reference (issue #37), written outside the service as the
 * issue describes it, as the baseline our dispatch must match on other seeds: every `everyMins`
 * minutes, one minimum-cost assignment of the free couriers (on shift, not carrying) to the placed
 * orders ready within `horizonMins`, cost = the parcel's wait at the pickup plus a fifth of the
 * courier's idle wait there; a pair is committed only when waiting one more round would make the
 * courier late (leaving at the next round it would pick up after the ready time). No bundling. A
 * courier never gets a pickup after its shift ends. Same physics as the replay: straight lines at the
 * instance's speed in whole minutes, half a service at each end of a stop.
 */
export function referencePolicy(instance: MdrpInstance, options: { everyMins?: number; horizonMins?: number } = {}): { solution: Solution; summary: SolutionSummary } {
  const every = options.everyMins ?? 2;
  const horizon = options.horizonMins ?? 10;
  const places = locationsOf(instance);
  const tt = (a: string, b: string) => travelMinutes(instance, places.get(a)!, places.get(b)!);
  const halfPickup = instance.pickupServiceMins / 2;
  const halfDrop = instance.dropoffServiceMins / 2;
  const couriers = instance.couriers.map((c) => ({ c, place: c.id, freeAt: c.on }));
  const open = new Set(instance.orders.map((o) => o.id));
  const byId = new Map(instance.orders.map((o) => [o.id, o]));
  const assignments: SolutionAssignment[] = [];
  const solved: SolutionOrder[] = [];
  const moves: Solution['moves'] = [];
  const start = Math.min(...instance.couriers.map((c) => c.on), ...instance.orders.map((o) => o.placement));
  const end = Math.max(...instance.couriers.map((c) => c.off));
  for (let t = start; t <= end && open.size > 0; t += every) {
    const free = couriers.filter((k) => k.c.on <= t && t < k.c.off && k.freeAt <= t);
    const due = [...open].map((id) => byId.get(id)!).filter((o) => o.placement <= t && o.ready <= t + horizon);
    if (free.length === 0 || due.length === 0) continue;
    /** When the courier would pick the order up leaving at `leave`. */
    const pickupAt = (k: (typeof free)[number], o: (typeof due)[number], leave: number) => {
      const arrival = leave + tt(k.place, o.restaurant);
      return Math.max(arrival + halfPickup, o.ready, leave + (arrival === leave ? halfPickup : 0));
    };
    const cost = free.map((k) => due.map((o) => {
      const pickup = pickupAt(k, o, t);
      if (pickup > k.c.off) return FORBIDDEN_COST;
      const arrival = t + tt(k.place, o.restaurant) + halfPickup;
      return Math.max(0, pickup - o.ready) + 0.2 * Math.max(0, o.ready - arrival);
    }));
    for (const [i, j] of solveAssignment(cost).entries()) {
      if (j < 0) continue;
      const k = free[i]!;
      const o = due[j]!;
      // Waiting one more round would still reach the pickup by the ready time: not yet.
      if (pickupAt(k, o, t + every) <= o.ready) continue;
      const pickup = pickupAt(k, o, t);
      if (k.place !== o.restaurant) moves.push({ courier: k.c.id, departure: t, origin: k.place, destination: o.restaurant });
      const arrive = pickup + halfPickup + tt(o.restaurant, o.id);
      moves.push({ courier: k.c.id, departure: pickup + halfPickup, origin: o.restaurant, destination: o.id });
      assignments.push({ assignmentTime: t, pickupTime: pickup, courier: k.c.id, orders: [o.id] });
      solved.push({ order: o.id, pickupTime: pickup, dropoffTime: arrive + halfDrop, courier: k.c.id });
      k.place = o.id;
      k.freeAt = arrive + instance.dropoffServiceMins;
      open.delete(o.id);
    }
  }
  const byOrder = new Map(solved.map((s) => [s.order, s]));
  const solution: Solution = {
    assignments,
    orders: instance.orders.map((o) => byOrder.get(o.id) ?? { order: o.id, pickupTime: null, dropoffTime: null, courier: null }),
    moves,
  };
  return { solution, summary: summarize(instance, solution) };
}
