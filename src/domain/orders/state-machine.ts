import { AppError } from '../errors.js';
import type { Order, OrderStatus } from '../types.js';
import { isStatusIn, ORDER_STATUS_SETS } from '../vocabulary.js';

/**
 * Every allowed single move; nothing else ever happens to an order's status (the transitions
 * service refuses anything outside this table). A courier may skip an arrival: see `stepsTo`.
 */
export const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  new: ['assigned', 'cancelled'],
  assigned: ['arrived_pickup', 'new', 'cancelled'],
  arrived_pickup: ['picked_up', 'cancelled'],
  picked_up: ['arrived_dropoff', 'delivery_failed'],
  // A multi-stop order goes back to `picked_up` when a stop that is not its last one is delivered or
  // failed (its stops have their own table, STOP_TRANSITIONS in stops.ts); after the last, `completed`.
  arrived_dropoff: ['completed', 'delivery_failed', 'picked_up'],
  completed: [],
  cancelled: [],
  // A failed attempt is recorded, then the order's policy moves it on at once (failed-attempts.ts):
  // retry (the courier still holds the parcel), the return leg, or disposal.
  delivery_failed: ['picked_up', 'returning', 'disposed'],
  returning: ['returned'],
  returned: [],
  disposed: [],
};

/** Arrivals a courier may skip: moving past one records it first (picking up straight from `assigned`). */
const SKIPPABLE_ARRIVAL: Partial<Record<OrderStatus, OrderStatus>> = { picked_up: 'arrived_pickup', completed: 'arrived_dropoff' };

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The statuses from which `to` can be reached in one move. */
export function sourcesOf(to: OrderStatus): OrderStatus[] {
  return (Object.keys(TRANSITIONS) as OrderStatus[]).filter((from) => TRANSITIONS[from].includes(to));
}

/** The moves that take an order from `from` to `to` (one, or a skipped arrival and then `to`); null when the table forbids it. */
export function stepsTo(from: OrderStatus, to: OrderStatus): OrderStatus[] | null {
  if (canTransition(from, to)) return [to];
  const arrival = SKIPPABLE_ARRIVAL[to];
  return arrival && canTransition(from, arrival) && canTransition(arrival, to) ? [arrival, to] : null;
}

/** The error for a move the table forbids: cancellation has its own code. */
export function forbiddenMove(from: OrderStatus, to: OrderStatus): AppError {
  if (to === 'cancelled') {
    return new AppError('ORDER_NOT_CANCELLABLE', `Order is ${from}; only ${ORDER_STATUS_SETS.cancellable.join(' or ')} orders (not yet picked up) can be cancelled`);
  }
  return new AppError('INVALID_STATUS_TRANSITION', `Order is ${from}; it cannot move to ${to}`);
}

/** Throws the table's error unless `to` can be reached from `from` (for checks that must come before other validation). */
export function assertReachable(from: OrderStatus, to: OrderStatus): void {
  if (!stepsTo(from, to)) throw forbiddenMove(from, to);
}

/** Not yet picked up: a cancellation is still possible (its fee: cancellation.ts). */
export function isOrderCancellable(order: Pick<Order, 'status'>): boolean {
  return isStatusIn('cancellable', order.status);
}

/** Still in progress: not completed, cancelled, returned or disposed. */
export function isOrderActive(order: Pick<Order, 'status'>): boolean {
  return !isStatusIn('terminal', order.status);
}

/**
 * The recipient sees the courier's position (and live estimate) only while the parcel is on its way
 * to them: not before an order is active, not on the way back to the shop, not after.
 */
export function isHeadingToRecipient(order: Pick<Order, 'status'>): boolean {
  return isOrderActive(order) && !isStatusIn('returnLeg', order.status);
}
