import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { acceptInvitation, invitationLink, startConsoleApp } from './support.js';

/** `npm run console:screenshots`: PNGs of the main pages for the README, written to docs/console/. */
const SKIP = process.env.SCREENSHOTS === '1' ? browserSkipReason('the console screenshots') : 'SCREENSHOTS=1 is not set';
const OUT = 'docs/console';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;

describe.skipIf(SKIP !== null)('console screenshots', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    t = await startConsoleApp();
    m = await t.createMerchant({ name: 'Café Central', address: 'Av. Providencia 1234, Providencia' });
    const places = [PLACES.lasCondes, PLACES.nunoa, PLACES.santiago];
    for (const [i, name] of ['Ana Pérez', 'Rosa Díaz', 'Pedro Soto'].entries()) {
      await gql(t.url, CREATE, { key: m.testKey, variables: { input: { dropoff: { coords: places[i] }, customerName: name, customerPhone: '+56987654321' } } });
    }
    b = await openOfflinePage({ viewport: { width: 1200, height: 800 } });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('writes the sign-in, board, new order (quoted) and delivered order pages', async () => {
    const page = b.page;
    const link = await invitationLink(t, m.merchantId, 'ana@cafe.cl', 'owner');
    await page.goto(`${t.url}/console/sign-in`);
    await page.screenshot({ path: `${OUT}/sign-in.png` });
    await acceptInvitation(page, link);
    await page.waitForFunction(() => document.querySelectorAll('#orders tr[data-status=completed]').length === 3, undefined, { timeout: 60_000 });
    await page.screenshot({ path: `${OUT}/orders-board.png` });

    await page.getByRole('link', { name: 'Nuevo pedido' }).click();
    await page.getByLabel('Dirección de entrega').fill('Av. Apoquindo 3000, Las Condes');
    await page.getByLabel('Nombre del cliente').fill('Ana Pérez');
    await page.getByLabel('Teléfono del cliente').fill('+56987654321');
    await page.locator('#get-quote').click();
    await page.locator('#quote .leaflet-interactive').first().waitFor();
    await page.screenshot({ path: `${OUT}/new-order.png`, fullPage: true });

    await page.locator('#create-order').click();
    await page.waitForFunction(() => document.getElementById('order')?.dataset.status === 'completed', undefined, { timeout: 60_000 });
    await page.locator('#lang-switch').selectOption('en');
    await page.screenshot({ path: `${OUT}/order-delivered-en.png`, fullPage: true });
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  }, 120_000);
});
