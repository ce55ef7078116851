import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { locationsOf, travelMinutes, type MdrpInstance } from './instance.js';

/** One courier's trip from a pickup: the orders it carries, in drop-off order. */
export interface SolutionAssignment { assignmentTime: number; pickupTime: number; courier: string; orders: string[] }
export interface SolutionOrder { order: string; pickupTime: number | null; dropoffTime: number | null; courier: string | null }
/** A move: leaves `origin` (a place id: order, restaurant or the courier's own start) at `departure` for `destination`. */
export interface SolutionMove { courier: string; departure: number; origin: string; destination: string }
export interface Solution { assignments: SolutionAssignment[]; orders: SolutionOrder[]; moves: SolutionMove[] }

/**
 * The three files of the public evaluator (grubhub/mdrplib, MDRP_code/compute_performance_summary.py):
 * whitespace-separated, each with a header line; undelivered orders carry NaN.
 */
export function writeSolution(dir: string, instance: MdrpInstance, solution: Solution): void {
  mkdirSync(dir, { recursive: true });
  const assignments = ['assignment_time pickup_time courier orders', ...solution.assignments.map((a) => [a.assignmentTime, a.pickupTime, a.courier, ...a.orders].join(' '))];
  writeFileSync(join(dir, 'solution_info_assignments.txt'), assignments.join('\n') + '\n');
  const byId = new Map(solution.orders.map((o) => [o.order, o]));
  const orders = ['order placement_time restaurant ready_time pickup_time dropoff_time courier'];
  for (const o of instance.orders) {
    const s = byId.get(o.id);
    orders.push([o.id, o.placement, o.restaurant, o.ready, s?.pickupTime ?? 'NaN', s?.dropoffTime ?? 'NaN', s?.courier ?? 'NaN'].join(' '));
  }
  writeFileSync(join(dir, 'solution_info_orders.txt'), orders.join('\n') + '\n');
  const moves = [...solution.moves].sort((a, b) => a.courier.localeCompare(b.courier, 'en', { numeric: true }) || a.departure - b.departure);
  // Stable: a courier's moves keep their sequence within one minute (a zero-length move, then the next).
  const order = new Map(solution.moves.map((m, i) => [m, i]));
  moves.sort((a, b) => a.courier.localeCompare(b.courier, 'en', { numeric: true }) || a.departure - b.departure || order.get(a)! - order.get(b)!);
  writeFileSync(join(dir, 'solution_info_couriers.txt'), ['courier departure_time origin destination', ...moves.map((m) => `${m.courier} ${m.departure} ${m.origin} ${m.destination}`)].join('\n') + '\n');
}

export interface SolutionSummary {
  orders: number;
  delivered: number;
  meanClickToDoor: number;
  meanReadyToPickup: number;
  /** Orders delivered more than the instance's target click-to-door after placement. */
  overTarget: number;
  bundles: number;
  ordersInBundles: number;
}

export function summarize(instance: MdrpInstance, solution: Solution): SolutionSummary {
  const byId = new Map(instance.orders.map((o) => [o.id, o]));
  const done = solution.orders.filter((o) => o.dropoffTime !== null && o.pickupTime !== null);
  const mean = (xs: number[]) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
  const ctd = done.map((o) => o.dropoffTime! - byId.get(o.order)!.placement);
  return {
    orders: instance.orders.length,
    delivered: done.length,
    meanClickToDoor: mean(ctd),
    meanReadyToPickup: mean(done.map((o) => o.pickupTime! - byId.get(o.order)!.ready)),
    overTarget: ctd.filter((m) => m > instance.targetClickToDoor).length,
    bundles: solution.assignments.filter((a) => a.orders.length > 1).length,
    ordersInBundles: solution.assignments.filter((a) => a.orders.length > 1).reduce((n, a) => n + a.orders.length, 0),
  };
}

/**
 * The evaluator's feasibility rules, checked here (written from its documented rules, not its code):
 * every order in at most one assignment, none assigned before it is placed; a pickup no later than
 * the courier's off time and no earlier than the ready time of every order it carries; drop-offs in
 * the bundle's sequence at least a drop-off service apart; moves continuous (each leaves where the
 * last one arrived, never before it arrived, travel at the instance's speed); each drop-off and
 * pickup made where the courier stands at that time. Returns the violations (empty: feasible).
 */
export function checkFeasibility(instance: MdrpInstance, solution: Solution): string[] {
  const violations: string[] = [];
  const orders = new Map(instance.orders.map((o) => [o.id, o]));
  const couriers = new Map(instance.couriers.map((c) => [c.id, c]));
  const places = locationsOf(instance);
  const solved = new Map(solution.orders.map((o) => [o.order, o]));
  const seen = new Map<string, number>();
  for (const a of solution.assignments) {
    const courier = couriers.get(a.courier);
    if (!courier) violations.push(`assignment to unknown courier ${a.courier}`);
    else if (a.pickupTime > courier.off) violations.push(`${a.courier} picks up ${a.orders.join(',')} at ${a.pickupTime}, after its off time ${courier.off}`);
    const restaurants = new Set(a.orders.map((id) => orders.get(id)?.restaurant));
    if (restaurants.size !== 1) violations.push(`bundle ${a.orders.join(',')} spans restaurants`);
    let lastDrop: number | null = null;
    for (const id of a.orders) {
      const order = orders.get(id);
      if (!order) { violations.push(`unknown order ${id}`); continue; }
      seen.set(id, (seen.get(id) ?? 0) + 1);
      if (a.assignmentTime < order.placement) violations.push(`${id} assigned at ${a.assignmentTime}, before its placement ${order.placement}`);
      if (a.pickupTime < order.ready) violations.push(`${id} picked up at ${a.pickupTime}, before it is ready at ${order.ready}`);
      const drop = solved.get(id)?.dropoffTime ?? null;
      if (drop !== null && lastDrop !== null && drop < lastDrop + instance.dropoffServiceMins) violations.push(`${id} dropped at ${drop}, less than a drop-off service after the previous one of its bundle (${lastDrop})`);
      if (drop !== null) lastDrop = drop;
    }
  }
  for (const [id, n] of seen) if (n > 1) violations.push(`${id} is in ${n} assignments`);
  // Each courier's timeline: (time, place) points; '' while moving.
  const timelines = new Map<string, { times: number[]; places: string[] }>();
  const byCourier = new Map<string, SolutionMove[]>();
  for (const m of solution.moves) byCourier.set(m.courier, [...(byCourier.get(m.courier) ?? []), m]);
  for (const [id, moves] of byCourier) {
    const courier = couriers.get(id);
    if (!courier) { violations.push(`moves of unknown courier ${id}`); continue; }
    const line = { times: [courier.on], places: [id] };
    for (const m of moves) {
      if (m.origin !== line.places.at(-1)) violations.push(`${id} leaves ${m.origin} at ${m.departure} but stands at ${line.places.at(-1)}`);
      const from = places.get(m.origin);
      const to = places.get(m.destination);
      if (!from || !to) { violations.push(`${id} moves between unknown places ${m.origin} → ${m.destination}`); continue; }
      line.times.push(m.departure, m.departure + travelMinutes(instance, from, to));
      line.places.push('', m.destination);
    }
    for (let i = 1; i < line.times.length; i++) {
      if (line.times[i]! < line.times[i - 1]!) { violations.push(`${id} departs before it arrives (timeline ${line.times.slice(Math.max(0, i - 2), i + 1).join(', ')})`); break; }
    }
    timelines.set(id, line);
  }
  /** Where the courier stands at `time`: the last timeline point strictly before it. */
  const placeAt = (courier: string, time: number): string | undefined => {
    const line = timelines.get(courier);
    if (!line) return undefined;
    let i = -1;
    while (i + 1 < line.times.length && line.times[i + 1]! < time) i++;
    return i >= 0 ? line.places[i] : undefined;
  };
  for (const o of solution.orders) {
    if (o.dropoffTime === null || o.courier === null) continue;
    const at = placeAt(o.courier, o.dropoffTime);
    if (at !== o.order) violations.push(`${o.order} dropped at ${o.dropoffTime} by ${o.courier}, who stands at ${at || 'nowhere (moving)'}`);
  }
  for (const a of solution.assignments) {
    const restaurant = orders.get(a.orders[0]!)?.restaurant;
    const at = placeAt(a.courier, a.pickupTime);
    if (at !== restaurant) violations.push(`${a.orders.join(',')} picked up at ${a.pickupTime} by ${a.courier}, who stands at ${at || 'nowhere (moving)'}, not ${restaurant}`);
  }
  return violations;
}
