import { distanceMeters } from '../geo.js';
import type { LatLng, Order } from '../types.js';
import { isStopOpen } from '../vocabulary.js';

/** Minutes a courier spends at a pickup (taking the parcel) before driving on. */
export const PICKUP_HANDLING_MINS = 2;
/** Minutes a courier spends at a drop-off (the handover) before driving on to the next one. */
export const DROPOFF_HANDLING_MINS = 3;

export interface RouteEstimateOptions {
  /** Where the courier is now. */
  from: LatLng;
  /** The courier's vehicle speed (the tariff's urban speed) and the road detour factor quotes use. */
  speedKmh: number;
  detourFactor: number;
  /** The active orders of the courier's job, in the job's order (a batch's order list). */
  orders: readonly Order[];
  now: Date;
  /** How many times faster than real time the job runs (the sandbox speed for test orders, else 1). */
  timeScale: number;
}

type Stop = { order: Order; kind: 'pickup' | 'dropoff' };

/**
 * The stops left, in the order the courier is expected to make them: what it is standing at first
 * (a drop-off it reached, then a pickup it reached), then the drop-offs of the parcels in hand in
 * the job's order, then each order not yet picked up, pickup then drop-off, in the job's order.
 * That is what the sandbox simulator does, and it also fits a courier who picks a whole batch up
 * at one counter (those orders are then in hand).
 */
function remainingStops(orders: readonly Order[]): Stop[] {
  const atDropoff = orders.filter((o) => o.status === 'arrived_dropoff');
  const atPickup = orders.filter((o) => o.status === 'arrived_pickup');
  const inHand = orders.filter((o) => o.status === 'picked_up' || o.status === 'arrived_pickup');
  const ahead = orders.filter((o) => o.status === 'assigned');
  return [
    ...atDropoff.map((order) => ({ order, kind: 'dropoff' as const })),
    ...atPickup.map((order) => ({ order, kind: 'pickup' as const })),
    ...inHand.map((order) => ({ order, kind: 'dropoff' as const })),
    ...ahead.flatMap((order) => [
      { order, kind: 'pickup' as const },
      { order, kind: 'dropoff' as const },
    ]),
  ];
}

/** Where an order's parcels go: a multi-stop order's stops still open, in route order; else the drop-off. */
function dropoffPoints(order: Order): LatLng[] {
  const open = (order.stops ?? []).filter((s) => isStopOpen(s.status)).map((s) => s.location);
  return open.length > 0 ? open : [order.dropoff];
}

/**
 * When the order's parcel can be taken: its preparation time after creation (run at the job's pace),
 * and never before a scheduled pickup (a wall-clock time, as dispatch treats it).
 */
function readyAtMs(order: Order, timeScale: number): number {
  const prepared = Date.parse(order.createdAt) + (order.prepTimeMins * 60_000) / timeScale;
  return order.scheduledPickupAt ? Math.max(prepared, Date.parse(order.scheduledPickupAt)) : prepared;
}

/**
 * The live delivery estimate of each order of a courier's job: the road distance left (courier →
 * each remaining stop, great-circle × detour) at the vehicle's speed, plus the handling time of
 * every stop before the order's drop-off, never leaving a pickup before the parcel is ready.
 * Orders whose courier already stands at their drop-off get none (the estimate is the arrival).
 * Pure: the same inputs give the same answer.
 */
export function estimateDeliveries(options: RouteEstimateOptions): Map<string, Date> {
  const { speedKmh, detourFactor, timeScale } = options;
  const metresPerMs = (speedKmh * 1000 * timeScale) / 3_600_000;
  const estimates = new Map<string, Date>();
  let position = options.from;
  let t = options.now.getTime();
  const drive = (to: LatLng) => {
    t += (distanceMeters(position, to) * detourFactor) / metresPerMs;
    position = to;
  };
  for (const { order, kind } of remainingStops(options.orders)) {
    if (kind === 'pickup') {
      drive(order.pickup);
      t = Math.max(t, readyAtMs(order, timeScale)) + (PICKUP_HANDLING_MINS * 60_000) / timeScale;
      continue;
    }
    // A multi-stop order's drop-off is its open stops in route order, each with its handover.
    const points = dropoffPoints(order);
    points.forEach((point, i) => {
      drive(point);
      if (i < points.length - 1) t += (DROPOFF_HANDLING_MINS * 60_000) / timeScale;
    });
    if (order.status !== 'arrived_dropoff' || points.length > 1) estimates.set(order.id, new Date(Math.round(t / 1000) * 1000));
    t += (DROPOFF_HANDLING_MINS * 60_000) / timeScale;
  }
  return estimates;
}
