/**
 * Hosted proofs of delivery (issue #27): upload (type by bytes, size limit, only the order's
 * courier, metadata stripped), delivery naming the proofs, and the merchant's signed links.
 */
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, createCourier, expectOk, startOrdersApp } from '../orders/support.js';
import { assignedOrder } from '../realtime/support.js';
import { stripJpeg, stripPng, sniffImageType } from '../../src/domain/proofs/images.js';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A 1×1 PNG with a tEXt chunk (the metadata that must go). */
function png(): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('tEXt', Buffer.from('GPS\0-33.41,-70.60', 'latin1')),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A tiny JPEG skeleton: APP0, an APP1 Exif with orientation 6 and a GPS-ish tag, APP13, a comment, SOS. */
function jpeg(): Buffer {
  const seg = (marker: number, payload: Buffer) => {
    const h = Buffer.from([0xff, marker, 0, 0]);
    h.writeUInt16BE(payload.length + 2, 2);
    return Buffer.concat([h, payload]);
  };
  const tiff = Buffer.alloc(8 + 2 + 24 + 4);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(2, 8);
  tiff.writeUInt16LE(0x0112, 10); tiff.writeUInt16LE(3, 12); tiff.writeUInt32LE(1, 14); tiff.writeUInt16LE(6, 18);
  tiff.writeUInt16LE(0x8825, 22); tiff.writeUInt16LE(4, 24); tiff.writeUInt32LE(1, 26); tiff.writeUInt32LE(99, 30);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    seg(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    seg(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])),
    seg(0xed, Buffer.from('Photoshop 3.0\0secret', 'latin1')),
    seg(0xfe, Buffer.from('taken at home', 'latin1')),
    seg(0xdb, Buffer.alloc(65, 1)),
    seg(0xda, Buffer.from([1, 1, 0, 0, 63, 0])),
    Buffer.from([0x12, 0x34, 0xff, 0xd9]),
  ]);
}

describe('image sniffing and metadata stripping', () => {
  it('PNG: the text chunk goes, the rest stays byte for byte', () => {
    const clean = stripPng(png());
    expect(clean.includes(Buffer.from('GPS'))).toBe(false);
    expect(clean.includes(Buffer.from('IDAT'))).toBe(true);
    expect(sniffImageType(clean)).toBe('image/png');
  });
  it('JPEG: APPn but JFIF and comments go; the orientation alone is kept', () => {
    const clean = stripJpeg(jpeg());
    expect(clean.includes(Buffer.from('Photoshop'))).toBe(false);
    expect(clean.includes(Buffer.from('taken at home'))).toBe(false);
    expect(clean.includes(Buffer.from('JFIF'))).toBe(true);
    const exif = clean.indexOf(Buffer.from('Exif\0\0', 'latin1'));
    expect(exif).toBeGreaterThan(0);
    // MM, one entry: orientation 6, no GPS pointer.
    expect(clean.readUInt16BE(exif + 6 + 8)).toBe(1);
    expect(clean.readUInt16BE(exif + 6 + 18)).toBe(6);
    expect(clean.subarray(-4).equals(Buffer.from([0x12, 0x34, 0xff, 0xd9]))).toBe(true);
  });
});

describe('proof upload and signed links', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startOrdersApp({ env: { PROOF_MAX_BYTES: '4096' } });
    m = await t.createMerchant({ name: 'Proof Merchant' });
  });
  afterAll(() => t?.stop());

  const upload = (token: string, id: string, kind: string, body: Buffer, type: string) =>
    fetch(`${t.url}/api/v1/couriers/me/orders/${id}/proof?kind=${kind}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body: new Uint8Array(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { proof_id: string; [k: string]: unknown } }));

  it('the order\'s courier uploads photo and signature, delivers with their ids; the merchant reads them through signed links only', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const other = await createCourier(t, { mode: 'live' });
    expect((await upload(other.token, order.booking_id, 'photo', jpeg(), 'image/jpeg')).status).toBe(404);
    expect((await upload(courier.token, order.booking_id, 'photo', png(), 'image/jpeg')).status).toBe(415);
    expect((await upload(courier.token, order.booking_id, 'photo', Buffer.from('GIF89a....'), 'image/gif')).status).toBe(415);
    expect((await upload(courier.token, order.booking_id, 'photo', Buffer.alloc(5000, 0xff), 'image/jpeg')).status).toBe(413);
    expect((await upload(courier.token, order.booking_id, 'video', jpeg(), 'image/jpeg')).status).toBe(400);

    const photo = await upload(courier.token, order.booking_id, 'photo', jpeg(), 'image/jpeg');
    expect(photo.status).toBe(201);
    expect(photo.body).toMatchObject({ kind: 'photo', content_type: 'image/jpeg', proof_id: expect.stringMatching(/^pf_/) });
    const signature = await upload(courier.token, order.booking_id, 'signature', png(), 'image/png');
    expect(signature.status).toBe(201);

    for (const status of ['picked_up', 'arrived_dropoff']) expectOk(await courier.status(order.booking_id, status));
    const wrongKind = await api(`${t.url}/api/v1/couriers/me/orders/${order.booking_id}/deliver`, {
      key: courier.token, body: { driver_id: courier.id, coords: PLACES.lasCondes, photo_proof_id: signature.body.proof_id, signature_proof_id: signature.body.proof_id },
    });
    expect(wrongKind.status).toBe(400);
    const delivered = await api(`${t.url}/api/v1/couriers/me/orders/${order.booking_id}/deliver`, {
      key: courier.token, body: { driver_id: courier.id, coords: PLACES.lasCondes, photo_proof_id: photo.body.proof_id, signature_proof_id: signature.body.proof_id },
    });
    expect(delivered.status).toBe(200);

    const details = await api(`${t.url}/api/v1/orders/${order.booking_id}`, { key: m.liveKey });
    const photoUrl = details.body.proof.photo_url as string;
    expect(photoUrl).toMatch(/\/api\/v1\/proofs\/pf_[0-9A-Z]+\?expires=\d+&sig=/);
    const served = await fetch(photoUrl.replace(/^https?:\/\/[^/]+/, t.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(served.headers.get('cache-control')).toMatch(/^private/);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.includes(Buffer.from('Photoshop'))).toBe(false);

    const tampered = photoUrl.replace(/sig=./, (s) => (s.endsWith('A') ? 'sig=B' : 'sig=A')).replace(/^https?:\/\/[^/]+/, t.url);
    expect((await fetch(tampered)).status).toBe(404);
    const later = photoUrl.replace(/expires=(\d+)/, (_s, e: string) => `expires=${Number(e) + 1}`).replace(/^https?:\/\/[^/]+/, t.url);
    expect((await fetch(later)).status).toBe(404);
    const signer = t.app.container.services.proofs;
    const expired = signer.signedUrl(photo.body.proof_id, -1000).replace(/^https?:\/\/[^/]+/, t.url);
    expect((await fetch(expired)).status).toBe(403);

    const tracking = await api(`${t.url}/api/v1/tracking/${order.tracking_number}`);
    expect(JSON.stringify(tracking.body)).not.toContain('/api/v1/proofs/');
  });

  const DELIVER = `mutation ($id: ID!, $coords: LatLngInput!, $photo: String, $signature: String, $photoProof: String, $signatureProof: String) {
    courierConfirmDelivery(id: $id, coords: $coords, photoUrl: $photo, signatureUrl: $signature, photoProofId: $photoProof, signatureProofId: $signatureProof) {
      __typename ... on MutationCourierConfirmDeliverySuccess { data { id status proof { photoUrl signatureUrl geofence } } }
      ... on AppError { code message fields { field message } } } }`;

  it('GraphQL courierConfirmDelivery names uploaded proofs like REST: only this order\'s, of the right kind; the merchant reads signed links', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const elsewhere = await assignedOrder(t, m.liveKey);
    const photo = (await upload(courier.token, order.booking_id, 'photo', jpeg(), 'image/jpeg')).body.proof_id;
    const signature = (await upload(courier.token, order.booking_id, 'signature', png(), 'image/png')).body.proof_id;
    const foreign = (await upload(elsewhere.courier.token, elsewhere.order.booking_id, 'photo', jpeg(), 'image/jpeg')).body.proof_id;
    for (const status of ['picked_up', 'arrived_dropoff']) expectOk(await courier.status(order.booking_id, status));
    const deliver = async (variables: Record<string, unknown>) =>
      (await gql(t.url, DELIVER, { key: courier.token, variables: { id: order.booking_id, coords: PLACES.lasCondes, ...variables } })).body.data.courierConfirmDelivery;

    // Another order's photo, a signature given as the photo, neither a URL nor a proof: refused, nothing delivered.
    const other = await deliver({ photoProof: foreign, signatureProof: signature });
    // GraphQL names the fields as its arguments do (REST: photo_proof_id, photo_url).
    expect(other).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'photoProofId' }] });
    expect(await deliver({ photoProof: signature, signatureProof: signature })).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'photoProofId' }] });
    expect(await deliver({ signatureProof: signature })).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'photoUrl', message: 'exactly one of photoUrl and photoProofId is required' }] });
    expect(await deliver({ photo: 'https://cdn.example.com/p.jpg', photoProof: photo, signatureProof: signature })).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    expect((await api(`${t.url}/api/v1/orders/${order.booking_id}`, { key: m.liveKey })).body.status).toBe('arrived_dropoff');

    const done = await deliver({ photoProof: photo, signatureProof: signature });
    expect(done).toMatchObject({ __typename: 'MutationCourierConfirmDeliverySuccess', data: { id: order.booking_id, status: 'completed', proof: { geofence: 'passed' } } });
    expect(done.data.proof.photoUrl).toMatch(new RegExp(`/api/v1/proofs/${photo}\\?expires=\\d+&sig=`));
    // The merchant's GraphQL order: signed links that serve the uploaded bytes.
    const read = await gql(t.url, `query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { proof { photoUrl signatureUrl } } } } }`, { key: m.liveKey, variables: { id: order.booking_id } });
    const { photoUrl, signatureUrl } = read.body.data.order.data.proof as { photoUrl: string; signatureUrl: string };
    for (const [url, type] of [[photoUrl, 'image/jpeg'], [signatureUrl, 'image/png']] as const) {
      const served = await fetch(url.replace(/^https?:\/\/[^/]+/, t.url));
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
    }
  });
});
