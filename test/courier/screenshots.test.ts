import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES, formA, merchantApi, north } from '../orders/support.js';
import { courierWithLink, moveTo, phone, startCourierApp } from './support.js';

/** `npm run courier:screenshots`: PNGs of the courier app at 390 px for the README, written to docs/courier/. */
const SKIP = process.env.SCREENSHOTS === '1' ? browserSkipReason('the courier app screenshots') : 'SCREENSHOTS=1 is not set';
const OUT = 'docs/courier';

describe.skipIf(SKIP !== null)('courier app screenshots', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    t = await startCourierApp();
    m = await t.createMerchant({ name: 'Café Central', address: 'Av. Providencia 1234, Providencia' });
    b = await openOfflinePage(phone(north(PLACES.providencia, 800), { serviceWorkers: 'block', deviceScaleFactor: 1 }));
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('writes the home screen, the job and the proof of delivery', async () => {
    const page = b.page;
    const courier = await courierWithLink(t, 'Ana Repartidora');
    await page.goto(courier.link);
    await page.locator('#duty-toggle').waitFor();
    await page.screenshot({ path: `${OUT}/home.png` });
    await page.locator('#duty-toggle').click();
    await page.locator('#duty-status[data-status=available]').waitFor();
    await page.locator('#link-state[data-state=live]').waitFor();
    await merchantApi(t, m.liveKey).create(formA({ payment_mode: 'cash_on_delivery', cod_amount: 12_990, delivery_pin: true, order_notes: 'Frágil: llevar derecho' }));
    await page.locator('#job[data-status=assigned]').waitFor({ timeout: 45_000 });
    await page.screenshot({ path: `${OUT}/job.png`, fullPage: true });
    for (const status of ['arrived_pickup', 'picked_up']) {
      await page.locator('#step').click();
      await page.locator('#step-confirm').click();
      await page.locator(`#job[data-status=${status}]`).waitFor();
    }
    // Within 50 m of the drop-off the server marks the arrival itself from the position.
    await moveTo(page, north(PLACES.lasCondes, 8));
    await page.locator('#job[data-status=arrived_dropoff]').waitFor({ timeout: 30_000 });
    await page.locator('#geofence[data-verdict=inside]').waitFor();
    await page.locator('#signature-pad').scrollIntoViewIfNeeded();
    const pad = (await page.locator('#signature-pad').boundingBox())!;
    await page.mouse.move(pad.x + 20, pad.y + pad.height * 0.7);
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) await page.mouse.move(pad.x + 20 + i * 22, pad.y + pad.height * (0.7 - 0.4 * Math.sin(i / 2)), { steps: 3 });
    await page.mouse.up();
    await page.locator('#pin').fill('1234');
    await page.locator('#geofence').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.mouse.wheel(0, -60);
    await page.screenshot({ path: `${OUT}/proof.png` });
  }, 120_000);
});
