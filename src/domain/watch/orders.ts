import type { Clock } from '../../ports/clock.js';
import type { OrderStatusMessage } from '../../ports/event-bus.js';
import type { Store } from '../../ports/store.js';
import type { CourierPrincipal, MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import type { LatLng, Order, OrderStatus } from '../types.js';
import type { WatchFanOut } from './fan-out.js';
import { watchIterator } from './iterator.js';
import { createStatusResync } from './resync.js';

/** Orders of the merchant's newest page looked at by a resync of the merchant stream. */
const RESYNC_NEWEST = 50;
/** A resync looks at orders changed since shortly before the stream started (the nodes' clocks differ a little). */
const RESYNC_SKEW_MS = 5000;

export interface OrderStatusUpdate {
  kind: 'status';
  orderId: string;
  trackingNumber: string;
  from: OrderStatus | null;
  status: OrderStatus;
  sequence: number;
  at: string;
  /** The order as it is now; the watcher may see it, being the order's merchant or courier. */
  order: () => Promise<Order | null>;
}

export interface CourierPositionUpdate {
  kind: 'position';
  orderId: string;
  location: LatLng;
  at: string;
}

export type OrderUpdate = OrderStatusUpdate | CourierPositionUpdate;

/**
 * Watching orders, for their merchant (one order, or all of one mode) and their courier. Who may
 * watch what is decided here: an order is found only within the principal's merchant and mode, the
 * merchant stream is keyed by the principal's merchant and mode, the courier stream by the courier.
 * Each returns a bounded async iterator over the node's fan-out; return() stops it.
 */
export function createOrderWatch(deps: {
  fanOut: WatchFanOut;
  store: Store;
  clock: Clock;
  getOrder: (options: { principal: MerchantPrincipal; ref: string }) => Promise<Order>;
}) {
  const { fanOut, store } = deps;
  const statusUpdate = (m: OrderStatusMessage): OrderStatusUpdate => ({
    kind: 'status', orderId: m.orderId, trackingNumber: m.trackingNumber, from: m.from, status: m.status, sequence: m.sequence, at: m.at,
    order: () => store.orders.findById(m.orderId),
  });

  const currentStatus = (o: Order): OrderStatusUpdate => ({
    kind: 'status', orderId: o.id, trackingNumber: o.trackingNumber, from: null, status: o.status, sequence: o.sequence, at: o.updatedAt,
    order: () => store.orders.findById(o.id),
  });

  /** One order's status changes and courier positions (`only` one kind). */
  async function watch<K extends OrderUpdate['kind'] = OrderUpdate['kind']>(options: {
    principal: MerchantPrincipal;
    ref: string;
    only?: K;
    /**
     * The sequence the caller already shows: if the order has moved past it by the time the watch
     * listens, its current status comes first. Closes the gap between reading an order and watching
     * it, where a change would otherwise be missed for good.
     */
    afterSequence?: number;
  }): Promise<AsyncIterableIterator<Extract<OrderUpdate, { kind: K }>>> {
    const merchant = requireMerchant(options.principal);
    const order = await deps.getOrder({ principal: merchant, ref: options.ref });
    const wants = (kind: OrderUpdate['kind']) => options.only === undefined || options.only === kind;
    return watchIterator<Extract<OrderUpdate, { kind: K }>>((push) => {
      let newestSent = -1;
      const stopOrder = fanOut.onOrder(order.id, (m) => {
        if (m.type === 'order.status_changed') {
          newestSent = Math.max(newestSent, m.sequence);
          if (wants('status')) push(statusUpdate(m) as Extract<OrderUpdate, { kind: K }>);
        } else if (wants('position') && m.mode === order.mode) {
          push({ kind: 'position', orderId: order.id, location: m.location, at: m.at } as Extract<OrderUpdate, { kind: K }>);
        }
      });
      // After a bus outage the order's current status is sent again (changes may have been missed).
      const stopResync = wants('status')
        ? fanOut.onResync(() => {
            store.orders.findById(order.id).then(
              (current) => current && push(currentStatus(current) as Extract<OrderUpdate, { kind: K }>),
              () => {}, // the store is away too: the next change brings the status
            );
          })
        : () => {};
      const { afterSequence } = options;
      // Read after listening: a change made meanwhile comes by the bus or by this read (once).
      if (afterSequence !== undefined && wants('status')) {
        store.orders.findById(order.id).then(
          (current) => current && current.sequence > Math.max(afterSequence, newestSent) && push(currentStatus(current) as Extract<OrderUpdate, { kind: K }>),
          () => {}, // the store is away: the next change brings the status
        );
      }
      return () => {
        stopOrder();
        stopResync();
      };
    });
  }

  /**
   * A many-order status stream: its bus messages, and after a bus outage the current status of the
   * orders it missed (see resync.ts), each with `from: null`.
   */
  function statusStream(
    subscribe: (sink: (m: OrderStatusMessage) => void) => () => void,
    candidates: (activeShown: string[]) => Promise<Array<Order | null>>,
  ): AsyncIterableIterator<OrderStatusUpdate> {
    const resync = createStatusResync({ startedAt: new Date(deps.clock.now().getTime() - RESYNC_SKEW_MS).toISOString(), candidates });
    return watchIterator<OrderStatusUpdate>((push) => {
      const stopMessages = subscribe((m) => {
        resync.saw({ id: m.orderId, sequence: m.sequence, status: m.status });
        push(statusUpdate(m));
      });
      const stopResync = fanOut.onResync(() => {
        resync.missed().then(
          (orders) => orders.forEach((o) => push(currentStatus(o))),
          () => {}, // the store is away too: the next change brings the status
        );
      });
      return () => {
        stopMessages();
        stopResync();
      };
    });
  }

  const reread = (ids: string[]) => Promise.all(ids.map((id) => store.orders.findById(id)));

  /** Every status change of the principal's orders in the principal's mode. */
  function watchMerchant(options: { principal: MerchantPrincipal }): AsyncIterableIterator<OrderStatusUpdate> {
    const { merchant, mode } = requireMerchant(options.principal);
    return statusStream(
      (sink) => fanOut.onMerchant(merchant.id, mode, sink),
      // The active orders shown, and the newest page: orders created or changed during the outage.
      async (active) => [...(await reread(active)), ...(await store.orders.list({ merchantId: merchant.id, mode, limit: RESYNC_NEWEST }))],
    );
  }

  /** Status changes of the orders assigned to the courier (new assignments included). */
  function watchAssignments(options: { courier: CourierPrincipal }): AsyncIterableIterator<OrderStatusUpdate> {
    if (options.courier?.kind !== 'courier') throw new AppError('FORBIDDEN', 'Only a courier can watch its assignments');
    const courierId = options.courier.courier.id;
    return statusStream(
      (sink) => fanOut.onCourier(courierId, sink),
      // The active orders shown, and the courier's current job: an assignment made during the outage.
      async (active) => [...(await reread(active)), ...(await currentJobOrders(courierId))],
    );
  }

  async function currentJobOrders(courierId: string): Promise<Array<Order | null>> {
    const job = (await store.couriers.findById(courierId))?.job;
    if (!job) return [];
    if (job.kind === 'order') return reread([job.id]);
    const batch = await store.batches.findById(job.id);
    return batch ? reread(batch.orderIds) : [];
  }

  return { orders: { watch, watchMerchant }, couriers: { watchAssignments } };
}

function requireMerchant(principal: MerchantPrincipal): MerchantPrincipal {
  if (principal?.kind !== 'merchant') throw new AppError('INVALID_API_KEY', 'API key missing or invalid');
  return principal;
}

/**
 * Wake-ups for the webhook worker: a signal whenever a message may have written deliveries (status
 * changes, batches, positions of orders), coalesced (at most one pending), over the same fan-out.
 */
export function createWebhookWorkWatch(deps: { fanOut: WatchFanOut }) {
  function watchWork(): AsyncIterableIterator<true> {
    return watchIterator<true>((push) => {
      const stopMessages = deps.fanOut.onEverything((m) => {
        // courier.changed repeats, for the courier snapshots, writes whose own messages already woke it.
        if (m.type === 'courier.changed') return;
        if (m.type !== 'courier.position' || m.wroteWebhooks) push(true);
      });
      const stopResync = deps.fanOut.onResync(() => push(true)); // wake-ups missed during the outage
      return () => {
        stopMessages();
        stopResync();
      };
    }, 1);
  }
  return { watchWork };
}
