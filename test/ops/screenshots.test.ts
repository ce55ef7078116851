import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { startConsoleApp } from '../console/support.js';
import { courierOnDuty, expectOk, formA, merchantApi, north, PLACES, type CourierClient } from '../orders/support.js';
import { gqlOps, PASSWORD, signedInOperator } from '../operators/support.js';

/** `npm run ops:screenshots`: the /ops orders list, an order and the live fleet at 390 and 1280 px for the README, in docs/ops/. */
const SKIP = process.env.SCREENSHOTS === '1' ? browserSkipReason('the ops screenshots') : 'SCREENSHOTS=1 is not set';
const OUT = 'docs/ops';
const ASSIGN = `mutation ($orderId: ID!, $courierId: ID!) { adminAssignOrder(orderId: $orderId, courierId: $courierId) { __typename } }`;

describe.skipIf(SKIP !== null)('ops screenshots: orders and the live fleet', { timeout: 120_000 }, () => {
  let t: TestApp;
  let b: OfflinePage;
  let stuck: string;
  const couriers: CourierClient[] = [];
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false', COURIER_RATE_LIMIT_PER_MIN: '1000000' });
    const shops = [await t.createMerchant({ name: 'Botillería Maipú' }), await t.createMerchant({ name: 'Café Central' })];
    const spots = [PLACES.providencia, PLACES.lasCondes, PLACES.nunoa, PLACES.santiago];
    for (const [i, name] of ['Ana Rojas', 'Beto Díaz', 'Carla Soto', 'Diego Paz'].entries()) couriers.push(await courierOnDuty(t, { mode: 'test', at: north(spots[i]!, 200), name }));
    const ids: string[] = [];
    for (const [i, shop] of [...shops, ...shops, shops[0]!].entries()) {
      ids.push(expectOk(await merchantApi(t, shop.testKey).create(formA({ customer_name: ['Camila Rojas', 'Tomás Vera', 'Inés Mora', 'Raúl Soto', 'Marta Gil'][i], pickup_after: new Date(Date.now() + 7200_000).toISOString() })), 201).body.booking_id as string);
    }
    const { cookie } = await signedInOperator(t, 'despacho@ops.cl', 'dispatcher');
    stuck = ids[0]!;
    await gqlOps(t, cookie, ASSIGN, { variables: { orderId: stuck, courierId: couriers[0]!.id } });
    await gqlOps(t, cookie, ASSIGN, { variables: { orderId: ids[1], courierId: couriers[1]!.id } });
    b = await openOfflinePage({ viewport: { width: 1280, height: 800 }, locale: 'es-CL' });
    b.page.setDefaultTimeout(20_000);
    await b.page.goto(`${t.url}/ops/sign-in`);
    await b.page.getByLabel('Correo').fill('despacho@ops.cl');
    await b.page.getByLabel('Contraseña').fill(PASSWORD);
    await b.page.locator('#sign-in button[type=submit]').click();
    await b.page.locator('#now').waitFor();
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('writes the orders list, an order with its overrides and the fleet, at 1280 and 390 px', async () => {
    const page = b.page;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.goto(`${t.url}/ops/orders`);
      await page.locator('#orders tbody tr').first().waitFor();
      await page.screenshot({ path: `${OUT}/orders-${width}.png`, fullPage: width === 1280 });
      await page.goto(`${t.url}/ops/orders/${stuck}`);
      await page.locator('#overrides').waitFor();
      await page.screenshot({ path: `${OUT}/order-${width}.png`, fullPage: true });
      await page.goto(`${t.url}/ops/couriers`);
      await page.waitForFunction(() => Number(document.querySelector('#fleet-map')?.getAttribute('data-markers')) >= 4);
      // The couriers move while the page is open: the shot shows the live positions.
      for (const [i, c] of couriers.entries()) expectOk(await c.position(north(PLACES.providencia, 400 + i * 500)));
      await page.locator(`tr[data-courier="${couriers[3]!.id}"]`, { hasText: north(PLACES.providencia, 1900).lat.toFixed(5) }).waitFor();
      await page.screenshot({ path: `${OUT}/fleet-${width}.png`, fullPage: width === 1280 });
    }
  });
});
