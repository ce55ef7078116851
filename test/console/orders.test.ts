import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateTime } from '../../web/shared/format.js';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { acceptInvitation, invitationLink, markNoReload, seriousViolations, startConsoleApp, stillSameDocument } from './support.js';

const SKIP = browserSkipReason('the merchant console order flows');
const APOQUINDO = 'Av. Apoquindo 3000, Las Condes';
const pesos = (n: number) => new Intl.NumberFormat('es-CL', { style: 'currency', currency: 'CLP' }).format(n);

const QUOTE = `query ($address: String!) { quote(input: { destination: { address: $address }, totalWeightKg: 1 }) {
  ... on QueryQuoteSuccess { data { price } } ... on AppError { code message } } }`;
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  ... on MutationCreateOrderSuccess { data { id status } } ... on AppError { code message } } }`;
const ORDER = `query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { id status createdAt cancellationReason proof { geofence } } } ... on AppError { code message } } }`;

describe.skipIf(SKIP !== null)('merchant console: order flows in headless Chromium', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let delivered: string;

  beforeAll(async () => {
    t = await startConsoleApp();
    m = await t.createMerchant({ name: 'Café Central', address: 'Av. Providencia 1234, Providencia' });
    // A browser in Tokyo speaking US English: the console still says es-CL and Santiago's time.
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'Asia/Tokyo' });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });
  const page = () => b.page;
  const orderOf = async (key: string, id: string) => (await gql(t.url, ORDER, { key, variables: { id } })).body.data.order;

  it('step 1: the first owner, invited through the admin path, sets a password and signs in (Spanish, test mode)', async () => {
    await acceptInvitation(page(), await invitationLink(t, m.merchantId, 'ana@cafe.cl', 'owner'));
    expect(await page().locator('#merchant-name').textContent()).toBe('Café Central');
    expect(await page().locator('#member-role').getAttribute('data-role')).toBe('owner');
    expect(await page().locator('h1').textContent()).toBe('Pedidos');
    expect(await page().locator('#mode-switch [data-mode=test]').getAttribute('aria-pressed')).toBe('true');
    expect(await page().locator('#test-banner').isVisible()).toBe(true);
    expect(await page().locator('#orders-empty').isVisible()).toBe(true);
    expect(await page().evaluate(() => document.documentElement.lang)).toBe('es-CL');
    expect(await seriousViolations(page())).toEqual([]);
    // The first page load and sign-in: past 30 s on a machine running many suites at once.
  }, 90_000);

  it('step 2: quotes a delivery to a text address: the API\'s price in pesos, pickup and drop-off on the map', async () => {
    await page().getByRole('link', { name: 'Nuevo pedido' }).click();
    await page().getByLabel('Dirección de entrega').fill(APOQUINDO);
    await page().getByLabel('Nombre del cliente').fill('Ana Pérez');
    await page().getByLabel('Teléfono del cliente').fill('+56987654321');
    await page().locator('#get-quote').click();
    await page().locator('#quote').waitFor();
    const api = (await gql(t.url, QUOTE, { key: m.testKey, variables: { address: APOQUINDO } })).body.data.quote.data.price as number;
    expect(await page().locator('#quote-price').textContent()).toBe(pesos(api));
    expect(pesos(api)).toMatch(/^\$\d{1,3}(\.\d{3})+$/);
    // Two circle markers and the line between them (Leaflet's vector layers).
    await page().locator('#quote .leaflet-interactive').nth(2).waitFor();
    expect(await page().locator('#quote .leaflet-interactive').count()).toBe(3);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 3: creates the order and watches the sandbox courier drive and deliver it, without a reload', async () => {
    await markNoReload(page());
    await page().locator('#create-order').click();
    await page().waitForURL(/\/console\/test\/orders\/[^/]+$/);
    delivered = (await page().locator('#order').getAttribute('data-order-id'))!;
    expect(delivered).toBeTruthy();
    // Every courier position the map shows, and every status it shows, in order.
    await page().evaluate(() => {
      const seen: { positions: string[]; statuses: string[] } = { positions: [], statuses: [] };
      (window as unknown as { __seen: typeof seen }).__seen = seen;
      new MutationObserver(() => {
        const position = document.querySelector('.map-canvas')?.getAttribute('data-courier');
        const status = document.getElementById('order')?.dataset.status;
        if (position && position !== seen.positions.at(-1)) seen.positions.push(position);
        if (status && status !== seen.statuses.at(-1)) seen.statuses.push(status);
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-courier', 'data-status'] });
    });
    await page().waitForFunction(() => document.getElementById('order')?.dataset.status === 'completed', undefined, { timeout: 60_000 });
    const seen = await page().evaluate(() => (window as unknown as { __seen: { positions: string[]; statuses: string[] } }).__seen);
    // The courier moved on the map between status changes: positions came from the courierPosition
    // subscription, not only from the order re-read at each status change.
    expect(seen.positions.length, JSON.stringify(seen)).toBeGreaterThan(seen.statuses.length);
    expect(seen.statuses.at(-1)).toBe('completed');
    expect(await page().locator('#proof').isVisible()).toBe(true);
    expect(await page().locator('#timeline li').evaluateAll((items) => items.map((li) => li.getAttribute('data-status'))))
      .toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
    expect(await page().locator('#order-status').textContent()).toBe('Entregado');
    expect(await page().locator('#dropoff').textContent()).toBe(APOQUINDO);
    expect(await page().locator('#cancel-order').count()).toBe(0);
    expect(await stillSameDocument(page())).toBe(true);
    // The gazetteer places a street address at its comuna: the geofence could not be checked.
    expect((await orderOf(m.testKey, delivered)).data).toMatchObject({ status: 'completed', proof: { geofence: 'unverified' } });
    expect(await page().locator('#proof').textContent()).toContain('sin verificar');
    expect(await seriousViolations(page())).toEqual([]);
  }, 120_000);

  it('step 4: the board lists it and follows an order booked elsewhere, live, without a reload', async () => {
    await page().getByRole('link', { name: 'Pedidos' }).click();
    await page().locator(`#orders tr[data-order-id="${delivered}"][data-status=completed]`).waitFor();
    const { createdAt } = (await orderOf(m.testKey, delivered)).data;
    const [santiago, tokyo] = await page().evaluate((iso) => ['America/Santiago', 'Asia/Tokyo']
      .map((timeZone) => new Intl.DateTimeFormat('es-CL', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' }).format(new Date(iso))), createdAt);
    // The one format of every app: 24-hour Santiago time (today's date is left out).
    expect(await page().locator(`#orders tr[data-order-id="${delivered}"] td`).nth(5).textContent()).toBe(dateTime(createdAt, 'es'));
    expect(dateTime(createdAt, 'es')).toContain(santiago);
    expect(santiago).not.toBe(tokyo);
    await markNoReload(page());
    const input = { dropoff: { coords: PLACES.nunoa }, customerName: 'Rosa Díaz', customerPhone: '+56911112222', paymentMode: 'prepaid' };
    const created = (await gql(t.url, CREATE, { key: m.testKey, variables: { input } })).body.data.createOrder.data;
    expect(created.id).toEqual(expect.any(String));
    await page().locator(`#orders tr[data-order-id="${created.id}"]`).waitFor({ timeout: 10_000 });
    await page().locator(`#orders tr[data-order-id="${created.id}"][data-status=completed]`).waitFor({ timeout: 60_000 });
    expect(await stillSameDocument(page())).toBe(true);

    await page().locator('#status-filter').selectOption('cancelled');
    await page().locator('#orders-empty').waitFor();
    await page().locator('#status-filter').selectOption('completed');
    await page().locator('#orders tbody tr').nth(1).waitFor();
    expect(await page().locator('#orders tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')))).toEqual(['completed', 'completed']);
    expect(await seriousViolations(page())).toEqual([]);
  }, 120_000);

  it('step 5: live mode shows none of the test orders; an order to coordinates is booked and cancelled with a reason', async () => {
    await page().locator('#mode-switch [data-mode=live]').click();
    await page().locator('#orders-empty').waitFor();
    expect(await page().locator('#test-banner').count()).toBe(0);
    // The choice is kept across a reload.
    await page().reload();
    await page().locator('#orders-empty').waitFor();
    expect(await page().locator('#mode-switch [data-mode=live]').getAttribute('aria-pressed')).toBe('true');

    await page().getByRole('link', { name: 'Nuevo pedido' }).click();
    await page().getByLabel('Coordenadas').check();
    await page().getByLabel('Latitud').fill(String(PLACES.lasCondes.lat));
    await page().getByLabel('Longitud').fill(String(PLACES.lasCondes.lng));
    await page().getByLabel('Nombre del cliente').fill('Pedro Soto');
    await page().getByLabel('Teléfono del cliente').fill('+56922223333');
    await page().locator('#get-quote').click();
    await page().locator('#quote-price').waitFor();
    await page().locator('#create-order').click();
    await page().waitForURL(/\/console\/live\/orders\/[^/]+$/);
    const id = (await page().locator('#order').getAttribute('data-order-id'))!;
    expect(await page().locator('#order').getAttribute('data-status')).toBe('new');
    expect(await page().locator('#dropoff').textContent()).toBe(`${PLACES.lasCondes.lat.toFixed(5)}, ${PLACES.lasCondes.lng.toFixed(5)}`);
    // Cancel asks first, the reason (optional) still in view; "no" goes back and nothing is sent.
    expect(await page().getByLabel('Motivo (opcional)').isVisible()).toBe(true);
    await page().locator('#cancel-button').click();
    expect(await page().locator('#cancel-question').textContent()).toMatch(/^¿Cancelar el pedido .+\? No se puede deshacer\.$/);
    // Focus moves to "yes" after the confirmation renders (an effect): wait for it, do not sample once.
    await page().waitForFunction(() => document.activeElement?.id === 'cancel-confirm');
    // The API's preview: a new order (no courier yet) cancels free.
    expect(await page().locator('#cancel-fee').textContent()).toBe('Cancelarlo ahora no tiene cargo.');
    await page().locator('#cancel-back').click();
    expect(await page().locator('#cancel-confirm').count()).toBe(0);
    expect((await orderOf(m.liveKey, id)).data.status).toBe('new');
    await page().locator('#cancel-button').click();
    await page().getByLabel('Motivo (opcional)').fill('El cliente ya no lo necesita');
    expect(await seriousViolations(page())).toEqual([]);
    await page().locator('#cancel-confirm').click();
    await page().waitForFunction(() => document.getElementById('order')?.dataset.status === 'cancelled');
    expect(await page().locator('#cancellation-reason').textContent()).toBe('El cliente ya no lo necesita');
    expect(await page().locator('#cancellation-fee').textContent()).toBe(pesos(0));
    expect((await orderOf(m.liveKey, id)).data).toMatchObject({ status: 'cancelled', cancellationReason: 'El cliente ya no lo necesita' });
    // Never mixed: the live order is not there for test mode, and the test orders not for live.
    expect((await orderOf(m.testKey, id)).code).toBe('ORDER_NOT_FOUND');
    expect((await orderOf(m.liveKey, delivered)).code).toBe('ORDER_NOT_FOUND');
    expect(await seriousViolations(page())).toEqual([]);
  }, 90_000);

  it('step 6: switches to English (kept across a reload), then signs out', async () => {
    await page().locator('#lang-switch').selectOption('en');
    await page().getByRole('link', { name: 'Orders' }).click();
    await page().locator('h1', { hasText: 'Orders' }).waitFor();
    await page().reload();
    await page().locator('h1', { hasText: 'Orders' }).waitFor();
    expect(await page().evaluate(() => document.documentElement.lang)).toBe('en');
    await page().locator('#sign-out').click();
    await page().waitForURL(/\/console\/sign-in$/);
    await page().goto(`${t.url}/console/orders/new`);
    await page().waitForURL(/\/console\/sign-in\?next=%2Fconsole%2Forders%2Fnew$/);
    expect(await page().locator('h1').textContent()).toBe('Sign in');
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('asked no other host and logged no console error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
