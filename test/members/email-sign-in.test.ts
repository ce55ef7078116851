import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { cookieFrom, gqlAs, invite, ME, PASSWORD, SET_PASSWORD } from './support.js';

const LOG_IN = `mutation ($input: LogInInput!) { logIn(input: $input) {
  __typename ... on MutationLogInSuccess { data { member { email } merchant { id name } memberships { merchant { id name } member { role } } } }
  ... on AppError { code message } } }`;

/** Issue #28: sign-in with email and password only; a member of several merchants chooses. */
describe('Team members: email-only sign-in', () => {
  let t: TestApp;
  let first: MerchantCredentials;
  let second: MerchantCredentials;
  let other: MerchantCredentials;
  const setUp = async (merchantId: string, email: string, password = PASSWORD) => {
    const token = await invite(t, merchantId, email, 'dispatcher');
    const set = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password } } });
    expect(set.body.data.setPassword.__typename).toBe('MutationSetPasswordSuccess');
  };
  const logIn = (input: Record<string, unknown>) => gqlAs(t, null, LOG_IN, { variables: { input } });

  beforeAll(async () => {
    t = await startTestApp({ env: { LOGIN_MAX_FAILURES_PER_EMAIL: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '50' } });
    first = await t.createMerchant({ name: 'Primera Tienda' });
    second = await t.createMerchant({ name: 'Segunda Tienda' });
    other = await t.createMerchant({ name: 'Otra Tienda' });
    await setUp(first.merchantId, 'ana@tienda.cl');
    await setUp(second.merchantId, 'ana@tienda.cl');
    // The same email elsewhere with another password: not opened by Ana's password.
    await setUp(other.merchantId, 'ana@tienda.cl', 'a different password entirely');
    await setUp(first.merchantId, 'solo@tienda.cl');
  });
  afterAll(() => t.stop());

  it('signs a member of one merchant in with email and password only', async () => {
    const res = await logIn({ email: 'Solo@Tienda.cl ', password: PASSWORD });
    expect(res.body.data.logIn.data.merchant.id).toBe(first.merchantId);
    expect(res.body.data.logIn.data.memberships).toHaveLength(1);
    const me = await gqlAs(t, cookieFrom(res.headers), ME);
    expect(me.body.data.me.merchant.id).toBe(first.merchantId);
  });

  it('answers every merchant the password opens (oldest first); naming one signs into it', async () => {
    const res = await logIn({ email: 'ana@tienda.cl', password: PASSWORD });
    const data = res.body.data.logIn.data;
    expect(data.memberships.map((m: { merchant: { id: string } }) => m.merchant.id)).toEqual([first.merchantId, second.merchantId]);
    expect(data.merchant.id).toBe(first.merchantId);
    const chosen = await logIn({ email: 'ana@tienda.cl', password: PASSWORD, merchantId: second.merchantId });
    expect(chosen.body.data.logIn.data.merchant.id).toBe(second.merchantId);
    expect((await gqlAs(t, cookieFrom(chosen.headers), ME)).body.data.me.merchant.name).toBe('Segunda Tienda');
    // The other password opens only its own merchant.
    const elsewhere = await logIn({ email: 'ana@tienda.cl', password: 'a different password entirely' });
    expect(elsewhere.body.data.logIn.data.memberships.map((m: { merchant: { id: string } }) => m.merchant.id)).toEqual([other.merchantId]);
  });

  it('refuses a wrong password, an unknown email and a merchant the password does not open alike', async () => {
    const wrong = [
      await logIn({ email: 'solo@tienda.cl', password: 'not the password' }),
      await logIn({ email: 'nobody@tienda.cl', password: PASSWORD }),
      await logIn({ email: 'solo@tienda.cl', password: PASSWORD, merchantId: second.merchantId }),
    ];
    for (const res of wrong) {
      expect(res.body.data.logIn).toMatchObject({ __typename: 'AppError', code: 'INVALID_CREDENTIALS' });
      expect(cookieFrom(res.headers)).toBeNull();
    }
  });

  it('locks the account (the email) out across the ways of signing in, the right password included', async () => {
    await setUp(first.merchantId, 'locked@tienda.cl');
    await setUp(second.merchantId, 'locked@tienda.cl');
    await logIn({ email: 'locked@tienda.cl', password: 'guess 1' });
    await logIn({ email: 'locked@tienda.cl', password: 'guess 2', merchantId: first.merchantId });
    await logIn({ email: 'locked@tienda.cl', password: 'guess 3', merchantId: second.merchantId });
    for (const input of [{}, { merchantId: first.merchantId }, { merchantId: second.merchantId }]) {
      expect((await logIn({ email: 'locked@tienda.cl', password: PASSWORD, ...input })).body.data.logIn.code).toBe('RATE_LIMITED');
    }
  });
});
