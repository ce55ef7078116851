import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { IdempotentWriteRecord, Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, nextId } from './fixtures.js';

/** A fresh claim of `key` made at `when` (seconds after the fixtures' epoch): locked 60 s, kept a day. */
function claimAt(when: number, overrides: Partial<IdempotentWriteRecord> = {}): IdempotentWriteRecord {
  return {
    ownerId: 'm_owner', mode: 'live', operation: 'orders.cancel', key: 'key-1', fingerprint: 'f1', token: nextId('idem'), outcome: null,
    createdAt: at(when), lockedUntil: at(when + 60), expiresAt: at(when + 86_400), ...overrides,
  };
}

/**
 * The idempotent-write records of every Store adapter (issue #17 item 5): one atomic claim per key
 * (concurrent claims: one wins), completion and release by the claimant's token only, take-over of
 * expired and abandoned claims, scoping by owner, mode and operation, and retention.
 */
export function describeIdempotentWriteStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('idempotent-write store contract', options);
  let store: Store;

  describe(`Idempotent-write store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('claim: the first claim wins; a second one gets the record, pending, then with the answer its claimant stored', async () => {
      const ownerId = nextId('m');
      const first = claimAt(0, { ownerId });
      expect(await store.idempotentWrites.claim(first, at(0))).toStrictEqual({ claimed: true });
      const second = claimAt(1, { ownerId, fingerprint: 'f2' });
      expect(await store.idempotentWrites.claim(second, at(1))).toStrictEqual({ claimed: false, existing: first });
      expect(await store.idempotentWrites.complete({ ...second, outcome: '{"x":2}' })).toBe(false);
      expect(await store.idempotentWrites.complete({ ...first, outcome: '{"ok":true}' })).toBe(true);
      expect(await store.idempotentWrites.complete({ ...first, outcome: '{"again":true}' })).toBe(false);
      expect(await store.idempotentWrites.claim(second, at(2))).toStrictEqual({ claimed: false, existing: { ...first, outcome: '{"ok":true}' } });
    });

    test('claim: owner, mode and operation each make another record', async () => {
      const ownerId = nextId('m');
      expect(await store.idempotentWrites.claim(claimAt(0, { ownerId }), at(0))).toStrictEqual({ claimed: true });
      expect(await store.idempotentWrites.claim(claimAt(0, { ownerId: nextId('m') }), at(0))).toStrictEqual({ claimed: true });
      expect(await store.idempotentWrites.claim(claimAt(0, { ownerId, mode: 'test' }), at(0))).toStrictEqual({ claimed: true });
      expect(await store.idempotentWrites.claim(claimAt(0, { ownerId, operation: 'webhooks.create' }), at(0))).toStrictEqual({ claimed: true });
      expect(await store.idempotentWrites.claim(claimAt(0, { ownerId, key: 'key-2' }), at(0))).toStrictEqual({ claimed: true });
      expect((await store.idempotentWrites.claim(claimAt(0, { ownerId }), at(0))).claimed).toBe(false);
    });

    test('claim: an abandoned claim (no answer past lockedUntil) and an expired record are taken over; an answered one is kept until it expires', async () => {
      const ownerId = nextId('m');
      const abandoned = claimAt(0, { ownerId });
      await store.idempotentWrites.claim(abandoned, at(0));
      expect((await store.idempotentWrites.claim(claimAt(59, { ownerId }), at(59))).claimed).toBe(false);
      const takeover = claimAt(60, { ownerId });
      expect(await store.idempotentWrites.claim(takeover, at(60))).toStrictEqual({ claimed: true });
      // The first claimant can no longer answer or release it.
      expect(await store.idempotentWrites.complete({ ...abandoned, outcome: '{}' })).toBe(false);
      await store.idempotentWrites.release(abandoned);
      expect(await store.idempotentWrites.complete({ ...takeover, outcome: '"done"' })).toBe(true);
      expect((await store.idempotentWrites.claim(claimAt(3600, { ownerId }), at(3600))).claimed).toBe(false);
      const late = claimAt(60 + 86_400, { ownerId, fingerprint: 'f9' });
      expect(await store.idempotentWrites.claim(late, at(60 + 86_400))).toStrictEqual({ claimed: true });
      expect(await store.idempotentWrites.claim(claimAt(60 + 86_401, { ownerId }), at(60 + 86_401))).toStrictEqual({ claimed: false, existing: late });
    });

    test('release: drops a pending claim of its token (the next claim wins), never an answered one', async () => {
      const ownerId = nextId('m');
      const claim = claimAt(0, { ownerId });
      await store.idempotentWrites.claim(claim, at(0));
      await store.idempotentWrites.release({ ...claim, token: 'someone-else' });
      expect((await store.idempotentWrites.claim(claimAt(1, { ownerId }), at(1))).claimed).toBe(false);
      await store.idempotentWrites.release(claim);
      const next = claimAt(2, { ownerId });
      expect(await store.idempotentWrites.claim(next, at(2))).toStrictEqual({ claimed: true });
      await store.idempotentWrites.complete({ ...next, outcome: '1' });
      await store.idempotentWrites.release(next);
      expect(await store.idempotentWrites.claim(claimAt(3, { ownerId }), at(3))).toStrictEqual({ claimed: false, existing: { ...next, outcome: '1' } });
    });

    test('claim: of 20 concurrent claims of one key exactly one wins, and every loser sees the winner', async () => {
      const ownerId = nextId('m');
      const claims = Array.from({ length: 20 }, () => claimAt(0, { ownerId }));
      const results = await Promise.all(claims.map((c) => store.idempotentWrites.claim(c, at(0))));
      const winners = claims.filter((_, i) => results[i]!.claimed);
      expect(winners).toHaveLength(1);
      for (const r of results) if (!r.claimed) expect(r.existing).toStrictEqual(winners[0]);
    });

    test('prune: deletes records that expired before the time, at most `limit`, and no other', async () => {
      const ownerId = nextId('m');
      for (let i = 0; i < 3; i++) await store.idempotentWrites.claim(claimAt(i, { ownerId, key: `old-${i}`, expiresAt: at(100 + i) }), at(i));
      const kept = claimAt(0, { ownerId, key: 'kept', expiresAt: at(500) });
      await store.idempotentWrites.claim(kept, at(0));
      expect(await store.idempotentWrites.prune({ before: at(200), limit: 2 })).toBe(2);
      expect(await store.idempotentWrites.prune({ before: at(200), limit: 2 })).toBe(1);
      expect(await store.idempotentWrites.prune({ before: at(200), limit: 2 })).toBe(0);
      expect(await store.idempotentWrites.claim(claimAt(1, { ownerId, key: 'kept' }), at(1))).toStrictEqual({ claimed: false, existing: kept });
    });

    checkSkips();
  });
}
