import { mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations } from '../console/support.js';
import { expectOk, formA, merchantApi } from '../orders/support.js';

/** Issue #28 item 1: the customer's tracking page in Spanish (default) or English, dates with their day, error pages. */
const SKIP = browserSkipReason('the tracking page language test');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const PUBLIC_LIMIT = 20;
const SANTIAGO = 'America/Santiago';

/** Santiago's calendar date (YYYY-MM-DD) `days` after today's. */
function santiagoDate(days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: SANTIAGO, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  return new Date(Date.parse(`${today}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
/** The instant of hh:mm on a Santiago date (Chile is UTC-3 or UTC-4). */
function santiagoInstant(date: string, time: string): Date {
  for (const offset of ['-03:00', '-04:00']) {
    const at = new Date(`${date}T${time}:00${offset}`);
    const shown = new Intl.DateTimeFormat('en-GB', { timeZone: SANTIAGO, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
    if (shown === time) return at;
  }
  throw new Error(`no ${time} on ${date} in Santiago`);
}
const WEEKDAYS = { es: ['dom', 'lun', 'mar', 'mié', 'jue', 'vie', 'sáb'], en: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] };
const MONTHS = {
  es: ['ene', 'feb', 'mar', 'abr', 'may', 'jun', 'jul', 'ago', 'sept', 'oct', 'nov', 'dic'],
  en: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
};
/** "sáb 30 nov" / "Sat 30 Nov" of a Santiago date. */
function dayLabel(date: string, lang: 'es' | 'en'): string {
  const d = new Date(`${date}T12:00:00Z`);
  return `${WEEKDAYS[lang][d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[lang][d.getUTCMonth()]}`;
}

type Created = { booking_id: string; tracking_number: string; tracking_url: string };

describe.skipIf(SKIP !== null)('tracking page languages in headless Chromium', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let tomorrow: Created;
  let later: Created;
  let laterDate: string;
  let address = 0;
  const contexts: BrowserContext[] = [];

  /** A page from its own client address (the app trusts the loopback proxy), in a browser with this locale. */
  async function pageFor(options: { locale: string; viewport?: { width: number; height: number } }): Promise<Page> {
    address++;
    const context = await b.browser.newContext({
      locale: options.locale,
      viewport: options.viewport ?? PHONE,
      extraHTTPHeaders: { 'x-forwarded-for': `198.51.100.${address}` },
      ...(options.viewport === undefined && { deviceScaleFactor: 2, isMobile: true, hasTouch: true }),
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.route('**/*', (route) => (['127.0.0.1', 'localhost'].includes(new URL(route.request().url()).hostname) ? route.continue() : route.abort('internetdisconnected')));
    page.on('pageerror', (error) => b.problems.push(error.message));
    return page;
  }
  const live = (page: Page) => page.waitForFunction(() => document.getElementById('connection')?.dataset.state === 'live', undefined, { timeout: 20_000 });
  const pathOf = (url: string) => url.slice(url.indexOf('/track/'));

  beforeAll(async () => {
    mkdirSync('test-results', { recursive: true });
    t = await startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: String(PUBLIC_LIMIT), TRUST_PROXY: '127.0.0.1,::1' } });
    m = await t.createMerchant({ name: 'Empanadas Doña Rosa' });
    const merchant = merchantApi(t, m.testKey);
    const items = [{ name: 'Empanada de pino', quantity: 2 }, { name: 'Pebre', quantity: 1 }, { name: 'Jugo de maqui', quantity: 1 }, { name: 'Sopaipilla', quantity: 4 }];
    tomorrow = expectOk(await merchant.create(formA({ items, pickup_after: santiagoInstant(santiagoDate(1), '11:01').toISOString() })), 201).body as Created;
    laterDate = santiagoDate(3);
    later = expectOk(await merchant.create(formA({ items, pickup_after: santiagoInstant(laterDate, '11:01').toISOString() })), 201).body as Created;
    b = await openOfflinePage();
  }, 60_000);
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await b?.browser.close();
    await t?.stop();
  });

  it('speaks Spanish by default (a Spanish browser): the shop, the items, "mañana" for tomorrow, Santiago 24-hour times', async () => {
    const page = await pageFor({ locale: 'es-CL' });
    const response = await page.goto(`${t.url}${pathOf(tomorrow.tracking_url)}`);
    expect(response?.status()).toBe(200);
    await live(page);
    expect(await page.getAttribute('html', 'lang')).toBe('es-CL');
    expect(await page.locator('#status').textContent()).toBe('Buscando repartidor');
    expect(await page.locator('#shop-name').textContent()).toBe('Empanadas Doña Rosa');
    expect(await page.locator('#items').textContent()).toBe('2 × Empanada de pino, 1 × Pebre, 1 × Jugo de maqui y 1 más');
    const eta = (await page.locator('#eta').textContent())!;
    expect(eta).toMatch(/^Entrega estimada mañana \d\d:\d\d · retiro mañana 11:01$/);
    expect(await page.locator('#connection').textContent()).toBe('En vivo');
    expect(await page.locator('#timeline li').first().locator('.step').textContent()).toBe('Pedido recibido');
    expect(await page.locator('body').innerText()).not.toMatch(/\b(Tracking|Courier|Progress|Live|a\. m\.|p\. m\.|AM|PM)\b/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-results/tracking-page-es.png', fullPage: true });
  });

  it('shows the day of a later delivery: "sáb 30 nov 11:01" in Spanish, "Sat 30 Nov 11:01" in English', async () => {
    const es = await pageFor({ locale: 'es-CL' });
    await es.goto(`${t.url}${pathOf(later.tracking_url)}`);
    await live(es);
    expect(await es.locator('#eta').textContent()).toContain(`retiro ${dayLabel(laterDate, 'es')} 11:01`);
    const en = await pageFor({ locale: 'es-CL' });
    await en.goto(`${t.url}${pathOf(later.tracking_url)}&lang=en`);
    await live(en);
    expect(await en.locator('#eta').textContent()).toMatch(new RegExp(`^Estimated delivery ${dayLabel(laterDate, 'en')} \\d\\d:\\d\\d · pickup ${dayLabel(laterDate, 'en')} 11:01$`));
  });

  it('speaks English when asked: ?lang=en over a Spanish browser, or an English Accept-Language; every word and date English', async () => {
    const byQuery = await pageFor({ locale: 'es-CL' });
    await byQuery.goto(`${t.url}${pathOf(tomorrow.tracking_url)}&lang=en`);
    await live(byQuery);
    const byHeader = await pageFor({ locale: 'en-US' });
    await byHeader.goto(`${t.url}${pathOf(tomorrow.tracking_url)}`);
    await live(byHeader);
    for (const page of [byQuery, byHeader]) {
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      expect(await page.locator('#status').textContent()).toBe('Finding a courier');
      expect(await page.locator('#items').textContent()).toBe('2 × Empanada de pino, 1 × Pebre, 1 × Jugo de maqui and 1 more');
      expect(await page.locator('#eta').textContent()).toMatch(/^Estimated delivery tomorrow \d\d:\d\d · pickup tomorrow 11:01$/);
      expect(await page.locator('#connection').textContent()).toBe('Live');
      expect(await page.locator('body').innerText()).not.toMatch(/\b(mañana|Seguimiento|Repartidor|En vivo|a\. m\.|p\. m\.)\b/);
    }
    // The language link switches back, keeping the capability.
    await byHeader.locator('a.language').click();
    await live(byHeader);
    expect(await byHeader.locator('#status').textContent()).toBe('Buscando repartidor');
    expect(byHeader.url()).toContain('k=');
  });

  it('words delivered and cancelled deliveries for the customer, in both languages', async () => {
    const merchant = merchantApi(t, m.testKey);
    const cancelled = expectOk(await merchant.create(formA()), 201).body as Created;
    expectOk(await api(`${t.url}/api/v1/orders/${cancelled.booking_id}/cancel`, { key: m.testKey, body: { reason: 'customer_request' } }));
    const es = await pageFor({ locale: 'es-CL' });
    await es.goto(`${t.url}${pathOf(cancelled.tracking_url)}`);
    await es.locator('#tracking').waitFor({ state: 'visible' });
    expect(await es.locator('#status').textContent()).toBe('Envío cancelado');
    expect(await es.locator('#eta').textContent()).toBe('Este envío fue cancelado. Si tienes dudas, escríbele a Empanadas Doña Rosa.');
    expect(await es.locator('#no-courier').textContent()).toBe('Este envío no tiene repartidor.');
    const en = await pageFor({ locale: 'en-GB' });
    await en.goto(`${t.url}${pathOf(cancelled.tracking_url)}`);
    await en.locator('#tracking').waitFor({ state: 'visible' });
    expect(await en.locator('#status').textContent()).toBe('Delivery cancelled');
    expect(await en.locator('#eta').textContent()).toBe('This delivery was cancelled. If you have questions, contact Empanadas Doña Rosa.');
  });

  it('words a failed attempt and its return for the customer, in both languages', async () => {
    // A sandbox run plays the failed attempt and the return to the shop (it ends `returned`).
    const run = expectOk(await api(`${t.url}/api/v1/sandbox/runs`, {
      key: m.testKey, body: { scenario: 'failed_attempt_then_return', seed: 'tracking-page', start_time: new Date().toISOString(), order: formA() },
    }), 201).body.run as { booking_id: string; status: string };
    expect(run.status).toBe('returned');
    const { tracking_url: url } = expectOk(await api(`${t.url}/api/v1/orders/${run.booking_id}`, { key: m.testKey })).body as Created;
    const es = await pageFor({ locale: 'es-CL' });
    await es.goto(`${t.url}${pathOf(url)}`);
    await es.locator('#tracking').waitFor({ state: 'visible' });
    expect(await es.locator('#status').textContent()).toBe('Tu pedido volvió a la tienda');
    expect(await es.locator('#eta').textContent()).toBe('Tu pedido fue devuelto a Empanadas Doña Rosa. Escríbele para coordinar otra entrega.');
    expect(await es.locator('#timeline li').last().locator('.step').textContent()).toBe('Devuelto a la tienda');
    const en = await pageFor({ locale: 'en-GB' });
    await en.goto(`${t.url}${pathOf(url)}`);
    await en.locator('#tracking').waitFor({ state: 'visible' });
    expect(await en.locator('#status').textContent()).toBe('Your order went back to the shop');
    expect(await en.locator('#eta').textContent()).toBe('Your order was returned to Empanadas Doña Rosa. Contact them to arrange another delivery.');
  });

  it('hides the items when the merchant says so (tracking_show_items: false)', async () => {
    expectOk(await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { tracking_show_items: false } }));
    const page = await pageFor({ locale: 'es-CL' });
    await page.goto(`${t.url}${pathOf(tomorrow.tracking_url)}`);
    await page.locator('#tracking').waitFor({ state: 'visible' });
    expect(await page.locator('#shop-name').textContent()).toBe('Empanadas Doña Rosa');
    expect(await page.locator('#items').count()).toBe(0);
    expectOk(await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { tracking_show_items: true } }));
  });

  it('renders 404 as a page in the customer\'s language', async () => {
    const es = await pageFor({ locale: 'es-CL' });
    expect((await es.goto(`${t.url}/track/EXD-AAAA-BBBB-CCCC`))?.status()).toBe(404);
    expect(await es.locator('h1').textContent()).toBe('No encontramos tu envío');
    expect(await es.locator('main').innerText()).toContain('EXD-AAAA-BBBB-CCCC');
    expect(await seriousViolations(es)).toEqual([]);
    const en = await pageFor({ locale: 'en-US' });
    expect((await en.goto(`${t.url}/track/EXD-AAAA-BBBB-CCCC`))?.status()).toBe(404);
    expect(await en.locator('h1').textContent()).toBe('Delivery not found');
  });

  it('renders 429 as a page with the retry time, in both languages', async () => {
    const es = await pageFor({ locale: 'es-CL' });
    // Numbers typed by hand spend this address's budget (the page itself is one of them).
    for (let i = 0; i < PUBLIC_LIMIT; i++) await es.request.get(`${t.url}/api/v1/tracking/EXD-AAAA-BBBB-CCCC`);
    const response = await es.goto(`${t.url}/track/${tomorrow.tracking_number}`);
    expect(response?.status()).toBe(429);
    const retry = (await response!.allHeaders())['retry-after']!;
    expect(await es.locator('h1').textContent()).toBe('Demasiadas consultas');
    expect(await es.locator('main').innerText()).toContain(`Vuelve a intentarlo en ${retry} s.`);
    expect(await seriousViolations(es)).toEqual([]);
    const en = await es.goto(`${t.url}/track/${tomorrow.tracking_number}?lang=en`);
    expect(en?.status()).toBe(429);
    expect(await es.locator('h1').textContent()).toBe('Too many requests');
    expect(await es.locator('main').innerText()).toMatch(/Try again in \d+ s\./);
    // The capability link still works from the same address: its budget is the link's.
    await es.goto(`${t.url}${pathOf(tomorrow.tracking_url)}`);
    await live(es);
  });

  it('has no serious axe violations at 390×844 and 1280×800, and nothing wider than the phone', async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      for (const locale of ['es-CL', 'en-US']) {
        const page = await pageFor({ locale, viewport });
        await page.goto(`${t.url}${pathOf(tomorrow.tracking_url)}`);
        await live(page);
        expect(await seriousViolations(page), `${locale} ${viewport.width}`).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      }
    }
    expect(b.problems.filter((p) => !/status of 429|WebSocket/.test(p))).toEqual([]);
    expect(b.foreign.filter((url) => !url.includes('tile.openstreetmap.org'))).toEqual([]);
  }, 120_000);
});
