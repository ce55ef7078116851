import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { courierOnDuty, expectOk, formA, merchantApi, PLACES } from '../orders/support.js';
import { along } from './support.js';

/** `SCREENSHOTS=1 npx vitest run test/realtime/tracking-screenshot.test.ts`: the README's picture of the Spanish tracking page at 390 px, written to docs/tracking/. */
const SKIP = process.env.SCREENSHOTS === '1' ? browserSkipReason('the tracking page screenshot') : 'SCREENSHOTS=1 is not set';
const OUT = 'docs/tracking';

describe.skipIf(SKIP !== null)('tracking page screenshot', () => {
  let t: TestApp;
  let b: OfflinePage;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    // Street tiles are on the internet: the offline screenshot shows the schematic map.
    t = await startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000', COURIER_RATE_LIMIT_PER_MIN: '100000', MAP_TILE_URL: 'none' } });
    b = await openOfflinePage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'es-CL' });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('writes the Spanish page of an order on its way, at 390 px', async () => {
    const m = await t.createMerchant({ name: 'Empanadas Doña Rosa' });
    const courier = await courierOnDuty(t, { mode: 'live', at: PLACES.providencia, name: 'Camila Rojas' });
    const items = [{ name: 'Empanada de pino', quantity: 6 }, { name: 'Pebre', quantity: 1 }];
    const order = expectOk(await merchantApi(t, m.liveKey).create(formA({ items })), 201).body as { booking_id: string; tracking_url: string };
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    expectOk(await courier.status(order.booking_id, 'picked_up'));
    expectOk(await courier.position(along(PLACES.providencia, PLACES.lasCondes, 0.4)));
    const page = b.page;
    await page.goto(`${t.url}${order.tracking_url.slice(order.tracking_url.indexOf('/track/'))}`);
    await page.waitForFunction(() => document.getElementById('connection')?.dataset.state === 'live', undefined, { timeout: 20_000 });
    await page.screenshot({ path: `${OUT}/tracking-page-es-390.png`, fullPage: true });
  });
});
