import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { jpegSize } from '../courier/support.js';
import { PLACES, courierOnDuty, expectOk, formA, merchantApi, north } from '../orders/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console order page failed attempts');
const PHOTO = readFileSync(new URL('../fixtures/courier-photo.jpg', import.meta.url));

/**
 * Issue #30 item 2: the merchant's order page shows a failed attempt (its reason in the console's
 * language), the policy, the return fee and the proof of the return at the pickup.
 */
describe.skipIf(SKIP !== null)('console: the order page shows the failed attempt and the return', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let orderId: string;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Empanadas Doña Rosa', address: 'Av. Providencia 1234, Providencia' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 }, locale: 'es-CL', timezoneId: 'America/Santiago' });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('a sandbox run fails the delivery (nobody home) and returns the parcel', async () => {
    const run = expectOk(await api(`${t.url}/api/v1/sandbox/runs`, {
      key: m.testKey, body: { scenario: 'failed_attempt_then_return', seed: 'console-order', start_time: new Date().toISOString(), order: formA() },
    }), 201).body.run as { booking_id: string; status: string };
    expect(run.status).toBe('returned');
    orderId = run.booking_id;
  });

  it('lists the attempt in Spanish, the policy, the fee and the return proof; in English on switching', async () => {
    const details = expectOk(await api(`${t.url}/api/v1/orders/${orderId}`, { key: m.testKey })).body as { return_fee: number; return_proof: { geofence: string } };
    await acceptInvitation(b.page, await invitationLink(t, m.merchantId, 'rosa@empanadas.cl', 'owner'));
    await b.page.locator('#mode-switch [data-mode=test]').click();
    await b.page.goto(`${t.url}/console/orders/${orderId}`);
    await b.page.locator('#order[data-status=returned]').waitFor();
    expect(await b.page.locator('#order-status').textContent()).toBe('Devuelto');
    const attempts = b.page.locator('#failed-attempt-list li');
    expect(await attempts.count()).toBe(1);
    expect(await attempts.first().getAttribute('data-reason')).toBe('recipient_absent');
    expect(await attempts.first().locator('.reason').textContent()).toBe('no había nadie');
    expect(await attempts.first().textContent()).toContain('luego En devolución');
    expect(await b.page.locator('#failed-policy').textContent()).toBe('devolver a la tienda');
    expect(await b.page.locator('#return-fee').textContent()).toBe(`$${details.return_fee.toLocaleString('es-CL')}`);
    expect(await b.page.locator('#return-geofence').getAttribute('data-geofence')).toBe(details.return_proof.geofence);
    for (const id of ['#return-photo', '#return-signature']) expect(await b.page.locator(id).count()).toBe(1);
    expect(await b.page.locator('#return-photo figcaption').textContent()).toBe('Foto');
    expect(await seriousViolations(b.page)).toEqual([]);

    await b.page.locator('#lang-switch').selectOption('en');
    await expect.poll(() => b.page.locator('#failed-attempt-list li .reason').textContent()).toBe('nobody was there');
    expect(await b.page.locator('#failed-policy').textContent()).toBe('return to the shop');
    expect(await b.page.locator('#return-photo figcaption').textContent()).toBe('Photo');
  });

  it('live: the photos a courier uploaded for the attempt and the return show as images, loaded through their signed links', async () => {
    const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 200) });
    const id = (expectOk(await merchantApi(t, m.liveKey).create(formA()), 201).body as { booking_id: string }).booking_id;
    const call = (path: string, body: unknown) => api(`${t.url}/api/v1/couriers/me/orders/${id}${path}`, { key: courier.token, body });
    const upload = async (kind: string) => {
      const res = await fetch(`${t.url}/api/v1/couriers/me/orders/${id}/proof?kind=${kind}`, { method: 'POST', headers: { authorization: `Bearer ${courier.token}`, 'content-type': 'image/jpeg' }, body: new Uint8Array(PHOTO) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { proof_id: string }).proof_id;
    };
    expectOk(await courier.status(id, 'picked_up'));
    expectOk(await call('/failed-attempt', { reason: 'unsafe', note: 'Perro suelto', photo_proof_id: await upload('photo'), coords: PLACES.lasCondes }));
    expectOk(await call('/return', { coords: PLACES.providencia, photo_proof_id: await upload('photo'), signature_proof_id: await upload('signature') }));

    await b.page.locator('#lang-switch').selectOption('es');
    await b.page.locator('#mode-switch [data-mode=live]').click();
    await b.page.goto(`${t.url}/console/orders/${id}`);
    await b.page.locator('#order[data-status=returned]').waitFor();
    expect(await b.page.locator('#failed-attempt-list li .reason').textContent()).toBe('lugar inseguro');
    expect(await b.page.locator('#failed-attempt-list li').textContent()).toContain('“Perro suelto”');
    expect(await b.page.locator('#return-geofence').textContent()).toBe('verificada · 0 m');
    for (const img of ['#failed-photo-1 img', '#return-photo img', '#return-signature img']) {
      expect(await b.page.locator(img).getAttribute('src')).toMatch(/^\/api\/v1\/proofs\/pf_[0-9A-Z]+\?expires=\d+&sig=/);
      await expect.poll(() => b.page.locator(img).evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 15_000 }).toBe(Math.min(1600, jpegSize(PHOTO).width));
    }
    expect(await seriousViolations(b.page)).toEqual([]);
  });

  it('asked no other host and logged no console error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
