import type { Courier } from '../domain/types.js';
import type { CourierPosition, CourierRepository, Store } from '../ports/store.js';

export interface CoalescedLocations {
  store: Store;
  /** Writes what is pending now (also done every `flushMs` and on close). */
  flush(): Promise<void>;
  stats(): { pending: number; flushes: number; written: number; failedFlushes: number };
}

/**
 * Courier positions arrive about once a second per courier; each used to be its own store write.
 * This keeps only the latest position per courier and writes them all in one batch every
 * `flushMs`. Reads through the returned store see the pending position at once (read-your-writes
 * on this node); a crash loses at most the positions of the last unflushed batch. Status changes,
 * jobs and everything else still go straight to the store: only positions wait.
 */
export function withCoalescedLocations(inner: Store, options: { flushMs: number; onFlushError: (error: Error) => void }): CoalescedLocations {
  const pending = new Map<string, CourierPosition>();
  const base = inner.couriers;
  const counters = { flushes: 0, written: 0, failedFlushes: 0 };

  const overlay = <T extends Courier | null>(courier: T): T => {
    const latest = courier && pending.get(courier.id);
    if (latest && (courier.locationAt === null || courier.locationAt <= latest.at)) {
      courier.location = latest.location;
      courier.locationAt = latest.at;
    }
    return courier;
  };

  let flushing: Promise<void> | null = null;
  async function writePending(): Promise<void> {
    if (pending.size === 0) return;
    const batch = [...pending.values()];
    pending.clear();
    try {
      await base.setLocations(batch);
      counters.flushes++;
      counters.written += batch.length;
    } catch (error) {
      counters.failedFlushes++;
      // Kept for the next flush unless a newer position arrived meanwhile.
      for (const position of batch) if (!pending.has(position.id)) pending.set(position.id, position);
      options.onFlushError(error as Error);
    }
  }
  const flush = () => (flushing ??= writePending().finally(() => (flushing = null)));

  const timer = setInterval(() => void flush(), options.flushMs);
  timer.unref();

  const couriers: CourierRepository = {
    insert: (c) => base.insert(c),
    findById: async (id) => overlay(await base.findById(id)),
    findByTokenHash: async (hash) => overlay(await base.findByTokenHash(hash)),
    listByMode: async (mode) => (await base.listByMode(mode)).map(overlay),
    setStatus: async (o) => overlay(await base.setStatus(o)),
    replaceTokenHash: async (o) => overlay(await base.replaceTokenHash(o)),
    setAccountStatus: async (o) => overlay(await base.setAccountStatus(o)),
    async setLocations(positions) {
      for (const position of positions) {
        const held = pending.get(position.id);
        if (!held || held.at <= position.at) pending.set(position.id, position);
      }
    },
  };

  const store: Store = Object.assign({}, inner, {
    couriers,
    async close() {
      clearInterval(timer);
      await flushing;
      await flush();
      await inner.close();
    },
  });
  return { store, flush, stats: () => ({ pending: pending.size, ...counters }) };
}
