import type { Order, OrderStop } from '../types.js';
import { isHeadingToRecipient } from './state-machine.js';

/**
 * Whether a courier may see the recipient's phone (issue #38): only while the order is its job and
 * still on its way to the recipient — not once it is completed, cancelled, on its way back to the
 * shop after a failed attempt, returned or disposed of, nor once another courier has it.
 */
export function courierSeesCustomerPhone(order: Pick<Order, 'status' | 'courierId'>, courierId: string): boolean {
  return order.courierId === courierId && isHeadingToRecipient(order);
}

/** The same for one stop of a multi-stop order: only while that stop is still to be served. */
export function courierSeesStopPhone(order: Pick<Order, 'status' | 'courierId'>, stop: Pick<OrderStop, 'status'>, courierId: string): boolean {
  return courierSeesCustomerPhone(order, courierId) && (stop.status === 'pending' || stop.status === 'arrived');
}
