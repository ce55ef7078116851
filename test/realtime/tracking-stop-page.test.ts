import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations } from '../console/support.js';
import { PLACES, expectOk, formA, merchantApi } from '../orders/support.js';

const SKIP = browserSkipReason('the stop tracking page test');
const STOPS = [
  { address: { address: 'Irarrázaval 3400, Ñuñoa', coords: PLACES.nunoa }, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
  { address: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes }, contact_name: 'Beto Díaz', contact_phone: '+56922222222' },
  { address: { address: 'Huérfanos 1000, Santiago', coords: PLACES.santiago }, contact_name: 'Carla Soto', contact_phone: '+56933333333' },
];

/**
 * Issue #30 item 1: a multi-stop order's stop link opens a page of that stop only — its status, ETA
 * and how many stops the courier serves before it — never another stop's address or contact.
 */
describe.skipIf(SKIP !== null)('the stop tracking page in headless Chromium', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const pages: OfflinePage[] = [];
  let links: string[];

  beforeAll(async () => {
    t = await startTestApp({ env: { MAP_TILE_URL: 'none' } });
    m = await t.createMerchant({ name: 'Empanadas Doña Rosa', address: 'Av. Providencia 1234, Providencia' });
    const { dropoff: _dropoff, ...base } = formA();
    const orders = merchantApi(t, m.liveKey);
    const id = (expectOk(await orders.create({ ...base, stops: STOPS, route: 'given' }), 201).body as { booking_id: string }).booking_id;
    links = (expectOk(await orders.get(id)).body as { stops: { tracking_url: string }[] }).stops.map((s) => s.tracking_url);
  });
  afterAll(async () => {
    for (const b of pages) await b.browser.close();
    await t?.stop();
  });

  const others = (keep: number) => STOPS.filter((_, i) => i !== keep).flatMap((s) => [s.address.address, s.contact_name, s.contact_phone]);

  it('es at 390 px: the last stop says "2 paradas antes de la tuya" and its ETA, nothing of the other stops', async () => {
    const b = await openOfflinePage({ viewport: { width: 390, height: 844 }, locale: 'es-CL', timezoneId: 'America/Santiago' });
    pages.push(b);
    await b.page.goto(links[2]!);
    await b.page.locator('#stop-pending').waitFor();
    expect(await b.page.locator('html').getAttribute('lang')).toBe('es-CL');
    expect(await b.page.locator('h1').textContent()).toBe('Tu entrega está en camino');
    expect(await b.page.locator('#stop-pending p').first().textContent()).toMatch(/^2 paradas antes de la tuya · Llegada estimada: /);
    const text = await b.page.locator('body').textContent();
    for (const word of [...others(2), STOPS[2]!.contact_phone]) expect(text).not.toContain(word);
    expect(await b.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(b.page)).toEqual([]);

    await b.page.goto(links[0]!);
    expect(await b.page.locator('#stop-pending p').first().textContent()).toMatch(/^Eres la próxima parada · /);
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });

  it('en at 1280 px: "2 stops before yours"; a link with a wrong capability is the not-found page', async () => {
    const b = await openOfflinePage({ viewport: { width: 1280, height: 800 }, locale: 'en-US', timezoneId: 'America/Santiago' });
    pages.push(b);
    await b.page.goto(links[2]!);
    await b.page.locator('#stop-pending').waitFor();
    expect(await b.page.locator('h1').textContent()).toBe('Your delivery is on its way');
    expect(await b.page.locator('#stop-pending p').first().textContent()).toMatch(/^2 stops before yours · Estimated arrival: /);
    const text = await b.page.locator('body').textContent();
    for (const word of others(2)) expect(text).not.toContain(word);

    const forged = new URL(links[2]!);
    forged.searchParams.set('k', 'A'.repeat(forged.searchParams.get('k')!.length));
    const res = await b.page.goto(forged.toString());
    expect(res?.status()).toBe(404);
    await b.page.locator('#not-found').waitFor();
    expect(b.foreign).toEqual([]);
  });
});
