import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { logIn as memberLogIn, signedIn as memberSignedIn } from '../members/support.js';
import { PASSWORD, signedInOperator, signIn } from './support.js';

/**
 * Operators sign in under the members' exact, race-free lockout (FrontDoor.guardedSignIn): each
 * attempt reserves its unit before the password is hashed, so a concurrent burst of wrong
 * passwords gets exactly the bound evaluated, and the right password is refused after it.
 */
const PER_EMAIL = 4;

const codeOf = (res: { body: { data?: { operatorSignIn?: { __typename: string; code?: string } } } }) => {
  const r = res.body.data?.operatorSignIn;
  return r?.__typename === 'MutationOperatorSignInSuccess' ? 'SIGNED_IN' : (r?.code ?? 'NO_ANSWER');
};

describe('operator sign-in lockout', { timeout: 120_000 }, () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp({
      env: { LOGIN_MAX_FAILURES_PER_EMAIL: String(PER_EMAIL), LOGIN_MAX_FAILURES_PER_ADDRESS: '1000', TRUST_PROXY: '127.0.0.1,::1', PUBLIC_RATE_LIMIT_PER_MIN: '100000', PASSWORD_HASH_QUEUE: '500' },
    });
    shop = await t.createMerchant({ name: 'Lockout Shop' });
  });
  afterAll(() => t.stop());

  it(`30 concurrent wrong passwords: exactly ${PER_EMAIL} evaluated, the rest RATE_LIMITED, then the right one is refused`, async () => {
    await signedInOperator(t, 'target@ops.example.cl', 'admin');
    const derived = () => t.app.container.services.passwords.stats().derived;
    const before = derived();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signIn(t, 'target@ops.example.cl', `wrong guess ${i}`, { 'x-forwarded-for': `198.51.100.${10 + (i % 3)}` }).then(codeOf)),
    );
    const counts = answers.reduce<Record<string, number>>((c, a) => ((c[a] = (c[a] ?? 0) + 1), c), {});
    expect(counts, JSON.stringify(counts)).toEqual({ INVALID_CREDENTIALS: PER_EMAIL, RATE_LIMITED: 30 - PER_EMAIL });
    expect(derived() - before).toBe(PER_EMAIL);
    expect(codeOf(await signIn(t, 'target@ops.example.cl', PASSWORD, { 'x-forwarded-for': '198.51.100.99' }))).toBe('RATE_LIMITED');
  });

  it("an operator's lockout is its own: a merchant member with the same email still signs in", async () => {
    await memberSignedIn(t, shop.merchantId, 'target@ops.example.cl', 'owner');
    const res = await memberLogIn(t, shop.merchantId, 'target@ops.example.cl');
    expect(res.body.data.logIn.__typename).toBe('MutationLogInSuccess');
  });
});
