import { afterEach, beforeEach, describe, expect } from 'vitest';
import { whileHoldingLease } from '../../src/domain/lease-holder.js';
import type { Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, creation, nextId, order, storeMerchant } from './fixtures.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What self-healing dispatch needs of a Store (leases for one-node-at-a-time work, the orders a
 * batch may have stranded); makeStore returns a fresh, empty store per case.
 */
export function describeDispatchStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('dispatch store contract', options);
  let store: Store;

  describe(`Dispatch store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('leases.acquire: a free lease is taken, renewed by its owner, refused to another while it runs', async () => {
      const lease = nextId('lease');
      expect(await store.leases.acquire({ name: lease, owner: 'a', ttlMs: 10_000 })).toBe(true);
      expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 10_000 })).toBe(false);
      expect(await store.leases.acquire({ name: lease, owner: 'a', ttlMs: 10_000 })).toBe(true);
      expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 10_000 })).toBe(false);
      // Leases are independent by name.
      expect(await store.leases.acquire({ name: `${lease}-other`, owner: 'b', ttlMs: 10_000 })).toBe(true);
    });

    test('whileHoldingLease: the heartbeat renews the lease while the work runs (another owner cannot take it past its length), and it runs out after', async () => {
      const lease = nextId('lease');
      const ttlMs = 300;
      let others = 0;
      const result = await whileHoldingLease({
        leases: store.leases,
        name: lease,
        owner: 'a',
        ttlMs,
        work: async (signal) => {
          // Five lease lengths of work: without renewal 'b' would take the lease after the first.
          for (let i = 0; i < 10; i++) {
            await sleep(ttlMs / 2);
            if (await store.leases.acquire({ name: lease, owner: 'b', ttlMs })) others++;
          }
          return signal.aborted ? 'lost' : 'done';
        },
      });
      expect(result).toBe('done');
      expect(others).toBe(0);
      // Not renewed any more: the next owner takes it once it ran out.
      const deadline = Date.now() + 10_000;
      while (!(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 10_000 })) && Date.now() < deadline) await sleep(50);
      expect(await store.leases.acquire({ name: lease, owner: 'a', ttlMs })).toBe(false);
    });

    test('whileHoldingLease: null while another owner holds the lease; when a renewal fails the work is told to stop', async () => {
      const lease = nextId('lease');
      expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 10_000 })).toBe(true);
      expect(await whileHoldingLease({ leases: store.leases, name: lease, owner: 'a', ttlMs: 10_000, work: async () => 'ran' })).toBeNull();
      await store.leases.release({ name: lease, owner: 'b' });
      const result = await whileHoldingLease({
        leases: store.leases,
        name: lease,
        owner: 'a',
        ttlMs: 300,
        work: async (signal) => {
          // Another node takes the lease away (as after an expiry): the next renewal fails.
          await store.leases.release({ name: lease, owner: 'a' });
          expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 10_000 })).toBe(true);
          const deadline = Date.now() + 10_000;
          while (!signal.aborted && Date.now() < deadline) await sleep(20);
          return signal.aborted ? 'stopped' : 'went on';
        },
      });
      expect(result).toBe('stopped');
    });

    test('leases.acquire: an expired lease goes to the next owner, and the previous one then cannot renew', async () => {
      const lease = nextId('lease');
      expect(await store.leases.acquire({ name: lease, owner: 'a', ttlMs: 300 })).toBe(true);
      expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 300 })).toBe(false);
      await sleep(450);
      expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 10_000 })).toBe(true);
      expect(await store.leases.acquire({ name: lease, owner: 'a', ttlMs: 10_000 })).toBe(false);
    });

    test('leases.release frees the lease for another owner at once; a non-owner cannot release it', async () => {
      const lease = nextId('lease');
      expect(await store.leases.acquire({ name: lease, owner: 'a', ttlMs: 60_000 })).toBe(true);
      await store.leases.release({ name: lease, owner: 'b' });
      expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 60_000 })).toBe(false);
      await store.leases.release({ name: lease, owner: 'a' });
      expect(await store.leases.acquire({ name: lease, owner: 'b', ttlMs: 60_000 })).toBe(true);
    });

    test('leases.acquire: of 10 concurrent owners of a free lease exactly one gets it', async () => {
      const lease = nextId('lease');
      const owners = Array.from({ length: 10 }, (_, i) => `node-${i}`);
      const results = await Promise.all(owners.map((owner) => store.leases.acquire({ name: lease, owner, ttlMs: 60_000 })));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test('leases.takeSlot: one slot per interval of the events’ time, whoever asks; concurrent takers get one', async () => {
      const slot = nextId('slot');
      expect(await store.leases.takeSlot({ name: slot, at: at(0), intervalMs: 20_000 })).toBe(true);
      expect(await store.leases.takeSlot({ name: slot, at: at(19), intervalMs: 20_000 })).toBe(false);
      expect(await store.leases.takeSlot({ name: slot, at: at(20), intervalMs: 20_000 })).toBe(true);
      expect(await store.leases.takeSlot({ name: slot, at: at(39), intervalMs: 20_000 })).toBe(false);
      expect(await store.leases.takeSlot({ name: `${slot}-other`, at: at(39), intervalMs: 20_000 })).toBe(true);
      const racing = await Promise.all(Array.from({ length: 10 }, () => store.leases.takeSlot({ name: slot, at: at(100), intervalMs: 20_000 })));
      expect(racing.filter(Boolean)).toHaveLength(1);
    });

    test('leases.pruneExpired removes leases and slots that ran out longer ago than the margin, never a running lease', async () => {
      const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
      const running = nextId('lease');
      const old = nextId('slot');
      const recent = nextId('slot');
      expect(await store.leases.acquire({ name: running, owner: 'a', ttlMs: 60_000 })).toBe(true);
      expect(await store.leases.takeSlot({ name: old, at: ago(3600), intervalMs: 20_000 })).toBe(true); // ran out an hour ago
      expect(await store.leases.takeSlot({ name: recent, at: ago(30), intervalMs: 20_000 })).toBe(true); // ran out 10 s ago
      expect(await store.leases.pruneExpired({ olderThanMs: 60_000 })).toBe(1);
      // The old slot is gone (a slot can be taken again at an older time); the recent one and the lease still hold.
      expect(await store.leases.takeSlot({ name: old, at: ago(7200), intervalMs: 20_000 })).toBe(true);
      expect(await store.leases.takeSlot({ name: recent, at: ago(25), intervalMs: 20_000 })).toBe(false);
      expect(await store.leases.acquire({ name: running, owner: 'b', ttlMs: 60_000 })).toBe(false);
    });

    test('orders.listNewInBatches lists new orders that belong to a batch, in one mode, oldest first, up to the limit', async () => {
      const m = await storeMerchant(store);
      const inBatch = [order({ merchantId: m, createdAt: at(3), batchId: 'bt_x' }), order({ merchantId: m, createdAt: at(1), batchId: 'bt_y' }), order({ merchantId: m, createdAt: at(2), batchId: 'bt_x' })];
      const others = [
        order({ merchantId: m, createdAt: at(0) }), // queued, no batch
        order({ merchantId: m, createdAt: at(0), batchId: 'bt_x', status: 'assigned', courierId: 'c_1' }),
        order({ merchantId: m, createdAt: at(0), batchId: 'bt_x', mode: 'test' }),
      ];
      for (const o of [...inBatch, ...others]) await store.orders.create(creation(o));
      const listed = await store.orders.listNewInBatches({ mode: 'live', limit: 10 });
      expect(listed.map((o) => o.id)).toEqual([inBatch[1]!.id, inBatch[2]!.id, inBatch[0]!.id]);
      expect(listed[0]).toStrictEqual(inBatch[1]);
      expect((await store.orders.listNewInBatches({ mode: 'live', limit: 2 })).map((o) => o.id)).toEqual([inBatch[1]!.id, inBatch[2]!.id]);
      expect((await store.orders.listNewInBatches({ mode: 'test', limit: 10 })).map((o) => o.id)).toEqual([others[2]!.id]);
      // A walk across rounds: the page after a position.
      const after = { createdAt: inBatch[2]!.createdAt, id: inBatch[2]!.id };
      expect((await store.orders.listNewInBatches({ mode: 'live', limit: 10, after })).map((o) => o.id)).toEqual([inBatch[0]!.id]);
      // Once assigned it leaves the list.
      await store.orders.apply({ id: inBatch[1]!.id, from: ['new'], to: 'assigned', patch: { courierId: 'c_2' } });
      expect((await store.orders.listNewInBatches({ mode: 'live', limit: 10 })).map((o) => o.id)).toEqual([inBatch[2]!.id, inBatch[0]!.id]);
    });

    checkSkips();
  });
}
