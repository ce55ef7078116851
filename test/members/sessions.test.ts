import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { cookieFrom, gqlAs, invite, LOG_IN, LOG_OUT, logIn, ME, PASSWORD, SET_PASSWORD, signedIn } from './support.js';

describe('Team members: set password, sign in and out, the session cookie', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    shop = await t.createMerchant({ name: 'Console Shop' });
  });
  afterAll(() => t.stop());

  it('an invited member sets a password, signs in, and the cookie is HttpOnly, SameSite=Lax, Path=/ (not Secure over plain HTTP)', async () => {
    const token = await invite(t, shop.merchantId, ' Ana@Tienda.CL ', 'owner');
    expect(token).toMatch(/^pt_[A-Za-z0-9_-]{43}$/);
    const set = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
    expect(set.body.data.setPassword).toEqual({ __typename: 'MutationSetPasswordSuccess', data: { merchantId: shop.merchantId, email: 'ana@tienda.cl' } });

    const res = await logIn(t, shop.merchantId, 'ANA@tienda.cl');
    expect(res.body.data.logIn).toMatchObject({ __typename: 'MutationLogInSuccess', data: { member: { email: 'ana@tienda.cl', role: 'owner', status: 'active' } } });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('exd_session='))!;
    const attributes = setCookie.split(';').map((a) => a.trim());
    expect(attributes[0]).toMatch(/^exd_session=ms_[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(attributes).not.toContain('Secure');
    expect(Date.parse(attributes.find((a) => a.startsWith('Expires='))!.slice(8)) - Date.now()).toBeGreaterThan(11 * 3_600_000);

    const cookie = cookieFrom(res.headers)!;
    const me = await gqlAs(t, cookie, ME);
    expect(me.body.data.me).toMatchObject({ role: 'owner', mode: 'test', member: { email: 'ana@tienda.cl' }, merchant: { id: shop.merchantId } });
    expect((await gqlAs(t, cookie, ME, { mode: 'live' })).body.data.me.mode).toBe('live');
    const mixed = await gqlAs(t, cookie, ME, { mode: 'live', headers: { 'x-test-mode': 'true' } });
    expect(mixed.body.errors[0].extensions.code).toBe('TEST_MODE_MISMATCH');
    const bad = await gqlAs(t, cookie, ME, { headers: { 'x-mode': 'production' } });
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });

  it('the cookie is Secure behind a trusted TLS proxy (TRUST_PROXY and X-Forwarded-Proto: https), and not for an untrusted peer', async () => {
    const proxied = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1' } });
    try {
      const m = await proxied.createMerchant();
      await signedIn(proxied, m.merchantId, 'tls@tienda.cl', 'viewer');
      const over = (proto: string) => gqlAs(proxied, null, LOG_IN, { variables: { input: { merchantId: m.merchantId, email: 'tls@tienda.cl', password: PASSWORD } }, headers: { 'x-forwarded-proto': proto } });
      expect((await over('https')).headers.getSetCookie()[0]).toMatch(/; Secure/);
      expect((await over('http')).headers.getSetCookie()[0]).not.toMatch(/Secure/);
    } finally {
      await proxied.stop();
    }
    const direct = await logIn(t, shop.merchantId, 'ana@tienda.cl');
    expect(direct.headers.getSetCookie()[0]).not.toMatch(/Secure/);
  });

  it('a wrong password, an unknown email, another merchant and a member without a password get the same INVALID_CREDENTIALS', async () => {
    await invite(t, shop.merchantId, 'pending@tienda.cl', 'viewer');
    const other = await t.createMerchant({ name: 'Other Shop' });
    const answers = await Promise.all([
      logIn(t, shop.merchantId, 'ana@tienda.cl', 'wrong password 123'),
      logIn(t, shop.merchantId, 'nobody@tienda.cl'),
      logIn(t, other.merchantId, 'ana@tienda.cl'),
      logIn(t, 'm_unknown', 'ana@tienda.cl'),
      logIn(t, shop.merchantId, 'pending@tienda.cl'),
    ]);
    for (const res of answers) {
      expect(res.body.data.logIn).toEqual({ __typename: 'AppError', code: 'INVALID_CREDENTIALS', message: 'Email or password is not right' });
      expect(res.headers.getSetCookie()).toEqual([]);
    }
  });

  it('an unknown email takes about as long as a wrong password (it is hashed too)', async () => {
    const time = async (email: string) => {
      const started = performance.now();
      await logIn(t, shop.merchantId, email, 'wrong password 456');
      return performance.now() - started;
    };
    await time('warm@tienda.cl');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await time('ana@tienda.cl'));
      unknown.push(await time(`ghost${i}@tienda.cl`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[2]!;
    // scrypt dominates both (tens of ms); without the decoy an unknown email answers in a few
    // milliseconds. The bound is loose: the machine is shared and timings under load vary.
    expect(median(unknown), `known ${known.map(Math.round).join(', ')} ms; unknown ${unknown.map(Math.round).join(', ')} ms`).toBeGreaterThan(median(known) * 0.3);
  });

  it('a set-password link works once; a used, unknown or malformed token is PASSWORD_TOKEN_INVALID; a weak password is a VALIDATION_ERROR', async () => {
    const token = await invite(t, shop.merchantId, 'once@tienda.cl', 'dispatcher');
    const weak = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: 'short' } } });
    expect(weak.body.data.setPassword).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'password' }] });
    const first = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
    expect(first.body.data.setPassword.__typename).toBe('MutationSetPasswordSuccess');
    for (const again of [token, 'pt_unknown', 'x'.repeat(150)]) {
      const res = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token: again, password: 'another long password' } } });
      expect(res.body.data.setPassword.code, again).toBe('PASSWORD_TOKEN_INVALID');
    }
    expect((await logIn(t, shop.merchantId, 'once@tienda.cl')).body.data.logIn.__typename).toBe('MutationLogInSuccess');
    expect((await logIn(t, shop.merchantId, 'once@tienda.cl', 'another long password')).body.data.logIn.code).toBe('INVALID_CREDENTIALS');
  });

  it('a second invitation replaces the first link; an active member cannot be invited again (CONFLICT)', async () => {
    const first = await invite(t, shop.merchantId, 'twice@tienda.cl', 'viewer');
    const second = await invite(t, shop.merchantId, 'twice@tienda.cl', 'dispatcher');
    expect((await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token: first, password: PASSWORD } } })).body.data.setPassword.code).toBe('PASSWORD_TOKEN_INVALID');
    expect((await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token: second, password: PASSWORD } } })).body.data.setPassword.__typename).toBe('MutationSetPasswordSuccess');
    expect((await logIn(t, shop.merchantId, 'twice@tienda.cl')).body.data.logIn.data.member.role).toBe('dispatcher');
    await expect(invite(t, shop.merchantId, 'twice@tienda.cl', 'owner')).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('logOut ends the session: the old cookie no longer authenticates, and the cookie is cleared', async () => {
    const cookie = await signedIn(t, shop.merchantId, 'leaving@tienda.cl', 'viewer');
    expect((await gqlAs(t, cookie, ME)).body.data.me.member.email).toBe('leaving@tienda.cl');
    const out = await gqlAs(t, cookie, LOG_OUT);
    expect(out.body.data.logOut).toEqual({ __typename: 'MutationLogOutSuccess', data: true });
    expect(out.headers.getSetCookie()[0]).toMatch(/^exd_session=; Max-Age=0/);
    const after = await gqlAs(t, cookie, ME);
    expect(after.body.errors[0].extensions.code).toBe('INVALID_SESSION');
    expect(after.body.data).toBeNull();
    // A stale cookie does not stand in the way of signing in again.
    expect((await gqlAs(t, cookie, LOG_IN, { variables: { input: { merchantId: shop.merchantId, email: 'leaving@tienda.cl', password: PASSWORD } } })).body.data.logIn.__typename).toBe(
      'MutationLogInSuccess',
    );
  });

  it('signing in needs the CSRF header; a cookie without it is refused (403 CSRF_REQUIRED) on POST, form POST and GET, and API keys need no header', async () => {
    const noHeader = await gqlAs(t, null, LOG_IN, { csrf: false, variables: { input: { merchantId: shop.merchantId, email: 'ana@tienda.cl', password: PASSWORD } } });
    expect(noHeader.body.data.logIn).toMatchObject({ __typename: 'AppError', code: 'CSRF_REQUIRED' });
    expect(noHeader.headers.getSetCookie()).toEqual([]);

    const cookie = (await signedIn(t, shop.merchantId, 'csrf@tienda.cl', 'owner'))!;
    const json = await gqlAs(t, cookie, 'mutation { rotateApiKey(mode: test) { __typename } }', { csrf: false });
    expect(json.status).toBe(403);
    expect(json.body.errors[0].extensions.code).toBe('CSRF_REQUIRED');

    const form = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `query=${encodeURIComponent('mutation { rotateApiKey(mode: test) { __typename } }')}`,
    });
    expect(form.status).toBe(403);
    const get = await fetch(`${t.url}/graphql?query=${encodeURIComponent('{ me { role } }')}`, { headers: { cookie, accept: 'application/json' } });
    expect(get.status).toBe(403);
    const keys = (await gqlAs(t, cookie, '{ apiKeys { prefix } }')).body.data.apiKeys;
    expect(keys.filter((k: { prefix: string }) => k.prefix.startsWith('ak_test_'))).toHaveLength(1);

    const withKey = await gql(t.url, '{ me { role member { id } } }', { key: shop.testKey });
    expect(withKey.body.data.me).toEqual({ role: 'owner', member: null });
  });

  it('a member is never shown with its password hash, and the team is not readable without credentials', async () => {
    const type = await gql(t.url, '{ __type(name: "Member") { fields { name } } }');
    expect(type.body.data.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(['createdAt', 'email', 'id', 'role', 'status']);
    const cookie = await signedIn(t, shop.merchantId, 'hash@tienda.cl', 'viewer');
    const team = await gqlAs(t, cookie, '{ members { id email role status createdAt } me { member { id email } } }');
    expect(JSON.stringify(team.body)).not.toMatch(/scrypt|password/i);
    for (const query of ['{ members { id } }', '{ me { role } }']) {
      expect((await gqlAs(t, null, query)).body.errors[0].extensions.code, query).toBe('INVALID_API_KEY');
    }
  });
  it('a member holds at most MEMBER_MAX_SESSIONS sessions: a sign-in beyond it ends the oldest', async () => {
    const capped = await startTestApp({ env: { MEMBER_MAX_SESSIONS: '3' } });
    try {
      const merchant = await capped.createMerchant({ name: 'Capped Shop' });
      await signedIn(capped, merchant.merchantId, 'cap@tienda.cl', 'viewer');
      const cookies: string[] = [];
      for (let i = 0; i < 4; i++) cookies.push(cookieFrom((await logIn(capped, merchant.merchantId, 'cap@tienda.cl')).headers)!);
      const answers = await Promise.all(cookies.map(async (cookie) => (await gqlAs(capped, cookie, ME)).body));
      expect(answers[0].errors[0].extensions.code).toBe('INVALID_SESSION');
      for (const answer of answers.slice(1)) expect(answer.data.me.member.email).toBe('cap@tienda.cl');
    } finally {
      await capped.stop();
    }
  });
});
