import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_NOTES } from '../../src/domain/orders/notes.js';
import { noteText } from '../../web/shared/catalog.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations } from '../console/support.js';
import { PLACES, formA, merchantApi, north } from '../orders/support.js';
import { courierMe, courierWithLink, phone, startCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app hands a job back');

/**
 * Issue #38 item 8: a courier who cannot take an assigned job hands it back from the app (with a
 * confirmation) before the pickup; the order goes back to dispatch and reaches another courier.
 * Nobody else can hand it back for them.
 */
describe.skipIf(SKIP !== null).each([390, 1280])('courier app at %i px: handing a job back', (width) => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let ana: { id: string; token: string; link: string };
  let beto: { id: string; token: string; link: string };
  let orderId: string;
  const page = () => b.page;
  const as = (token: string, path: string, body?: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: token, ...(body !== undefined && { body }) });

  beforeAll(async () => {
    t = await startCourierApp();
    m = await t.createMerchant({ name: 'Café Central', address: 'Av. Providencia 1234, Providencia' });
    ana = await courierWithLink(t, 'Ana Repartidora');
    beto = await courierWithLink(t, 'Beto Repartidor');
    b = await openOfflinePage(phone(north(PLACES.providencia, 500), { serviceWorkers: 'block', viewport: { width, height: 844 } }));
    page().setDefaultTimeout(15_000);
  }, 60_000);
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('the nearest courier, on the phone, gets a live job with a hand-back button', async () => {
    await page().goto(ana.link);
    await page().waitForURL(/\/courier$/);
    await page().locator('#duty-toggle').click();
    await page().locator('#duty-status[data-status=available]').waitFor();
    const at = north(PLACES.providencia, 500);
    await expect.poll(async () => (await courierMe(t, ana.token)).location, { timeout: 15_000 }).toEqual({ lat: at.lat, lng: at.lng });
    // Beto is on duty farther away: the job goes to Ana first, to him once she hands it back.
    expect((await as(beto.token, '/duty', { on_duty: true })).status).toBe(200);
    expect((await as(beto.token, '/location', north(PLACES.providencia, 3000))).status).toBe(200);

    const created = await merchantApi(t, m.liveKey).create(formA());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    orderId = created.body.booking_id;
    await page().locator(`#job[data-order-id="${orderId}"][data-status=assigned]`).waitFor({ timeout: 45_000 });
    expect(await page().locator('#release').textContent()).toBe('No puedo tomarlo: devolver el pedido');
    expect(await seriousViolations(page())).toEqual([]);
  }, 90_000);

  it('another courier cannot hand back a job that is not theirs', async () => {
    const refused = await as(beto.token, `/orders/${orderId}/release`, {});
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('ORDER_NOT_FOUND');
    expect((await merchantApi(t, m.liveKey).get(orderId)).body.status).toBe('assigned');
    expect((await as(ana.token, '/orders')).body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual([orderId]);
  });

  it('asked to confirm, the courier hands it back: the job leaves the phone and goes to the next courier', async () => {
    await page().locator('#release').click();
    expect(await page().locator('.confirm').textContent()).toContain('¿Devolver este pedido? Se asignará a otro repartidor.');
    await page().locator('#release-confirm').click();
    await page().locator('#no-job').waitFor({ timeout: 30_000 });
    expect(await page().locator('#job').count()).toBe(0);
    await expect.poll(async () => (await as(beto.token, '/orders')).body.orders.map((o: { booking_id: string }) => o.booking_id), { timeout: 30_000 }).toEqual([orderId]);
    const order = (await merchantApi(t, m.liveKey).get(orderId)).body;
    expect(order.status).toBe('assigned');
    // The history says it with the service's own note, which the console words in Spanish.
    const EVENTS = `query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { events { status reason actorKind } } } } }`;
    const events = (await gql(t.url, EVENTS, { key: m.liveKey, variables: { id: orderId } })).body.data.order.data.events as Array<{ status: string; reason: string | null; actorKind: string }>;
    expect(events.map((e) => e.status)).toEqual(['new', 'assigned', 'new', 'assigned']);
    expect(events[2]).toMatchObject({ actorKind: 'courier', reason: ORDER_NOTES.courierReleased });
    expect(noteText(ORDER_NOTES.courierReleased, 'es')).toBe('el repartidor devolvió el pedido');
    expect(await seriousViolations(page())).toEqual([]);
  }, 90_000);
});

/** The domain service itself (no transport): only the holder hands a job back, which returns it to dispatch with the service's note. */
describe('couriers.releaseOrder', () => {
  let t: TestApp;
  afterAll(async () => { await t?.stop(); });

  it('refuses another courier; the holder\'s release sends the order back to the queue, not to the same courier', async () => {
    t = await startCourierApp();
    const m = await t.createMerchant({ name: 'Café Central' });
    const [ana, beto] = [await courierWithLink(t, 'Ana'), await courierWithLink(t, 'Beto')];
    const as = (token: string, path: string, body?: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: token, ...(body !== undefined && { body }) });
    await as(ana.token, '/duty', { on_duty: true });
    await as(ana.token, '/location', north(PLACES.providencia, 500));
    const id = (await merchantApi(t, m.liveKey).create(formA())).body.booking_id as string;
    const { couriers } = t.app.container.services;
    const courier = async (courierId: string) => (await t.app.container.store.couriers.findById(courierId))!;
    expect((await courier(ana.id)).job?.id).toBe(id);

    await expect(couriers.releaseOrder({ courier: await courier(beto.id), ref: id, input: {} })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    expect((await t.app.container.store.orders.findById(id))?.courierId).toBe(ana.id);

    const released = await couriers.releaseOrder({ courier: await courier(ana.id), ref: id, input: {} });
    expect(released).toMatchObject({ status: 'new', courierId: null });
    expect((await courier(ana.id)).status).toBe('available');
    expect((await t.app.container.store.orders.listEvents(id)).at(-1)).toMatchObject({ reason: ORDER_NOTES.courierReleased });
  }, 60_000);
});
