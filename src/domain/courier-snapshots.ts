import type { BusMessage, EventBus } from '../ports/event-bus.js';
import type { Courier, Order } from './types.js';

/** A courier as stored and the active orders of its job, as read together. */
export interface CourierSnapshot {
  courier: Courier;
  orders: Order[];
}

/** A snapshot is read again after this long even when no message said it changed (a message lost in flight). */
export const SNAPSHOT_MAX_AGE_MS = 5_000;

/**
 * Snapshots of the couriers that hold a session (the courier socket), so that a report reads the
 * store only after something changed: every write that can change one is published on the bus
 * (`courier.changed` from courier-changes.ts, `order.status_changed`), by any node, and drops it.
 * While the bus is not connected (Redis away, messages may be missed) every read goes to the
 * store, and a resync drops them all. A read that a message overtook is not kept.
 */
export function createCourierSnapshots(deps: {
  bus: EventBus;
  read: (courierId: string) => Promise<CourierSnapshot | null>;
  nowMs: () => number;
  maxAgeMs?: number;
}) {
  const maxAgeMs = deps.maxAgeMs ?? SNAPSHOT_MAX_AGE_MS;
  const holders = new Map<string, number>();
  const entries = new Map<string, { snapshot: CourierSnapshot; readAtMs: number }>();
  /** Which held courier's snapshot has the order. */
  const orderHolder = new Map<string, string>();
  /** Moved by every drop: a read that started before one is not kept. */
  let generation = 0;

  function forget(courierId: string): void {
    generation++;
    const entry = entries.get(courierId);
    if (!entry) return;
    entries.delete(courierId);
    for (const order of entry.snapshot.orders) if (orderHolder.get(order.id) === courierId) orderHolder.delete(order.id);
  }
  function forgetOrders(orderIds: readonly string[]): void {
    generation++;
    for (const id of orderIds) {
      const courierId = orderHolder.get(id);
      if (courierId) forget(courierId);
    }
  }
  function forgetAll(): void {
    generation++;
    entries.clear();
    orderHolder.clear();
  }
  function keep(courierId: string, snapshot: CourierSnapshot): void {
    forget(courierId);
    entries.set(courierId, { snapshot, readAtMs: deps.nowMs() });
    for (const order of snapshot.orders) orderHolder.set(order.id, courierId);
  }

  function hear(message: BusMessage): void {
    if (message.type === 'courier.changed' || message.type === 'order.status_changed') {
      if (message.courierId) forget(message.courierId);
      forgetOrders(message.type === 'courier.changed' ? message.orderIds : [message.orderId]);
    }
  }
  deps.bus.subscribe(hear);
  deps.bus.onResync(forgetAll);

  return {
    /** Keeps the courier's snapshot while held; returns the release. */
    hold(courierId: string): () => void {
      holders.set(courierId, (holders.get(courierId) ?? 0) + 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        const left = (holders.get(courierId) ?? 1) - 1;
        if (left > 0) return void holders.set(courierId, left);
        holders.delete(courierId);
        forget(courierId);
      };
    },

    /** The courier's snapshot: the one kept when nothing changed since, else read now (and kept while held). */
    async get(courierId: string): Promise<CourierSnapshot | null> {
      if (!deps.bus.connected()) {
        if (entries.size > 0) forgetAll();
        return deps.read(courierId);
      }
      const entry = entries.get(courierId);
      if (entry && deps.nowMs() - entry.readAtMs < maxAgeMs) return entry.snapshot;
      const readIn = generation;
      const snapshot = await deps.read(courierId);
      if (snapshot && readIn === generation && holders.has(courierId) && deps.bus.connected()) keep(courierId, snapshot);
      return snapshot;
    },

    /**
     * The courier's own report moved it (a position write publishes nothing): the snapshot the
     * report used, if still kept, takes the position. One read since (a change) is left as read.
     */
    moved(snapshot: CourierSnapshot, courier: Courier): void {
      const entry = entries.get(courier.id);
      if (entry?.snapshot === snapshot) entry.snapshot = { courier, orders: snapshot.orders };
    },

    stats: () => ({ held: holders.size, kept: entries.size }),
  };
}

export type CourierSnapshots = ReturnType<typeof createCourierSnapshots>;
