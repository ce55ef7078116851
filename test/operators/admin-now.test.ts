import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mode, Order, WebhookEndpoint } from '../../src/domain/types.js';
import { creation, order as orderFixture } from '../contract/fixtures.js';
import { ADMIN_TOKEN, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { courierOnDuty, PLACES, standDown, startOrdersApp, type CourierClient } from '../orders/support.js';
import { gqlOps, signedInOperator } from './support.js';

const NOW = `query ($mode: Mode!, $first: Int) { adminNow(mode: $mode) { mode at
  lateOrders { count more orders(first: $first) { id mode status courierId late } }
  unassignedOrders { count more orders(first: $first) { id mode status } }
  couriersOnDuty { count more couriers(first: $first) { id name mode dutyStatus } }
  failingWebhooks { count more endpoints(first: $first) { id merchantName mode } } } }`;
const NAMES = 'query ($ids: [ID!]!) { adminCourierNames(ids: $ids) { id name } }';

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe('adminNow: what needs an operator now, one mode at a time (issue #38)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let support = '';
  const couriers: CourierClient[] = [];
  const orders: Record<string, Order> = {};
  const endpoints: Record<Mode, WebhookEndpoint | null> = { live: null, test: null };

  beforeAll(async () => {
    t = await startOrdersApp();
    shop = await t.createMerchant({ name: 'Farmacia Central' });
    support = (await signedInOperator(t, 'soporte@ops.example.cl', 'support')).cookie;
    couriers.push(await courierOnDuty(t, { mode: 'live', at: PLACES.providencia, name: 'Pedro Rojas' }));
    couriers.push(await courierOnDuty(t, { mode: 'test', at: PLACES.providencia, name: 'Tomás Prueba' }));
    for (const mode of ['live', 'test'] as const) {
      // Late: on the road, its ETA an hour ago. Unassigned: new and scheduled ahead (no round dispatches it).
      const late = orderFixture({ merchantId: shop.merchantId, mode, status: 'picked_up', courierId: couriers[mode === 'live' ? 0 : 1]!.id, createdAt: minutesFromNow(-120), estimatedDeliveryAt: minutesFromNow(-60) });
      const waiting = orderFixture({ merchantId: shop.merchantId, mode, status: 'new', createdAt: minutesFromNow(-5), estimatedDeliveryAt: minutesFromNow(150), dispatchAfter: minutesFromNow(120) });
      for (const o of [late, waiting]) await t.app.container.store.orders.create(creation(o));
      Object.assign(orders, { [`${mode}Late`]: late, [`${mode}Waiting`]: waiting });
      const endpoint: WebhookEndpoint = {
        id: `we_NOW${mode.toUpperCase()}0000000000000000000`.slice(0, 29), merchantId: shop.merchantId, mode, url: `https://farmacia.example.cl/${mode}`, description: null,
        events: ['order.status_changed'], payloadShape: 'event', signing: 'symmetric', enabled: true, disabledReason: null,
        failingSince: minutesFromNow(-30), createdAt: minutesFromNow(-600), updatedAt: minutesFromNow(-30),
      };
      await t.app.container.store.webhooks.insertEndpoint(endpoint);
      endpoints[mode] = endpoint;
    }
  });
  afterAll(async () => {
    await standDown(...couriers);
    await t.stop();
  });

  it('every role reads one mode: its late and unassigned orders, couriers on duty by name and failing webhooks, never the other mode’s', async () => {
    for (const mode of ['live', 'test'] as const) {
      const res = await gqlOps(t, support, NOW, { variables: { mode } });
      expect(res.body.errors).toBeUndefined();
      const now = res.body.data.adminNow;
      const other = mode === 'live' ? 'test' : 'live';
      expect(now.mode).toBe(mode);
      expect(now.lateOrders).toMatchObject({ count: 1, more: false, orders: [{ id: orders[`${mode}Late`]!.id, mode, status: 'picked_up', late: true }] });
      expect(now.unassignedOrders).toMatchObject({ count: 1, more: false, orders: [{ id: orders[`${mode}Waiting`]!.id, mode, status: 'new' }] });
      const courier = couriers[mode === 'live' ? 0 : 1]!;
      expect(now.couriersOnDuty.couriers).toEqual([{ id: courier.id, name: mode === 'live' ? 'Pedro Rojas' : 'Tomás Prueba', mode, dutyStatus: 'available' }]);
      expect(now.failingWebhooks).toEqual({ count: 1, more: false, endpoints: [{ id: endpoints[mode]!.id, merchantName: 'Farmacia Central', mode }] });
      const everything = JSON.stringify(now);
      for (const key of ['Late', 'Waiting']) expect(everything).not.toContain(orders[`${other}${key}`]!.id);
      expect(everything).not.toContain(endpoints[other]!.id);
    }
  });

  it('counts past the page: `first` bounds the rows, `count` what was read (up to the cap)', async () => {
    const extra = orderFixture({ merchantId: shop.merchantId, mode: 'live', status: 'new', createdAt: minutesFromNow(-1), estimatedDeliveryAt: minutesFromNow(150), dispatchAfter: minutesFromNow(120) });
    await t.app.container.store.orders.create(creation(extra));
    const now = (await gqlOps(t, support, NOW, { variables: { mode: 'live', first: 1 } })).body.data.adminNow;
    expect(now.unassignedOrders.count).toBe(2);
    expect(now.unassignedOrders.orders.map((o: { id: string }) => o.id)).toEqual([extra.id]);
  });

  it('adminCourierNames names couriers by id and leaves unknown ids out', async () => {
    const res = await gqlOps(t, support, NAMES, { variables: { ids: [couriers[0]!.id, 'cr_UNKNOWN', couriers[1]!.id] } });
    expect(res.body.data.adminCourierNames).toEqual([{ id: couriers[0]!.id, name: 'Pedro Rojas' }, { id: couriers[1]!.id, name: 'Tomás Prueba' }]);
    const tooMany = await gqlOps(t, support, NAMES, { variables: { ids: Array.from({ length: 101 }, (_, i) => `cr_${i}`) } });
    expect(tooMany.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  });

  it('the admin token reads it; a merchant key, a courier token and an anonymous caller are refused', async () => {
    const admin = await gql(t.url, NOW, { key: ADMIN_TOKEN, variables: { mode: 'live' } });
    expect(admin.body.data.adminNow.lateOrders.count).toBe(1);
    for (const key of [shop.liveKey, shop.testKey, couriers[0]!.token]) {
      for (const [query, field] of [[NOW, 'adminNow'], [NAMES, 'adminCourierNames']] as const) {
        const refused = await gql(t.url, query, { key, variables: { mode: 'live', ids: [couriers[0]!.id] } });
        expect(refused.body.data?.[field] ?? null).toBeNull();
        expect(refused.body.errors?.length).toBeGreaterThan(0);
      }
    }
    const anonymous = await gqlOps(t, null, NOW, { variables: { mode: 'live' } });
    expect(anonymous.body.data?.adminNow ?? null).toBeNull();
  });
});
