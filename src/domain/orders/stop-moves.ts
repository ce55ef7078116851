import type { LatLng, Order, OrderStop } from '../types.js';
import { AppError } from '../errors.js';
import { isStatusIn } from '../vocabulary.js';
import { isLastOpenStop, withStopMoved } from './stops.js';
import type { Actor, OrderTransitions } from './transitions.js';

/** A stop can only be served once the parcels are picked up: else the order's own table says why not. */
export function assertOnTheRoad(order: Order): void {
  if (!isStatusIn('onTheRoad', order.status)) throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}; its stops are served after pickup`);
}

/** The courier is at the current stop: the order moves to `arrived_dropoff` and the stop to `arrived`, read from the order as the move finds it. */
export async function arriveAtStop(options: { transitions: OrderTransitions; order: Order; stopId: string; actor: Actor; location: LatLng | null; at: string }): Promise<Order> {
  const { stopId, at } = options;
  return options.transitions.transition({
    order: options.order, to: 'arrived_dropoff', actor: options.actor, location: options.location,
    settle: (found) => ({ patch: { stops: withStopMoved(found, stopId, 'arrived', { arrivedAt: at }) }, ledger: null }),
  });
}

/**
 * The current stop is delivered or failed (recording the arrival first when the courier skipped it):
 * the order goes on to the next stop (`picked_up`) or, after the last one, completes. A delivered
 * last stop's proof is also the order's.
 */
export async function settleStop(options: {
  transitions: OrderTransitions;
  order: Order;
  stopId: string;
  to: 'delivered' | 'failed';
  fields: Partial<OrderStop>;
  actor: Actor;
  location: LatLng | null;
  reason: string | null;
  at: string;
}): Promise<{ order: Order; completed: boolean }> {
  const { transitions, stopId, to, fields, actor, location } = options;
  assertOnTheRoad(options.order);
  const order = options.order.status === 'picked_up' ? await arriveAtStop({ transitions, order: options.order, stopId, actor, location, at: options.at }) : options.order;
  const completed = isLastOpenStop(order, stopId);
  const moved = await transitions.transition({
    order, to: completed ? 'completed' : 'picked_up', actor, location, reason: options.reason,
    settle: (found) => ({ patch: { stops: withStopMoved(found, stopId, to, fields), ...(completed && fields.proof && { proof: fields.proof }) }, ledger: null }),
  });
  return { order: moved, completed };
}
