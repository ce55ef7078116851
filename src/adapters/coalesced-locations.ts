import type { Courier } from '../domain/types.js';
import type { CourierPosition, CourierRepository, Store } from '../ports/store.js';

/** Positions written per store call during a flush. */
export const FLUSH_CHUNK = 250;

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
  /**
   * Writes in chunks with I/O between them: one synchronous batch of 2,000 positions held every
   * frame and ack for tens of milliseconds each second. A position leaves `pending` only once
   * written (and only if no newer one replaced it), so reads see it until then and a failed chunk
   * is retried at the next flush with whatever followed it.
   */
  async function writePending(): Promise<void> {
    if (pending.size === 0) return;
    const batch = [...pending.values()];
    for (let start = 0; start < batch.length; start += FLUSH_CHUNK) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      const chunk = batch.slice(start, start + FLUSH_CHUNK);
      try {
        await base.setLocations(chunk);
      } catch (error) {
        counters.failedFlushes++;
        options.onFlushError(error as Error);
        return;
      }
      counters.written += chunk.length;
      for (const position of chunk) if (pending.get(position.id) === position) pending.delete(position.id);
    }
    counters.flushes++;
  }
  const flush = () => (flushing ??= writePending().finally(() => (flushing = null)));

  const timer = setInterval(() => void flush(), options.flushMs);
  timer.unref();

  const couriers: CourierRepository = {
    insert: (c) => base.insert(c),
    findById: async (id) => overlay(await base.findById(id)),
    findByTokenHash: async (hash) => overlay(await base.findByTokenHash(hash)),
    listByMode: async (mode) => (await base.listByMode(mode)).map(overlay),
    listPage: async (o) => (await base.listPage(o)).map(overlay),
    setStatus: async (o) => overlay(await base.setStatus(o)),
    replaceTokenHash: async (o) => overlay(await base.replaceTokenHash(o)),
    setAccountStatus: async (o) => overlay(await base.setAccountStatus(o)),
    async delete(id) {
      pending.delete(id);
      return base.delete(id);
    },
    setShiftEnd: async (o) => overlay(await base.setShiftEnd(o)),
    async setLocations(positions) {
      let prompt: CourierPosition[] | undefined;
      for (const position of positions) {
        const held = pending.get(position.id);
        if (position.prompt) {
          if (held && held.at <= position.at) pending.delete(position.id);
          (prompt ??= []).push(position);
        } else if (!held || held.at <= position.at) {
          pending.set(position.id, position);
        }
      }
      if (prompt) await base.setLocations(prompt);
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
