import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { openTab, replaceLine2Value, textOf } from './graphiql-support.js';

/** `SCREENSHOTS=1 npx vitest run test/graphql/graphiql-screenshot.test.ts`: the README's GraphiQL subscribed to orderStatusChanged with a test key, in docs/graphql/. */
const SKIP = process.env.SCREENSHOTS === '1' ? browserSkipReason('the GraphiQL screenshot') : 'SCREENSHOTS=1 is not set';
const OUT = 'docs/graphql';
// The sandbox fleet never drives on its own (a tick far away): the test's steps move the order.
const ENV = { PUBLIC_RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_PER_MIN: '100000', SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: '60000', SANDBOX_COURIERS_PER_VEHICLE: '1' };

describe.skipIf(SKIP !== null)('GraphiQL screenshot', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    t = await startTestApp({ env: ENV });
    m = await t.createMerchant({ name: 'Café Central' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 800 } });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('writes the OrderStatus tab subscribed with a test key from the key bar, after a status change', async () => {
    const page = b.page;
    const created = await api(`${t.url}/api/v1/orders`, {
      key: m.testKey,
      headers: { 'idempotency-key': 'graphiql-screenshot' },
      body: { dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid' },
    });
    expect(created.status).toBe(201);
    const tracking = created.body.tracking_number as string;
    await page.goto(`${t.url}/graphql`);
    await page.locator('.graphiql-tab').first().waitFor({ timeout: 60_000 });
    await page.getByLabel('API key').fill(m.testKey);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await expect.poll(() => page.locator('#key-state').innerText()).toContain(m.testKey.slice(0, 12));
    await openTab(page, 'OrderStatus');
    await page.getByRole('button', { name: 'Variables' }).click();
    await replaceLine2Value(page, tracking, { select: 'EXD-…'.length });
    await page.locator('.graphiql-execute-button').click();
    // Sandbox steps until a change reaches the response pane (GraphiQL shows the latest; the first step may precede the socket).
    const step = () => api(`${t.url}/api/v1/sandbox/orders/${created.body.booking_id}/advance`, { key: m.testKey, method: 'POST' });
    await expect
      .poll(async () => {
        await step();
        return (await textOf(page, '.graphiql-response')).match(/"status": "/g)?.length ?? 0;
      }, { timeout: 20_000, interval: 1000 })
      .toBeGreaterThanOrEqual(1);
    expect(await textOf(page, '.graphiql-response')).toContain(`"trackingNumber": "${tracking}"`);
    await page.screenshot({ path: `${OUT}/graphiql-order-status.png` });
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  }, 120_000);
});
