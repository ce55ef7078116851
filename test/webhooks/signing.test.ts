/**
 * Every delivery is signed per Standard Webhooks and verified here with the `standardwebhooks` npm
 * package (an independent verifier), never with our own signing code.
 */
import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { expectOk, formA, merchantApi } from '../orders/support.js';
import { allDeliveries, startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receipt, type Receiver } from './support.js';

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
afterEach(() => receiver.respond(() => 200));

/** A fresh merchant with one test-mode endpoint at its own path of the receiver. */
async function merchantWithEndpoint(tag: string) {
  const m = await t.createMerchant({ name: `Signing ${tag}` });
  const path = `/${tag}`;
  const hooks = webhooksApi(t.url, m.testKey);
  expectOk(await hooks.create({ url: `${receiver.url}${path}` }), 201);
  const orders = merchantApi(t, m.testKey);
  const receipts = () => receiver.receipts.filter((r) => r.path === path);
  const createOrder = async () => expectOk(await orders.create(formA()), 201).body.booking_id as string;
  return { m, hooks, receipts, createOrder };
}

const verify = (secret: string, r: Pick<Receipt, 'body' | 'headers'>) => new Webhook(secret).verify(r.body, r.headers);
const randomSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('Standard Webhooks signatures', () => {
  it('every delivery verifies with the merchant API secret; headers carry id, timestamp, one v1 signature and the event', async () => {
    const { m, hooks, receipts, createOrder } = await merchantWithEndpoint('all');
    const bookings = [await createOrder(), await createOrder(), await createOrder()];
    const got = await waitFor(() => receipts().length >= 3 && receipts(), { what: 'three deliveries' });

    const now = Math.floor(Date.now() / 1000);
    for (const r of got) {
      const payload = verify(m.apiSecret, r) as Record<string, unknown>;
      expect(payload).toEqual(JSON.parse(r.body));
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.event).toBe('order.status_changed');
      expect(payload.event).toBe(r.event);
      expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Number(r.timestamp)).toBeGreaterThan(now - 30);
      expect(Number(r.timestamp)).toBeLessThanOrEqual(now + 1);
    }
    expect(got.map((r) => (JSON.parse(r.body) as { booking_id: string }).booking_id).sort()).toEqual([...bookings].sort());
    // webhook-id: unique per event, and the delivery's id in the log.
    expect(new Set(got.map((r) => r.id)).size).toBe(3);
    const log = await allDeliveries(hooks);
    expect(log.map((d) => d.id).sort()).toEqual(got.map((r) => r.id).sort());
  });

  it('a tampered body, a changed webhook-id, a timestamp older than 5 minutes and a wrong secret all fail verification', async () => {
    const { m, receipts, createOrder } = await merchantWithEndpoint('tamper');
    await createOrder();
    const [r] = await waitFor(() => receipts().length >= 1 && receipts(), { what: 'a delivery' });
    expect(verify(m.apiSecret, r!)).toBeTruthy();

    const fails = (secret: string, changed: Pick<Receipt, 'body' | 'headers'>, message: RegExp) => {
      const attempt = () => verify(secret, changed);
      expect(attempt).toThrow(WebhookVerificationError);
      expect(attempt).toThrow(message);
    };
    // The body: one changed field, one extra byte.
    fails(m.apiSecret, { ...r!, body: r!.body.replace('"status":"new"', '"status":"completed"') }, /No matching signature/);
    expect(r!.body).toContain('"status":"new"');
    fails(m.apiSecret, { ...r!, body: `${r!.body} ` }, /No matching signature/);
    // The id is signed too: a replay under another id fails.
    fails(m.apiSecret, { ...r!, headers: { ...r!.headers, 'webhook-id': 'msg_forged' } }, /No matching signature/);

    // A genuine delivery presented more than 5 minutes later is too old (the verifier's clock moves, not the signature).
    const sentAt = Number(r!.timestamp) * 1000;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(sentAt + 4 * 60_000);
      expect(verify(m.apiSecret, r!)).toBeTruthy();
      vi.setSystemTime(sentAt + 5 * 60_000 + 2_000);
      fails(m.apiSecret, r!, /timestamp too old/);
    } finally {
      vi.useRealTimers();
    }
    // An old timestamp pasted into the headers does not verify either.
    fails(m.apiSecret, { ...r!, headers: { ...r!.headers, 'webhook-timestamp': String(Number(r!.timestamp) - 600) } }, /too old/);

    // Wrong secrets: a random one, and another merchant's.
    fails(randomSecret(), r!, /No matching signature/);
    const other: MerchantCredentials = await t.createMerchant({ name: 'Other' });
    fails(other.apiSecret, r!, /No matching signature/);
  });

  it('webhook-id is stable across retries; each retry is signed afresh and verifies', async () => {
    const { m, hooks, receipts, createOrder } = await merchantWithEndpoint('retry');
    receiver.respond((r, previous) => (r.path === '/retry' && previous.length < 2 ? 500 : 200));
    await createOrder();
    await createOrder();
    const got = await waitFor(() => receipts().filter((r) => r.status === 200).length >= 2 && receipts(), { what: 'two acknowledged deliveries' });

    const ids = [...new Set(got.map((r) => r.id))];
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const attempts = got.filter((r) => r.id === id);
      expect(attempts.map((r) => r.status)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((r) => r.body)).size).toBe(1); // the same bytes every time
      for (const a of attempts) expect(verify(m.apiSecret, a)).toEqual(JSON.parse(a.body));
      const detail = expectOk(await hooks.delivery(id)).body;
      expect(detail.delivery).toMatchObject({ id, status: 'delivered', attempts: 3 });
      expect(detail.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    }
  });

  it('during a secret rotation both signatures are sent and each secret verifies; after the overlap only the new one signs', async () => {
    const { m, receipts, createOrder } = await merchantWithEndpoint('rotation');
    const { admin } = t.app.container.services;
    const rotated = await admin.rotateApiSecret({ input: { merchantId: m.merchantId, overlapHours: 1 } });
    expect(rotated.apiSecret).not.toBe(m.apiSecret);

    await createOrder();
    const [during] = await waitFor(() => receipts().length >= 1 && receipts(), { what: 'a delivery during the rotation' });
    const signatures = during!.signature.split(' ');
    expect(signatures).toHaveLength(2);
    for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(m.apiSecret, during!)).toBeTruthy();
    expect(verify(rotated.apiSecret, during!)).toBeTruthy();
    // Each entry is the signature of exactly one of the two secrets.
    const alone = (i: number) => ({ ...during!, headers: { ...during!.headers, 'webhook-signature': signatures[i]! } });
    const verifies = (secret: string, i: number) => {
      try {
        verify(secret, alone(i));
        return true;
      } catch {
        return false;
      }
    };
    expect([verifies(m.apiSecret, 0), verifies(m.apiSecret, 1)].filter(Boolean)).toHaveLength(1);
    expect([verifies(rotated.apiSecret, 0), verifies(rotated.apiSecret, 1)].filter(Boolean)).toHaveLength(1);
    expect(verifies(m.apiSecret, 0)).not.toBe(verifies(rotated.apiSecret, 0));

    // A second merchant rotates with no overlap: the old secret stops signing at once.
    const n = await merchantWithEndpoint('no-overlap');
    const next = await admin.rotateApiSecret({ input: { merchantId: n.m.merchantId, overlapHours: 0 } });
    await n.createOrder();
    const [after] = await waitFor(() => n.receipts().length >= 1 && n.receipts(), { what: 'a delivery after the rotation' });
    expect(after!.signature.split(' ')).toHaveLength(1);
    expect(verify(next.apiSecret, after!)).toBeTruthy();
    expect(() => verify(n.m.apiSecret, after!)).toThrow(/No matching signature/);
  });
});
