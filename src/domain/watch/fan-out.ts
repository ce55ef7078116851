import type { BusMessage, CourierChangedMessage, CourierPositionMessage, EventBus, OrderStatusMessage } from '../../ports/event-bus.js';
import type { Mode } from '../types.js';

export type OrderMessage = OrderStatusMessage | CourierPositionMessage;
type Sink<M> = (message: M) => void;

export type WatchFanOut = ReturnType<typeof createWatchFanOut>;

/**
 * The node's one bus subscription for everything that watches: each message is dispatched through
 * maps keyed by order, merchant+mode and courier, so a message nobody watches costs a few map
 * probes, whatever the number of watchers. Every `on…` returns its (idempotent) unregister, which
 * drops the key when its last sink leaves: sizes() goes back to zero once every watch ended.
 */
export function createWatchFanOut(deps: { bus: EventBus }) {
  const byOrder = new Map<string, Set<Sink<OrderMessage>>>();
  const byMerchant = new Map<string, Set<Sink<OrderStatusMessage>>>();
  const byCourier = new Map<string, Set<Sink<OrderStatusMessage>>>();
  const byCourierChange = new Map<string, Set<Sink<CourierChangedMessage>>>();
  /** Every message: for the node's few whole-stream listeners (the webhook worker's wake-ups). */
  const everything = new Set<Sink<BusMessage>>();
  let sinkCount = 0;

  function add<M>(index: Map<string, Set<Sink<M>>>, key: string, sink: Sink<M>): () => void {
    let sinks = index.get(key);
    if (!sinks) index.set(key, (sinks = new Set()));
    if (!sinks.has(sink)) sinkCount++;
    sinks.add(sink);
    return () => {
      const current = index.get(key);
      if (!current?.delete(sink)) return;
      sinkCount--;
      if (current.size === 0) index.delete(key);
    };
  }

  function send<M>(sinks: Set<Sink<M>> | undefined, message: M): void {
    if (!sinks) return;
    for (const sink of sinks) {
      try {
        sink(message);
      } catch {
        // a watcher's failure is its own; the others still get the message
      }
    }
  }

  const resyncSinks = new Set<() => void>();
  const stopResync = deps.bus.onResync(() => {
    for (const sink of resyncSinks) {
      try {
        sink();
      } catch {
        // as for messages
      }
    }
  });

  const unsubscribe = deps.bus.subscribe((message) => {
    if (message.type === 'order.status_changed') {
      send(byOrder.get(message.orderId), message);
      send(byMerchant.get(`${message.merchantId}:${message.mode}`), message);
      if (message.courierId) send(byCourier.get(message.courierId), message);
    } else if (message.type === 'courier.position') {
      for (const orderId of message.orderIds) send(byOrder.get(orderId), message);
    } else if (message.type === 'courier.changed' && message.courierId) {
      send(byCourierChange.get(message.courierId), message);
    }
    send(everything, message);
  });

  return {
    /** Status changes and courier positions of one order. */
    onOrder: (orderId: string, sink: Sink<OrderMessage>) => add(byOrder, orderId, sink),
    /** Status changes of one merchant's orders in one mode. */
    onMerchant: (merchantId: string, mode: Mode, sink: Sink<OrderStatusMessage>) => add(byMerchant, `${merchantId}:${mode}`, sink),
    /** Status changes of the orders a courier is assigned to (at the time of the change). */
    onCourier: (courierId: string, sink: Sink<OrderStatusMessage>) => add(byCourier, courierId, sink),
    /** Writes to a courier's record or to an order it holds (courier-changes.ts), by courier. */
    onCourierChanged: (courierId: string, sink: Sink<CourierChangedMessage>) => add(byCourierChange, courierId, sink),
    onEverything(sink: Sink<BusMessage>): () => void {
      everything.add(sink);
      return () => void everything.delete(sink);
    },
    /** The bus came back after missing messages: every holder of derived state (watch channels, the webhook worker) reads it again. */
    onResync(sink: () => void): () => void {
      resyncSinks.add(sink);
      return () => void resyncSinks.delete(sink);
    },
    /** Keys with at least one sink, indexed sinks in all, and whole-stream listeners: what tests and metrics read. */
    sizes: () => ({ orders: byOrder.size, merchants: byMerchant.size, couriers: byCourier.size + byCourierChange.size, sinks: sinkCount, everything: everything.size }),
    close: () => {
      unsubscribe();
      stopResync();
    },
  };
}
