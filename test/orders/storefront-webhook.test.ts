import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storefrontOrderResponseSchema } from '../../rest/openapi/responses-orders.js';
import type { TestApp, MerchantCredentials } from '../helpers/app.js';
import { PLACES, expectError, expectOk, expectWireShape, historyOf, merchantApi, startOrdersApp } from './support.js';

/** Shopify's orders/create example payload, byte for byte (financial_status "voided", cancelled, shipping to Kentucky). */
const FIXTURE = readFileSync(new URL('../fixtures/shopify/orders-create-webhook.json', import.meta.url), 'utf8');
const SHOP_ORDER_ID = '820982911946154508'; // beyond 2^53: JSON.parse would turn it into 820982911946154500
const SHOP_DOMAIN = 'exd-test-shop.myshopify.com';

type ShopifyDoc = Record<string, unknown> & { shipping_address: Record<string, unknown> };

/** The fixture re-serialised with some fields changed; every integer (ids included) stays exact. */
function fixtureWith(change: (doc: ShopifyDoc) => void): string {
  const doc = parse(FIXTURE) as ShopifyDoc;
  change(doc);
  return stringify(doc)!;
}

/** The fixture as a paid order (same shop order id, same Kentucky shipping address). */
const paidKentuckyOrder = (id = SHOP_ORDER_ID) =>
  fixtureWith((doc) => {
    doc.financial_status = 'paid';
    doc.cancelled_at = null;
    doc.cancel_reason = null;
  }).replaceAll(SHOP_ORDER_ID, id);

/** The fixture as a paid order shipped to a Santiago address with a +56 phone: what a Chilean shop sends. */
const paidSantiagoOrder = (id = SHOP_ORDER_ID) =>
  fixtureWith((doc) => {
    doc.financial_status = 'paid';
    doc.cancelled_at = null;
    doc.cancel_reason = null;
    doc.shipping_address = {
      ...doc.shipping_address,
      first_name: 'Camila',
      last_name: 'Rojas',
      name: 'Camila Rojas',
      company: null,
      address1: 'Av. Apoquindo 3000',
      address2: 'Depto 1204',
      city: 'Las Condes',
      zip: '7550000',
      province: 'Región Metropolitana',
      province_code: 'RM',
      country: 'Chile',
      country_code: 'CL',
      phone: '+56 9 1234 5678',
    };
  }).replaceAll(SHOP_ORDER_ID, id);

describe('POST /storefront/webhooks/orders-create (Shopify orders/create)', () => {
  let t: TestApp;
  let m: MerchantCredentials;

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant({ name: 'Shop Merchant', address: 'Av. Providencia 1234, Providencia' });
    expectOk(await merchantApi(t, m.liveKey).list()); // the key works
    const settings = await fetch(`${t.url}/api/v1/merchants/settings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ storefront_domain: SHOP_DOMAIN }),
    });
    expect(settings.status).toBe(200);
  });
  afterAll(() => t?.stop());

  const sign = (raw: string, secret = m.apiSecret) => createHmac('sha256', secret).update(raw, 'utf8').digest('base64');

  /** One webhook delivery as Shopify makes it. */
  async function deliver(raw: string, options: { hmac?: string; domain?: string; webhookId?: string; query?: string } = {}) {
    const res = await fetch(`${t.url}/api/v1/storefront/webhooks/orders-create${options.query ?? ''}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': 'orders/create',
        'x-shopify-hmac-sha256': options.hmac ?? sign(raw),
        'x-shopify-shop-domain': options.domain ?? SHOP_DOMAIN,
        'x-shopify-api-version': '2025-01',
        'x-shopify-webhook-id': options.webhookId ?? randomUUID(),
      },
      body: raw,
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  async function storedOrders(mode: 'live' | 'test') {
    return expectOk(await merchantApi(t, mode === 'live' ? m.liveKey : m.testKey).list('?limit=100')).body.orders as Array<Record<string, unknown>>;
  }

  async function expectNothingStored(): Promise<void> {
    expect(await storedOrders('live')).toEqual([]);
    expect(await storedOrders('test')).toEqual([]);
    expect(await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'live' })).toEqual([]);
  }

  it('the fixture verbatim (voided, cancelled) is acknowledged with 200 and ignored; nothing is stored', async () => {
    expect(FIXTURE).toContain(`"id": ${SHOP_ORDER_ID},`);
    const res = await deliver(FIXTURE);
    expect(res.status).toBe(200);
    expectWireShape(storefrontOrderResponseSchema, res.body);
    expect(res.body).toEqual({ success: true, created: false, ignored: true, reason: expect.stringMatching(/cancel|voided/), booking_id: null, tracking_number: null });
    await expectNothingStored();
  });

  it("the fixture's Kentucky address, paid, is acknowledged 200 as ignored with the reason; nothing is stored", async () => {
    const res = await deliver(paidKentuckyOrder());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, created: false, ignored: true, booking_id: null });
    expect(res.body.reason).toMatch(/dropoff|service area|geocod|place/i);
    await expectNothingStored();
  });

  it('a paid order to a Santiago address becomes a live dispatch; the shop order id is kept exactly', async () => {
    const raw = paidSantiagoOrder();
    expect(raw).toContain(`"id":${SHOP_ORDER_ID},`); // re-serialised without losing a digit
    const res = await deliver(raw);
    expect(res.status).toBe(201);
    expectWireShape(storefrontOrderResponseSchema, res.body);
    expect(res.body).toMatchObject({ success: true, created: true, ignored: false, reason: null });
    const bookingId: string = res.body.booking_id;
    expect(bookingId).toMatch(/^bk_/);

    // Readable by the shop order id and by the shop order name, with the live key.
    const live = merchantApi(t, m.liveKey);
    const order = expectOk(await live.get(SHOP_ORDER_ID)).body;
    expect(order).toMatchObject({
      booking_id: bookingId,
      tracking_number: res.body.tracking_number,
      ecommerce_order_id: SHOP_ORDER_ID,
      reference_id: '#9999',
      is_test: false,
      status: 'new',
      customer_name: 'Camila Rojas',
      customer_phone: '+56912345678',
      payment_mode: 'prepaid',
      pickup: { coords: PLACES.providencia },
      dropoff: { coords: PLACES.lasCondes },
      total_weight_kg: 1.134, // two line items of 567 g
    });
    expect(order.ecommerce_order_id).toBe('820982911946154508');
    expect(order.items).toHaveLength(2);
    expect(expectOk(await live.get('#9999')).body.booking_id).toBe(bookingId);
    const events = expectOk(await live.events(bookingId)).body.events;
    expect(historyOf(events)).toEqual(['new']);
    expect(events[0].actor).toEqual({ kind: 'system', id: 'storefront' });

    // A live dispatch is charged; the sandbox sees nothing.
    const ledger = await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'live' });
    expect(ledger).toEqual([expect.objectContaining({ orderId: bookingId, kind: 'charge', amount: order.price })]);
    expect(await storedOrders('test')).toEqual([]);
  });

  it('the same delivery again (same X-Shopify-Webhook-Id), or another delivery of that order, creates nothing new', async () => {
    const raw = paidSantiagoOrder();
    const webhookId = randomUUID();
    const first = await deliver(raw, { webhookId });
    expect(first.status).toBe(200); // the order exists since the previous test
    const again = await deliver(raw, { webhookId });
    for (const res of [first, again]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, created: false, ignored: false, reason: 'already received' });
    }
    const live = await storedOrders('live');
    expect(live).toHaveLength(1);
    expect(first.body.booking_id).toBe(live[0]!.booking_id);
    expect(await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'live' })).toHaveLength(1);
  });

  it('that order sent again with other content (edited in the shop) is acknowledged with 200 and changes nothing', async () => {
    const [before] = await storedOrders('live');
    const edited = paidSantiagoOrder().replace('Camila Rojas', 'Camila Rojas Soto');
    expect(edited).not.toBe(paidSantiagoOrder());
    const res = await deliver(edited, { webhookId: randomUUID() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, created: false, ignored: false, booking_id: before!.booking_id, tracking_number: before!.tracking_number });
    expect(res.body.reason).toMatch(/^already received; changes after the first delivery are not applied/);
    expect(await storedOrders('live')).toEqual([before]);
  });

  it('an invalid signature or shop domain is 401 INVALID_SIGNATURE and nothing is stored', async () => {
    const raw = paidSantiagoOrder('820982911946150001');
    const tampered = raw.replace('Av. Apoquindo 3000', 'Av. Apoquindo 3001');
    const attempts = [
      { name: 'signed with another secret', raw, hmac: sign(raw, 'whsec_not-the-merchant-secret') },
      { name: 'signature altered', raw, hmac: sign(raw).replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) },
      { name: 'not base64', raw, hmac: 'not a signature' },
      { name: 'body altered after signing', raw: tampered, hmac: sign(raw) },
      { name: 'another shop domain', raw, hmac: sign(raw), domain: 'someone-else.myshopify.com' },
      { name: 'no shop domain', raw, hmac: sign(raw), domain: '' },
    ];
    for (const attempt of attempts) {
      const res = await deliver(attempt.raw, { hmac: attempt.hmac, ...(attempt.domain !== undefined && { domain: attempt.domain }) });
      expect({ attempt: attempt.name, status: res.status, code: res.body.error?.code }).toEqual({ attempt: attempt.name, status: 401, code: 'INVALID_SIGNATURE' });
    }
    const live = merchantApi(t, m.liveKey);
    expectError(await live.get('820982911946150001'), 404, 'ORDER_NOT_FOUND');
    expect(await storedOrders('live')).toHaveLength(1);
  });

  it('?mode=test makes a sandbox order: invisible to the live key, never charged', async () => {
    const res = await deliver(paidSantiagoOrder('820982911946150002'), { query: '?mode=test' });
    expect(res.status).toBe(201);
    expect(expectOk(await merchantApi(t, m.testKey).get('820982911946150002')).body).toMatchObject({ booking_id: res.body.booking_id, is_test: true });
    expectError(await merchantApi(t, m.liveKey).get('820982911946150002'), 404, 'ORDER_NOT_FOUND');
    expect(await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'test' })).toEqual([]);
  });

  it('an API key works instead of the signature', async () => {
    const raw = paidSantiagoOrder('820982911946150003');
    const res = await fetch(`${t.url}/api/v1/storefront/webhooks/orders-create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': m.testKey },
      body: raw,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { booking_id: string };
    expect(expectOk(await merchantApi(t, m.testKey).get('820982911946150003')).body.booking_id).toBe(body.booking_id);
  });
});
