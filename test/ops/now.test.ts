import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mode, Order, WebhookEndpoint } from '../../src/domain/types.js';
import { creation, order as orderFixture } from '../contract/fixtures.js';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations, startConsoleApp } from '../console/support.js';
import { courierOnDuty, PLACES, standDown, type CourierClient } from '../orders/support.js';
import { PASSWORD, signedInOperator } from '../operators/support.js';

const SKIP = browserSkipReason('the ops home of now');

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000).toISOString();
const NAMES: Record<Mode, string> = { live: 'Pedro Rojas', test: 'Tomás Prueba' };

describe.skipIf(SKIP !== null)('the ops home: late and unassigned orders, couriers on duty by name, failing webhooks, one mode at a time (issue #38, headless Chromium)', { timeout: 180_000 }, () => {
  let t: TestApp;
  let b: OfflinePage;
  let merchantId: string;
  const couriers: Partial<Record<Mode, CourierClient>> = {};
  const late: Partial<Record<Mode, Order>> = {};
  const waiting: Partial<Record<Mode, Order>> = {};
  const endpoints: Partial<Record<Mode, WebhookEndpoint>> = {};

  /** New and scheduled two hours ahead: no dispatch round gives it to the courier on duty. */
  const waitingOrder = (mode: Mode, minutesAgo: number) =>
    orderFixture({ merchantId, mode, status: 'new', createdAt: minutesFromNow(-minutesAgo), estimatedDeliveryAt: minutesFromNow(150), dispatchAfter: minutesFromNow(120) });

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false', COURIER_RATE_LIMIT_PER_MIN: '1000000' });
    merchantId = (await t.createMerchant({ name: 'Farmacia Central' })).merchantId;
    for (const mode of ['live', 'test'] as const) {
      couriers[mode] = await courierOnDuty(t, { mode, at: PLACES.providencia, name: NAMES[mode] });
      late[mode] = orderFixture({ merchantId, mode, status: 'picked_up', courierId: couriers[mode].id, createdAt: minutesFromNow(-120), estimatedDeliveryAt: minutesFromNow(-45) });
      waiting[mode] = waitingOrder(mode, 10);
      for (const o of [late[mode], waiting[mode]]) await t.app.container.store.orders.create(creation(o));
      endpoints[mode] = {
        id: `we_01JNOW${mode.toUpperCase()}ENDPOINT00000000`.slice(0, 29), merchantId, mode, url: `https://farmacia-central.cl/wp-json/express/${mode}`, description: null,
        events: ['order.status_changed'], payloadShape: 'event', signing: 'symmetric', enabled: true, disabledReason: null,
        failingSince: minutesFromNow(-90), createdAt: minutesFromNow(-600), updatedAt: minutesFromNow(-90),
      };
      await t.app.container.store.webhooks.insertEndpoint(endpoints[mode]);
    }
    await signedInOperator(t, 'despacho@ops.cl', 'dispatcher');
    b = await openOfflinePage({ viewport: { width: 1280, height: 800 }, locale: 'es-CL' });
    b.page.setDefaultTimeout(20_000);
    // Signing in lands on the home (every test below starts from this session).
    await b.page.goto(`${t.url}/ops/sign-in`);
    await b.page.getByLabel(/^(Correo|Email)$/).fill('despacho@ops.cl');
    await b.page.getByLabel(/^(Contraseña|Password)$/).fill(PASSWORD);
    await b.page.locator('#sign-in button[type=submit]').click();
    await b.page.locator('#now #now-counts').waitFor();
    expect(new URL(b.page.url()).pathname).toBe('/ops');
  });
  afterAll(async () => {
    await b?.browser.close();
    await standDown(...Object.values(couriers));
    await t?.stop();
  });
  const page = () => b.page;
  /** The page never scrolls sideways (a table may scroll inside its own box). */
  const pageFits = () => page().evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  /** What the home shows of `mode`'s data, and that none of the other mode's is there. */
  const expectHomeOf = async (mode: Mode) => {
    const other = mode === 'live' ? 'test' : 'live';
    await page().locator(`#now[data-mode="${mode}"] #now-counts`).waitFor();
    const lateRow = page().locator(`#now-late tr[data-order="${late[mode]!.id}"]`);
    expect(await lateRow.textContent()).toContain(late[mode]!.trackingNumber);
    expect(await lateRow.locator('[data-label="Repartidor"]').textContent()).toBe(NAMES[mode]);
    await page().locator(`#now-unassigned tr[data-order="${waiting[mode]!.id}"]`).waitFor();
    expect(await page().locator(`#now-couriers tr[data-courier="${couriers[mode]!.id}"]`).textContent()).toContain(NAMES[mode]);
    expect(await page().locator(`#now-webhooks tr[data-endpoint="${endpoints[mode]!.id}"]`).textContent()).toContain('Farmacia Central');
    expect(await page().locator('#now-late-count').getAttribute('data-count')).toBe('1');
    const text = (await page().locator('#now').textContent())!;
    for (const id of [late[other]!.trackingNumber, waiting[other]!.trackingNumber, NAMES[other], endpoints[other]!.url]) expect(text).not.toContain(id);
    expect(await page().locator('#now-test-note').count()).toBe(mode === 'test' ? 1 : 0);
  };

  it('the home shows live by default, test one click away and marked, at 1280 and 390 px', async () => {
    await page().goto(`${t.url}/ops`);
    await expectHomeOf('live');
    expect(await pageFits()).toBe(true);
    expect(await seriousViolations(page())).toEqual([]);
    await page().locator('.mode-tabs a', { hasText: 'Prueba' }).click();
    await page().waitForURL(/\/ops\?mode=test$/);
    await expectHomeOf('test');
    expect(await pageFits()).toBe(true);
    expect(await seriousViolations(page())).toEqual([]);
    await page().setViewportSize({ width: 390, height: 844 });
    for (const mode of ['live', 'test'] as const) {
      await page().goto(`${t.url}/ops${mode === 'test' ? '?mode=test' : ''}`);
      await expectHomeOf(mode);
      expect(await pageFits(), `home (${mode}) at 390 px`).toBe(true);
    }
    await page().setViewportSize({ width: 1280, height: 800 });
  });

  it('follows what happens without a reload: a new order waiting for a courier appears by itself', async () => {
    await page().goto(`${t.url}/ops`);
    await expectHomeOf('live');
    const next = waitingOrder('live', 1);
    await t.app.container.store.orders.create(creation(next));
    await page().locator(`#now-unassigned tr[data-order="${next.id}"]`).waitFor({ timeout: 60_000 });
    expect(await page().locator('#now-unassigned-count').getAttribute('data-count')).toBe('2');
  });

  it('names couriers by name on the orders list and an order’s page', async () => {
    await page().goto(`${t.url}/ops/orders`);
    const row = page().locator(`#orders tr[data-order="${late.live!.id}"]`);
    await row.waitFor();
    expect(await row.locator('[data-label="Repartidor"]').textContent()).toBe(NAMES.live);
    expect(await row.textContent()).toContain('Farmacia Central');
    await page().goto(`${t.url}/ops/orders/${late.live!.id}`);
    await page().locator('#order-courier', { hasText: NAMES.live }).waitFor();
  });

  it('filters the orders by the pickup’s comuna, picked by name', async () => {
    await page().goto(`${t.url}/ops/orders`);
    await page().locator(`#orders tr[data-order="${late.live!.id}"]`).waitFor();
    await page().locator('#order-comuna').selectOption('Ñuñoa');
    await page().locator('#order-filters button[type=submit]').click();
    await page().locator('#orders-empty').waitFor();
    // The fixtures' pickups are all in Providencia.
    await page().locator('#order-comuna').selectOption('Providencia');
    await page().locator('#order-filters button[type=submit]').click();
    await page().locator(`#orders tr[data-order="${late.live!.id}"]`).waitFor();
    expect(await page().locator('#orders tbody tr').count()).toBe(5);
  });

  it('no /ops page scrolls sideways at 1280×800', async () => {
    const pages: Record<string, string> = {
      '/ops': '#now-counts', '/ops?mode=test': '#now-test-note', '/ops/merchants': '#merchants', [`/ops/merchants/${merchantId}`]: '#history-title',
      '/ops/orders': '#orders', [`/ops/orders/${waiting.live!.id}`]: '#order-timeline li', '/ops/couriers': '#couriers', '/ops/webhooks': '#failing-webhooks tbody tr',
      '/ops/audit': '#audit, #audit-empty', '/ops/operators': '#operators',
    };
    const wide: string[] = [];
    for (const [path, drawn] of Object.entries(pages)) {
      await page().goto(`${t.url}${path}`);
      await page().locator(drawn).first().waitFor();
      // Nor does a table hide a column behind its own scroll bar.
      const sizes = await page().evaluate(() => ({
        scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
        tables: [...document.querySelectorAll('.table-wrap')].filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => `${w.querySelector('table')?.id || w.closest('section')?.id || 'table'} ${w.scrollWidth} > ${w.clientWidth}`),
      }));
      if (sizes.scroll > sizes.inner) wide.push(`${path}: ${sizes.scroll} > ${sizes.inner}`);
      for (const table of sizes.tables) wide.push(`${path}: ${table}`);
    }
    expect(wide).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
