import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateTime } from '../../web/shared/format.js';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { FAST_WEBHOOKS, startReceiver, waitFor, type Receiver } from '../webhooks/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the merchant console webhooks page');

const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;
const LOG = `{ webhookDeliveries(first: 100) { ... on QueryWebhookDeliveriesSuccess { data { id status orderId attemptLog { statusCode } } } ... on AppError { code message } } }`;
const ENDPOINTS = '{ webhookEndpoints { id url description events enabled } }';

type Delivery = { id: string; status: string; orderId: string; attemptLog: Array<{ statusCode: number | null }> };

describe.skipIf(SKIP !== null)('merchant console: webhooks page in headless Chromium', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let receiver: Receiver;
  let endpointId: string;
  let firstFailed: Delivery;

  beforeAll(async () => {
    // No retries: a 500 leaves the delivery failed at once. No sandbox couriers: one webhook per order.
    t = await startConsoleApp({ ...FAST_WEBHOOKS, WEBHOOK_MAX_RETRIES: '0', SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Librería Nueva' });
    receiver = await startReceiver();
    // Each webhook is refused the first time (500) and accepted after (200).
    receiver.respond((_r, previous) => (previous.length === 0 ? 500 : 200));
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 } });
    // A missing element fails its step with the locator named, before the test's own timeout.
    b.page.setDefaultTimeout(10_000);
  });
  afterAll(async () => {
    await b?.browser.close();
    await receiver?.close();
    await t?.stop();
  });
  const page = () => b.page;
  const newOrder = async () => (await gql(t.url, CREATE, { key: m.testKey, variables: { input: { dropoff: { coords: PLACES.nunoa }, customerName: 'Rosa Díaz', customerPhone: '+56911112222' } } })).body.data.createOrder.data.id as string;
  const log = async () => (await gql(t.url, LOG, { key: m.testKey })).body.data.webhookDeliveries.data as Delivery[];
  const rowIds = () => page().locator('#deliveries tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-delivery-id')));
  /** Presses Refresh until the log shows `selector` (the page does not follow the log live). */
  const refreshUntil = async (selector: string) => {
    await waitFor(async () => {
      await page().locator('#deliveries-refresh').click();
      return page().locator(selector).first().waitFor({ timeout: 500 }).then(() => true, () => false);
    }, { what: selector, timeoutMs: 15_000 });
  };

  it('step 1: the owner creates an endpoint for the local receiver from the form', async () => {
    await acceptInvitation(page(), await invitationLink(t, m.merchantId, 'duena@libreria.cl', 'owner'));
    await page().getByRole('link', { name: 'Webhooks' }).click();
    await page().locator('#endpoints-empty').waitFor();
    await page().getByLabel('URL').fill(`${receiver.url}/hooks`);
    await page().getByLabel('Descripción').fill('tienda');
    await page().locator('#endpoint-submit').click();
    await page().locator('#endpoints tbody tr').waitFor();
    const [endpoint] = (await gql(t.url, ENDPOINTS, { key: m.testKey })).body.data.webhookEndpoints;
    expect(endpoint).toMatchObject({ url: `${receiver.url}/hooks`, description: 'tienda', events: ['ORDER_STATUS_CHANGED'], enabled: true });
    endpointId = endpoint.id;
    expect(await page().locator('#endpoints tbody tr').getAttribute('data-endpoint-id')).toBe(endpointId);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 2: a failing webhook shows in the log, with the status and endpoint filters', async () => {
    const orderId = await newOrder();
    await refreshUntil('#deliveries tr[data-status=failed]');
    firstFailed = (await log())[0]!;
    expect(firstFailed).toMatchObject({ orderId, status: 'failed', attemptLog: [{ statusCode: 500 }] });
    expect(await rowIds()).toEqual([firstFailed.id]);
    expect(await page().locator(`#deliveries tr[data-delivery-id="${firstFailed.id}"]`).textContent()).toContain('Fallido');

    await page().locator('#delivery-status-filter').selectOption('delivered');
    await page().locator('#deliveries-empty').waitFor();
    await page().locator('#delivery-status-filter').selectOption('failed');
    await page().locator(`#deliveries tr[data-delivery-id="${firstFailed.id}"]`).waitFor();
    await page().locator('#delivery-endpoint-filter').selectOption(endpointId);
    await page().locator(`#deliveries tr[data-delivery-id="${firstFailed.id}"]`).waitFor();
    // A range on Santiago's clock that ended an hour ago holds none of it.
    const hourAgo = await page().evaluate(() => new Intl.DateTimeFormat('sv-SE', { timeZone: 'America/Santiago', dateStyle: 'short', timeStyle: 'short' }).format(Date.now() - 3_600_000).replace(' ', 'T'));
    await page().locator('#delivery-to').fill(hourAgo);
    await page().locator('#deliveries-empty').waitFor();
    await page().locator('#delivery-to').fill('');
    await page().locator(`#deliveries tr[data-delivery-id="${firstFailed.id}"]`).waitFor();
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 3: the payload viewer shows the body as sent and the 500; redelivered, the attempts read 500 then 200', async () => {
    await page().locator(`#deliveries tr[data-delivery-id="${firstFailed.id}"] a[href*="/webhooks/deliveries/"]`).click();
    await page().locator('#delivery[data-status=failed]').waitFor();
    expect(await page().locator('#delivery-endpoint').textContent()).toBe(`${receiver.url}/hooks · tienda`);
    const shown = JSON.parse((await page().locator('#payload').textContent())!);
    expect(shown).toEqual(JSON.parse(receiver.of(firstFailed.id)[0]!.body));
    expect(shown).toMatchObject({ event: 'order.status_changed', booking_id: firstFailed.orderId, status: 'new' });
    expect(await page().locator('#attempts tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status-code')))).toEqual(['500']);
    expect(await seriousViolations(page())).toEqual([]);

    await page().locator('#redeliver').click();
    await page().locator('#delivery[data-status=delivered]').waitFor({ timeout: 15_000 });
    expect(await page().locator('#attempts tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status-code')))).toEqual(['500', '200']);
    expect(receiver.of(firstFailed.id).map((r) => r.status)).toEqual([500, 200]);
    // Attempt times on Santiago's clock, written the Chilean way.
    const first = page().locator('#attempts tbody tr time').first();
    expect(await first.textContent()).toBe(dateTime((await first.getAttribute('datetime'))!, 'es'));
  });

  it('step 4: the failed ones of a range are counted first, then redelivered', async () => {
    const orders = [await newOrder(), await newOrder()];
    await waitFor(async () => (await log()).filter((d) => orders.includes(d.orderId) && d.status === 'failed').length === 2, { what: 'two failed deliveries' });
    await page().getByRole('link', { name: 'Volver a webhooks' }).click();
    await page().locator('#range-count').click();
    await page().locator('#range-counted[data-count="2"]').waitFor();
    await page().locator('#range-redeliver').click();
    await page().locator('#range-redeliver-confirm').click();
    await page().locator('#range-result[data-requeued="2"]').waitFor();
    await waitFor(async () => (await log()).every((d) => d.status === 'delivered'), { what: 'every delivery delivered' });
    for (const d of (await log()).filter((x) => orders.includes(x.orderId))) expect(receiver.of(d.id).map((r) => r.status)).toEqual([500, 200]);
    await page().locator('#range-count').click();
    await page().locator('#range-counted[data-count="0"]').waitFor();
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 5: the log pages 20 at a time, after = the last id shown', async () => {
    receiver.respond(() => 200);
    for (let i = 0; i < 18; i++) await newOrder();
    await waitFor(async () => (await log()).length === 21 && (await log()).every((d) => d.status === 'delivered'), { what: '21 delivered' });
    const all = (await log()).map((d) => d.id);
    await page().locator('#delivery-status-filter').selectOption('');
    await refreshUntil(`#deliveries tr[data-delivery-id="${all[0]}"]`);
    expect(await rowIds()).toEqual(all.slice(0, 20));
    await page().locator('#deliveries-next').click();
    await page().locator(`#deliveries tr[data-delivery-id="${all[20]}"]`).waitFor();
    expect(await rowIds()).toEqual([all[20]]);
    expect(await page().locator('#deliveries-next').isDisabled()).toBe(true);
    await page().locator('#deliveries-previous').click();
    await page().locator(`#deliveries tr[data-delivery-id="${all[0]}"]`).waitFor();
  });

  it('step 6: the owner edits the endpoint (events, disabled) and deletes it, in English', async () => {
    await page().locator('#lang-switch').selectOption('en');
    await page().getByRole('button', { name: `Edit: ${receiver.url}/hooks` }).click();
    await page().getByLabel('ETA changed').check();
    await page().getByLabel('Enabled', { exact: true }).uncheck();
    await page().locator('#endpoint-submit').click();
    await page().locator(`#endpoints tr[data-endpoint-id="${endpointId}"][data-enabled=false]`).waitFor();
    expect((await gql(t.url, ENDPOINTS, { key: m.testKey })).body.data.webhookEndpoints).toEqual([
      expect.objectContaining({ id: endpointId, events: ['ORDER_STATUS_CHANGED', 'ORDER_ETA_CHANGED'], enabled: false }),
    ]);
    await page().locator(`#delete-${endpointId}`).click();
    await page().locator(`#delete-${endpointId}-confirm`).click();
    await page().locator('#endpoints-empty').waitFor();
    expect((await gql(t.url, ENDPOINTS, { key: m.testKey })).body.data.webhookEndpoints).toEqual([]);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('asked no other host and logged no console error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
