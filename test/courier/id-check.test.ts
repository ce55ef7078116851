import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PLACES, merchantApi, north } from '../orders/support.js';
import { courierAtTheDoor, drawSignature, phone, openCourierApp, closeCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app ID check');
const PHOTO = readFileSync(new URL('../fixtures/courier-photo.jpg', import.meta.url));
/** Ten years old today, whatever today is. */
const CHILD_BIRTH = `${new Date().getUTCFullYear() - 10}-01-01`;

/** The ID check at the door on the courier's phone (issue #30 item 7), against the real server. */
describe.skipIf(SKIP !== null)('courier app: the ID check before the proof', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    ({ t, browser } = await openCourierApp());
  });
  afterAll(() => closeCourierApp({ t, browser }));

  it('asks for RUT and date of birth, flags a wrong check digit, shows the age refusal, then delivers with the check recorded', async () => {
    const m = await t.createMerchant();
    const { courier, id } = await courierAtTheDoor(t, { name: 'Ana', liveKey: m.liveKey, order: { id_check: { required: true, min_age: 21 } } });
    const merchant = merchantApi(t, m.liveKey);

    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#id-check-fact').textContent()).toBe('Cédula del cliente y 21 años o más, antes de entregar');
    await expect.poll(() => page.locator('#id-check-hint').textContent()).toContain('21 años');

    await page.locator('#id-document').fill('15.432.987-5');
    await page.locator('#id-document-error').waitFor();
    await page.locator('#id-birth').fill(CHILD_BIRTH);
    await page.locator('#photo-input').setInputFiles({ name: 'entrega.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
    await page.locator('#photo-preview[data-uploaded=true]').waitFor({ timeout: 20_000 });
    await drawSignature(page);
    // A RUT with a wrong check digit keeps the delivery button off.
    expect(await page.locator('#deliver').isDisabled()).toBe(true);

    await page.locator('#id-document').fill('15.432.987-0');
    await expect.poll(() => page.locator('#id-document-error').count()).toBe(0);
    await expect.poll(() => page.locator('#deliver').isDisabled()).toBe(false);
    await page.locator('#deliver').click();
    await page.locator('#deliver-confirm').click();
    await page.locator('#deliver-error[data-code=ID_CHECK_FAILED]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#deliver-error').textContent()).toContain('edad mínima');
    expect((await merchant.get(id)).body.status).toBe('arrived_dropoff');

    await page.locator('#id-birth').fill('1990-05-04');
    await page.locator('#deliver').click();
    await page.locator('#deliver-confirm').click();
    await expect.poll(async () => (await merchant.get(id)).body.status, { timeout: 20_000 }).toBe('completed');
    expect((await merchant.get(id)).body.proof.id_check).toMatchObject({ verified: true, min_age: 21, document_last4: '9870' });
    await context.close();
  }, 120_000);
});
