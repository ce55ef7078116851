import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, makeDataDir, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { gqlAs, LOG_OUT, PASSWORD } from '../members/support.js';
import { PLACES } from '../orders/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the merchant console viewer and sign-in flows');

const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message } } }`;
const ORDER = `query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { status } } ... on AppError { code } } }`;

describe.skipIf(SKIP !== null)('merchant console: sign-in refusals, a viewer, pagination (headless Chromium)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let link: string;
  const live: string[] = [];
  const dataDir = makeDataDir();
  const createOrder = async (key: string, customerName: string) =>
    (await gql(t.url, CREATE, { key, variables: { input: { dropoff: { coords: PLACES.nunoa }, customerName, customerPhone: '+56911112222' } } })).body.data.createOrder.data.id as string;

  beforeAll(async () => {
    t = await startConsoleApp({}, { dataDir });
    m = await t.createMerchant({ name: 'Botillería Los Andes' });
    // 22 live orders (no live courier exists: they stay new), oldest first.
    for (let i = 0; i < 22; i++) {
      const input = { dropoff: { coords: PLACES.nunoa }, customerName: `Cliente ${i}`, customerPhone: '+56911112222' };
      live.push((await gql(t.url, CREATE, { key: m.liveKey, variables: { input } })).body.data.createOrder.data.id);
    }
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const page = () => b.page;

  it('step 1: a used invitation link and a wrong password are refused with their reason', async () => {
    link = await invitationLink(t, m.merchantId, 'lector@losandes.cl', 'viewer');
    await acceptInvitation(page(), link);
    await page().locator('#sign-out').click();
    await page().waitForURL(/\/console\/sign-in$/);

    await page().goto(link);
    await page().getByLabel('Contraseña nueva').fill('another password 123');
    await page().getByLabel('Repite la contraseña').fill('another password 123');
    await page().locator('#set-password button[type=submit]').click();
    expect(await page().getByRole('alert').getAttribute('data-code')).toBe('PASSWORD_TOKEN_INVALID');
    expect(await seriousViolations(page())).toEqual([]);

    await page().goto(`${t.url}/console/sign-in`);
    await page().getByLabel('Correo').fill('lector@losandes.cl');
    await page().getByLabel('Contraseña').fill('not the password');
    await page().locator('#sign-in button[type=submit]').click();
    const alert = page().getByRole('alert');
    expect(await alert.getAttribute('data-code')).toBe('INVALID_CREDENTIALS');
    expect(await alert.textContent()).toContain('Correo o contraseña incorrectos.');
    expect(await seriousViolations(page())).toEqual([]);

    await page().getByLabel('Contraseña').fill(PASSWORD);
    await page().locator('#sign-in button[type=submit]').click();
    await page().locator('#member-role[data-role=viewer]').waitFor();
  });

  it('step 2: the live board pages through 22 orders, 20 at a time, newest first', async () => {
    await page().locator('#mode-switch [data-mode=live]').click();
    await page().locator(`#orders tr[data-order-id="${live[21]}"]`).waitFor();
    const ids = () => page().locator('#orders tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order-id')));
    expect(await ids()).toEqual(live.slice(2).reverse());
    expect(await page().locator('#page-previous').isDisabled()).toBe(true);
    await page().locator('#page-next').click();
    await page().locator(`#orders tr[data-order-id="${live[0]}"]`).waitFor();
    expect(await ids()).toEqual([live[1], live[0]]);
    expect(await page().locator('#page-next').isDisabled()).toBe(true);
    await page().locator('#page-previous').click();
    await page().locator(`#orders tr[data-order-id="${live[21]}"]`).waitFor();
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 3: a viewer sees no cancel button; a forced cancel is refused by the domain (FORBIDDEN_ROLE shown) and changes nothing', async () => {
    await page().locator(`#orders tr[data-order-id="${live[21]}"] a`).click();
    await page().locator('#order[data-status=new]').waitFor();
    expect(await page().locator('#cancel-button').isVisible()).toBe(false);
    expect(await page().getByRole('button', { name: 'Cancelar pedido' }).count()).toBe(0);

    await page().locator('#cancel-order').evaluate((form) => form.removeAttribute('hidden'));
    await page().getByLabel('Motivo').fill('forzado');
    await page().locator('#cancel-button').click();
    await page().locator('#cancel-confirm').click();
    const alert = page().getByRole('alert');
    expect(await alert.getAttribute('data-code')).toBe('FORBIDDEN_ROLE');
    expect(await alert.textContent()).toContain('Tu rol no permite esta acción.');
    expect((await gql(t.url, ORDER, { key: m.liveKey, variables: { id: live[21] } })).body.data.order.data.status).toBe('new');
    expect(await page().locator('#order').getAttribute('data-status')).toBe('new');
  });

  it('step 4: a viewer may quote but the create button is disabled', async () => {
    await page().getByRole('link', { name: 'Nuevo pedido' }).click();
    await page().getByLabel('Dirección de entrega').fill('Av. Irarrázaval 2100, Ñuñoa');
    await page().getByLabel('Nombre del cliente').fill('Luis');
    await page().getByLabel('Teléfono del cliente').fill('+56933334444');
    await page().locator('#get-quote').click();
    await page().locator('#quote-price').waitFor();
    expect(await page().locator('#create-order').isDisabled()).toBe(true);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('step 5: the live board follows live orders only, and keeps following after the server restarts (the socket reconnects)', async () => {
    await page().getByRole('link', { name: 'Pedidos' }).click();
    await page().locator('#live-state[data-state=live]').waitFor();
    const top = () => page().locator('#orders tbody tr').first().getAttribute('data-order-id');
    const testOrder = await createOrder(m.testKey, 'Prueba');
    const liveOrder = await createOrder(m.liveKey, 'Real 1');
    await page().locator(`#orders tr[data-order-id="${liveOrder}"]`).waitFor();
    expect(await top()).toBe(liveOrder);
    expect(await page().locator(`#orders tr[data-order-id="${testOrder}"]`).count()).toBe(0);

    const port = new URL(t.url).port;
    const before = b.problems.length;
    await t.stop();
    await page().locator('#live-state[data-state=reconnecting]').waitFor();
    t = await startConsoleApp({ PORT: port }, { dataDir });
    await page().locator('#live-state[data-state=live]').waitFor({ timeout: 40_000 });
    const afterRestart = await createOrder(m.liveKey, 'Real 2');
    await page().locator(`#orders tr[data-order-id="${afterRestart}"]`).waitFor();
    expect(await top()).toBe(afterRestart);
    // While the server was down Chromium logged the refused socket connections, and nothing else.
    expect(b.problems.splice(before).filter((p) => !/^WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/graphql' failed/.test(p))).toEqual([]);
  }, 120_000);

  it('step 6: a session ended elsewhere sends the member to sign-in, and back to the page after signing in', async () => {
    const session = (await page().context().cookies()).find((c) => c.name === 'exd_session')!;
    const before = b.problems.length;
    await page().getByRole('link', { name: 'Nuevo pedido' }).click();
    await page().getByLabel('Dirección de entrega').fill('Av. Irarrázaval 2100, Ñuñoa');
    await page().getByLabel('Nombre del cliente').fill('Luis');
    await page().getByLabel('Teléfono del cliente').fill('+56933334444');
    expect((await gqlAs(t, `exd_session=${session.value}`, LOG_OUT)).body.data.logOut.data).toBe(true);
    // The server also closes the session's live socket, so the console may reach sign-in on its own
    // before the click (a fresh-clone CI run saw the link detached): either way it lands on sign-in.
    await Promise.race([page().waitForURL(/\/console\/sign-in/), page().locator('#get-quote').click()]);
    await page().waitForURL(/\/console\/sign-in\?next=%2Fconsole%2Flive%2Forders%2Fnew$/);
    await page().getByLabel('Correo').fill('lector@losandes.cl');
    await page().getByLabel('Contraseña').fill(PASSWORD);
    await page().locator('#sign-in button[type=submit]').click();
    await page().waitForURL(/\/console\/live\/orders\/new$/);
    await page().locator('#new-order').waitFor();
    // The refused request (401) is the only console line.
    expect(b.problems.splice(before).filter((p) => !p.includes('status of 401'))).toEqual([]);
    // Seven page steps and a sign-in: past 30 s on a machine running the whole suite.
  }, 90_000);

  it('asked no other host and logged no console error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
