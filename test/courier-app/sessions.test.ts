/**
 * The courier app's sign-in (issue #27): a one-time link from courier:create / courier:invite,
 * exchanged for an HttpOnly session cookie that authenticates the courier REST paths (CSRF header on
 * changes) and the courier socket (same Origin), revoked by disable and token rotation, and never
 * mixed with a member's session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { api, gql, startTestApp, type TestApp } from '../helpers/app.js';
import { cookieFrom, invite, logIn, PASSWORD, SET_PASSWORD, gqlAs } from '../members/support.js';
import { asCourierApp, codeOf, signIn } from './support.js';

async function newCourier(t: TestApp, n: number) {
  return t.app.container.services.admin.createCourier({
    input: { name: `App Courier ${n}`, phone: `+5698${String(1_000_000 + n).slice(-7)}`, vehicle: 'motorcycle', plate: `AP${1000 + n}`, mode: 'test' },
  });
}

function upgrade(t: TestApp, headers: Record<string, string>): Promise<{ status: number; ws?: WebSocket; firstFrame?: unknown }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/api/v1/couriers/me/live`, { headers });
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.once('message', (data) => resolve({ status: 101, ws, firstFrame: JSON.parse(String(data)) }));
  });
}

describe('courier app sessions', () => {
  let t: TestApp;
  let n = 0;
  beforeAll(async () => {
    t = await startTestApp({ env: { CREDENTIAL_RECHECK_MS: '200', LOGIN_MAX_FAILURES_PER_ADDRESS: '4' } });
  });
  afterAll(() => t?.stop());

  it('courier:create gives a one-time link; the code signs in once, sets an HttpOnly SameSite=Strict cookie, and GET /couriers/me answers', async () => {
    const created = await newCourier(t, ++n);
    expect(created.signInUrl).toMatch(new RegExp(`^${t.url.replace(/[.:/]/g, '\\$&')}/courier/welcome#code=cc_[A-Za-z0-9_-]{43}$|/courier/welcome#code=cc_`));
    const { res, cookie } = await signIn(t, codeOf(created.signInUrl));
    expect(res.status).toBe(201);
    expect(res.body.courier).toMatchObject({ id: created.courierId, name: `App Courier ${n}`, vehicle_type: 'motorcycle', is_test: true });
    const attributes = res.headers.getSetCookie()[0]!.split(';').map((a) => a.trim());
    expect(attributes[0]).toMatch(/^exd_courier_session=cs_[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Strict']));
    expect(attributes).not.toContain('Secure');

    const me = await asCourierApp(t, cookie!, '/couriers/me');
    expect(me.status).toBe(200);
    expect(me.body.courier.id).toBe(created.courierId);

    const again = await signIn(t, codeOf(created.signInUrl));
    expect(again.res.status).toBe(400);
    expect(again.res.body.error.code).toBe('SIGN_IN_LINK_INVALID');
    expect(again.cookie).toBeNull();
  });

  it('a changing request with the cookie needs X-Courier-CSRF; with it, duty works; the raw token keeps working', async () => {
    const created = await newCourier(t, ++n);
    const { cookie } = await signIn(t, codeOf(created.signInUrl));
    const refused = await asCourierApp(t, cookie!, '/couriers/me/duty', { body: { on_duty: true }, csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('CSRF_REQUIRED');
    const empty = await asCourierApp(t, cookie!, '/couriers/me/duty', { body: { on_duty: true }, csrf: false, headers: { 'x-courier-csrf': ' ' } });
    expect(empty.status).toBe(403);
    const on = await asCourierApp(t, cookie!, '/couriers/me/duty', { body: { on_duty: true } });
    expect(on.status).toBe(200);
    expect(on.body.courier.status).toBe('available');
    const off = await api(`${t.url}/api/v1/couriers/me/duty`, { key: created.token, body: { on_duty: false } });
    expect(off.status).toBe(200);
  });

  it('courier:invite replaces the older link; unknown and malformed codes are refused alike; failures are rate-limited per address', async () => {
    const created = await newCourier(t, ++n);
    const invited = await t.app.container.services.admin.inviteCourier({ input: { courierId: created.courierId } });
    const old = await signIn(t, codeOf(created.signInUrl));
    expect(old.res.body.error.code).toBe('SIGN_IN_LINK_INVALID');
    const bad = await api(`${t.url}/api/v1/couriers/sessions`, { body: { code: 42 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect((await signIn(t, 'cc_nope')).res.body.error.code).toBe('SIGN_IN_LINK_INVALID');
    expect((await signIn(t, 'cc_nope2')).res.body.error.code).toBe('SIGN_IN_LINK_INVALID');
    // Four failures from this address (LOGIN_MAX_FAILURES_PER_ADDRESS=4, the first test's reuse included): even the right code waits.
    const locked = await signIn(t, codeOf(invited.signInUrl));
    expect(locked.res.status).toBe(429);
    expect(locked.res.body.error.code).toBe('RATE_LIMITED');
  });

  it('disable and rotate-token end the sessions: REST at once, an open socket within the recheck; sign-out clears the cookie', async () => {
    // A fresh app: the previous test locked this address out of sign-ins.
    const u = await startTestApp({ env: { CREDENTIAL_RECHECK_MS: '200' } });
    try {
      const a = await newCourier(u, ++n);
      const { cookie } = await signIn(u, codeOf(a.signInUrl));
      const origin = { cookie: cookie!, origin: u.url };
      const foreign = await upgrade(u, { cookie: cookie!, origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      const open = await upgrade(u, origin);
      expect(open.status).toBe(101);
      expect(open.firstFrame).toMatchObject({ type: 'ready', courier: { id: a.courierId } });
      const closed = new Promise<number>((resolve) => open.ws!.on('close', (code) => resolve(code)));
      await u.app.container.services.admin.disableCourier({ input: { courierId: a.courierId } });
      expect((await asCourierApp(u, cookie!, '/couriers/me')).body.error.code).toBe('INVALID_SESSION');
      expect(await closed).toBe(4403);
      await u.app.container.services.admin.enableCourier({ input: { courierId: a.courierId } });
      expect((await asCourierApp(u, cookie!, '/couriers/me')).status).toBe(401);

      const b = await newCourier(u, ++n);
      const second = await signIn(u, codeOf(b.signInUrl));
      await u.app.container.services.admin.rotateCourierToken({ input: { courierId: b.courierId } });
      expect((await asCourierApp(u, second.cookie!, '/couriers/me')).status).toBe(401);

      const c = await newCourier(u, ++n);
      const third = await signIn(u, codeOf(c.signInUrl));
      const noCsrf = await asCourierApp(u, third.cookie!, '/couriers/sessions/current', { method: 'DELETE', csrf: false });
      expect(noCsrf.status).toBe(403);
      const out = await asCourierApp(u, third.cookie!, '/couriers/sessions/current', { method: 'DELETE' });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie()[0]).toMatch(/^exd_courier_session=; Max-Age=0/);
      expect((await asCourierApp(u, third.cookie!, '/couriers/me')).status).toBe(401);
    } finally {
      await u.stop();
    }
  });

  it('scopes never mix: the courier cookie is nothing to merchant REST or GraphQL; a member cookie is nothing to courier paths', async () => {
    const u = await startTestApp();
    try {
      const a = await newCourier(u, ++n);
      const { cookie } = await signIn(u, codeOf(a.signInUrl));
      const merchantRest = await asCourierApp(u, cookie!, '/orders');
      expect(merchantRest.status).toBe(401);
      const graph = await api(`${u.url}/graphql`, { body: { query: '{ me { role } }' }, headers: { cookie: cookie!, 'x-graphql-csrf': '1' } });
      expect(JSON.stringify(graph.body)).not.toContain('"role"');

      const shop = await u.createMerchant({ name: 'Scope Shop' });
      const token = await invite(u, shop.merchantId, 'owner@scope.cl', 'owner');
      await gqlAs(u, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
      const member = cookieFrom((await logIn(u, shop.merchantId, 'owner@scope.cl')).headers)!;
      const asMember = await asCourierApp(u, member, '/couriers/me');
      expect(asMember.status).toBe(401);
      expect(asMember.body.error.code).toBe('INVALID_COURIER_TOKEN');
      expect((await upgrade(u, { cookie: member, origin: u.url })).status).toBe(401);
      void gql;
    } finally {
      await u.stop();
    }
  });
});
