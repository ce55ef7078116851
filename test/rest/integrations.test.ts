import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { errorResponseSchema } from '../../rest/openapi/registry.js';
import {
  carrierServiceResponseSchema,
  erpRateFailureSchema,
  erpRateResponseSchema,
  pluginRatesResponseSchema,
} from '../../rest/openapi/responses.js';
import { ADMIN_TOKEN, api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures', import.meta.url));
const readFixture = (path: string) => readFileSync(`${FIXTURES}/${path}`, 'utf8');

/** Verbatim fixture files: sent as their exact bytes. */
const WOO_PACKAGE_RAW = readFixture('woocommerce/shipping-package.json');
const WOO_ADD_RATE_ARGS = JSON.parse(readFixture('woocommerce/add-rate-args.json')) as { defaults: Record<string, unknown> };
const SHOPIFY_RATE_REQUEST_RAW = readFixture('shopify/carrier-service-rate-request.json');
const SHOPIFY_RATE_RESPONSE = JSON.parse(readFixture('shopify/carrier-service-rate-response.json')) as { rates: Array<Record<string, unknown>> };
const ODOO_CONTRACT = JSON.parse(readFixture('odoo/delivery-carrier-contract.json')) as {
  methods: Record<string, { returns_success_example?: Record<string, unknown>; returns_error_example?: Record<string, unknown> }>;
};
const ODOO_RATE = ODOO_CONTRACT.methods['<provider>_rate_shipment(self, order)']!;

/** Shopify's own request (destination in Ottawa), with the destination moved to Las Condes. Built here, not a fixture. */
function santiagoRateRequest(): Record<string, { destination: Record<string, unknown> }> {
  const request = JSON.parse(SHOPIFY_RATE_REQUEST_RAW) as { rate: { destination: Record<string, unknown> } };
  request.rate.destination = {
    ...request.rate.destination,
    country: 'CL',
    postal_code: '7550000',
    province: 'RM',
    city: 'Las Condes',
    address1: 'Av. Apoquindo 3000',
  };
  return request;
}
const SANTIAGO_RATE_REQUEST_RAW = JSON.stringify(santiagoRateRequest());
/** What /shipping/quote gets for the same route: 1 item of 1000 g, from the merchant address. */
const SANTIAGO_QUOTE = { destination: 'Av. Apoquindo 3000, Las Condes', total_weight: 1 };

const SHOP_DOMAIN = 'farmacia-central.myshopify.com';
const START = Date.parse('2025-03-14T15:00:00.000Z');
const SHOPIFY_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

type Res = Awaited<ReturnType<typeof api>>;

function expectError(res: Res, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
}

/** The body matches its OpenAPI response schema, and has no key the schema leaves out (zod would strip it). */
function expectWireShape(schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(parsed.data).toStrictEqual(body);
}

const hmacOf = (secret: string, raw: string | Buffer) => createHmac('sha256', secret).update(raw).digest('base64');
const shopifyDate = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} +0000`;

describe('integration rate endpoints', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let now = START;

  const post = (path: string, init: Parameters<typeof api>[1]) => api(`${t.url}/api/v1${path}`, { method: 'POST', ...init });
  const quote = async (body: Record<string, unknown>, key = m.testKey) => {
    const res = await post('/shipping/quote', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const telemetryOf = async (merchantId: string) => {
    const res = await gql(
      t.url,
      `query ($id: ID!) { adminIntegrationTelemetry(merchantId: $id) { mode integration site pluginVersion userAgent callCount firstSeenAt lastSeenAt } }`,
      { key: ADMIN_TOKEN, variables: { id: merchantId } },
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data.adminIntegrationTelemetry as Array<Record<string, unknown>>;
  };

  beforeAll(async () => {
    t = await startTestApp({ clock: { now: () => new Date(now) } });
    m = await t.createMerchant({ name: 'Farmacia Central', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => t?.stop());

  describe('plugin (WooCommerce): POST /plugin/shipping-quote', () => {
    it("the spec's shape → add_rate() arguments with cost a string of integer pesos", async () => {
      const res = await post('/plugin/shipping-quote', {
        key: m.testKey,
        body: {
          destination: { address: 'Av. Apoquindo 3000', city: 'Las Condes', postal_code: '7550000' },
          contents: [{ name: 'Café molido', quantity: 2 }],
          prep_time_mins: 10,
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectWireShape(pluginRatesResponseSchema, res.body);
      const expected = await quote({ destination: 'Av. Apoquindo 3000, Las Condes', prep_time_mins: 10 });
      expect(res.body.rates).toEqual(
        expected.rates.map((r: { id: string; cost: number; estimated_minutes: number; recommended: boolean }) => ({
          id: `express_delivery:${r.id}`,
          label: expect.stringContaining(`${r.estimated_minutes} min`),
          cost: String(r.cost),
          meta_data: { eta_minutes: r.estimated_minutes, vehicle_type: 'bike', recommended: r.recommended },
        })),
      );
      for (const rate of res.body.rates) {
        expect(rate.cost).toMatch(/^\d+$/);
        expect(rate.label.length).toBeGreaterThan(0);
        // Every key is an add_rate() argument.
        for (const key of Object.keys(rate)) expect(Object.keys(WOO_ADD_RATE_ARGS.defaults)).toContain(key);
      }
    });

    it('WooCommerce calculate_shipping($package) verbatim (contents keyed by cart-item hash) → rates', async () => {
      const res = await post('/plugin/shipping-quote', {
        key: m.testKey,
        rawBody: WOO_PACKAGE_RAW,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectWireShape(pluginRatesResponseSchema, res.body);
      // The package goes to "Av. Providencia 1234, Providencia": the merchant's own comuna.
      const expected = await quote({ destination: 'Av. Providencia 1234, Providencia' });
      expect(res.body.rates.map((r: { cost: string }) => r.cost)).toEqual(expected.rates.map((r: { cost: number }) => String(r.cost)));
      // Same comuna, both ends known only to it (locality precision): priced at the 3 km floor, never as 0 m.
      expect(Number(res.body.rates[0].cost)).toBeGreaterThan(1990);
    });

    it('item weights (kg, strings as WooCommerce sends them) choose the vehicle', async () => {
      const res = await post('/plugin/shipping-quote', {
        key: m.testKey,
        body: { destination: { address: 'Av. Apoquindo 3000', city: 'Las Condes' }, contents: [{ name: 'Saco', quantity: 3, weight: '4.5' }] },
      });
      expect(res.status).toBe(200);
      expect(res.body.rates[0].meta_data.vehicle_type).toBe('motorcycle'); // 13.5 kg
    });

    it('records telemetry per site, visible to admins with a growing call count', async () => {
      const p = await t.createMerchant({ name: 'Woo Shop' });
      const headers = { 'user-agent': 'WordPress/6.4.2; https://shop.example.cl', 'x-plugin-version': '1.4.0' };
      const body = { destination: { address: 'Av. Apoquindo 3000', city: 'Las Condes' }, contents: [{ name: 'Libro', quantity: 1 }] };
      const firstAt = new Date(now).toISOString();
      expect((await post('/plugin/shipping-quote', { key: p.testKey, headers, body })).status).toBe(200);
      const [first, ...others] = await telemetryOf(p.merchantId);
      expect(others).toEqual([]);
      expect(first).toEqual({
        mode: 'test',
        integration: 'plugin',
        site: 'https://shop.example.cl',
        pluginVersion: '1.4.0',
        userAgent: 'WordPress/6.4.2; https://shop.example.cl',
        callCount: 1,
        firstSeenAt: firstAt,
        lastSeenAt: firstAt,
      });
      now += 60_000;
      expect((await post('/plugin/shipping-quote', { key: p.testKey, headers, body })).status).toBe(200);
      expect((await post('/plugin/shipping-quote', { key: p.testKey, headers, body })).status).toBe(200);
      const [again] = await telemetryOf(p.merchantId);
      expect(again).toMatchObject({ callCount: 3, firstSeenAt: firstAt, lastSeenAt: new Date(now).toISOString() });
      // Another site, and the live key, are rows of their own.
      await post('/plugin/shipping-quote', { key: p.liveKey, headers: { ...headers, 'x-site-url': 'https://otra.example.cl' }, body });
      const rows = await telemetryOf(p.merchantId);
      expect(rows.map((r) => [r.mode, r.site, r.callCount])).toEqual(
        expect.arrayContaining([['test', 'https://shop.example.cl', 3], ['live', 'https://otra.example.cl', 1]]),
      );
      expect(rows).toHaveLength(2);
    });

    it('integration not approved → 403 INTEGRATION_IN_REVIEW, and the call is still recorded', async () => {
      const pending = await t.createMerchant({ name: 'Pending Plugin', approveIntegrations: false });
      const res = await post('/plugin/shipping-quote', {
        key: pending.testKey,
        headers: { 'user-agent': 'WordPress/6.4.2; https://pending.example.cl', 'x-plugin-version': '0.9.0' },
        body: { destination: { address: 'Av. Apoquindo 3000', city: 'Las Condes' } },
      });
      expectError(res, 403, 'INTEGRATION_IN_REVIEW');
      expectWireShape(errorResponseSchema, res.body);
      expect(await telemetryOf(pending.merchantId)).toEqual([
        expect.objectContaining({ integration: 'plugin', site: 'https://pending.example.cl', pluginVersion: '0.9.0', callCount: 1 }),
      ]);
    });

    it('an address outside the area is the usual 400 error', async () => {
      const res = await post('/plugin/shipping-quote', { key: m.testKey, body: { destination: { address: '24 Sussex Dr.', city: 'Ottawa' } } });
      expectError(res, 400, 'GEOCODING_FAILED');
      expectError(await post('/plugin/shipping-quote', { key: m.testKey, body: { contents: [] } }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('storefront (Shopify CarrierService): POST /storefront/carrier-service', () => {
    let other: MerchantCredentials;
    const OTHER_DOMAIN = 'otra-tienda.myshopify.com';

    beforeAll(async () => {
      const set = await post('/merchants/settings', { key: m.testKey, body: { storefront_domain: SHOP_DOMAIN } });
      expect(set.status).toBe(200);
      other = await t.createMerchant({ name: 'Otra Tienda' });
      expect((await post('/merchants/settings', { key: other.testKey, body: { storefront_domain: OTHER_DOMAIN } })).status).toBe(200);
    });

    const carrierService = (raw: string, headers: Record<string, string>, query = '') =>
      post(`/storefront/carrier-service${query}`, { rawBody: raw, headers: { 'content-type': 'application/json', ...headers } });
    const signed = (raw: string, secret = m.apiSecret, domain = SHOP_DOMAIN) => ({
      'x-shopify-hmac-sha256': hmacOf(secret, raw),
      'x-shopify-shop-domain': domain,
    });

    it("Shopify's request verbatim (Ottawa, outside the area) → 200 {\"rates\": []}", async () => {
      const res = await carrierService(SHOPIFY_RATE_REQUEST_RAW, { authorization: `Bearer ${m.testKey}` });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ rates: [] });
      expectWireShape(carrierServiceResponseSchema, res.body);
      const signedRes = await carrierService(SHOPIFY_RATE_REQUEST_RAW, signed(SHOPIFY_RATE_REQUEST_RAW));
      expect(signedRes.status).toBe(200);
      expect(signedRes.body).toEqual({ rates: [] });
    });

    it('the same request to a Santiago address → rates in Shopify format, total_price = CLP × 100', async () => {
      const res = await carrierService(SANTIAGO_RATE_REQUEST_RAW, { authorization: `Bearer ${m.testKey}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectWireShape(carrierServiceResponseSchema, res.body);
      const expected = await quote(SANTIAGO_QUOTE);
      expect(res.body.rates).toHaveLength(2);
      expect(res.body.rates.map((r: { service_code: string }) => r.service_code)).toEqual(['EXPRESS', 'BATCHED']);
      res.body.rates.forEach((rate: Record<string, string>, i: number) => {
        const q = expected.rates[i];
        expect(Object.keys(rate).sort()).toEqual(Object.keys(SHOPIFY_RATE_RESPONSE.rates[0]!).sort());
        expect(rate.total_price).toBe(String(q.cost * 100));
        expect(rate).toMatchObject({ currency: 'CLP', service_name: expect.any(String), description: expect.any(String) });
        expect(rate.min_delivery_date).toMatch(SHOPIFY_DATE);
        expect(rate.max_delivery_date).toMatch(SHOPIFY_DATE);
        expect(rate.min_delivery_date).toBe(shopifyDate(now + expected.total_estimated_minutes * 60_000));
        expect(rate.max_delivery_date).toBe(shopifyDate(now + (q.estimated_minutes + 15) * 60_000));
      });
      expect(res.body.rates[0].total_price).toBe(String(expected.price * 100));
    });

    it('authenticates by X-Shopify-Hmac-Sha256 over the raw bytes + X-Shopify-Shop-Domain (no API key)', async () => {
      const res = await carrierService(SANTIAGO_RATE_REQUEST_RAW, signed(SANTIAGO_RATE_REQUEST_RAW));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const expected = await quote(SANTIAGO_QUOTE);
      expect(res.body.rates[0].total_price).toBe(String(expected.price * 100));
      // The shop domain header is matched case-insensitively; any bytes signed as sent pass (here the JSON pretty-printed).
      const upper = await carrierService(SANTIAGO_RATE_REQUEST_RAW, signed(SANTIAGO_RATE_REQUEST_RAW, m.apiSecret, SHOP_DOMAIN.toUpperCase()));
      expect(upper.status).toBe(200);
      const pretty = JSON.stringify(JSON.parse(SANTIAGO_RATE_REQUEST_RAW), null, 2);
      expect((await carrierService(pretty, signed(pretty))).status).toBe(200);
    });

    it('wrong HMAC → 401 INVALID_SIGNATURE', async () => {
      for (const hmac of [hmacOf('whsec_wrong', SANTIAGO_RATE_REQUEST_RAW), '', 'not-base64', hmacOf(m.apiSecret, SANTIAGO_RATE_REQUEST_RAW).slice(1)]) {
        const res = await carrierService(SANTIAGO_RATE_REQUEST_RAW, { 'x-shopify-hmac-sha256': hmac, 'x-shopify-shop-domain': SHOP_DOMAIN });
        expectError(res, 401, 'INVALID_SIGNATURE');
      }
      // Signed with the other merchant's secret for our domain.
      expectError(await carrierService(SANTIAGO_RATE_REQUEST_RAW, signed(SANTIAGO_RATE_REQUEST_RAW, other.apiSecret)), 401, 'INVALID_SIGNATURE');
    });

    it('right HMAC but another shop domain (or none) → 401', async () => {
      const raw = SANTIAGO_RATE_REQUEST_RAW;
      expectError(await carrierService(raw, signed(raw, m.apiSecret, OTHER_DOMAIN)), 401, 'INVALID_SIGNATURE');
      expectError(await carrierService(raw, signed(raw, m.apiSecret, 'unknown-shop.myshopify.com')), 401, 'INVALID_SIGNATURE');
      expectError(await carrierService(raw, { 'x-shopify-hmac-sha256': hmacOf(m.apiSecret, raw) }), 401, 'INVALID_SIGNATURE');
    });

    it('the body altered by one byte after signing → 401', async () => {
      const raw = SANTIAGO_RATE_REQUEST_RAW;
      const at = raw.indexOf('"grams":1000') + '"grams":'.length;
      const altered = `${raw.slice(0, at)}2${raw.slice(at + 1)}`; // 1000 g → 2000 g
      expect(altered).toHaveLength(raw.length);
      expect(altered).not.toBe(raw);
      expectError(await carrierService(altered, signed(raw)), 401, 'INVALID_SIGNATURE');
      expectError(await carrierService(`${raw} `, signed(raw)), 401, 'INVALID_SIGNATURE');
    });

    it('?prep_time_mins=30 is applied to the delivery dates (both ways of authenticating)', async () => {
      const raw = SANTIAGO_RATE_REQUEST_RAW;
      const expected = await quote({ ...SANTIAGO_QUOTE, prep_time_mins: 30 });
      expect(expected.prep_time_minutes).toBe(30);
      for (const headers of [signed(raw), { 'x-api-key': m.testKey }]) {
        const res = await carrierService(raw, headers, '?prep_time_mins=30');
        expect(res.status).toBe(200);
        expect(res.body.rates[0].min_delivery_date).toBe(shopifyDate(now + expected.total_estimated_minutes * 60_000));
      }
      const without = await carrierService(raw, signed(raw));
      expect(without.body.rates[0].min_delivery_date).toBe(shopifyDate(now + (expected.total_estimated_minutes - 30) * 60_000));
      expectError(await carrierService(raw, signed(raw), '?prep_time_mins=abc'), 400, 'VALIDATION_ERROR');
      expectError(await carrierService(raw, signed(raw), '?mode=staging'), 400, 'VALIDATION_ERROR');
    });

    it('after a secret rotation both secrets sign until the old one expires', async () => {
      const raw = SANTIAGO_RATE_REQUEST_RAW;
      const res = await gql(
        t.url,
        `mutation ($id: ID!) { adminRotateApiSecret(merchantId: $id, overlapHours: 1) {
          __typename ... on MutationAdminRotateApiSecretSuccess { data { apiSecret previousExpiresAt } } } }`,
        { key: ADMIN_TOKEN, variables: { id: m.merchantId } },
      );
      const { apiSecret: newSecret, previousExpiresAt } = res.body.data.adminRotateApiSecret.data;
      expect(newSecret).not.toBe(m.apiSecret);
      expect(Date.parse(previousExpiresAt)).toBe(now + 3_600_000);
      expect((await carrierService(raw, signed(raw, m.apiSecret))).status).toBe(200);
      expect((await carrierService(raw, signed(raw, newSecret))).status).toBe(200);
      now += 3_600_000 - 1000; // one second before the old secret expires
      expect((await carrierService(raw, signed(raw, m.apiSecret))).status).toBe(200);
      now += 2000; // one second after
      expectError(await carrierService(raw, signed(raw, m.apiSecret)), 401, 'INVALID_SIGNATURE');
      expect((await carrierService(raw, signed(raw, newSecret))).status).toBe(200);
      m = { ...m, apiSecret: newSecret };
    });

    it('a signed body that is not JSON → 400 MALFORMED_JSON; a signed body of the wrong shape → 400 VALIDATION_ERROR', async () => {
      expectError(await carrierService('{"rate": ', signed('{"rate": ')), 400, 'MALFORMED_JSON');
      const wrong = JSON.stringify({ rate: { items: 'many' } });
      expectError(await carrierService(wrong, signed(wrong)), 400, 'VALIDATION_ERROR');
    });

    it('storefront integration not approved → 403 INTEGRATION_IN_REVIEW with the key and with the signature', async () => {
      const pending = await t.createMerchant({ name: 'Pending Shop', approveIntegrations: false });
      const domain = 'pending-shop.myshopify.com';
      expect((await post('/merchants/settings', { key: pending.testKey, body: { storefront_domain: domain } })).status).toBe(200);
      const raw = SANTIAGO_RATE_REQUEST_RAW;
      expectError(await carrierService(raw, { authorization: `Bearer ${pending.testKey}` }), 403, 'INTEGRATION_IN_REVIEW');
      expectError(await carrierService(raw, signed(raw, pending.apiSecret, domain)), 403, 'INTEGRATION_IN_REVIEW');
    });

    it('two merchants cannot register the same storefront domain (409 CONFLICT); the first keeps it', async () => {
      const third = await t.createMerchant({ name: 'Copycat' });
      for (const domain of [SHOP_DOMAIN, SHOP_DOMAIN.toUpperCase()]) {
        const res = await post('/merchants/settings', { key: third.testKey, body: { storefront_domain: domain } });
        expectError(res, 409, 'CONFLICT');
      }
      const raw = SANTIAGO_RATE_REQUEST_RAW;
      expect((await carrierService(raw, signed(raw))).status).toBe(200);
      expectError(await carrierService(raw, signed(raw, third.apiSecret)), 401, 'INVALID_SIGNATURE');
      const me = await api(`${t.url}/api/v1/merchants/me`, { key: third.testKey });
      expect(me.body.merchant.settings.storefront_domain).toBeNull();
    });
  });

  describe('ERP (Odoo rate_shipment): POST /erp/rate-shipment', () => {
    it('success: price, estimated_days, prep_time_mins and Odoo\'s false error/warning messages', async () => {
      const res = await post('/erp/rate-shipment', {
        key: m.testKey,
        body: { partner_address: 'Av. Apoquindo 3000, Las Condes', weight_kg: 4.2, prep_time_mins: 20 },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectWireShape(erpRateResponseSchema, res.body);
      const expected = await quote({ destination: 'Av. Apoquindo 3000, Las Condes', total_weight: 4.2, prep_time_mins: 20 });
      expect(res.body).toMatchObject({
        success: true,
        price: expected.price,
        estimated_days: 0,
        estimated_minutes: expected.total_estimated_minutes,
        prep_time_mins: 20,
        vehicle_type: 'bike',
        error_message: false,
        warning_message: false,
      });
      for (const key of Object.keys(ODOO_RATE.returns_success_example!)) expect(res.body).toHaveProperty(key);
    });

    it('prep time falls back to the merchant default', async () => {
      const e = await t.createMerchant({ name: 'ERP Default Prep' });
      await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: e.testKey, body: { prep_time_mins: 35 } });
      const res = await post('/erp/rate-shipment', { key: e.testKey, body: { partner_address: 'Av. Apoquindo 3000, Las Condes' } });
      expect(res.body).toMatchObject({ success: true, prep_time_mins: 35 });
    });

    it('an ungeocodable address: 400, success false, price 0, error_message, error.code GEOCODING_FAILED', async () => {
      const res = await post('/erp/rate-shipment', { key: m.testKey, body: { partner_address: 'Calle Inventada 123, Narnia', weight_kg: 1 } });
      expect(res.status).toBe(400);
      expectWireShape(erpRateFailureSchema, res.body);
      expect(res.body).toEqual({
        success: false,
        price: 0,
        error_message: expect.stringMatching(/.+/),
        warning_message: false,
        error: { code: 'GEOCODING_FAILED', message: res.body.error_message, fields: expect.any(Array) },
      });
      for (const key of Object.keys(ODOO_RATE.returns_error_example!)) expect(res.body).toHaveProperty(key);
    });

    it('invalid input keeps the Odoo failure shape: 400 VALIDATION_ERROR', async () => {
      const res = await post('/erp/rate-shipment', { key: m.testKey, body: { weight_kg: 'x' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, price: 0, error_message: expect.any(String), error: { code: 'VALIDATION_ERROR' } });
      expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['partner_address', 'weight_kg']);
    });

    it('integration not approved → 403 INTEGRATION_IN_REVIEW', async () => {
      const pending = await t.createMerchant({ name: 'Pending ERP', approveIntegrations: false });
      const res = await post('/erp/rate-shipment', { key: pending.testKey, body: { partner_address: 'Av. Apoquindo 3000, Las Condes' } });
      expectError(res, 403, 'INTEGRATION_IN_REVIEW');
      expectWireShape(erpRateFailureSchema, res.body);
    });
  });
});
