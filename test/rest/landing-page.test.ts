import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';

const SKIP = browserSkipReason('the landing page browser test');

describe('the landing page at /', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '3' } });
  });
  afterAll(() => t?.stop());

  it('names the service and its version, links the console, the reference, GraphiQL and health, and draws from the anonymous budget', async () => {
    const health = await api(`${t.url}/api/v1/health`);
    const res = await fetch(`${t.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('ratelimit-remaining')).toBe('1');
    const html = await res.text();
    expect(html).toContain(`<span id="version">${health.body.version}</span>`);
    for (const href of ['/console', '/api/v1/docs', '/graphql', '/api/v1/health', '/api/v1/openapi.json']) expect(html).toContain(`href="${href}"`);
    expect(html).toContain('<form id="track-form" action="/track" method="get">');

    const last = await fetch(`${t.url}/`);
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
    await last.arrayBuffer();
    const spent = await fetch(`${t.url}/`);
    expect(spent.status).toBe(429);
    expect((await spent.json()).error.code).toBe('RATE_LIMITED');
  });

  it('GET /track?reference=… goes to that reference\'s page; without one, back to /', async () => {
    const to = await fetch(`${t.url}/track?reference=%20EXD-AAAA-BBBB-CCCC%20`, { redirect: 'manual' });
    expect(to.status).toBe(303);
    expect(to.headers.get('location')).toBe('/track/EXD-AAAA-BBBB-CCCC');
    const back = await fetch(`${t.url}/track`, { redirect: 'manual' });
    expect(back.headers.get('location')).toBe('/');
  });
});

describe('the landing page: language and apps (issue #38)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '100000' } });
  });
  afterAll(() => t?.stop());

  it("speaks the visitor's language (es-CL first, English by Accept-Language or ?lang=) and links all four apps", async () => {
    const spanish = await (await fetch(`${t.url}/`, { headers: { 'accept-language': 'es-CL,es;q=0.9' } })).text();
    expect(spanish).toContain('<html lang="es-CL">');
    expect(spanish).toContain('Sigue un envío');
    for (const href of ['/console', '/ops', '/courier', '#track-form']) expect(spanish).toContain(`href="${href}"`);
    const english = await fetch(`${t.url}/`, { headers: { 'accept-language': 'en-US,en;q=0.9,es;q=0.5' } });
    expect(english.headers.get('vary')).toMatch(/Accept-Language/i);
    const englishHtml = await english.text();
    expect(englishHtml).toContain('<html lang="en">');
    expect(englishHtml).toContain('Track a delivery');
    expect(englishHtml).toContain('href="/ops"');
    expect(await (await fetch(`${t.url}/?lang=en`, { headers: { 'accept-language': 'es' } })).text()).toContain('<html lang="en">');
    // No preference named: Spanish.
    expect(await (await fetch(`${t.url}/`)).text()).toContain('<html lang="es-CL">');
  });

});

describe.skipIf(SKIP !== null)('the landing page in headless Chromium, offline', () => {
  let t: TestApp;
  let b: OfflinePage;
  beforeAll(async () => {
    // No street tiles offline: the tracking page the form leads to draws its schematic map.
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_PER_MIN: '100000', MAP_TILE_URL: 'none' } });
    b = await openOfflinePage({ viewport: { width: 390, height: 844 }, isMobile: true });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('looks a tracking number up through its form', async () => {
    const m = await t.createMerchant();
    const order = await api(`${t.url}/api/v1/orders`, {
      key: m.testKey,
      headers: { 'idempotency-key': 'landing-1' },
      body: { dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid' },
    });
    expect(order.status).toBe(201);
    await b.page.goto(`${t.url}/`);
    expect(await b.page.locator('h1').textContent()).toBe('Express Delivery');
    expect(await b.page.evaluate(() => getComputedStyle(document.querySelector('header')!).backgroundColor)).toBe('rgb(15, 118, 110)');
    await b.page.locator('input[name=reference]').fill(order.body.tracking_number);
    await Promise.all([b.page.waitForURL(`**/track/${order.body.tracking_number}`), b.page.locator('#track-form button').click()]);
    await b.page.locator('#tracking').waitFor({ state: 'visible' });
    expect(await b.page.locator('#tracking-number').textContent()).toBe(order.body.tracking_number);
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
