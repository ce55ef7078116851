/**
 * Issue #19, console actions over GraphQL with a member session (the table is in
 * console-actions.test.ts): API keys, settings (prep time, storefront domain and secret, sandbox
 * speed), the team, signing in and out with a set password, and the live/test switch.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type TestApp } from '../helpers/app.js';
import { cookieFrom, gqlAs, LOG_IN, LOG_OUT, PASSWORD, SET_PASSWORD, tokenOf } from '../members/support.js';
import { startOrdersApp } from '../orders/support.js';
import { as, ERR, expectForbidden, orderInput, signInTeam, type Console } from './console-support.js';

const API_KEYS = '{ apiKeys { mode prefix status } }';
const ROTATE_KEY = `mutation ($mode: Mode!) { rotateApiKey(mode: $mode) { __typename ... on MutationRotateApiKeySuccess { data { mode apiKey revoked } } ${ERR} } }`;
const REVOKE_KEYS = `mutation ($mode: Mode!) { revokeApiKeys(mode: $mode) { __typename ... on MutationRevokeApiKeysSuccess { data } ${ERR} } }`;
const SETTINGS_FIELDS = 'prepTimeMins storefrontDomain sandboxSpeed storefrontSignatureConfigured';
const SETTINGS = `{ merchant { settings { ${SETTINGS_FIELDS} } } }`;
const UPDATE_SETTINGS = `mutation ($input: MerchantSettingsInput!) { updateMerchantSettings(input: $input) {
  __typename ... on MutationUpdateMerchantSettingsSuccess { data { settings { ${SETTINGS_FIELDS} } } } ${ERR} } }`;
const CREATE_ORDER = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  __typename ... on MutationCreateOrderSuccess { data { createdAt estimatedDeliveryTime } } ${ERR} } }`;
const MEMBERS = '{ members { id email role status } }';
const INVITE = `mutation ($email: String!, $role: MemberRole!) { inviteMember(input: { email: $email, role: $role }) {
  __typename ... on MutationInviteMemberSuccess { data { setPasswordUrl member { id email role status } } } ${ERR} } }`;
const CHANGE_ROLE = `mutation ($id: ID!, $role: MemberRole!) { changeMemberRole(id: $id, role: $role) {
  __typename ... on MutationChangeMemberRoleSuccess { data { id role } } ${ERR} } }`;
const REMOVE = `mutation ($id: ID!) { removeMember(id: $id) { __typename ... on MutationRemoveMemberSuccess { data { id } } ${ERR} } }`;
const ME = '{ me { mode role member { email role } merchant { id } } }';

const RATE_REQUEST_RAW = readFileSync(new URL('../fixtures/shopify/carrier-service-rate-request.json', import.meta.url), 'utf8');
const SHOP_DOMAIN = 'consola.myshopify.com';
const APP_SECRET = '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';

describe('Console actions over GraphQL with a member session: API keys, settings, team, sign-in, mode', () => {
  let t: TestApp;
  let c: Console;
  /** The shop's test key (rotated by the first test). */
  let testKey: string;
  beforeAll(async () => {
    t = await startOrdersApp();
    c = await signInTeam(t, 'account');
  });
  afterAll(() => t.stop());

  const keyWorks = async (key: string) => (await gql(t.url, '{ me { role } }', { key })).body.data?.me?.role === 'owner';
  const keys = async (cookie: string, mode: 'live' | 'test' = 'test') => (await as(t, cookie, API_KEYS, { mode })) as Array<{ mode: string; prefix: string; status: string }>;
  const settings = async (cookie: string, mode: 'live' | 'test' = 'test') => (await as(t, cookie, SETTINGS, { mode })).settings;

  it('API keys: every role lists both modes’ prefixes; only the owner rotates and revokes (refused: the keys keep working)', async () => {
    const keyOf = (mode: string) => (mode === 'live' ? c.shop.liveKey : c.shop.testKey);
    for (const cookie of [c.viewer, c.dispatcher, c.owner]) {
      for (const mode of ['test', 'live'] as const) {
        const listed = await keys(cookie, mode);
        expect(listed.map((k) => `${k.mode} ${k.status}`).sort()).toEqual(['live active', 'test active']);
        // A display prefix of each key (`ak_live_` and 4 characters), never the key.
        for (const k of listed) expect(k.prefix).toBe(`${keyOf(k.mode).slice(0, 12)}…`);
      }
    }

    for (const [cookie, role] of [[c.viewer, 'viewer'], [c.dispatcher, 'dispatcher']] as const) {
      expectForbidden(await as(t, cookie, ROTATE_KEY, { variables: { mode: 'test' } }), role);
      expectForbidden(await as(t, cookie, REVOKE_KEYS, { variables: { mode: 'live' } }), role);
    }
    expect([await keyWorks(c.shop.testKey), await keyWorks(c.shop.liveKey)]).toEqual([true, true]);

    // The key's mode is the argument's, whatever the session's mode.
    const rotated = await as(t, c.owner, ROTATE_KEY, { variables: { mode: 'test' }, mode: 'live' });
    expect(rotated.data).toMatchObject({ mode: 'test', apiKey: expect.stringMatching(/^ak_test_/), revoked: 1 });
    expect([await keyWorks(c.shop.testKey), await keyWorks(rotated.data.apiKey)]).toEqual([false, true]);
    expect((await as(t, c.owner, REVOKE_KEYS, { variables: { mode: 'live' } })).data).toBe(1);
    expect(await keyWorks(c.shop.liveKey)).toBe(false);
    testKey = rotated.data.apiKey;
    const active = (await keys(c.viewer)).filter((k) => k.status === 'active');
    expect(active).toEqual([{ mode: 'test', prefix: `${testKey.slice(0, 12)}…`, status: 'active' }]);
    // The rival's keys are another merchant's: untouched.
    expect([await keyWorks(c.rival.testKey), await keyWorks(c.rival.liveKey)]).toEqual([true, true]);
  });

  it('settings: every role reads them (one set for both modes); only the owner changes prep time, storefront domain and secret, sandbox speed — and they take effect', async () => {
    const input = { prepTimeMins: 25, storefrontDomain: SHOP_DOMAIN, storefrontSharedSecret: APP_SECRET, sandboxSpeed: 1 };
    const before = await settings(c.viewer);
    for (const [cookie, role] of [[c.viewer, 'viewer'], [c.dispatcher, 'dispatcher']] as const) {
      expectForbidden(await as(t, cookie, UPDATE_SETTINGS, { variables: { input } }), role);
    }
    expect(await settings(c.viewer)).toEqual(before);
    expect(before.storefrontSignatureConfigured).toBe(false);

    const updated = await as(t, c.owner, UPDATE_SETTINGS, { variables: { input } });
    const expected = { prepTimeMins: 25, storefrontDomain: SHOP_DOMAIN, sandboxSpeed: 1, storefrontSignatureConfigured: true };
    expect(updated.data.settings).toEqual(expected);
    for (const cookie of [c.viewer, c.dispatcher]) {
      expect(await settings(cookie)).toEqual(expected);
      expect(await settings(cookie, 'live')).toEqual(expected);
    }
    expect(JSON.stringify(updated)).not.toContain(APP_SECRET);
    // REST shows the same settings to an API key (and the rival's are its own).
    const rest = await api(`${t.url}/api/v1/merchants/me`, { key: testKey });
    expect(rest.body.merchant.settings).toMatchObject({ prep_time_mins: 25, storefront_domain: SHOP_DOMAIN, sandbox_speed: 1, storefront_signature_configured: true });
    expect((await settings(c.rivalOwner)).storefrontDomain).toBeNull();

    // The storefront secret signs Shopify's requests for the shop's domain.
    const shopify = (secret: string) => api(`${t.url}/api/v1/storefront/carrier-service`, {
      method: 'POST', rawBody: RATE_REQUEST_RAW,
      headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': createHmac('sha256', secret).update(RATE_REQUEST_RAW).digest('base64'), 'x-shopify-shop-domain': SHOP_DOMAIN },
    });
    expect((await shopify(APP_SECRET)).status).toBe(200);
    expect((await shopify('shpss_ffffffffffffffffffffffffffffffff')).body.error.code).toBe('INVALID_SIGNATURE');

    // Sandbox speed: a test order's estimate runs that many times faster.
    const estimateMs = async () => {
      const created = (await as(t, c.dispatcher, CREATE_ORDER, { variables: { input: orderInput() } })).data;
      return Date.parse(created.estimatedDeliveryTime) - Date.parse(created.createdAt);
    };
    const atSpeed1 = await estimateMs();
    expect((await as(t, c.owner, UPDATE_SETTINGS, { variables: { input: { sandboxSpeed: 50 } } })).data.settings.sandboxSpeed).toBe(50);
    const atSpeed50 = await estimateMs();
    expect(atSpeed50).toBeLessThan(atSpeed1 / 10);
    expect(atSpeed1).toBeGreaterThan(25 * 60_000); // the 25-minute prep time is in it
  });

  it('team: every role lists it; only the owner invites, changes roles and removes; the invited member sets a password, signs in and out', async () => {
    const team = async (cookie: string) => ((await as(t, cookie, MEMBERS)) as Array<{ id: string; email: string; role: string; status: string }>);
    const before = await team(c.viewer);
    expect(before.map((m) => m.email)).toEqual(['owner@account.cl', 'dispatch@account.cl', 'viewer@account.cl']);
    for (const [cookie, role] of [[c.viewer, 'viewer'], [c.dispatcher, 'dispatcher']] as const) {
      expectForbidden(await as(t, cookie, INVITE, { variables: { email: 'nuevo@account.cl', role: 'viewer' } }), role);
      expectForbidden(await as(t, cookie, CHANGE_ROLE, { variables: { id: before[2]!.id, role: 'owner' } }), role);
      expectForbidden(await as(t, cookie, REMOVE, { variables: { id: before[0]!.id } }), role);
    }
    expect(await team(c.dispatcher)).toEqual(before);

    const invited = (await as(t, c.owner, INVITE, { variables: { email: 'nuevo@account.cl', role: 'dispatcher' } })).data;
    expect(invited.member).toMatchObject({ email: 'nuevo@account.cl', role: 'dispatcher', status: 'invited' });
    expect((await team(c.viewer)).map((m) => m.email)).toContain('nuevo@account.cl');

    // The link's token sets the password (no session needed); then sign in.
    const set = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token: tokenOf(invited.setPasswordUrl), password: PASSWORD } } });
    expect(set.body.data.setPassword).toEqual({ __typename: 'MutationSetPasswordSuccess', data: { merchantId: c.shop.merchantId, email: 'nuevo@account.cl' } });
    const signIn = () => gqlAs(t, null, LOG_IN, { variables: { input: { merchantId: c.shop.merchantId, email: 'nuevo@account.cl', password: PASSWORD } } });
    const first = await signIn();
    const cookie = cookieFrom(first.headers)!;
    expect(await as(t, cookie, ME)).toMatchObject({ mode: 'test', role: 'dispatcher', member: { email: 'nuevo@account.cl' }, merchant: { id: c.shop.merchantId } });

    // A role change signs the member out; the new role applies from the next sign-in.
    expect((await as(t, c.owner, CHANGE_ROLE, { variables: { id: invited.member.id, role: 'viewer' } })).data.role).toBe('viewer');
    expect((await gqlAs(t, cookie, ME)).body.errors[0].extensions.code).toBe('INVALID_SESSION');
    const again = cookieFrom((await signIn()).headers)!;
    expect((await as(t, again, ME)).role).toBe('viewer');
    expectForbidden(await as(t, again, CREATE_ORDER, { variables: { input: orderInput() } }), 'viewer');

    // Signing out ends the session.
    expect((await gqlAs(t, again, LOG_OUT)).body.data.logOut).toEqual({ __typename: 'MutationLogOutSuccess', data: true });
    expect((await gqlAs(t, again, ME)).body.errors[0].extensions.code).toBe('INVALID_SESSION');

    // Removal: off the team, and the password no longer signs in.
    const third = cookieFrom((await signIn()).headers)!;
    expect((await as(t, c.owner, REMOVE, { variables: { id: invited.member.id } })).data.id).toBe(invited.member.id);
    expect(await team(c.viewer)).toEqual(before);
    expect((await gqlAs(t, third, ME)).body.errors[0].extensions.code).toBe('INVALID_SESSION');
    expect((await signIn()).body.data.logIn.code).toBe('INVALID_CREDENTIALS');
    // The rival's owner cannot touch this team.
    expect((await as(t, c.rivalOwner, REMOVE, { variables: { id: before[1]!.id } })).code).toBe('NOT_FOUND');
    expect(await team(c.viewer)).toEqual(before);
  });

  it('live/test switch: X-Mode picks the mode per request (test by default); me says which', async () => {
    expect((await gqlAs(t, c.viewer, ME)).body.data.me.mode).toBe('test');
    expect((await as(t, c.viewer, ME, { mode: 'live' })).mode).toBe('live');
    expect((await as(t, c.viewer, ME, { mode: 'test' })).mode).toBe('test');
  });
});
