import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { seriousViolations } from '../console/support.js';
import { EVIDENCE, PLACES, expectOk, north } from '../orders/support.js';
import { courierAtTheDoor, phone, openCourierApp, closeCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app earnings');
const pesos = (n: number) => `$${n.toLocaleString('es-CL')}`;

/** The courier's "Ganancias" (issue #30 item 4) on a 390 px phone, against the real server. */
describe.skipIf(SKIP !== null)('courier app: Ganancias', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    ({ t, browser } = await openCourierApp());
  });
  afterAll(() => closeCourierApp({ t, browser }));

  it("lists today's delivery with its tip (set at creation and added later) and the totals; says the tariff pays no delivery fee; in English too", async () => {
    const m = await t.createMerchant();
    const { courier, id, as } = await courierAtTheDoor(t, { name: 'Bruno', liveKey: m.liveKey, order: { tip: 1500 } });
    expectOk(await as(`/orders/${id}/deliver`, { driver_id: courier.id, coords: north(PLACES.lasCondes, 5), ...EVIDENCE }));
    expectOk(await api(`${t.url}/api/v1/orders/${id}/tip`, { key: m.liveKey, body: { amount: 500 }, headers: { 'idempotency-key': `earn-${id}` } }));
    const orderNumber = (await api(`${t.url}/api/v1/orders/${id}`, { key: m.liveKey })).body.order_number as string;

    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#earnings-open').click();
    await page.locator('#earnings[data-period=today][data-loaded=true]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#earnings-title').textContent()).toBe('Ganancias');
    expect(await page.locator('#earnings-deliveries').textContent()).toBe('1');
    expect(await page.locator('#earnings-tips').textContent()).toBe(pesos(2000));
    expect(await page.locator('#earnings-total').textContent()).toBe(pesos(2000));
    expect(await page.locator('#earnings-no-pay').textContent()).toBe('La tarifa aún no paga por entrega: tus ganancias son las propinas.');
    const line = page.locator(`#earnings-list li[data-order-id="${id}"]`);
    expect(await line.textContent()).toContain(`Pedido ${orderNumber}`);
    expect(await line.locator('.tip').textContent()).toBe(pesos(2000));
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await page.locator('#period-week').click();
    await page.locator('#earnings[data-period=week][data-loaded=true]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#earnings-tips').textContent()).toBe(pesos(2000));
    await page.locator('#lang-switch').selectOption('en');
    expect(await page.locator('#earnings-title').textContent()).toBe('Earnings');
    expect(await page.locator('#earnings-no-pay').textContent()).toBe('The tariff does not pay per delivery yet: your earnings are the tips.');
    await page.locator('#earnings-back').click();
    await page.locator('#duty-status').waitFor();
    await context.close();
  }, 120_000);
});
