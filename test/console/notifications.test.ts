import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the merchant console notifications page');

const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id trackingUrl } } ... on AppError { code message } } }`;
const SETTINGS = '{ notificationSettings { ... on QueryNotificationSettingsSuccess { data { channels moments } } } }';

describe.skipIf(SKIP !== null)('merchant console: notifications page in headless Chromium', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Librería Nueva' });
    b = await openOfflinePage({ viewport: { width: 390, height: 844 } });
    b.page.setDefaultTimeout(15_000);
  }, 60_000);
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });
  const page = () => b.page;

  it('the owner chooses SMS at creation; a test order’s message shows in the sandbox outbox, in Spanish with its tracking link', async () => {
    await acceptInvitation(page(), await invitationLink(t, m.merchantId, 'duena@libreria.cl', 'owner'));
    await page().goto(`${t.url}/console/notifications`);
    await page().locator('#notification-settings').waitFor();
    await page().locator('#outbox-empty').waitFor();
    expect(await page().locator('#notification-countries').textContent()).toBe('SMS y WhatsApp reales solo llegan a números de estos países (códigos); para agregar otro, escribe a soporte: +56');
    await page().locator('input[name="channel-sms"]').check();
    await page().locator('input[name="moment-created"]').check();
    await page().locator('#notification-settings-save').click();
    await page().locator('#notification-settings-saved', { hasText: 'Avisos guardados.' }).waitFor();
    expect((await gql(t.url, SETTINGS, { key: m.testKey })).body.data.notificationSettings.data).toStrictEqual({ channels: ['sms'], moments: ['created'] });

    const created = await gql(t.url, CREATE, { key: m.testKey, variables: { input: { dropoff: { coords: PLACES.nunoa }, customerName: 'Rosa Díaz', customerPhone: '+56911112222' } } });
    const order = created.body.data.createOrder.data as { id: string; trackingUrl: string };
    await page().locator('#outbox-refresh').click();
    const item = page().locator('#outbox li[data-status="sandboxed"]');
    await item.waitFor();
    const text = await item.textContent();
    expect(text).toContain('Prueba (no enviado)');
    expect(text).toContain('Pedido creado');
    expect(text).toContain(`Librería Nueva: recibimos tu pedido`);
    expect(text).toContain(order.trackingUrl);
    expect(await page().locator('#outbox-mode').textContent()).toContain('nunca se envían');

    // Nothing of this page reaches past the phone's viewport (every page: phone-layout.test.ts), and no
    // serious accessibility violation, on the phone and at the desktop size.
    const right = await page().evaluate(() => {
      const section = document.querySelector('section[aria-labelledby="notifications-title"]')!;
      return Math.max(...[section, ...section.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right));
    });
    expect(right).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page())).toEqual([]);
    await page().setViewportSize({ width: 1280, height: 800 });
    await page().locator('#outbox li').first().waitFor();
    expect(await seriousViolations(page())).toEqual([]);
  }, 120_000);

  it('a blocked message says why in Spanish (live: not sent; test: would not be sent), never the raw code', async () => {
    const input = { dropoff: { coords: PLACES.nunoa }, customerName: 'Número Extranjero', customerPhone: '+882161234567' };
    expect((await gql(t.url, CREATE, { key: m.testKey, variables: { input } })).body.data.createOrder.data).toBeTruthy();
    await page().goto(`${t.url}/console/notifications`);
    const wouldBlock = page().locator('#outbox li[data-status="sandboxed"] .block-reason[data-reason="country_not_allowed"]');
    await wouldBlock.waitFor();
    expect(await wouldBlock.textContent()).toBe('En modo real no se enviaría porque el número es de un país no habilitado para tu cuenta (solo Chile, salvo que soporte habilite otro).');

    expect((await gql(t.url, CREATE, { key: m.liveKey, variables: { input } })).body.data.createOrder.data).toBeTruthy();
    await page().locator('#mode-switch [data-mode=live]').click();
    const blocked = page().locator('#outbox li[data-status="blocked"]');
    await blocked.waitFor();
    const text = (await blocked.textContent()) ?? '';
    expect(text).toContain('Bloqueado (no enviado)');
    expect(text).toContain('No se envió porque el número es de un país no habilitado para tu cuenta');
    expect(text).not.toContain('country_not_allowed');
    expect(await seriousViolations(page())).toEqual([]);
  }, 120_000);
});
