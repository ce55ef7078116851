import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PLACES, merchantApi, north } from '../orders/support.js';
import { courierAtTheDoor, drawSignature, phone, openCourierApp, closeCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app cash on delivery');
const PHOTO = readFileSync(new URL('../fixtures/courier-photo.jpg', import.meta.url));

/** Cash on delivery on the courier's phone (issue #30 item 3), against the real server. */
describe.skipIf(SKIP !== null)('courier app: cash on delivery', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    ({ t, browser } = await openCourierApp());
  });
  afterAll(() => closeCourierApp({ t, browser }));

  it('shows the amount to collect, prefills it, warns of a different amount, delivers it recorded as a mismatch, then shows the cash in hand', async () => {
    const m = await t.createMerchant();
    const { courier, id } = await courierAtTheDoor(t, { name: 'Ana', liveKey: m.liveKey, order: { payment_mode: 'cash_on_delivery', cod_amount: 12_990 } });
    const merchant = merchantApi(t, m.liveKey);

    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#payment #cod-amount').textContent()).toMatch(/12\.990/);
    expect(await page.locator('#cash-card').count()).toBe(0);
    expect(await page.locator('#cod-collected').inputValue()).toBe('12990');
    expect(await page.locator('#cod-collected-hint').textContent()).toMatch(/El cliente debe pagar \$\s?12\.990/);
    expect(await page.locator('#cod-mismatch').count()).toBe(0);

    await page.locator('#photo-input').setInputFiles({ name: 'entrega.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
    await page.locator('#photo-preview[data-uploaded=true]').waitFor({ timeout: 20_000 });
    await drawSignature(page);
    await expect.poll(() => page.locator('#deliver').isDisabled()).toBe(false);
    // An empty amount keeps the delivery button off; a different one is allowed, and said so.
    await page.locator('#cod-collected').fill('');
    await expect.poll(() => page.locator('#deliver').isDisabled()).toBe(true);
    await page.locator('#cod-collected').fill('12000');
    await page.locator('#cod-mismatch').waitFor();
    await expect.poll(() => page.locator('#deliver').isDisabled()).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.locator('#deliver').click();
    await page.locator('#deliver-confirm').click();
    await page.locator('#delivered[data-outcome=completed]').waitFor({ timeout: 20_000 });
    expect((await merchant.get(id)).body.cod).toMatchObject({ expected: 12_990, collected: 12_000, mismatch: true });
    await page.locator('#cash-card[data-balance="12000"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#cash-title').textContent()).toBe('Efectivo en mano');
    expect(await page.locator('#cash-balance').textContent()).toMatch(/12\.000/);
    await context.close();
  }, 120_000);

  it('an order of unknown amount (cash_on_delivery, no cod_amount): asks the amount collected with no figure shown, records it, never a mismatch', async () => {
    const m = await t.createMerchant();
    const { courier, id } = await courierAtTheDoor(t, { name: 'Berta', liveKey: m.liveKey, order: { payment_mode: 'cash_on_delivery' } });
    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#payment').getAttribute('data-mode')).toBe('cash_on_delivery');
    expect(await page.locator('#payment #cod-amount').count()).toBe(0);
    expect(await page.locator('#cod-amount-unknown').textContent()).toBe('monto no informado');
    expect(await page.locator('#cod-collected').inputValue()).toBe('');
    const hint = (await page.locator('#cod-collected-hint').textContent())!;
    expect(hint).toMatch(/no informó el monto/);
    expect(hint).not.toMatch(/\$/);

    await page.locator('#photo-input').setInputFiles({ name: 'entrega.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
    await page.locator('#photo-preview[data-uploaded=true]').waitFor({ timeout: 20_000 });
    await drawSignature(page);
    // Nothing typed yet: the delivery waits for the amount.
    await expect.poll(() => page.locator('#deliver').isDisabled()).toBe(true);
    await page.locator('#cod-collected').fill('8500');
    expect(await page.locator('#cod-mismatch').count()).toBe(0);
    await expect.poll(() => page.locator('#deliver').isDisabled()).toBe(false);
    await page.locator('#deliver').click();
    await page.locator('#deliver-confirm').click();
    await page.locator('#delivered[data-outcome=completed]').waitFor({ timeout: 20_000 });
    expect((await merchantApi(t, m.liveKey).get(id)).body.cod).toMatchObject({ expected: null, collected: 8_500, mismatch: false });
    await context.close();
  }, 120_000);
});
