/**
 * The tracking page's street map and its REST paths, in headless Chromium: tiles from a local tile
 * server appear (and the schematic steps aside); with sockets refused (a proxy that blocks them) the
 * page renders from the REST snapshot and follows the order by polling.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { expectOk } from '../orders/support.js';
import { assignedOrder } from './support.js';

const SKIP = browserSkipReason('the tracking page map browser test');
const ENV = { RATE_LIMIT_PER_MIN: '100000', COURIER_RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: '100000' };
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** A 256×256 single-colour PNG: what a tile server answers. */
function tilePng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(256, 0);
  header.writeUInt32BE(256, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(256 * 3, 0xd4)]);
  const pixels = Buffer.concat(Array.from({ length: 256 }, () => row));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

describe.skipIf(SKIP !== null)('tracking page: street tiles from a tile server', () => {
  let tiles: Server;
  const tileRequests: string[] = [];
  let t: TestApp;
  let b: OfflinePage;

  beforeAll(async () => {
    const png = tilePng();
    tiles = createServer((req, res) => {
      tileRequests.push(req.url ?? '');
      if (!/^\/tiles\/\d+\/\d+\/\d+\.png$/.test(req.url ?? '')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
    const tilePort = (tiles.address() as AddressInfo).port;
    t = await startTestApp({ env: { ...ENV, MAP_TILE_URL: `http://127.0.0.1:${tilePort}/tiles/{z}/{x}/{y}.png`, MAP_TILE_ATTRIBUTION: 'Test tiles & co' } });
    b = await openOfflinePage(PHONE);
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
    tiles?.close();
  });

  it('shows the streets with the attribution, the markers on them, and hides the schematic', async () => {
    const m = await t.createMerchant({ name: 'Map Shop' });
    const { order } = await assignedOrder(t, m.liveKey);
    const response = await b.page.goto(`${t.url}/track/${order.tracking_number}`);
    expect(response?.headers()['content-security-policy']).toContain(`img-src 'self' data: http://127.0.0.1:${(tiles.address() as AddressInfo).port}`);
    await b.page.waitForFunction(() => document.getElementById('map-card')?.dataset.map === 'streets', undefined, { timeout: 15_000 });
    expect(await b.page.locator('.leaflet-tile-loaded').count()).toBeGreaterThan(0);
    expect(tileRequests.filter((url) => url.startsWith('/tiles/')).length).toBeGreaterThan(0);
    expect(await b.page.locator('.leaflet-control-attribution').textContent()).toBe('Test tiles & co');
    expect(await b.page.locator('#street-map').isVisible()).toBe(true);
    expect(await b.page.locator('#map').isVisible()).toBe(false);
    expect(await b.page.locator('path.street-pickup').count()).toBe(1);
    expect(await b.page.locator('path.street-dropoff').count()).toBe(1);
    expect(await b.page.locator('path.street-courier').count()).toBe(1);
    await b.page.screenshot({ path: 'test-results/tracking-page-streets.png' });
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});

describe.skipIf(SKIP !== null)('tracking page behind a proxy that refuses WebSockets', () => {
  let t: TestApp;
  let b: OfflinePage;

  beforeAll(async () => {
    t = await startTestApp({ env: { ...ENV, MAP_TILE_URL: 'none' } });
    b = await openOfflinePage(PHONE);
    await b.page.routeWebSocket(/\/live$/, (socket) => socket.close({ code: 1006, reason: 'blocked by the proxy' }));
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('renders from the REST snapshot, then follows the order by polling', async () => {
    const m = await t.createMerchant({ name: 'Proxy Shop' });
    const { order, courier } = await assignedOrder(t, m.liveKey, { courierName: 'Pedro Soto' });
    await b.page.goto(`${t.url}/track/${order.tracking_number}`);
    await b.page.locator('#tracking').waitFor({ state: 'visible' });
    expect(await b.page.locator('#status').getAttribute('data-status')).toBe('assigned');
    expect(await b.page.locator('#courier-name').textContent()).toBe('Pedro Soto');
    // Tiles turned off: the schematic from the start.
    expect(await b.page.locator('#map-card').getAttribute('data-map')).toBe('schematic');
    await b.page.waitForFunction(() => document.getElementById('connection')?.dataset.state === 'polling', undefined, { timeout: 15_000 });

    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    await b.page.waitForFunction(() => document.getElementById('status')?.dataset.status === 'arrived_pickup', undefined, { timeout: 15_000 });
    expect(await b.page.locator('#status').textContent()).toBe('Courier is collecting your order');
    expect(b.foreign).toEqual([]);
    // The refused sockets are the only errors the console saw.
    expect(b.problems.filter((p) => !p.includes('WebSocket'))).toEqual([]);
  });
});
