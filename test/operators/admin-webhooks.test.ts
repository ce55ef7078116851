import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEndpoint } from '../../src/domain/types.js';
import { creation, order } from '../contract/fixtures.js';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { startOrdersApp } from '../orders/support.js';
import { gqlOps, signedInOperator } from './support.js';

const FAILING = `query ($merchantId: ID) { adminFailingWebhookEndpoints(merchantId: $merchantId) {
  id merchantId merchantName mode url enabled failingSince disabledReason } }`;

let n = 0;
const endpoint = (merchantId: string, overrides: Partial<WebhookEndpoint>): WebhookEndpoint => ({
  id: `we_h11test${String(++n).padStart(4, '0')}`, merchantId, mode: 'live', url: `https://hooks.example.cl/${n}`, description: null,
  events: ['order.status_changed'], payloadShape: 'event', signing: 'symmetric', enabled: true, disabledReason: null, failingSince: null,
  createdAt: '2026-11-01T00:00:00.000Z', updatedAt: '2026-11-01T00:00:00.000Z', ...overrides,
});

describe('operators: failing webhook endpoints, orders by pickup zone, merchant search (issue #29)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let shopA: MerchantCredentials;
  let shopB: MerchantCredentials;
  let support = '';

  beforeAll(async () => {
    t = await startOrdersApp();
    shopA = await t.createMerchant({ name: 'Farmacia Central' });
    shopB = await t.createMerchant({ name: 'Librería Sur' });
    support = (await signedInOperator(t, 'support@ops.example.cl', 'support')).cookie;
  });
  afterAll(async () => t.stop());

  it('support reads failing and auto-disabled endpoints with their merchant, never healthy ones nor secrets; one merchant’s on request', async () => {
    const store = t.app.container.store.webhooks;
    await store.insertEndpoint(endpoint(shopA.merchantId, {}));
    const failing = endpoint(shopA.merchantId, { failingSince: '2026-11-27T10:00:00.000Z' });
    const disabled = endpoint(shopB.merchantId, { mode: 'test', enabled: false, disabledReason: 'failing for 72 hours' });
    for (const e of [failing, disabled]) await store.insertEndpoint(e);

    const all = await gqlOps(t, support, FAILING);
    expect(all.body.errors).toBeUndefined();
    const rows = all.body.data.adminFailingWebhookEndpoints;
    expect(rows).toHaveLength(2);
    expect(rows).toContainEqual({ id: failing.id, merchantId: shopA.merchantId, merchantName: 'Farmacia Central', mode: 'live', url: failing.url, enabled: true, failingSince: failing.failingSince, disabledReason: null });
    expect(rows).toContainEqual({ id: disabled.id, merchantId: shopB.merchantId, merchantName: 'Librería Sur', mode: 'test', url: disabled.url, enabled: false, failingSince: null, disabledReason: 'failing for 72 hours' });

    const ofB = await gqlOps(t, support, FAILING, { variables: { merchantId: shopB.merchantId } });
    expect(ofB.body.data.adminFailingWebhookEndpoints.map((r: { id: string }) => r.id)).toEqual([disabled.id]);
  });

  it('a merchant’s credentials and an anonymous caller are refused', async () => {
    const merchant = await gql(t.url, FAILING, { key: shopA.liveKey });
    expect(merchant.body.data?.adminFailingWebhookEndpoints ?? null).toBeNull();
    expect(merchant.body.errors?.length).toBeGreaterThan(0);
    const anonymous = await gqlOps(t, null, FAILING);
    expect(anonymous.body.data?.adminFailingWebhookEndpoints ?? null).toBeNull();
  });

  it('adminOrders(zone:) keeps the orders whose pickup geohash starts with the prefix; a malformed prefix is refused', async () => {
    const ZONE = `query ($zone: String, $merchantId: ID) { adminOrders(zone: $zone, merchantId: $merchantId, first: 50) { orders { id } } }`;
    const stored = async (pickupGeohash: string, minutesAgo: number) => {
      const o = order({ merchantId: shopA.merchantId, mode: 'test', pickupGeohash, createdAt: new Date(Date.now() - minutesAgo * 60_000).toISOString() });
      await t.app.container.store.orders.create(creation(o));
      return o.id;
    };
    const providencia = await stored('66jcc4fm8', 3);
    const nunoa = await stored('66jcc1xyz', 2);
    const valparaiso = await stored('66j9xbcde', 1);
    const ids = async (variables: Record<string, unknown>) => {
      const res = await gqlOps(t, support, ZONE, { variables: { merchantId: shopA.merchantId, ...variables } });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.adminOrders.orders.map((o: { id: string }) => o.id);
    };
    expect(await ids({ zone: '66jcc' })).toEqual([nunoa, providencia]);
    expect(await ids({ zone: '66JCC4' })).toEqual([providencia]);
    expect(await ids({ zone: '66j' })).toEqual([valparaiso, nunoa, providencia]);
    expect(await ids({})).toEqual([valparaiso, nunoa, providencia]);
    for (const zone of ['6', '66jcc4f', '66a', 'x;--']) {
      const refused = await gqlOps(t, support, ZONE, { variables: { zone } });
      expect(refused.body.errors?.[0]?.extensions?.code, zone).toBe('VALIDATION_ERROR');
    }
  });

  it('adminMerchants(search:) finds by name prefix or id prefix, case-insensitively, bounded by limit; a blank search is refused', async () => {
    const SEARCH = 'query ($search: String, $limit: Int) { adminMerchants(search: $search, limit: $limit) { id name } }';
    const extra = await t.createMerchant({ name: 'farmacia del Puerto' });
    const names = async (search: string, limit?: number) => {
      const res = await gqlOps(t, support, SEARCH, { variables: { search, ...(limit && { limit }) } });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.adminMerchants.map((m: { name: string }) => m.name);
    };
    expect((await names('FARMACIA')).sort()).toEqual(['Farmacia Central', 'farmacia del Puerto']);
    expect(await names('farmacia c')).toEqual(['Farmacia Central']);
    expect(await names('farmacia', 1)).toHaveLength(1);
    expect(await names(extra.merchantId.toLowerCase())).toEqual(['farmacia del Puerto']);
    expect(await names('Zapatería')).toEqual([]);
    const blank = await gqlOps(t, support, SEARCH, { variables: { search: '  ' } });
    expect(blank.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  });
});
