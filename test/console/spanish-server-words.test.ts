/**
 * Issue #38 item 5 (the server's half): the notes the service writes on an order's history, a
 * failed attempt's reason and an outbox error come as codes the console words from its catalog:
 * in es-CL the console shows none of "geofence unverified…", `recipient_absent` or "channel sms is
 * not configured" (headless Chromium).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { acceptInvitation, invitationLink, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console in Spanish');
const ORDER = {
  pickup: { address: 'Av. Providencia 1234, Providencia' },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes' },
  customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid',
};

describe.skipIf(SKIP !== null)('the server words in the Spanish console', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let delivered: string;
  let failed: string;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false', NOTIFY_POLL_MS: '200', NOTIFY_HOLD_SECONDS: '0' });
    m = await t.createMerchant({ name: 'Librería Los Leones' });
    const settings = await gql(t.url, 'mutation { updateNotificationSettings(input: { channels: [sms], moments: [created] }) { __typename } }', { key: m.liveKey });
    expect(settings.body.errors).toBeUndefined();
    expect(settings.body.data.updateNotificationSettings.__typename).toBe('MutationUpdateNotificationSettingsSuccess');
    // A live order: its SMS fails at once (no SMS provider on this server).
    expect((await api(`${t.url}/api/v1/orders`, { key: m.liveKey, body: { dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid' } })).status).toBe(201);
    const deadline = Date.now() + 60_000;
    while ((await t.app.container.store.notifications.list({ merchantId: m.merchantId, mode: 'live', limit: 10 }))[0]?.lastError == null) {
      if (Date.now() > deadline) throw new Error(`the SMS never failed: ${JSON.stringify(await t.app.container.store.notifications.list({ merchantId: m.merchantId, mode: 'live', limit: 10 }))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Test orders delivered at a comuna-precise drop-off, and failed with nobody there.
    const run = (scenario: string) => api(`${t.url}/api/v1/sandbox/runs`, { key: m.testKey, body: { scenario, seed: scenario, start_time: '2026-06-01T15:00:00.000Z', order: ORDER } });
    delivered = (await run('delivered')).body.run.booking_id as string;
    failed = (await run('failed_attempt_then_return')).body.run.booking_id as string;
    b = await openOfflinePage({ viewport: { width: 390, height: 844 }, isMobile: true, locale: 'es-CL' });
    b.page.setDefaultTimeout(30_000);
    await acceptInvitation(b.page, await invitationLink(t, m.merchantId, 'duena@leones.cl', 'owner'));
  }, 240_000);
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('GraphQL gives the codes beside the English text', async () => {
    const res = await gql(t.url, `{ order(id: "${failed}") { __typename ... on QueryOrderSuccess { data { events { reason reasonCode } } } } }`, { key: m.testKey });
    const events = (res.body.data?.order?.data?.events ?? []) as Array<{ reason: string | null; reasonCode: string | null }>;
    expect(events).toContainEqual({ reason: 'recipient_absent', reasonCode: 'recipient_absent' });
    const outbox = await gql(t.url, '{ notifications { __typename ... on QueryNotificationsSuccess { data { nodes { channel lastError lastErrorCode } } } } }', { key: m.liveKey });
    expect(outbox.body.data.notifications.data.nodes[0]).toEqual({ channel: 'sms', lastError: 'channel sms is not configured', lastErrorCode: 'channel_not_configured' });
  });

  it("the order's history: the geofence note and the failed attempt's reason in Spanish", async () => {
    await b.page.goto(`${t.url}/console/orders/${delivered}`);
    await b.page.locator('#timeline li[data-status="completed"]').waitFor();
    const history = await b.page.locator('#timeline').textContent();
    expect(history).toContain('geocerca sin verificar');
    expect(history).not.toMatch(/geofence/i);

    await b.page.goto(`${t.url}/console/orders/${failed}`);
    await b.page.locator('#timeline li[data-status="delivery_failed"]').waitFor();
    const failedHistory = await b.page.locator('#timeline').textContent();
    expect(failedHistory).toContain('no había nadie');
    expect(failedHistory).not.toContain('recipient_absent');
  });

  it('the outbox: the error in Spanish', async () => {
    await b.page.goto(`${t.url}/console/notifications`);
    await b.page.locator('#mode-switch button[data-mode="live"]').click();
    const error = b.page.locator('#outbox .last-error');
    await error.first().waitFor();
    expect(await error.first().getAttribute('data-code')).toBe('channel_not_configured');
    expect(await error.first().textContent()).toContain('No se envió: este servidor no tiene proveedor de SMS configurado');
    expect(await b.page.locator('#outbox').textContent()).not.toContain('is not configured');
  });
});
