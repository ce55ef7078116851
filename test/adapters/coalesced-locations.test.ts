import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FLUSH_CHUNK, withCoalescedLocations } from '../../src/adapters/coalesced-locations.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import type { CourierPosition, Store } from '../../src/ports/store.js';
import { at, courier } from '../contract/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'exd-coalesced-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real SQLite store whose position writes are observed (and, when `failAt` is set, that call fails). */
function observedStore(options: { failAt?: number } = {}) {
  const inner = createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) });
  const calls: Array<{ size: number; ioBefore: number }> = [];
  let ioTurns = 0;
  const write = inner.couriers.setLocations.bind(inner.couriers);
  const store: Store = Object.assign({}, inner, {
    couriers: Object.assign({}, inner.couriers, {
      async setLocations(positions: readonly CourierPosition[]) {
        calls.push({ size: positions.length, ioBefore: ioTurns });
        if (calls.length === options.failAt) throw new Error('disk full');
        await write(positions);
      },
    }),
  });
  const errors: Error[] = [];
  // flushMs is long: the tests flush by hand.
  const coalesced = withCoalescedLocations(store, { flushMs: 3_600_000, onFlushError: (error) => errors.push(error) });
  /** Counts event-loop turns (I/O phases) while a flush runs. */
  const countTurns = () => {
    let running = true;
    const turn = () => {
      if (!running) return;
      ioTurns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    return () => (running = false);
  };
  return { inner, coalesced, calls, errors, countTurns };
}

async function couriersAt(store: Store, count: number) {
  const all = Array.from({ length: count }, () => courier({ status: 'available' }));
  for (const c of all) await store.couriers.insert(c);
  return all;
}
const position = (id: string, i: number, second: number): CourierPosition => ({
  id,
  location: { lat: -33.4 - i * 1e-5, lng: -70.6 },
  at: at(1_000 + second),
});

describe('coalesced courier positions', () => {
  it(`writes a large batch in chunks of ${FLUSH_CHUNK} with I/O between them, and every position lands`, async () => {
    const { inner, coalesced, calls, countTurns } = observedStore();
    const all = await couriersAt(inner, FLUSH_CHUNK * 2 + 10);
    await coalesced.store.couriers.setLocations(all.map((c, i) => position(c.id, i, 1)));
    const stop = countTurns();
    await coalesced.flush();
    stop();
    expect(calls.map((c) => c.size)).toStrictEqual([FLUSH_CHUNK, FLUSH_CHUNK, 10]);
    // Each chunk after the first starts after at least one more event-loop turn.
    expect(calls[1]!.ioBefore).toBeGreaterThan(calls[0]!.ioBefore);
    expect(calls[2]!.ioBefore).toBeGreaterThan(calls[1]!.ioBefore);
    for (const [i, c] of all.entries()) expect((await inner.couriers.findById(c.id))?.location).toStrictEqual(position(c.id, i, 1).location);
    expect(coalesced.stats()).toMatchObject({ pending: 0, written: all.length, flushes: 1 });
    await coalesced.store.close();
  });

  it('a position not yet written stays visible to reads while the flush runs', async () => {
    const { inner, coalesced, calls } = observedStore();
    const all = await couriersAt(inner, FLUSH_CHUNK + 1);
    await coalesced.store.couriers.setLocations(all.map((c, i) => position(c.id, i, 2)));
    const last = all.at(-1)!;
    const flushing = coalesced.flush();
    // Between the chunks: the last courier's position is not in the store yet, and reads still see it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(1);
    const pendingLocation = position(last.id, all.length - 1, 2).location;
    expect((await inner.couriers.findById(last.id))?.location).not.toStrictEqual(pendingLocation);
    expect((await coalesced.store.couriers.findById(last.id))?.location).toStrictEqual(pendingLocation);
    await flushing;
    expect((await inner.couriers.findById(last.id))?.location).toStrictEqual(position(last.id, all.length - 1, 2).location);
    await coalesced.store.close();
  });

  it('a failed chunk keeps its positions and the later ones for the next flush; a newer report wins', async () => {
    const { inner, coalesced, errors } = observedStore({ failAt: 2 });
    const all = await couriersAt(inner, FLUSH_CHUNK * 2);
    await coalesced.store.couriers.setLocations(all.map((c, i) => position(c.id, i, 3)));
    await coalesced.flush();
    expect(errors.map((e) => e.message)).toStrictEqual(['disk full']);
    expect(coalesced.stats().pending).toBe(FLUSH_CHUNK);
    // A newer position for a courier of the failed chunk replaces the retried one.
    const moved = all.at(-1)!;
    await coalesced.store.couriers.setLocations([position(moved.id, 999, 4)]);
    await coalesced.flush();
    expect(coalesced.stats().pending).toBe(0);
    expect((await inner.couriers.findById(all[FLUSH_CHUNK]!.id))?.location).toStrictEqual(position(all[FLUSH_CHUNK]!.id, FLUSH_CHUNK, 3).location);
    expect((await inner.couriers.findById(moved.id))?.location).toStrictEqual(position(moved.id, 999, 4).location);
    await coalesced.store.close();
  });

  it('a prompt position is written at once and replaces an older pending one; the others wait for the flush', async () => {
    const { inner, coalesced, calls } = observedStore();
    const [a, b] = await couriersAt(inner, 2);
    await coalesced.store.couriers.setLocations([position(a!.id, 1, 5), position(b!.id, 2, 5)]);
    await coalesced.store.couriers.setLocations([Object.assign(position(a!.id, 3, 6), { prompt: true })]);
    expect(calls.map((c) => c.size)).toStrictEqual([1]);
    expect((await inner.couriers.findById(a!.id))?.location).toStrictEqual(position(a!.id, 3, 6).location);
    expect((await inner.couriers.findById(b!.id))?.location).not.toStrictEqual(position(b!.id, 2, 5).location);
    expect(coalesced.stats().pending).toBe(1);
    await coalesced.flush();
    expect((await inner.couriers.findById(b!.id))?.location).toStrictEqual(position(b!.id, 2, 5).location);
    expect((await inner.couriers.findById(a!.id))?.location).toStrictEqual(position(a!.id, 3, 6).location);
    await coalesced.store.close();
  });
});
