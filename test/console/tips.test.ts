import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { EVIDENCE, PLACES, courierOnDuty, expectOk, formA, merchantApi, north } from '../orders/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console tip');
const pesos = (n: number) => `$${n.toLocaleString('es-CL')}`;

/** Issue #30 item 4 in the console: the order page shows the tip, and the merchant adds to it after a confirmation. */
describe.skipIf(SKIP !== null)('console: the tip on the order page', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Pastelería Las Condes', address: 'Av. Providencia 1234, Providencia' });
    b = await openOfflinePage({ viewport: { width: 390, height: 844 }, locale: 'es-CL', timezoneId: 'America/Santiago' });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('on a phone (390 px) then at 1280 px: the tip shown, "Añadir propina" asks before adding, the live ledger charges it', async () => {
    const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 200) });
    const merchant = merchantApi(t, m.liveKey);
    const id = expectOk(await merchant.create(formA({ tip: 1000 })), 201).body.booking_id as string;
    expectOk(await courier.status(id, 'picked_up'));
    expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));

    const page = b.page;
    await acceptInvitation(page, await invitationLink(t, m.merchantId, 'sofia@pasteleria.cl', 'owner'));
    await page.locator('#mode-switch [data-mode=live]').click();
    await page.locator('#orders, #orders-empty').first().waitFor();
    await page.goto(`${t.url}/console/orders/${id}`);
    await page.locator('#order[data-status=completed]').waitFor();
    expect(await page.locator('#order-tip').textContent()).toBe(pesos(1000));
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    await page.getByLabel('Monto (CLP)').fill('2500');
    await page.getByRole('button', { name: 'Añadir propina' }).click();
    await page.locator('#add-tip[data-step=confirm]').waitFor();
    expect(await page.locator('#tip-question').textContent()).toBe(`¿Añadir ${pesos(2500)} de propina al pedido ${expectOk(await merchant.get(id)).body.order_number}?`);
    expect(await page.locator('#tip-charge').textContent()).toBe('Se cobra a tu cuenta.');
    expect(await seriousViolations(page)).toEqual([]);
    // Going back sends nothing.
    await page.locator('#tip-back').click();
    await page.locator('#add-tip[data-step=start]').waitFor();
    expect(expectOk(await merchant.get(id)).body.tip).toBe(1000);

    await page.locator('#tip-button').click();
    await page.locator('#tip-confirm').click();
    await expect.poll(() => page.locator('#order-tip').textContent(), { timeout: 20_000 }).toBe(pesos(3500));
    expect(await page.locator('#tip-added').textContent()).toBe(`Propina añadida: ahora es ${pesos(3500)}.`);
    expect(expectOk(await merchant.get(id)).body.tip).toBe(3500);
    const ledger = (await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'live' })).filter((e) => e.orderId === id && e.kind === 'tip');
    expect(ledger.map((e) => e.amount).sort()).toEqual([1000, 2500]);

    // 1280 px, English: the same facts; a second tip gets its own key (it is added, not replayed).
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator('#lang-switch').selectOption('en');
    await page.getByLabel('Amount (CLP)').fill('500');
    await page.getByRole('button', { name: 'Add tip' }).click();
    expect(await page.locator('#tip-charge').textContent()).toBe('It is charged to your account.');
    await page.locator('#tip-confirm').click();
    await expect.poll(() => page.locator('#order-tip').textContent(), { timeout: 20_000 }).toBe(pesos(4000));
    expect(expectOk(await merchant.get(id)).body.tip).toBe(4000);
    expect(await seriousViolations(page)).toEqual([]);
  }, 120_000);

  it('the new-order form takes a tip for the courier; the order page shows it', async () => {
    await b.page.setViewportSize({ width: 390, height: 844 });
    await b.page.goto(`${t.url}/console/orders/new`);
    await b.page.locator('#new-order').waitFor();
    await b.page.locator('input[name=dropoffKind][value=coords]').check();
    await b.page.locator('input[name=lat]').fill(String(PLACES.lasCondes.lat));
    await b.page.locator('input[name=lng]').fill(String(PLACES.lasCondes.lng));
    await b.page.locator('input[name=customer]').fill('Ignacio Soto');
    await b.page.locator('input[name=phone]').fill('+56912345678');
    // The page is still in English from the test above.
    await b.page.getByLabel('Tip for the courier (CLP, optional)').fill('1200');
    await b.page.locator('#create-order').click();
    await b.page.locator('#order[data-order-id]').waitFor({ timeout: 20_000 });
    const id = (await b.page.locator('#order').getAttribute('data-order-id'))!;
    expect(await b.page.locator('#order-tip').getAttribute('data-tip')).toBe('1200');
    expect(expectOk(await merchantApi(t, m.liveKey).get(id)).body.tip).toBe(1200);
    expectOk(await merchantApi(t, m.liveKey).cancel(id));
  }, 60_000);

  it('a cancelled order offers no tip', async () => {
    const id = expectOk(await merchantApi(t, m.liveKey).create(formA()), 201).body.booking_id as string;
    expectOk(await merchantApi(t, m.liveKey).cancel(id));
    await b.page.goto(`${t.url}/console/orders/${id}`);
    await b.page.locator('#order[data-status=cancelled]').waitFor();
    expect(await b.page.locator('#order-tip').textContent()).toBe(pesos(0));
    expect(await b.page.locator('#add-tip').count()).toBe(0);
  }, 60_000);
});
