import { readFileSync } from 'node:fs';
import { deflateSync, crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PLACES, courierOnDuty, expectOk, formA, merchantApi, north } from '../orders/support.js';
import { jpegSize } from '../courier/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the console order page proof');
const PHOTO = readFileSync(new URL('../fixtures/courier-photo.jpg', import.meta.url));

/** A 40×20 grey PNG (a signature stand-in the browser can decode). */
function signaturePng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const [width, height] = [40, 20];
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; colour type 0 (grey)
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(width, 0x80)])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * Issue #27: the merchant sees a hosted proof of delivery on the console's order page — the photo
 * and the signature as images loaded through their signed links, and the geofence verdict.
 */
describe.skipIf(SKIP !== null)('console: the order page shows the hosted proof', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let b: OfflinePage;
  let orderId: string;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    m = await t.createMerchant({ name: 'Café Central', address: 'Av. Providencia 1234, Providencia' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 }, locale: 'es-CL', timezoneId: 'America/Santiago' });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('a courier delivers with an uploaded photo and signature', async () => {
    const courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 200) });
    // With sizes (issue #30 item 6): the order page shows each item's and the parcel's.
    const items = [{ name: 'Torta de mil hojas', quantity: 1, weight_kg: 1.2, length_cm: 30, width_cm: 30, height_cm: 12.5 }, { name: 'Velas', quantity: 2 }];
    const created = expectOk(await merchantApi(t, m.liveKey).create(formA({ items, dimensions: { length_cm: 35, width_cm: 35, height_cm: 20 } })), 201).body as { booking_id: string; status: string };
    expect(created.status).toBe('assigned');
    orderId = created.booking_id;
    const upload = async (kind: string, body: Buffer, type: string) => {
      const res = await fetch(`${t.url}/api/v1/couriers/me/orders/${orderId}/proof?kind=${kind}`, { method: 'POST', headers: { authorization: `Bearer ${courier.token}`, 'content-type': type }, body: new Uint8Array(body) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { proof_id: string }).proof_id;
    };
    const [photo, signature] = [await upload('photo', PHOTO, 'image/jpeg'), await upload('signature', signaturePng(), 'image/png')];
    for (const status of ['picked_up', 'arrived_dropoff']) expectOk(await courier.status(orderId, status));
    expectOk(await courier.deliver(orderId, { driver_id: courier.id, coords: north(PLACES.lasCondes, 8), photo_proof_id: photo, signature_proof_id: signature }));
  });

  it('the order page shows both images, loaded, and the geofence verdict', async () => {
    await acceptInvitation(b.page, await invitationLink(t, m.merchantId, 'ana@cafe.cl', 'owner'));
    await b.page.locator('#mode-switch [data-mode=live]').click();
    await b.page.locator('#orders').waitFor();
    await b.page.goto(`${t.url}/console/orders/${orderId}`);
    await b.page.locator('#order[data-status=completed]').waitFor();
    expect(await b.page.locator('#proof-geofence').getAttribute('data-geofence')).toBe('passed');
    expect(await b.page.locator('#proof-geofence').textContent()).toBe('verificada · 8 m');
    // The photo as stored: re-encoded with its long side at most 1600 px (issue #39).
    for (const [id, width] of [['#proof-photo img', Math.min(1600, jpegSize(PHOTO).width)], ['#proof-signature img', 40]] as const) {
      const img = b.page.locator(id);
      expect(await img.getAttribute('src')).toMatch(/^\/api\/v1\/proofs\/pf_[0-9A-Z]+\?expires=\d+&sig=/);
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 15_000 }).toBe(width);
    }
    expect(await b.page.locator('#proof-photo img').getAttribute('alt')).toBe('Foto');
    expect(await b.page.locator('#order-parcel').textContent()).toBe('35 × 35 × 20 cm · 1,2 kg');
    expect(await b.page.locator('#order-items li').allTextContents()).toEqual(['1 × Torta de mil hojas · 30 × 30 × 12,5 cm · 1,2 kg', '2 × Velas']);
    expect(await seriousViolations(b.page)).toEqual([]);
  });

  it('asked no other host and logged no console error', () => {
    expect(b.foreign).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
