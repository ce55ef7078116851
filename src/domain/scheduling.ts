import { z } from 'zod';
import { AppError } from './errors.js';
import type { BatchWindow } from './types.js';

/** How far ahead a pickup (or a delivery deadline) may be scheduled. */
export const SCHEDULE_HORIZON_MS = 7 * 86_400_000;
/** A pickup_after this little in the past (clock skew, a slow request) is taken as "now". */
const PAST_SLACK_MS = 60_000;

/** ISO 8601 date-time with its offset (`Z` or `±hh:mm`). */
export const scheduleTimeSchema = z.iso.datetime({ offset: true });

export interface ScheduleRequest {
  pickupAfter?: string | null | undefined;
  deliverBefore?: string | null | undefined;
}

export interface SchedulePlan {
  /** When the pickup is expected: the window's opening, or as soon as the parcel is ready. */
  pickupAt: Date;
  deliveryAt: Date;
  /** The requested window, normalised to UTC ISO strings (null when not asked). */
  scheduledPickupAt: string | null;
  deliverBefore: string | null;
  /** Dispatch waits until then (the window less the approach time); null when the order can go now. */
  dispatchAfter: string | null;
}

/**
 * The batched rate's promise: dispatch waits `waitMs` from when the order could first go (now, or its
 * pickup window's opening) for companions in its zone, and every estimate moves by that wait — the
 * batched quote's later estimate. A delivery deadline shortens the wait rather than being missed.
 */
export function withBatchWindow(plan: SchedulePlan, options: { now: Date; waitMs: number }): SchedulePlan & { batchWindow: BatchWindow } {
  const opensAt = plan.dispatchAfter ? Date.parse(plan.dispatchAfter) : options.now.getTime();
  const room = plan.deliverBefore === null ? Infinity : Date.parse(plan.deliverBefore) - plan.deliveryAt.getTime();
  const wait = Math.max(0, Math.min(options.waitMs, room));
  const closesAt = new Date(opensAt + wait).toISOString();
  return Object.assign({}, plan, {
    pickupAt: new Date(plan.pickupAt.getTime() + wait),
    deliveryAt: new Date(plan.deliveryAt.getTime() + wait),
    dispatchAfter: closesAt,
    batchWindow: { opensAt: new Date(opensAt).toISOString(), closesAt },
  });
}

/** Field names are the domain's (GraphQL's); REST renames them to its wire names (pickup_after, deliver_before). */
const unreachable = (message: string, field: string) =>
  new AppError('DELIVERY_WINDOW_UNREACHABLE', message, { fields: [{ field, message }] });

/**
 * Places a delivery in time. Without a window: pickup after `waitMs` (preparation or the courier's
 * approach), delivery after `travelMs`. With `pickupAfter`: the pickup is not before it, and dispatch
 * waits until `approachMs` before it. `deliverBefore` must leave room for the earliest delivery.
 * Past times, times more than 7 days ahead and deadlines that cannot be met are refused with 422
 * DELIVERY_WINDOW_UNREACHABLE.
 */
export function planSchedule(options: { now: Date; request: ScheduleRequest; waitMs: number; travelMs: number; approachMs: number }): SchedulePlan {
  const { now, request } = options;
  const nowMs = now.getTime();
  const horizon = nowMs + SCHEDULE_HORIZON_MS;
  const pickupAfter = request.pickupAfter ? Date.parse(request.pickupAfter) : null;
  const deliverBefore = request.deliverBefore ? Date.parse(request.deliverBefore) : null;
  if (pickupAfter !== null) {
    if (pickupAfter < nowMs - PAST_SLACK_MS) throw unreachable('The requested pickup time is in the past', 'pickupAfter');
    if (pickupAfter > horizon) throw unreachable('The requested pickup time is more than 7 days ahead', 'pickupAfter');
  }
  if (deliverBefore !== null) {
    if (deliverBefore <= nowMs) throw unreachable('The requested delivery deadline is in the past', 'deliverBefore');
    if (deliverBefore > horizon) throw unreachable('The requested delivery deadline is more than 7 days ahead', 'deliverBefore');
  }
  const pickupAt = new Date(Math.max(nowMs + options.waitMs, pickupAfter ?? 0));
  const deliveryAt = new Date(pickupAt.getTime() + options.travelMs);
  if (deliverBefore !== null && deliveryAt.getTime() > deliverBefore) {
    throw unreachable(`The requested delivery deadline is earlier than the earliest possible delivery (${deliveryAt.toISOString()})`, 'deliverBefore');
  }
  const opensAt = pickupAfter === null ? null : pickupAfter - options.approachMs;
  return {
    pickupAt,
    deliveryAt,
    scheduledPickupAt: pickupAfter === null ? null : new Date(pickupAfter).toISOString(),
    deliverBefore: deliverBefore === null ? null : new Date(deliverBefore).toISOString(),
    dispatchAfter: opensAt !== null && opensAt > nowMs ? new Date(opensAt).toISOString() : null,
  };
}
