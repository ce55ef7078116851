import { readFileSync } from 'node:fs';
import ngeohash from 'ngeohash';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console phone layout test');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;
const ENDPOINT = `mutation ($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ... on MutationCreateWebhookEndpointSuccess { data { id } } ... on AppError { code message } } }`;
const CONSOLIDATE = `mutation ($zone: String!) { consolidateOrders(geohashZone: $zone, targetCarType: car) { ... on MutationConsolidateOrdersSuccess { data { batches { id } } } ... on AppError { code message } } }`;
const DELIVERIES = `{ webhookDeliveries { ... on QueryWebhookDeliveriesSuccess { data { id } } } }`;

/** The console's routes as router.tsx lists them (read as text: the router imports the whole app), so a new page is visited too. */
const ROUTES = [...readFileSync(new URL('../../web/console/router.tsx', import.meta.url), 'utf8').matchAll(/^\s*\{ path: '([^']+)'.*$/gm)]
  .map(([line, path]) => ({ path: path!, nav: /\bnav: \{ es: '([^']+)'/.exec(line)?.[1], public: /\bpublic: true\b/.test(line) }));

/**
 * Elements whose right edge passes the viewport (leaflet's panes are clipped by the map itself),
 * and the page's scroll width: both must stay within 390 px.
 */
async function overflow(page: Page): Promise<{ scrollWidth: number; wide: string[] }> {
  return page.evaluate((width) => {
    const wide: string[] = [];
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('.leaflet-container > *')) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.right <= width + 0.5) continue;
      wide.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} → ${Math.round(box.right)} px`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, wide };
  }, PHONE.width);
}

/** The page has drawn its content: a heading, nothing loading, the network quiet. */
async function settled(page: Page) {
  await page.locator('main h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  await expect.poll(() => page.locator('main [aria-live=polite]:has-text("Cargando")').count()).toBe(0);
}

/** What does not fit on `what` (all pages are visited before the test says which failed). */
async function misfits(page: Page, what: string): Promise<string[]> {
  const { scrollWidth, wide } = await overflow(page);
  return [
    ...(scrollWidth > PHONE.width ? [`${what}: document ${scrollWidth} px wide`] : []),
    ...wide.map((w) => `${what}: ${w}`),
    ...(await seriousViolations(page)).map((v) => `${what}: axe ${v}`),
  ];
}

describe.skipIf(SKIP !== null)('the console on a 390×844 phone', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let receiver: Receiver;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startConsoleApp();
    m = await t.createMerchant({ name: 'Empanadas Doña Rosa de Providencia', address: 'Av. Providencia 1234, Providencia' });
    receiver = await startReceiver();
    await gql(t.url, ENDPOINT, { key: m.testKey, variables: { input: { url: `${receiver.url}/express/webhooks/a-rather-long-path-for-a-phone`, description: 'Tienda online' } } });
    for (const [i, place] of [PLACES.lasCondes, PLACES.nunoa, PLACES.santiago].entries()) {
      const created = await gql(t.url, CREATE, { key: m.testKey, variables: { input: { dropoff: { coords: place }, customerName: ['Ana Pérez', 'Rosa Díaz', 'Pedro Soto'][i], customerPhone: '+56987654321' } } });
      ids.order = created.body.data.createOrder.data.id;
    }
    await waitFor(async () => receiver.receipts.length >= 3, { what: 'webhooks' });
    ids.delivery = (await gql(t.url, DELIVERIES, { key: m.testKey })).body.data.webhookDeliveries.data[0].id;
    for (const weight of [3, 4]) {
      await gql(t.url, CREATE, { key: m.liveKey, variables: { input: { pickup: { coords: PLACES.providencia }, dropoff: { coords: PLACES.lasCondes }, customerName: 'Marta Silva', customerPhone: '+56912345678', totalWeightKg: weight } } });
    }
    const zone = ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5);
    ids.batch = (await gql(t.url, CONSOLIDATE, { key: m.liveKey, variables: { zone } })).body.data.consolidateOrders.data.batches[0].id;
    b = await openOfflinePage({ viewport: PHONE, isMobile: true, hasTouch: true, locale: 'es-CL' });
  }, 120_000);
  afterAll(async () => {
    await b?.browser.close();
    await receiver?.close();
    await t?.stop();
  });

  /** A route's address with its parameters filled, and the mode its data is in (batches are live). */
  function address(path: string): { url: string; mode: 'test' | 'live' } {
    const known: Record<string, string | undefined> = { '/console/orders/:id': ids.order, '/console/batches/:id': ids.batch, '/console/webhooks/deliveries/:id': ids.delivery };
    if (!path.includes(':')) return { url: `${t.url}${path}`, mode: 'test' };
    const id = known[path];
    if (!id) throw new Error(`phone-layout.test.ts: give ${path} an id of seeded data`);
    return { url: `${t.url}${path.replace(/:[a-z]+/, encodeURIComponent(id))}`, mode: path.startsWith('/console/batches') ? 'live' : 'test' };
  }

  it('lists the router\'s pages (parsed from router.tsx)', () => {
    expect(ROUTES.length).toBeGreaterThanOrEqual(13);
    expect(ROUTES.filter((r) => r.nav).map((r) => r.nav)).toContain('Equipo');
  });

  it('public pages fit the screen', async () => {
    const problems: string[] = [];
    for (const route of ROUTES.filter((r) => r.public)) {
      await b.page.goto(address(route.path).url);
      await settled(b.page);
      problems.push(...(await misfits(b.page, route.path)));
    }
    expect(problems).toEqual([]);
  });

  it('every signed-in page fits the screen: nothing wider than 390 px, nothing serious for axe', async () => {
    const page = b.page;
    await page.goto('about:blank'); // the invitation link differs from the set-password page by its hash only
    await acceptInvitation(page, await invitationLink(t, m.merchantId, 'rosa@empanadas-dona-rosa.cl', 'owner'));
    const problems: string[] = [];
    for (const route of ROUTES.filter((r) => !r.public)) {
      const { url, mode } = address(route.path);
      await page.evaluate((value) => localStorage.setItem('exd.console.mode', value), mode);
      await page.goto(url);
      await settled(page);
      problems.push(...(await misfits(page, route.path)));
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('every menu item is visible (after opening the menu), on the header, and navigates', async () => {
    const page = b.page;
    await page.evaluate(() => localStorage.setItem('exd.console.mode', 'test'));
    for (const route of ROUTES.filter((r) => r.nav)) {
      await page.goto(`${t.url}/console`);
      await settled(page);
      const menu = page.locator('#menu-toggle');
      if (await menu.isVisible()) {
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        await menu.click();
        expect(await menu.getAttribute('aria-expanded')).toBe('true');
      }
      const link = page.getByRole('navigation').getByRole('link', { name: route.nav, exact: true });
      await expect.poll(() => link.isVisible(), { message: `${route.nav} visible` }).toBe(true);
      const box = (await link.boundingBox())!;
      expect(box.x, route.nav).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, route.nav).toBeLessThanOrEqual(PHONE.width);
      expect(await seriousViolations(page), `menu open for ${route.nav}`).toEqual([]);
      await link.click();
      await page.waitForURL((url) => url.pathname === route.path.replace(/^\/console/, '/console/test'));
      await settled(page);
      if (await menu.isVisible()) expect(await menu.getAttribute('aria-expanded'), 'the menu closes on navigation').toBe('false');
      expect(await page.locator('#main h1').first().isVisible()).toBe(true);
    }
  }, 180_000);

  it('Escape closes the open menu and gives the focus back to its button', async () => {
    const page = b.page;
    await page.goto(`${t.url}/console`);
    await settled(page);
    const menu = page.locator('#menu-toggle');
    await menu.click();
    await page.waitForFunction(() => document.getElementById('menu-toggle')?.getAttribute('aria-expanded') === 'true');
    await page.locator('#console-nav').getByRole('link').first().focus();
    await page.keyboard.press('Escape');
    // The menu closes and the focus moves in effects after the key: wait for them, do not sample once.
    await page.waitForFunction(() => document.activeElement?.id === 'menu-toggle');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('#console-nav').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('menu-toggle');
  });

  it('at 1280×800 (desktop) the menu is the header\'s row of links, no button, and every page still fits', async () => {
    const page = b.page;
    await page.setViewportSize(DESKTOP);
    const problems: string[] = [];
    for (const route of ROUTES.filter((r) => !r.public)) {
      const { url, mode } = address(route.path);
      await page.evaluate((value) => localStorage.setItem('exd.console.mode', value), mode);
      await page.goto(url);
      await settled(page);
      expect(await page.locator('#menu-toggle').isVisible()).toBe(false);
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      if (scrollWidth > DESKTOP.width) problems.push(`${route.path}: document ${scrollWidth} px wide`);
    }
    expect(problems).toEqual([]);
    const links = page.getByRole('navigation').getByRole('link');
    expect(await links.count()).toBe(ROUTES.filter((r) => r.nav).length);
    const tops = new Set<number>();
    for (const link of await links.all()) {
      expect(await link.isVisible()).toBe(true);
      tops.add(Math.round((await link.boundingBox())!.y));
    }
    expect(tops.size, 'the menu is one row').toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
  }, 180_000);

  it('asked nothing of another host and hit no script error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
