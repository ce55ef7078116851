/**
 * Hosted proofs of delivery (issues #27, #39): upload (type by bytes, size limit, only the order's
 * courier, re-encoded so no metadata or hidden data survives), delivery naming the proofs, the
 * merchant's signed links; the upload budgets (per stop, per courier and day, the store's size and
 * its disk's free room) and the sweep of uploads no delivery refers to.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, makeDataDir, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, createCourier, expectOk, startOrdersApp } from '../orders/support.js';
import { assignedOrder } from '../realtime/support.js';
import { sniffImageType } from '../../src/domain/proofs/images.js';
import { SECRETS, dimensionsOf, jpegWithGps, jpegWithTrailer, photo as plainPhoto, pngWithPrivateChunk, signature, webpWithUnknownChunk } from './images.js';

const jpeg = () => jpegWithGps();
const png = () => signature();

interface Uploaded {
  status: number;
  headers: Headers;
  body: { proof_id: string; error?: { code: string; message: string; details?: Record<string, unknown> }; [k: string]: unknown };
}

/** POST /couriers/me/orders/{id}/proof?kind=… with the raw image body. */
async function uploadTo(t: TestApp, token: string, id: string, kind: string, bytes: Buffer | Promise<Buffer>, type: string): Promise<Uploaded> {
  const res = await fetch(`${t.url}/api/v1/couriers/me/orders/${id}/proof?kind=${kind}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body: new Uint8Array(await bytes) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Uploaded['body'] };
}

describe('proof upload and signed links', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startOrdersApp({ env: { PROOF_MAX_BYTES: '65536' } });
    m = await t.createMerchant({ name: 'Proof Merchant' });
  });
  afterAll(() => t?.stop());

  const upload = (token: string, id: string, kind: string, bytes: Buffer | Promise<Buffer>, type: string) => uploadTo(t, token, id, kind, bytes, type);

  it('the order\'s courier uploads photo and signature, delivers with their ids; the merchant reads them through signed links only', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const other = await createCourier(t, { mode: 'live' });
    expect((await upload(other.token, order.booking_id, 'photo', jpeg(), 'image/jpeg')).status).toBe(404);
    expect((await upload(courier.token, order.booking_id, 'photo', png(), 'image/jpeg')).status).toBe(415);
    expect((await upload(courier.token, order.booking_id, 'photo', Buffer.from('GIF89a....'), 'image/gif')).status).toBe(415);
    expect((await upload(courier.token, order.booking_id, 'photo', Buffer.alloc(70_000, 0xff), 'image/jpeg')).status).toBe(413);
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
    for (const secret of SECRETS) expect(bytes.includes(Buffer.from(secret, 'latin1'))).toBe(false);

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
  it('re-encodes every upload: GPS EXIF, data after the JPEG end, a private PNG chunk and an unknown WebP chunk are gone from the stored bytes', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const cases = [
      ['image/jpeg', await jpegWithGps()],
      ['image/jpeg', await jpegWithTrailer()],
      ['image/png', await pngWithPrivateChunk()],
      ['image/webp', await webpWithUnknownChunk()],
    ] as const;
    for (const [type, bytes] of cases) {
      // What is sent holds the secrets (else this test would prove nothing).
      expect(SECRETS.some((secret) => bytes.includes(Buffer.from(secret, 'latin1'))), type).toBe(true);
      const uploaded = await upload(courier.token, order.booking_id, 'photo', bytes, type);
      expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
      const stored = await t.app.container.store.proofs.read(uploaded.body.proof_id);
      expect(stored).not.toBeNull();
      const data = stored!.data;
      for (const secret of SECRETS) expect(data.includes(Buffer.from(secret, 'latin1')), `${type} keeps ${secret}`).toBe(false);
      expect(sniffImageType(data)).toBe(type);
      expect(uploaded.body).toMatchObject({ content_type: type, bytes: data.length });
      const meta = await dimensionsOf(data);
      expect(meta.exif).toBe(false);
      // Nothing after the image's own end.
      if (type === 'image/jpeg') expect(data.subarray(-2).equals(Buffer.from([0xff, 0xd9]))).toBe(true);
      if (type === 'image/png') expect(data.subarray(-8, -4).toString('latin1')).toBe('IEND');
      if (type === 'image/webp') expect(data.readUInt32LE(4) + 8).toBe(data.length);
    }
    // The EXIF orientation (6: turned a quarter) is applied to the pixels before it goes: 40×20 is stored 20×40.
    const turned = await upload(courier.token, order.booking_id, 'photo', jpegWithGps(), 'image/jpeg');
    expect(await dimensionsOf((await t.app.container.store.proofs.read(turned.body.proof_id))!.data)).toMatchObject({ width: 20, height: 40 });
  });

  it('bounds the stored size (long side 1600 px) and refuses bytes of the right magic that do not decode', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const wide = await upload(courier.token, order.booking_id, 'photo', plainPhoto(3000, 1000), 'image/jpeg');
    expect(wide.status).toBe(201);
    expect(await dimensionsOf((await t.app.container.store.proofs.read(wide.body.proof_id))!.data)).toMatchObject({ width: 1600, height: 533, format: 'jpeg' });
    const broken = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(400, 0x41)]);
    const refused = await upload(courier.token, order.booking_id, 'photo', broken, 'image/jpeg');
    expect(refused.status).toBe(415);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('a stop takes 5 photos and 2 signatures: the 6th photo and the 3rd signature are 409 PROOF_QUOTA_EXCEEDED, in the error shape', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const statuses: number[] = [];
    let refused: Uploaded | null = null;
    for (let i = 0; i < 12; i++) {
      const answer = await upload(courier.token, order.booking_id, 'photo', plainPhoto(), 'image/jpeg');
      statuses.push(answer.status);
      if (answer.status !== 201) refused = answer;
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
    expect(refused!.body).toMatchObject({ success: false, error: { code: 'PROOF_QUOTA_EXCEEDED', details: { kind: 'photo', limit: 5 } } });
    const signatures = [];
    for (let i = 0; i < 3; i++) signatures.push((await upload(courier.token, order.booking_id, 'signature', png(), 'image/png')).status);
    expect(signatures).toEqual([201, 201, 409]);
    // Another order's stop has its own budget; the refused uploads stored nothing.
    const elsewhere = await assignedOrder(t, m.liveKey);
    expect((await upload(elsewhere.courier.token, elsewhere.order.booking_id, 'photo', plainPhoto(), 'image/jpeg')).status).toBe(201);
    const kept = await t.app.container.store.proofs.unsettled({ createdBefore: new Date(Date.now() + 60_000).toISOString(), limit: 1000 });
    expect(kept.filter((r) => r.orderId === order.booking_id)).toHaveLength(7);
  });
});

describe('upload budgets: bytes per courier and day, the store\'s size, the disk\'s free room', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.stop();
  });
  const start = async (env: Record<string, string>) => {
    const t = await startOrdersApp({ env });
    apps.push(t);
    return { t, m: await t.createMerchant({ name: 'Budget Merchant' }) };
  };

  it('a courier\'s uploads past PROOF_COURIER_DAILY_BYTES in a UTC day are 429 PROOF_BUDGET_EXCEEDED with Retry-After until midnight', async () => {
    const image = await plainPhoto(200, 200);
    const { t, m } = await start({ PROOF_COURIER_DAILY_BYTES: String(Math.max(1024, Math.floor(image.length * 2.5))) });
    const { order, courier } = await assignedOrder(t, m.liveKey);
    expect(image.length * 3).toBeGreaterThan(Math.max(1024, Math.floor(image.length * 2.5)));
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await uploadTo(t, courier.token, order.booking_id, 'photo', image, 'image/jpeg'));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 429]);
    const refused = answers[2]!;
    expect(refused.body).toMatchObject({ success: false, error: { code: 'PROOF_BUDGET_EXCEEDED', details: { limit_bytes: expect.any(Number), retry_after_seconds: expect.any(Number) } } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // The budget is the courier's: another courier uploads the same bytes.
    const other = await assignedOrder(t, m.liveKey);
    expect((await uploadTo(t, other.courier.token, other.order.booking_id, 'photo', image, 'image/jpeg')).status).toBe(201);
  });

  it('past PROOF_STORE_MAX_BYTES the upload is 507 PROOF_STORAGE_FULL before anything is written', async () => {
    const { t, m } = await start({ PROOF_STORE_MAX_BYTES: '1' });
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const refused = await uploadTo(t, courier.token, order.booking_id, 'photo', plainPhoto(), 'image/jpeg');
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'PROOF_STORAGE_FULL', details: { reason: 'store_budget' } } });
    expect(await t.app.container.store.proofs.space()).toMatchObject({ usedBytes: 0 });
    expect(await t.app.container.store.proofs.unsettled({ createdBefore: new Date(Date.now() + 60_000).toISOString(), limit: 10 })).toEqual([]);
  });

  it('with the disk\'s free room under PROOF_MIN_FREE_BYTES the upload is 507 PROOF_STORAGE_FULL (disk_free_space)', async () => {
    const { t, m } = await start({ PROOF_MIN_FREE_BYTES: String(2 ** 52) });
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const refused = await uploadTo(t, courier.token, order.booking_id, 'photo', plainPhoto(), 'image/jpeg');
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'PROOF_STORAGE_FULL', details: { reason: 'disk_free_space' } } });
    expect(await t.app.container.store.proofs.space()).toMatchObject({ usedBytes: 0 });
  });
});

describe('uploads no delivery refers to are removed within a day (virtual clock, across a restart)', () => {
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const dataDir = makeDataDir();
  let t: TestApp;
  afterAll(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the retention run removes an unused upload past PROOF_UNUSED_HOURS and keeps (and settles) the ones the delivery names', async () => {
    t = await startOrdersApp({ dataDir, clock });
    const m = await t.createMerchant({ name: 'Sweep Merchant' });
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const used = (await uploadTo(t, courier.token, order.booking_id, 'photo', plainPhoto(), 'image/jpeg')).body.proof_id;
    const unused = (await uploadTo(t, courier.token, order.booking_id, 'photo', plainPhoto(), 'image/jpeg')).body.proof_id;
    const signed = (await uploadTo(t, courier.token, order.booking_id, 'signature', png(), 'image/png')).body.proof_id;
    for (const status of ['picked_up', 'arrived_dropoff']) expectOk(await courier.status(order.booking_id, status));
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${order.booking_id}/deliver`, { key: courier.token, body: { driver_id: courier.id, coords: PLACES.lasCondes, photo_proof_id: used, signature_proof_id: signed } }));

    // 11 hours on: nothing is old enough.
    offsetMs = 11 * 3_600_000;
    expect(await t.app.container.services.retention.pruneStorage()).toMatchObject({ unusedProofs: 0 });
    expect(await t.app.container.store.proofs.find(unused)).not.toBeNull();

    // 13 hours on, after a restart: the unused upload goes, files and all; the delivery's stay readable.
    await t.stop();
    offsetMs = 13 * 3_600_000;
    t = await startOrdersApp({ dataDir, clock });
    // The node's retention runner starts with a run of its own: this one or that one removes it.
    await t.app.container.services.retention.pruneStorage();
    const { store } = t.app.container;
    expect(await store.proofs.find(unused)).toBeNull();
    expect(existsSync(join(dataDir, 'proofs', 'records', `${unused}.json`))).toBe(false);
    expect(existsSync(join(dataDir, 'proofs', 'refs', unused))).toBe(false);
    for (const id of [used, signed]) expect((await store.proofs.read(id))?.data.length).toBeGreaterThan(0);
    // Settled: the next runs do not look at them again, and keep them until PROOF_RETENTION_DAYS.
    expect(await store.proofs.unsettled({ createdBefore: clock.now().toISOString(), limit: 10 })).toEqual([]);
    offsetMs = 30 * 86_400_000;
    expect(await t.app.container.services.retention.pruneStorage()).toMatchObject({ unusedProofs: 0, proofs: 0 });
    expect(await store.proofs.find(used)).not.toBeNull();
  });
});
