/**
 * Issue #38 item 4 in the browser: the customer's tracking page (es-CL, 390 px) without a call relay
 * shows no number of the courier's and no tel: link with it — while the courier is on the way and
 * after a failed attempt — and offers no call button at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { expectOk, PLACES } from '../orders/support.js';
import { assignedOrder, type CourierClient } from '../realtime/support.js';

const SKIP = browserSkipReason('the tracking page privacy test');
const ENV = { RATE_LIMIT_PER_MIN: '100000', COURIER_RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: '100000' };

describe.skipIf(SKIP !== null)("the tracking page never shows the courier's phone", () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let open: OfflinePage;
  let order: Awaited<ReturnType<typeof assignedOrder>>['order'];
  let courier: CourierClient;
  let digits: string;

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    m = await t.createMerchant({ name: 'Tienda Privada' });
    ({ order, courier } = await assignedOrder(t, m.liveKey, { courierName: 'Camila Rojas' }));
    digits = (await t.app.container.store.couriers.findById(courier.id))!.phone.replace(/\D/g, '');
    open = await openOfflinePage({ locale: 'es-CL', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  });
  afterAll(async () => {
    await open?.browser.close();
    await t?.stop();
  });

  /** Neither the page's HTML (boot data included) nor any link carries the courier's digits; no call button shows. */
  async function expectNoCourierNumber() {
    const { page } = open;
    expect(await page.content()).not.toContain(digits);
    const links = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(links.filter((href) => href.replace(/\D/g, '').includes(digits) || href.startsWith('tel:'))).toEqual([]);
    expect(await page.locator('#courier-phone').isVisible()).toBe(false);
    expect(await page.locator('#courier-phone-number').isVisible()).toBe(false);
  }

  it('while the courier is on the way: its name, no number, no call button', async () => {
    const { page } = open;
    expect((await page.goto(`${t.url}/track/${order.tracking_number}`))?.status()).toBe(200);
    await page.waitForFunction(() => document.getElementById('connection')?.dataset.state === 'live');
    expect(await page.locator('#courier-name').textContent()).toBe('Camila Rojas');
    await expectNoCourierNumber();
  });

  it('after a failed attempt, live and after a reload', async () => {
    const { page } = open;
    expectOk(await courier.status(order.booking_id, 'picked_up'));
    const failed = await api(`${t.url}/api/v1/couriers/me/orders/${order.booking_id}/failed-attempt`, {
      key: courier.token, body: { reason: 'recipient_absent', coords: PLACES.lasCondes },
    });
    expectOk(failed);
    await page.waitForFunction(() => document.getElementById('status')?.dataset.status === 'returning');
    await expectNoCourierNumber();
    await page.reload();
    await page.waitForFunction(() => document.getElementById('status')?.dataset.status === 'returning');
    await expectNoCourierNumber();
    // Street tiles are refused offline (the page falls back to its drawn map); nothing else may fail.
    expect(open.problems.filter((p) => !p.includes('ERR_INTERNET_DISCONNECTED'))).toEqual([]);
  });
});
