import { mkdirSync } from 'node:fs';
import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { FAST_WEBHOOKS, startReceiver, waitFor, type Receiver } from '../webhooks/support.js';
import { acceptInvitation, invitationLink, startConsoleApp } from './support.js';

/** `npm run console:screenshots` (with screenshots.test.ts): the management pages for the README, in docs/console/. */
const SKIP = process.env.SCREENSHOTS === '1' ? browserSkipReason('the console screenshots') : 'SCREENSHOTS=1 is not set';
const OUT = 'docs/console';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;
const ENDPOINT = `mutation ($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ... on MutationCreateWebhookEndpointSuccess { data { id } } ... on AppError { code message } } }`;
const CONSOLIDATE = `mutation ($zone: String!) { consolidateOrders(geohashZone: $zone, targetCarType: car) { ... on MutationConsolidateOrdersSuccess { data { batches { id } } } ... on AppError { code message } } }`;
const FAILED = `{ webhookDeliveries(status: failed) { ... on QueryWebhookDeliveriesSuccess { data { id } } } }`;

describe.skipIf(SKIP !== null)('console screenshots: webhooks, API keys, settings, team, batches', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let receiver: Receiver;
  let batchId: string;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    t = await startConsoleApp({ ...FAST_WEBHOOKS, WEBHOOK_MAX_RETRIES: '0', SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Café Central', address: 'Av. Providencia 1234, Providencia' });
    receiver = await startReceiver();
    // The shop's receiver is down for the second order's webhook.
    let calls = 0;
    receiver.respond(() => (++calls === 2 ? 500 : 200));
    await gql(t.url, ENDPOINT, { key: m.testKey, variables: { input: { url: `${receiver.url}/express/webhooks`, description: 'Tienda online' } } });
    for (const [i, place] of [PLACES.lasCondes, PLACES.nunoa, PLACES.santiago].entries()) {
      await gql(t.url, CREATE, { key: m.testKey, variables: { input: { dropoff: { coords: place }, customerName: ['Ana Pérez', 'Rosa Díaz', 'Pedro Soto'][i], customerPhone: '+56987654321' } } });
    }
    await waitFor(async () => receiver.receipts.length === 3, { what: 'three webhooks' });
    for (const weight of [3, 4]) {
      await gql(t.url, CREATE, { key: m.liveKey, variables: { input: { pickup: { coords: PLACES.providencia }, dropoff: { coords: PLACES.lasCondes }, customerName: 'Marta Silva', customerPhone: '+56912345678', totalWeightKg: weight } } });
    }
    const zone = ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5);
    batchId = (await gql(t.url, CONSOLIDATE, { key: m.liveKey, variables: { zone } })).body.data.consolidateOrders.data.batches[0].id;
    b = await openOfflinePage({ viewport: { width: 1200, height: 800 } });
  });
  afterAll(async () => {
    await b?.browser.close();
    await receiver?.close();
    await t?.stop();
  });

  it('writes the webhooks, delivery, API keys, settings, team and batch pages', async () => {
    const page = b.page;
    await acceptInvitation(page, await invitationLink(t, m.merchantId, 'ana@cafe.cl', 'owner'));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.locator('#deliveries tbody tr').nth(2).waitFor();
    await page.screenshot({ path: `${OUT}/webhooks.png`, fullPage: true });

    const [failed] = (await gql(t.url, FAILED, { key: m.testKey })).body.data.webhookDeliveries.data;
    await page.locator(`#deliveries tr[data-delivery-id="${failed.id}"] a[href*="/webhooks/deliveries/"]`).click();
    await page.locator('#redeliver').click();
    await page.locator('#delivery[data-status=delivered]').waitFor();
    await page.screenshot({ path: `${OUT}/webhook-delivery.png`, fullPage: true });

    await page.getByRole('link', { name: 'Claves API' }).click();
    await page.locator('#rotate-test').click();
    await page.locator('#rotate-test-confirm').click();
    await page.locator('#new-key').waitFor();
    await page.screenshot({ path: `${OUT}/api-keys.png`, fullPage: true });

    await page.getByRole('link', { name: 'Ajustes' }).click();
    await page.getByLabel('Tiempo de preparación (minutos)').fill('15');
    await page.getByLabel('Dominio de la tienda').fill('cafe-central.myshopify.com');
    await page.getByLabel('Secreto compartido de la tienda').fill('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');
    await page.locator('#settings-save').click();
    await page.locator('#current-secret[data-configured=true]').waitFor();
    await page.screenshot({ path: `${OUT}/settings.png`, fullPage: true });

    await page.getByRole('link', { name: 'Equipo' }).click();
    await page.getByLabel('Correo').fill('despacho@cafe.cl');
    await page.locator('#invite-form select[name=role]').selectOption('dispatcher');
    await page.locator('#invite-submit').click();
    await page.locator('#invitation').waitFor();
    await page.screenshot({ path: `${OUT}/team.png`, fullPage: true });

    await page.locator('#lang-switch').selectOption('en');
    await page.locator('#mode-switch [data-mode=live]').click();
    await page.goto(`${t.url}/console/batches/${batchId}`);
    await page.locator('#batch-orders tbody tr').nth(1).waitFor();
    await page.screenshot({ path: `${OUT}/batch-en.png`, fullPage: true });
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
