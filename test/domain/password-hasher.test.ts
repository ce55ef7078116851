import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createScryptWorkers } from '../../src/adapters/scrypt-workers.js';
import { isAppError } from '../../src/domain/errors.js';
import { createPasswordHasher, deriveOnLibuvPool } from '../../src/domain/members/passwords.js';
import type { DeriveKey, ScryptJob } from '../../src/ports/key-derivation.js';

/** A derive the test finishes by hand (the real one on libuv's pool), counting how many run at once. */
function gatedDerive() {
  const gates: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const derive: DeriveKey = async (job: ScryptJob) => {
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
    return deriveOnLibuvPool({ ...job, N: 2 ** 10 });
  };
  const openOne = async () => {
    while (gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    gates.shift()!();
  };
  return { derive, openOne, most: () => most, waitingAtGate: () => gates.length };
}

/** The nice value of each thread of this process (the main thread first). */
function threadNiceValues(): number[] {
  if (process.platform !== 'linux') return [0];
  return readdirSync('/proc/self/task').map(niceOfThread);
}

/** The main thread's: its id is the process id (not the lowest id: ids wrap in a long-lived worker). */
function mainThreadNice(): number {
  return process.platform === 'linux' ? niceOfThread(String(process.pid)) : 0;
}

function niceOfThread(tid: string): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

const codeOf = (outcome: PromiseSettledResult<unknown>) => (outcome.status === 'rejected' && isAppError(outcome.reason) ? outcome.reason.code : outcome.status);

describe('password hasher: bounded concurrency and queue', () => {
  it('runs at most `concurrency` hashes at once, lets `queueLimit` wait, and refuses the rest at once with SERVICE_UNAVAILABLE', async () => {
    const gate = gatedDerive();
    const hasher = createPasswordHasher({ derive: gate.derive, concurrency: 2, queueLimit: 3 });
    const calls = Array.from({ length: 9 }, (_, i) => hasher.hashPassword(`password number ${i}`));
    const settled = Promise.allSettled(calls);
    // The refusals do not wait for any hash.
    const refused = await Promise.allSettled(calls.slice(5));
    expect(refused.map(codeOf)).toEqual(['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE']);
    expect(hasher.stats()).toMatchObject({ running: 2, waiting: 3, derived: 2 });
    for (let i = 0; i < 5; i++) await gate.openOne();
    expect((await settled).slice(0, 5).map((o) => o.status)).toEqual(Array(5).fill('fulfilled'));
    expect(gate.most()).toBe(2);
    expect(hasher.stats()).toEqual({ running: 0, waiting: 0, derived: 5 });
  });

  it('a set-password hash takes its turn before claiming the link: a full queue leaves the link unused, a failed claim costs no hash', async () => {
    const gate = gatedDerive();
    const hasher = createPasswordHasher({ derive: gate.derive, concurrency: 1, queueLimit: 0 });
    const busy = hasher.hashPassword('someone else signing in');
    let claims = 0;
    const claim = async () => (++claims, { memberId: 'mb_1' });
    await expect(hasher.hashPasswordFor('the new password', claim)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(claims).toBe(0);
    await gate.openOne();
    await busy;
    expect(await hasher.hashPasswordFor('the new password', async () => null)).toBeNull();
    expect(hasher.stats().derived).toBe(1);
    const done = hasher.hashPasswordFor('the new password', claim);
    await gate.openOne();
    const result = await done;
    expect(result?.claimed).toEqual({ memberId: 'mb_1' });
    const verified = hasher.verifyPassword('the new password', result!.passwordHash);
    await gate.openOne();
    expect(await verified).toBe(true);
  });

  it('on worker threads: the same keys as node:crypto, one thread per concurrent hash, at the configured priority', async () => {
    // Relative to this process's own nice value (the suite may itself run under `nice`).
    const base = mainThreadNice();
    const niceness = Math.min(19, base + 5);
    const workers = createScryptWorkers({ threads: 2, niceness: 5 });
    try {
      const hasher = createPasswordHasher({ derive: workers.derive, concurrency: 2, queueLimit: 10 });
      const stored = await Promise.all(['first password!', 'second password'].map((p) => hasher.hashPassword(p)));
      expect(await Promise.all([hasher.verifyPassword('first password!', stored[0]!), hasher.verifyPassword('second password', stored[0]!)])).toEqual([true, false]);
      // A hash made by the libuv path verifies on the workers (same derivation).
      const plain = createPasswordHasher({ concurrency: 1, queueLimit: 0 });
      expect(await hasher.verifyPassword('made elsewhere!', await plain.hashPassword('made elsewhere!'))).toBe(true);
      // Linux: the hashing threads run below the event loop's priority; the main thread keeps its own.
      if (process.platform === 'linux' && niceness > base) expect(threadNiceValues()).toContain(niceness);
      expect(mainThreadNice()).toBe(base);
    } finally {
      await workers.close();
    }
  });
});
