import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { Member, MemberPasswordToken, MemberSession } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, DAY, hashHex, nextId, storeMerchant } from './fixtures.js';

function member(overrides: Partial<Member> & { merchantId: string }): Member {
  return {
    id: nextId('mb'),
    email: `${nextId('p')}@example.cl`,
    role: 'viewer',
    status: 'invited',
    passwordHash: null,
    createdAt: at(1),
    updatedAt: at(1),
    ...overrides,
  };
}

const token = (m: Member, overrides: Partial<MemberPasswordToken> = {}): MemberPasswordToken => ({
  hash: hashHex(),
  memberId: m.id,
  merchantId: m.merchantId,
  createdAt: at(10),
  expiresAt: at(10 + 3 * DAY),
  usedAt: null,
  ...overrides,
});

const session = (m: Member, overrides: Partial<MemberSession> = {}): MemberSession => ({
  hash: hashHex(),
  memberId: m.id,
  merchantId: m.merchantId,
  createdAt: at(20),
  lastSeenAt: at(20),
  expiresAt: at(20 + DAY),
  ...overrides,
});

/**
 * The members side of every Store adapter (issue #19): team members scoped by merchant, one-time
 * set-password tokens and browser sessions, looked up by hash. makeStore returns a fresh store per case.
 */
export function describeMemberStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('member store contract', options);
  let store: Store;

  const stored = async (overrides: Partial<Member> & { merchantId: string }): Promise<Member> => {
    const m = member(overrides);
    expect(await store.members.insert(m)).toBe(true);
    return m;
  };

  describe(`Member store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('members.insert stores the member exactly; found by id and by email only within its merchant', async () => {
      const a = await storeMerchant(store);
      const b = await storeMerchant(store);
      const m = await stored({ merchantId: a, email: 'ana@tienda.cl', role: 'owner' });
      expect(await store.members.findById({ id: m.id, merchantId: a })).toStrictEqual(m);
      expect(await store.members.findByEmail({ merchantId: a, email: 'ana@tienda.cl' })).toStrictEqual(m);
      expect(await store.members.findById({ id: m.id, merchantId: b })).toBeNull();
      expect(await store.members.findByEmail({ merchantId: b, email: 'ana@tienda.cl' })).toBeNull();
      expect(await store.members.findById({ id: 'mb_unknown', merchantId: a })).toBeNull();
    });

    test('members.insert refuses a second member with the same email in one merchant, not in another', async () => {
      const a = await storeMerchant(store);
      const b = await storeMerchant(store);
      await stored({ merchantId: a, email: 'ana@tienda.cl' });
      expect(await store.members.insert(member({ merchantId: a, email: 'ana@tienda.cl', role: 'owner' }))).toBe(false);
      expect(await store.members.insert(member({ merchantId: b, email: 'ana@tienda.cl' }))).toBe(true);
      expect((await store.members.findByEmail({ merchantId: a, email: 'ana@tienda.cl' }))?.role).toBe('viewer');
    });

    test('members.listActiveByEmail finds the email’s active members with a password in every merchant, oldest first, bounded', async () => {
      const [a, b, c, d] = [await storeMerchant(store), await storeMerchant(store), await storeMerchant(store), await storeMerchant(store)];
      const email = `${nextId('p')}@tienda.cl`;
      const second = await stored({ merchantId: b, email, status: 'active', passwordHash: 'scrypt$b', createdAt: at(2) });
      const first = await stored({ merchantId: a, email, status: 'active', passwordHash: 'scrypt$a', createdAt: at(1) });
      await stored({ merchantId: c, email, status: 'invited', createdAt: at(3) });
      await stored({ merchantId: d, email: `other-${email}`, status: 'active', passwordHash: 'scrypt$d', createdAt: at(1) });
      expect(await store.members.listActiveByEmail({ email, limit: 5 })).toStrictEqual([first, second]);
      expect(await store.members.listActiveByEmail({ email, limit: 1 })).toStrictEqual([first]);
      expect(await store.members.listActiveByEmail({ email: 'nobody@tienda.cl', limit: 5 })).toEqual([]);
    });

    test('members.listByMerchant lists one merchant’s members oldest first', async () => {
      const a = await storeMerchant(store);
      const b = await storeMerchant(store);
      const second = await stored({ merchantId: a, createdAt: at(2) });
      const first = await stored({ merchantId: a, createdAt: at(1) });
      await stored({ merchantId: b });
      expect(await store.members.listByMerchant(a)).toStrictEqual([first, second]);
      expect(await store.members.listByMerchant(nextId('m'))).toEqual([]);
    });

    test('members.update applies role, status and password hash within the merchant; null otherwise', async () => {
      const a = await storeMerchant(store);
      const b = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const updated = await store.members.update({ id: m.id, merchantId: a, patch: { status: 'active', passwordHash: 'scrypt$x' }, updatedAt: at(5) });
      expect(updated).toStrictEqual({ ...m, status: 'active', passwordHash: 'scrypt$x', updatedAt: at(5) });
      const promoted = await store.members.update({ id: m.id, merchantId: a, patch: { role: 'dispatcher' }, updatedAt: at(6) });
      expect(promoted).toStrictEqual({ ...m, status: 'active', passwordHash: 'scrypt$x', role: 'dispatcher', updatedAt: at(6) });
      expect(await store.members.update({ id: m.id, merchantId: b, patch: { role: 'owner' }, updatedAt: at(7) })).toBeNull();
      expect((await store.members.findById({ id: m.id, merchantId: a }))?.role).toBe('dispatcher');
    });

    test('members.remove deletes the member with its sessions and tokens, only within its merchant', async () => {
      const a = await storeMerchant(store);
      const b = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const other = await stored({ merchantId: a });
      const s = session(m);
      const kept = session(other);
      const t = token(m);
      await store.members.insertSession(s);
      await store.members.insertSession(kept);
      await store.members.replacePasswordToken(t);
      expect(await store.members.remove({ id: m.id, merchantId: b })).toBe(false);
      expect(await store.members.remove({ id: m.id, merchantId: a })).toBe(true);
      expect(await store.members.remove({ id: m.id, merchantId: a })).toBe(false);
      expect(await store.members.findById({ id: m.id, merchantId: a })).toBeNull();
      expect(await store.members.findSession(s.hash)).toBeNull();
      expect(await store.members.consumePasswordToken({ hash: t.hash, now: at(11) })).toBeNull();
      expect(await store.members.findSession(kept.hash)).toStrictEqual(kept);
    });

    test('members.update and members.remove never end the merchant’s last active owner (last_owner, nothing written)', async () => {
      const a = await storeMerchant(store);
      const owner = await stored({ merchantId: a, role: 'owner', status: 'active' });
      const invitedOwner = await stored({ merchantId: a, role: 'owner', status: 'invited' });
      expect(await store.members.update({ id: owner.id, merchantId: a, patch: { role: 'viewer' }, updatedAt: at(5) })).toBe('last_owner');
      expect(await store.members.update({ id: owner.id, merchantId: a, patch: { status: 'invited' }, updatedAt: at(5) })).toBe('last_owner');
      expect(await store.members.remove({ id: owner.id, merchantId: a })).toBe('last_owner');
      expect(await store.members.findById({ id: owner.id, merchantId: a })).toStrictEqual(owner);
      // A password change or another member's change is not refused; an invited owner does not count.
      expect(await store.members.update({ id: owner.id, merchantId: a, patch: { passwordHash: 'scrypt$y' }, updatedAt: at(6) })).toMatchObject({ role: 'owner', passwordHash: 'scrypt$y' });
      expect(await store.members.update({ id: invitedOwner.id, merchantId: a, patch: { role: 'viewer' }, updatedAt: at(6) })).toMatchObject({ role: 'viewer' });
      const second = await stored({ merchantId: a, role: 'owner', status: 'active' });
      expect(await store.members.update({ id: owner.id, merchantId: a, patch: { role: 'dispatcher' }, updatedAt: at(7) })).toMatchObject({ role: 'dispatcher' });
      expect(await store.members.remove({ id: second.id, merchantId: a })).toBe('last_owner');
    });

    test('two owners demoting or removing each other at once: never both, an active owner always stays', async () => {
      for (let trial = 0; trial < 5; trial++) {
        const a = await storeMerchant(store);
        const first = await stored({ merchantId: a, role: 'owner', status: 'active' });
        const second = await stored({ merchantId: a, role: 'owner', status: 'active' });
        const outcomes = await Promise.allSettled([
          store.members.update({ id: first.id, merchantId: a, patch: { role: 'viewer' }, updatedAt: at(5) }),
          trial % 2 === 0 ? store.members.update({ id: second.id, merchantId: a, patch: { role: 'viewer' }, updatedAt: at(5) }) : store.members.remove({ id: second.id, merchantId: a }),
        ]);
        const succeeded = outcomes.filter((o) => o.status === 'fulfilled' && o.value !== 'last_owner');
        // The loser is refused, or (MongoDB, when its one retry conflicts again) fails: it never succeeds too.
        expect(succeeded).toHaveLength(1);
        const owners = (await store.members.listByMerchant(a)).filter((m) => m.role === 'owner' && m.status === 'active');
        expect(owners).toHaveLength(1);
      }
    });

    test('members.trimSessionsOf ends the member’s oldest sessions beyond the newest `keep`, no one else’s', async () => {
      const a = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const other = await stored({ merchantId: a });
      const made = [3, 1, 4, 2].map((n) => session(m, { createdAt: at(20 + n) }));
      for (const s of made) await store.members.insertSession(s);
      const kept = session(other, { createdAt: at(1) });
      await store.members.insertSession(kept);
      expect(await store.members.trimSessionsOf({ memberId: m.id, keep: 2 })).toBe(2);
      const left = await Promise.all(made.map((s) => store.members.findSession(s.hash)));
      expect(left.map((s) => s?.createdAt ?? null)).toEqual([at(23), null, at(24), null]);
      expect(await store.members.trimSessionsOf({ memberId: m.id, keep: 2 })).toBe(0);
      expect(await store.members.findSession(kept.hash)).toStrictEqual(kept);
    });

    test('members.consumePasswordToken answers an unused, unexpired token once', async () => {
      const a = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const t = token(m);
      await store.members.replacePasswordToken(t);
      expect(await store.members.consumePasswordToken({ hash: hashHex(), now: at(11) })).toBeNull();
      expect(await store.members.consumePasswordToken({ hash: t.hash, now: at(11) })).toStrictEqual({ ...t, usedAt: at(11) });
      expect(await store.members.consumePasswordToken({ hash: t.hash, now: at(12) })).toBeNull();
    });

    test('members.consumePasswordToken refuses a token at or after its expiry', async () => {
      const a = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const t = token(m, { expiresAt: at(100) });
      await store.members.replacePasswordToken(t);
      expect(await store.members.consumePasswordToken({ hash: t.hash, now: at(100) })).toBeNull();
      expect(await store.members.consumePasswordToken({ hash: t.hash, now: at(99) })).not.toBeNull();
    });

    test('members.consumePasswordToken: of 10 concurrent uses of one token exactly one succeeds', async () => {
      const a = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const t = token(m);
      await store.members.replacePasswordToken(t);
      const results = await Promise.all(Array.from({ length: 10 }, () => store.members.consumePasswordToken({ hash: t.hash, now: at(11) })));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    test('members.replacePasswordToken leaves only the newest unused token of the member', async () => {
      const a = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const other = await stored({ merchantId: a });
      const first = token(m);
      const second = token(m);
      const others = token(other);
      await store.members.replacePasswordToken(first);
      await store.members.replacePasswordToken(others);
      await store.members.replacePasswordToken(second);
      expect(await store.members.consumePasswordToken({ hash: first.hash, now: at(11) })).toBeNull();
      expect(await store.members.consumePasswordToken({ hash: others.hash, now: at(11) })).not.toBeNull();
      expect(await store.members.consumePasswordToken({ hash: second.hash, now: at(11) })).not.toBeNull();
    });

    test('members sessions: insert, find by hash, touch only forward, delete one, delete all of a member', async () => {
      const a = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const other = await stored({ merchantId: a });
      const s1 = session(m);
      const s2 = session(m);
      const s3 = session(other);
      for (const s of [s1, s2, s3]) await store.members.insertSession(s);
      expect(await store.members.findSession(s1.hash)).toStrictEqual(s1);
      expect(await store.members.findSession(hashHex())).toBeNull();
      await store.members.touchSession({ hash: s1.hash, lastSeenAt: at(50) });
      await store.members.touchSession({ hash: s1.hash, lastSeenAt: at(30) });
      expect((await store.members.findSession(s1.hash))?.lastSeenAt).toBe(at(50));
      expect(await store.members.deleteSession(s1.hash)).toBe(true);
      expect(await store.members.deleteSession(s1.hash)).toBe(false);
      await store.members.insertSession(s1);
      expect(await store.members.deleteSessionsOf(m.id)).toBe(2);
      expect(await store.members.findSession(s2.hash)).toBeNull();
      expect(await store.members.findSession(s3.hash)).toStrictEqual(s3);
    });

    test('members.pruneExpired removes sessions and tokens that expired before the time given', async () => {
      const a = await storeMerchant(store);
      const m = await stored({ merchantId: a });
      const old = session(m, { expiresAt: at(100) });
      const live = session(m, { expiresAt: at(300) });
      const oldToken = token(m, { expiresAt: at(100) });
      await store.members.insertSession(old);
      await store.members.insertSession(live);
      await store.members.replacePasswordToken(oldToken);
      expect(await store.members.pruneExpired({ before: at(200), limit: 10 })).toBe(2);
      expect(await store.members.findSession(old.hash)).toBeNull();
      expect(await store.members.findSession(live.hash)).toStrictEqual(live);
    });

    test('members.pruneExpired removes at most `limit` sessions and `limit` tokens per call', async () => {
      const a = await storeMerchant(store);
      const members = [await stored({ merchantId: a }), await stored({ merchantId: a }), await stored({ merchantId: a })];
      const old = members.map((m) => session(m, { expiresAt: at(100) }));
      for (const s of old) await store.members.insertSession(s);
      for (const m of members) await store.members.replacePasswordToken(token(m, { expiresAt: at(100) }));
      expect(await store.members.pruneExpired({ before: at(200), limit: 2 })).toBe(4);
      expect(await store.members.pruneExpired({ before: at(200), limit: 2 })).toBe(2);
      expect(await store.members.pruneExpired({ before: at(200), limit: 2 })).toBe(0);
      for (const s of old) expect(await store.members.findSession(s.hash)).toBeNull();
    });

    checkSkips();
  });
}
