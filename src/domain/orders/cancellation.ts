import type { Tariff } from '../tariffs.js';
import type { Order, OrderStatus } from '../types.js';
import { canTransition } from './state-machine.js';

export interface CancellationPreview {
  cancellable: boolean;
  /** CLP (integer pesos); null when the order cannot be cancelled. */
  fee: number | null;
  currency: 'CLP';
  /** The status the fee was read from. */
  basis: OrderStatus;
  /** When the fee is expected to change (the courier is due at the pickup); null: not known, or never. */
  validUntil: string | null;
}

/** The fee the tariff asks for cancelling from a status; never more than the order's price. */
function feeFor(tariff: Tariff, order: Pick<Order, 'status' | 'price'>): number {
  const { assigned_fee, at_pickup_fee } = tariff.cancellation;
  const fee = order.status === 'assigned' ? assigned_fee : order.status === 'arrived_pickup' ? at_pickup_fee : 0;
  return Math.min(fee, order.price);
}

/**
 * What cancelling the order at `at` would cost and until when that holds. Test-mode orders get the
 * same answer: only the ledger (live only) turns the fee into money.
 */
export function previewCancellation(options: { order: Pick<Order, 'status' | 'price' | 'estimatedPickupAt'>; at: Date; tariff: Tariff }): CancellationPreview {
  const { order, at, tariff } = options;
  const basis = order.status;
  if (!canTransition(order.status, 'cancelled')) return { cancellable: false, fee: null, currency: 'CLP', basis, validUntil: null };
  // While assigned, the fee rises when the courier reaches the pickup: expected at the estimated pickup time.
  const due = order.status === 'assigned' && Date.parse(order.estimatedPickupAt) > at.getTime() ? order.estimatedPickupAt : null;
  return { cancellable: true, fee: feeFor(tariff, order), currency: 'CLP', basis, validUntil: due };
}
