/**
 * Shared set-up for the console-actions suites: one merchant with a signed-in owner, dispatcher and
 * viewer (session cookies, as the console holds them), a rival merchant, and graphql-ws clients
 * whose upgrade carries the cookie from this server's own Origin (as a browser's does).
 */
import { createClient, type Client } from 'graphql-ws';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { gqlAs, signedIn } from '../members/support.js';
import { PLACES } from '../orders/support.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the parsed JSON freely
export type Data = any;
export type Mode = 'live' | 'test';
export const ERR = '... on AppError { code message }';

export interface Console {
  t: TestApp;
  shop: MerchantCredentials;
  rival: MerchantCredentials;
  owner: string;
  dispatcher: string;
  viewer: string;
  rivalOwner: string;
}

export async function signInTeam(t: TestApp, tag: string): Promise<Console> {
  const [shop, rival] = [await t.createMerchant({ name: `${tag} Shop` }), await t.createMerchant({ name: `${tag} Rival` })];
  const [owner, dispatcher, viewer, rivalOwner] = await Promise.all([
    signedIn(t, shop.merchantId, `owner@${tag}.cl`, 'owner'),
    signedIn(t, shop.merchantId, `dispatch@${tag}.cl`, 'dispatcher'),
    signedIn(t, shop.merchantId, `viewer@${tag}.cl`, 'viewer'),
    signedIn(t, rival.merchantId, `owner@rival-${tag}.cl`, 'owner'),
  ]);
  return { t, shop, rival, owner, dispatcher, viewer, rivalOwner };
}

/**
 * One operation with a session cookie (CSRF header, `X-Mode`); the value of its single root field.
 * A top-level GraphQL error fails the test: every expected refusal is a typed AppError result.
 */
export async function as(t: TestApp, cookie: string, query: string, options: { variables?: Record<string, unknown>; mode?: Mode } = {}): Promise<Data> {
  const res = await gqlAs(t, cookie, query, { mode: options.mode ?? 'test', ...(options.variables && { variables: options.variables }) });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  const values = Object.values(res.body.data as object);
  expect(values).toHaveLength(1);
  return values[0];
}

/** Expects the typed FORBIDDEN_ROLE refusal naming the caller's role. */
export function expectForbidden(result: Data, role: 'viewer' | 'dispatcher'): void {
  expect(result).toMatchObject({ __typename: 'AppError', code: 'FORBIDDEN_ROLE', message: expect.stringMatching(new RegExp(`^A ${role} cannot do this`)) });
}

/** An order input with coordinates (no geocoding) at `pickup`. */
export const orderInput = (pickup = PLACES.providencia, extra: Record<string, unknown> = {}) => ({
  pickup: { address: 'Av. Providencia 1234', coords: pickup },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
  customerName: 'Camila Rojas',
  customerPhone: '+56912345678',
  ...extra,
});

export interface Stream {
  data: Data[];
  errors: unknown[];
  closes: number[];
  client: Client;
}

/** A browser's graphql-ws client: the cookie and this server's Origin on the upgrade, `{mode}` in connection_init. */
export function browserSubscribe(t: TestApp, cookie: string, mode: Mode, query: string, variables?: Record<string, unknown>): Stream {
  const closes: number[] = [];
  class BrowserSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie, origin: t.url } });
    }
  }
  const client = createClient({
    url: `${t.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: BrowserSocket,
    connectionParams: { mode },
    retryAttempts: 0,
    lazy: true,
    on: { closed: (event) => void closes.push((event as CloseEvent).code) },
  });
  const stream: Stream = { data: [], errors: [], closes, client };
  client.subscribe<Data>(
    { query, ...(variables && { variables }) },
    {
      next: (r) => void (r.errors ? stream.errors.push(...r.errors) : stream.data.push(r.data)),
      error: (e) => void stream.errors.push(e),
      complete: () => {},
    },
  );
  return stream;
}
