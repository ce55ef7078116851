import { z } from 'zod';
import { AppError } from '../errors.js';
import { distanceMeters } from '../geo.js';
import { locationInputSchema } from '../locations.js';
import { phoneSchema } from '../phone.js';
import type { LatLng, Order, OrderStop, RouteOrder, StopStatus } from '../types.js';
import { isStopOpen } from '../vocabulary.js';

/** Drop-offs of one multi-stop order at most (issue #30 item 1). */
export const MAX_STOPS = 10;

/**
 * Every allowed move of one stop; nothing else happens to a stop's status. The order's own moves
 * follow the current stop (TRANSITIONS): `picked_up → arrived_dropoff` when the courier arrives,
 * then `picked_up` again for the next stop or `completed` after the last one.
 */
export const STOP_TRANSITIONS: Record<StopStatus, readonly StopStatus[]> = {
  pending: ['arrived'],
  arrived: ['delivered', 'failed'],
  delivered: [],
  failed: [],
};

export const stopIdSchema = z.string().trim().min(1).max(64);

/** One drop-off of the `stops` array: the same Address shape as `dropoff`, its own contact. */
export const stopInputSchema = z.strictObject({
  address: locationInputSchema,
  contactName: z.string().trim().min(1).max(200),
  contactPhone: phoneSchema,
  reference: z.string().trim().min(1).max(100).optional(),
  /** Added to the address's own instructions (an Address object may carry some too). */
  instructions: z.string().trim().max(500).optional(),
  items: z.array(z.looseObject({ name: z.string().trim().max(200).optional(), quantity: z.number().int().min(1).max(10_000).default(1) })).max(50).optional(),
});
export type StopInput = z.output<typeof stopInputSchema>;
export const stopsInputSchema = z.array(stopInputSchema).min(1).max(MAX_STOPS);

/** The length in metres of the path through `points` in order (great-circle legs). */
export function pathLengthM(points: readonly LatLng[]): number {
  let total = 0;
  for (let i = 1; i < points.length; i++) total += distanceMeters(points[i - 1]!, points[i]!);
  return total;
}

const lengthOf = (origin: LatLng, stops: readonly LatLng[], order: readonly number[]) => pathLengthM([origin, ...order.map((i) => stops[i]!)]);

/** Nearest neighbour from the origin: each next stop is the closest one not yet visited. */
function nearestNeighbour(origin: LatLng, stops: readonly LatLng[]): number[] {
  const left = new Set(stops.keys());
  const order: number[] = [];
  let at = origin;
  while (left.size > 0) {
    let best = -1;
    for (const i of left) if (best < 0 || distanceMeters(at, stops[i]!) < distanceMeters(at, stops[best]!)) best = i;
    order.push(best);
    left.delete(best);
    at = stops[best]!;
  }
  return order;
}

/** 2-opt on an open path from the origin: reverse a segment while that shortens the path. */
function twoOpt(origin: LatLng, stops: readonly LatLng[], start: number[]): number[] {
  let order = start;
  let best = lengthOf(origin, stops, order);
  for (let improved = true; improved; ) {
    improved = false;
    for (let i = 0; i < order.length - 1; i++) {
      for (let j = i + 1; j < order.length; j++) {
        const candidate = [...order.slice(0, i), ...order.slice(i, j + 1).reverse(), ...order.slice(j + 1)];
        const length = lengthOf(origin, stops, candidate);
        // A relative margin: float noise never counts as a gain (and the loop always ends).
        if (length < best * (1 - 1e-9)) [order, best, improved] = [candidate, length, true];
      }
    }
  }
  return order;
}

/**
 * The visiting order of the stops (indices into `stops`). `optimized`: nearest neighbour from the
 * origin, then 2-opt; kept only when strictly shorter than the given order, so it is never worse.
 */
export function planRoute(options: { origin: LatLng; stops: readonly LatLng[]; route: RouteOrder }): number[] {
  const given = options.stops.map((_, i) => i);
  if (options.route === 'given' || options.stops.length < 2) return given;
  const optimized = twoOpt(options.origin, options.stops, nearestNeighbour(options.origin, options.stops));
  return lengthOf(options.origin, options.stops, optimized) < lengthOf(options.origin, options.stops, given) ? optimized : given;
}

/** The stop the courier is on: the first in route order not delivered or failed (null when all are done or there are none). */
export function currentStop(order: Pick<Order, 'stops'>): OrderStop | null {
  return order.stops?.find((s) => isStopOpen(s.status)) ?? null;
}

/**
 * The current stop of a multi-stop order, checked against the `stop_id` a courier named (409 when it
 * is another one), or 409 when every stop is done.
 */
export function assertCurrentStop(order: Order, stopId: string | undefined): OrderStop {
  const stop = currentStop(order);
  if (!stop) throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}: every stop is delivered or failed`);
  if (stopId !== undefined && stopId !== stop.id) {
    throw new AppError('INVALID_STATUS_TRANSITION', `Stop ${stopId.slice(0, 64)} is not the current stop of this order (${stop.id}); stops are served in route order`);
  }
  return stop;
}

/** The order's stops with one stop moved (the table is checked: a forbidden move is a 409). */
export function withStopMoved(order: Order, stopId: string, to: StopStatus, fields: Partial<OrderStop> = {}): OrderStop[] {
  return (order.stops ?? []).map((s) => {
    if (s.id !== stopId) return s;
    if (!STOP_TRANSITIONS[s.status].includes(to)) throw new AppError('INVALID_STATUS_TRANSITION', `Stop ${s.id} is ${s.status}; it cannot move to ${to}`);
    return Object.assign({}, s, fields, { status: to });
  });
}

/** Where the courier is headed: the current stop's location on a multi-stop order, else the drop-off. */
export function destinationOf(order: Order) {
  return currentStop(order)?.location ?? order.dropoff;
}

/** Whether the stop just settled was the last one still open (the order then completes). */
export const isLastOpenStop = (order: Order, stopId: string) => (order.stops ?? []).every((s) => s.id === stopId || s.status === 'delivered' || s.status === 'failed');
