import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { seriousViolations } from '../console/support.js';
import { PLACES, north } from '../orders/support.js';
import { closeCourierApp, courierMe, courierWithLink, openCourierApp, phone } from './support.js';

const SKIP = browserSkipReason('the courier app shift step');

/** "HH:MM" on the phone's clock (America/Santiago) `hours` from now, and that instant to the minute. */
async function clockIn(page: Page, hours: number): Promise<{ hhmm: string; at: number }> {
  return page.evaluate((h) => {
    const at = new Date(Date.now() + h * 3_600_000);
    at.setSeconds(0, 0);
    const pad = (n: number) => String(n).padStart(2, '0');
    return { hhmm: `${pad(at.getHours())}:${pad(at.getMinutes())}`, at: at.getTime() };
  }, hours);
}

/**
 * Issue #37: going on duty, the courier app asks "¿Hasta qué hora?" (a time picker; optional), sends
 * the next occurrence of that time as shift_ends_at, and shows the planned end while on duty. In
 * Chromium at 390×844, Spanish first.
 */
describe.skipIf(SKIP !== null)('courier app: the planned end of the duty on a phone', () => {
  let app: { t: TestApp; browser: Browser };
  let page: Page;
  let courier: { id: string; token: string; link: string };

  beforeAll(async () => {
    app = await openCourierApp();
    courier = await courierWithLink(app.t, 'Rosa Turnos');
    const context = await app.browser.newContext(phone(north(PLACES.providencia, 800), { serviceWorkers: 'block' }));
    page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#duty-toggle').waitFor();
  });
  afterAll(() => closeCourierApp(app));

  it('asks "¿Hasta qué hora?" before going on duty, in Spanish, fitting a 390 px phone', async () => {
    expect(await page.locator('label[for=shift-until]').textContent()).toBe('¿Hasta qué hora?');
    expect(await page.locator('#shift-until').getAttribute('type')).toBe('time');
    const box = (await page.locator('#shift-until').boundingBox())!;
    expect(box.width).toBeGreaterThan(300);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('refuses a time more than 16 hours ahead on the phone, and stays off duty', async () => {
    const { hhmm } = await clockIn(page, 20);
    await page.locator('#shift-until').fill(hhmm);
    await page.locator('#duty-toggle').click();
    await page.locator('#shift-until-error').waitFor();
    expect(await page.locator('#shift-until-error').textContent()).toBe('Elige una hora dentro de las próximas 16 horas.');
    expect((await courierMe(app.t, courier.token)).status).toBe('off_duty');
  });

  it('goes on duty with the picked time as shift_ends_at, and shows it on the home screen', async () => {
    const { hhmm, at } = await clockIn(page, 3);
    await page.locator('#shift-until').fill(hhmm);
    await page.locator('#duty-toggle').click();
    await page.locator('#duty-status[data-status=available]').waitFor();
    const me = await courierMe(app.t, courier.token);
    expect(me.status).toBe('available');
    expect(Date.parse(me.shift_ends_at)).toBe(at);
    expect(await page.locator('#shift-ends').getAttribute('data-shift-ends-at')).toBe(me.shift_ends_at);
    expect(await page.locator('#shift-ends').textContent()).toBe(`Turno hasta las ${hhmm}`);
    expect(await page.locator('#shift-until').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // In English too (the catalog has both).
    await page.locator('#lang-switch').selectOption('en');
    await page.locator('#shift-ends', { hasText: 'On duty until' }).waitFor();
  });

  it('off duty again, the planned end is gone; left empty, the next duty has none', async () => {
    await page.locator('#duty-toggle').click();
    await page.locator('#duty-status[data-status=off_duty]').waitFor();
    expect((await courierMe(app.t, courier.token)).shift_ends_at).toBeNull();
    expect(await page.locator('label[for=shift-until]').textContent()).toBe('Until what time?');
    await page.locator('#lang-switch').selectOption('es');
    await page.locator('#duty-toggle').click();
    await page.locator('#duty-status[data-status=available]').waitFor();
    expect(await courierMe(app.t, courier.token)).toMatchObject({ status: 'available', shift_ends_at: null });
    expect(await page.locator('#shift-ends').count()).toBe(0);
  });
});
