import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { gqlAs, LOG_IN, PASSWORD, signedIn } from './support.js';

/**
 * Sign-in lockouts under concurrent bursts (issue #26 item 2): each attempt reserves its unit in the
 * per-email and per-address counters before the password is hashed, so a burst gets at most the
 * bound of guesses evaluated, from one address or several, and the right password after them is
 * refused. Addresses vary through X-Forwarded-For from a trusted proxy (the test client's loopback).
 */
const PER_EMAIL = 5;
const PER_ADDRESS = 20;

type Answer = { code: string };

async function attempt(t: TestApp, options: { merchantId: string; email: string; password: string; from: string }): Promise<Answer> {
  const res = await gqlAs(t, null, LOG_IN, { variables: { input: { merchantId: options.merchantId, email: options.email, password: options.password } }, headers: { 'x-forwarded-for': options.from } });
  const result = res.body.data?.logIn;
  return { code: result?.__typename === 'MutationLogInSuccess' ? 'SIGNED_IN' : (result?.code ?? `HTTP_${res.status}`) };
}

const tally = (answers: Answer[]) => answers.reduce<Record<string, number>>((counts, a) => ((counts[a.code] = (counts[a.code] ?? 0) + 1), counts), {});

describe('sign-in lockout under concurrent bursts', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  const lines: string[] = [];
  const derived = () => t.app.container.services.passwords.stats().derived;
  const refusalsLogged = () => lines.filter((l) => l.includes('"msg":"sign-in refused"')).length;

  beforeAll(async () => {
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void (lines.push(...chunk.toString().split('\n').filter(Boolean)), done()) });
    t = await startTestApp({
      logger: createLogger({ level: 'info', destination: sink }),
      env: {
        LOGIN_MAX_FAILURES_PER_EMAIL: String(PER_EMAIL),
        LOGIN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
        TRUST_PROXY: '127.0.0.1,::1',
        PUBLIC_RATE_LIMIT_PER_MIN: '100000',
        // Room for the whole burst to wait: these cases are about the counters, not the queue.
        PASSWORD_HASH_QUEUE: '500',
      },
    });
    shop = await t.createMerchant({ name: 'Burst Shop' });
  });
  afterAll(() => t.stop());

  /** 50 wrong passwords and then the right one, all sent at once, from `addresses` in turn. */
  async function burst(email: string, addresses: string[]) {
    const hashesBefore = derived();
    const refusalsBefore = refusalsLogged();
    const wrong = Array.from({ length: 50 }, (_, i) => attempt(t, { merchantId: shop.merchantId, email, password: `wrong guess ${i}`, from: addresses[i % addresses.length]! }));
    const right = attempt(t, { merchantId: shop.merchantId, email, password: PASSWORD, from: addresses[0]! });
    const answers = await Promise.all([...wrong, right]);
    return { answers, wrong: tally(answers.slice(0, 50)), right: answers[50]!, hashes: derived() - hashesBefore, refusalsLogged: refusalsLogged() - refusalsBefore };
  }

  for (const [label, addresses] of [
    ['one address', ['198.51.100.10']],
    ['three addresses', ['198.51.100.21', '198.51.100.22', '198.51.100.23']],
  ] as const) {
    it(`${label}: 50 wrong passwords and the right one at once evaluate at most ${PER_EMAIL} guesses; the right one after them is refused`, { timeout: 120_000 }, async () => {
      const email = `owner-${addresses.length}@tienda.cl`;
      await signedIn(t, shop.merchantId, email, 'owner');
      const { answers, wrong, right, hashes, refusalsLogged } = await burst(email, [...addresses]);
      const signedInCount = answers.filter((a) => a.code === 'SIGNED_IN').length;
      const invalid = wrong.INVALID_CREDENTIALS ?? 0;
      // Every guess evaluated is an INVALID_CREDENTIALS or the sign-in; together at most the bound.
      expect(invalid + signedInCount, JSON.stringify(tally(answers))).toBeLessThanOrEqual(PER_EMAIL);
      expect(wrong.RATE_LIMITED).toBeGreaterThanOrEqual(50 - PER_EMAIL);
      expect(hashes).toBeLessThanOrEqual(PER_EMAIL);
      expect(refusalsLogged).toBe(invalid);
      // The right password sent with the burst got through only if it came within the bound ...
      if (right.code === 'SIGNED_IN') expect(invalid).toBeLessThan(PER_EMAIL);
      else expect(right.code).toBe('RATE_LIMITED');
      // ... and once the burst is over, it is refused for the rest of the window.
      expect((await attempt(t, { merchantId: shop.merchantId, email, password: PASSWORD, from: '198.51.100.99' })).code).toBe('RATE_LIMITED');
    });
  }

  it(`one address, 50 different emails at once: at most ${PER_ADDRESS} guesses evaluated, then the address is locked out`, { timeout: 120_000 }, async () => {
    const from = '198.51.100.30';
    const hashesBefore = derived();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(t, { merchantId: shop.merchantId, email: `nobody${i}@tienda.cl`, password: 'wrong guess', from })));
    const counts = tally(answers);
    expect(counts.INVALID_CREDENTIALS, JSON.stringify(counts)).toBeLessThanOrEqual(PER_ADDRESS);
    expect(counts.RATE_LIMITED).toBeGreaterThanOrEqual(50 - PER_ADDRESS);
    // The decoy hash of unknown emails may be made once more than the guesses.
    expect(derived() - hashesBefore).toBeLessThanOrEqual(PER_ADDRESS + 1);
    await signedIn(t, shop.merchantId, 'fresh@tienda.cl', 'viewer');
    expect((await attempt(t, { merchantId: shop.merchantId, email: 'fresh@tienda.cl', password: PASSWORD, from })).code).toBe('RATE_LIMITED');
  });

  it('successful sign-ins give their reservation back: only failures count', { timeout: 120_000 }, async () => {
    const email = 'often@tienda.cl';
    await signedIn(t, shop.merchantId, email, 'dispatcher');
    const from = '198.51.100.40';
    const answers = await Promise.all(Array.from({ length: PER_EMAIL + 3 }, () => attempt(t, { merchantId: shop.merchantId, email, password: PASSWORD, from })));
    // Concurrent right passwords may be refused while the bound is held by reservations in flight, but never locked out after.
    expect(answers.every((a) => a.code === 'SIGNED_IN' || a.code === 'RATE_LIMITED')).toBe(true);
    for (let i = 0; i < PER_EMAIL + 1; i++) expect((await attempt(t, { merchantId: shop.merchantId, email, password: PASSWORD, from })).code).toBe('SIGNED_IN');
  });

  it('aliased sign-ins in one request each draw from the address budget', async () => {
    const from = '198.51.100.50';
    const query = `mutation ($m: ID!) {
      a: logIn(input: { merchantId: $m, email: "x1@tienda.cl", password: "wrong guess" }) { __typename }
      b: logIn(input: { merchantId: $m, email: "x2@tienda.cl", password: "wrong guess" }) { __typename }
      c: logIn(input: { merchantId: $m, email: "x3@tienda.cl", password: "wrong guess" }) { __typename } }`;
    await gqlAs(t, null, query, { variables: { m: shop.merchantId }, headers: { 'x-forwarded-for': from } });
    const next = await gqlAs(t, null, '{ __typename }', { headers: { 'x-forwarded-for': from } });
    // One unit for the first request and one per further sign-in (2), one for this request.
    expect(Number(next.headers.get('ratelimit-remaining'))).toBe(100_000 - 4);
  });
});

describe('sign-in hashing is bounded: a burst beyond the queue is refused at once, and gives its reservations back', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  const PER_ADDRESS_HERE = 6;
  beforeAll(async () => {
    t = await startTestApp({
      env: { TRUST_PROXY: '127.0.0.1,::1', PUBLIC_RATE_LIMIT_PER_MIN: '100000', PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '2', LOGIN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS_HERE) },
    });
    shop = await t.createMerchant({ name: 'Queue Shop' });
  });
  afterAll(() => t.stop());

  it('20 concurrent sign-ins: one hash at a time, two waiting, the rest refused before hashing; a busy refusal is no failure', { timeout: 120_000 }, async () => {
    const { passwords } = t.app.container.services;
    const from = '203.0.113.7';
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, passwords.stats().running)), 1);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(t, { merchantId: shop.merchantId, email: `nobody${i}@tienda.cl`, password: 'wrong guess', from })));
    clearInterval(sampler);
    const counts = tally(answers);
    // The address's 6 reservations: 3 hashed (1 running, 2 waiting), the others SERVICE_UNAVAILABLE; 14 RATE_LIMITED without a turn.
    expect(counts.SERVICE_UNAVAILABLE, JSON.stringify(counts)).toBeGreaterThanOrEqual(1);
    expect(counts.RATE_LIMITED).toBe(20 - PER_ADDRESS_HERE);
    expect(most).toBe(1);
    // Only the evaluated guesses stay counted: the address has exactly its remaining failures left.
    for (let i = counts.INVALID_CREDENTIALS ?? 0; i < PER_ADDRESS_HERE; i++) {
      expect((await attempt(t, { merchantId: shop.merchantId, email: `later${i}@tienda.cl`, password: 'wrong guess', from })).code).toBe('INVALID_CREDENTIALS');
    }
    expect((await attempt(t, { merchantId: shop.merchantId, email: 'later@tienda.cl', password: 'wrong guess', from })).code).toBe('RATE_LIMITED');
  });
});
