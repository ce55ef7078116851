import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { PLACES, north } from '../orders/support.js';
import { courierAtTheDoor, drawSignature, jpegSize, phone, openCourierApp, closeCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app proof capture');
const PHOTO = readFileSync(new URL('../fixtures/courier-photo.jpg', import.meta.url));

/**
 * What the phone uploads, whatever the server then does with it: the camera's 2000×1500 picture as
 * a JPEG of 1280×960, the signature as a PNG, each to the order's proof path with the CSRF header.
 */
describe.skipIf(SKIP !== null)('courier app: the proof the phone makes', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    ({ t, browser } = await openCourierApp());
  });
  afterAll(() => closeCourierApp({ t, browser }));

  it('downscales the photo on the device and sends the signature as a PNG', async () => {
    const m = await t.createMerchant();
    const { courier } = await courierAtTheDoor(t, { name: 'Ana', liveKey: m.liveKey });
    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    const uploads: Array<{ kind: string; type: string; csrf: string | undefined; body: Buffer }> = [];
    await page.route('**/api/v1/couriers/me/orders/*/proof?*', async (route) => {
      const request = route.request();
      const kind = new URL(request.url()).searchParams.get('kind')!;
      uploads.push({ kind, type: request.headers()['content-type']!, csrf: request.headers()['x-courier-csrf'], body: request.postDataBuffer()! });
      await route.fulfill({ status: 201, contentType: 'application/json', body: JSON.stringify({ success: true, proof_id: `pf_${kind}`, kind, content_type: request.headers()['content-type'], bytes: 1 }) });
    });
    await page.goto(courier.link);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    await page.locator('#photo-input').setInputFiles({ name: 'entrega.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
    await page.locator('#photo-preview[data-uploaded=true]').waitFor({ timeout: 20_000 });
    expect(uploads[0]).toMatchObject({ kind: 'photo', type: 'image/jpeg', csrf: '1' });
    expect(jpegSize(uploads[0]!.body)).toEqual({ width: 1280, height: 960 });
    // The preview is a data: URL (the CSP has no blob:).
    expect(await page.locator('#photo-preview').getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);
    await drawSignature(page);
    let delivers = 0;
    page.on('response', (r) => void (r.url().endsWith('/deliver') && delivers++));
    await page.locator('#deliver').click();
    await page.locator('#deliver-confirm').click();
    await expect.poll(() => uploads.length, { timeout: 20_000 }).toBe(2);
    expect(uploads[1]).toMatchObject({ kind: 'signature', type: 'image/png', csrf: '1' });
    expect(uploads[1]!.body.subarray(1, 4).toString()).toBe('PNG');
    // The delivery is refused (these proof ids are made up): trying again sends the same signature, not a new upload (a stop takes 2).
    await page.locator('#deliver-error').filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
    await page.locator('#deliver').click();
    await page.locator('#deliver-confirm').click();
    await expect.poll(() => delivers, { timeout: 20_000 }).toBe(2);
    expect(uploads).toHaveLength(2);
    await context.close();
  }, 90_000);

  it('a photo past the stop\'s quota shows the server\'s refusal in Spanish', async () => {
    const m = await t.createMerchant();
    const { courier, id } = await courierAtTheDoor(t, { name: 'Berta', liveKey: m.liveKey });
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${t.url}/api/v1/couriers/me/orders/${id}/proof?kind=photo`, { method: 'POST', headers: { authorization: `Bearer ${courier.token}`, 'content-type': 'image/jpeg' }, body: new Uint8Array(PHOTO) });
      expect(res.status).toBe(201);
    }
    const context = await browser.newContext(phone(north(PLACES.lasCondes, 5), { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courier.link);
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 20_000 });
    await page.locator('#photo-input').setInputFiles({ name: 'entrega.jpg', mimeType: 'image/jpeg', buffer: PHOTO });
    await expect.poll(() => page.locator('#deliver-error').textContent(), { timeout: 20_000 }).toContain('Ya enviaste el máximo de fotos o firmas para esta parada');
    expect(await page.locator('#photo-preview').getAttribute('data-uploaded')).toBe('false');
    await context.close();
  }, 90_000);
});
