import type { Store } from '../../ports/store.js';
import type { Courier, Order, OrderStatus } from '../types.js';
import type { WatchFanOut } from './fan-out.js';

/** The courier's job as stored after a change: its active orders, and the ones it no longer holds. */
export interface CourierJobUpdate {
  courier: Courier;
  orders: Order[];
  /** Active before, not now: its status if it ended with this courier (completed, cancelled…), null if it went elsewhere. */
  gone: Array<{ id: string; status: OrderStatus | null }>;
}

/**
 * The courier's job pushed to its app (issue #27): the active orders at once, then again after every
 * write that may touch them — an assignment, a release, a status change, a new estimate, a
 * cancellation — heard on the fan-out: the courier's own changes (courier-changes.ts), and the
 * status changes of the orders it held (a release names no courier any more). Reads are one at a
 * time; changes heard during one make one more read, so a burst costs two reads, not one each.
 */
export function createCourierJobWatch(deps: { fanOut: WatchFanOut; store: Store; activeOrders: (courier: Courier) => Promise<Order[]> }) {
  const { fanOut, store } = deps;

  function watchJob(options: { courierId: string; push: (update: CourierJobUpdate) => void; failed?: (error: unknown) => void }): () => void {
    const { courierId } = options;
    const held = new Map<string, () => void>();
    let stopped = false;
    let reading = false;
    let again = false;

    async function read(): Promise<void> {
      const courier = await store.couriers.findById(courierId);
      if (!courier || stopped) return;
      const orders = await deps.activeOrders(courier);
      const now = new Set(orders.map((o) => o.id));
      const gone: CourierJobUpdate['gone'] = [];
      for (const [id, stop] of held) {
        if (now.has(id)) continue;
        stop();
        held.delete(id);
        const order = await store.orders.findById(id);
        gone.push({ id, status: order && order.courierId === courierId ? order.status : null });
      }
      for (const id of now) if (!held.has(id)) held.set(id, fanOut.onOrder(id, (m) => m.type === 'order.status_changed' && changed()));
      if (!stopped) options.push({ courier, orders, gone });
    }

    function changed(): void {
      if (stopped) return;
      if (reading) return void (again = true);
      reading = true;
      read().catch((error: unknown) => options.failed?.(error)).finally(() => {
        reading = false;
        if (again) {
          again = false;
          changed();
        }
      });
    }

    const stopCourier = fanOut.onCourierChanged(courierId, changed);
    const stopResync = fanOut.onResync(changed);
    changed();
    return () => {
      stopped = true;
      stopCourier();
      stopResync();
      for (const stop of held.values()) stop();
      held.clear();
    };
  }

  return { watchJob };
}
