import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { browserSkipReason, MARKUP, openOfflinePage, plantedElements, tooltipsOfMarkers, type OfflinePage } from '../helpers/browser.js';
import { acceptInvitation, invitationLink } from '../console/support.js';
import { COURIER_APP_ENV, phone } from '../courier/support.js';
import { expectOk, formA, merchantApi, north, PLACES } from '../orders/support.js';
import { PASSWORD, signedInOperator } from '../operators/support.js';

const SKIP = browserSkipReason('names as text in the map tooltips');
const TILE = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg==', 'base64');

/** Every name a page renders, with markup planted in it (issue #39 item 5.1). */
const NAMES = {
  merchant: `Tienda ${MARKUP}`,
  courier: `Rita ${MARKUP}`,
  customer: `Camila ${MARKUP}`,
  contact1: `Ana ${MARKUP}`,
  contact2: `Beto ${MARKUP}`,
  address1: `Irarrázaval 3400 ${MARKUP}`,
  address2: `Apoquindo 3000 ${MARKUP}`,
  pickup: `Providencia 1234 ${MARKUP}`,
  plate: '<B>PL</B>',
};

/**
 * Issue #39 item 5.1: a name is text wherever a page shows it, in the map tooltips above all (the
 * /ops fleet map's hover rendered a courier's name as HTML). Planted markup shows literally and
 * creates no element: /ops fleet map, console order map, courier app map, tracking page.
 */
describe.skipIf(SKIP !== null)('names with markup show as text in every map tooltip and page (headless Chromium)', { timeout: 120_000 }, () => {
  let tiles: Server;
  let t: TestApp;
  let b: OfflinePage;
  let merchantId: string;
  let orderId: string;
  let trackingNumber: string;
  let courierLink: string;

  beforeAll(async () => {
    tiles = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(TILE));
    await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
    const tileUrl = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}/{z}/{x}/{y}.png`;
    t = await startTestApp({ env: { ...COURIER_APP_ENV, MAP_TILE_URL: tileUrl } });
    const m = await t.createMerchant({ name: NAMES.merchant });
    merchantId = m.merchantId;
    const admin = t.app.container.services.admin;
    const created = await admin.createCourier({ input: { name: NAMES.courier, phone: '+56955550001', vehicle: 'motorcycle', plate: NAMES.plate, mode: 'live' } });
    courierLink = `${t.url}${new URL(created.signInUrl!).pathname}${new URL(created.signInUrl!).hash}`;
    const as = (path: string, body: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: created.token, body });
    expectOk(await as('/duty', { on_duty: true }));
    expectOk(await as('/location', north(PLACES.providencia, 300)));
    const stops = [
      { address: { address: NAMES.address1, coords: PLACES.nunoa, instructions: MARKUP }, contact_name: NAMES.contact1, contact_phone: '+56911111111' },
      { address: { address: NAMES.address2, coords: PLACES.lasCondes }, contact_name: NAMES.contact2, contact_phone: '+56922222222' },
    ];
    const order = formA({ dropoff: undefined, stops, route: 'given', customer_name: NAMES.customer, pickup: { address: NAMES.pickup, coords: PLACES.providencia, instructions: MARKUP } });
    const booked = expectOk(await merchantApi(t, m.liveKey).create(order), 201).body;
    orderId = booked.booking_id as string;
    trackingNumber = booked.tracking_number as string;
    for (const status of ['arrived_pickup', 'picked_up']) expectOk(await as(`/orders/${orderId}/status`, { status }));
    expect((await t.app.container.store.orders.findById(orderId))?.courierId).toBe(created.courierId);
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 } });
    b.page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
    await new Promise((resolve) => tiles?.close(resolve));
  });

  it('the /ops fleet map: the courier’s hover shows the name as text', async () => {
    await signedInOperator(t, 'ana@ops.cl', 'admin');
    const page = b.page;
    await page.goto(`${t.url}/ops/sign-in`);
    await page.getByLabel(/^(Correo|Email)$/).fill('ana@ops.cl');
    await page.getByLabel(/^(Contraseña|Password)$/).fill(PASSWORD);
    await page.locator('#sign-in button[type=submit]').click();
    await page.locator('#now').waitFor();
    await page.goto(`${t.url}/ops/merchants`);
    await page.locator('#merchants').waitFor();
    // The merchants list names the merchant as text.
    expect(await page.locator('#merchants').textContent()).toContain(NAMES.merchant);
    await page.goto(`${t.url}/ops/couriers`);
    await page.locator('#fleet-map path.leaflet-interactive').first().waitFor();
    const hovers = await tooltipsOfMarkers(page, '#fleet-map');
    expect(hovers).toContainEqual({ text: NAMES.courier, planted: 0 });
    for (const hover of hovers) expect(hover.planted).toBe(0);
    expect(await page.locator('main').textContent()).toContain(NAMES.courier);
    await page.goto(`${t.url}/ops/orders/${orderId}`);
    await page.locator('#order-timeline li').first().waitFor();
    expect(await plantedElements(page)).toEqual({ elements: 0, ran: false });
  });

  it('the console order map: every tooltip is text, the names on the page too', async () => {
    const context = await b.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await acceptInvitation(page, await invitationLink(t, merchantId, 'mapa@tienda.cl', 'dispatcher'));
    await page.locator('#mode-switch [data-mode=live]').click();
    await page.goto(`${t.url}/console/orders/${orderId}`);
    await page.locator('#order').waitFor();
    await page.locator('.map-canvas path.leaflet-interactive').first().waitFor();
    const hovers = await tooltipsOfMarkers(page, '.map-canvas');
    expect(hovers.length).toBeGreaterThanOrEqual(3);
    for (const hover of hovers) expect(hover.planted).toBe(0);
    const text = await page.locator('main').textContent();
    for (const name of [NAMES.customer, NAMES.contact1, NAMES.address2]) expect(text).toContain(name);
    expect(await plantedElements(page)).toEqual({ elements: 0, ran: false });
    await context.close();
  });

  it('the courier app map: every tooltip is text, the stop, contact and address too', async () => {
    const context = await b.browser.newContext(phone(PLACES.providencia, { serviceWorkers: 'block' }));
    const page = await context.newPage();
    await page.goto(courierLink);
    await page.locator('#job[data-status=picked_up]').waitFor();
    await page.locator('.map-canvas path.leaflet-interactive').first().waitFor();
    const hovers = await tooltipsOfMarkers(page, '.map-canvas');
    expect(hovers.length).toBeGreaterThanOrEqual(2);
    for (const hover of hovers) expect(hover.planted).toBe(0);
    expect(await page.locator('#customer-name').textContent()).toBe(NAMES.contact1);
    expect(await page.locator('#job').textContent()).toContain(NAMES.address1);
    expect(await plantedElements(page)).toEqual({ elements: 0, ran: false });
    await context.close();
  });

  it('the tracking page: shop, courier and vehicle as text', async () => {
    const page = b.page;
    await page.goto(`${t.url}/track/${trackingNumber}`);
    await page.locator('#courier-name').waitFor({ state: 'attached' });
    expect(await page.locator('#courier-name').textContent()).toBe(NAMES.courier);
    expect(await page.locator('#courier-vehicle').textContent()).toContain(NAMES.plate);
    expect(await page.locator('body').textContent()).toContain(NAMES.merchant);
    expect(await plantedElements(page)).toEqual({ elements: 0, ran: false });
    expect(b.foreign).toEqual([]);
  });
});
