import { createClient, type Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, startOrdersApp } from '../orders/support.js';
import { until } from '../realtime/support.js';
import { gqlAs, LOG_OUT, signedIn } from './support.js';

const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { id } } } }`;
const REMOVE = 'mutation ($id: ID!) { removeMember(id: $id) { __typename } }';
const orderInput = () => ({
  pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
  customerName: 'Camila Rojas',
  customerPhone: '+56912345678',
});

describe('Team members over graphql-ws: the cookie on the upgrade, closed on sign-out or removal', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startOrdersApp({ env: { CREDENTIAL_RECHECK_MS: '200' } });
    shop = await t.createMerchant({ name: 'Socket Shop' });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
  });
  afterAll(() => t.stop());

  /** A graphql-ws client whose upgrade carries the cookie and an Origin, as a browser's does. */
  function browserClient(cookie: string, options: { origin?: string; mode?: 'live' | 'test' } = {}) {
    const origin = options.origin ?? t.url;
    const closes: number[] = [];
    class BrowserSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { cookie, origin } });
      }
    }
    const c = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: BrowserSocket,
      connectionParams: options.mode ? { mode: options.mode } : {},
      retryAttempts: 0,
      lazy: true,
      on: { closed: (event) => void closes.push((event as CloseEvent).code) },
    });
    clients.push(c);
    return { client: c, closes };
  }

  function watchOrders(c: Client) {
    const statuses: string[] = [];
    const errors: unknown[] = [];
    c.subscribe<{ orderEvents: { status: string; orderId: string } }>(
      { query: 'subscription { orderEvents { orderId status } }' },
      { next: (r) => void (r.data ? statuses.push(r.data.orderEvents.status) : errors.push(r.errors)), error: (e) => void errors.push(e), complete: () => {} },
    );
    return { statuses, errors };
  }

  const listening = (n: number) => until(() => t.app.container.fanOut.sizes().merchants >= n, 'the subscription to listen');

  it('a signed-in member subscribes with the cookie (test mode by default) and is closed with 4403 once it signs out', async () => {
    const cookie = await signedIn(t, shop.merchantId, 'watcher@tienda.cl', 'viewer');
    const dispatcher = await signedIn(t, shop.merchantId, 'booker@tienda.cl', 'dispatcher');
    const { client, closes } = browserClient(cookie);
    const watch = watchOrders(client);
    await listening(1);
    await gqlAs(t, dispatcher, CREATE, { variables: { input: orderInput() } });
    await until(() => watch.statuses.length > 0, 'the order event');
    expect(watch.statuses[0]).toBe('new');
    // A live order is another mode: not on this test-mode socket.
    await gqlAs(t, dispatcher, CREATE, { variables: { input: orderInput() }, mode: 'live' });

    await gqlAs(t, cookie, LOG_OUT);
    await until(() => closes.length > 0, 'the socket to close');
    expect(closes).toEqual([4403]);
    expect(watch.statuses.every((s) => s === 'new')).toBe(true);
    expect(watch.statuses).toHaveLength(1);
  });

  it('a removed member’s socket is closed too', async () => {
    const owner = await signedIn(t, shop.merchantId, 'boss@tienda.cl', 'owner');
    const cookie = await signedIn(t, shop.merchantId, 'removed@tienda.cl', 'viewer');
    const id = (await gqlAs(t, cookie, '{ me { member { id } } }')).body.data.me.member.id as string;
    const { client, closes } = browserClient(cookie, { mode: 'live' });
    const before = t.app.container.fanOut.sizes().merchants;
    watchOrders(client);
    await listening(before + 1);
    expect((await gqlAs(t, owner, REMOVE, { variables: { id } })).body.data.removeMember.__typename).toBe('MutationRemoveMemberSuccess');
    await until(() => closes.length > 0, 'the socket to close');
    expect(closes).toEqual([4403]);
  });

  it('the cookie does not authenticate a socket opened from another site (Origin), nor an ended session', async () => {
    const cookie = await signedIn(t, shop.merchantId, 'hijack@tienda.cl', 'owner');
    const foreign = browserClient(cookie, { origin: 'https://evil.example' });
    const refused = watchOrders(foreign.client);
    await until(() => foreign.closes.length > 0, 'the foreign socket to close');
    expect(foreign.closes).toEqual([4403]);
    expect(refused.statuses).toEqual([]);

    const stale = browserClient('exd_session=ms_' + 'A'.repeat(43));
    watchOrders(stale.client);
    await until(() => stale.closes.length > 0, 'the stale socket to close');
    expect(stale.closes).toEqual([4403]);
  });
});
