import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { maskLoggedPath } from '../../rest/middleware/access-log.js';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN, api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { memoryStream } from '../helpers/memory-log.js';
import { formA } from '../orders/support.js';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.js';

/** The full credential and its random part (a log line holding only the tail is a leak too). */
function fragmentsOf(secret: string): string[] {
  const random = secret.replace(/^(ak_(live|test)_|ct_|whsec_)/, '');
  return [secret, random, random.slice(-16)];
}

describe('logs never contain credentials', () => {
  const logs = memoryStream();
  let t: TestApp;
  let m: MerchantCredentials;
  let receiver: Receiver;
  const secrets: string[] = [ADMIN_TOKEN];
  /** Signatures the webhook receiver got (derived from the secrets: not to be logged either). */
  const signatures: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      logger: createLogger({ level: 'info', destination: logs.stream }),
      // Webhooks to a local receiver, retried fast: the worker's log lines are part of the check.
      env: { WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCALE: '0.0002' },
    });
    m = await t.createMerchant({ name: 'Logged Merchant' });
    secrets.push(m.liveKey, m.testKey, m.apiSecret);

    // REST, both header styles, success and failure paths.
    await api(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Bearer ${m.testKey}`, 'x-request-id': 'log-test-1' } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { 'x-api-key': m.liveKey } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { 'x-api-key': m.liveKey, 'x-test-mode': 'true' } });
    await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: m.liveKey, body: { prep_time_mins: 10 } });
    await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: m.testKey, body: { prep_time_mins: 999, secret: m.apiSecret } });
    await api(`${t.url}/api/v1/merchants/settings`, {
      method: 'PATCH',
      headers: { 'x-api-key': m.testKey, 'content-type': 'application/json' },
      rawBody: `{"prep_time_mins": "${m.liveKey}"`,
    });
    await api(`${t.url}/api/v1/nope`, { headers: { authorization: `Bearer ${m.testKey}` } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Basic ${Buffer.from(`${m.liveKey}:`).toString('base64')}` } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    await api(`${t.url}/api/v1/health`, { headers: { 'x-api-key': m.testKey } });

    // GraphQL: merchant key, admin token, and admin mutations whose results carry fresh credentials.
    await gql(t.url, '{ viewer { mode } }', { key: m.testKey });
    await api(`${t.url}/graphql`, { headers: { 'x-api-key': m.liveKey }, body: { query: '{ viewer { mode } }' } });
    const created = await gql(t.url, 'mutation { adminCreateMerchant(name: "Fresh") { ... on MutationAdminCreateMerchantSuccess { data { merchantId liveKey testKey apiSecret } } } }', {
      key: ADMIN_TOKEN,
    });
    const fresh = created.body.data.adminCreateMerchant.data;
    secrets.push(fresh.liveKey, fresh.testKey, fresh.apiSecret);
    const rotated = await gql(t.url, `mutation { adminRotateApiSecret(merchantId: "${m.merchantId}") { ... on MutationAdminRotateApiSecretSuccess { data { apiSecret } } } }`, {
      key: ADMIN_TOKEN,
    });
    secrets.push(rotated.body.data.adminRotateApiSecret.data.apiSecret);
    const courier = await gql(t.url, 'mutation { adminCreateCourier(name: "Log Rider", phone: "+56911112222", vehicle: bike, plate: "LOG1") { ... on MutationAdminCreateCourierSuccess { data { token } } } }', {
      key: ADMIN_TOKEN,
    });
    secrets.push(courier.body.data.adminCreateCourier.data.token);
    await gql(t.url, '{ viewer { mode } }', { key: `${ADMIN_TOKEN}-wrong` });

    // The courier token in use: REST (both header styles, valid and not), GraphQL.
    const courierToken = courier.body.data.adminCreateCourier.data.token as string;
    await api(`${t.url}/api/v1/couriers/me`, { headers: { authorization: `Bearer ${courierToken}`, 'x-request-id': 'log-courier-1' } });
    await api(`${t.url}/api/v1/couriers/me/duty`, { headers: { 'x-api-key': courierToken }, body: { on_duty: 'maybe' } });
    await api(`${t.url}/api/v1/couriers/me`, { headers: { authorization: `Bearer ${courierToken}x` } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Bearer ${courierToken}` } });
    await gql(t.url, '{ courier { id status } }', { key: courierToken });

    // Webhook secrets in use: deliveries signed with the (rotated) API secrets, one refused then retried, one redelivered.
    receiver.respond((_r, previous) => (previous.length === 0 ? 500 : 200));
    const hook = await api(`${t.url}/api/v1/webhooks`, { key: m.testKey, body: { url: `${receiver.url}/logged` } });
    await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formA() });
    await waitFor(() => receiver.acknowledged().length > 0, { what: 'a delivered webhook' });
    const delivered = receiver.acknowledged()[0]!;
    await api(`${t.url}/api/v1/webhooks/deliveries/${delivered.id}/redeliver`, { key: m.testKey, method: 'POST' });
    await waitFor(() => receiver.of(delivered.id).length >= 3, { what: 'the redelivery' });
    await api(`${t.url}/api/v1/webhooks/${hook.body.endpoint.id}`, { key: m.testKey, method: 'PATCH', body: { url: `${receiver.url}/moved`, secret: m.apiSecret } });
    signatures.push(...receiver.receipts.flatMap((r) => r.signature.split(' ').map((s) => s.replace(/^v1,/, ''))).filter(Boolean));

    // Stopping flushes the logger: everything the requests above produced is now in the stream.
    await t.stop();
  });
  afterAll(async () => {
    await t.stop();
    await receiver?.close();
  });

  it('captured the request log lines (so the check below is not vacuous)', () => {
    type Line = { msg?: string; req?: { url?: string; id?: string }; res?: { statusCode?: number }; url?: string; reqId?: string; status?: number };
    const lines = logs
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    // One line per request, whichever access logger writes it (pino-http's req/res objects or flat fields).
    const requests = lines
      .map((l) => ({ id: l.req?.id ?? l.reqId, url: l.req?.url ?? l.url, status: l.res?.statusCode ?? l.status }))
      .filter((r) => r.url && r.status);
    expect(requests.length).toBeGreaterThanOrEqual(10);
    expect(requests).toContainEqual({ id: 'log-test-1', url: '/api/v1/merchants/me', status: 200 });
    expect(requests).toContainEqual({ id: 'log-courier-1', url: '/api/v1/couriers/me', status: 200 });
    expect(requests.map((r) => r.status)).toEqual(expect.arrayContaining([200, 400, 401, 404]));
    expect(lines.some((l) => l.msg === 'listening')).toBe(true);
  });

  it('no API key, admin token, API (webhook signing) secret or courier token appears anywhere in the logs, even after use', () => {
    expect(secrets).toHaveLength(9);
    const text = logs.text();
    for (const secret of secrets) {
      for (const fragment of fragmentsOf(secret)) expect(text.includes(fragment), `log contains ${fragment.slice(0, 12)}…`).toBe(false);
    }
    const basic = Buffer.from(`${m.liveKey}:`).toString('base64');
    expect(text.includes(basic)).toBe(false);
  });

  it('webhook signatures (derived from the secrets) never appear in the logs', () => {
    expect(signatures.length).toBeGreaterThanOrEqual(3);
    const text = logs.text();
    for (const signature of signatures) expect(text.includes(signature), `log contains signature ${signature.slice(0, 10)}…`).toBe(false);
    expect(text).not.toContain('whsec_');
  });

  it('credential headers are never logged, not even redacted', () => {
    const text = logs.text().toLowerCase();
    expect(text).not.toContain('"authorization"');
    expect(text).not.toContain('x-api-key');
  });
});

describe('logs mask tracking and order numbers (capabilities of the public tracking endpoints)', () => {
  const logs = memoryStream();
  let t: TestApp;
  let tracking: string;
  let orderNumber: string;

  beforeAll(async () => {
    t = await startTestApp({ logger: createLogger({ level: 'info', destination: logs.stream }) });
    const m = await t.createMerchant({ name: 'Masked Merchant' });
    const created = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formA() });
    tracking = created.body.tracking_number;
    orderNumber = created.body.order_number;
    const lower = tracking.toLowerCase();
    const encoded = tracking.replace(/[A-Z]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    for (const path of [
      `/api/v1/tracking/${tracking}`,
      `/api/v1/tracking/${orderNumber}`,
      `/api/v1/tracking/${lower}`,
      `/api/v1/tracking/${encoded}`,
      `/api/v1/tracking/${encodeURIComponent(` ${orderNumber} `)}`,
      `/track/${tracking}`,
      `/track/${orderNumber}?utm=${tracking}`,
    ]) {
      expect((await api(`${t.url}${path}`)).status, path).toBe(200);
    }
    expect((await api(`${t.url}/api/v1/orders/${tracking}`, { key: m.testKey })).status).toBe(200);
    expect((await api(`${t.url}/api/v1/orders/${orderNumber}/cancel`, { key: m.testKey, body: {} })).status).toBe(200);
    // The live socket's upgrade path.
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/v1/tracking/${tracking}/live`);
    await new Promise<void>((resolve, reject) => {
      ws.once('message', () => resolve());
      ws.once('error', reject);
    });
    ws.close();
    await t.stop();
  });
  afterAll(() => t?.stop());

  it('no tracking or order number appears in the log, in any spelling the endpoints accept', () => {
    const text = logs.text();
    const random = tracking.slice(4, 13); // the first eight random characters and the dash between them
    for (const fragment of [tracking, tracking.toLowerCase(), random, random.toLowerCase(), orderNumber, `/${orderNumber.slice(0, 6)}`]) {
      expect(text.includes(fragment), `log contains ${fragment}`).toBe(false);
    }
  });

  it('the masked lines keep the last four characters (enough to correlate with a support ticket)', () => {
    const urls = logs
      .text()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { url?: string }).url)
      .filter(Boolean);
    expect(urls).toContain(`/api/v1/tracking/EXD-****-****-${tracking.slice(-4)}`);
    expect(urls).toContain(`/api/v1/tracking/EXD-****-****-${tracking.slice(-4).toLowerCase()}`);
    expect(urls).toContain(`/api/v1/tracking/******${orderNumber.slice(-4)}`);
    expect(urls).toContain(`/track/EXD-****-****-${tracking.slice(-4)}`);
    expect(urls).toContain(`/api/v1/orders/******${orderNumber.slice(-4)}/cancel`);
    expect(urls).toContain('/api/v1/orders');
  });

  it('paths without a reference are logged as they are, references inside other text are masked too', () => {
    expect(maskLoggedPath('/api/v1/orders')).toBe('/api/v1/orders');
    expect(maskLoggedPath('/api/v1/orders/bk_01J9ZK3V5E8T6QF7Y2M4N8P0RS')).toBe('/api/v1/orders/bk_01J9ZK3V5E8T6QF7Y2M4N8P0RS');
    expect(maskLoggedPath('/api/v1/orders/12345678901')).toBe('/api/v1/orders/12345678901');
    expect(maskLoggedPath('/x/ref-EXD-AB12-CD34-EF56-z')).toBe('/x/ref-EXD-****-****-EF56-z');
    expect(maskLoggedPath('/x/%ZZ1234567890')).toBe('/x/%ZZ******7890');
  });
});
