import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { AuditEntry, Operator, OperatorPasswordToken, OperatorSession } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { contractCases, type ContractOptions } from './cases.js';
import { at, DAY, hashHex, nextId } from './fixtures.js';

const operator = (overrides: Partial<Operator> = {}): Operator => ({
  id: nextId('op'),
  email: `${nextId('o')}@ops.example.cl`,
  role: 'support',
  status: 'invited',
  passwordHash: null,
  createdAt: at(1),
  updatedAt: at(1),
  ...overrides,
});

const token = (o: Operator, overrides: Partial<OperatorPasswordToken> = {}): OperatorPasswordToken => ({
  hash: hashHex(), operatorId: o.id, createdAt: at(10), expiresAt: at(10 + 3 * DAY), usedAt: null, ...overrides,
});

const session = (o: Operator, overrides: Partial<OperatorSession> = {}): OperatorSession => ({
  hash: hashHex(), operatorId: o.id, createdAt: at(20), lastSeenAt: at(20), expiresAt: at(20 + DAY), ...overrides,
});

let auditSeq = 0;
const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  // Fixed-width, increasing: the keyset order is the insertion order.
  id: `au_${String(++auditSeq).padStart(12, '0')}`,
  at: at(100 + auditSeq),
  actorKind: 'admin_token',
  actorId: null,
  actorEmail: null,
  action: 'merchant.set_status',
  targetType: 'merchant',
  targetId: 'm_1',
  before: { status: 'active' },
  after: { status: 'suspended', nested: { list: [1, 'two', null] } },
  ...overrides,
});

/**
 * The operators side of every Store adapter (issue #29): operators by id and email, one-time
 * set-password tokens and sessions by hash, and the audit log (append, filtered keyset listing,
 * bounded pruning). makeStore returns a fresh store per case.
 */
export function describeOperatorStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  const { test, checkSkips } = contractCases('operator store contract', options);
  let store: Store;

  describe(`Operator store contract: ${name}`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    test('operators.insert stores exactly; found by id and email; a taken email is refused', async () => {
      const o = operator({ email: 'ana@ops.cl', role: 'admin' });
      expect(await store.operators.insert(o)).toBe(true);
      expect(await store.operators.findById(o.id)).toStrictEqual(o);
      expect(await store.operators.findByEmail('ana@ops.cl')).toStrictEqual(o);
      expect(await store.operators.insert(operator({ email: 'ana@ops.cl' }))).toBe(false);
      expect((await store.operators.findByEmail('ana@ops.cl'))?.role).toBe('admin');
      expect(await store.operators.findById('op_unknown')).toBeNull();
      expect(await store.operators.findByEmail('nobody@ops.cl')).toBeNull();
    });

    test('operators.list is oldest first; update patches only what it names', async () => {
      const a = operator({ createdAt: at(2) });
      const b = operator({ createdAt: at(1) });
      await store.operators.insert(a);
      await store.operators.insert(b);
      expect((await store.operators.list()).map((o) => o.id)).toEqual([b.id, a.id]);
      const updated = await store.operators.update({ id: a.id, patch: { status: 'active', passwordHash: 'scrypt$x' }, updatedAt: at(5) });
      expect(updated).toStrictEqual({ ...a, status: 'active', passwordHash: 'scrypt$x', updatedAt: at(5) });
      expect(await store.operators.update({ id: 'op_unknown', patch: { role: 'admin' }, updatedAt: at(5) })).toBeNull();
    });

    test('operators.update never ends the last active admin (last_admin, nothing written)', async () => {
      const only = operator({ role: 'admin', status: 'active', passwordHash: 'scrypt$x' });
      const invitedAdmin = operator({ role: 'admin', status: 'invited' });
      await store.operators.insert(only);
      await store.operators.insert(invitedAdmin);
      expect(await store.operators.update({ id: only.id, patch: { role: 'dispatcher' }, updatedAt: at(5) })).toBe('last_admin');
      expect(await store.operators.update({ id: only.id, patch: { status: 'disabled' }, updatedAt: at(5) })).toBe('last_admin');
      expect(await store.operators.findById(only.id)).toStrictEqual(only);
      // A password change, an invited admin's change: not refused (an invited admin does not count).
      expect(await store.operators.update({ id: only.id, patch: { passwordHash: 'scrypt$y' }, updatedAt: at(6) })).toMatchObject({ role: 'admin', passwordHash: 'scrypt$y' });
      expect(await store.operators.update({ id: invitedAdmin.id, patch: { role: 'support' }, updatedAt: at(6) })).toMatchObject({ role: 'support' });
      const second = operator({ role: 'admin', status: 'active' });
      await store.operators.insert(second);
      expect(await store.operators.update({ id: only.id, patch: { role: 'support' }, updatedAt: at(7) })).toMatchObject({ role: 'support' });
      expect(await store.operators.update({ id: second.id, patch: { status: 'disabled' }, updatedAt: at(7) })).toBe('last_admin');
    });

    test('two admins demoting or disabling each other at once: never both, an active admin always stays', async () => {
      for (let trial = 0; trial < 5; trial++) {
        // A fresh store per trial: the previous trial's remaining admin would count as another.
        if (trial > 0) {
          await store.close();
          store = await makeStore();
        }
        const first = operator({ role: 'admin', status: 'active' });
        const second = operator({ role: 'admin', status: 'active' });
        await store.operators.insert(first);
        await store.operators.insert(second);
        const outcomes = await Promise.allSettled([
          store.operators.update({ id: first.id, patch: { role: 'dispatcher' }, updatedAt: at(5) }),
          store.operators.update({ id: second.id, patch: trial % 2 === 0 ? { role: 'support' } : { status: 'disabled' }, updatedAt: at(5) }),
        ]);
        const succeeded = outcomes.filter((o) => o.status === 'fulfilled' && o.value !== 'last_admin');
        // The loser is refused, or (MongoDB, when its one retry conflicts again) fails: it never succeeds too.
        expect(succeeded).toHaveLength(1);
        expect((await store.operators.list()).filter((o) => o.role === 'admin' && o.status === 'active')).toHaveLength(1);
      }
    });

    test('password tokens: the newest replaces unused ones; consumed once, never when expired', async () => {
      const o = operator();
      await store.operators.insert(o);
      const first = token(o);
      const second = token(o);
      await store.operators.replacePasswordToken(first);
      await store.operators.replacePasswordToken(second);
      expect(await store.operators.consumePasswordToken({ hash: first.hash, now: at(11) })).toBeNull();
      expect(await store.operators.consumePasswordToken({ hash: second.hash, now: at(11) })).toStrictEqual({ ...second, usedAt: at(11) });
      expect(await store.operators.consumePasswordToken({ hash: second.hash, now: at(12) })).toBeNull();
      const late = token(o, { expiresAt: at(30) });
      await store.operators.replacePasswordToken(late);
      expect(await store.operators.consumePasswordToken({ hash: late.hash, now: at(30) })).toBeNull();
    });

    test('concurrent consumption of one token: exactly one wins', async () => {
      const o = operator();
      await store.operators.insert(o);
      const t = token(o);
      await store.operators.replacePasswordToken(t);
      const results = await Promise.all(Array.from({ length: 8 }, () => store.operators.consumePasswordToken({ hash: t.hash, now: at(11) })));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    test('sessions: found by hash, touched forward only, trimmed to the newest, deleted one or all', async () => {
      const o = operator();
      await store.operators.insert(o);
      const s = [session(o, { createdAt: at(20) }), session(o, { createdAt: at(21) }), session(o, { createdAt: at(22) })];
      for (const one of s) await store.operators.insertSession(one);
      expect(await store.operators.findSession(s[0]!.hash)).toStrictEqual(s[0]);
      await store.operators.touchSession({ hash: s[0]!.hash, lastSeenAt: at(50) });
      await store.operators.touchSession({ hash: s[0]!.hash, lastSeenAt: at(40) });
      expect((await store.operators.findSession(s[0]!.hash))?.lastSeenAt).toBe(at(50));
      expect(await store.operators.trimSessionsOf({ operatorId: o.id, keep: 2 })).toBe(1);
      expect(await store.operators.findSession(s[0]!.hash)).toBeNull();
      expect(await store.operators.deleteSession(s[1]!.hash)).toBe(true);
      expect(await store.operators.deleteSession(s[1]!.hash)).toBe(false);
      expect(await store.operators.deleteSessionsOf(o.id)).toBe(1);
      expect(await store.operators.findSession(s[2]!.hash)).toBeNull();
    });

    test('pruneExpired removes expired sessions and tokens in bounded steps', async () => {
      const o = operator();
      await store.operators.insert(o);
      for (let i = 0; i < 3; i++) await store.operators.insertSession(session(o, { expiresAt: at(30 + i) }));
      const live = session(o, { expiresAt: at(10 * DAY) });
      await store.operators.insertSession(live);
      await store.operators.replacePasswordToken(token(o, { expiresAt: at(31) }));
      expect(await store.operators.pruneExpired({ before: at(100), limit: 2 })).toBe(3);
      expect(await store.operators.pruneExpired({ before: at(100), limit: 2 })).toBe(1);
      expect(await store.operators.pruneExpired({ before: at(100), limit: 2 })).toBe(0);
      expect(await store.operators.findSession(live.hash)).toStrictEqual(live);
    });

    test('audit.append stores exactly; list is newest first with keyset pages', async () => {
      const entries = Array.from({ length: 5 }, () => entry());
      for (const e of entries) await store.audit.append(e);
      const newest = [...entries].reverse();
      const first = await store.audit.list({ filter: {}, limit: 2 });
      expect(first).toStrictEqual(newest.slice(0, 2));
      const second = await store.audit.list({ filter: {}, limit: 2, beforeId: first[1]!.id });
      expect(second).toStrictEqual(newest.slice(2, 4));
      const last = await store.audit.list({ filter: {}, limit: 2, beforeId: second[1]!.id });
      expect(last).toStrictEqual(newest.slice(4));
    });

    test('audit.list filters by actor, action, target and time range, combined', async () => {
      const op = entry({ actorKind: 'operator', actorId: 'op_a', actorEmail: 'a@ops.cl', action: 'courier.disable', targetType: 'courier', targetId: 'cr_1', before: null });
      const cli = entry({ actorKind: 'cli', action: 'courier.disable', targetType: 'courier', targetId: 'cr_2' });
      const token = entry({ action: 'merchant.set_status', targetId: 'm_9' });
      const note = entry({ actorKind: 'operator', actorId: 'op_a', actorEmail: 'a@ops.cl', action: 'note.add', targetType: 'courier', targetId: 'cr_1', after: { text: 'hola' } });
      for (const e of [op, cli, token, note]) await store.audit.append(e);
      const ids = async (filter: Parameters<Store['audit']['list']>[0]['filter']) => (await store.audit.list({ filter, limit: 50 })).map((e) => e.id);
      expect(await ids({ actor: 'op_a' })).toEqual([note.id, op.id]);
      expect(await ids({ actor: 'cli' })).toEqual([cli.id]);
      expect(await ids({ actor: 'admin_token' })).toEqual([token.id]);
      expect(await ids({ action: 'courier.disable' })).toEqual([cli.id, op.id]);
      expect(await ids({ targetType: 'courier', targetId: 'cr_1' })).toEqual([note.id, op.id]);
      expect(await ids({ from: cli.at, to: note.at })).toEqual([token.id, cli.id]);
      expect(await ids({ actor: 'op_a', action: 'note.add' })).toEqual([note.id]);
      expect(await ids({ targetType: 'merchant', targetId: 'cr_1' })).toEqual([]);
      expect((await store.audit.list({ filter: { actor: 'op_a' }, limit: 1 }))[0]).toStrictEqual(note);
    });

    test('audit.prune deletes only entries older than the bound, at most limit per call', async () => {
      const old = [entry({ at: at(1) }), entry({ at: at(2) }), entry({ at: at(3) })];
      const recent = entry({ at: at(10 * DAY) });
      for (const e of [...old, recent]) await store.audit.append(e);
      expect(await store.audit.prune({ before: at(DAY), limit: 2 })).toBe(2);
      expect(await store.audit.prune({ before: at(DAY), limit: 2 })).toBe(1);
      expect(await store.audit.prune({ before: at(DAY), limit: 2 })).toBe(0);
      expect((await store.audit.list({ filter: {}, limit: 10 })).map((e) => e.id)).toEqual([recent.id]);
    });

    checkSkips();
  });
}
