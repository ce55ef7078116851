import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { trackingResponseSchema } from '../../rest/openapi/responses-tracking.js';
import { api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectError, expectOk, expectWireShape, formA, merchantApi } from '../orders/support.js';

/** Issue #28 item 2: capability tracking links, budgeted per link; numbers typed by hand budgeted per address, without an oracle. */
const PUBLIC_LIMIT = 60;
const CUSTOMERS = 300;
const NAT = '198.51.100.77';

type Created = { booking_id: string; tracking_number: string; tracking_url: string };

describe('capability tracking links and the tracking budgets', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const orders: Created[] = [];
  const from = (address: string, headers: Record<string, string> = {}) => ({ headers: { 'x-forwarded-for': address, ...headers } });
  const pathOf = (url: string) => url.slice(url.indexOf('/track/'));
  const capabilityOf = (url: string) => new URL(url).searchParams.get('k')!;

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: String(PUBLIC_LIMIT), TRUST_PROXY: '127.0.0.1,::1' } });
    m = await t.createMerchant({ name: 'Empanadas Doña Rosa' });
    const merchant = merchantApi(t, m.testKey);
    for (let i = 0; i < CUSTOMERS; i++) {
      orders.push(expectOk(await merchant.create(formA({ items: [{ name: 'Empanada de pino', quantity: 2 }] })), 201).body as Created);
    }
  }, 180_000);
  afterAll(() => t?.stop());

  it('puts an unguessable capability (22 base64url characters, 132 bits) in tracking_url, the same in REST and GraphQL', async () => {
    const [first, second] = orders as [Created, Created];
    expect(first.tracking_url).toMatch(new RegExp(`^${t.url.replace('127.0.0.1', 'localhost').replace(/^http:\/\/localhost/, 'http://(localhost|127\\.0\\.0\\.1)')}/track/${first.tracking_number}\\?k=[A-Za-z0-9_-]{22}$`));
    expect(capabilityOf(first.tracking_url)).not.toBe(capabilityOf(second.tracking_url));
    const read = expectOk(await merchantApi(t, m.testKey).get(first.booking_id)).body as Created;
    expect(read.tracking_url).toBe(first.tracking_url);
    const viaGraphql = await gql(t.url, 'query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { trackingUrl } } } }', { key: m.testKey, variables: { id: first.booking_id } });
    expect(viaGraphql.body.data.order.data.trackingUrl).toBe(first.tracking_url);
  });

  it(`${CUSTOMERS} different customers' links opened from one address within a minute all render and go live`, async () => {
    const sockets: WebSocket[] = [];
    try {
      let next = 0;
      const openOne = async (order: Created) => {
        // One page request…
        const page = await fetch(`${t.url}${pathOf(order.tracking_url)}`, from(NAT, { accept: 'text/html', 'accept-language': 'es-CL' }));
        expect(page.status).toBe(200);
        const html = await page.text();
        expect(html).toContain(order.tracking_number);
        expect(html).toContain('Empanadas Doña Rosa');
        // …plus one socket, with the page's capability.
        const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/api/v1/tracking/${order.tracking_number}/live?k=${capabilityOf(order.tracking_url)}`, { headers: { 'x-forwarded-for': NAT } });
        sockets.push(ws);
        const first = await new Promise<{ type: string }>((resolve, reject) => {
          ws.once('message', (data) => resolve(JSON.parse(String(data)) as { type: string }));
          ws.once('close', (code) => reject(new Error(`socket closed with ${code}`)));
          ws.once('error', reject);
        });
        expect(first.type).toBe('snapshot');
      };
      const worker = async () => {
        while (next < orders.length) await openOne(orders[next++]!);
      };
      await Promise.all(Array.from({ length: 10 }, worker));
      expect(sockets.filter((ws) => ws.readyState === WebSocket.OPEN)).toHaveLength(CUSTOMERS);
      // The address's own budget is untouched by all that: a number typed by hand still answers.
      const typed = expectOk(await api(`${t.url}/api/v1/tracking/${orders[0]!.tracking_number}`, from(NAT)));
      expect(typed.headers.get('ratelimit-remaining')).toBe(String(PUBLIC_LIMIT - 1));
    } finally {
      for (const ws of sockets) ws.terminate();
    }
  }, 180_000);

  it('budgets views through one link per link, whatever the address (REST with ?k= too)', async () => {
    const order = orders[1]!;
    const k = capabilityOf(order.tracking_url);
    const first = expectOk(await api(`${t.url}/api/v1/tracking/${order.tracking_number}?k=${k}`, from('198.51.100.1')));
    expectWireShape(trackingResponseSchema, first.body);
    // The page view and socket of the test above took two of this link's units.
    const limit = Number(first.headers.get('ratelimit-limit'));
    expect(limit).toBe(30);
    expect(Number(first.headers.get('ratelimit-remaining'))).toBe(limit - 4 + 1);
    for (let i = Number(first.headers.get('ratelimit-remaining')); i > 0; i--) {
      expectOk(await api(`${t.url}/api/v1/tracking/${order.tracking_number}?k=${k}`, from(`203.0.113.${i}`)));
    }
    const spent = expectError(await api(`${t.url}/api/v1/tracking/${order.tracking_number}?k=${k}`, from('203.0.113.200')), 429, 'RATE_LIMITED');
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The same number without (or with a wrong) capability is a number typed by hand: the address's budget.
    expectOk(await api(`${t.url}/api/v1/tracking/${order.tracking_number}`, from('203.0.113.200')));
    const wrong = expectOk(await api(`${t.url}/api/v1/tracking/${order.tracking_number}?k=${'A'.repeat(22)}`, from('203.0.113.200')));
    expect(wrong.headers.get('ratelimit-limit')).toBe(String(PUBLIC_LIMIT));
    expect(wrong.headers.get('ratelimit-remaining')).toBe(String(PUBLIC_LIMIT - 2));
  });

  it(`${CUSTOMERS} guessed numbers from one address: refused after the budget, known and unknown alike`, async () => {
    const guesser = '198.51.100.99';
    const answers: Array<{ known: boolean; status: number; code: string | undefined; headers: string[] }> = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const known = i % 2 === 0;
      const reference = known ? orders[i]!.tracking_number : `EXD-${String(i).padStart(4, '0')}-ZZZZ-${known ? 'AAAA' : 'BBBB'}`;
      const res = await api(`${t.url}/api/v1/tracking/${reference}`, from(guesser));
      answers.push({ known, status: res.status, code: res.body?.error?.code, headers: [...res.headers.keys()].filter((h) => !['date', 'x-request-id', 'content-length', 'etag'].includes(h)).sort() });
    }
    const within = answers.slice(0, PUBLIC_LIMIT);
    expect(within.filter((a) => a.known).every((a) => a.status === 200)).toBe(true);
    expect(within.filter((a) => !a.known).every((a) => a.status === 404 && a.code === 'ORDER_NOT_FOUND')).toBe(true);
    const after = answers.slice(PUBLIC_LIMIT);
    expect(after.every((a) => a.status === 429 && a.code === 'RATE_LIMITED')).toBe(true);
    // No difference between a known and an unknown number once refused: same status, code and headers.
    const knownRefused = after.filter((a) => a.known);
    const unknownRefused = after.filter((a) => !a.known);
    expect(new Set(knownRefused.map((a) => JSON.stringify(a.headers)))).toEqual(new Set(unknownRefused.map((a) => JSON.stringify(a.headers))));
    // The bodies too, word for word (the retry time aside).
    const bodyOf = async (reference: string) => (await (await fetch(`${t.url}/api/v1/tracking/${reference}`, from(guesser))).text()).replace(/retry in \d+ s/, 'retry in N s');
    expect(await bodyOf(orders[0]!.tracking_number)).toBe(await bodyOf('EXD-0000-ZZZZ-BBBB'));
    // The page alike: a browser gets the same 429 page for a known and an unknown number.
    const pageOf = async (reference: string) =>
      (await (await fetch(`${t.url}/track/${reference}`, from(guesser, { accept: 'text/html' }))).text()).replace(/\d+ s\b/, 'N s').replace(reference, 'REFERENCE');
    expect(await pageOf(orders[0]!.tracking_number)).toBe(await pageOf('EXD-0000-ZZZZ-BBBB'));
  }, 60_000);

  it('negotiates: a browser gets 404 and 429 pages in its language, an API client JSON errors', async () => {
    const unknown = '/track/EXD-AAAA-BBBB-CCCC';
    const es = await fetch(`${t.url}${unknown}`, from('198.51.100.120', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }));
    expect(es.status).toBe(404);
    expect(es.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const esHtml = await es.text();
    expect(esHtml).toContain('<html lang="es-CL">');
    expect(esHtml).toContain('No encontramos tu envío');
    const en = await fetch(`${t.url}${unknown}`, from('198.51.100.120', { accept: 'text/html', 'accept-language': 'en-US,en;q=0.9' }));
    expect(await en.text()).toContain('Delivery not found');
    const enByQuery = await fetch(`${t.url}${unknown}?lang=en`, from('198.51.100.120', { accept: 'text/html', 'accept-language': 'es-CL' }));
    expect(await enByQuery.text()).toContain('Delivery not found');
    expectError(await api(`${t.url}${unknown}`, from('198.51.100.120', { accept: 'application/json' })), 404, 'ORDER_NOT_FOUND');

    const spent = '198.51.100.121';
    for (let i = 0; i < PUBLIC_LIMIT; i++) await api(`${t.url}/api/v1/tracking/EXD-AAAA-BBBB-CCCC`, from(spent));
    const page = await fetch(`${t.url}${unknown}`, from(spent, { accept: 'text/html' }));
    expect(page.status).toBe(429);
    const retry = page.headers.get('retry-after')!;
    expect(Number(retry)).toBeGreaterThanOrEqual(1);
    expect(await page.text()).toContain(`Vuelve a intentarlo en ${retry} s`);
    const english = await fetch(`${t.url}${unknown}?lang=en`, from(spent, { accept: 'text/html' }));
    expect(await english.text()).toMatch(/Try again in \d+ s/);
    const json = expectError(await api(`${t.url}${unknown}`, from(spent, { accept: 'application/json' })), 429, 'RATE_LIMITED');
    expect(json.headers.get('retry-after')).not.toBeNull();
    expectError(await api(`${t.url}/api/v1/tracking/EXD-AAAA-BBBB-CCCC`, from(spent, { accept: 'text/html' })), 429, 'RATE_LIMITED');
  });
});
