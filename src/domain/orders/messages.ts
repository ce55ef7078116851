import type { OrderStatusMessage } from '../../ports/event-bus.js';
import type { Order, OrderStatus } from '../types.js';

/** The bus message for an order that just moved from `from` to its current status. */
export function orderStatusMessage(order: Order, from: OrderStatus | null): OrderStatusMessage {
  return {
    type: 'order.status_changed',
    orderId: order.id,
    merchantId: order.merchantId,
    mode: order.mode,
    trackingNumber: order.trackingNumber,
    orderNumber: order.orderNumber,
    from,
    status: order.status,
    sequence: order.sequence,
    courierId: order.courierId,
    at: order.updatedAt,
  };
}
