import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PLACES, formA, merchantApi, north } from '../orders/support.js';
import { seriousViolations } from '../console/support.js';
import { courierAtTheDoor, courierWithLink, drawSignature, moveTo, phone, openCourierApp, closeCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app failed attempt and return');
const PHOTO = readFileSync(new URL('../fixtures/courier-photo.jpg', import.meta.url));

/** "No pude entregar" and the return to the shop on the courier's phone (issue #30 item 2), against the real server. */
describe.skipIf(SKIP !== null)('courier app: a failed attempt, then the return to the shop', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    ({ t, browser } = await openCourierApp());
  });
  afterAll(() => closeCourierApp({ t, browser }));

  it('reports a refusal with note and photo, shows the return step, returns with photo and signature at the pickup: the order ends returned', async () => {
    const m = await t.createMerchant();
    const { courier, id, as } = await courierAtTheDoor(t, { name: 'Bea', liveKey: m.liveKey, order: { failed_attempt_policy: 'return' }, metresNorth: 300 });
    const merchant = merchantApi(t, m.liveKey);

    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#cannot-deliver').textContent()).toBe('No pude entregar');
    // The recipient's number while the job is open (issue #38)…
    expect(await page.locator('#customer-call').getAttribute('href')).toMatch(/^tel:\+\d+$/);
    await page.locator('#cannot-deliver').click();
    const reasons = await page.locator('#failed-reason option').allTextContents();
    expect(reasons).toEqual(['No había nadie', 'El cliente lo rechazó', 'Dirección incorrecta', 'Lugar inseguro', 'Otro motivo']);
    await page.locator('#failed-reason').selectOption('refused');
    await page.locator('#failed-note').fill('No quiso recibirlo');
    await page.locator('#failed-photo').setInputFiles({ name: 'puerta.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
    await page.locator('#failed-photo-preview').waitFor({ timeout: 20_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await expect.poll(() => page.locator('#failed-report').isDisabled()).toBe(false);
    // The confirmation step: nothing is sent before it.
    await page.locator('#failed-report').click();
    expect((await merchant.get(id)).body.status).toBe('arrived_dropoff');
    await page.locator('#failed-report-confirm').click();

    await page.locator('#job[data-status=returning]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#job-status').textContent()).toBe('En devolución');
    expect(await page.locator('#return-step').textContent()).toContain('de vuelta a la tienda');
    expect(await page.locator('#cannot-deliver').count()).toBe(0);
    // …and no longer on the way back to the shop: the API gives none, the card shows no call link.
    expect(await page.locator('#customer-call').count()).toBe(0);
    expect(await page.locator('#return-proof #proof-title').textContent()).toBe('Devolución en la tienda');
    expect(await seriousViolations(page)).toEqual([]);
    const failed = (await merchant.get(id)).body;
    expect(failed).toMatchObject({ status: 'returning', failed_attempts: [{ reason: 'refused', note: 'No quiso recibirlo', outcome: 'returning' }] });
    expect(failed.failed_attempts[0].photo_url).toMatch(/\/api\/v1\/proofs\//);

    // At the drop-off the shop's geofence says too far; at the pickup it lets the return through.
    await expect.poll(() => page.locator('#geofence').getAttribute('data-verdict'), { timeout: 20_000 }).toBe('outside');
    await moveTo(page, PLACES.providencia);
    await expect.poll(() => page.locator('#geofence').getAttribute('data-verdict'), { timeout: 20_000 }).toBe('inside');
    await page.locator('#return-proof #photo-input').setInputFiles({ name: 'tienda.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
    await page.locator('#photo-preview[data-uploaded=true]').waitFor({ timeout: 20_000 });
    await drawSignature(page);
    await expect.poll(() => page.locator('#deliver').isDisabled()).toBe(false);
    expect(await page.locator('#deliver').textContent()).toBe('Devolver en la tienda');
    await page.locator('#deliver').click();
    await page.locator('#deliver-confirm').click();

    await expect.poll(async () => (await merchant.get(id)).body.status, { timeout: 20_000 }).toBe('returned');
    expect((await merchant.get(id)).body.return_proof).toMatchObject({ geofence: 'passed' });
    await page.locator(`#delivered[data-order-id="${id}"][data-outcome=returned]`).waitFor({ timeout: 20_000 });
    expect(await page.locator('#delivered').textContent()).toContain('devuelto');
    await context.close();
    // Off duty: the next test's order must go to its own courier.
    expect((await as('/duty', { on_duty: false })).status).toBe(200);
  }, 120_000);

  it('retry (in English): after the report the job is back on the normal steps, the attempt noted', async () => {
    const m = await t.createMerchant();
    const courier = await courierWithLink(t, 'Caro');
    const as = (path: string, body: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: courier.token, body });
    await as('/duty', { on_duty: true });
    await as('/location', north(PLACES.providencia, 300));
    const merchant = merchantApi(t, m.liveKey);
    const id = (await merchant.create(formA({ failed_attempt_policy: 'retry' }))).body.booking_id as string;
    for (const status of ['arrived_pickup', 'picked_up']) expect((await as(`/orders/${id}/status`, { status })).status).toBe(200);

    // Away from the drop-off: the server's arrival marking leaves the job at picked_up.
    const context = await browser.newContext(phone(north(PLACES.providencia, 2000), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#job[data-status=picked_up]').waitFor({ timeout: 20_000 });
    await page.locator('#lang-switch').selectOption('en');
    await expect.poll(() => page.locator('#cannot-deliver').textContent()).toBe('I could not deliver');
    await page.locator('#cannot-deliver').click();
    expect(await page.locator('#failed-reason option[value=wrong_address]').textContent()).toBe('Wrong address');
    await page.locator('#failed-reason').selectOption('wrong_address');
    await page.locator('#failed-report').click();
    await page.locator('#failed-report-confirm').click();
    await page.locator('#retry-note').waitFor({ timeout: 20_000 });
    expect(await page.locator('#retry-note').textContent()).toContain('stays with you');
    expect(await page.locator('#job').getAttribute('data-status')).toBe('picked_up');
    expect(await page.locator('#return-proof').count()).toBe(0);
    expect(await page.locator('#step').isVisible()).toBe(true);
    expect((await merchant.get(id)).body).toMatchObject({ status: 'picked_up', failed_attempts: [{ reason: 'wrong_address', note: null, photo_url: null, outcome: 'picked_up' }] });

    // The normal flow goes on from here (and the courier stays busy: the next test's order goes to its own courier).
    await page.locator('#step').click();
    await page.locator('#step-confirm').click();
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#cannot-deliver').count()).toBe(1);
    await context.close();
  }, 120_000);

  it('dispose: the report closes the job, with nothing to return', async () => {
    const m = await t.createMerchant();
    const courier = await courierWithLink(t, 'Dani');
    const as = (path: string, body: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: courier.token, body });
    const merchant = merchantApi(t, m.liveKey);
    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#duty-toggle').click();
    await expect.poll(async () => (await api(`${t.url}/api/v1/couriers/me`, { key: courier.token })).body.courier.status).toBe('available');
    await as('/location', north(PLACES.providencia, 300));
    const id = (await merchant.create(formA({ failed_attempt_policy: 'dispose' }))).body.booking_id as string;
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expect((await as(`/orders/${id}/status`, { status })).status).toBe(200);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    await page.locator('#cannot-deliver').click();
    await page.locator('#failed-report').click();
    await page.locator('#failed-report-confirm').click();
    await page.locator(`#delivered[data-order-id="${id}"][data-outcome=disposed]`).waitFor({ timeout: 20_000 });
    expect(await page.locator('#delivered').textContent()).toContain('no hay que devolverlo');
    expect(await page.locator('#job').count()).toBe(0);
    expect((await merchant.get(id)).body).toMatchObject({ status: 'disposed', failed_attempts: [{ reason: 'recipient_absent', outcome: 'disposed' }] });
    await context.close();
  }, 120_000);
});
