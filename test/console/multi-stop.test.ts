import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES, courierOnDuty, expectOk, formA, merchantApi, north } from '../orders/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console order page of a multi-stop order');

const STOPS = [
  { address: { address: 'Irarrázaval 3400, Ñuñoa', coords: PLACES.nunoa }, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
  { address: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes }, contact_name: 'Beto Díaz', contact_phone: '+56922222222' },
  { address: { address: 'Huérfanos 1000, Santiago', coords: PLACES.santiago }, contact_name: 'Carla Soto', contact_phone: '+56933333333' },
];

/**
 * Issue #30 item 1 in the console: after a sandbox run of a 3-stop test order the orders list marks
 * it "3 paradas" and its page lists the stops in route order, each delivered with its proof and its
 * own tracking link — on a phone (390 px) and on a desktop (1280 px).
 */
describe.skipIf(SKIP !== null)('console: a multi-stop order', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let orderId: string;
  const pages: OfflinePage[] = [];

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Empanadas Doña Rosa', address: 'Av. Providencia 1234, Providencia' });
    const { dropoff: _dropoff, ...base } = formA();
    const run = expectOk(await api(`${t.url}/api/v1/sandbox/runs`, {
      key: m.testKey, body: { scenario: 'delivered', seed: 'console-stops', start_time: new Date().toISOString(), order: { ...base, stops: STOPS, route: 'given' } },
    }), 201).body.run as { booking_id: string; status: string };
    expect(run.status).toBe('completed');
    orderId = run.booking_id;
  }, 120_000);
  afterAll(async () => {
    for (const b of pages) await b.browser.close();
    await t?.stop();
  });

  for (const [width, height, email] of [[390, 844, 'phone@empanadas.cl'], [1280, 900, 'desk@empanadas.cl']] as const) {
    it(`at ${width} px: the list says "3 paradas", the page lists the stops delivered with proof and links; English on switching`, async () => {
      const b = await openOfflinePage({ viewport: { width, height }, locale: 'es-CL', timezoneId: 'America/Santiago' });
      pages.push(b);
      const details = expectOk(await api(`${t.url}/api/v1/orders/${orderId}`, { key: m.testKey })).body as { stops: { id: string; tracking_url: string }[] };
      await acceptInvitation(b.page, await invitationLink(t, m.merchantId, email, 'owner'));
      await b.page.locator('#mode-switch [data-mode=test]').click();
      const row = b.page.locator(`#orders tr[data-order-id="${orderId}"]`);
      await row.waitFor();
      expect(await row.locator('.badge.stops').textContent()).toBe('3 paradas');

      await row.locator('a').click();
      await b.page.locator('#order[data-status=completed]').waitFor();
      const stops = b.page.locator('#stop-list li');
      expect(await stops.count()).toBe(3);
      expect(await b.page.locator('#stops').getAttribute('data-route')).toBe('given');
      expect(await stops.evaluateAll((els) => els.map((el) => el.getAttribute('data-stop-id')))).toEqual(details.stops.map((s) => s.id));
      expect(await stops.locator('.stop-address').allTextContents()).toEqual(STOPS.map((s) => s.address.address));
      expect(await stops.locator('.stop-status').allTextContents()).toEqual(['Entregada', 'Entregada', 'Entregada']);
      expect(await stops.first().textContent()).toContain('Ana Pérez · +56911111111');
      const links = await stops.locator('a.stop-tracking').evaluateAll((els) => els.map((el) => (el as HTMLAnchorElement).href));
      expect(links).toEqual(details.stops.map((s) => s.tracking_url));
      for (const i of [1, 2, 3]) for (const kind of ['photo', 'signature']) expect(await b.page.locator(`#stop-${i}-${kind}`).count()).toBe(1);
      expect(await b.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await seriousViolations(b.page)).toEqual([]);

      await b.page.locator('#lang-switch').selectOption('en');
      await expect.poll(() => stops.locator('.stop-status').first().textContent()).toBe('Delivered');
      expect(await b.page.locator('#stops-title').textContent()).toBe('Stops in the given order');
      expect(b.foreign).toEqual([]);
      expect(b.problems).toEqual([]);
    }, 60_000);
  }

  it('at 390 px the new-order form adds stops and the route choice: quoted, then booked as a 3-stop optimised order', async () => {
    const page = pages[0]!.page;
    await page.locator('#lang-switch').selectOption('es');
    await page.goto(`${t.url}/console/orders/new`);
    await page.getByLabel('Dirección de entrega').fill(STOPS[0]!.address.address);
    await page.getByLabel('Nombre del cliente').fill('Ana Pérez');
    await page.getByLabel('Teléfono del cliente').fill('+56911111111');
    for (const [i, stop] of [[2, STOPS[1]!], [3, STOPS[2]!]] as const) {
      await page.locator('#add-stop').click();
      await page.getByLabel(`Parada ${i}: Dirección`).fill(stop.address.address);
      await page.locator('.stop-row').last().getByLabel('Contacto', { exact: true }).fill(stop.contact_name);
      await page.locator('.stop-row').last().getByLabel('Teléfono del contacto').fill(stop.contact_phone);
    }
    await page.locator('#route').selectOption('optimized');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.locator('#get-quote').click();
    await page.locator('#quote').waitFor();
    await page.locator('#create-order').click();
    await page.waitForURL(/\/console\/test\/orders\/[^/]+$/);
    await page.locator('#stop-list li').nth(2).waitFor();
    expect(await page.locator('#stops').getAttribute('data-route')).toBe('optimized');
    expect((await page.locator('#stop-list .stop-address').allTextContents()).sort()).toEqual(STOPS.map((s) => s.address.address).sort());
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('a stop the courier could not deliver shows its reason in the console\'s language', async () => {
    const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 200) });
    const { dropoff: _dropoff, ...base } = formA();
    const id = (expectOk(await merchantApi(t, m.liveKey).create({ ...base, stops: STOPS, route: 'given' }), 201).body as { booking_id: string }).booking_id;
    expectOk(await courier.status(id, 'picked_up'));
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${id}/failed-attempt`, { key: courier.token, body: { reason: 'recipient_absent', note: 'Timbre malo', coords: PLACES.nunoa } }));
    const page = pages[1]!.page;
    await page.locator('#lang-switch').selectOption('es');
    await page.locator('#mode-switch [data-mode=live]').click();
    await page.goto(`${t.url}/console/orders/${id}`);
    const first = page.locator('#stop-list li').first();
    await first.locator('.stop-failure').waitFor();
    expect(await first.getAttribute('data-status')).toBe('failed');
    expect(await first.locator('.stop-status').textContent()).toBe('No entregada');
    expect(await first.locator('.stop-failure').textContent()).toBe('no había nadie · “Timbre malo”');
    await page.locator('#lang-switch').selectOption('en');
    await expect.poll(() => first.locator('.stop-failure').textContent()).toBe('nobody was there · “Timbre malo”');
    expect(await page.locator('#stop-list li').nth(1).locator('.stop-status').textContent()).toBe('Pending');
  }, 60_000);
});
