import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';

const VIEWER = 'query { viewer { mode merchant { id name prepTimeMins address settings { webhookPayloadShape } } } }';
const UPDATE = `mutation ($input: MerchantSettingsInput!) {
  updateMerchantSettings(input: $input) {
    __typename
    ... on MutationUpdateMerchantSettingsSuccess { data { id prepTimeMins } }
    ... on AppError { code }
  }
}`;

describe('tenant isolation', () => {
  let t: TestApp;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    a = await t.createMerchant({ name: 'Merchant A', address: 'Av. Providencia 1234, Providencia' });
    b = await t.createMerchant({ name: 'Merchant B', address: 'Av. Apoquindo 4000, Las Condes' });
  });
  afterAll(() => t.stop());

  const me = (key: string) => api(`${t.url}/api/v1/merchants/me`, { key });

  it("each key's /merchants/me returns only its own merchant", async () => {
    for (const [creds, name] of [[a, 'Merchant A'], [b, 'Merchant B']] as const) {
      for (const key of [creds.liveKey, creds.testKey]) {
        const res = await me(key);
        expect(res.status).toBe(200);
        expect(res.body.merchant).toMatchObject({ id: creds.merchantId, name });
        expect(JSON.stringify(res.body)).not.toContain(creds === a ? b.merchantId : a.merchantId);
      }
    }
  });

  it("B's settings changes (REST, both modes) never touch A", async () => {
    const before = (await me(a.liveKey)).body.merchant;
    const patch = await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: b.liveKey, body: { prep_time_mins: 45 } });
    expect(patch.status).toBe(200);
    const post = await api(`${t.url}/api/v1/merchants/settings`, {
      method: 'POST',
      key: b.testKey,
      body: { address: 'Los Leones 100, Providencia', webhook_payload_shape: 'flat', storefront_domain: 'b-shop.myshopify.com' },
    });
    expect(post.status).toBe(200);

    const afterA = (await me(a.liveKey)).body.merchant;
    expect(afterA).toEqual(before);
    expect(afterA.prep_time_mins).toBe(0);
    expect(afterA.address).toBe('Av. Providencia 1234, Providencia');

    const afterB = (await me(b.liveKey)).body.merchant;
    expect(afterB).toMatchObject({ id: b.merchantId, prep_time_mins: 45, address: 'Los Leones 100, Providencia' });
    expect(afterB.settings).toMatchObject({ webhook_payload_shape: 'flat', storefront_domain: 'b-shop.myshopify.com' });
  });

  it('the body cannot name another merchant: an id field is refused and nothing changes', async () => {
    const res = await api(`${t.url}/api/v1/merchants/settings`, {
      method: 'PATCH',
      key: b.liveKey,
      body: { prep_time_mins: 99, merchant_id: a.merchantId, id: a.merchantId },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((await me(a.liveKey)).body.merchant.prep_time_mins).toBe(0);
    expect((await me(b.liveKey)).body.merchant.prep_time_mins).not.toBe(99);
  });

  // Intended behaviour: settings and the profile belong to the merchant, not to a key or mode.
  // A merchant's test key and live key see one profile; a change made in the sandbox applies to
  // live as well (only orders, quotes' is_test and charges are separated by mode).
  it("one merchant's test and live keys see the same profile; only mode differs", async () => {
    const c = await t.createMerchant({ name: 'Merchant C' });
    const patch = await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: c.testKey, body: { prep_time_mins: 12 } });
    expect(patch.status).toBe(200);
    const viaTest = (await me(c.testKey)).body.merchant;
    const viaLive = (await me(c.liveKey)).body.merchant;
    expect(viaTest.mode).toBe('test');
    expect(viaLive.mode).toBe('live');
    const { mode: _t, ...profileTest } = viaTest;
    const { mode: _l, ...profileLive } = viaLive;
    expect(profileLive).toEqual(profileTest);
    expect(profileLive.prep_time_mins).toBe(12);
  });

  describe('GraphQL', () => {
    it('viewer returns only the caller, with the mode of the key', async () => {
      const resA = await gql(t.url, VIEWER, { key: a.testKey });
      expect(resA.status).toBe(200);
      expect(resA.body.data.viewer).toMatchObject({ mode: 'test', merchant: { id: a.merchantId, name: 'Merchant A' } });
      const resB = await gql(t.url, VIEWER, { key: b.liveKey });
      expect(resB.body.data.viewer).toMatchObject({ mode: 'live', merchant: { id: b.merchantId, name: 'Merchant B' } });
      expect(JSON.stringify(resB.body)).not.toContain(a.merchantId);
    });

    it("updateMerchantSettings with B's key changes B only", async () => {
      const before = (await gql(t.url, VIEWER, { key: a.liveKey })).body.data.viewer.merchant;
      const res = await gql(t.url, UPDATE, { key: b.testKey, variables: { input: { prepTimeMins: 77 } } });
      expect(res.body.data.updateMerchantSettings).toEqual({
        __typename: 'MutationUpdateMerchantSettingsSuccess',
        data: { id: b.merchantId, prepTimeMins: 77 },
      });
      expect((await gql(t.url, VIEWER, { key: a.liveKey })).body.data.viewer.merchant).toEqual(before);
      expect((await gql(t.url, VIEWER, { key: b.liveKey })).body.data.viewer.merchant.prepTimeMins).toBe(77);
    });

    it("test and live viewer of one merchant show the same merchant", async () => {
      const test = (await gql(t.url, VIEWER, { key: a.testKey })).body.data.viewer;
      const live = (await gql(t.url, VIEWER, { key: a.liveKey })).body.data.viewer;
      expect([test.mode, live.mode]).toEqual(['test', 'live']);
      expect(live.merchant).toEqual(test.merchant);
    });

    it('admin queries are closed to merchant keys (no listing other merchants)', async () => {
      const res = await gql(t.url, 'query { adminMerchants { id } }', { key: b.liveKey });
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(JSON.stringify(res.body)).not.toContain(a.merchantId);
    });
  });
});
