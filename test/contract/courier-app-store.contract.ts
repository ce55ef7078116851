import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { ProofRecord } from '../../src/ports/proof-store.js';
import type { Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, DAY, hashHex, ulid } from './fixtures.js';

function proof(data: Buffer, overrides: Partial<ProofRecord> = {}): ProofRecord {
  return {
    id: `pf_${ulid()}`,
    orderId: 'bk_1',
    courierId: 'cr_1',
    kind: 'photo',
    contentType: 'image/png',
    bytes: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    createdAt: at(100),
    ...overrides,
  };
}

/**
 * The courier app's side of every Store adapter (issue #27): the proof store (embedded files or
 * GridFS) and the courier sign-in codes and sessions. makeStore returns a fresh store per case.
 */
export function describeCourierAppStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('courier app store contract', options);
  let store: Store;

  describe(`Courier app store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('proofs.put stores the bytes; read answers them with the record; find the record; unknown ids are null', async () => {
      const data = Buffer.from('a proof image, byte for byte \u0000\u00ff');
      const record = proof(data, { kind: 'signature', contentType: 'image/webp' });
      await store.proofs.put({ record, data });
      expect(await store.proofs.find(record.id)).toStrictEqual(record);
      const read = await store.proofs.read(record.id);
      expect(read?.record).toStrictEqual(record);
      expect(read?.data.equals(data)).toBe(true);
      expect(await store.proofs.find(`pf_${ulid()}`)).toBeNull();
      expect(await store.proofs.read('../../etc/passwd')).toBeNull();
      expect(await store.proofs.find('pf_x'.repeat(40))).toBeNull();
    });

    test('two proofs with the same bytes are two proofs; pruning one keeps the other readable', async () => {
      const data = Buffer.alloc(300_000, 7);
      const a = proof(data, { createdAt: at(10) });
      const b = proof(data, { createdAt: at(20 * DAY) });
      await store.proofs.put({ record: a, data });
      await store.proofs.put({ record: b, data });
      expect(await store.proofs.prune({ createdBefore: at(DAY), limit: 10 })).toBe(1);
      expect(await store.proofs.read(a.id)).toBeNull();
      expect((await store.proofs.read(b.id))?.data.equals(data)).toBe(true);
    });

    test('proofs.prune removes only proofs created before the bound, oldest first, at most `limit` per call', async () => {
      const records: ProofRecord[] = [];
      for (let i = 0; i < 5; i++) {
        const data = Buffer.from(`proof ${i}`);
        const record = proof(data, { createdAt: at(10 + i) });
        records.push(record);
        await store.proofs.put({ record, data });
      }
      const late = proof(Buffer.from('late'), { createdAt: at(DAY) });
      await store.proofs.put({ record: late, data: Buffer.from('late') });
      expect(await store.proofs.prune({ createdBefore: at(100), limit: 2 })).toBe(2);
      expect(await store.proofs.find(records[0]!.id)).toBeNull();
      expect(await store.proofs.find(records[1]!.id)).toBeNull();
      expect(await store.proofs.find(records[2]!.id)).not.toBeNull();
      expect(await store.proofs.prune({ createdBefore: at(100), limit: 10 })).toBe(3);
      expect(await store.proofs.prune({ createdBefore: at(100), limit: 10 })).toBe(0);
      expect(await store.proofs.find(late.id)).not.toBeNull();
      expect(await store.proofs.prune({ createdBefore: at(100), limit: 0 })).toBe(0);
    });

    test('proofs are unsettled until settled: listed oldest first before the bound; remove takes one proof away (issue #39)', async () => {
      const [a, b, c, late] = [10, 20, 30, DAY].map((n) => {
        const data = Buffer.from(`unsettled ${n}`);
        return { record: proof(data, { createdAt: at(n) }), data };
      });
      for (const p of [c, a, late, b]) await store.proofs.put(p!);
      expect((await store.proofs.unsettled({ createdBefore: at(100), limit: 10 })).map((r) => r.id)).toEqual([a, b, c].map((p) => p!.record.id));
      expect(await store.proofs.unsettled({ createdBefore: at(100), limit: 1 })).toStrictEqual([a!.record]);
      expect(await store.proofs.unsettled({ createdBefore: at(100), limit: 0 })).toEqual([]);
      await store.proofs.settle(a!.record.id);
      expect((await store.proofs.unsettled({ createdBefore: at(100), limit: 10 })).map((r) => r.id)).toEqual([b!.record.id, c!.record.id]);
      expect(await store.proofs.find(a!.record.id)).toStrictEqual(a!.record);
      expect(await store.proofs.remove(b!.record.id)).toBe(true);
      expect(await store.proofs.remove(b!.record.id)).toBe(false);
      expect(await store.proofs.read(b!.record.id)).toBeNull();
      expect(await store.proofs.remove('../../etc/passwd')).toBe(false);
      expect((await store.proofs.unsettled({ createdBefore: at(2 * DAY), limit: 10 })).map((r) => r.id)).toEqual([c!.record.id, late!.record.id]);
    });

    test('proofs.space counts the bytes held, up with a put and down with a removal; the free room is a number or unknown', async () => {
      const before = await store.proofs.space();
      const data = Buffer.alloc(1500, ulid());
      const record = proof(data);
      await store.proofs.put({ record, data });
      const after = await store.proofs.space();
      expect(after.usedBytes - before.usedBytes).toBe(1500);
      expect(after.freeBytes === null || (Number.isFinite(after.freeBytes) && after.freeBytes >= 0)).toBe(true);
      await store.proofs.remove(record.id);
      expect((await store.proofs.space()).usedBytes).toBe(before.usedBytes);
    });

    test('proofBudgets.take counts up to the limit, atomically: 30 takes at once with a limit of 5 admit exactly 5 (issue #39)', async () => {
      const key = `stop:${ulid()}`;
      const take = () => store.proofBudgets.take({ key, amount: 1, limit: 5, expiresAt: at(DAY) });
      const answers = await Promise.all(Array.from({ length: 30 }, take));
      expect(answers.filter((a) => a.taken)).toHaveLength(5);
      expect(await take()).toEqual({ taken: false, used: 5 });
      await store.proofBudgets.giveBack({ key, amount: 1 });
      expect(await take()).toEqual({ taken: true, used: 5 });
      // Amounts: bytes against a byte budget; one too large is refused without counting.
      const bytes = `bytes:${ulid()}`;
      expect(await store.proofBudgets.take({ key: bytes, amount: 600, limit: 1000, expiresAt: at(DAY) })).toEqual({ taken: true, used: 600 });
      expect(await store.proofBudgets.take({ key: bytes, amount: 500, limit: 1000, expiresAt: at(DAY) })).toEqual({ taken: false, used: 600 });
      expect(await store.proofBudgets.take({ key: bytes, amount: 400, limit: 1000, expiresAt: at(DAY) })).toEqual({ taken: true, used: 1000 });
      expect(await store.proofBudgets.take({ key: `bytes:${ulid()}`, amount: 2000, limit: 1000, expiresAt: at(DAY) })).toEqual({ taken: false, used: 0 });
      await store.proofBudgets.giveBack({ key: bytes, amount: 5000 });
      expect(await store.proofBudgets.take({ key: bytes, amount: 1000, limit: 1000, expiresAt: at(DAY) })).toEqual({ taken: true, used: 1000 });
    });

    test('proofBudgets.prune removes counters past their expiry only; a pruned key counts from zero again', async () => {
      const [old, live] = [`stop:${ulid()}`, `stop:${ulid()}`];
      await store.proofBudgets.take({ key: old, amount: 1, limit: 1, expiresAt: at(50) });
      await store.proofBudgets.take({ key: live, amount: 1, limit: 1, expiresAt: at(DAY) });
      expect(await store.proofBudgets.prune({ before: at(100), limit: 10 })).toBe(1);
      expect(await store.proofBudgets.take({ key: old, amount: 1, limit: 1, expiresAt: at(DAY) })).toEqual({ taken: true, used: 1 });
      expect(await store.proofBudgets.take({ key: live, amount: 1, limit: 1, expiresAt: at(DAY) })).toEqual({ taken: false, used: 1 });
    });

    test('courier sign-in codes: used once, never after expiry; a new code replaces the unused one; deleteAllOf drops codes and sessions', async () => {
      const first = { hash: hashHex(), courierId: 'cr_a', createdAt: at(0), expiresAt: at(DAY), usedAt: null };
      await store.courierSessions.replaceSignInCode(first);
      const second = { ...first, hash: hashHex(), createdAt: at(10) };
      await store.courierSessions.replaceSignInCode(second);
      expect(await store.courierSessions.consumeSignInCode({ hash: first.hash, now: at(20) })).toBeNull();
      expect(await store.courierSessions.consumeSignInCode({ hash: second.hash, now: at(2 * DAY) })).toBeNull();
      expect(await store.courierSessions.consumeSignInCode({ hash: second.hash, now: at(20) })).toStrictEqual({ ...second, usedAt: at(20) });
      expect(await store.courierSessions.consumeSignInCode({ hash: second.hash, now: at(21) })).toBeNull();

      const session = { hash: hashHex(), courierId: 'cr_a', createdAt: at(30), expiresAt: at(30 + DAY) };
      await store.courierSessions.insertSession(session);
      expect(await store.courierSessions.findSession(session.hash)).toStrictEqual(session);
      const third = { ...first, hash: hashHex() };
      await store.courierSessions.replaceSignInCode(third);
      expect(await store.courierSessions.deleteAllOf('cr_a')).toBe(1);
      expect(await store.courierSessions.findSession(session.hash)).toBeNull();
      expect(await store.courierSessions.consumeSignInCode({ hash: third.hash, now: at(40) })).toBeNull();
    });

    test('courier sessions: delete one, keep the newest N, prune the expired', async () => {
      const mk = (n: number, expiresAt = at(n + DAY)) => ({ hash: hashHex(), courierId: 'cr_b', createdAt: at(n), expiresAt });
      const sessions = [mk(1, at(5)), mk(2), mk(3), mk(4)];
      for (const s of sessions) await store.courierSessions.insertSession(s);
      expect(await store.courierSessions.deleteSession(sessions[3]!.hash)).toBe(true);
      expect(await store.courierSessions.deleteSession(sessions[3]!.hash)).toBe(false);
      expect(await store.courierSessions.trimSessionsOf({ courierId: 'cr_b', keep: 2 })).toBe(1);
      expect(await store.courierSessions.findSession(sessions[0]!.hash)).toBeNull();
      await store.courierSessions.insertSession(mk(6, at(7)));
      expect(await store.courierSessions.pruneExpired({ before: at(100), limit: 10 })).toBe(1);
      expect(await store.courierSessions.findSession(sessions[1]!.hash)).not.toBeNull();
    });

    checkSkips();
  });
}
