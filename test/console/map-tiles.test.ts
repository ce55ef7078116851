import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES } from '../orders/support.js';
import { acceptInvitation, invitationLink, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the merchant console street tiles');
// A 1×1 grey PNG: every tile the map asks for.
const TILE = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg==', 'base64');

describe.skipIf(SKIP !== null)('merchant console: street tiles from MAP_TILE_URL', () => {
  let tiles: Server;
  const asked: string[] = [];
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;

  beforeAll(async () => {
    tiles = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(TILE);
    });
    await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
    const port = (tiles.address() as AddressInfo).port;
    t = await startConsoleApp({ MAP_TILE_URL: `http://127.0.0.1:${port}/{z}/{x}/{y}.png`, MAP_TILE_ATTRIBUTION: '© Teselas de prueba', SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Mapas' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
    await new Promise((resolve) => tiles?.close(resolve));
  });

  it('loads the configured tiles under the CSP, with their attribution, around the quoted points', async () => {
    const page = b.page;
    await acceptInvitation(page, await invitationLink(t, m.merchantId, 'mapa@tienda.cl', 'dispatcher'));
    await page.getByRole('link', { name: 'Nuevo pedido' }).click();
    await page.getByLabel('Coordenadas').check();
    await page.getByLabel('Latitud').fill(String(PLACES.nunoa.lat));
    await page.getByLabel('Longitud').fill(String(PLACES.nunoa.lng));
    await page.getByLabel('Nombre del cliente').fill('Ana');
    await page.getByLabel('Teléfono del cliente').fill('+56987654321');
    await page.locator('#get-quote').click();
    await page.locator('#quote img.leaflet-tile-loaded').first().waitFor();
    expect(await page.locator('#quote .leaflet-control-attribution').textContent()).toContain('© Teselas de prueba');
    // Tiles around Santiago (-70.6°): the map fitted the merchant's pickup and the drop-off.
    const zooms = asked.map((path) => /^\/(\d+)\/(\d+)\/(\d+)\.png$/.exec(path)).filter((match) => match !== null);
    expect(zooms.length).toBe(asked.length);
    expect(zooms.length).toBeGreaterThan(0);
    for (const [, z, x] of zooms) {
      const west = (Number(x) / 2 ** Number(z)) * 360 - 180;
      expect(west).toBeGreaterThan(-72);
      expect(west).toBeLessThan(-69);
    }
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
