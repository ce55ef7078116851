import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { acceptInvitation, invitationLink, startConsoleApp } from './support.js';

/** `npm run console:screenshots` (with the other screenshots*.test.ts): the console on a 390 px phone for the README, in docs/console/. */
const SKIP = process.env.SCREENSHOTS === '1' ? browserSkipReason('the console phone screenshots') : 'SCREENSHOTS=1 is not set';
const OUT = 'docs/console';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;

describe.skipIf(SKIP !== null)('console screenshots on a phone', () => {
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
    b = await openOfflinePage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'es-CL' });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('writes the board as cards, the open menu and a delivered order at 390 px', async () => {
    const page = b.page;
    await acceptInvitation(page, await invitationLink(t, m.merchantId, 'ana@cafe.cl', 'owner'));
    await page.waitForFunction(() => document.querySelectorAll('#orders tr[data-status=completed]').length === 3, undefined, { timeout: 60_000 });
    await page.screenshot({ path: `${OUT}/phone-orders-board.png` });

    await page.locator('#menu-toggle').click();
    await page.locator('#console-nav.open').waitFor();
    await page.screenshot({ path: `${OUT}/phone-menu.png` });

    await page.getByRole('navigation').getByRole('link', { name: 'Pedidos', exact: true }).click();
    await page.locator('#orders a').first().click();
    await page.locator('#order[data-status=completed]').waitFor();
    await page.screenshot({ path: `${OUT}/phone-order.png`, fullPage: true });
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  }, 120_000);
});
