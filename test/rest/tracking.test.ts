import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackingResponseSchema } from '../../rest/openapi/responses-tracking.js';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectError, expectOk, expectWireShape } from '../orders/support.js';
import { assignedOrder, customerDataIn } from '../realtime/support.js';

const PUBLIC_LIMIT = 8;

describe('GET /api/v1/tracking/:reference', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let order: Awaited<ReturnType<typeof assignedOrder>>['order'];
  let pickup: { lat: number; lng: number };
  /** Each test asks from its own client address (via the trusted loopback proxy) so the per-IP limit stays out of the way. */
  let ip = 0;
  const track = (reference: string, init: Parameters<typeof api>[1] = {}) =>
    api(`${t.url}/api/v1/tracking/${encodeURIComponent(reference)}`, { ...init, headers: { 'x-forwarded-for': `198.51.100.${ip}`, ...init.headers } });

  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_PER_MIN: '100000', COURIER_RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: String(PUBLIC_LIMIT), TRUST_PROXY: '127.0.0.1,::1' },
    });
    m = await t.createMerchant({ name: 'Tracked Shop' });
    ({ order, pickup } = await assignedOrder(t, m.liveKey, { courierName: 'Camila Rojas' }));
  });
  afterAll(() => t.stop());

  it('finds the order by tracking number (any letter case) and by order number, without credentials', async () => {
    ip = 1;
    const byNumber = expectOk(await track(order.tracking_number));
    expectWireShape(trackingResponseSchema, byNumber.body);
    expect(byNumber.body).toMatchObject({
      success: true,
      reference: order.tracking_number,
      tracking_number: order.tracking_number,
      status: 'assigned',
      is_test: false,
      driver: { name: 'Camila Rojas', phone: '', vehicle_type: 'motorcycle', location: pickup },
      timeline: [{ status: 'new' }, { status: 'assigned' }],
    });
    const lower = expectOk(await track(order.tracking_number.toLowerCase()));
    expect(lower.body.tracking_number).toBe(order.tracking_number);
    const byOrderNumber = expectOk(await track(order.order_number));
    expect(byOrderNumber.body).toMatchObject({ reference: order.order_number, tracking_number: order.tracking_number });
  });

  it('ignores credentials entirely: a bad or foreign key changes nothing', async () => {
    ip = 2;
    expectOk(await track(order.tracking_number, { key: 'ak_live_not_a_real_key_000000000000' }));
    const other = await t.createMerchant({ name: 'Other Shop' });
    expectOk(await track(order.tracking_number, { key: other.testKey }));
  });

  it('answers 404 ORDER_NOT_FOUND for an unknown reference', async () => {
    ip = 3;
    for (const reference of ['EXD-AAAA-BBBB-CCCC', '0000000000', 'nope', order.booking_id]) {
      expectError(await track(reference), 404, 'ORDER_NOT_FOUND');
    }
  });

  it('never shows customer data', async () => {
    ip = 4;
    const res = expectOk(await track(order.tracking_number));
    expect(customerDataIn(JSON.stringify(res.body))).toEqual([]);
    expect(JSON.stringify(res.body)).not.toMatch(/customer|rut|notes|instructions|address/i);
    // The drop-off point is coarse: 3 decimals.
    for (const value of [res.body.dropoff.lat, res.body.dropoff.lng]) expect(Math.round(value * 1000) / 1000).toBe(value);
  });

  it('is rate-limited per client IP', async () => {
    ip = 5;
    for (let i = 0; i < PUBLIC_LIMIT; i++) expectOk(await track(order.tracking_number));
    const limited = expectError(await track(order.tracking_number), 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Unknown references count too (no free probing), and another address is unaffected.
    expectError(await track('EXD-AAAA-BBBB-CCCC'), 429, 'RATE_LIMITED');
    ip = 6;
    expectOk(await track(order.tracking_number));
  });
});

describe('GET /track/:reference (the customer page)', () => {
  let t: TestApp;
  let order: Awaited<ReturnType<typeof assignedOrder>>['order'];
  const page = (path: string, ip: string) => fetch(`${t.url}${path}`, { headers: { 'x-forwarded-for': ip } });

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000', COURIER_RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: '3', TRUST_PROXY: '127.0.0.1,::1' } });
    const m = await t.createMerchant({ name: 'Page Shop' });
    ({ order } = await assignedOrder(t, m.liveKey));
  });
  afterAll(() => t.stop());

  it('serves the page with its own strict CSP, 404 for an unknown reference, and its static assets', async () => {
    const res = await page(`/track/${order.tracking_number}`, '198.51.100.10');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'"]) {
      expect(csp).toContain(directive);
    }
    const html = await res.text();
    expect(html).toContain('<script src="/track/assets/track.js" defer></script>');
    // The one address of another origin is the street tile template (MAP_TILE_URL), which the CSP names for images only.
    expect(html).toContain('data-tile-url="https://tile.openstreetmap.org/{z}/{x}/{y}.png"');
    expect(csp).toContain("img-src 'self' data: https://tile.openstreetmap.org;");
    expect(html.replace(/ data-tile-url="[^"]*"/, '')).not.toMatch(/https?:\/\//);
    expect((await page('/track/EXD-AAAA-BBBB-CCCC', '198.51.100.11')).status).toBe(404);

    const script = await page('/track/assets/track.js', '198.51.100.12');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).not.toMatch(/https?:\/\//);
    expect((await page('/track/assets/track.css', '198.51.100.12')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await page('/track/assets/secrets.txt', '198.51.100.12')).status).toBe(404);
  });

  it('is rate-limited per client IP', async () => {
    for (let i = 0; i < 3; i++) expect((await page(`/track/${order.tracking_number}`, '198.51.100.20')).status).toBe(200);
    const limited = await page(`/track/${order.tracking_number}`, '198.51.100.20');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect((await page(`/track/${order.tracking_number}`, '198.51.100.21')).status).toBe(200);
  });
});
