import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { openTab, replaceLine2Value, textOf } from './graphiql-support.js';

const SKIP = browserSkipReason('the GraphiQL browser test');
// A sandbox fleet that never drives on its own (a tick far away): the test's steps move the order.
const ENV = { PUBLIC_RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_PER_MIN: '100000', SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: '60000', SANDBOX_COURIERS_PER_VEHICLE: '1' };

describe.skipIf(SKIP !== null)('GraphiQL at /graphql, offline in headless Chromium', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    m = await t.createMerchant({ name: 'GraphiQL Shop' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 800 } });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('renders from this server alone, with the example tabs and a key bar', async () => {
    const response = await b.page.goto(`${t.url}/graphql`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await b.page.locator('.graphiql-tab').first().waitFor({ timeout: 60_000 });
    expect((await b.page.locator('.graphiql-tab').allInnerTexts()).map((s) => s.trim())).toEqual(['Quote', 'CreateOrder', 'Order', 'Tracking', 'OrderStatus']);
    expect(await b.page.locator('#key-state').innerText()).toContain('No key');
  });

  it('runs the quote example once the key is entered in the key bar (no header to paste)', async () => {
    await b.page.getByLabel('API key').fill(m.testKey);
    await b.page.getByRole('button', { name: 'Use this key' }).click();
    await expect.poll(() => b.page.locator('#key-state').innerText()).toContain(m.testKey.slice(0, 12));
    const answer = b.page.waitForResponse((r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('query Quote'));
    await b.page.locator('.graphiql-execute-button').click();
    const body = (await (await answer).json()) as { data: { quote: { data: { price: number; currency: string; rates: unknown[] } } } };
    expect(body.data.quote.data.price).toBeGreaterThan(0);
    expect(body.data.quote.data.currency).toBe('CLP');
    await expect.poll(() => textOf(b.page, '.graphiql-response')).toContain('"cost": ');
  });

  /**
   * Creates a test order, opens the subscription example `tab` with the order's tracking number as
   * its variable, runs it, and steps the order in the sandbox until the response pane shows `expected`.
   */
  async function subscribeFromTab(tab: string, expected: (tracking: string) => string | RegExp) {
    const created = await api(`${t.url}/api/v1/orders`, {
      key: m.testKey,
      headers: { 'idempotency-key': `graphiql-${tab}` },
      body: { dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid' },
    });
    expect(created.status).toBe(201);
    const tracking = created.body.tracking_number as string;
    await openTab(b.page, tab);
    await b.page.getByRole('button', { name: 'Variables' }).click();
    await replaceLine2Value(b.page, tracking, { select: 'EXD-…'.length });
    await b.page.locator('.graphiql-execute-button').click();
    // The subscription is open once its socket is: sandbox steps until one reaches the page.
    const step = () => api(`${t.url}/api/v1/sandbox/orders/${created.body.booking_id}/advance`, { key: m.testKey, method: 'POST' });
    const poll = expect.poll(async () => (await step()) && textOf(b.page, '.graphiql-response'), { timeout: 20_000, interval: 1000 });
    const wanted = expected(tracking);
    await (typeof wanted === 'string' ? poll.toContain(wanted) : poll.toMatch(wanted));
  }

  it('runs the tracking subscription over graphql-ws from its tab', async () => {
    await subscribeFromTab('Tracking', (tracking) => `"reference": "${tracking}"`);
  });

  it('subscribes to orderStatusChanged with the key from the bar (connection_init) and sees a status change', async () => {
    await subscribeFromTab('OrderStatus', (tracking) => new RegExp(`"trackingNumber": "${tracking}".*"status": "`));
    expect(await textOf(b.page, '.graphiql-response')).not.toContain('INVALID_API_KEY');
  });

  it('at 390 px the key bar fits the screen: its field, button and state are visible and usable', async () => {
    await b.page.setViewportSize({ width: 390, height: 844 });
    await b.page.evaluate(() => sessionStorage.clear());
    await b.page.goto(`${t.url}/graphql`);
    await b.page.locator('.graphiql-tab').first().waitFor({ timeout: 60_000 });
    expect(await b.page.locator('#key-state').innerText()).toContain('No key');
    const field = b.page.getByLabel('API key');
    const use = b.page.getByRole('button', { name: 'Use this key' });
    for (const part of [field, use, b.page.locator('#key-state')]) {
      await expect.poll(() => part.isVisible()).toBe(true);
      const box = (await part.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await field.fill(m.testKey);
    await use.click();
    await expect.poll(() => b.page.locator('#key-state').innerText()).toContain(m.testKey.slice(0, 12));
  });

  it('asked nothing of another host and hit no script or CSP error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
