/**
 * Issue #38 item 1, in without a terminal, in /ops (headless Chromium, es-CL, 390 and 1280 px): an
 * admin creates a merchant with its owner's invitation and a courier with its sign-in link; each
 * link shows with a QR code and ready SMS / WhatsApp / e-mail messages; a courier link is issued
 * again in one click (the previous one stops working).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations, startConsoleApp } from '../console/support.js';
import { PASSWORD } from '../operators/support.js';

const SKIP = browserSkipReason('the operators app /ops');

for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
  describe.skipIf(SKIP !== null)(`getting people in from /ops at ${viewport.width} px`, () => {
    let t: TestApp;
    let b: OfflinePage;
    const page = () => b.page;

    beforeAll(async () => {
      t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
      b = await openOfflinePage({ viewport, ...(viewport.width < 500 && { isMobile: true }) });
      b.page.setDefaultTimeout(30_000);
      const invitation = await t.app.container.services.auditedAdmin.as({ kind: 'cli' }).inviteOperator({ input: { email: 'ana@ops.cl', role: 'admin' } });
      const url = new URL(invitation.setPasswordUrl);
      await page().goto(`${t.url}${url.pathname}${url.hash}`);
      await page().getByLabel('Contraseña nueva').fill(PASSWORD);
      await page().getByLabel('Repite la contraseña').fill(PASSWORD);
      await page().locator('#set-password button[type=submit]').click();
      await page().waitForURL(/\/ops\/sign-in\?email=/);
      await page().getByLabel(/^Contraseña$/).fill(PASSWORD);
      await page().locator('#sign-in button[type=submit]').click();
      // Signing in lands on the home of "now"; merchants are created on their own page.
      await page().waitForURL((u) => !u.pathname.endsWith('/sign-in'));
      await page().goto(`${t.url}/ops/merchants`);
      await page().locator('#create-merchant').waitFor();
    }, 120_000);
    afterAll(async () => {
      await b?.browser.close();
      await t?.stop();
    });

    it("creates a merchant with its owner's invitation: link, QR code and an e-mail ready to send", async () => {
      await page().locator('#create-merchant input[name=name]').fill('Panadería La Espiga');
      await page().locator('#create-merchant input[name=email]').fill('duena@espiga.cl');
      await page().locator('#create-merchant button[type=submit]').click();
      const link = await page().locator('#owner-invitation-value').inputValue();
      expect(link).toMatch(new RegExp(`^${t.app.container.config.publicBaseUrl}/console/set-password#token=pt_`));
      expect(await page().locator('#owner-invitation-share svg.qr path').getAttribute('d')).toMatch(/^M\d/);
      const mail = await page().locator('#owner-invitation-email').getAttribute('href');
      expect(mail).toMatch(/^mailto:duena%40espiga\.cl\?subject=/);
      expect(decodeURIComponent(mail!)).toContain(link);
      const merchant = (await t.app.container.store.merchants.list({ limit: 10 })).find((m) => m.name === 'Panadería La Espiga');
      expect(merchant).toBeDefined();
      expect((await t.app.container.store.members.findByEmail({ merchantId: merchant!.id, email: 'duena@espiga.cl' }))?.role).toBe('owner');
      expect(await seriousViolations(page())).toEqual([]);
    });

    it('creates a courier with its sign-in link (QR, SMS, WhatsApp) and issues a new one in one click', async () => {
      await page().goto(`${t.url}/ops/couriers`);
      await page().locator('#create-courier input[name=name]').fill('Pedro Rojas');
      await page().locator('#create-courier input[name=phone]').fill('+56 9 8765 4321');
      await page().locator('#create-courier input[name=plate]').fill('KXLT21');
      await page().locator('#create-courier button[type=submit]').click();
      const first = await page().locator('#courier-secret-value').inputValue();
      expect(first).toMatch(new RegExp(`^${t.app.container.config.publicBaseUrl}/courier/welcome#code=`));
      expect(await page().locator('#courier-secret-share svg.qr').count()).toBe(1);
      expect(await page().locator('#courier-secret-sms').getAttribute('href')).toMatch(/^sms:\+56987654321\?body=/);
      expect(decodeURIComponent((await page().locator('#courier-secret-whatsapp').getAttribute('href'))!)).toContain(first);

      const courier = (await t.app.container.store.couriers.listByMode('live')).find((c) => c.name === 'Pedro Rojas')!;
      await page().locator(`#invite-${courier.id}`).click();
      await expect.poll(() => page().locator('#courier-secret-value').inputValue()).not.toBe(first);
      const second = await page().locator('#courier-secret-value').inputValue();
      expect(second).toMatch(/\/courier\/welcome#code=/);
      // The first link is spent: the courier signs in with the second only.
      const redeem = (url: string) => fetch(`${t.url}/api/v1/couriers/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: new URL(url).hash.replace('#code=', '') }) });
      expect((await redeem(first)).status).toBeGreaterThanOrEqual(400);
      expect((await redeem(second)).status).toBeLessThan(300);
      expect(await seriousViolations(page())).toEqual([]);
    });
  });
}
