import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { FAST_WEBHOOKS, waitFor } from '../webhooks/support.js';
import { SET_PASSWORD } from '../members/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the merchant console API keys, settings, team and batches pages');

const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;
const CONSOLIDATE = `mutation ($zone: String!) { consolidateOrders(geohashZone: $zone, targetCarType: car) {
  ... on MutationConsolidateOrdersSuccess { data { batches { id orders { id } } } } ... on AppError { code message } } }`;
const SETTINGS = '{ merchant { settings { prepTimeMins storefrontDomain storefrontSignatureConfigured sandboxSpeed } } }';
const MEMBERS = '{ members { email role status } }';
const ENDPOINT = `mutation ($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ... on MutationCreateWebhookEndpointSuccess { data { id } } ... on AppError { code message } } }`;
const DELIVERIES = '{ webhookDeliveries { ... on QueryWebhookDeliveriesSuccess { data { id status attempts } } } }';
const SHOP_SECRET = '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';

describe.skipIf(SKIP !== null)('merchant console: API keys, settings, team, a viewer, batches (headless Chromium)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let testKey: string;
  let link: string;
  let batch: { id: string; orders: Array<{ id: string }> };
  let delivery: { id: string; attempts: number };

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false', ...FAST_WEBHOOKS, WEBHOOK_MAX_RETRIES: '0' });
    m = await t.createMerchant({ name: 'Florería Central' });
    testKey = m.testKey;
    // A test webhook to a closed port: one failed delivery for the viewer to look at.
    await gql(t.url, ENDPOINT, { key: m.testKey, variables: { input: { url: 'http://127.0.0.1:9/hooks' } } });
    await gql(t.url, CREATE, { key: m.testKey, variables: { input: { dropoff: { coords: PLACES.nunoa }, customerName: 'Marta Silva', customerPhone: '+56912345678' } } });
    delivery = await waitFor(async () => (await gql(t.url, DELIVERIES, { key: m.testKey })).body.data.webhookDeliveries.data.find((d: { status: string }) => d.status === 'failed'), { what: 'a failed delivery' });
    // Two live orders from the same pickup (no live courier: they stay new), consolidated into one batch.
    for (const weight of [3, 4]) {
      const input = { pickup: { coords: PLACES.providencia }, dropoff: { coords: PLACES.lasCondes }, customerName: 'Marta Silva', customerPhone: '+56912345678', totalWeightKg: weight };
      expect((await gql(t.url, CREATE, { key: m.liveKey, variables: { input } })).body.data.createOrder.data.id).toEqual(expect.any(String));
    }
    const zone = ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5);
    [batch] = (await gql(t.url, CONSOLIDATE, { key: m.liveKey, variables: { zone } })).body.data.consolidateOrders.data.batches;
    expect(batch!.orders).toHaveLength(2);
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    // A missing element fails its step with the locator named, before the test's own timeout.
    b.page.setDefaultTimeout(10_000);
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });
  const page = () => b.page;
  const restStatus = async (key: string) => (await api(`${t.url}/api/v1/merchants/me`, { key })).status;
  const settings = async () => (await gql(t.url, SETTINGS, { key: testKey })).body.data.merchant.settings;
  const clipboard = () => page().evaluate(() => navigator.clipboard.readText());

  it('step 1: the owner sees both modes’ key prefixes, rotates the test key (shown once, copied): the old key gets 401 over REST, the new one works; revokes the live key', async () => {
    await acceptInvitation(page(), await invitationLink(t, m.merchantId, 'dueno@floreria.cl', 'owner'));
    await page().getByRole('link', { name: 'Claves API' }).click();
    await page().locator('#api-keys tbody tr').nth(1).waitFor();
    const rows = await page().locator('#api-keys tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-mode')} ${tr.getAttribute('data-status')} ${tr.querySelector('.mono')!.textContent}`));
    expect(rows.sort()).toEqual([`live active ${m.liveKey.slice(0, 12)}…`, `test active ${m.testKey.slice(0, 12)}…`]);
    expect(await page().content()).not.toContain(m.testKey);
    expect(await seriousViolations(page())).toEqual([]);

    await page().locator('#rotate-test').click();
    await page().locator('#rotate-test-confirm').click();
    const fresh = await page().locator('#new-key-value').inputValue();
    expect(fresh).toMatch(/^ak_test_/);
    expect(await page().locator('#new-key').textContent()).toContain('no se volverá a mostrar');
    await page().locator('#new-key-copy').click();
    await page().getByText('Copiado.').waitFor();
    expect(await clipboard()).toBe(fresh);
    expect([await restStatus(m.testKey), await restStatus(fresh)]).toEqual([401, 200]);
    expect(await restStatus(m.liveKey)).toBe(200);
    testKey = fresh;
    await page().locator(`#api-keys tr[data-mode=test][data-status=revoked]`).waitFor();
    // Shown once: a reload lists prefixes only.
    await page().reload();
    await page().locator('#api-keys tbody tr').nth(2).waitFor();
    expect(await page().locator('#new-key').count()).toBe(0);
    expect(await page().content()).not.toContain(fresh);

    await page().locator('#revoke-live').click();
    await page().locator('#revoke-live-confirm').click();
    await page().locator('#revoked-count').waitFor();
    expect(await page().locator('#revoked-count').textContent()).toBe('Claves revocadas: 1');
    await page().locator('#api-keys tr[data-mode=live][data-status=revoked]').waitFor();
    expect([await restStatus(m.liveKey), await restStatus(fresh)]).toEqual([401, 200]);
  });

  it('step 2: the owner rotates the signing secret: the new one shown once with the end of the overlap', async () => {
    await page().locator('#secret-overlap').fill('2');
    await page().locator('#rotate-secret').click();
    await page().locator('#rotate-secret-confirm').click();
    expect(await page().locator('#new-secret-value').inputValue()).toMatch(/^whsec_/);
    expect(await page().locator('#new-secret-value').inputValue()).not.toBe(m.apiSecret);
    await page().locator('#previous-until').waitFor();
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 3: the owner changes the settings; a reload shows them kept, the storefront secret only as configured', async () => {
    await page().getByRole('link', { name: 'Ajustes' }).click();
    await page().locator('#current-secret[data-configured=false]').waitFor();
    await page().getByLabel('Tiempo de preparación (minutos)').fill('25');
    await page().getByLabel('Dominio de la tienda').fill('floreria.myshopify.com');
    await page().getByLabel('Secreto compartido de la tienda').fill(SHOP_SECRET);
    await page().getByLabel('Velocidad del sandbox').fill('5');
    await page().locator('#settings-save').click();
    await page().getByText('Ajustes guardados.').waitFor();
    await page().reload();
    await page().locator('#current-secret[data-configured=true]').waitFor();
    expect(await page().locator('#current-prep').textContent()).toBe('25 min');
    expect(await page().locator('#current-domain').textContent()).toBe('floreria.myshopify.com');
    expect(await page().locator('#current-speed').textContent()).toBe('5 ×');
    expect(await page().getByLabel('Secreto compartido de la tienda').inputValue()).toBe('');
    expect(await page().content()).not.toContain(SHOP_SECRET);
    expect(await settings()).toEqual({ prepTimeMins: 25, storefrontDomain: 'floreria.myshopify.com', storefrontSignatureConfigured: true, sandboxSpeed: 5 });
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 4: the owner invites a dispatcher (link shown once), makes them a viewer; removing the only owner shows the domain’s refusal', async () => {
    await page().getByRole('link', { name: 'Equipo' }).click();
    await page().locator('#members tbody tr').waitFor();
    await page().getByLabel('Correo').fill('lector@floreria.cl');
    await page().locator('#invite-form select[name=role]').selectOption('dispatcher');
    await page().locator('#invite-submit').click();
    link = await page().locator('#invitation-value').inputValue();
    // On PUBLIC_BASE_URL (here the default, http://localhost:<port>): the token in the fragment.
    expect(link).toMatch(new RegExp(`^http://localhost:${new URL(t.url).port}/console/set-password#token=pt_`));
    await page().locator('#invitation-copy').click();
    expect(await clipboard()).toBe(link);
    const row = page().locator('#members tr[data-email="lector@floreria.cl"]');
    await row.locator('select').selectOption('viewer');
    await row.locator('.change-role').click();
    await page().locator('#members tr[data-email="lector@floreria.cl"][data-role=viewer]').waitFor();

    // A new password link replaces the first: only the newest works (step 5 uses it).
    await page().locator('#members tr[data-email="lector@floreria.cl"] .reset-password').click();
    const replaced = link;
    link = await page().locator('#reset-link-value').inputValue();
    expect(link).toMatch(/\/console\/set-password#token=pt_/);
    expect(link).not.toBe(replaced);
    const stale = await gql(t.url, SET_PASSWORD, { variables: { input: { token: new URL(replaced).hash.slice('#token='.length), password: 'una clave bastante larga' } } });
    expect(stale.body.data.setPassword.code).toBe('PASSWORD_TOKEN_INVALID');

    // An active member's email is refused beside the form, with the API's reason.
    await page().getByLabel('Correo').fill('dueno@floreria.cl');
    await page().locator('#invite-submit').click();
    expect(await page().locator('#invite-section [role=alert]').getAttribute('data-code')).toBe('CONFLICT');
    expect(await page().locator('#invite-section [role=alert]').textContent()).toContain('Ese correo ya pertenece a un miembro del equipo.');

    const self = page().locator('#members tr[data-email="dueno@floreria.cl"]');
    await self.locator('button', { hasText: 'Quitar' }).click();
    await self.locator('button', { hasText: 'Sí, confirmar' }).click();
    const alert = page().getByRole('alert');
    expect(await alert.getAttribute('data-code')).toBe('CONFLICT');
    expect(await alert.textContent()).toContain('El comercio debe conservar al menos un dueño activo.');
    expect((await gql(t.url, MEMBERS, { key: testKey })).body.data.members).toEqual([
      { email: 'dueno@floreria.cl', role: 'owner', status: 'active' },
      { email: 'lector@floreria.cl', role: 'viewer', status: 'invited' },
    ]);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 5: the invitation link’s set-password page works: the viewer signs in and sees no owner control on any page', async () => {
    await page().locator('#sign-out').click();
    await page().waitForURL(/\/console\/sign-in$/);
    await acceptInvitation(page(), link);
    await page().locator('#member-role[data-role=viewer]').waitFor();

    await page().getByRole('link', { name: 'Claves API' }).click();
    await page().locator('#api-keys tbody tr').first().waitFor();
    expect(await page().getByRole('button', { name: /Rotar|Revocar/ }).count()).toBe(0);
    expect(await page().locator('#secret-section').isVisible()).toBe(false);
    expect(await seriousViolations(page())).toEqual([]);

    await page().getByRole('link', { name: 'Ajustes' }).click();
    await page().locator('#current-prep').waitFor();
    expect(await page().locator('#settings-form').isVisible()).toBe(false);
    expect(await page().getByRole('button', { name: 'Guardar ajustes' }).count()).toBe(0);
    expect(await seriousViolations(page())).toEqual([]);

    await page().getByRole('link', { name: 'Equipo' }).click();
    await page().locator('#members tbody tr').first().waitFor();
    expect(await page().locator('#invite-section').isVisible()).toBe(false);
    expect(await page().locator('#members select, #members button').count()).toBe(0);
    expect(await seriousViolations(page())).toEqual([]);

    await page().getByRole('link', { name: 'Webhooks' }).click();
    await page().locator('#endpoints tbody tr').waitFor();
    expect(await page().locator('#endpoint-form').isVisible()).toBe(false);
    expect(await page().getByRole('button', { name: /Editar|Eliminar/ }).count()).toBe(0);
    expect(await page().locator('#redeliver-range').isVisible()).toBe(false);
    expect(await seriousViolations(page())).toEqual([]);
    await page().locator(`#deliveries tr[data-delivery-id="${delivery.id}"] a[href*="/webhooks/deliveries/"]`).click();
    await page().locator('#delivery[data-status=failed]').waitFor();
    expect(await page().locator('#redeliver').isVisible()).toBe(false);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 6: forced actions from the viewer’s pages (redeliver, settings, key rotation) are refused with FORBIDDEN_ROLE and change nothing', async () => {
    await page().locator('#redeliver').evaluate((button) => button.parentElement!.removeAttribute('hidden'));
    await page().locator('#redeliver').click();
    expect(await page().getByRole('alert').getAttribute('data-code')).toBe('FORBIDDEN_ROLE');
    expect((await gql(t.url, DELIVERIES, { key: testKey })).body.data.webhookDeliveries.data).toEqual([{ id: delivery.id, status: 'failed', attempts: delivery.attempts }]);

    await page().getByRole('link', { name: 'Ajustes' }).click();
    await page().locator('#settings-form').evaluate((form) => form.removeAttribute('hidden'));
    await page().getByLabel('Tiempo de preparación (minutos)').fill('90');
    await page().locator('#settings-save').click();
    const alert = page().getByRole('alert');
    expect(await alert.getAttribute('data-code')).toBe('FORBIDDEN_ROLE');
    expect(await alert.textContent()).toContain('Tu rol no permite esta acción.');
    expect((await settings()).prepTimeMins).toBe(25);

    await page().getByRole('link', { name: 'Claves API' }).click();
    await page().locator('#key-controls').evaluate((div) => div.removeAttribute('hidden'));
    await page().locator('#rotate-test').click();
    await page().locator('#rotate-test-confirm').click();
    expect(await page().getByRole('alert').getAttribute('data-code')).toBe('FORBIDDEN_ROLE');
    expect(await page().locator('#new-key').count()).toBe(0);
    expect(await restStatus(testKey)).toBe(200);
  });

  it('step 7: in live mode the viewer lists the batch and opens it; its orders link to their order pages', async () => {
    await page().getByRole('link', { name: 'Lotes' }).click();
    await page().locator('#batches-empty').waitFor(); // test mode has none
    await page().locator('#mode-switch [data-mode=live]').click();
    await page().locator(`#batches tr[data-batch-id="${batch.id}"]`).waitFor();
    expect(await page().locator(`#batches tr[data-batch-id="${batch.id}"]`).textContent()).toContain('Auto');
    expect(await seriousViolations(page())).toEqual([]);
    await page().locator(`#batches tr[data-batch-id="${batch.id}"] a`).click();
    await page().locator('#batch-orders tbody tr').nth(1).waitFor();
    const ids = await page().locator('#batch-orders tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order-id')));
    expect(ids.sort()).toEqual(batch.orders.map((o) => o.id).sort());
    expect(await page().locator('#batch-orders').textContent()).toMatch(/\$\d{1,3}(\.\d{3})+/);
    expect(await seriousViolations(page())).toEqual([]);
    await page().locator(`#batch-orders tr[data-order-id="${ids[0]}"] a`).click();
    await page().locator(`#order[data-order-id="${ids[0]}"]`).waitFor();
  });

  it('asked no other host and logged no console error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
