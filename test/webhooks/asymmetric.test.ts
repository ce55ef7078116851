/**
 * Asymmetric (`v1a`, Ed25519) webhook signatures (issue #31 item 1), verified by two independent
 * implementations — Node's crypto.verify with the published PEM, and @noble/curves' ed25519 with
 * the published raw key — never with our own signing code. Rotation: both keys sign during the
 * overlap and both are published; a tampered body, id or timestamp verifies with neither.
 */
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type TestApp } from '../helpers/app.js';
import { expectOk, formA, merchantApi } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receipt, type Receiver } from './support.js';

let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await startWebhooksApp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

interface PublicKey { id: string; algorithm: string; public_key: string; public_key_pem: string; created_at: string; expires_at: string | null }

const publicKeys = async (key: string): Promise<PublicKey[]> => expectOk(await webhooksApi(t.url, key).publicKeys()).body.keys as PublicKey[];
const content = (r: Pick<Receipt, 'id' | 'timestamp' | 'body'>) => Buffer.from(`${r.id}.${r.timestamp}.${r.body}`);
const v1aSignatures = (header: string) => header.split(' ').map((s) => {
  expect(s).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
  return Buffer.from(s.slice(4), 'base64');
});

/** node:crypto alone, as docs/webhooks.md shows it: any v1a signature that verifies with any published PEM key. */
const verifiesWithNode = (keys: PublicKey[], r: Pick<Receipt, 'id' | 'timestamp' | 'body' | 'signature'>) =>
  v1aSignatures(r.signature).some((sig) => keys.some((k) => nodeVerify(null, content(r), createPublicKey(k.public_key_pem), sig)));
/** @noble/curves, with the raw 32-byte keys. */
const verifiesWithNoble = (keys: PublicKey[], r: Pick<Receipt, 'id' | 'timestamp' | 'body' | 'signature'>) =>
  v1aSignatures(r.signature).some((sig) => keys.some((k) => ed25519.verify(sig, content(r), Buffer.from(k.public_key, 'base64'))));

async function merchantWithAsymmetricEndpoint(tag: string) {
  const m = await t.createMerchant({ name: `Asymmetric ${tag}` });
  const path = `/${tag}`;
  const hooks = webhooksApi(t.url, m.testKey);
  const endpoint = expectOk(await hooks.create({ url: `${receiver.url}${path}`, signing: 'asymmetric' }), 201).body.endpoint;
  expect(endpoint.signing).toBe('asymmetric');
  const orders = merchantApi(t, m.testKey);
  const receipts = () => receiver.receipts.filter((r) => r.path === path);
  const createOrder = async () => expectOk(await orders.create(formA()), 201).body.booking_id as string;
  return { m, hooks, endpoint, receipts, createOrder };
}

describe('v1a (Ed25519) webhook signatures', () => {
  it('an asymmetric endpoint gets one v1a signature that both Node and @noble/curves verify with the published key; a tampered delivery verifies with neither', async () => {
    const { m, receipts, createOrder } = await merchantWithAsymmetricEndpoint('v1a');
    const keys = await publicKeys(m.testKey);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ id: expect.stringMatching(/^sec_/), algorithm: 'ed25519', expires_at: null });
    expect(Buffer.from(keys[0]!.public_key, 'base64')).toHaveLength(32);
    // The live key publishes the same key pair (it is the merchant's).
    expect(await publicKeys(m.liveKey)).toEqual(keys);

    await createOrder();
    const [r] = await waitFor(() => receipts().length >= 1 && receipts(), { what: 'a delivery' });
    expect(r!.signature.split(' ')).toHaveLength(1);
    expect(r!.signature.startsWith('v1a,')).toBe(true);
    expect(verifiesWithNode(keys, r!)).toBe(true);
    expect(verifiesWithNoble(keys, r!)).toBe(true);
    // The HMAC verifier finds no v1 signature: the API secret is not used for this endpoint.
    expect(() => new Webhook(m.apiSecret).verify(r!.body, r!.headers)).toThrow(/No matching signature/);

    const tampered = [
      { ...r!, body: r!.body.replace('"status":"new"', '"status":"completed"') },
      { ...r!, body: `${r!.body} ` },
      { ...r!, id: 'msg_forged' },
      { ...r!, timestamp: String(Number(r!.timestamp) - 600) },
    ];
    expect(tampered[0]!.body).not.toBe(r!.body);
    for (const forged of tampered) {
      expect(verifiesWithNode(keys, forged)).toBe(false);
      expect(verifiesWithNoble(keys, forged)).toBe(false);
    }
    // Another merchant's key does not verify it.
    const other = await t.createMerchant({ name: 'Asymmetric other' });
    const otherKeys = await publicKeys(other.testKey);
    expect(otherKeys[0]!.public_key).not.toBe(keys[0]!.public_key);
    expect(verifiesWithNode(otherKeys, r!)).toBe(false);
    expect(verifiesWithNoble(otherKeys, r!)).toBe(false);
  });

  it('a symmetric endpoint of the same merchant keeps v1 (the default); PATCH switches an endpoint between the two', async () => {
    const m = await t.createMerchant({ name: 'Asymmetric switch' });
    const hooks = webhooksApi(t.url, m.testKey);
    const created = expectOk(await hooks.create({ url: `${receiver.url}/switch` }), 201).body.endpoint;
    expect(created.signing).toBe('symmetric');
    const orders = merchantApi(t, m.testKey);
    const receipts = () => receiver.receipts.filter((r) => r.path === '/switch');
    expectOk(await orders.create(formA()), 201);
    const [first] = await waitFor(() => receipts().length >= 1 && receipts(), { what: 'a v1 delivery' });
    expect(first!.signature).toMatch(/^v1,/);
    expect(new Webhook(m.apiSecret).verify(first!.body, first!.headers)).toBeTruthy();

    expect(expectOk(await hooks.update(created.id, { signing: 'asymmetric' })).body.endpoint.signing).toBe('asymmetric');
    expectOk(await orders.create(formA()), 201);
    const [, second] = await waitFor(() => receipts().length >= 2 && receipts(), { what: 'a v1a delivery' });
    expect(verifiesWithNode(await publicKeys(m.testKey), second!)).toBe(true);
    expect(verifiesWithNoble(await publicKeys(m.testKey), second!)).toBe(true);

    const bad = await hooks.update(created.id, { signing: 'ed448' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('during a rotation both keys sign and both are published, each verifying one signature; after the overlap only the new key signs', async () => {
    const { m, receipts, createOrder } = await merchantWithAsymmetricEndpoint('rotation');
    const before = await publicKeys(m.testKey);
    const { admin } = t.app.container.services;
    await admin.rotateApiSecret({ input: { merchantId: m.merchantId, overlapHours: 1 } });
    const during = await publicKeys(m.testKey);
    expect(during).toHaveLength(2);
    expect(during[1]).toMatchObject({ id: before[0]!.id, public_key: before[0]!.public_key, expires_at: expect.any(String) });
    expect(during[0]).toMatchObject({ expires_at: null });
    expect(during[0]!.id).not.toBe(before[0]!.id);

    await createOrder();
    const [r] = await waitFor(() => receipts().length >= 1 && receipts(), { what: 'a delivery during the rotation' });
    const signatures = r!.signature.split(' ');
    expect(signatures).toHaveLength(2);
    for (const [i, key] of during.entries()) {
      // Key i verifies signature i alone (newest first), with either library; the old key alone still verifies the delivery.
      const alone = { ...r!, signature: signatures[i]! };
      expect(verifiesWithNode([key], alone)).toBe(true);
      expect(verifiesWithNoble([key], alone)).toBe(true);
      expect(verifiesWithNode([key], { ...r!, signature: signatures[1 - i]! })).toBe(false);
    }
    expect(verifiesWithNode(before, r!)).toBe(true);

    // No overlap: the old key stops signing, and is no longer published.
    const n = await merchantWithAsymmetricEndpoint('rotation-now');
    const old = await publicKeys(n.m.testKey);
    await admin.rotateApiSecret({ input: { merchantId: n.m.merchantId, overlapHours: 0 } });
    const now = await publicKeys(n.m.testKey);
    expect(now).toHaveLength(1);
    expect(now[0]!.id).not.toBe(old[0]!.id);
    await n.createOrder();
    const [after] = await waitFor(() => n.receipts().length >= 1 && n.receipts(), { what: 'a delivery after the rotation' });
    expect(after!.signature.split(' ')).toHaveLength(1);
    expect(verifiesWithNode(now, after!)).toBe(true);
    expect(verifiesWithNoble(now, after!)).toBe(true);
    expect(verifiesWithNode(old, after!)).toBe(false);
    expect(verifiesWithNoble(old, after!)).toBe(false);
  });

  it('GraphQL: an endpoint created with signing ASYMMETRIC, and webhookPublicKeys as REST publishes them', async () => {
    const m = await t.createMerchant({ name: 'Asymmetric GraphQL' });
    const created = await gql(t.url, 'mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ... on MutationCreateWebhookEndpointSuccess { data { id signing } } } }', {
      key: m.testKey, variables: { input: { url: `${receiver.url}/gql`, signing: 'asymmetric' } },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createWebhookEndpoint.data.signing).toBe('asymmetric');
    const listed = await gql(t.url, '{ webhookPublicKeys { id algorithm publicKey publicKeyPem createdAt expiresAt } webhookEndpoints { signing } }', { key: m.testKey });
    expect(listed.body.errors).toBeUndefined();
    const rest = await publicKeys(m.testKey);
    expect(listed.body.data.webhookPublicKeys).toEqual(rest.map((k) => ({
      id: k.id, algorithm: 'ed25519', publicKey: k.public_key, publicKeyPem: k.public_key_pem, createdAt: k.created_at, expiresAt: k.expires_at,
    })));
    expect(listed.body.data.webhookEndpoints).toEqual([{ signing: 'asymmetric' }]);
  });
});
