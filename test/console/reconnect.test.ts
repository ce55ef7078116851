import type { WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { acceptInvitation, invitationLink, markNoReload, startConsoleApp, stillSameDocument } from './support.js';

const SKIP = browserSkipReason('the merchant console catching up after a reconnect');
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;
const CANCEL = `mutation ($id: String!) { cancelOrder(id: $id, reason: "por teléfono") { ... on MutationCancelOrderSuccess { data { status } } ... on AppError { code message } } }`;
const input = (name: string) => ({ dropoff: { coords: PLACES.nunoa }, customerName: name, customerPhone: '+56911112222', paymentMode: 'prepaid' });

describe.skipIf(SKIP !== null)('merchant console: the board and the order page catch up after the socket was down', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  // The socket passes through Playwright: `down` refuses new connections, `drop` closes the open ones.
  let down = false;
  const open = new Set<WebSocketRoute>();
  const drop = async () => {
    down = true;
    expect(open.size).toBeGreaterThan(0);
    await Promise.all([...open].map((ws) => ws.close({ code: 1012, reason: 'test drops the socket' })));
    open.clear();
  };
  const createOrder = async (name: string): Promise<string> => (await gql(t.url, CREATE, { key: m.testKey, variables: { input: input(name) } })).body.data.createOrder.data.id;

  beforeAll(async () => {
    // No sandbox couriers: the orders stay as the test leaves them.
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Panadería Sur' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 } });
    await b.page.routeWebSocket(/\/graphql$/, (ws) => {
      if (down) return void ws.close({ code: 1012, reason: 'still down' });
      ws.connectToServer();
      open.add(ws);
    });
    await acceptInvitation(b.page, await invitationLink(t, m.merchantId, 'rosa@panaderia.cl', 'owner'));
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });
  const page = () => b.page;

  it('the order page shows a cancellation made while its socket was down', async () => {
    await page().locator('#live-state[data-state=live]').waitFor({ timeout: 30_000 });
    const id = await createOrder('Luis Rojas');
    await page().locator(`#orders tr[data-order-id="${id}"] a`).click();
    await page().locator('#order[data-status=new]').waitFor();
    await markNoReload(page());
    await drop();
    expect((await gql(t.url, CANCEL, { key: m.testKey, variables: { id } })).body.data.cancelOrder.data.status).toBe('cancelled');
    down = false;
    await page().locator('#order[data-status=cancelled]').waitFor({ timeout: 60_000 });
    expect(await page().locator('#cancellation-reason').textContent()).toBe('por teléfono');
    expect(await stillSameDocument(page())).toBe(true);
  }, 120_000);

  it('the board lists an order created while its socket was down, without a reload', async () => {
    await page().getByRole('link', { name: 'Pedidos' }).click();
    await page().locator('#live-state[data-state=live]').waitFor({ timeout: 30_000 });
    await markNoReload(page());
    await drop();
    await page().locator('#live-state[data-state=reconnecting]').waitFor();
    const id = await createOrder('Marta Silva');
    down = false;
    await page().locator('#live-state[data-state=live]').waitFor({ timeout: 60_000 });
    await page().locator(`#orders tr[data-order-id="${id}"][data-status=new]`).waitFor({ timeout: 30_000 });
    expect(await stillSameDocument(page())).toBe(true);
  }, 120_000);
});
