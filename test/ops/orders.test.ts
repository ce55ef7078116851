import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations, startConsoleApp } from '../console/support.js';
import { courierOnDuty, expectOk, formA, merchantApi, north, PLACES, type CourierClient } from '../orders/support.js';
import { gqlOps, PASSWORD, signedInOperator } from '../operators/support.js';

const SKIP = browserSkipReason('the ops orders page and live fleet');

const ASSIGN = `mutation ($orderId: ID!, $courierId: ID!) { adminAssignOrder(orderId: $orderId, courierId: $courierId) {
  __typename ... on MutationAdminAssignOrderSuccess { data { id status courierId } } ... on AppError { code } } }`;

describe.skipIf(SKIP !== null)('the ops app: orders across merchants with overrides, and the live fleet (issue #29, headless Chromium)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let b: OfflinePage;
  let orderId: string;
  let a: CourierClient;
  let bee: CourierClient;
  let dispatcherCookie: string;
  let shop: ReturnType<typeof merchantApi>;
  /** Scheduled two hours ahead: nobody dispatches it by itself. */
  const scheduledOrder = async () => expectOk(await shop.create(formA({ pickup_after: new Date(Date.now() + 7200_000).toISOString() })), 201).body.booking_id as string;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false', COURIER_RATE_LIMIT_PER_MIN: '1000000' });
    shop = merchantApi(t, (await t.createMerchant({ name: 'Botillería Maipú' })).testKey);
    const near = north(PLACES.providencia, 300);
    a = await courierOnDuty(t, { mode: 'test', at: near, name: 'Ana Courier' });
    bee = await courierOnDuty(t, { mode: 'test', at: near, name: 'Beto Courier' });
    // The dispatcher gives it to A, where it sits (stuck).
    orderId = await scheduledOrder();
    dispatcherCookie = (await signedInOperator(t, 'despacho@ops.cl', 'dispatcher')).cookie;
    await signedInOperator(t, 'soporte@ops.cl', 'support');
    const assigned = await gqlOps(t, dispatcherCookie, ASSIGN, { variables: { orderId, courierId: a.id } });
    expect(assigned.body.data.adminAssignOrder.data).toMatchObject({ status: 'assigned', courierId: a.id });
    b = await openOfflinePage({ viewport: { width: 1280, height: 800 } });
    b.page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });
  const page = () => b.page;
  const signInAs = async (email: string) => {
    await page().goto(`${t.url}/ops/sign-in`);
    await page().getByLabel(/^(Correo|Email)$/).fill(email);
    await page().getByLabel(/^(Contraseña|Password)$/).fill(PASSWORD);
    await page().locator('#sign-in button[type=submit]').click();
    await page().locator('#now').waitFor();
  };
  const noHorizontalScroll = () => page().evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')].filter((el) => {
      if (el.closest('.leaflet-container > *')) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && box.right > width + 0.5;
    });
    return document.documentElement.scrollWidth <= width && wide.length === 0 ? true : wide.slice(0, 5).map((el) => `${el.tagName}${el.id ? `#${el.id}` : ''}.${el.className}`).join(' ');
  });

  it('a dispatcher finds the stuck order by status, reassigns it from courier A to B, and finds it in the audit log', async () => {
    await signInAs('despacho@ops.cl');
    await page().getByRole('link', { name: 'Pedidos', exact: true }).click();
    await page().locator('#order-filters select[name=status]').selectOption('assigned');
    await page().locator('#order-filters button[type=submit]').click();
    await page().waitForFunction(() => [...document.querySelectorAll('#orders tbody tr')].every((r) => r.getAttribute('data-status') === 'assigned'));
    const row = page().locator(`#orders tr[data-order="${orderId}"]`);
    // The courier by name (issue #38), its id in the cell's data.
    expect(await row.locator('[data-label="Repartidor"]').textContent()).toBe('Ana Courier');
    expect(await row.locator('[data-label="Repartidor"]').getAttribute('data-courier')).toBe(a.id);
    expect(await row.textContent()).toContain('Botillería Maipú');
    expect(await seriousViolations(page())).toEqual([]);
    await row.locator('a').click();
    await page().locator('#order-timeline li[data-status="assigned"]').waitFor();
    expect(await page().locator('#order-courier').getAttribute('data-courier')).toBe(a.id);
    // Only the other available courier of the order's mode is offered.
    await page().locator(`#assign-courier option[value="${bee.id}"]`).waitFor({ state: 'attached' });
    expect(await page().locator(`#assign-courier option[value="${a.id}"]`).count()).toBe(0);
    await page().locator('#assign-courier').selectOption(bee.id);
    await page().locator('#assign-submit').click();
    await page().locator(`#order-courier[data-courier="${bee.id}"]`).waitFor();
    expect((await t.app.container.store.orders.findById(orderId))?.courierId).toBe(bee.id);
    expect(await page().locator('#order-timeline li').count()).toBeGreaterThanOrEqual(4);
    expect(await page().locator('#order-timeline').textContent()).toContain('reasignado por un operador');
    expect(await seriousViolations(page())).toEqual([]);

    await page().getByRole('link', { name: 'Auditoría' }).click();
    const entry = page().locator(`#audit tr[data-action="order.reassign"][data-target="${orderId}"]`);
    await entry.waitFor();
    expect(await entry.textContent()).toContain('despacho@ops.cl');
  });

  it('a refusal reads from the shared catalog; cancelling on the merchant’s behalf needs a reason and a confirmation', async () => {
    // A new order is assigned from its page to the chosen courier (A is free again).
    const other = await scheduledOrder();
    await page().goto(`${t.url}/ops/orders/${other}`);
    await page().locator(`#assign-courier option[value="${a.id}"]`).waitFor({ state: 'attached' });
    await page().locator('#assign-courier').selectOption(a.id);
    expect(await page().locator('#assign-submit').textContent()).toBe('Asignar');
    await page().locator('#assign-submit').click();
    await page().locator(`#order-courier[data-courier="${a.id}"]`).waitFor();
    await page().locator('#release-order').waitFor();
    // The merchant cancels while the page is open: the release is refused, in Spanish, with its code.
    expectOk(await shop.cancel(other));
    await page().locator('#release-order').click();
    await page().locator('#release-order-confirm').click();
    const refusal = page().locator('#override-error');
    await refusal.waitFor();
    expect(await refusal.getAttribute('data-code')).toBe('INVALID_STATUS_TRANSITION');
    expect(await refusal.textContent()).toContain('El pedido no puede pasar a ese estado ahora.');

    await page().goto(`${t.url}/ops/orders/${orderId}`);
    await page().locator('#overrides').waitFor();
    expect(await page().locator('#cancel-order').isDisabled()).toBe(true);
    await page().locator('#cancel-reason').fill('el comercio lo pidió por teléfono');
    await page().locator('#cancel-order').click();
    await page().locator('#cancel-order-confirm').click();
    await page().locator('#order-status[data-status="cancelled"]').waitFor();
    expect(await page().locator('#order-timeline').textContent()).toContain('el comercio lo pidió por teléfono');
    expect(await page().locator('#overrides').count()).toBe(0);
    expect((await t.app.container.store.orders.findById(orderId))?.status).toBe('cancelled');
  });

  it('the fleet view moves a courier’s marker and row without a reload', async () => {
    await page().goto(`${t.url}/ops/couriers`);
    const row = page().locator(`tr[data-courier="${a.id}"]`);
    await row.waitFor();
    const marker = page().locator('#fleet-map path.leaflet-interactive').first();
    await marker.waitFor();
    // The first frame lists every active courier; then A moves 2 km north.
    await page().waitForFunction(() => Number(document.querySelector('#fleet-map')?.getAttribute('data-markers')) >= 2);
    const paths = () => page().locator('#fleet-map path.leaflet-interactive').evaluateAll((els) => els.map((el) => el.getAttribute('d')));
    const before = await paths();
    const to = north(PLACES.providencia, 2000);
    expectOk(await a.position(to));
    await row.filter({ hasText: `${to.lat.toFixed(5)}, ${to.lng.toFixed(5)}` }).waitFor();
    await page().waitForFunction((old) => [...document.querySelectorAll('#fleet-map path.leaflet-interactive')].some((el, i) => el.getAttribute('d') !== old[i]), before);
    expect((await paths()).length).toBe(before.length);
    expect(b.problems).toEqual([]);
  });

  it('a support operator reads orders but sees no override', async () => {
    await page().locator('#sign-out').click();
    await page().waitForURL(/\/ops\/sign-in/);
    await signInAs('soporte@ops.cl');
    const other = await scheduledOrder();
    await page().goto(`${t.url}/ops/orders/${other}`);
    await page().locator('#order-timeline li').first().waitFor();
    expect(await page().locator('#overrides, #assign-form, #release-order, #cancel-order, #cancel-reason').count()).toBe(0);
    expect(await page().locator('#main button').count()).toBe(0);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('the orders list, an order and the fleet fit 390×844 without horizontal scroll', async () => {
    const pages = { '/ops/orders': '#orders', [`/ops/orders/${orderId}`]: '#order-timeline li', '/ops/couriers': '#fleet-map path.leaflet-interactive' };
    for (const [path, drawn] of Object.entries(pages)) {
      for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
        await page().setViewportSize(viewport);
        await page().goto(`${t.url}${path}`);
        await page().locator(drawn).first().waitFor();
        expect(await noHorizontalScroll(), `${path} at ${viewport.width}px`).toBe(true);
      }
      expect(await seriousViolations(page()), path).toEqual([]);
    }
  });
});
