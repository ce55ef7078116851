/**
 * Transport details behind the shipped proxy (issue #26 item 4), against a real server in the
 * compose file's proxy set-up (TRUST_PROXY=1): the headers deploy/nginx.conf sets are computed from
 * its `proxy_set_header` lines for a browser on http://localhost:8080, and the console's live socket
 * (graphql-ws with the session cookie) opened with them is accepted. HSTS is sent over HTTPS only
 * (a TLS socket or a trusted proxy's `X-Forwarded-Proto: https`), by the app and by nginx; over HTTPS
 * the session cookie is `__Host-exd_session`; over plain HTTP it keeps its name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/process.js';
import { gqlAs, invite, LOG_IN, LOG_OUT, PASSWORD, SET_PASSWORD, signedIn } from '../members/support.js';

const nginx = readFileSync(join(PROJECT_ROOT, 'deploy/nginx.conf'), 'utf8');

/** What nginx sends upstream for a browser request, from the `proxy_set_header` lines of deploy/nginx.conf. */
function proxiedHeaders(browser: { host: string; scheme: 'http' | 'https'; clientAddress: string; upgrade?: string }): Record<string, string> {
  const variables: Record<string, string> = {
    $http_host: browser.host,
    $host: browser.host.replace(/:\d+$/, '').toLowerCase(),
    $scheme: browser.scheme,
    $proxy_add_x_forwarded_for: browser.clientAddress,
    $http_upgrade: browser.upgrade ?? '',
    $connection_upgrade: browser.upgrade ? 'upgrade' : 'close',
  };
  const headers: Record<string, string> = {};
  for (const [, name, value] of nginx.matchAll(/^\s*proxy_set_header\s+(\S+)\s+(\S+);/gm)) {
    if (!(value! in variables)) throw new Error(`nginx.conf sets ${name} from ${value}, which this test does not know`);
    headers[name!.toLowerCase()] = variables[value!]!;
  }
  return headers;
}

/** The proxy's headers a fetch may carry (it sets Connection and Upgrade itself). */
function forwardedHeaders(browser: { host: string; scheme: 'http' | 'https'; clientAddress: string }): Record<string, string> {
  const { host, 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': forwardedProto } = proxiedHeaders(browser);
  return { host: host!, 'x-forwarded-for': forwardedFor!, 'x-forwarded-proto': forwardedProto! };
}

const ME = '{ me { role member { email } } }';

describe('behind deploy/nginx.conf (TRUST_PROXY=1, as in docker-compose.yml)', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: '1' } });
    shop = await t.createMerchant({ name: 'Proxy Shop' });
  });
  afterAll(() => t.stop());

  it('nginx passes the Host with its port, and the console’s live socket opened through it is accepted', async () => {
    const cookie = await signedIn(t, shop.merchantId, 'live@tienda.cl', 'viewer');
    const headers = proxiedHeaders({ host: 'localhost:8080', scheme: 'http', clientAddress: '172.18.0.1', upgrade: 'websocket' });
    expect(headers.host).toBe('localhost:8080');
    const upstream = { host: headers.host!, 'x-forwarded-for': headers['x-forwarded-for']!, 'x-forwarded-proto': headers['x-forwarded-proto']!, origin: 'http://localhost:8080', cookie };
    class ProxiedSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: upstream });
      }
    }
    const closes: number[] = [];
    const client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: ProxiedSocket,
      retryAttempts: 0,
      lazy: true,
      on: { closed: (event) => void closes.push((event as CloseEvent).code) },
    });
    try {
      const result = await new Promise<unknown>((resolve, reject) => {
        client.subscribe({ query: ME }, { next: resolve, error: reject, complete: () => {} });
      });
      expect(result).toEqual({ data: { me: { role: 'viewer', member: { email: 'live@tienda.cl' } } } });
      expect(closes).toEqual([]);
    } finally {
      await client.dispose();
    }
  });

  it('HSTS only over HTTPS: a trusted proxy saying https gets it, plain HTTP does not', async () => {
    const overHttps = forwardedHeaders({ host: 'api.example.cl', scheme: 'https', clientAddress: '203.0.113.9' });
    const overHttp = forwardedHeaders({ host: 'localhost:8080', scheme: 'http', clientAddress: '203.0.113.9' });
    for (const path of ['/api/v1/health', '/api/v1/merchants/me']) {
      const secure = await api(`${t.url}${path}`, { key: shop.testKey, headers: overHttps });
      expect(secure.headers.get('strict-transport-security'), path).toBe('max-age=31536000');
      const plain = await api(`${t.url}${path}`, { key: shop.testKey, headers: overHttp });
      expect(plain.headers.get('strict-transport-security'), path).toBeNull();
    }
    const graphql = await api(`${t.url}/graphql`, { key: shop.testKey, headers: overHttps, body: { query: '{ __typename }' } });
    expect(graphql.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });

  it('nginx sends HSTS itself over HTTPS only, and hides the nodes’ so there is one', () => {
    expect(nginx).toMatch(/map \$scheme \$strict_transport_security \{\s*https "max-age=31536000";\s*default "";\s*\}/);
    expect(nginx).toMatch(/add_header Strict-Transport-Security \$strict_transport_security always;/);
    expect(nginx).toMatch(/proxy_hide_header Strict-Transport-Security;/);
  });

  it('over HTTPS the session cookie is __Host-exd_session (Secure, Path=/, no Domain); it works, and signing out clears both names', async () => {
    const overHttps = forwardedHeaders({ host: 'api.example.cl', scheme: 'https', clientAddress: '203.0.113.10' });
    const token = await invite(t, shop.merchantId, 'secure@tienda.cl', 'dispatcher');
    await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } }, headers: overHttps });
    const login = await gqlAs(t, null, LOG_IN, { variables: { input: { merchantId: shop.merchantId, email: 'secure@tienda.cl', password: PASSWORD } }, headers: overHttps });
    const set = login.headers.getSetCookie();
    expect(set).toHaveLength(1);
    const attributes = set[0]!.split('; ');
    expect(attributes[0]).toMatch(/^__Host-exd_session=ms_[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'Secure', 'HttpOnly', 'SameSite=Lax']));
    expect(attributes.some((a) => /^domain=/i.test(a))).toBe(false);

    const cookie = attributes[0]!;
    expect((await gqlAs(t, cookie, ME, { headers: overHttps })).body.data.me.member.email).toBe('secure@tienda.cl');
    const out = await gqlAs(t, cookie, LOG_OUT, { headers: overHttps });
    expect(out.headers.getSetCookie().map((c) => c.split(';', 1)[0])).toEqual(['__Host-exd_session=', 'exd_session=']);
    expect((await gqlAs(t, cookie, ME, { headers: overHttps })).body.data?.me ?? null).toBeNull();
  });

  it('over plain HTTP the cookie keeps its name (it cannot be __Host-), and a bare one still reads over HTTPS', async () => {
    const cookie = await signedIn(t, shop.merchantId, 'plain@tienda.cl', 'viewer');
    expect(cookie).toMatch(/^exd_session=ms_/);
    const overHttps = forwardedHeaders({ host: 'api.example.cl', scheme: 'https', clientAddress: '203.0.113.11' });
    expect((await gqlAs(t, cookie, ME, { headers: overHttps })).body.data.me.member.email).toBe('plain@tienda.cl');
  });
});
