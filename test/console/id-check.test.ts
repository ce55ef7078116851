import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { EVIDENCE, PLACES, courierOnDuty, expectOk, merchantApi, north } from '../orders/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console ID check');

/** Issue #30 item 7 in the console: the merchant asks for an ID check on a new order and sees it verified. */
describe.skipIf(SKIP !== null)('console: the ID check at the door', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Botillería Central', address: 'Av. Providencia 1234, Providencia' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 }, locale: 'es-CL', timezoneId: 'America/Santiago' });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('the new-order form asks for it with a minimum age; the order page shows it asked, then verified without the full RUT', async () => {
    const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 200) });
    const page = b.page;
    await acceptInvitation(page, await invitationLink(t, m.merchantId, 'ana@botilleria.cl', 'owner'));
    await page.locator('#mode-switch [data-mode=live]').click();
    await page.locator('#orders, #orders-empty').first().waitFor();
    await page.goto(`${t.url}/console/orders/new`);
    await page.locator('#new-order').waitFor();
    await page.locator('input[name=dropoffKind][value=coords]').check();
    await page.locator('input[name=lat]').fill(String(PLACES.lasCondes.lat));
    await page.locator('input[name=lng]').fill(String(PLACES.lasCondes.lng));
    await page.locator('input[name=customer]').fill('Camila Rojas');
    await page.locator('input[name=phone]').fill('+56912345678');
    expect(await page.locator('#id-check-min-age').count()).toBe(0);
    await page.getByLabel('Verificar identidad al entregar (RUT y edad)').check();
    await page.getByLabel('Edad mínima').fill('21');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('#create-order').click();

    await page.locator('#order[data-order-id]').waitFor({ timeout: 20_000 });
    const id = (await page.locator('#order').getAttribute('data-order-id'))!;
    expect(await page.locator('#id-check-required').textContent()).toBe('21+');
    const merchant = merchantApi(t, m.liveKey);
    expect(expectOk(await merchant.get(id)).body).toMatchObject({ status: 'assigned', id_check: { required: true, min_age: 21 } });

    for (const status of ['picked_up', 'arrived_dropoff']) expectOk(await courier.status(id, status));
    const idCheck = { document_number: '15.432.987-0', date_of_birth: '1990-05-04' };
    expectOk(await courier.deliver(id, { driver_id: courier.id, coords: north(PLACES.lasCondes, 5), ...EVIDENCE, id_check: idCheck }));
    // The page follows the status change and shows what the courier checked.
    await page.locator('#order[data-status=completed]').waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator('#id-check-verified').textContent(), { timeout: 20_000 }).toMatch(/^21\+ · RUT …9870 · /);
    expect(await page.locator('#order').textContent()).not.toMatch(/15\.?432\.?98/);
  }, 120_000);
});
