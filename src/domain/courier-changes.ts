import type { EventBus } from '../ports/event-bus.js';
import type { Store } from '../ports/store.js';

/**
 * The store, with every applied write to a courier (duty status, job, account, token), to an order
 * a courier holds or held (transition, release, estimate) and to a batch published as a
 * `courier.changed` message once it is committed: courier snapshots (courier-snapshots.ts), on this
 * node and the others, hear of it whatever domain code wrote it.
 */
export function withCourierChanges(inner: Store, deps: { bus: EventBus; now: () => string }): Store {
  const changed = (courierId: string | null, orderIds: string[]) => deps.bus.publish({ type: 'courier.changed', courierId, orderIds, at: deps.now() });
  const couriers = Object.assign({}, inner.couriers, {
    async setStatus(options: Parameters<Store['couriers']['setStatus']>[0]) {
      const updated = await inner.couriers.setStatus(options);
      if (updated) await changed(updated.id, []);
      return updated;
    },
    async setShiftEnd(options: Parameters<Store['couriers']['setShiftEnd']>[0]) {
      const updated = await inner.couriers.setShiftEnd(options);
      if (updated) await changed(updated.id, []);
      return updated;
    },
    async setAccountStatus(options: Parameters<Store['couriers']['setAccountStatus']>[0]) {
      const updated = await inner.couriers.setAccountStatus(options);
      if (updated) await changed(updated.id, []);
      return updated;
    },
    async delete(id: string) {
      const deleted = await inner.couriers.delete(id);
      if (deleted) await changed(id, []);
      return deleted;
    },
    async replaceTokenHash(options: Parameters<Store['couriers']['replaceTokenHash']>[0]) {
      const updated = await inner.couriers.replaceTokenHash(options);
      if (updated) await changed(updated.id, []);
      return updated;
    },
  });
  const orders = Object.assign({}, inner.orders, {
    async apply(options: Parameters<Store['orders']['apply']>[0]) {
      const updated = await inner.orders.apply(options);
      if (updated && (updated.courierId !== null || options.patch?.courierId !== undefined)) await changed(updated.courierId, [updated.id]);
      return updated;
    },
    async updateEstimate(options: Parameters<Store['orders']['updateEstimate']>[0]) {
      const updated = await inner.orders.updateEstimate(options);
      if (updated) await changed(updated.courierId, [updated.id]);
      return updated;
    },
  });
  const batches = Object.assign({}, inner.batches, {
    async update(options: Parameters<Store['batches']['update']>[0]) {
      const updated = await inner.batches.update(options);
      if (updated) await changed(updated.courierId, updated.orderIds);
      return updated;
    },
  });
  return Object.assign({}, inner, { couriers, orders, batches });
}
