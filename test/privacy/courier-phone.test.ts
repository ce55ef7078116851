/**
 * Issue #38 item 4, privacy of the courier and of the recipient: nothing reachable without merchant
 * credentials carries the courier's personal phone (public tracking REST and its live socket, with
 * and without a call relay configured, also after a failed attempt), and the courier's own API
 * (REST and GraphQL) stops giving the recipient's phone once the job is no longer open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectOk, formA, merchantApi, north, startOrdersApp, type CourierClient } from '../orders/support.js';
import { openLive } from '../realtime/support.js';

const RELAY = '+56227654321';
const CUSTOMER_PHONE = '+56912345678';
const digitsOf = (phone: string) => phone.replace(/\D/g, '');

interface Setup { t: TestApp; m: MerchantCredentials }

async function pickedUp({ t, m }: Setup): Promise<{ id: string; tracking: string; courier: CourierClient; courierPhone: string }> {
  const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
  const created = expectOk(await merchantApi(t, m.liveKey).create(formA({ customer_phone: CUSTOMER_PHONE })), 201).body;
  expect(created.status).toBe('assigned');
  expectOk(await courier.status(created.booking_id, 'picked_up'));
  const courierPhone = (await t.app.container.store.couriers.findById(courier.id))!.phone;
  return { id: created.booking_id, tracking: created.tracking_number, courier, courierPhone };
}

const failedAttempt = (t: TestApp, c: CourierClient, id: string) =>
  api(`${t.url}/api/v1/couriers/me/orders/${encodeURIComponent(id)}/failed-attempt`, { key: c.token, body: { reason: 'recipient_absent', coords: PLACES.lasCondes } });

describe.each([
  ['without a call relay', {}, ''],
  ['with a call relay', { CALL_RELAY_NUMBER: RELAY }, RELAY],
] as const)('public tracking %s', (_name, env, expected) => {
  const s = {} as Setup;
  beforeAll(async () => {
    s.t = await startOrdersApp({ env });
    s.m = await s.t.createMerchant({ name: 'Privacy Shop', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => s.t?.stop());

  it("REST and the live socket never carry the courier's phone, before and after a failed attempt", async () => {
    const { id, tracking, courier, courierPhone } = await pickedUp(s);
    const digits = digitsOf(courierPhone);
    const live = openLive(s.t.url, tracking);
    try {
      await live.waitFor((msg) => msg.type === 'snapshot', 'the first snapshot');
      const before = await api(`${s.t.url}/api/v1/tracking/${tracking}`);
      expect(before.status).toBe(200);
      expect(before.body.driver.phone).toBe(expected);
      expect(JSON.stringify(before.body)).not.toContain(digits);

      expectOk(await failedAttempt(s.t, courier, id));
      const after = await api(`${s.t.url}/api/v1/tracking/${tracking}`);
      expect(after.body.status).toBe('returning');
      expect(after.body.driver.phone).toBe(expected);
      expect(JSON.stringify(after.body)).not.toContain(digits);
      // The page's first snapshot is in its HTML: no number of the courier there either.
      const page = await fetch(`${s.t.url}/track/${tracking}`);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(digits);

      const last = await live.waitFor((msg) => msg.type === 'snapshot' && msg.tracking.status === 'returning', 'the snapshot after the failed attempt');
      expect(last.tracking.driver.phone).toBe(expected);
      expect(live.frames.join('\n')).not.toContain(digits);
    } finally {
      await live.close();
    }
    // The merchant, authenticated, still sees its courier's number (order details).
    expect(expectOk(await merchantApi(s.t, s.m.liveKey).get(id)).body.driver.phone).toBe(courierPhone);
  });
});

describe("the courier's view of the recipient's phone", () => {
  const s = {} as Setup;
  beforeAll(async () => {
    s.t = await startOrdersApp();
    s.m = await s.t.createMerchant({ name: 'Privacy Shop', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => s.t?.stop());

  const ACTIVE = '{ courier { activeOrders { id status customerPhone } } }';

  it('is given while the job is open, and no longer on the way back after a failed attempt (REST and GraphQL)', async () => {
    const { id, courier } = await pickedUp(s);
    const open = expectOk(await courier.orders()).body.orders;
    expect(open.map((o: { customer_phone: string }) => o.customer_phone)).toEqual([CUSTOMER_PHONE]);
    expect((await gql(s.t.url, ACTIVE, { key: courier.token })).body.data.courier.activeOrders).toEqual([{ id, status: 'picked_up', customerPhone: CUSTOMER_PHONE }]);

    expectOk(await failedAttempt(s.t, courier, id));
    const returning = expectOk(await courier.orders()).body.orders;
    expect(returning.map((o: { status: string; customer_phone: string | null }) => [o.status, o.customer_phone])).toEqual([['returning', null]]);
    expect(JSON.stringify(returning)).not.toContain(digitsOf(CUSTOMER_PHONE));
    expect((await gql(s.t.url, ACTIVE, { key: courier.token })).body.data.courier.activeOrders).toEqual([{ id, status: 'returning', customerPhone: null }]);
    // The merchant still sees its customer's phone.
    expect(expectOk(await merchantApi(s.t, s.m.liveKey).get(id)).body.customer_phone).toBe(CUSTOMER_PHONE);
  });

  it("of a multi-stop order: a served stop's contact phone is gone, the open stops' stay", async () => {
    const courier = await courierOnDuty(s.t, { mode: 'live', at: north(PLACES.providencia, 300) });
    const { dropoff: _d, ...base } = formA({ customer_phone: CUSTOMER_PHONE });
    const stops = [
      { address: { address: 'Irarrázaval 3400, Ñuñoa', coords: PLACES.nunoa }, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
      { address: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes }, contact_name: 'Beto Díaz', contact_phone: '+56922222222' },
    ];
    const created = expectOk(await merchantApi(s.t, s.m.liveKey).create({ ...base, stops }), 201).body;
    const id = created.booking_id as string;
    expectOk(await courier.status(id, 'picked_up'));
    const phones = async () => expectOk(await courier.orders()).body.orders[0].stops.map((stop: { contact_phone: string | null }) => stop.contact_phone);
    expect(await phones()).toEqual(['+56911111111', '+56922222222']);
    const first = (await s.t.app.container.store.orders.findById(id))!.stops![0]!.id;
    expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.nunoa, ...EVIDENCE, stop_id: first }));
    expect(await phones()).toEqual([null, '+56922222222']);
    // The per-stop customer page and its REST view carry no number of the courier's either.
    const courierDigits = digitsOf((await s.t.app.container.store.couriers.findById(courier.id))!.phone);
    const links = (expectOk(await merchantApi(s.t, s.m.liveKey).get(id)).body.stops as Array<{ tracking_url: string }>).map((stop) => new URL(stop.tracking_url));
    for (const link of links) {
      const page = await fetch(`${s.t.url}${link.pathname}${link.search}`);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(courierDigits);
      const view = await api(`${s.t.url}/api/v1${link.pathname.replace(/^\/track\//, '/tracking/')}${link.search}`);
      expect(view.status).toBe(200);
      expect(JSON.stringify(view.body)).not.toContain(courierDigits);
    }
    const STOPS = '{ courier { activeOrders { stops { contactPhone } } } }';
    expect((await gql(s.t.url, STOPS, { key: courier.token })).body.data.courier.activeOrders[0].stops).toEqual([{ contactPhone: null }, { contactPhone: '+56922222222' }]);
  });

  it('is gone once the order is completed', async () => {
    const { id, courier } = await pickedUp(s);
    expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    const orders = expectOk(await courier.orders()).body.orders;
    expect(JSON.stringify(orders)).not.toContain(digitsOf(CUSTOMER_PHONE));
    expect(JSON.stringify((await gql(s.t.url, ACTIVE, { key: courier.token })).body)).not.toContain(digitsOf(CUSTOMER_PHONE));
  });
});
