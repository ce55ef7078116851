import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { formA, merchantApi } from '../orders/support.js';
import { toSantiagoInput } from '../../web/shared/ui/santiago-time.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console forms, mode addresses and new-order options');

/**
 * Issue #38 items 2, 3 and 8 in the console, on a phone (390 px) and a desktop (1280 px): a field's
 * refusal stands next to the field in Spanish, an order of the other mode offers the switch, and
 * the new-order form books what the API takes.
 */
describe.skipIf(SKIP !== null).each([390, 1280])('console at %i px: field errors, mode in the address, the full new-order form', (width) => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  const page = () => b.page;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Café Central', address: 'Av. Providencia 1234, Providencia' });
    b = await openOfflinePage({ viewport: { width, height: 900 }, locale: 'es-CL', timezoneId: 'America/Santiago' });
    page().setDefaultTimeout(15_000);
    await acceptInvitation(page(), await invitationLink(t, m.merchantId, `duena${width}@cafe.cl`, 'owner'));
  }, 60_000);
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('a live webhook to http:// is refused next to the URL field, in Spanish, with no code', async () => {
    await page().goto(`${t.url}/console/live/webhooks`);
    await page().locator('#endpoint-form').waitFor();
    expect(await page().locator('#mode-switch [data-mode=live]').getAttribute('aria-pressed')).toBe('true');
    await page().locator('#endpoint-form input[name=url]').fill('http://tienda.example.cl/hooks');
    await page().locator('#endpoint-submit').click();
    const reason = page().locator('#endpoint-url-error');
    await reason.waitFor();
    expect(await reason.textContent()).toBe('en modo real la URL debe empezar con https://');
    const url = page().locator('#endpoint-form input[name=url]');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect((await url.getAttribute('aria-describedby'))!.split(' ')).toContain('endpoint-url-error');
    const note = page().locator('#endpoints-section .error[role=alert]');
    expect(await note.textContent()).toBe('Revisa los datos marcados.');
    expect(await note.getAttribute('data-code')).toBe('VALIDATION_ERROR');
    expect(await page().locator('#endpoints-section').textContent()).not.toMatch(/VALIDATION_ERROR|https only|must use https/);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('a live order opened in test mode offers the switch; the switch opens it in live', async () => {
    const id = (await merchantApi(t, m.liveKey).create(formA())).body.booking_id as string;
    await page().locator('#mode-switch [data-mode=test]').click();
    await page().waitForURL(/\/console\/test\/webhooks$/);
    await page().goto(`${t.url}/console/test/orders/${id}`);
    await page().locator('#other-mode').waitFor();
    expect(await page().locator('#other-mode').textContent()).toContain('Este pedido es del modo real');
    expect(await seriousViolations(page())).toEqual([]);
    await page().locator('#switch-mode').click();
    await page().waitForURL(new RegExp(`/console/live/orders/${id}$`));
    await page().locator(`#order[data-order-id="${id}"]`).waitFor();
    expect(await page().locator('#mode-switch [data-mode=live]').getAttribute('aria-pressed')).toBe('true');
    // An old address without a mode opens in the browser's last mode (now live): the same order.
    await page().goto(`${t.url}/console/orders/${id}`);
    await page().waitForURL(new RegExp(`/console/live/orders/${id}$`));
    await page().locator(`#order[data-order-id="${id}"]`).waitFor();
  });

  it('the new-order form books email, PIN, unit, directions, size, time window, policy and tip', async () => {
    await page().goto(`${t.url}/console/test/orders/new`);
    await page().getByLabel('Dirección de entrega').fill('Av. Apoquindo 3000, Las Condes');
    await page().locator('#unit').fill('Depto. 1204');
    await page().locator('#instructions').fill('Torre B, conserjería');
    await page().getByLabel('Nombre del cliente').fill('Ana Pérez');
    await page().getByLabel('Teléfono del cliente').fill('+56987654321');
    await page().locator('#customer-email').fill('ana.perez@example.cl');
    await page().locator('#length-cm').fill('40');
    await page().locator('#width-cm').fill('30');
    await page().locator('#height-cm').fill('20');
    const hour = 3_600_000;
    const start = Math.ceil((Date.now() + 2 * hour) / 60_000) * 60_000;
    await page().locator('#pickup-after').fill(toSantiagoInput(start));
    await page().locator('#deliver-before').fill(toSantiagoInput(start + 3 * hour));
    await page().locator('#failed-attempt-policy').selectOption('retry');
    await page().locator('#delivery-pin').check();
    await page().getByLabel('Propina para el repartidor (CLP, opcional)').fill('1500');
    expect(await page().evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page())).toEqual([]);
    await page().locator('#create-order').click();
    await page().waitForURL(/\/console\/test\/orders\/[^/]+$/);
    const id = (await page().locator('#order').getAttribute('data-order-id'))!;

    const order = (await merchantApi(t, m.testKey).get(id)).body;
    expect(order).toMatchObject({
      dropoff: { number: 'Depto. 1204', instructions: 'Torre B, conserjería' },
      dimensions: { length_cm: 40, width_cm: 30, height_cm: 20 },
      failed_attempt_policy: 'retry',
      tip: 1500,
      deliver_before: new Date(start + 3 * hour).toISOString(),
    });
    expect(order.delivery_pin).toMatch(/^\d{4}$/);
    expect(Date.parse(order.scheduled_pickup_at)).toBe(start);
    const stored = await t.app.container.store.orders.findById(id);
    expect(stored?.customer.email).toBe('ana.perez@example.cl');
  });

  it("a refused field of the order form stands next to it: a delivery deadline in the past", async () => {
    await page().goto(`${t.url}/console/test/orders/new`);
    await page().getByLabel('Dirección de entrega').fill('Av. Apoquindo 3000, Las Condes');
    await page().getByLabel('Nombre del cliente').fill('Ana Pérez');
    await page().getByLabel('Teléfono del cliente').fill('+56987654321');
    await page().locator('#deliver-before').fill(toSantiagoInput(Date.now() - 3_600_000));
    await page().locator('#create-order').click();
    const reason = page().locator('#new-order-deliverBefore-error');
    await reason.waitFor();
    expect(await reason.textContent()).toBe('la hora límite de entrega ya pasó');
    expect(await page().locator('#deliver-before').getAttribute('aria-invalid')).toBe('true');
    expect(await page().locator('#new-order .error[role=alert]').textContent()).toBe('No se alcanza a entregar en ese horario.');
  });
});
