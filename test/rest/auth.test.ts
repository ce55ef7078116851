import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';

/** The two ways the spec lets a client send its key. */
const HEADER_STYLES = {
  'Authorization: Bearer': (key: string) => ({ authorization: `Bearer ${key}` }),
  'X-API-Key': (key: string) => ({ 'x-api-key': key }),
} as const;

type Response = Awaited<ReturnType<typeof api>>;

function expectError(res: Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}

describe('API key authentication', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    m = await t.createMerchant({ name: 'Auth Merchant' });
  });
  afterAll(() => t.stop());

  const me = (headers: Record<string, string>) => api(`${t.url}/api/v1/merchants/me`, { headers });

  for (const [style, header] of Object.entries(HEADER_STYLES)) {
    describe(`with ${style}`, () => {
      it('accepts a valid test key: mode test', async () => {
        const res = await me(header(m.testKey));
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(true);
        expect(res.body.merchant).toMatchObject({ id: m.merchantId, name: 'Auth Merchant', mode: 'test' });
      });

      it('accepts a valid live key: mode live', async () => {
        const res = await me(header(m.liveKey));
        expect(res.status).toBe(200);
        expect(res.body.merchant).toMatchObject({ id: m.merchantId, mode: 'live' });
      });

      it('rejects malformed keys with 401 INVALID_API_KEY', async () => {
        for (const bad of ['nope', 'ak_test_short', `ak_prod_${'a'.repeat(32)}`, `${m.testKey}x`, m.testKey.slice(0, -1)]) {
          expectError(await me(header(bad)), 401, 'INVALID_API_KEY');
        }
      });

      it('rejects a well-formed but unknown key with 401 INVALID_API_KEY', async () => {
        expectError(await me(header(`ak_test_${'A'.repeat(32)}`)), 401, 'INVALID_API_KEY');
        expectError(await me(header(`ak_live_${'z'.repeat(32)}`)), 401, 'INVALID_API_KEY');
      });

      it('rejects a test key relabelled as live (same secret part, other prefix)', async () => {
        expectError(await me(header(m.testKey.replace('ak_test_', 'ak_live_'))), 401, 'INVALID_API_KEY');
      });
    });
  }

  it('rejects a missing key with 401 INVALID_API_KEY (GET and POST)', async () => {
    expectError(await me({}), 401, 'INVALID_API_KEY');
    const res = await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', body: { prep_time_mins: 5 } });
    expectError(res, 401, 'INVALID_API_KEY');
  });

  it('rejects an empty Bearer and an empty X-API-Key', async () => {
    expectError(await me({ authorization: 'Bearer ' }), 401, 'INVALID_API_KEY');
    expectError(await me({ 'x-api-key': '' }), 401, 'INVALID_API_KEY');
  });

  it('rejects Authorization: Basic with 401, even when it encodes a valid key', async () => {
    expectError(await me({ authorization: `Basic ${Buffer.from(`${m.testKey}:`).toString('base64')}` }), 401, 'INVALID_API_KEY');
    expectError(await me({ authorization: `Basic ${m.testKey}` }), 401, 'INVALID_API_KEY');
  });

  it('rejects revoked keys with 401 in both header styles, and only the revoked mode', async () => {
    const r = await t.createMerchant({ name: 'Revoked' });
    expect((await me({ 'x-api-key': r.testKey })).status).toBe(200);
    const result = await t.app.container.services.admin.revokeApiKeys({ input: { merchantId: r.merchantId, mode: 'test' } });
    expect(result.revoked).toBe(1);
    for (const header of Object.values(HEADER_STYLES)) {
      expectError(await me(header(r.testKey)), 401, 'INVALID_API_KEY');
    }
    expect((await me({ authorization: `Bearer ${r.liveKey}` })).status).toBe(200);
  });

  it('a key already answered from memory is refused at once when another process revokes it or suspends its merchant', async () => {
    const r = await t.createMerchant({ name: 'Elsewhere' });
    for (let i = 0; i < 3; i++) expect((await me({ 'x-api-key': r.testKey })).status).toBe(200);
    // Another process on the same SQLite file (the admin CLI does exactly this).
    const other = createSqliteStore({ dataDir: t.dataDir });
    try {
      await other.merchants.update(r.merchantId, { status: 'suspended' }, new Date().toISOString());
      expectError(await api(`${t.url}/api/v1/shipping/quote`, { method: 'POST', headers: { 'x-api-key': r.testKey }, body: { destination: 'Providencia' } }), 403, 'ACCOUNT_SUSPENDED');
      await other.apiKeys.revoke({ merchantId: r.merchantId, mode: 'test', revokedAt: new Date().toISOString() });
      expectError(await me({ 'x-api-key': r.testKey }), 401, 'INVALID_API_KEY');
      expect((await me({ 'x-api-key': r.liveKey })).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('all key failures look the same (no oracle on which part was wrong)', async () => {
    const r = await t.createMerchant({ name: 'Oracle' });
    await t.app.container.services.admin.revokeApiKeys({ input: { merchantId: r.merchantId, mode: 'live' } });
    const bodies = await Promise.all([me({}), me({ 'x-api-key': 'garbage' }), me({ 'x-api-key': `ak_live_${'B'.repeat(32)}` }), me({ 'x-api-key': r.liveKey })]);
    expect(new Set(bodies.map((b) => JSON.stringify(b.body))).size).toBe(1);
  });

  describe('X-Test-Mode', () => {
    it('true with a test key works', async () => {
      for (const header of Object.values(HEADER_STYLES)) {
        const res = await me({ ...header(m.testKey), 'x-test-mode': 'true' });
        expect(res.status).toBe(200);
        expect(res.body.merchant.mode).toBe('test');
      }
    });

    it('true with a live key is 400 TEST_MODE_MISMATCH', async () => {
      for (const header of Object.values(HEADER_STYLES)) {
        expectError(await me({ ...header(m.liveKey), 'x-test-mode': 'true' }), 400, 'TEST_MODE_MISMATCH');
        expectError(await me({ ...header(m.liveKey), 'x-test-mode': ' TRUE ' }), 400, 'TEST_MODE_MISMATCH');
      }
    });

    it('false with a live key is simply live', async () => {
      const res = await me({ authorization: `Bearer ${m.liveKey}`, 'x-test-mode': 'false' });
      expect(res.status).toBe(200);
      expect(res.body.merchant.mode).toBe('live');
    });
  });

  describe('merchant status', () => {
    const settings = (key: string, method: 'POST' | 'PATCH', body: unknown) =>
      api(`${t.url}/api/v1/merchants/settings`, { method, key, body });

    it('suspended: 403 ACCOUNT_SUSPENDED on POST and PATCH /merchants/settings, 200 on GET /merchants/me', async () => {
      const s = await t.createMerchant({ name: 'Suspended' });
      await t.app.container.services.admin.setMerchantStatus({ input: { merchantId: s.merchantId, status: 'suspended' } });
      for (const key of [s.testKey, s.liveKey]) {
        expectError(await settings(key, 'PATCH', { prep_time_mins: 10 }), 403, 'ACCOUNT_SUSPENDED');
        expectError(await settings(key, 'POST', { address: 'Av. Apoquindo 4000, Las Condes' }), 403, 'ACCOUNT_SUSPENDED');
        const res = await me({ 'x-api-key': key });
        expect(res.status).toBe(200);
        expect(res.body.merchant).toMatchObject({ id: s.merchantId, status: 'suspended', prep_time_mins: 0 });
      }
    });

    it('suspended then reactivated: settings work again', async () => {
      const s = await t.createMerchant({ name: 'Reactivated' });
      const { admin } = t.app.container.services;
      await admin.setMerchantStatus({ input: { merchantId: s.merchantId, status: 'suspended' } });
      expectError(await settings(s.testKey, 'PATCH', { prep_time_mins: 10 }), 403, 'ACCOUNT_SUSPENDED');
      await admin.setMerchantStatus({ input: { merchantId: s.merchantId, status: 'active' } });
      expect((await settings(s.testKey, 'PATCH', { prep_time_mins: 10 })).status).toBe(200);
    });

    it('in_review: reads /me and changes settings in both modes', async () => {
      const r = await t.createMerchant({ name: 'In Review' });
      await t.app.container.services.admin.setMerchantStatus({ input: { merchantId: r.merchantId, status: 'in_review' } });
      for (const [i, key] of [r.testKey, r.liveKey].entries()) {
        const profile = await me({ authorization: `Bearer ${key}` });
        expect(profile.status).toBe(200);
        expect(profile.body.merchant).toMatchObject({ status: 'in_review', review_status: 'in_review' });
        const patched = await settings(key, 'PATCH', { prep_time_mins: 20 + i });
        expect(patched.status).toBe(200);
        expect(patched.body).toMatchObject({ success: true, prep_time_mins: 20 + i });
        expect((await settings(key, 'POST', { webhook_courier_location: true })).status).toBe(200);
      }
    });

    it('in_review: a live key gets 403 INTEGRATION_IN_REVIEW on operate-level endpoints (quotes) while a test key works', async () => {
      const r = await t.createMerchant({ name: 'Quoting In Review' });
      const quote = (key: string) =>
        api(`${t.url}/api/v1/shipping/quote`, { key, body: { destination: { lat: -33.4154, lng: -70.5837 }, total_weight_kg: 1 } });
      expect((await quote(r.liveKey)).status).toBe(200);
      await t.app.container.services.admin.setMerchantStatus({ input: { merchantId: r.merchantId, status: 'in_review' } });
      expectError(await quote(r.liveKey), 403, 'INTEGRATION_IN_REVIEW');
      const sandbox = await quote(r.testKey);
      expect(sandbox.status).toBe(200);
      expect(sandbox.body).toMatchObject({ success: true, is_test: true });
      await t.app.container.services.admin.setMerchantStatus({ input: { merchantId: r.merchantId, status: 'active' } });
      expect((await quote(r.liveKey)).status).toBe(200);
    });
  });
});
