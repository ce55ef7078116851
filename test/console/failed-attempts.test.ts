import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { expectOk, formA } from '../orders/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console order page failed attempts');

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
    t = await startConsoleApp();
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

  it('asked no other host and logged no console error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
