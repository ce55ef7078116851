/**
 * The dispatch reconciler reads a bounded part of the queue each round and goes on from there the
 * next round (back to the oldest at the end), so every queued order is offered again in time, not
 * only the oldest hundred; the orders still new in a batch are walked the same way. Real SQLite
 * store on disk; dispatch is a recorder (no courier takes anything).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryGeoIndex } from '../../src/adapters/geo-index/memory.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import type { DispatchService } from '../../src/domain/dispatch.js';
import { createDispatchReconciler } from '../../src/domain/reconciler.js';
import type { Order } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { at, creation, order, storeMerchant } from '../contract/fixtures.js';

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function storeWith(queued: number, inBatches: number): Promise<{ store: Store; queue: string[]; batched: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'exd-reconciler-walk-'));
  const store = createSqliteStore({ file: join(dir, 'store.sqlite') });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => store.close());
  const merchantId = await storeMerchant(store);
  const make = async (o: Order) => (await store.orders.create(creation(o)), o.id);
  const queue: string[] = [];
  const batched: string[] = [];
  for (let i = 0; i < queued; i++) queue.push(await make(order({ merchantId, createdAt: at(i) })));
  for (let i = 0; i < inBatches; i++) batched.push(await make(order({ merchantId, createdAt: at(i), batchId: 'bt_gone' })));
  return { store, queue, batched };
}

describe('dispatch reconciler: a bounded walk across rounds', () => {
  it('offers the queue 100 orders a round, going on from where the last round stopped, then starts over', async () => {
    const { store, queue } = await storeWith(250, 0);
    const offered: string[][] = [];
    const dispatch = {
      isLive: () => false,
      dispatchOrder: async ({ order: o }: { order: Order }) => (offered.at(-1)!.push(o.id), o),
    } as unknown as DispatchService;
    // Queued orders go through the batch service (a batched-rate order takes companions); these are express.
    const batches = { dispatchQueued: dispatch.dispatchOrder };
    const reconciler = createDispatchReconciler({ store, geoIndex: createMemoryGeoIndex(), dispatch, batches, clock: { now: () => new Date(at(10_000)) }, graceMs: 0, vehicles: ['motorcycle'] });
    for (let round = 0; round < 4; round++) {
      offered.push([]);
      await reconciler.reconcile();
    }
    expect(offered.map((ids) => ids.length)).toEqual([100, 100, 50, 100]);
    expect(offered.slice(0, 3).flat()).toEqual(queue);
    expect(offered[3]).toEqual(queue.slice(0, 100));
  });

  it('checks the orders still new in a batch 100 a round, going on from where the last round stopped', async () => {
    const { store, batched } = await storeWith(0, 150);
    const checked: string[] = [];
    const listNewInBatches = store.orders.listNewInBatches.bind(store.orders);
    store.orders.listNewInBatches = async (options) => {
      const page = await listNewInBatches(options);
      checked.push(...page.map((o) => o.id));
      return page;
    };
    const dispatch = { isLive: () => false } as unknown as DispatchService;
    // Within the grace period each order is only looked at (it may be a dispatch in flight): none leaves the list.
    const batches = { dispatchQueued: async ({ order }: { order: Order }) => order };
    const reconciler = createDispatchReconciler({ store, geoIndex: createMemoryGeoIndex(), dispatch, batches, clock: { now: () => new Date(at(10_000)) }, graceMs: 1e12, vehicles: ['motorcycle'] });
    for (let round = 0; round < 3; round++) await reconciler.reconcile();
    expect(checked).toEqual([...batched.slice(0, 100), ...batched.slice(100), ...batched.slice(0, 100)]);
  });
});
