import type { OrderStatus } from '../types.js';

/** Every allowed move; anything else is INVALID_STATUS_TRANSITION (or ORDER_NOT_CANCELLABLE). */
export const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  new: ['assigned', 'cancelled'],
  assigned: ['arrived_pickup', 'picked_up', 'new', 'cancelled'],
  arrived_pickup: ['picked_up'],
  picked_up: ['arrived_dropoff'],
  arrived_dropoff: ['completed'],
  completed: [],
  cancelled: [],
};

export const CANCELLABLE: readonly OrderStatus[] = ['new', 'assigned'];
export const TERMINAL: readonly OrderStatus[] = ['completed', 'cancelled'];
/** Statuses in which the courier still has to reach the pickup. */
export const BEFORE_PICKUP: readonly OrderStatus[] = ['new', 'assigned', 'arrived_pickup'];

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The statuses from which `to` can be reached. */
export function sourcesOf(to: OrderStatus): OrderStatus[] {
  return (Object.keys(TRANSITIONS) as OrderStatus[]).filter((from) => TRANSITIONS[from].includes(to));
}
