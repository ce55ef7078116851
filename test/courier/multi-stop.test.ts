import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PLACES, merchantApi } from '../orders/support.js';
import { seriousViolations } from '../console/support.js';
import { courierAtTheDoor, drawSignature, moveTo, phone, openCourierApp, closeCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app multi-stop job');
const PHOTO = readFileSync(new URL('../fixtures/courier-photo.jpg', import.meta.url));
const STOPS = [
  { address: { address: 'Irarrázaval 3400, Ñuñoa', coords: PLACES.nunoa, instructions: 'Timbre 2' }, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
  { address: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes }, contact_name: 'Beto Díaz', contact_phone: '+56922222222' },
  { address: { address: 'Huérfanos 1000, Santiago', coords: PLACES.santiago }, contact_name: 'Carla Soto', contact_phone: '+56933333333' },
];

/** The current stop delivered with photo and signature on the phone. */
async function deliverHere(page: Page): Promise<void> {
  await page.locator('#photo-input').setInputFiles({ name: 'puerta.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
  await page.locator('#photo-preview[data-uploaded=true]').waitFor({ timeout: 20_000 });
  await drawSignature(page);
  await expect.poll(() => page.locator('#deliver').isDisabled(), { timeout: 20_000 }).toBe(false);
  await page.locator('#deliver').click();
  await page.locator('#deliver-confirm').click();
}
/** Waits for the job back on the road with this stop (1-based) current, then arrives at it. */
async function arriveAt(page: Page, stop: number): Promise<void> {
  await page.locator(`#job[data-status=picked_up] #route-stops li:nth-child(${stop}).current`).waitFor({ timeout: 20_000 });
  await page.locator('#step').click();
  await page.locator('#step-confirm').click();
  await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
}

/** Issue #30 item 1 on the courier's phone (390×844): a 3-stop job walked through, stop by stop. */
describe.skipIf(SKIP !== null)('courier app: a multi-stop job', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    ({ t, browser } = await openCourierApp());
  });
  afterAll(() => closeCourierApp({ t, browser }));

  it('shows the route, delivers stop 1, fails stop 2 with a reason, delivers stop 3: the order completes', async () => {
    const m = await t.createMerchant();
    const { courier, id } = await courierAtTheDoor(t, { name: 'Rita', liveKey: m.liveKey, order: { dropoff: undefined, stops: STOPS, route: 'given' }, metresNorth: 300 });
    const merchant = merchantApi(t, m.liveKey);

    const context = await browser.newContext(phone(PLACES.nunoa, { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    const route = page.locator('#route-stops li');
    expect(await route.count()).toBe(3);
    expect(await route.locator('.stop-name').allTextContents()).toEqual(['Parada 1', 'Parada 2', 'Parada 3']);
    expect(await route.locator('.stop-status').allTextContents()).toEqual(['en la puerta', 'pendiente', 'pendiente']);
    expect(await route.first().getAttribute('aria-current')).toBe('step');
    expect(await page.locator('#dropoff-title').textContent()).toContain('Parada 1');
    expect(await page.locator('#dropoff-address').textContent()).toContain('Irarrázaval 3400');
    expect(await page.locator('#dropoff .instructions, .stop.dropoff .instructions').first().textContent()).toContain('Timbre 2');
    expect(await page.locator('#customer-name').textContent()).toBe('Ana Pérez');
    expect(await page.locator('#customer-call').getAttribute('href')).toBe('tel:+56911111111');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await deliverHere(page);
    await arriveAt(page, 2);
    expect(await route.first().getAttribute('data-status')).toBe('delivered');
    expect(await page.locator('#customer-name').textContent()).toBe('Beto Díaz');
    await moveTo(page, PLACES.lasCondes);
    await page.locator('#cannot-deliver').click();
    await page.locator('#failed-reason').selectOption('recipient_absent');
    await page.locator('#failed-report').click();
    await page.locator('#failed-report-confirm').click();

    await arriveAt(page, 3);
    expect(await route.nth(1).getAttribute('data-status')).toBe('failed');
    expect(await page.locator('#retry-note').count()).toBe(0);
    expect(await page.locator('#customer-name').textContent()).toBe('Carla Soto');
    await moveTo(page, PLACES.santiago);
    await deliverHere(page);

    await page.locator(`#delivered[data-order-id="${id}"][data-outcome=completed]`).waitFor({ timeout: 20_000 });
    const done = (await merchant.get(id)).body as { status: string; stops: { status: string; failure: { reason: string } | null }[] };
    expect(done.status).toBe('completed');
    expect(done.stops.map((s) => s.status)).toEqual(['delivered', 'failed', 'delivered']);
    expect(done.stops[1]!.failure?.reason).toBe('recipient_absent');
    await context.close();
  }, 180_000);
});
