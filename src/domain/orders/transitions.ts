import type { Clock } from '../../ports/clock.js';
import type { EventBus } from '../../ports/event-bus.js';
import type { IdSource } from '../../ports/ids.js';
import type { NewOrderEvent, OrderPatch, Store } from '../../ports/store.js';
import { AppError } from '../errors.js';
import type { ActorKind, LatLng, LedgerEntry, Order, OrderStatus } from '../types.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { NotificationOutbox } from '../notifications/outbox.js';
import { orderStatusMessage } from './messages.js';
import { canTransition, forbiddenMove, stepsTo } from './state-machine.js';

export interface Actor {
  kind: ActorKind;
  id: string | null;
}

export type OrderTransitions = ReturnType<typeof createOrderTransitions>;

interface TransitionOptions {
  order: Order;
  to: OrderStatus;
  actor: Actor;
  /** Applied with the move to `to` (not with a skipped arrival recorded before it). */
  patch?: OrderPatch;
  location?: LatLng | null;
  reason?: string | null;
  ledger?: LedgerEntry | null;
  /**
   * Patch and ledger entry read from the order as the move finds it (they win over `patch` and
   * `ledger`): a move re-planned after a lost race is charged for the status it really leaves.
   */
  settle?: (order: Order) => { patch: OrderPatch; ledger: LedgerEntry | null };
}

/** A lost race is re-planned from the status found this many times before it is reported. */
const ATTEMPTS = 3;

/**
 * The one way an order changes status, and the one place the state machine's table is enforced:
 * compare-and-set in the store, its history event and webhook deliveries written in the same
 * transaction, then the change published once on the bus.
 */
export function createOrderTransitions(deps: { store: Store; bus: EventBus; outbox: WebhookOutbox; clock: Clock; ids: IdSource; notifications?: NotificationOutbox }) {
  const { store, bus, outbox, clock, ids } = deps;

  function newEvent(order: Order, to: OrderStatus, actor: Actor, extra: { location?: LatLng | null; reason?: string | null } = {}): NewOrderEvent {
    return {
      id: ids.next('evt'), orderId: order.id, merchantId: order.merchantId, mode: order.mode, from: order.status, to,
      actor, location: extra.location ?? null, reason: extra.reason ?? null, at: clock.now().toISOString(),
    };
  }

  /** One move, if the order is still in the status it was read with; null when it moved meanwhile. */
  async function step(order: Order, to: OrderStatus, options: TransitionOptions, last: boolean): Promise<Order | null> {
    const settled = last && options.settle ? options.settle(order) : undefined;
    const patch = settled ? settled.patch : last ? options.patch : undefined;
    const ledger = settled ? settled.ledger : options.ledger;
    const courierId = patch && 'courierId' in patch ? (patch.courierId ?? null) : order.courierId;
    const [{ outbox: buildOutbox, feed }, notify] = await Promise.all([outbox.prepareChange(order, courierId), deps.notifications?.prepare(order)]);
    const updated = await store.orders.apply({
      id: order.id,
      from: [order.status],
      to,
      ...(patch && { patch }),
      event: newEvent(order, to, options.actor, { location: options.location ?? null, reason: last ? (options.reason ?? null) : null }),
      ...(last && ledger !== undefined && { ledger }),
      ...(buildOutbox && { outbox: buildOutbox }),
      feed,
      ...(notify && { notifications: notify }),
    });
    if (updated) {
      notify?.report();
      await bus.publish(orderStatusMessage(updated, order.status));
    }
    return updated;
  }

  /**
   * Moves the order to `to` (recording a skipped arrival first, see `stepsTo`), or throws
   * INVALID_STATUS_TRANSITION / ORDER_NOT_CANCELLABLE when the table forbids it. When the order
   * moved meanwhile, the move is planned again from the status found, or refused from it.
   */
  async function transition(options: TransitionOptions): Promise<Order> {
    let order = options.order;
    for (let attempt = 1; ; attempt++) {
      const steps = stepsTo(order.status, options.to);
      if (!steps) throw forbiddenMove(order.status, options.to);
      let moved: Order | null = order;
      for (let i = 0; i < steps.length && moved; i++) moved = await step(moved, steps[i]!, options, i === steps.length - 1);
      if (moved?.status === options.to) return moved;
      const current = await store.orders.findById(order.id);
      if (!current) throw forbiddenMove(order.status, options.to);
      // A courier's move is re-planned only while the order is still theirs (not after a release and re-dispatch).
      const notTheirs = options.actor.kind === 'courier' && current.courierId !== options.actor.id;
      if (current.status === order.status || notTheirs || attempt >= ATTEMPTS) {
        throw stepsTo(current.status, options.to) ? new AppError('INVALID_STATUS_TRANSITION', `Order ${order.id} changed meanwhile; read it again`) : forbiddenMove(current.status, options.to);
      }
      order = current;
    }
  }

  /** The single move if the table allows it from the order's status and nobody moved it meanwhile; else null (system moves that simply give up). */
  async function tryTransition(options: TransitionOptions): Promise<Order | null> {
    if (!canTransition(options.order.status, options.to)) return null;
    return step(options.order, options.to, options, true);
  }

  return { transition, tryTransition, newEvent };
}
