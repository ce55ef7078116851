import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations, startConsoleApp } from '../console/support.js';
import { gqlOps, PASSWORD, signedInOperator } from '../operators/support.js';

const SKIP = browserSkipReason('the operators app /ops');

const INVITE_URL = (t: TestApp, url: string) => `${t.url}${new URL(url).pathname}${new URL(url).hash}`;

describe.skipIf(SKIP !== null)('the ops app: an invited admin moderates a plugin and disables a courier; support only reads (headless Chromium)', { timeout: 180_000 }, () => {
  let t: TestApp;
  let b: OfflinePage;
  let merchantId: string;
  let courierId: string;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    merchantId = (await t.createMerchant({ name: 'Ferretería Los Andes', approveIntegrations: false })).merchantId;
    // The plugin called from one shop: what the admin reads before approving it.
    await t.app.container.store.telemetry.record({
      merchantId, mode: 'live', integration: 'plugin', site: 'https://ferreteria-andes.cl', pluginVersion: '2.3.1', userAgent: 'WordPress/6.5', at: new Date().toISOString(),
    });
    // An endpoint failing for hours: on the merchant's page and the list of failing webhooks.
    await t.app.container.store.webhooks.insertEndpoint({
      id: 'we_01JFAILINGENDPOINT00000000', merchantId, mode: 'live', url: 'https://ferreteria-andes.cl/wp-json/express/webhook', description: null,
      events: ['order.status_changed'], payloadShape: 'event', signing: 'symmetric', enabled: true, disabledReason: null,
      failingSince: new Date(Date.now() - 5 * 3600_000).toISOString(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(),
    });
    const cli = t.app.container.services.auditedAdmin.as({ kind: 'cli' });
    courierId = (await cli.createCourier({ input: { name: 'Pedro Rojas', phone: '+56987654321', vehicle: 'motorcycle', plate: 'KXLT21', mode: 'live' } })).courierId;
    await t.app.container.store.couriers.setLocations([{ id: courierId, location: { lat: -33.4372, lng: -70.6506 }, at: new Date().toISOString(), prompt: true }]);
    b = await openOfflinePage({ viewport: { width: 1280, height: 800 } });
    b.page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });
  const page = () => b.page;
  /** No horizontal scroll, and no element (but leaflet's clipped panes) past the viewport's right edge. */
  const noHorizontalScroll = () => page().evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')].filter((el) => {
      if (el.closest('.leaflet-container > *')) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && box.right > width + 0.5;
    });
    return document.documentElement.scrollWidth <= width && wide.length === 0 ? true : wide.slice(0, 5).map((el) => `${el.tagName}${el.id ? `#${el.id}` : ''}.${el.className}`).join(' ');
  });

  it('an operator invited from the CLI sets a password from the link, signs in and sees its role', async () => {
    const invitation = await t.app.container.services.auditedAdmin.as({ kind: 'cli' }).inviteOperator({ input: { email: 'ana@ops.cl', role: 'admin' } });
    expect(invitation.setPasswordUrl).toMatch(/\/ops\/set-password#token=pt_/);
    await page().goto(INVITE_URL(t, invitation.setPasswordUrl));
    await page().getByLabel('Contraseña nueva').fill(PASSWORD);
    await page().getByLabel('Repite la contraseña').fill(PASSWORD);
    await page().locator('#set-password button[type=submit]').click();
    await page().waitForURL(/\/ops\/sign-in\?email=/);
    expect(page().url()).not.toContain('token');
    await page().getByLabel(/^Contraseña$/).fill(PASSWORD);
    await page().locator('#sign-in button[type=submit]').click();
    // The home is what is happening now (issue #38); the merchants are one link away.
    await page().locator('#now-counts').waitFor();
    expect(await seriousViolations(page())).toEqual([]);
    await page().getByRole('link', { name: 'Comercios' }).click();
    await page().locator('#merchants').waitFor();
    expect(await page().locator('#operator-role').getAttribute('data-role')).toBe('admin');
    expect(await page().locator('#operator-role').textContent()).toBe('administrador');
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('finds the merchant, reads its plugin telemetry and approves the plugin', async () => {
    await page().locator('#merchant-search').fill('ferretería l');
    await page().locator(`tr[data-merchant="${merchantId}"] a`).click();
    await page().locator('#integration-plugin table').waitFor();
    const telemetry = await page().locator('#integration-plugin table').textContent();
    expect(telemetry).toContain('https://ferreteria-andes.cl');
    expect(telemetry).toContain('2.3.1');
    expect(await page().locator('#failing-webhooks tr[data-endpoint="we_01JFAILINGENDPOINT00000000"]').textContent()).toContain('https://ferreteria-andes.cl/wp-json/express/webhook');
    expect(await page().locator('#integration-plugin-status').getAttribute('data-status')).toBe('pending_approval');
    await page().locator('#integration-plugin-approve').click();
    await page().locator('#integration-plugin-status[data-status="approved"]').waitFor();
    const merchant = await t.app.container.store.merchants.findById(merchantId);
    expect(merchant!.integrations.plugin).toBe('approved');
    // Notification countries: Chile alone until the operator approves another.
    expect(await page().locator('#notification-countries input[name=countries]').inputValue()).toBe('56');
    await page().locator('#notification-countries input[name=countries]').fill('56, +54');
    await page().locator('#notification-countries button[type=submit]').click();
    await page().locator('#history li', { hasText: 'merchant.set_notification_countries' }).or(page().locator('#notification-countries input[value="54, 56"]')).first().waitFor();
    await expect.poll(async () => (await t.app.container.store.merchants.findById(merchantId))!.settings.notificationCountries).toStrictEqual(['54', '56']);
    expect(await seriousViolations(page())).toEqual([]);
    await page().getByRole('link', { name: 'Webhooks con fallas' }).click();
    const row = page().locator('#failing-webhooks tr[data-endpoint="we_01JFAILINGENDPOINT00000000"]');
    expect(await row.textContent()).toContain('Ferretería Los Andes');
    expect(await row.textContent()).toContain('Fallando');
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('records a courier\'s cash hand-over and rejects a claim far above its order\'s amount (issue #39)', async () => {
    const claim = (id: string, amount: number, expected: number, codState?: 'pending_confirmation') => t.app.container.store.ledger.append({
      id, merchantId, mode: 'live', orderId: `bk_${id}`, kind: 'cod_collected', amount, expected, courierId, at: new Date().toISOString(), ...(codState && { codState }),
    });
    await claim('led_OPSCLAIM1', 15_000, 15_000);
    await claim('led_OPSCLAIM2', 10_000_000, 15_000, 'pending_confirmation');
    await page().getByRole('link', { name: 'Repartidores' }).click();
    await page().locator(`#cash-${courierId}`).waitFor();
    expect(await page().locator(`#cash-${courierId}`).textContent()).toMatch(/^Efectivo en mano: \$\s?15\.000$/);
    expect(await page().locator('#cod-claims tr[data-claim="led_OPSCLAIM2"]').textContent()).toContain('10.000.000');
    await page().locator(`#hand-over-${courierId} input[name=amount]`).fill('15000');
    await page().locator(`#hand-over-submit-${courierId}`).click();
    await page().locator(`#cash-${courierId}`, { hasText: /\$\s?0$/ }).waitFor();
    const lines = (await t.app.container.store.ledger.listByMerchant({ merchantId, mode: 'live' })).filter((e) => e.kind === 'cod_handover');
    expect(lines.map((e) => [e.orderId, e.amount])).toEqual([['bk_led_OPSCLAIM1', 15_000]]);
    await page().locator('#reject-led_OPSCLAIM2').click();
    await page().locator('#reject-led_OPSCLAIM2-confirm').click();
    await page().locator('#cod-claims').waitFor({ state: 'detached' });
    expect((await t.app.container.store.ledger.findById('led_OPSCLAIM2'))?.codState).toBe('rejected');
    expect(await noHorizontalScroll()).toBe(true);
  });

  it('disables a courier from the couriers page (after confirming)', async () => {
    await page().getByRole('link', { name: 'Repartidores' }).click();
    const row = page().locator(`tr[data-courier="${courierId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('Pedro Rojas');
    expect(await row.textContent()).toContain('-33.43720, -70.65060');
    // Cash on delivery (issue #30): the cash it holds, none yet.
    expect(await page().locator(`#cash-${courierId}`).textContent()).toMatch(/^Efectivo en mano: \$\s?0$/);
    // The page's couriers' last positions on the map: one marker for the one courier with a position.
    await page().locator('.map-canvas[data-courier="-33.4372,-70.6506"]').waitFor();
    expect(await page().locator('.map-canvas path.leaflet-interactive').count()).toBe(1);
    await page().locator(`#disable-${courierId}`).click();
    await page().locator(`#disable-${courierId}-confirm`).click();
    await page().locator(`#account-${courierId}[data-status="disabled"]`).waitFor();
    expect((await t.app.container.store.couriers.findById(courierId))!.accountStatus).toBe('disabled');
    // The courier's history (its disabling) and a note on it.
    await page().locator(`#history-${courierId}`).click();
    await page().locator('#history li[data-action="courier.disable"]').waitFor();
    await page().locator('#note-form textarea').fill('Se deshabilitó por licencia vencida.');
    await page().locator('#note-form button[type=submit]').click();
    await page().locator('#history li[data-action="note.add"]', { hasText: 'licencia vencida' }).waitFor();
    // A fresh sign-in link for another courier, shown once.
    const other = (await t.app.container.services.auditedAdmin.as({ kind: 'cli' }).createCourier({ input: { name: 'Luz Soto', phone: '+56911112222', vehicle: 'bike', plate: 'BIKE01', mode: 'test' } })).courierId;
    await page().reload();
    await page().locator(`#invite-${other}`).click();
    expect(await page().locator('#courier-secret-value').inputValue()).toMatch(/\/courier\/welcome#code=/);
  });

  it('finds both actions in the audit log, filtered by action, with the operator as actor', async () => {
    await page().getByRole('link', { name: 'Auditoría' }).click();
    await page().locator('#audit').waitFor();
    await page().locator(`#audit tr[data-action="courier.disable"][data-target="${courierId}"]`).waitFor();
    await page().locator(`#audit tr[data-action="integration.set_status"][data-target="${merchantId}"]`).waitFor();
    await page().getByLabel('Acción').fill('courier.disable');
    await page().locator('#audit-filters button[type=submit]').click();
    await page().waitForFunction(() => [...document.querySelectorAll('#audit tbody tr')].every((r) => r.getAttribute('data-action') === 'courier.disable'));
    expect(await page().locator('#audit tbody tr').first().textContent()).toContain('ana@ops.cl');
  });

  it('pages the audit log 50 at a time, and a time range after now finds nothing', async () => {
    const cli = t.app.container.services.auditedAdmin.as({ kind: 'cli' });
    for (let n = 0; n < 60; n++) await cli.addNote({ input: { targetType: 'merchant', targetId: merchantId, text: `nota ${n}` } });
    await page().goto(`${t.url}/ops/audit`);
    await page().locator('#audit-older').waitFor();
    expect(await page().locator('#audit tbody tr').count()).toBe(50);
    const newestId = await page().locator('#audit tbody tr').first().textContent();
    await page().locator('#audit-older').click();
    await page().locator('#audit-newer').waitFor();
    await page().waitForFunction((first) => document.querySelector('#audit tbody tr')?.textContent !== first, newestId);
    expect(await page().locator('#audit tbody tr').count()).toBeLessThan(50);
    await page().locator('#audit-newer').click();
    await page().waitForFunction((first) => document.querySelector('#audit tbody tr')?.textContent === first, newestId);
    await page().getByLabel('Desde (Santiago)').fill('2099-01-01T00:00');
    await page().locator('#audit-filters button[type=submit]').click();
    await page().locator('#audit-empty').waitFor();
  });

  it('invites another operator from the operators page: the set-password link is shown once', async () => {
    await page().getByRole('link', { name: 'Operadores' }).click();
    await page().locator('#invite-operator input[name=email]').fill('nuevo@ops.cl');
    await page().locator('#invite-operator select[name=role]').selectOption('dispatcher');
    await page().locator('#invite-operator button[type=submit]').click();
    expect(await page().locator('#operator-link-value').inputValue()).toMatch(/\/ops\/set-password#token=pt_/);
    await page().locator('#operators tr', { hasText: 'nuevo@ops.cl' }).waitFor();
    const invited = (await t.app.container.services.operators.listOperators()).find((o) => o.email === 'nuevo@ops.cl');
    expect(invited).toMatchObject({ role: 'dispatcher', status: 'invited' });
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('fits 390×844 and 1280×800 without horizontal scroll, in English too', async () => {
    const pages = { '/ops': '#now-counts', '/ops?mode=test': '#now-test-note', '/ops/merchants': '#merchants', '/ops/webhooks': '#failing-webhooks tbody tr', '/ops/orders': '#orders, #orders-empty', [`/ops/merchants/${merchantId}`]: '#history li', '/ops/couriers': '.map-canvas path.leaflet-interactive', '/ops/audit': '#audit', '/ops/operators': '#operators' };
    for (const [path, drawn] of Object.entries(pages)) {
      for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
        await page().setViewportSize(viewport);
        await page().goto(`${t.url}${path}`);
        await page().locator(drawn).first().waitFor();
        expect(await noHorizontalScroll(), `${path} at ${viewport.width}px`).toBe(true);
      }
    }
    // On a phone the menu folds behind its button.
    await page().setViewportSize({ width: 390, height: 844 });
    expect(await page().getByRole('link', { name: 'Repartidores' }).isVisible()).toBe(false);
    await page().locator('#menu-toggle').click();
    await page().getByRole('link', { name: 'Repartidores' }).click();
    await page().locator('#couriers').waitFor();
    expect(await noHorizontalScroll()).toBe(true);
    await page().setViewportSize({ width: 1280, height: 800 });
    await page().locator('#lang-switch').selectOption('en');
    await page().getByRole('link', { name: 'Couriers' }).waitFor();
    await page().locator('#sign-out').click();
    await page().waitForURL(/\/ops\/sign-in/);
  });

  it('a support operator sees no action buttons, and the server refuses the mutation anyway', async () => {
    const support = await signedInOperator(t, 'sol@ops.cl', 'support');
    await page().goto(`${t.url}/ops/sign-in`);
    await page().getByLabel(/^(Correo|Email)$/).fill('sol@ops.cl');
    await page().getByLabel(/^(Contraseña|Password)$/).fill(PASSWORD);
    await page().locator('#sign-in button[type=submit]').click();
    await page().locator('#now').waitFor();
    await page().goto(`${t.url}/ops/merchants/${merchantId}`);
    await page().locator('#integration-plugin').waitFor();
    expect(await page().locator('#main button:not([type=submit])').count()).toBe(0);
    expect(await page().locator('#rate-limit button').count()).toBe(0);
    await page().locator('#note-form').waitFor();
    await page().goto(`${t.url}/ops/operators`);
    await page().locator('#operators').waitFor();
    expect(await page().locator('#invite-operator, #operators select, #operators button').count()).toBe(0);
    await page().goto(`${t.url}/ops/couriers`);
    await page().locator(`tr[data-courier="${courierId}"]`).waitFor();
    expect(await page().locator(`#enable-${courierId}, #rotate-${courierId}, #create-courier`).count()).toBe(0);
    const refused = await gqlOps(t, support.cookie, 'mutation ($id: ID!) { adminEnableCourier(courierId: $id) { __typename } }', { variables: { id: courierId } });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN_ROLE');
    expect((await t.app.container.store.couriers.findById(courierId))!.accountStatus).toBe('disabled');
    expect(b.problems).toEqual([]);
  });
});
