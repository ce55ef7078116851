import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse, stringify } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOREFRONT_SECRET_OVERLAP_MS } from '../../src/domain/merchants.js';
import { createLogger } from '../../src/logger.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectError, expectOk, startOrdersApp } from '../orders/support.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/shopify/${name}`, import.meta.url), 'utf8');
/** Shopify's own examples, byte for byte: a rate request to Ottawa and a voided orders/create to Kentucky. */
const RATE_REQUEST_RAW = fixture('carrier-service-rate-request.json');
const ORDER_CREATED_RAW = fixture('orders-create-webhook.json');
/** The orders/create example as a paid order shipped to Las Condes (every integer kept exact). */
const PAID_SANTIAGO_RAW = (() => {
  const doc = parse(ORDER_CREATED_RAW) as Record<string, unknown> & { shipping_address: Record<string, unknown> };
  Object.assign(doc, { financial_status: 'paid', cancelled_at: null, cancel_reason: null });
  doc.shipping_address = { ...doc.shipping_address, address1: 'Av. Apoquindo 3000', city: 'Las Condes', province: 'Región Metropolitana', country: 'Chile', country_code: 'CL', phone: '+56 9 1234 5678' };
  return stringify(doc)!;
})();

const SHOP_DOMAIN = 'tienda-secreta.myshopify.com';
/** The shape of a Shopify app's client secret: `shpss_` + 32 hex characters. */
const APP_SECRET = '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';
const ROTATED_SECRET = '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';

const hmacOf = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('base64');

describe('storefront shared secret (Shopify signs with its app secret; no API key)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let now = Date.parse('2025-03-14T15:00:00.000Z');
  const logChunks: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({ write: (chunk: Buffer, _enc, done) => (logChunks.push(chunk.toString()), done()) });
    t = await startOrdersApp({ clock: { now: () => new Date(now) }, logger: createLogger({ level: 'debug', destination }) });
    m = await t.createMerchant({ name: 'Tienda Secreta' });
    expectOk(await api(`${t.url}/api/v1/merchants/settings`, { key: m.liveKey, body: { storefront_domain: SHOP_DOMAIN } }));
  });
  afterAll(() => t.stop());

  /** A request exactly as Shopify sends it: the raw bytes, its HMAC, the shop's domain, no API key. */
  const shopify = (path: string, raw: string, secret: string, extra: Record<string, string> = {}) =>
    api(`${t.url}/api/v1/storefront/${path}`, {
      method: 'POST',
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': hmacOf(secret, raw), 'x-shopify-shop-domain': SHOP_DOMAIN, ...extra },
    });
  const rates = (secret: string, raw = RATE_REQUEST_RAW) => shopify('carrier-service', raw, secret);
  const orderCreated = (secret: string, raw = ORDER_CREATED_RAW) =>
    shopify('webhooks/orders-create?mode=test', raw, secret, { 'x-shopify-topic': 'orders/create', 'x-shopify-webhook-id': randomUUID() });
  const setSecret = (value: string | null) => api(`${t.url}/api/v1/merchants/settings`, { key: m.liveKey, body: { storefront_shared_secret: value } });

  it('before a shared secret is stored, the app secret is refused (401 with the error shape)', async () => {
    expectError(await rates(APP_SECRET), 401, 'INVALID_SIGNATURE');
  });

  it('is write-only: stored, acknowledged as set, never echoed by settings, profile or GraphQL', async () => {
    const res = expectOk(await setSecret(APP_SECRET));
    expect(res.body.settings.storefront_signature_configured).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(APP_SECRET);
    const me = expectOk(await api(`${t.url}/api/v1/merchants/me`, { key: m.liveKey }));
    expect(me.body.merchant.settings.storefront_signature_configured).toBe(true);
    expect(JSON.stringify(me.body)).not.toContain(APP_SECRET);
    const viewer = await gql(t.url, '{ merchant { settings { storefrontSignatureConfigured } } }', { key: m.liveKey });
    expect(JSON.stringify(viewer.body)).not.toContain(APP_SECRET);
    expect(JSON.stringify(viewer.body)).toContain('"storefrontSignatureConfigured":true');
  });

  it('accepts the verbatim Shopify requests signed with it and no API key: carrier service and orders/create', async () => {
    expect(await rates(APP_SECRET)).toMatchObject({ status: 200, body: { rates: [] } }); // Ottawa: Shopify's "cannot ship"
    const voided = await orderCreated(APP_SECRET);
    expect(voided).toMatchObject({ status: 200, body: { success: true, created: false, ignored: true } });
    const paid = await orderCreated(APP_SECRET, PAID_SANTIAGO_RAW);
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ success: true, created: true, booking_id: expect.stringMatching(/^bk_/) });
  });

  it('a wrong secret, a tampered body or another shop → 401 INVALID_SIGNATURE with the error shape', async () => {
    for (const res of [
      await rates('shpss_00000000000000000000000000000000'),
      await shopify('carrier-service', RATE_REQUEST_RAW.replace('Ottawa', 'Toronto'), APP_SECRET, { 'x-shopify-hmac-sha256': hmacOf(APP_SECRET, RATE_REQUEST_RAW) }),
      await shopify('carrier-service', RATE_REQUEST_RAW, APP_SECRET, { 'x-shopify-shop-domain': 'otra-tienda.myshopify.com' }),
      await orderCreated('shpss_00000000000000000000000000000000'),
    ]) {
      expectError(res, 401, 'INVALID_SIGNATURE');
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message']);
    }
  });

  it('the merchant API secret still signs as before', async () => {
    expect((await rates(m.apiSecret)).status).toBe(200);
  });

  it('rotation: the new secret works at once, the replaced one only for the overlap Shopify needs; null revokes at once', async () => {
    expectOk(await setSecret(ROTATED_SECRET));
    expect((await rates(ROTATED_SECRET)).status).toBe(200);
    expect((await rates(APP_SECRET)).status).toBe(200);
    now += STOREFRONT_SECRET_OVERLAP_MS + 1000;
    expectError(await rates(APP_SECRET), 401, 'INVALID_SIGNATURE');
    expect((await rates(ROTATED_SECRET)).status).toBe(200);

    const cleared = expectOk(await setSecret(null));
    expect(cleared.body.settings.storefront_signature_configured).toBe(false);
    expectError(await rates(ROTATED_SECRET), 401, 'INVALID_SIGNATURE');
  });

  it('set through GraphQL too (storefrontSharedSecret), write-only there as well', async () => {
    const res = await gql(t.url, `mutation ($s: String) { updateMerchantSettings(input: { storefrontSharedSecret: $s }) {
      __typename ... on MutationUpdateMerchantSettingsSuccess { data { settings { storefrontSignatureConfigured } } } ... on AppError { code fields { field } } } }`, {
      key: m.liveKey, variables: { s: APP_SECRET },
    });
    expect(res.body.data.updateMerchantSettings).toEqual({ __typename: 'MutationUpdateMerchantSettingsSuccess', data: { settings: { storefrontSignatureConfigured: true } } });
    expect(JSON.stringify(res.body)).not.toContain(APP_SECRET);
    expect((await rates(APP_SECRET)).status).toBe(200);
  });

  it('a malformed secret → 400 VALIDATION_ERROR on that field, without echoing the value', async () => {
    for (const bad of ['short-secret', 'has spaces in the middle of it', 'x'.repeat(300)]) {
      const res = expectError(await setSecret(bad), 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['storefront_shared_secret']);
      expect(JSON.stringify(res.body)).not.toContain(bad);
    }
  });

  it('is encrypted at rest (AES-GCM envelope under the master key): its text is nowhere in the SQLite files', async () => {
    const rows = t.app.container.store;
    const stored = await rows.merchants.findStorefrontSecret(m.merchantId);
    expect(stored?.current).toMatch(/^v1\./);
    expect(stored?.current).not.toContain(APP_SECRET);
    for (const file of readdirSync(t.dataDir).filter((f) => /\.(sqlite|db)(-wal)?$|-wal$/.test(f) || f.includes('sqlite'))) {
      expect(readFileSync(join(t.dataDir, file)).includes(APP_SECRET), file).toBe(false);
    }
    expect(readdirSync(t.dataDir).some((f) => f.includes('sqlite') || f.endsWith('.db'))).toBe(true);
  });

  it('never reaches the log', async () => {
    await t.app.container.logger.flush?.();
    await new Promise((r) => setTimeout(r, 300));
    const logs = logChunks.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(APP_SECRET);
    expect(logs).not.toContain(ROTATED_SECRET);
  });
});
