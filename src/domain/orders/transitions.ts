import type { Clock } from '../../ports/clock.js';
import type { EventBus } from '../../ports/event-bus.js';
import type { IdSource } from '../../ports/ids.js';
import type { NewOrderEvent, OrderPatch, Store } from '../../ports/store.js';
import type { ActorKind, LatLng, LedgerEntry, Order, OrderStatus } from '../types.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { orderStatusMessage } from './messages.js';

export interface Actor {
  kind: ActorKind;
  id: string | null;
}

export type OrderTransitions = ReturnType<typeof createOrderTransitions>;

/**
 * The one way an order changes status: compare-and-set in the store, its history event and
 * webhook deliveries written in the same transaction, then the change published once on the bus.
 */
export function createOrderTransitions(deps: { store: Store; bus: EventBus; outbox: WebhookOutbox; clock: Clock; ids: IdSource }) {
  const { store, bus, outbox, clock, ids } = deps;

  function newEvent(order: Order, to: OrderStatus, actor: Actor, extra: { location?: LatLng | null; reason?: string | null } = {}): NewOrderEvent {
    return {
      id: ids.next('evt'), orderId: order.id, merchantId: order.merchantId, mode: order.mode, from: order.status, to,
      actor, location: extra.location ?? null, reason: extra.reason ?? null, at: clock.now().toISOString(),
    };
  }

  /** Moves `order` to `to` if its status is still one of `from` (default: the status it was read with). */
  async function transition(options: {
    order: Order;
    to: OrderStatus;
    actor: Actor;
    from?: OrderStatus[];
    patch?: OrderPatch;
    location?: LatLng | null;
    reason?: string | null;
    ledger?: LedgerEntry | null;
  }): Promise<Order | null> {
    const { order, to, patch } = options;
    const courierId = patch && 'courierId' in patch ? (patch.courierId ?? null) : order.courierId;
    const buildOutbox = await outbox.prepareTransition(order, courierId);
    const updated = await store.orders.apply({
      id: order.id,
      from: options.from ?? [order.status],
      to,
      ...(patch && { patch }),
      event: newEvent(order, to, options.actor, { location: options.location ?? null, reason: options.reason ?? null }),
      ...(options.ledger !== undefined && { ledger: options.ledger }),
      ...(buildOutbox && { outbox: buildOutbox }),
    });
    if (updated) await bus.publish(orderStatusMessage(updated, order.status));
    return updated;
  }

  return { transition, newEvent };
}
